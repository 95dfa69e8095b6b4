#!/bin/bash
# The opening atlas on a Slurm cluster, one ply at a time, deepest first:
# for each ply K from DEPTH down to 0, an array of SHARDS jobs (`alq atlas
# --only-ply K --shard I/SHARDS`, one core each, reading the shared store and
# writing their own), then a merge of their stores into the shared store;
# the last job writes the atlas (a store of the tree's positions) and its CSV.
#
#   OUT=/scratch/atlas TB=/scratch/tb12w DEPTH=10 SHARDS=200 scripts/cluster/atlas-slurm.sh
#
# Sizing (docs/tablebases-and-solving.md, "The opening atlas"): over the ≤ 10
# tables a ply-10 position took 7.0 s on average at 20 s a position; 24,332
# positions are about 47 core-hours, so 200 shards take about 15 minutes.
set -euo pipefail
: "${OUT:?} ${ALQ:=alq} ${DEPTH:=10} ${SHARDS:=100} ${MOVETIME_MS:=20000} ${HASH_MB:=2000}"
mkdir -p "$OUT"
shared="$OUT/shared.store"
tb=${TB:+--tb $TB}
prev=""
for k in $(seq "$DEPTH" -1 0); do
    dep=${prev:+--dependency=afterok:$prev}
    # shellcheck disable=SC2086
    array=$(sbatch --parsable $dep --array=0-$((SHARDS - 1)) --job-name="alq-atlas-$k" \
        --cpus-per-task=1 --mem=$((HASH_MB / 1000 + 2))G --time=12:00:00 --output="$OUT/ply$k-%a.log" \
        --wrap "$ALQ atlas --depth $DEPTH --only-ply $k --shard \$SLURM_ARRAY_TASK_ID/$SHARDS --threads 1 \
            \$([ -f $shared ] && echo --read-store $shared) --work $OUT/ply$k-\$SLURM_ARRAY_TASK_ID.store \
            $tb --movetime $MOVETIME_MS --hash $HASH_MB --quiet")
    prev=$(sbatch --parsable --dependency=afterok:"$array" --job-name="alq-atlas-merge-$k" \
        --cpus-per-task=1 --mem=16G --time=02:00:00 --output="$OUT/merge$k.log" \
        --wrap "$ALQ solve --merge $OUT/ply$k-*.store --store $shared")
done
# shellcheck disable=SC2086
sbatch --dependency=afterok:"$prev" --job-name=alq-atlas-write --cpus-per-task=1 --mem=16G \
    --time=01:00:00 --output="$OUT/atlas.log" \
    --wrap "$ALQ atlas --depth $DEPTH --work $shared --out $OUT/atlas.store --csv $OUT/atlas.csv $tb --nodes 1 --threads 1 --quiet"
