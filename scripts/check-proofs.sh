#!/usr/bin/env bash
# Checks the shipped certificates with both checkers: `alq solve --check`
# (the workspace's checker, over tables built by `alq tb build`) and
# `alq-check` (tools/alq-check, written apart: its own move generator and
# its own tables, built in memory), and that each file proves what its
# name says: `start-black-draws` is rooted at the start with the goal
# `black-draws`, `d2-c3-black-wins` after d2-c3 with `black-wins` (both
# checkers must report that root and goal).
#
#   scripts/check-proofs.sh [--classic] [K] [BIN_DIR]
#   scripts/check-proofs.sh all [BIN_DIR]
#   scripts/check-proofs.sh atlas [BIN_DIR]
#
# K (default 7): check every certificate in data/proofs/small/ (with
# --classic: data/proofs/classic/, classic rules) whose `tables` line is at
# most K (the others are named and skipped); the ≤ K win/draw/loss tables
# are built into target/proof-tables/tbKw (classic: tbKw-classic; kept for
# reruns). BIN_DIR (default target/release) holds `alq` and `alq-check`.
# scripts/test runs it with K = 7 and --classic 7 (the fast tier, CI) and
# with K = 10 (the slow tier, --full); CONTRIBUTING.md gives the times.
#
# `all`: every certificate in data/proofs, by hand: data/proofs/small/, the
# embedded ones in data/proofs/ and data/proofs/atlas/ (the opening atlas's,
# of many roots; what the oracle answers as `proof`)
# with `alq solve --check` over the ≤ 12 tables (target/proof-tables/tb12w,
# built when missing: about an hour on 2 cores) and, in one run, with
# `alq-check` where its tables reach (it builds at most ≤ 10: the files with
# `tables 12` are named and skipped); then data/proofs/classic/ over ≤ 7
# classic tables with both. CHECK_PROOFS_DIR="DIR..." checks other folders.
#
# `atlas`: the opening atlas's certificates with the second checker too, by
# hand. They lean on the ≤ 12 tables, which `alq-check` does not build, and
# their ≤ 10 forms are too large to ship (one hard leaf of a draw goal
# weighs more than the rest), so each embedded file of data/proofs/atlas/
# is deepened onto the ≤ 10 tables (`alq solve --deepen`, its parts kept in
# target/atlas-d10/, so a killed run resumes; the leaves that resist
# 200,000 positions are tried again at 5 M, then 40 M), and the four ≤ 10
# files are checked by both checkers as K = 10 checks. About 80 minutes on
# 2 cores, most of it the draw goals' deepening and alq-check's tables
# (docs/tablebases-and-solving.md gives the times).
set -euo pipefail
cd "$(dirname "$0")/.."

need_bins() { # BIN_DIR: both checkers' binaries are there
    for b in "$1/alq" "$1/alq-check"; do
        [ -x "$b" ] || { echo "missing $b: cargo build --release -p alq -p alq-check" >&2; exit 2; }
    done
}

tables() { # K RULES BIN_DIR: prints the ≤ K tables' folder, built when missing
    local tb=target/proof-tables/tb$1w
    [ "$2" = brainking ] || tb=$tb-$2
    if [ ! -f "$tb/.complete" ]; then
        "$3/alq" tb build --pieces "$1" --kind wdl --rules "$2" --out "$tb" >/dev/null || exit 2
        touch "$tb/.complete"
    fi
    echo "$tb"
}

if [ "${1:-}" = all ]; then
    bin=${2:-target/release}
    CHECK_PROOFS_DIR="data/proofs/small data/proofs data/proofs/atlas" "$0" 12 "$bin"
    "$0" --classic 7 "$bin"
    exit 0
fi

if [ "${1:-}" = atlas ]; then
    bin=${2:-target/release}
    need_bins "$bin"
    tb=$(tables 10 brainking "$bin")
    out=target/atlas-d10
    mkdir -p "$out"
    for c in data/proofs/atlas/atlas-*.cert.gz; do
        deep=$out/$(basename "$c")
        for nodes in 200000 5000000 40000000; do
            [ -f "$deep" ] && break
            # Exit 2 with the resisting leaves listed: the next budget
            # takes only those (the proven ones are in the parts).
            "$bin/alq" solve --deepen "$c" --tb "$tb" --out "$deep" --nodes "$nodes" --hash 2000 --quiet || true
        done
        [ -f "$deep" ] || { echo "$c: not deepened over $tb: the leaves listed above resist 40 M positions or do not hold (parts in $deep.parts)" >&2; exit 2; }
        echo "$deep: deepened onto ≤ 10 from $c"
    done
    CHECK_PROOFS_DIR=$out "$0" 10 "$bin"
    exit 0
