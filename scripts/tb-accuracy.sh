#!/usr/bin/env bash
# Endgame accuracy matrix for the README: hce and nn at 1,000 and 10,000
# nodes per move, on K-piece positions judged by tables of K pieces, with and
# without tables of fewer pieces for the player.
#
#   scripts/tb-accuracy.sh JUDGE_DIR K FEWER_DIR [N] [SEED]
#
# JUDGE_DIR covers K pieces; FEWER_DIR covers at most K - 1 (a folder of
# links to the smaller classes of JUDGE_DIR will do). Prints a Markdown table.
set -euo pipefail
judge=$1 k=$2 fewer=$3 n=${4:-1000} seed=${5:-1}
alq=${ALQ:-target/release/alq}
echo "| player | K | player's tables | wins kept | draws kept | all kept | time |"
echo "|---|---|---|---|---|---|---|"
for eval in hce nn; do
  for nodes in 1000 10000; do
    for tb in none "$fewer"; do
      spec="$eval@nodes=$nodes"
      [ "$tb" != none ] && spec="$spec,tb=$tb"
      out=$("$alq" tb accuracy --tb "$judge" --pieces "$k" --positions "$n" --seed "$seed" --player "$spec")
      field() { echo "$out" | sed -n "s/^$1 *//p"; }
      echo "| $eval@nodes=$nodes | $k | $( [ "$tb" = none ] && echo none || echo "≤ $((k - 1))" ) | $(field 'wins kept') | $(field 'draws kept') | $(field 'all kept') | $(field time) |"
    done
  done
done
