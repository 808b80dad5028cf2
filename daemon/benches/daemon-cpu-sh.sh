#!/usr/bin/env bash
# The daemon's CPU per `assent sh -c LINE` (utime+stime of /proc/PID/stat): a daemon that
# confines and one started with `--landlock-abi 0`, side by side, in blocks of 100 calls.
#   cargo build --release -p assentd -p assent-client && scripts/static-client
#   [LINE='ls -la'] [CLIENT=assent] daemon/benches/daemon-cpu-sh.sh [N]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${CARGO_TARGET_DIR:-$repo/target}/release
client=${CLIENT:-${CARGO_TARGET_DIR:-$repo/target}/$(rustc -vV | sed -n 's/^host: \(.*\)-gnu$/\1-musl/p')/release/assent}
[ -x "$client" ] || client=$bin/assent
n=${1:-1000}; line=${LINE:-true}
work=$(mktemp -d "$HOME/assent-daemon-cpu.XXXXXX")
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
declare -A pid
for b in a b; do
  mkdir -p "$work/$b"
  extra=(); [[ $b == b ]] && extra=(--landlock-abi 0)
  ASSENT_LOG=warn "$bin/assentd" --user --socket "$work/$b/s" --state-dir "$work/$b" "${extra[@]}" 2>>"$work/$b.log" &
  pid[$b]=$!; pids+=($!)
  until "$client" --socket "$work/$b/s" status >/dev/null 2>&1; do sleep 0.01; done
done
mkdir -p "$work/proj/.git"; cd "$work/proj"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
declare -A total=([a]=0 [b]=0)
for ((k = 0; k < n / 100; k++)); do
  for b in a b; do
    t0=$(ticks "${pid[$b]}")
    for ((i = 0; i < 100; i++)); do "$client" --socket "$work/$b/s" sh -c "$line" </dev/null >/dev/null 2>&1; done
    t1=$(ticks "${pid[$b]}"); total[$b]=$((total[$b] + t1 - t0))
  done
done
hz=$(getconf CLK_TCK)
for b in a b; do name=confining; [[ $b == b ]] && name="--landlock-abi 0"; echo "$name: $(( total[$b] * 1000000 / hz / n )) us of daemon CPU a call"; done
