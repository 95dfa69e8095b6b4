#!/usr/bin/env bash
# The whole solution from nothing: builds the binaries and the win/draw/loss
# tables it needs, proves the opening tree's goals (White holds a draw from
# the start, so does Black; Black wins after d2-c3), writes the
# certificates, deepens them onto smaller tables, and checks every one with
# both checkers: `alq solve --check` (the workspace's) and `alq-check`
# (tools/alq-check, written apart, with its own move generator and tables).
#
#   scripts/solve-from-nothing.sh [OUT]        # default OUT: data/from-nothing
#
# Stages, each timed into OUT/stages.tsv (wall seconds, peak memory):
#   build   cargo build --release of alq and alq-check
#   tables  alq tb build --pieces K --kind wdl (resumable by itself)
#   proofs  alq openings --depth 6 --solve over the ≤ K tables, both start
#           goals with certificates, then alq solve for d2-c3's black-wins
#   deepen  (when K > CHECK_K) alq solve --deepen of each certificate over
#           the ≤ CHECK_K tables (a view of the ≤ K folder), first at
#           DEEPEN_NODES a leaf, then the resisting leaves at 10 times that
#   check   alq solve --check of every certificate
#   check2  alq-check of the certificates over ≤ CHECK_K (it builds its own
#           ≤ CHECK_K tables; at ≤ 12 they would take about 18 hours)
# A rerun skips the stages whose results are there (a stage cut off in the
# middle runs again; the table build and the deepening continue where they
# stopped).
#
# Measured on 2 cores (docs/tablebases-and-solving.md, "From nothing"): only
# K = 12 closes the proofs; its tables take 2.95 h, the proofs 4-5 min, the
# deepening onto ≤ 10 about 20 min, alq-check's ≤ 10 tables 44.5 min: about
# 4.1 h in all. Over ≤ 10 or ≤ 8 the proofs stage stops with Black's draw
# after c2-c3 unproven.
#
# Environment: K (table pieces for the proofs, default 12), CHECK_K (table
# pieces of the checked certificates, default 10), NODES (positions a search
# may expand per book position and goal, default 2000000), DEEPEN_NODES
# (per leaf, default 2000000), HASH_MB (graph memory per solver, default
# 3000), THREADS (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-data/from-nothing}
k=${K:-12}
check_k=${CHECK_K:-10}
deepen_nodes=${DEEPEN_NODES:-2000000}
nodes=${NODES:-2000000}
hash=${HASH_MB:-3000}
threads=${THREADS:-$(nproc)}
mkdir -p "$out/proofs"
stages="$out/stages.tsv"
[ -f "$stages" ] || printf 'stage\twall_s\tpeak_rss_mb\n' >"$stages"

# run STAGE COMMAND...: runs a stage under /usr/bin/time (when there) and
# appends its wall time and peak memory to the stages file.
run() {
    local stage=$1
    shift
    echo "== $stage: $*" >&2
    local t0 mem=""
    t0=$(date +%s.%N)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -o "$out/.time" -f '%M' "$@"
        mem=$(awk '{printf "%.0f", $1 / 1024}' "$out/.time")
    else
        "$@"
    fi
    local wall
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    printf '%s\t%s\t%s\n' "$stage" "$wall" "$mem" >>"$stages"
    echo "== $stage: ${wall%.*} s, peak ${mem:-?} MB" >&2
}

alq=target/release/alq
check2=target/release/alq-check
if [ ! -x "$alq" ] || [ ! -x "$check2" ]; then
    run build cargo build --release -p alq -p alq-check
fi

tb="$out/tb${k}w"
if [ ! -f "$tb/.complete" ]; then
    run tables "$alq" tb build --pieces "$k" --kind wdl --out "$tb" --threads "$threads"
    touch "$tb/.complete"
fi

certs=("$out/proofs/start-white-draws.cert" "$out/proofs/start-black-draws.cert" "$out/proofs/d2-c3-black-wins.cert")
if [ ! -f "${certs[0]}" ] || [ ! -f "${certs[1]}" ]; then
    run proofs-start "$alq" openings --depth 6 --nodes 1000 --solve --tb "$tb" \
        --solve-goal white-draws,black-draws --solve-nodes "$nodes" --solve-hash "$hash" \
        --threads "$threads" --solve-certificates "$out/proofs" --out "$out/book.csv"
fi
if [ ! -f "${certs[2]}" ]; then
    run proofs-d2c3 "$alq" solve --moves d2-c3 --goal black-wins --tb "$tb" --nodes "$nodes" \
        --hash "$hash" --certificate "${certs[2]}"
fi
for c in "${certs[@]}"; do
    if [ ! -f "$c" ]; then
        echo "not proven within the budget: $c (raise NODES or K and rerun)" >&2
        exit 1
    fi
done

small=("${certs[@]}")
check_tb=$tb
if [ "$k" -gt "$check_k" ]; then
    # The ≤ CHECK_K tables: a view of the ≤ K folder (links to its classes).
    check_tb="$out/tb${check_k}view"
    mkdir -p "$check_tb"
    for f in "$tb"/*v*.wdl.alqtb; do
        name=$(basename "$f")
        w=${name%%v*}
        b=${name#*v}
        b=${b%%.*}
        if [ $((w + b)) -le "$check_k" ] && [ ! -e "$check_tb/$name" ]; then
            ln -s "$(realpath "$f")" "$check_tb/$name"
        fi
    done
    mkdir -p "$out/proofs/small"
    small=()
    for c in "${certs[@]}"; do
        name=$(basename "$c" .cert)
        dest="$out/proofs/small/$name.cert.gz"
        small+=("$dest")
        [ -f "$dest" ] && continue
        cmd="$alq solve --deepen $c --tb $check_tb --out $dest --parts $out/parts/$name --hash $hash --threads $threads"
        # Leaves that resist the first budget get ten times more (the parts
        # of the first run are kept, so only they are searched again).
        run "deepen-$name" bash -c "$cmd --nodes $deepen_nodes || $cmd --nodes $((deepen_nodes * 10))"
    done
fi

run check bash -c "set -o pipefail; for c in ${certs[*]}; do $alq solve --check \$c --tb $tb --quiet | tail -1 || exit 2; done; \
    for c in ${small[*]}; do $alq solve --check \$c --tb $check_tb --quiet | tail -1 || exit 2; done"
run check2 "$check2" --threads "$threads" "${small[@]}"
echo "done: certificates in $out/proofs, stage times in $stages" >&2
column -t "$stages" >&2 || cat "$stages" >&2
