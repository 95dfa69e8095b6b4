#!/usr/bin/env bash
# Slurm array job: one self-play shard per array task, all writing into a
# shared folder. Submit with, e.g.:
#   sbatch --array=0-15 scripts/cluster/selfplay-slurm.sh /shared/alq/gen-001 16
# then, once all tasks are done:
#   alq records merge /shared/alq/gen-001/shard-*/games.csv --out /shared/alq/gen-001/games.csv
#SBATCH --job-name=alq-selfplay
#SBATCH --cpus-per-task=8
#SBATCH --time=04:00:00
set -euo pipefail
out=${1:?shared output folder}
shards=${2:?number of shards (the array size)}
config=${3:-configs/selfplay.toml}
i=${SLURM_ARRAY_TASK_ID:?run as a Slurm array job}
# --resume makes a requeued task continue where it stopped.
alq selfplay --config "$config" --out "$out/shard-$i" --shard "$i/$shards" \
  --threads "${SLURM_CPUS_PER_TASK:-1}" --resume --quiet
