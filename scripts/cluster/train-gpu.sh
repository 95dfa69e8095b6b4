#!/usr/bin/env bash
# Train a generation's candidate on a GPU machine, after its self-play shards
# have been merged (see selfplay-slurm.sh / selfplay-k8s.yaml). Submit with,
# e.g.: sbatch --gres=gpu:1 scripts/cluster/train-gpu.sh /shared/alq gen-003 gen-002 gen-001
#SBATCH --job-name=alq-train
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --time=02:00:00
set -euo pipefail
root=${1:?shared folder}
gen=${2:?generation to train, e.g. gen-003}
shift 2
# The remaining arguments name the generations whose games form the replay window.
data=()
for g in "$@"; do data+=("$root/$g/games.csv"); done
# Build once with the GPU backend: cargo build --release -p alq --features cuda
# (or --features wgpu for Vulkan/Metal/DX12 through wgpu).
alq train --config configs/train.toml --data "${data[@]}" --out "$root/$gen/train" --resume --quiet
cp "$root/$gen/train/network.alqnet" "$root/$gen/candidate.alqnet"
