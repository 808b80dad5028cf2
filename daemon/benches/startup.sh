#!/usr/bin/env bash
# Every door's whole process against /bin/true, round-robin (BENCHMARKS.md, "Whole process"):
# each round runs every variant once, in an order shuffled anew each round, so the VM's drift
# falls on all of them alike and no variant always follows the same one (in a fixed rotation a
# variant run right after a confined `assent-sh` paid for the daemon's work left from it: 0.2×
# /bin/true on `check`; ORDER=rotate keeps the old order). Each variant's median and 90th
# percentile, and its median over /bin/true's.
#   cargo build --release --workspace --bins && scripts/static-client && daemon/benches/startup.sh [ROUNDS]
# The daemons are release `assentd --user` on temporary sockets (one confining, one started
# with --landlock-abi 0; OLD=DIR adds an earlier build's pair). The doors: `assent check`, each agent's hook with its own JSON, and
# the agent's shell `assent-sh -c`, against bash running the same line; on a simple line
# (`ls -la`) and on a typical agent chain; and the command Claude Code's and Gemini CLI's hooks
# rewrite an allowed call to (`granted-*`: bash running `assent sh --grant`, confined), as the
# agent then runs it, the hook's own run untimed. `as-claude` and `as-gemini` run the simple
# line in the agent's own wrapper around a call (below), `as-*-granted` the rewritten command in
# it: the pair an agent's user compares. VARIANTS="true check …" picks some; STATUS=1 prints
# the confining daemon's kept and passed rulesets at the end (a confined variant that found no
# ruleset ready planned for itself).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-2000}
bin=$(realpath "${BIN:-target/release}")
static=$(realpath "${STATIC:-target/$(rustc -vV | sed -n 's/^host: \(.*\)-gnu$/\1-musl/p')/release/assent}")
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
# Each client runs from a copy made here, as an installed one is (dpkg writes a copy): a binary
# as the linker wrote it starts slower than a copy of it (BENCHMARKS.md, "A chain that reads"),
# which would count against whichever build was not copied.
cp "$static" "$work/assent"
static=$work/assent
# The bash builtin beside the client, as the package installs both: the hooks' rewritten calls
# (`granted-*`, `as-*-granted`) then confine the agent's shell in place; `*-door` without it.
cp "$(realpath "${BUILTIN:-target/release/libassent_bash.so}")" "$work/libassent_bash.so"

daemon() { # BIN NAME [FLAGS...]: a user daemon from BIN on $work/NAME.socket
  local bin=$1 name=$2
  shift 2
  mkdir -p "$work/$name/state" "$work/$name/config"
  cp "$bin/assentd" "$work/$name/assentd" # a copy, as installed (and as each client is)
  env -i PATH="$PATH" HOME="$work" XDG_RUNTIME_DIR="$work/$name" XDG_STATE_HOME="$work/$name" \
    XDG_CONFIG_HOME="$work/$name/config" ASSENT_LOG=warn \
    "$work/$name/assentd" --user --socket "$work/$name.socket" --state-dir "$work/$name/state" "$@" \
    2>>"$work/$name.log" &
  local client=$static tries=0
  [[ $name != old ]] || client=$bin/assent # an earlier build's client speaks its protocol
  until "$client" --socket "$work/$name.socket" status >/dev/null 2>&1; do
    ((++tries < 1000)) || { echo "the $name daemon did not start: $(cat "$work/$name.log")" >&2 && exit 1; }
    sleep 0.005
  done
}
daemon "$bin" d
daemon "$bin" open --landlock-abi 0
s=$work/d.socket
ln -s "$static" "$work/assent-sh"

# The chain an agent typically sends, in a small project of its own.
proj=$work/proj
mkdir -p "$proj"
simple='ls -la'
chain="cd $proj && cargo build --release 2>&1 | tail -20 && git status --short"
payload() { # AGENT LINE: the agent's hook JSON for a shell call of LINE
  local line
  line=$(printf '%s' "$2" | sed 's/\\/\\\\/g; s/"/\\"/g')
  case $1 in
    claude) printf '{"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s","description":"d","timeout":120000},"tool_use_id":"toolu_1"}' "$proj" "$line" ;;
    codex) printf '{"session_id":"s","transcript_path":null,"cwd":"%s","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"call_1"}' "$proj" "$line" ;;
    gemini) printf '{"session_id":"s","transcript_path":"/tmp/t.json","cwd":"%s","hook_event_name":"BeforeTool","timestamp":"2026-03-01T12:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"%s","description":"d"}}' "$proj" "$line" ;;
  esac
}
for agent in claude codex gemini; do
  payload $agent "$simple" >"$work/$agent"
  payload $agent "$chain" >"$work/$agent-chain"
