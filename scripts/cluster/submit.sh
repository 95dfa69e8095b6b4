#!/bin/bash
# Splits a threshold proof into Slurm jobs and submits them:
#   scripts/cluster/submit.sh GOAL PLIES OUT [ROOT_MOVES]
# e.g. scripts/cluster/submit.sh black-draws 4 data/cluster/c2c3 "c2-c3".
# Environment: ALQ (the binary, default: alq on PATH), RULES (`classic` for
# the classic rule set; BrainKing's by default), TB (win/draw/loss
# tables, on a shared file system), NODES_PER_JOB, HASH_MB, and SBATCH_ARGS
# (extra sbatch options: partition, account, memory, time).
# The jobs read $OUT/shared.store (read only) and write $OUT/job-N.store; the
# merge job, run after all of them, merges them into $OUT/shared.store and
# asks GOAL at the root. Rerunning submit.sh after a merge runs the
# unsettled jobs again with everything proven so far as leaves.
set -euo pipefail
goal=${1:?goal (white-draws, black-draws, white-wins, black-wins)}
plies=${2:?plies to split at}
out=${3:?output folder}
moves=${4:-}
alq=${ALQ:-alq}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
split=("$alq" solve --rules "${RULES:-brainking}" --split "$plies" --jobs "$out/jobs.txt")
[ -n "$moves" ] && split+=(--moves "$moves")
[ -n "${TB:-}" ] && split+=(--tb "$TB")
"${split[@]}"
count=$(wc -l < "$out/jobs.txt")
export RULES="${RULES:-brainking}" JOBS="$out/jobs.txt" GOAL="$goal" OUT="$out" SHARED="$out/shared.store" ALQ="$alq" ROOT_MOVES="$moves"
export TB="${TB:-}" NODES_PER_JOB="${NODES_PER_JOB:-2000000}" HASH_MB="${HASH_MB:-3000}"
array=$(sbatch --parsable ${SBATCH_ARGS:-} --chdir="$out" --export=ALL --array=1-"$count" "$here/solve-job.sbatch")
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --chdir="$out" --export=ALL --dependency=afterany:"$array" "$here/merge.sbatch")
echo "submitted $count jobs (array $array) and the merge ($merge); results in $out/root.log"
