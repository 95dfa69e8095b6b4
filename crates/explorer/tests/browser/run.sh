#!/usr/bin/env bash
# Runs the explorer's browser test against a freshly started server.
#
#   crates/explorer/tests/browser/run.sh ALQ_BINARY GAMES_FILE [extra `alq serve` arguments...]
#
# Starts `ALQ_BINARY serve --games GAMES_FILE --port PORT [extra...]` in the
# background, waits until GET /api/explorer answers, runs explorer.test.mjs
# against it with headless Chromium, then stops the server. The exit status is
# the test's (non-zero on any failure).
#
# Environment:
#   EXPLORER_PORT        port to use (default: a free one)
#   EXPLORER_HOST        host the test connects to (default 127.0.0.1)
#   EXPLORER_SHOTS       screenshot folder (default: ./explorer-shots)
#   EXPLORER_WAIT        seconds to wait for the server to answer (default 120)
#   EXPLORER_SERVER_CMD  a command to start instead of `alq serve` (e.g. a mock
#                        server); `{port}` and `{games}` in it are replaced. With
#                        it, ALQ_BINARY is ignored (pass `-`).
#   EXPLORER_CHROMIUM    browser binary (default /usr/bin/chromium)
#   EXPLORER_PLIES, EXPLORER_COUNTING, EXPLORER_EVAL: passed to the test (see explorer.test.mjs)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ $# -lt 2 ]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
alq="$1"; games="$2"; shift 2

die() { echo "run.sh: $*" >&2; exit 2; }

[ -f "$games" ] || die "no games file: $games"
games="$(cd "$(dirname "$games")" && pwd)/$(basename "$games")"
if [ -z "${EXPLORER_SERVER_CMD:-}" ]; then
  [ -x "$alq" ] || die "not an executable: $alq"
fi
chromium="${EXPLORER_CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || die "no browser at $chromium (Debian: apt-get install -y chromium)"
command -v node >/dev/null || die "node is not installed"

if [ ! -d "$here/node_modules/playwright-core" ]; then
  echo "run.sh: installing playwright-core (npm ci)"
  (cd "$here" && npm ci --no-audit --no-fund --silent) || die "npm ci failed"
fi

host="${EXPLORER_HOST:-127.0.0.1}"
port="${EXPLORER_PORT:-}"
if [ -z "$port" ]; then
  port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});')"
fi
shots="${EXPLORER_SHOTS:-$PWD/explorer-shots}"
mkdir -p "$shots"
log="$(mktemp -t explorer-server.XXXXXX.log)"

if [ -n "${EXPLORER_SERVER_CMD:-}" ]; then
  cmd="${EXPLORER_SERVER_CMD//\{port\}/$port}"
  cmd="${cmd//\{games\}/$games}"
  echo "run.sh: starting (in place of alq serve): $cmd"
  bash -c "exec $cmd" >"$log" 2>&1 &
else
  echo "run.sh: starting: $alq serve --games $games --port $port $*"
  "$alq" serve --games "$games" --port "$port" "$@" >"$log" 2>&1 &
fi
server=$!

stop_server() {
  if kill -0 "$server" 2>/dev/null; then
    kill "$server" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server" 2>/dev/null || true
  fi
  wait "$server" 2>/dev/null || true
}
trap 'stop_server; rm -f "$log"' EXIT
trap 'exit 130' INT TERM

url="http://$host:$port/"
wait_s="${EXPLORER_WAIT:-120}"
deadline=$((SECONDS + wait_s))
until curl -fsS -o /dev/null --max-time 5 "${url}api/explorer?moves=" 2>/dev/null; do
  if ! kill -0 "$server" 2>/dev/null; then
    echo "run.sh: the server exited before answering; its output:" >&2
    cat "$log" >&2
    exit 1
  fi
  if [ $SECONDS -ge $deadline ]; then
    echo "run.sh: no answer from ${url}api/explorer within ${wait_s} s; server output:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.3
done
echo "run.sh: server answers at $url"

status=0
EXPLORER_URL="$url" EXPLORER_GAMES="$games" EXPLORER_SHOTS="$shots" \
  node "$here/explorer.test.mjs" || status=$?

if [ $status -ne 0 ]; then
  echo "run.sh: test failed (exit $status); server output (last 40 lines):" >&2
  tail -n 40 "$log" >&2
fi
exit $status