done
# Each agent's own wrapper around a shell call, as its bash runs it (`bash -c`), without what
# depends on the user (Claude Code's snapshot of the user's shell functions, sourced first):
# Claude Code 2.1.332 `eval`s the command and records `pwd -P` after it; Gemini CLI 0.x runs it
# in a subshell whose EXIT trap lists the jobs it left. Both fork the agent's shell for the
# command, which `bash -c 'ls -la'` does not (bash executes a lone command in place).
as_claude() { printf "eval '%s' && pwd -P >| %s" "${1//\'/\'\\\'\'}" "$work/claude-cwd"; }
as_gemini() {
  # shellcheck disable=SC2016 # Gemini CLI's own text: its `$` expand in the agent's shell.
  printf '_bgpids_file=%s\n(\n  trap '"'"'jobs -p > "$_bgpids_file"'"'"' EXIT\n%s\n)\n__code=$?\nexit $__code' \
    "$work/gemini-jobs" "$1"
}
cd "$proj" # every variant runs in the project, as an agent's shell calls do

all=(true check check-chain hook-claude hook-claude-chain hook-codex hook-gemini
  bash-c sh-open sh-confined granted-claude granted-gemini
  as-claude as-claude-granted as-claude-door as-gemini as-gemini-granted as-gemini-door)
# OLD=DIR (holding an earlier build's assentd and static assent) adds that pair, side by side.
if [[ -n ${OLD-} ]]; then
  old=$(realpath "$OLD")
  daemon "$old" old
  all+=(check-old check-chain-old hook-claude-old hook-claude-chain-old)
fi
# ALT=FILE (another build of the static client, against the same daemon) adds it, side by side.
if [[ -n ${ALT-} ]]; then
  cp "$ALT" "$work/assent-alt"
  alt=$work/assent-alt
  mkdir -p "$work/alt" && ln -s "$alt" "$work/alt/assent-sh"
  all+=(check-alt hook-claude-alt hook-codex-alt hook-gemini-alt sh-open-alt sh-confined-alt
    granted-claude-alt granted-gemini-alt as-claude-door-alt as-gemini-door-alt)
