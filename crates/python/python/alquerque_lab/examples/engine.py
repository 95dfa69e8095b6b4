#!/usr/bin/env python3
"""An external Alquerque engine in Python, on top of ``alquerque_lab``.

It speaks the project's engine protocol (UCI-style, docs/protocol.md) on
standard input and output, so ``alq match`` can play it like any other
engine, and searches with ``alquerque_lab.Engine`` (the Rust searcher, with
the shipped network or the handcrafted evaluator)::

    alq match --a "engine:python3 -m alquerque_lab.examples.engine" --b random --games 20
    alq match --a "engine:python3 -m alquerque_lab.examples.engine --eval hce@nodes=500" \\
              --b hce@nodes=500 --games 10

Options: ``--eval nn|hce|hce@weight=...|FILE`` (default ``nn``, ``hce`` under
the classic rules), ``--nodes N`` (the limit of a ``go`` that names none;
2000), ``--rules brainking|classic``, ``--hash MIB``, ``--threads T``.

Protocol: ``uci`` (id lines, the options ``Hash``, ``Threads``, ``Eval``,
``NoProgress`` and ``Rules``, ``uciok``), ``isready``, ``setoption``,
``ucinewgame``, ``position startpos|fen TEXT [moves ...]``, ``go [nodes N]
[depth D] [movetime MS] [wtime MS btime MS [winc MS binc MS] [movestogo N]]
[infinite]``, ``stop``, ``quit``. The search runs on a worker thread, so
``isready``, ``stop`` and ``quit`` are answered during a search; ``position``,
``go``, ``setoption`` and ``ucinewgame`` that arrive during a search wait for
it to end, and every later line waits behind them (answers keep the order of
the commands). A ``go`` with no limit searches ``--nodes`` nodes (a bot that
always moves); ``go infinite`` searches until ``stop``. With a clock the
engine spends what ``alq engine`` does (a thirtieth of the time left plus
three quarters of the increment, at most 40 %), less 50 ms for Python's
overhead. Bad input gets an ``info string error: ...`` line and changes
nothing; an unknown command gets ``info string unknown command ...``. When
standard input ends, the engine finishes the searches asked for and quits.

The engine needs ``alquerque_lab`` importable by the ``python3`` that the
match runs (``sh -c``): activate the package's environment first
(``source .venv/bin/activate``, the environment of crates/python/README.md). A match's ``go`` carries the
player's limits (``nodes 2000`` by default), so give the engine's limits to
the match (``engine:python3 -m alquerque_lab.examples.engine@nodes=500``);
``--nodes`` only serves a bare ``go``. ``alq match`` takes what follows an
engine spec's last ``@`` as the match's settings when it holds a ``=``, so an
``--eval hce@mobility=4`` on the engine's command line must be followed by
the match's own settings: ``"engine:python3 .../engine.py --eval
hce@mobility=4@nodes=500"`` (measured: 2 wins, 2 losses in 4 games against
``hce@nodes=500``).

Measured on this project's 2-core development machine (other jobs running),
from the repository root, with the environment active (``--quiet``; Elo lines
left out)::

    $ target/release/alq match --a "engine:python3 -m alquerque_lab.examples.engine" --b random --games 20 --quiet
    wins 20 draws 0 losses 0 (first player's view), white wins 10 black wins 10
    score 1.0000, pentanomial 0:0 0.5:0 1:0 1.5:0 2:10, forfeits 0 / 0; 2.5 s

    $ target/release/alq match --a "engine:python3 -m alquerque_lab.examples.engine" --b hce@nodes=500 --games 10 --quiet
    wins 5 draws 2 losses 3, white wins 0 black wins 8
    score 0.6000, pentanomial 0:0 0.5:0 1:3 1.5:2 2:0, forfeits 0 / 0; 1.7 s

    $ target/release/alq match --a "engine:python3 -m alquerque_lab.examples.engine" --b nn@nodes=2000 --games 10 --quiet
    wins 4 draws 2 losses 4, white wins 0 black wins 8
    score 0.5000, pentanomial 0:0 0.5:0 1:5 1.5:0 2:0 (every pair split: it plays
    exactly as the built-in nn@nodes=2000 does), forfeits 0 / 0; 1.6 s

    $ target/release/alq match --a "engine:python3 -m alquerque_lab.examples.engine" --b nn --tc 2+0.05 --games 10 --quiet
    wins 5 draws 0 losses 5, white wins 0 black wins 10
    score 0.5000, pentanomial 0:0 0.5:0 1:5 1.5:0 2:0, forfeits 0 / 0 (no time losses); 8.7 s

    $ target/release/alq match --a "engine:python3 -m alquerque_lab.examples.engine" --b random --games 10 --rules classic --quiet
    wins 10 draws 0 losses 0 (the Rules option switches the default evaluator to hce)
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from collections import deque
from typing import Any, Deque, Dict, List, Literal, Optional, Tuple, cast

try:
    import alquerque_lab as aq
except ImportError as e:  # pragma: no cover
    sys.stdout.write(f"info string error: cannot import alquerque_lab: {e}\n")
    sys.stdout.flush()
    raise SystemExit(1)

NAME = "alquerque_lab-python-example"
AUTHOR = "the Alquerque Lab authors"
# Commands that change the position or the searcher: they wait for a search.
WAITS = {"position", "go", "setoption", "ucinewgame"}
# Python's own time per move (reading the position, starting the search,
# writing the answer), taken off every clock budget.
OVERHEAD_S = 0.05
MAX_DEPTH = 1000  # clamped by the library to its maximum depth
Rules = Literal["brainking", "classic"]

_out_lock = threading.Lock()


def send(line: str) -> None:
    """Writes one line and flushes it (from any thread)."""
    with _out_lock:
        try:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            pass  # the other side went away; the input side ends the loop


def error(message: str) -> None:
    send(f"info string error: {message}")


def time_for_move(remaining_ms: int, inc_ms: int, to_go: Optional[int]) -> float:
    """Seconds to spend on a move, as ``alq engine`` plans it, less Python's overhead."""
    to_go = min(max(to_go or 30, 1), 200)
    share = remaining_ms / to_go + inc_ms * 3 / 4
    cap = remaining_ms * (4 / 5 if to_go == 1 else 2 / 5)
    return max(min(share, cap) / 1000 - 0.02 - OVERHEAD_S, 0.001)


