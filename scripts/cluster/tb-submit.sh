#!/usr/bin/env bash
# Submits one Slurm array job per level, each depending on the previous one
# (afterok), so that level n starts only when every unit of level n - 1 is on
# the shared disk. Levels up to FROM - 1 are built first on one node.
#   scripts/cluster/tb-submit.sh /shared/alq/tb 24 [FROM=11]
#   TB_KIND=wdl scripts/cluster/tb-submit.sh ...   (win/draw/loss tables)
#   RULES=classic TB_KIND=wdl scripts/cluster/tb-submit.sh ...   (classic rules)
# The array size of a level is its number of build units (a material class
# with its colour-flipped partner): a larger array would leave tasks idle.
set -euo pipefail
out=${1:?shared tablebase folder}
top=${2:?largest piece count}
from=${3:-11}
here=$(dirname "$0")
units() { # build units of level n: classes a v b with a >= b, a, b <= 12
  local n=$1 count=0 a
  for ((a = n; a >= 0; a--)); do
    local b=$((n - a))
    if ((a <= 12 && b <= 12 && a >= b)); then count=$((count + 1)); fi
  done
  echo "$count"
}
dep=$(sbatch --parsable --job-name=alq-tb-base --cpus-per-task=16 --mem=32G --time=04:00:00 \
  --wrap "alq tb build --rules ${RULES:-brainking} --pieces $((from - 1)) --out $out --kind ${TB_KIND:-distance} --threads 16")
for ((n = from; n <= top; n++)); do
  k=$(units "$n")
  dep=$(sbatch --parsable --export=ALL --dependency="afterok:$dep" --array="0-$((k - 1))" \
    "$here/tb-slurm.sh" "$out" "$n" "$k")
  echo "level $n: job $dep ($k tasks)"
done