fi

rules=brainking
dirs=${CHECK_PROOFS_DIR:-data/proofs/small}
if [ "${1:-}" = "--classic" ]; then
    rules=classic
    dirs=data/proofs/classic
    shift
fi
k=${1:-7}
bin=${2:-target/release}
alq=$bin/alq
check2=$bin/alq-check
need_bins "$bin"

header() { # FILE FIELD: a header field of a plain or gzip certificate
    if [[ $1 == *.gz ]]; then gzip -dc "$1"; else cat "$1"; fi | sed -n 2,6p | awk -v f="$2" '$1 == f { print $2 }'
}

certs=()
read -ra folders <<<"$dirs"
for c in $(for d in "${folders[@]}"; do printf '%s\n' "$d"/*.cert "$d"/*.cert.gz; done); do
    [ -f "$c" ] || continue
    tables=$(header "$c" tables)
    [ -n "$tables" ] || { echo "$c: no \`tables\` line in its header" >&2; exit 2; }
    if [ "$tables" -le "$k" ]; then
        certs+=("$c")
    else
        echo "skipped (tables ${tables:-?} > $k): $c" >&2
    fi
done
if [ ${#certs[@]} -eq 0 ]; then
    echo "no certificate over tables of at most $k pieces in $dirs" >&2
    exit 2
fi

tb=$(tables "$k" "$rules" "$bin")

# What a file's name says: the line from the start (`start`: none) and the goal.
named_line() { local n; n=$(basename "$1"); n=${n%.gz}; n=${n%.cert}; n=${n%-*-*}; [ "$n" = start ] || echo "$n"; }
named_goal() { local n; n=$(basename "$1"); n=${n%.gz}; n=${n%.cert}; echo "${n#"${n%-*-*}"-}"; }

declare -A root_of
for c in "${certs[@]}"; do
    line=$(named_line "$c")
    goal=$(named_goal "$c")
    # --moves plays the name's line from the start: a certificate rooted
    # elsewhere is refused (exit 2). The atlas's certificates
    # (`atlas-dD-GOAL`) have many roots, every position of plies ≤ D that
    # meets the goal: the file's own root is checked, and every entry.
    where=(--moves "$line")
    if [[ $(basename "$c") == atlas-* ]]; then where=(); line="the atlas's roots"; fi
    out=$("$alq" solve --check "$c" --rules "$rules" --tb "$tb" "${where[@]}" --quiet)
    found=$(awk '$1 == "goal" { print $2 }' <<<"$out")
    if [ "$found" != "$goal" ]; then
        echo "$c: proves $found, but its name says $goal" >&2
        exit 2
    fi
    root_of[$c]=$(awk '$1 == "root" { print $2 }' <<<"$out")
    printf '%s: alq solve --check: %s, root %s (%s), %s\n' "$c" "$(tail -1 <<<"$out")" \
        "${root_of[$c]}" "${line:-start}" "$(awk '$1 == "tables" { print }' <<<"$out")"
done

mine=()
for c in "${certs[@]}"; do
    if [ "$(header "$c" tables)" -le 10 ]; then mine+=("$c"); else echo "alq-check: skipped (its tables stop at 10): $c" >&2; fi
done
[ ${#mine[@]} -gt 0 ] || exit 0
echo "alq-check: ${#mine[@]} certificates"
out=$("$check2" "${mine[@]}") || { echo "$out"; exit 2; }
echo "$out"
for c in "${mine[@]}"; do
    said=$(grep -F -- "$c: rules " <<<"$out" | head -1 || true)
    if [[ $said != *"root ${root_of[$c]} "* || $said != *"goal $(named_goal "$c"),"* ]]; then
        echo "$c: alq-check reports another root or goal: $said" >&2
        exit 2
    fi
done
