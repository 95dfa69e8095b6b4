#!/bin/bash
# The opening atlas on a Slurm cluster, one ply at a time, deepest first:
# for each ply K from DEPTH down to 0, an array of SHARDS jobs (`alq atlas
# --only-ply K --shard I/SHARDS`, one core each, a contiguous block of the
# ply, reading the shared store), then a merge into the shared store of what
# the jobs settled of the tree's positions (their --save-tree stores: the
# shared store stays as small as the tree, while each job's own work store,
# kept under $OUT/work for a resubmitted job to resume from, holds up to
# MAX_STORE positions); the last job writes the atlas (a store of the tree's
# positions) and its CSV.
#
#   OUT=/scratch/atlas TB=/scratch/tb12w DEPTH=10 SHARDS=200 scripts/cluster/atlas-slurm.sh
#
# Sizing (docs/tablebases-and-solving.md, "The opening atlas"): over the ≤ 10
# tables at 4 s a position, ply 10 went at about 2.7 positions a second on
# 2 cores, so 24,332 positions are about 5 core-hours and 200 shards take
# a few minutes; the positions left as bounds need a second pass with a
# longer MOVETIME_MS (and --retry, added by RETRY=1). Each job logs the
# positions its searches left open with their budget (--tried, under
# $OUT/work): a resubmitted job does not search them again at that budget.
# EXTRA_ARGS is passed to every `alq atlas` job (e.g. "--no-shipped": search
# what the shipped proofs and atlas would answer, as
# scripts/cluster/test-atlas-slurm.sh does on a local Slurm).
set -euo pipefail
: "${OUT:?} ${ALQ:=alq} ${DEPTH:=10} ${SHARDS:=100} ${MOVETIME_MS:=4000} ${HASH_MB:=2000} ${MAX_STORE:=20000000} ${RETRY:=0} ${EXTRA_ARGS:=}"
mkdir -p "$OUT/work"
shared="$OUT/shared.store"
tb=${TB:+--tb $TB}
retry=$([ "$RETRY" = 1 ] && echo --retry || true)
prev=""
for k in $(seq "$DEPTH" -1 0); do
    dep=${prev:+--dependency=afterok:$prev}
    # shellcheck disable=SC2086
    array=$(sbatch --parsable $dep --array=0-$((SHARDS - 1)) --job-name="alq-atlas-$k" \
        --cpus-per-task=1 --mem=$((HASH_MB / 1000 + 3))G --time=12:00:00 --output="$OUT/ply$k-%a.log" \
        --wrap "$ALQ atlas --depth $DEPTH --only-ply $k --shard \$SLURM_ARRAY_TASK_ID/$SHARDS --threads 1 \
            \$([ -f $shared ] && echo --read-store $shared) --work $OUT/work/ply$k-\$SLURM_ARRAY_TASK_ID.store \
            --save-tree $OUT/ply$k-\$SLURM_ARRAY_TASK_ID.tree --tried $OUT/work/ply$k-\$SLURM_ARRAY_TASK_ID.tried --max-store $MAX_STORE $retry \
            $tb --movetime $MOVETIME_MS --hash $HASH_MB $EXTRA_ARGS --quiet")
    prev=$(sbatch --parsable --dependency=afterok:"$array" --job-name="alq-atlas-merge-$k" \
        --cpus-per-task=1 --mem=4G --time=01:00:00 --output="$OUT/merge$k.log" \
        --wrap "$ALQ solve --merge $OUT/ply$k-*.tree --store $shared")
done
# shellcheck disable=SC2086
sbatch --dependency=afterok:"$prev" --job-name=alq-atlas-write --cpus-per-task=1 --mem=4G \
    --time=01:00:00 --output="$OUT/atlas.log" \
    --wrap "$ALQ atlas --depth $DEPTH --work $shared --out $OUT/atlas.store --csv $OUT/atlas.csv $tb --nodes 1 --threads 1 $EXTRA_ARGS --quiet"
