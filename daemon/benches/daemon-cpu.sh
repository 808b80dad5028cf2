#!/usr/bin/env bash
# The daemon's CPU per `check` (utime+stime of /proc/PID/stat), two builds side by side
# (BENCHMARKS.md, "A chain that reads"): each build's `assentd --user` on its own socket, the
# lines and the builds interleaved in blocks of 100 calls, N calls per line and build; CLIENT
# is the client for both. The lines: `ls -la`, the agent chain, the chain without its
# `git status` (nothing to read), `git status --short` alone, and an inline Python program
# that imports modules (looked for in the directory). NAMES="simple chain" picks.
#   daemon/benches/daemon-cpu.sh OLD_ASSENTD NEW_ASSENTD CLIENT [N]
set -euo pipefail
old=$1 new=$2 client=$3 n=${4:-2000}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/proj"
declare -A pid
for b in old new; do
  mkdir -p "$work/$b/state" "$work/$b/config"
  bin=$old
  [[ $b == new ]] && bin=$new
  env -i PATH="$PATH" HOME="$work" XDG_RUNTIME_DIR="$work/$b" XDG_STATE_HOME="$work/$b" \
    XDG_CONFIG_HOME="$work/$b/config" ASSENT_LOG=warn \
    "$bin" --user --socket "$work/$b.socket" --state-dir "$work/$b/state" 2>>"$work/$b.log" &
  pid[$b]=$!
  pids+=($!)
  until "$client" --socket "$work/$b.socket" status >/dev/null 2>&1; do sleep 0.01; done
done
proj=$work/proj
cd "$proj"
declare -A lines=([simple]='ls -la'
  [chain]="cd $proj && cargo build --release 2>&1 | tail -20 && git status --short"
  [noread]="cd $proj && cargo build --release 2>&1 | tail -20" [gitonly]="git status --short"
  [pyimport]="python3 -c 'import json, sys; print(json.dumps(sys.argv))'")
read -r -a names <<<"${NAMES:-simple chain noread gitonly}"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
declare -A total=()
for ((k = 0; k < n / 100; k++)); do
  for which in "${names[@]}"; do
    for b in old new; do
      t0=$(ticks "${pid[$b]}")
      for ((i = 0; i < 100; i++)); do
        "$client" --socket "$work/$b.socket" check --cwd "$proj" -- "${lines[$which]}" \
          </dev/null >/dev/null
      done
      t1=$(ticks "${pid[$b]}")
      total[$b-$which]=$((${total[$b-$which]:-0} + t1 - t0))
    done
  done
done
hz=$(getconf CLK_TCK)
printf '%-8s %8s %8s   (µs of daemon CPU per call, %d calls each)\n' line old new "$n"
for which in "${names[@]}"; do
  printf '%-8s %8d %8d\n' "$which" $((total[old-$which] * 1000000 / hz / n)) \
    $((total[new-$which] * 1000000 / hz / n))
done
