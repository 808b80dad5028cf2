#!/usr/bin/env bash
# Faults and limits of the real daemon, measured from outside (BENCHMARKS.md, "Faults and
# limits"). Needs root (a second uid, prlimit) and release binaries:
#   cargo build --release --workspace --bins && sudo daemon/benches/faults.sh
# Each part starts its own `assentd` in a temporary directory and stops it.
set -euo pipefail
bin=${BIN:-target/release}
work=$(mktemp -d)
chmod 755 "$work"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

start() { # DIR [wrapper...] -- start assentd (--user unless MODE=system) on DIR/socket
  local dir=$1; shift
  local mode=()
  [ "${MODE:-user}" = system ] || mode=(--user)
  mkdir -p "$dir/state" "$dir/config/assent"
  chmod 755 "$dir"
  env -i PATH="$PATH" HOME="$dir" XDG_RUNTIME_DIR="$dir" XDG_STATE_HOME="$dir" \
    XDG_CONFIG_HOME="$dir/config" ASSENT_LOG=warn \
    "$@" "$bin/assentd" "${mode[@]}" \
    --socket "$dir/socket" --state-dir "$dir/state" \
    --no-approver hold --max-pending 2000 2>>"$dir/log" &
  echo $! > "$dir/pid"
  until "$bin/assent" --socket "$dir/socket" status >/dev/null 2>&1; do sleep 0.005; done
}
stop() { kill "$(cat "$1/pid")"; wait "$(cat "$1/pid")" 2>/dev/null || true; }
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{printf "%.2f s", $2 - $1}'; }

echo "== load: 200,000 remembered approvals (400 uids x 500)"
d=$work/load; mkdir -p "$d/state"
python3 - "$d/state/remembered.json" <<'PY'
import json, sys
rules = [{"id": "r_%08x" % i, "uid": i % 400, "signature": "cmd %d in /" % i,
          "created_ms": i, "uses": 0} for i in range(200_000)]
json.dump({"version": 1, "rules": rules}, open(sys.argv[1], "w"))
PY
t0=$(now); start "$d"; echo "spawn to serving: $(secs "$t0" "$(now)")"
echo "remembered approvals listed by root (paged): $("$bin/assent" --socket "$d/socket" remembered | grep -c '^r_')"
stop "$d"

echo "== policy: 50,000 rules, and /dev/zero"
python3 - "$work/big.toml" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(50_000):
        f.write('[[rule]]\nname = "r%d"\ncommand = "tool%d"\ndecision = "deny"\n' % (i, i))
PY
t0=$(now); "$bin/assentd" --check-policy "$work/big.toml" >/dev/null; echo "check-policy of 50,000 rules: $(secs "$t0" "$(now)")"
t0=$(now); "$bin/assentd" --check-policy /dev/zero 2>&1 | sed 's/^/  /' || true; echo "check-policy /dev/zero: $(secs "$t0" "$(now)")"

echo "== exhaustion (system mode): nobody opens 600 idle connections; the daemon's limit is 1024:1024"
d=$work/fds; MODE=system start "$d" prlimit --nofile=1024:1024 --
"$bin/assent-test-approver" --socket "$d/socket" --uid 65534 hold-open 600 > "$d/hog" 2>&1 &
until [ -s "$d/hog" ]; do sleep 0.05; done
echo "nobody: $(cat "$d/hog")"
t0=$(now)
for _ in $(seq 20); do "$bin/assent" --socket "$d/socket" check -- ls >/dev/null; done
echo "20 checks by root meanwhile: $(secs "$t0" "$(now)")"
echo "accept failures logged: $(grep -c 'accept failed' "$d/log" || true)"
kill %?hold-open 2>/dev/null || true
stop "$d"

echo "== audit burst: 32 clients x 200 checks at once"
d=$work/burst; start "$d"
t0=$(now)
for c in $(seq 32); do
  (for i in $(seq 200); do "$bin/assent" --socket "$d/socket" check -- "ls $c-$i" >/dev/null; done) &
done
mapfile -t clients < <(jobs -p | grep -v "$(cat "$d/pid")")
wait "${clients[@]}" 2>/dev/null || true
echo "6,400 checks: $(secs "$t0" "$(now)")"
sleep 1
"$bin/assent" --socket "$d/socket" status | grep -E '^(allowed|audit)'
echo "lines in audit.jsonl: $(wc -l < "$d/state/audit.jsonl")"
stop "$d"

echo "== lists: 1,000 held with long commands, log -n 1000 with long subjects"
d=$work/lists; start "$d"
"$bin/assent-test-approver" --socket "$d/socket" hold 1000 "$(printf 'y%.0s' $(seq 300))"
for i in $(seq 200); do "$bin/assent" --socket "$d/socket" check -- "ls $i-$(printf 'z%.0s' $(seq 2000))" >/dev/null; done
echo "assent pending lists: $("$bin/assent" --socket "$d/socket" pending | grep -c '^pa_') held"
echo "assent log -n 1000 prints: $("$bin/assent" --socket "$d/socket" log -n 1000 --json | wc -l) events"
stop "$d"