fi
read -r -a names <<<"${VARIANTS:-${all[*]}}"
run() { # NAME: one run of that variant
  case $1 in
    true) /bin/true </dev/null ;;
    check) "$static" --socket "$s" check -- "$simple" </dev/null ;;
    check-chain) "$static" --socket "$s" check --cwd "$proj" -- "$chain" </dev/null ;;
    hook-claude) "$static" --socket "$s" hook claude-code <"$work/claude" >/dev/null ;;
    hook-claude-chain) "$static" --socket "$s" hook claude-code <"$work/claude-chain" >/dev/null ;;
    hook-codex) "$static" --socket "$s" hook codex <"$work/codex" >/dev/null ;;
    hook-gemini) "$static" --socket "$s" hook gemini <"$work/gemini" >/dev/null ;;
    bash-c) /bin/bash -c "$simple" >/dev/null </dev/null ;;
    sh-open) ASSENT_SOCKET=$work/open.socket "$work/assent-sh" -c "$simple" >/dev/null </dev/null ;;
    sh-confined) ASSENT_SOCKET=$s "$work/assent-sh" -c "$simple" >/dev/null </dev/null ;;
    # The command an agent's hook rewrote the call to (the grant's door, `assent sh --grant`),
    # as the agent runs it: got from the hook before the round's timing (`prepare`).
    granted-* | as-*) /bin/bash -c "$line" >/dev/null </dev/null ;;
    check-old) "$old/assent" --socket "$work/old.socket" check -- "$simple" </dev/null ;;
    hook-claude-old) "$old/assent" --socket "$work/old.socket" hook claude-code <"$work/claude" >/dev/null ;;
    check-chain-old) "$old/assent" --socket "$work/old.socket" check --cwd "$proj" -- "$chain" </dev/null ;;
    hook-claude-chain-old) "$old/assent" --socket "$work/old.socket" hook claude-code <"$work/claude-chain" >/dev/null ;;
    check-alt) "$alt" --socket "$s" check -- "$simple" </dev/null ;;
    hook-claude-alt) "$alt" --socket "$s" hook claude-code <"$work/claude" >/dev/null ;;
    hook-codex-alt) "$alt" --socket "$s" hook codex <"$work/codex" >/dev/null ;;
    hook-gemini-alt) "$alt" --socket "$s" hook gemini <"$work/gemini" >/dev/null ;;
    sh-open-alt) ASSENT_SOCKET=$work/open.socket "$work/alt/assent-sh" -c "$simple" >/dev/null </dev/null ;;
    sh-confined-alt) ASSENT_SOCKET=$s "$work/alt/assent-sh" -c "$simple" >/dev/null </dev/null ;;
    *) echo "no variant $1" >&2 && return 1 ;;
  esac
}
prepare() { # NAME: untimed work a variant needs before its run (a fresh grant: each is used once)
  case $1 in
    as-claude) as_claude "$simple" >"$work/$1" ;;
    as-gemini) as_gemini "$simple" >"$work/$1" ;;
    as-*-granted* | as-*-door*)
      # as-AGENT-granted, as-AGENT-door, and either with -alt (ALT's client ran the hook).
      local rest=${1#as-}
      local base=${rest%%-*}
      local agent=granted-$base
      [[ $rest == *-door* ]] && agent+=-door
      [[ $rest == *-alt ]] && agent+=-alt
      prepare "$agent"
      "as_$base" "$(<"$work/$agent")" >"$work/$1"
      ;;
    granted-*)
      local agent=${1#granted-} client=$static builtin=
      [[ $agent == *-alt ]] && agent=${agent%-alt} client=$alt
      # -door: the hook's rewrite without the bash builtin, the door alone.
      [[ $agent == *-door ]] && agent=${agent%-door} builtin=off
      local payload=$agent
      [[ $agent == claude ]] && agent=claude-code
      # The command out of the hook's JSON, read in this shell: a Python process here, before
      # the timing, left the caches cold for these variants alone (~0.4 ms more, measured).
      local out
      out=$(env ${builtin:+ASSENT_BUILTIN=$builtin} "$client" --socket "$s" hook "$agent" <"$work/$payload")
      out=${out#*\"command\":\"}
      out=${out%%\",\"*}
      out=${out%%\"\}*}
      out=${out//\\\"/\"}
      printf '%s' "${out//\\\\/\\}" >"$work/$1"
      ;;
  esac
}
line= # the command a `granted-*` or `as-*` variant runs, read before its timing
for name in "${names[@]}"; do
  prepare "$name"
  [[ ! -e $work/$name ]] || line=$(<"$work/$name")
  run "$name" || { echo "$name failed" >&2; exit 1; }
done
for ((r = 0; r < rounds; r++)); do
  order=()
  for ((k = 0; k < ${#names[@]}; k++)); do order+=("${names[(r + k) % ${#names[@]}]}"); done
  [[ ${ORDER-} == rotate ]] || mapfile -t order < <(shuf -e -- "${names[@]}")
  for name in "${order[@]}"; do
    prepare "$name"
    [[ ! -e $work/$name ]] || line=$(<"$work/$name")
    t0=${EPOCHREALTIME/./}
    run "$name"
    t1=${EPOCHREALTIME/./}
    echo $((t1 - t0)) >>"$work/t-$name"
  done
done
[[ -n ${STATUS-} ]] && "$static" --socket "$s" status --json | grep -o "\"\(kept_rulesets\|rulesets_passed\)\":[0-9]*" >&2
base=$(sort -n "$work/t-true" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf '%-18s %10s %10s %8s\n' variant 'median µs' 'p90 µs' '× true'
for name in "${names[@]}"; do
  sort -n "$work/t-$name" | awk -v n="$name" -v base="$base" \
    '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%-18s %10d %10d %8.2f\n", n, m, a[int(NR*0.9)], m/base}'
done
