#!/usr/bin/env bash
# Instructions the daemon executes to explain a batch of lines, counted by callgrind: unlike
# time, the count does not move with the machine's load, so two builds can be compared to well
# under 5% on a shared VM (BENCHMARKS.md, "Analysis").
#   daemon/benches/instructions.sh BINDIR INPUT.jsonl
# BINDIR holds a release `assentd` and `assent`. The daemon runs in user mode with a temporary
# HOME and state; INPUT is fed to `assent explain --batch` (its lines are analysed, never run),
# once natively and once with the daemon under callgrind. Prints the daemon's total
# instructions (every thread, start and stop included), those inside the analysis
# (`analyse::analyse_with`, inclusive), and whether the output under callgrind is the native
# output: a line whose parse runs past its time budget under callgrind's slowdown is judged
# differently, and is named so that it can be left out of INPUT.
set -euo pipefail
bin=$1
input=$2
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

batch() { # NAME [wrapper...]: start the daemon (under the wrapper), explain INPUT into NAME.out
  local name=$1; shift
  local dir=$work/$name
  mkdir -p "$dir/run" "$dir/state" "$dir/config" "$dir/home"
  chmod 700 "$dir/run"
  env -i PATH="$PATH" HOME="$dir/home" XDG_RUNTIME_DIR="$dir/run" XDG_STATE_HOME="$dir/state" \
    XDG_CONFIG_HOME="$dir/config" ASSENT_LOG=warn \
    "$@" "$bin/assentd" --user --socket "$dir/socket" 2>"$dir/log" &
  local pid=$!
  for _ in $(seq 600); do [ -S "$dir/socket" ] && break; sleep 0.1; done
  ASSENT_TIMEOUT=900 HOME="$dir/home" "$bin/assent" explain --batch --socket "$dir/socket" \
    <"$input" >"$work/$name.out"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

batch native
batch counted valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out"
echo "total: $(grep '^totals:' "$work/callgrind.out" | cut -d' ' -f2)"
echo "analysis: $(callgrind_annotate --inclusive=yes "$work/callgrind.out" 2>/dev/null |
  grep -m1 'analyse::analyse_with' | awk '{print $1}' | tr -d ,)"
if cmp -s "$work/native.out" "$work/counted.out"; then
  echo "output: the native output ($(wc -l <"$work/native.out") lines)"
else
  echo "output: differs from the native output on lines:"
  awk 'NR==FNR { a[FNR] = $0; next } a[FNR] != $0 { print "  " FNR }' \
    "$work/native.out" "$work/counted.out"
  exit 1
fi
