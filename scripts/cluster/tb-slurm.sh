#!/usr/bin/env bash
# Slurm array job: one tablebase shard per array task, all writing into a
# shared folder. Each task builds its share of the lowest level (piece count)
# that is not complete yet, then exits; the next level's array job starts when
# every task of this one has finished (see tb-submit.sh, which chains them).
#   sbatch --array=0-6 scripts/cluster/tb-slurm.sh /shared/alq/tb 12 7
#   TB_KIND=wdl sbatch --export=ALL --array=0-6 scripts/cluster/tb-slurm.sh /shared/alq/tb 12 7
#   RULES=classic TB_KIND=wdl sbatch --export=ALL ...   (the classic rule set's tables)
# A killed or requeued task resumes: finished table files are kept, and files
# are written under a temporary name and renamed when complete.
# Memory: two bytes per entry of the task's unit plus the smaller tables its
# captures reach (`alq tb build` prints the figure per level before it starts;
# the README of crates/tablebase has the table for 12-24 pieces).
#SBATCH --job-name=alq-tb
#SBATCH --cpus-per-task=16
#SBATCH --mem=64G
#SBATCH --time=12:00:00
#SBATCH --requeue
set -euo pipefail
out=${1:?shared tablebase folder}
pieces=${2:?piece count of the level this array builds}
shards=${3:?number of shards (the array size)}
i=${SLURM_ARRAY_TASK_ID:?run as a Slurm array job}
# TB_KIND=wdl builds win/draw/loss tables (2 bits a position); distance by default.
# RULES=classic builds the classic rule set's tables (BrainKing's by default).
alq tb build --rules "${RULES:-brainking}" --pieces "$pieces" --out "$out" --shard "$i/$shards" \
  --kind "${TB_KIND:-distance}" --threads "${SLURM_CPUS_PER_TASK:-1}"
