#!/usr/bin/env bash
# Self-play speed: games and positions per second at 1,000 and 10,000 nodes
# per move, one and two threads. Usage: scripts/bench_selfplay.sh [alq binary]
set -euo pipefail
alq=${1:-target/release/alq}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for nodes in 1000 10000; do
  games=$([ "$nodes" = 1000 ] && echo 400 || echo 60)
  for threads in 1 2; do
    start=$(date +%s.%N)
    "$alq" selfplay --out "$out/$nodes-$threads" --games "$games" --nodes "$nodes" --threads "$threads" --quiet 2>/dev/null
    end=$(date +%s.%N)
    positions=$("$alq" records stats "$out/$nodes-$threads/games.csv" | awk '/^positions/ {print $2}')
    python3 -c "s=$end-$start; print(f'nodes $nodes threads $threads: $games games in {s:.2f} s, {$games/s:.1f} games/s, {$positions/s:.0f} positions/s')"
  done
done
