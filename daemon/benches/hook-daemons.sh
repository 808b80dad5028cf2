#!/usr/bin/env bash
# Each agent's hook, whole process, against an earlier build's daemon and this one, with the
# same (static) client, shuffled round by round with /bin/true: what a daemon-side change did
# to a hook's cost, with nothing else changed. The daemons must speak the same protocol.
#
#   cargo build --release -p assentd && scripts/static-client
#   OLD=DIR [chrt -f 50] daemon/benches/hook-daemons.sh [ROUNDS]
#
# OLD holds the earlier build's `assentd`. Prints each variant's median, 90th percentile and
# median over /bin/true's (`-o` the earlier daemon, `-n` this one).
set -euo pipefail
rounds=${1:-500}
repo=$(cd "$(dirname "$0")/../.." && pwd)
old=$(realpath "${OLD:?OLD=DIR, an earlier build holding assentd}")
new=$(realpath "${NEW:-$repo/target/release}")
client=$(realpath "${CLIENT:-$repo/target/$(rustc -vV | sed -n 's/^host: \(.*\)-gnu$/\1-musl/p')/release/assent}")
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
proj=$work/proj
mkdir -p "$proj" "$work/o" "$work/n"
git -C "$proj" init -q .
"$old/assentd" --user --socket "$work/o/s" --state-dir "$work/o" >/dev/null 2>&1 &
"$new/assentd" --user --socket "$work/n/s" --state-dir "$work/n" >/dev/null 2>&1 &
for d in o n; do
  for _ in $(seq 100); do [[ -S $work/$d/s ]] && break; sleep 0.05; done
done
line=${LINE:-ls -la}
printf '{"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s","description":"d","timeout":120000},"tool_use_id":"toolu_1"}' "$proj" "$line" >"$work/claude"
printf '{"session_id":"s","transcript_path":"/tmp/t.json","cwd":"%s","hook_event_name":"BeforeTool","timestamp":"2026-03-01T12:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"%s","description":"d"}}' "$proj" "$line" >"$work/gemini"
printf '{"session_id":"s","transcript_path":null,"cwd":"%s","hook_event_name":"PreToolUse","model":"m","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"c1"}' "$proj" "$line" >"$work/codex"
names=(true claude-o claude-n codex-o codex-n gemini-o gemini-n)
run() { # NAME: one run of that variant
  local socket=$work/${1#*-}/s
  case $1 in
    true) /bin/true </dev/null ;;
    claude-*) "$client" --socket "$socket" hook claude-code <"$work/claude" >/dev/null ;;
    codex-*) "$client" --socket "$socket" hook codex <"$work/codex" >/dev/null ;;
    gemini-*) "$client" --socket "$socket" hook gemini <"$work/gemini" >/dev/null ;;
  esac
}
cd "$proj"
for name in "${names[@]}"; do run "$name" && run "$name"; done
for ((r = 0; r < rounds; r++)); do
  mapfile -t order < <(shuf -e -- "${names[@]}")
  for name in "${order[@]}"; do
    t0=${EPOCHREALTIME/./}
    run "$name"
    t1=${EPOCHREALTIME/./}
    echo $((t1 - t0)) >>"$work/t-$name"
  done
done
base=$(sort -n "$work/t-true" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf '%-10s %10s %10s %8s\n' variant 'median µs' 'p90 µs' '× true'
for name in "${names[@]}"; do
  sort -n "$work/t-$name" | awk -v n="$name" -v base="$base" \
    '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%-10s %10d %10d %8.2f\n", n, m, a[int(NR*0.9)], m/base}'
done
