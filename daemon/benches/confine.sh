#!/usr/bin/env bash
# What confinement adds to a run through `assent sh`: the same line through a daemon that
# confines (Landlock) and one that acts as on a kernel without it (`--landlock-abi 0`: the door
# then becomes the command, as before), interleaved round by round so that both meet the same
# machine, and the line run by bash directly as the floor.
#
#   cargo build --release -p assentd -p assent-client && scripts/static-client
#   [OLD=DIR] daemon/benches/confine.sh [ROUNDS]
#
# Each round runs every variant once, in a shuffled order. Prints the median and mean of each,
# and the median of the per-round difference
# (confined − unconfined), for `ls -la`, for a `grep` that finds nothing (a run that fails:
# the door then asks the daemon what the kernel refused) and for a no-op `cargo build` of a
# small crate; and `ls -la` again on a terminal (a pseudo-terminal on the standard streams: the
# door then adds its terminal to the daemon's ruleset).
# OLD=DIR (an earlier build's assentd and assent) adds its confined run, side by side.
# CHURN=1 writes a file in the home by rename (as an editor, a shell's history or an agent's
# settings do) 20 ms before each round, untimed: a machine in use, where the home changes
# between most runs and each change drops the rulesets the daemons kept (they list the home).
set -euo pipefail
rounds=${1:-300}
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${CARGO_TARGET_DIR:-$repo/target}/release
work=$(mktemp -d "$HOME/assent-confine-bench.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# Every binary runs from a copy made here, as an installed one is (dpkg writes a copy): a client
# as the linker wrote it starts slower than a copy of it, which would count against whichever
# build was not copied. The client is the shipped, static one where `scripts/static-client`
# built it (STATIC=FILE names another; OLD=DIR must hold the same kind: a dynamically linked
# client starts about 0.2 ms slower, and `old build, confined - unconfined` takes this build's
# unconfined run from that build's confined one).
static=${STATIC:-${CARGO_TARGET_DIR:-$repo/target}/$(rustc -vV | sed -n 's/^host: \(.*\)-gnu$/\1-musl/p')/release/assent}
[ -x "$static" ] || static=$bin/assent
mkdir -p "$work/a" "$work/b" "$work/new"
cp "$bin/assentd" "$work/new/"
cp "$static" "$work/new/assent"
"$work/new/assentd" --user --socket "$work/a/s" --state-dir "$work/a" >/dev/null 2>&1 &
"$work/new/assentd" --user --socket "$work/b/s" --state-dir "$work/b" --landlock-abi 0 >/dev/null 2>&1 &
old=${OLD:+$(realpath "$OLD")}
if [ -n "$old" ]; then
    mkdir -p "$work/o" "$work/old"
    cp "$old/assentd" "$old/assent" "$work/old/"
    "$work/old/assentd" --user --socket "$work/o/s" --state-dir "$work/o" >/dev/null 2>&1 &
fi
for s in a b ${old:+o}; do
    for _ in $(seq 100); do [ -S "$work/$s/s" ] && break; sleep 0.05; done
done

# A small crate, built once so that the measured builds are cargo's no-op check.
crate="$work/small"
cargo new -q --vcs git "$crate"
(cd "$crate" && cargo build -q)

python3 - "$work/new/assent" "$work/a/s" "$work/b/s" "$crate" "$rounds" "${old:+$work/old}" "$work/o/s" "${CHURN:-}" <<'PY'
import os, random, statistics, subprocess, sys, time
assent, sa, sb, crate, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
old, so, churn = sys.argv[6], sys.argv[7], sys.argv[8] == "1"
home = os.path.expanduser("~")
churned = os.path.join(home, ".assent-bench-churn")

import os, pty, select
import atexit
atexit.register(lambda: os.path.exists(churned) and os.remove(churned))
master, slave = pty.openpty()

def drain():
    while select.select([master], [], [], 0)[0]:
        os.read(master, 65536)

def change_the_home():
    with open(churned + ".tmp", "w") as f:
        f.write("x")
    os.rename(churned + ".tmp", churned)
    time.sleep(0.02)

def timed(argv, cwd, code, tty=False):
    out = slave if tty else subprocess.DEVNULL
    t = time.perf_counter_ns()
    r = subprocess.run(argv, cwd=cwd, stdin=out, stdout=out, stderr=out)
    took = (time.perf_counter_ns() - t) / 1e6
    drain()
    assert r.returncode == code, (argv, r.returncode)
    return took

def bench(line, n, code=0, tty=False):
    cases = {
        "bash directly": ["bash", "-c", line],
        "assent sh, unconfined": [assent, "--socket", sb, "sh", "-c", line],
        "assent sh, confined": [assent, "--socket", sa, "sh", "-c", line],
    }
    if old:
        cases["old build, confined"] = [old + "/assent", "--socket", so, "sh", "-c", line]
    got = {k: [] for k in cases}
    for _ in range(n):
        if churn:
            change_the_home()
        # In an order shuffled anew each round: in a fixed one, each variant ran after the same
        # other, and the slot after a confined door measured 0.2 ms faster than the one before
        # it, whichever build sat in it (the daemon's work after a door's reply falls on what
        # runs next).
        order = list(cases.items())
        random.shuffle(order)
        for name, argv in order:
            got[name].append(timed(argv, crate, code, tty))
    print(f"\n{line}{' on a terminal' if tty else ''}  ({n} rounds, interleaved)")
    for name, ms in got.items():
        print(f"  {name:24} median {statistics.median(ms):7.3f} ms  mean {statistics.mean(ms):7.3f} ms")
    for name in [k for k in got if k.endswith("confined") and k != "assent sh, unconfined"]:
        diff = [c - u for c, u in zip(got[name], got["assent sh, unconfined"])]
        print(f"  {name} - unconfined  median {statistics.median(diff):7.3f} ms  mean {statistics.mean(diff):7.3f} ms")

bench("ls -la", rounds)
bench("ls -la", max(10, rounds // 2), tty=True)
bench("grep -c no-such-word Cargo.toml", max(10, rounds // 4), 1)
bench("cargo build", max(10, rounds // 10))

import json
def passed(client, socket):
    out = subprocess.run([client, "--socket", socket, "status", "--json"], capture_output=True)
    return json.loads(out.stdout).get("rulesets_passed")
print(f"\nrulesets passed to doors: this build {passed(assent, sa)}", end="")
print(f", old build {passed(old + '/assent', so)}" if old else "")
PY
