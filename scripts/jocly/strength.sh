#!/bin/sh
# Measures our players against Jocly's levels at equal time per move (the
# table in README.md). Usage, from the repository root:
#
#   scripts/jocly/strength.sh ALQ_BINARY OUTDIR [MOVETIME_MS]
#
# Each row is one `alq match`, one game at a time (--threads 1); its summary
# goes to OUTDIR/ROW.log and its games to OUTDIR/ROW.csv. Rows can be run
# alone: ROWS="expert-hce" scripts/jocly/strength.sh ...; GAMES (hce and nn
# rows, 200), GAMES_WEAK (rows of other levels, 100) and SEED (1) as given.
set -eu
ALQ=${1:?usage: strength.sh ALQ_BINARY OUTDIR [MOVETIME_MS]}
OUT=${2:?usage: strength.sh ALQ_BINARY OUTDIR [MOVETIME_MS]}
MT=${3:-100}
ROWS=${ROWS:-"expert-hce expert-nn expert-random expert-greedy beginner-hce fast-hce"}
mkdir -p "$OUT"
for row in $ROWS; do
  level=${row%%-*}
  ours=${row#*-}
  case $ours in
    random) games=100 ;;
    greedy) games=200 ;;
    hce | nn) games=${GAMES:-200} ;;
    *) games=100 ;;
  esac
  case $level in expert) ;; *) games=${GAMES_WEAK:-100} ;; esac
  set -- "$ALQ" match --a "engine:node scripts/jocly/engine.js --level $level" --b "$ours" \
    --games "$games" --movetime "$MT" --threads 1 --seed "${SEED:-1}" --quiet \
    --save-games "$OUT/$row.csv" --out "$OUT/$row.json"
  echo "\$ $*" >"$OUT/$row.log"
  start=$(date +%s)
  "$@" >>"$OUT/$row.log" 2>&1 || echo "exit status $?" >>"$OUT/$row.log"
  echo "wall seconds: $(($(date +%s) - start))" >>"$OUT/$row.log"
done
