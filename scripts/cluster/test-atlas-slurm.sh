#!/bin/bash
# End-to-end test of atlas-slurm.sh on a real Slurm (a local slurmctld and
# slurmd do: docs/tablebases-and-solving.md, "The opening atlas"): submits
# the atlas of a small depth, waits for the last job, then checks that the
# atlas it wrote holds every position of the tree, each with the value the
# embedded atlas and shipped proofs give it: the shards cover the tree, the
# merges keep what each job found, the last job writes it all. With
# EXTRA_ARGS=--no-shipped (and TB=DIR) the jobs search instead of reading
# the shipped values, and only the exact values they find are compared.
#
#   scripts/cluster/test-atlas-slurm.sh [ALQ]
#
# ALQ: the alq binary (default target/release/alq). DEPTH (default 5),
# SHARDS (3), MOVETIME_MS (2000), TB (tables, optional), EXTRA_ARGS (none),
# OUT (a new temporary folder) as for atlas-slurm.sh. Exit 0 when the run
# and every check pass.
set -euo pipefail
cd "$(dirname "$0")/../.."
alq=$(realpath "${1:-target/release/alq}")
[ -x "$alq" ] || { echo "missing $alq: cargo build --release -p alq" >&2; exit 2; }
for c in sbatch squeue scontrol; do
    command -v "$c" >/dev/null || { echo "no $c: this test needs Slurm" >&2; exit 2; }
done
: "${DEPTH:=5} ${SHARDS:=3} ${MOVETIME_MS:=2000} ${EXTRA_ARGS:=}"
out=${OUT:-$(mktemp -d /tmp/alq-atlas-slurm.XXXXXX)}
start=$(date +%s)
submitted=$(OUT=$out ALQ=$alq DEPTH=$DEPTH SHARDS=$SHARDS MOVETIME_MS=$MOVETIME_MS HASH_MB=300 \
    EXTRA_ARGS=$EXTRA_ARGS scripts/cluster/atlas-slurm.sh)
last=$(awk '/Submitted batch job/ { id = $4 } END { print id }' <<<"$submitted")
[ -n "$last" ] || { echo "no job submitted: $submitted" >&2; exit 2; }
echo "submitted the atlas to ply $DEPTH in $SHARDS shards a ply; last job $last; output in $out"
# Wait for the last job (it depends on all the others) to leave the queue.
while squeue -h -j "$last" 2>/dev/null | grep -q .; do sleep 2; done
state=$(scontrol show job "$last" 2>/dev/null | awk -F'[ =]+' '{ for (i = 1; i < NF; i++) if ($i == "JobState") print $(i + 1) }')
if [ "$state" != COMPLETED ]; then
    echo "the last job ended $state; logs in $out" >&2
    exit 2
fi
echo "all jobs done in $(($(date +%s) - start)) s"
# The reference: the embedded atlas and shipped proofs, nothing searched.
ref=$out/reference.csv
if ! "$alq" atlas --depth "$DEPTH" --work "$out/reference-work.store" --out "$out/reference.store" --csv "$ref" \
    --table-only --quiet >"$out/reference.log" 2>&1; then
    cat "$out/reference.log" >&2
    exit 2
fi
python3 - "$out/atlas.csv" "$ref" "$EXTRA_ARGS" <<'EOF'
import csv, sys
got = {r["position"]: r for r in csv.DictReader(open(sys.argv[1]))}
ref = {r["position"]: r for r in csv.DictReader(open(sys.argv[2]))}
exact = {"win", "draw", "loss"}
if set(got) != set(ref):
    sys.exit(f"the Slurm atlas holds {len(got)} positions, the tree {len(ref)}")
searched = "--no-shipped" in sys.argv[3]
# With the shipped values every position must come through; searching, only what the jobs settled.
found = [p for p, r in got.items() if r["value"] in exact or not searched]
wrong = [p for p in found if got[p]["value"] != ref[p]["value"]]
for p in wrong:
    print(f"disagrees: {p}: {got[p]['value']} against the embedded atlas's {ref[p]['value']}", file=sys.stderr)
print(f"{len(got)} positions; {len(found)} compared, {len(wrong)} disagreeing with the embedded atlas")
sys.exit(1 if wrong else 0)
EOF