class Search:
    """One search on a worker thread: prints an ``info`` line per iteration,
    then ``bestmove`` (held back until ``stop`` in an infinite search)."""

    def __init__(self, analysis: "aq.Analysis", infinite: bool, events: queue.Queue[Tuple[str, Any]]) -> None:
        self.analysis = analysis
        self.infinite = infinite
        self.stopped = threading.Event()
        self.events = events
        self.last_pv: List[aq.Move] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for info in self.analysis:
                self.last_pv = info.pv
                send(info.line)
            if self.infinite:
                self.stopped.wait()
            send(self._bestmove())
        except Exception as e:  # never die silently: answer something
            error(f"search failed: {e}")
            send(self._bestmove())
        finally:
            self.events.put(("done", self))

    def _bestmove(self) -> str:
        result = self.analysis.result
        # After a `stop` from the main thread, the iterator can end before
        # `.result` is set: the stopping thread stores it once it has the GIL
        # back (it was None right after the loop in 196 of 200 tries). Sleep
        # (releasing the GIL) until it is there.
        deadline = time.monotonic() + 1.0
        while result is None and time.monotonic() < deadline:
            time.sleep(0.001)
            result = self.analysis.result
        if result is not None:
            best = result.best_move
        else:
            best = self.last_pv[0] if self.last_pv else None
        return f"bestmove {best}" if best is not None else "bestmove none"

    def stop(self) -> None:
        self.analysis.stop()
        self.stopped.set()


