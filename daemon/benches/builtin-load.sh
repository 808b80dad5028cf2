#!/usr/bin/env bash
# What loading the bash builtin costs a fresh bash, as every rewritten agent call loads it:
# `bash -c ':'` against `bash -c 'enable -f SO assent_confine'`, round by round in a shuffled
# order, each variant's median (BENCHMARKS.md, "The builtin's load without libgcc_s").
#   cargo build --release -p assent-bash && daemon/benches/builtin-load.sh [ROUNDS] [SO...]
# Each SO (default: this build's) is copied first, as an installed one is.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-1000}
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=(bash)
lines=(':')
k=0
for so in "${@:-target/release/libassent_bash.so}"; do
  cp "$so" "$work/$k.so"
  names+=("$so")
  lines+=("enable -f $work/$k.so assent_confine")
  k=$((k + 1))
done
for ((r = 0; r < rounds; r++)); do
  mapfile -t order < <(shuf -i "0-$((${#names[@]} - 1))")
  for i in "${order[@]}"; do
    t0=${EPOCHREALTIME/./}
    /bin/bash -c "${lines[i]}" </dev/null
    t1=${EPOCHREALTIME/./}
    echo $((t1 - t0)) >>"$work/t-$i"
  done
done
for i in "${!names[@]}"; do
  sort -n "$work/t-$i" | awk -v n="${names[i]}" '{a[NR]=$1} END {printf "%8d µs  %s\n", a[int((NR+1)/2)], n}'
done
