#!/usr/bin/env bash
# Checks the shipped certificates over small tables with both checkers:
# `alq solve --check` (the workspace's checker, over tables built by `alq tb
# build`) and `alq-check` (tools/alq-check, written apart: its own move
# generator and its own tables, built in memory).
#
#   scripts/check-proofs.sh [--classic] [K] [BIN_DIR]
#
# K (default 8): check every certificate in data/proofs/small/ (with
# --classic: data/proofs/classic/, classic rules) whose `tables` line is at
# most K (the others are named and skipped); the ≤ K win/draw/loss tables
# are built into target/proof-tables/tbKw (classic: tbKw-classic; kept for
# reruns). BIN_DIR (default target/release) holds `alq` and `alq-check`.
# scripts/test runs it with K = 8 (the fast tier) and with K = 10 and
# --classic 8 (the slow tier, --full); CONTRIBUTING.md gives the times.
set -euo pipefail
cd "$(dirname "$0")/.."
rules=brainking
dir=data/proofs/small
if [ "${1:-}" = "--classic" ]; then
    rules=classic
    dir=data/proofs/classic
    shift
fi
k=${1:-8}
bin=${2:-target/release}
alq=$bin/alq
check2=$bin/alq-check
for b in "$alq" "$check2"; do
    [ -x "$b" ] || { echo "missing $b: cargo build --release -p alq -p alq-check" >&2; exit 2; }
done

certs=()
for c in "$dir"/*.cert "$dir"/*.cert.gz; do
    [ -f "$c" ] || continue
    tables=$(if [[ $c == *.gz ]]; then gzip -dc "$c"; else cat "$c"; fi | sed -n 5p | awk '$1 == "tables" { print $2 }')
    if [ -n "$tables" ] && [ "$tables" -le "$k" ]; then
        certs+=("$c")
    else
        echo "skipped (tables ${tables:-?} > $k): $c" >&2
    fi
done
if [ ${#certs[@]} -eq 0 ]; then
    echo "no certificate over tables of at most $k pieces in $dir" >&2
    exit 2
fi

tb=target/proof-tables/tb${k}w
[ "$rules" = brainking ] || tb=$tb-$rules
if [ ! -f "$tb/.complete" ]; then
    "$alq" tb build --pieces "$k" --kind wdl --rules "$rules" --out "$tb" >/dev/null
    touch "$tb/.complete"
fi
for c in "${certs[@]}"; do
    printf '%s: alq solve --check: ' "$c"
    "$alq" solve --check "$c" --tb "$tb" --quiet | tail -1
done
echo "alq-check: ${#certs[@]} certificates"
"$check2" "${certs[@]}"