class Protocol:
    def __init__(self, args: argparse.Namespace) -> None:
        self.default_nodes = args.nodes
        self.hash = args.hash
        self.threads = args.threads
        self.rules: Rules = args.rules
        self.eval = args.eval or ("nn" if args.rules == "brainking" else "hce")
        self.eval_chosen = args.eval is not None
        self.no_progress: Optional[int] = 60
        self.engine: Optional[aq.Engine] = None
        self.game = aq.Game(rules=self.rules, no_progress=self.no_progress)
        # ("line", text), ("eof", None) and ("done", Search) from the threads
        self.events: queue.Queue[Tuple[str, Any]] = queue.Queue()
        self.search: Optional[Search] = None
        self.deferred: Deque[str] = deque()
        # Fail at once on a bad --eval (the match then sees a crash at start).
        self.engine = self.build_engine(self.eval, self.rules, self.hash, self.threads)

    @staticmethod
    def build_engine(eval_spec: str, rules: Rules, hash_mb: int, threads: int) -> "aq.Engine":
        return aq.Engine(eval=eval_spec, rules=rules, hash=hash_mb, threads=threads)

    # -- the loop ---------------------------------------------------------

    def reader(self) -> None:
        # Bytes that are not UTF-8 are replaced, not fatal.
        for raw in sys.stdin.buffer:
            self.events.put(("line", raw.decode("utf-8", errors="replace").rstrip("\r\n")))
        self.events.put(("eof", None))

    def serve(self) -> None:
        threading.Thread(target=self.reader, daemon=True).start()
        closed = False
        while True:
            kind, payload = self.events.get()
            if kind == "line":
                if not self.command(payload):
                    break
            elif kind == "eof":
                closed = True
            elif kind == "done":
                if payload is self.search:
                    self.search = None
                if not self.run_deferred():
                    break
            if closed:
                if self.search is None and not self.deferred:
                    break
                if self.search is not None and self.search.infinite:
                    self.search.stop()
        # quit: end a running search without waiting for its answer
        if self.search is not None:
            self.search.analysis.stop()

    def command(self, line: str) -> bool:
        line = line.strip()
        word = line.split(maxsplit=1)[0] if line else ""
        if self.search is not None and self.deferred and word != "quit":
            self.deferred.append(line)  # nothing overtakes a held-back line
            return True
        return self.execute(line)

    def run_deferred(self) -> bool:
        while self.deferred:
            word = self.deferred[0].split(maxsplit=1)[0]
            if self.search is not None and word in WAITS:
                break
            if not self.execute(self.deferred.popleft()):
                return False
        return True

    def execute(self, line: str) -> bool:
        parts = line.split(maxsplit=1)
        word, rest = (parts[0], parts[1] if len(parts) > 1 else "") if parts else ("", "")
        try:
            if word == "":
                pass
            elif word == "quit":
                return False
            elif word == "uci":
                self.uci()
            elif word == "isready":
                send("readyok")
            elif word == "stop":
                if self.search is not None:
                    self.search.stop()
            elif self.search is not None and word in WAITS:
                self.deferred.append(line)
            elif word == "ucinewgame":
                self.engine_or_build().clear()
                self.game = self.new_game()
            elif word == "setoption":
                self.set_option(rest)
            elif word == "position":
                self.game = self.parse_position(rest)
            elif word == "go":
                self.go(rest)
            else:
                send(f"info string unknown command {word!r}")
        except (ValueError, TypeError, OverflowError) as e:  # aq's errors are ValueErrors
            error(str(e))
        return True

    # -- commands ---------------------------------------------------------

    def uci(self) -> None:
        send(f"id name {NAME} {aq.__version__}")
        send(f"id author {AUTHOR}")
        send(f"option name Hash type spin default {self.hash} min 1 max 65536")
        send(f"option name Threads type spin default {self.threads} min 1 max 256")
        send(f"option name Eval type string default {self.eval}")
        send("option name NoProgress type spin default 60 min 0 max 1000")
        send(f"option name Rules type combo default {self.rules} var brainking var classic")
        send("uciok")

    def engine_or_build(self) -> "aq.Engine":
        if self.engine is None:
            self.engine = self.build_engine(self.eval, self.rules, self.hash, self.threads)
        return self.engine

    def new_game(self) -> "aq.Game":
        return aq.Game(rules=self.rules, no_progress=self.no_progress)

    def set_option(self, text: str) -> None:
        usage = "expected setoption name NAME value VALUE"
        if not text.startswith("name"):
            raise ValueError(usage)
        name, _, value = text[4:].strip().partition(" value")
        name, value = name.strip(), value.strip()

        def number(low: int, high: int) -> int:
            if not value.isdigit() or not low <= int(value) <= high:
                raise ValueError(f"option {name}: {value!r} is not a whole number from {low} to {high}")
            return int(value)

        key = name.lower()
        if key == "hash":
            self.hash = number(1, 65536)
            self.engine = None
        elif key == "threads":
            self.threads = number(1, 256)
            self.engine = None
        elif key == "eval":
            # Build first: a spec that cannot be used changes nothing.
            self.engine = self.build_engine(value, self.rules, self.hash, self.threads)
            self.eval = value
            self.eval_chosen = True
        elif key == "noprogress":
            limit = number(0, 1000)
            self.no_progress = limit or None
            # The current game keeps its moves under the new rule.
            game = aq.Game(self.game.start, rules=self.rules, no_progress=self.no_progress)
            for mv in self.game.moves:
                if game.is_over():
                    break
                game.push(mv)
            self.game = game
        elif key == "rules":
            if value not in ("brainking", "classic"):
                raise ValueError(f"option Rules: unknown rules {value!r} (expected brainking or classic)")
            rules = cast(Rules, value)
            # Without --eval or an Eval option, the evaluator follows the rules
            # (the shipped network is BrainKing's; hce plays both).
            eval_spec = self.eval if self.eval_chosen else ("nn" if rules == "brainking" else "hce")
            try:
                engine = self.build_engine(eval_spec, rules, self.hash, self.threads)
            except ValueError as e:
                raise ValueError(f"option Rules: {e}; set Eval to hce or a {value} network first") from None
            self.rules, self.engine, self.eval = rules, engine, eval_spec
            self.game = self.new_game()
        else:
            raise ValueError(f"unknown option {name!r} (options: Hash, Threads, Eval, NoProgress, Rules)")

    def parse_position(self, text: str) -> "aq.Game":
        setup, sep, moves = text.partition("moves")
        setup = setup.strip()
        if setup == "startpos":
            start: Optional[str] = None
        elif setup.startswith("fen"):
            start = setup[3:].strip()
            if not start:
                raise ValueError("position fen needs a position text")
        else:
            raise ValueError(f"expected position startpos|fen TEXT [moves ...], found {text!r}")
        game = aq.Game(start, rules=self.rules, no_progress=self.no_progress)
        for i, mv in enumerate(moves.split() if sep else [], start=1):
            try:
                game.push(mv)
            except ValueError as e:
                raise ValueError(f"move {i} ({mv}): {e}") from None
        return game

    def go(self, text: str) -> None:
        words = text.split()
        nodes = depth = None
        movetime: Optional[float] = None
        clock: Dict[str, Optional[int]] = {"wtime": None, "btime": None}
        inc: Dict[str, int] = {"winc": 0, "binc": 0}
        to_go = None
        infinite = False
        i = 0
        while i < len(words):
            key = words[i]
            i += 1
            if key == "infinite":
                infinite = True
                continue
            if i >= len(words):
                raise ValueError(f"go {key}: missing value")
            value = words[i]
            i += 1
            if not value.isdigit():
                raise ValueError(f"go {key}: {value!r} is not a whole number")
            n = int(value)
            if key == "nodes":
                nodes = max(n, 1)
            elif key == "depth":
                depth = min(max(n, 1), 100)
            elif key == "movetime":
                movetime = max(n, 1) / 1000
            elif key in clock:
                clock[key] = n
            elif key in inc:
                inc[key] = n
            elif key == "movestogo":
                to_go = min(max(n, 1), 1000)
            else:
                raise ValueError(f"go: unknown parameter {key!r}")
        white = self.game.side_to_move == "white"
        remaining = clock["wtime" if white else "btime"]
        if remaining is not None:
            budget = time_for_move(remaining, inc["winc" if white else "binc"], to_go)
            movetime = budget if movetime is None else min(movetime, budget)
        if infinite:
            nodes, depth, movetime = None, MAX_DEPTH, None
        elif nodes is None and depth is None and movetime is None:
            nodes = self.default_nodes
        analysis = self.engine_or_build().analyze(self.game, nodes=nodes, depth=depth, movetime=movetime)
        self.search = Search(analysis, infinite, self.events)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eval", default=None, help="nn (default), hce, hce@weight=..., or a network file")
    p.add_argument("--nodes", type=int, default=2000, help="nodes for a go without a limit (default 2000)")
    p.add_argument("--rules", choices=["brainking", "classic"], default="brainking")
    p.add_argument("--hash", type=int, default=16, help="transposition table in MiB (default 16)")
    p.add_argument("--threads", type=int, default=1, help="search threads (default 1)")
    args = p.parse_args(argv)
    if args.nodes < 1:
        p.error("--nodes must be at least 1")
    try:
        protocol = Protocol(args)
    except ValueError as e:
        error(str(e))
        return 2
    protocol.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
