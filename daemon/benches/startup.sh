#!/usr/bin/env bash
# The whole client process against /bin/true, round-robin (BENCHMARKS.md, "Whole process"):
# each round runs every variant once, in an order that rotates, so the VM's drift falls on all
# of them alike. Each variant's median and 90th percentile, and its median over /bin/true's.
#   cargo build --release --workspace --bins && scripts/static-client && daemon/benches/startup.sh [ROUNDS]
# The daemon is a release `assentd --user` on a temporary socket; a safe line (`ls -la`) is
# asked as `assent check` and as Claude Code's hook would ask it.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-2000}
bin=${BIN:-target/release}
static=${STATIC:-target/$(rustc -vV | sed -n 's/^host: //p')/release/assent}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

mkdir -p "$work/state" "$work/config"
env -i PATH="$PATH" HOME="$work" XDG_RUNTIME_DIR="$work" XDG_STATE_HOME="$work" \
  XDG_CONFIG_HOME="$work/config" ASSENT_LOG=warn \
  "$bin/assentd" --user --socket "$work/socket" --state-dir "$work/state" 2>>"$work/log" &
until "$bin/assent" --socket "$work/socket" status >/dev/null 2>&1; do sleep 0.005; done
printf '%s' '{"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}' >"$work/payload"

# OLD=PATH adds another client (an earlier build, say) to compare, as check-old and hook-old.
names=(true check-static check-dynamic hook-static hook-dynamic)
[[ -z ${OLD-} ]] || names+=(check-old hook-old)
run() { # INDEX: one run of that variant
  case $1 in
    0) /bin/true </dev/null ;;
    1) "$static" --socket "$work/socket" check -- ls -la </dev/null ;;
    2) "$bin/assent" --socket "$work/socket" check -- ls -la </dev/null ;;
    3) "$static" --socket "$work/socket" hook claude-code <"$work/payload" >/dev/null ;;
    4) "$bin/assent" --socket "$work/socket" hook claude-code <"$work/payload" >/dev/null ;;
    5) "$OLD" --socket "$work/socket" check -- ls -la </dev/null ;;
    6) "$OLD" --socket "$work/socket" hook claude-code <"$work/payload" >/dev/null ;;
  esac
}
for i in "${!names[@]}"; do run "$i" || { echo "${names[$i]} failed" >&2; exit 1; }; done
for ((r = 0; r < rounds; r++)); do
  for ((k = 0; k < ${#names[@]}; k++)); do
    i=$(((r + k) % ${#names[@]}))
    t0=${EPOCHREALTIME/./}
    run "$i"
    t1=${EPOCHREALTIME/./}
    echo $((t1 - t0)) >>"$work/${names[$i]}"
  done
done
base=$(sort -n "$work/true" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf '%-14s %10s %10s %8s\n' variant 'median µs' 'p90 µs' '× true'
for name in "${names[@]}"; do
  sort -n "$work/$name" | awk -v n="$name" -v base="$base" \
    '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%-14s %10d %10d %8.2f\n", n, m, a[int(NR*0.9)], m/base}'
done
