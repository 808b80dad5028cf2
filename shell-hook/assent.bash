# shellcheck shell=bash
# assent for interactive bash: each typed line goes through the assent gate before it runs.
#
# Install with `eval "$(assent init bash)"` in ~/.bashrc (bash 5.0 or later). It is a second look
# for the person at the keyboard, who can always switch it off (`__assent_uninstall`, or
# `trap - DEBUG`); agents are gated through their own doors, never through this hook.
#
# How it works. PS0 is expanded after a line is read and before it runs; an arithmetic subscript
# in it arms the hook once per line, without running a command. With `extdebug` on, a DEBUG trap
# that returns non-zero skips the command it precedes. The first DEBUG trap of an armed line
# disarms it, reads the whole line from `history 1` (through a file: no `$(...)`, each fork costs
# about a millisecond) and asks `assent check`: allowed runs at once; held waits for an approval
# from another terminal or the desktop (Ctrl-C withdraws it); denied prints the reason and skips
# the line. extdebug skips only the next simple command, and a skipped command leaves `$?` = 0, so
# a refused line latches: every later command of that line is skipped too (`rm x && echo done`).
# A refused line is then abandoned as Ctrl-C abandons one (the shell sends itself SIGINT once the
# trap is done; a subshell exits), which leaves `$?` = 130, as a failed command would.
# PROMPT_COMMAND starts with `__assent_prompt`, which disarms before anything else the prompt runs.
#
# What it cannot see: functions and aliases defined earlier run commands the typed line does not
# show (only an alias in first position is expanded for the check), and `bash -c`, scripts and
# programs started by the line are not interactive lines. With the `assent_check` loadable
# builtin (libassent_bash.so, found next to the client or in /usr/lib/assent; $ASSENT_BUILTIN
# names it, `off` never loads it) a line is checked from inside bash and an allowed or denied
# line starts no process; a held one is waited for by `assent __resume` on the connection the
# shell opened. Without it, each line costs one `assent check` and no other process. When the
# daemon is unreachable it warns once and lets lines run (fail open); ASSENT_FAIL_CLOSED=1
# refuses them instead. All names start with __assent_.

if [ -n "${BASH_VERSION-}" ] && [ -z "${__assent_loaded-}" ] && case $- in *i*) true ;; *) false ;; esac; then
  __assent_loaded=1

  __assent_bin=${ASSENT_BIN-}
  if [[ -z $__assent_bin ]] && hash assent 2>/dev/null; then
    __assent_bin=${BASH_CMDS[assent]-}
  fi

  if ((BASH_VERSINFO[0] < 5)); then
    printf 'assent: the shell hook needs bash 5.0 or later (this is %s); lines are not checked\n' "$BASH_VERSION" >&2
  elif [[ -z $__assent_bin ]]; then
    printf 'assent: no assent on PATH and ASSENT_BIN is unset; lines are not checked\n' >&2
  else
    # Per-shell scratch files, in a directory only this user can enter, in memory where there
    # is one (/tmp may be a disk). They are rewritten in place, never truncated: ext4 flushes a
    # file truncated and rewritten (auto_da_alloc), which cost milliseconds per line.
    if [[ -n ${XDG_RUNTIME_DIR-} && -d $XDG_RUNTIME_DIR && -O $XDG_RUNTIME_DIR && ! -L $XDG_RUNTIME_DIR ]]; then
      __assent_dir=$XDG_RUNTIME_DIR
    else
      __assent_dir=${TMPDIR:-/tmp}
      [[ -d /dev/shm && -w /dev/shm ]] && __assent_dir=/dev/shm
      __assent_dir=$__assent_dir/assent-hook.$UID
      [[ -d $__assent_dir ]] || mkdir -m 700 -- "$__assent_dir" 2>/dev/null || :
    fi
    if [[ -d $__assent_dir && -O $__assent_dir && ! -L $__assent_dir ]]; then
      __assent_file=$__assent_dir/assent-hook.$$.line
      __assent_vfile=$__assent_dir/assent-hook.$$.verdict

      __assent_armed=0      # 1 from PS0 until the line's first DEBUG trap
      __assent_seq=0        # typed lines so far (PS0 counts them)
      __assent_latch=-1     # the seq of a refused line: skip all of it
      __assent_e=           # errexit suspended by the last skip, restored at the next trap
      __assent_int=         # signal: the trap interrupts the refused line once done; leave: ends a subshell
      __assent_in=          # inside our own trap (a chained trap may call it again)
      __assent_prev=        # another DEBUG trap, run after ours
      __assent_ready=       # extdebug and the trap are set (at the first prompt)
      __assent_off=         # switched off in this shell
      __assent_down=        # the gate was unreachable at the last check
      __assent_fd=          # a held line's connection, left by the builtin
      __assent_token=       # and its token
      __assent_expires=     # and the milliseconds it had left
      __assent_another=     # and 1 when another person must answer it
      __assent_ignorespace= # the user asked for ignorespace, which history 1 cannot honour
      __assent_histignore=  # the user's HISTIGNORE, applied by hand after the check
      __assent_nohist_seq=-1
      declare -ga __assent_nil=()
      declare -gA __assent_seen=()
      __assent_text=
      # Expanded later, by PS0 and PROMPT_COMMAND: single quotes on purpose.
      # shellcheck disable=SC2016
      __assent_ps0='${__assent_nil[__assent_armed=1,++__assent_seq]-}'
      # shellcheck disable=SC2016
      __assent_pc='__assent_prompt "$_"'
      __assent_trap_p="trap -- '__assent_trap \"\$_\"' DEBUG"

      # The DEBUG trap. $1 is the caller's $_, handed back by being this call's last argument.
      # Returns non-zero to skip the command (extdebug).
      __assent_trap() {
        # extdebug makes every function inherit the trap, ours too: never judge our own commands.
        if [[ -n ${__assent_in-} || ${FUNCNAME[1]-} == __assent_* ]]; then
          # Fired inside our prompt function: it is the installed DEBUG trap, not a call from
          # another tool's wrapper.
          [[ ${FUNCNAME[1]-} == __assent_prompt ]] && __assent_alive=1
          return 0
        fi
        if [[ ${__assent_armed-0} == 1 || ${__assent_latch-} == "${__assent_seq-}" || -n ${__assent_e-} ]]; then
          __assent_in=1
          if ! __assent_slow; then
            __assent_in=
            # Last, since the interrupt ends this function wherever it is: run straight by
            # bash as the DEBUG trap (not through another tool's trap function), in the shell
            # itself, with SIGINT neither trapped nor ignored by the user.
            # A subshell that refused its line leaves with that status instead.
            case ${__assent_int-} in
              signal)
                __assent_int=
                ((${#FUNCNAME[@]} == 1)) && builtin kill -INT "$$"
                ;;
              leave)
                __assent_int=
                ((${#FUNCNAME[@]} == 1)) && builtin exit 130
                ;;
            esac
            return 1
          fi
          __assent_in=
        fi
        [[ -z ${__assent_prev-} ]] && return 0
        __assent_chain "${1-}"
      }

      # Another tool's DEBUG trap, kept. Its status only skips commands if extdebug was on
      # before us: we turned extdebug on for our own veto, not for theirs.
      __assent_chain() {
        local __assent_status=0
        __assent_in=1
        : "${1-}"
        eval "$__assent_prev" || __assent_status=$?
        __assent_in=
        [[ -n ${__assent_had_extdebug-} ]] && return "$__assent_status"
        return 0
      }

      # An armed or latched line: returns 0 to run this command, 1 to skip it.
      __assent_slow() {
        if [[ -n ${__assent_e-} ]]; then
          __assent_e=
          set -e
        fi
        if [[ ${__assent_latch-} == "${__assent_seq-}" ]]; then
          [[ $BASH_COMMAND == "$__assent_pc" ]] && return 0
          __assent_skip
          return 1
        fi
        [[ ${__assent_armed-0} == 1 ]] || return 0
        # A line with nothing to trap (a function definition) reaches the prompt still armed.
        if [[ $BASH_COMMAND == "$__assent_pc" ]]; then
          __assent_armed=0
          return 0
        fi
        [[ ${PROMPT_COMMAND-} == "$__assent_pc"* ]] || __assent_prompt_first
        if [[ ${__assent_nohist_seq-} == "${__assent_seq-}" ]] || ! __assent_read_line; then
          __assent_per_command
          return
        fi
        __assent_armed=0
        __assent_from_subshell
        case $? in
          0) return 0 ;;
          1) return 1 ;;
        esac
        if __assent_check "$__assent_text"; then
          __assent_tell_parent run
          return 0
        fi
        __assent_tell_parent skip
        __assent_refuse
        return 1
      }

      # History is off: check each simple command by itself, once per line for each text.
      __assent_per_command() {
        if [[ ${__assent_nohist_seq-} != "${__assent_seq-}" ]]; then
          __assent_nohist_seq=$__assent_seq
          __assent_seen=()
        fi
        [[ -n ${__assent_seen[$BASH_COMMAND]+set} ]] && return 0
        if __assent_check "$BASH_COMMAND"; then
          __assent_seen[$BASH_COMMAND]=1
          return 0
        fi
        __assent_refuse
        return 1
      }

      # A line whose first command runs in a subshell (`( ... )`, `{ ...; } | ...`, `$(...)`
      # in a for list) is checked there; the subshell leaves its verdict for this shell, so the
      # line is checked once. Returns 0 run, 1 skip, 2 no verdict.
      __assent_from_subshell() {
        local __assent_vs='' __assent_vv=''
        ((BASH_SUBSHELL == 0)) || return 2
        [[ -s $__assent_vfile ]] || return 2
        IFS=' ' read -r -d '' __assent_vs __assent_vv <"$__assent_vfile" || :
        # A verdict for another line is stale, whatever it says.
        [[ $__assent_vs == "$__assent_seq" ]] || return 2
        [[ $__assent_vv == run ]] && return 0
        __assent_refuse
        return 1
      }

      __assent_tell_parent() {
        ((BASH_SUBSHELL > 0)) || return 0
        printf '%s %s\0' "$__assent_seq" "$1" 1<>"$__assent_vfile" 2>/dev/null || :
      }

      # The line is refused: skip the rest of it, and have the trap interrupt it if it can, or
      # in a subshell end that with status 130 (not under `set -e`, where a failing status
      # would end the shell).
      __assent_refuse() {
        __assent_latch=$__assent_seq
        __assent_skip
        [[ -z ${__assent_e-} ]] || return 0
        if ((BASH_SUBSHELL > 0)); then
          __assent_int=leave
        elif __assent_int_default; then
          __assent_int=signal
        fi
        return 0
      }

      # Whether SIGINT does what it does by default here (the user's own trap would run, and
      # an ignored one would do nothing). No $(...): through the file, as for history.
      __assent_int_default() {
        local __assent_t=''
        {
          builtin trap -p INT && printf '\0'
        } 1<>"$__assent_file" 2>/dev/null || return 1
        IFS= read -r -d '' __assent_t <"$__assent_file" || :
        [[ -z $__assent_t ]]
      }

      # A skip leaves the trap with a non-zero status; under `set -e` that must not end the
      # shell, so errexit is off until the next trap, which turns it back on.
      __assent_skip() {
        if [[ $- == *e* ]]; then
          set +e
          __assent_e=1
        fi
        return 0
      }

      # The typed line, from history, into __assent_text; 1 if history cannot give it.
      __assent_read_line() {
        local __assent_t='' __assent_w=''
        __assent_text=
        [[ -o history ]] || return 1
        # NUL-terminated, since the file is not truncated.
        {
          HISTTIMEFORMAT='' builtin history 1 && printf '\0'
        } 1<>"$__assent_file" 2>/dev/null || return 1
        IFS= read -r -d '' __assent_t <"$__assent_file" || :
        # "  123  text" ("123* text" once edited).
        __assent_t=${__assent_t#"${__assent_t%%[! ]*}"}
        [[ $__assent_t == [0-9]* ]] || return 1
        __assent_t=${__assent_t#"${__assent_t%%[!0-9]*}"}
        __assent_t=${__assent_t:2}
        __assent_t=${__assent_t%$'\n'}
        [[ -n $__assent_t ]] || return 1
        __assent_forget_if_ignored "$__assent_t"
        # An alias in first position is what runs: check its expansion.
        if [[ :$BASHOPTS: == *:expand_aliases:* ]]; then
          __assent_w=${__assent_t#"${__assent_t%%[![:space:]]*}"}
          __assent_w=${__assent_w%%[[:space:];|&<>()]*}
          if [[ -n $__assent_w && -n ${BASH_ALIASES[$__assent_w]+set} ]]; then
            __assent_t=${__assent_t/"$__assent_w"/"${BASH_ALIASES[$__assent_w]}"}
          fi
        fi
        __assent_text=$__assent_t
        return 0
      }

      # The hook needs every line in history; what the user asked history to ignore is removed
      # by hand once the line is read.
      __assent_forget_if_ignored() {
        local __assent_p='' __assent_ignore=''
        local -a __assent_ps=()
        if [[ -n $__assent_ignorespace && $1 == [[:space:]]* ]]; then
          __assent_ignore=1
        elif [[ -n $__assent_histignore ]]; then
          IFS=: read -r -a __assent_ps <<<"$__assent_histignore" || :
          for __assent_p in "${__assent_ps[@]}"; do
            # shellcheck disable=SC2053 # HISTIGNORE entries are patterns
            [[ $1 == $__assent_p ]] && __assent_ignore=1
          done
        fi
        [[ -n $__assent_ignore ]] && builtin history -d -1 2>/dev/null
        return 0
      }

      # Ask the gate about one line: 0 to run it, 1 not to.
      __assent_check() {
        local __assent_status=0 __assent_start=
        if [[ -n $__assent_down ]]; then
          # Down at the last check: look quietly first, so the warning is not repeated.
          if [[ -n $__assent_builtin ]]; then
            assent_check --ping || __assent_status=$?
          else
            "$__assent_bin" status >/dev/null 2>&1 || __assent_status=$?
          fi
          if ((__assent_status != 0)); then
            __assent_unavailable
            return
          fi
          __assent_down=
          printf 'assent: the gate is back; lines are checked again\n' >&2
        fi
        if [[ -n $__assent_builtin ]]; then
          # The same request from inside the shell: no process for an allowed or denied line.
          assent_check --session "bash-$$" --cwd "$PWD" -- "$1" || __assent_status=$?
          case $__assent_status in
            0) return 0 ;;
            1 | 130) return 1 ;;
            3)
              __assent_resume "$1"
              return
              ;;
          esac
          __assent_unavailable
          return
        fi
        __assent_start=${EPOCHREALTIME//[!0-9]/}
        "$__assent_bin" check --origin interactive --session "bash-$$" --cwd "$PWD" -- "$1" || __assent_status=$?
        case $__assent_status in
          0) return 0 ;;
          1 | 2 | 130) return 1 ;;
          126)
            # 126 after a wait means the gate went away while the line was held: not allowed.
            local __assent_now=${EPOCHREALTIME//[!0-9]/}
            if [[ -n $__assent_start && -n $__assent_now ]] && ((__assent_now - __assent_start > 1000000)); then
              return 1
            fi
            ;;
        esac
        __assent_unavailable
      }

      # The builtin left the line held, its connection open in this shell: `assent __resume`
      # waits on that connection as `assent check` would (the time left, Ctrl-C withdraws it),
      # then this shell closes its copy, and asks at the terminal as `assent check` would. $1 is
      # the line, for the prompt. 0 to run the line; anything else, including the gate going
      # away while the line was held, does not run it.
      __assent_resume() {
        local __assent_status=0
        "$__assent_bin" __resume ${__assent_expires:+--expires "$__assent_expires"} ${__assent_level:+--level "$__assent_level"} ${__assent_another:+--another} "$__assent_token" -- "$1" >&"$__assent_fd" || __assent_status=$?
        exec {__assent_fd}>&-
        return "$__assent_status"
      }

      # The assent_check builtin (shell-hook/builtin/) asks the gate from inside bash, without
      # the fork and exec that cost most of a line's check. $ASSENT_BUILTIN names it (`off`:
      # never load it); else it is looked for next to the client, then where the package puts
      # it. Without it, or if bash cannot load it, lines are checked with `assent check`.
      __assent_load_builtin() {
        local __assent_so=${ASSENT_BUILTIN-}
        [[ $__assent_so == off ]] && return 0
        if [[ -z $__assent_so ]]; then
          if [[ $__assent_bin == */* && -f ${__assent_bin%/*}/libassent_bash.so ]]; then
            __assent_so=${__assent_bin%/*}/libassent_bash.so
          elif [[ -f /usr/lib/assent/libassent_bash.so ]]; then
            __assent_so=/usr/lib/assent/libassent_bash.so
          else
            return 0
          fi
        fi
        if enable -f "$__assent_so" assent_check 2>/dev/null; then
          __assent_builtin=1
        elif [[ -n ${ASSENT_BUILTIN-} ]]; then
          printf 'assent: could not load the builtin %s; lines are checked with %s\n' "$__assent_so" "$__assent_bin" >&2
        fi
        return 0
      }
      __assent_builtin=
      __assent_load_builtin

      __assent_unavailable() {
        if [[ ${ASSENT_FAIL_CLOSED-} == 1 ]]; then
          printf 'assent: the gate is unavailable and ASSENT_FAIL_CLOSED=1: the line was not run\n' >&2
          return 1
        fi
        if [[ -z $__assent_down ]]; then
          __assent_down=1
          printf 'assent: the gate is unavailable; lines run unchecked in this shell until it is back\n' >&2
        fi
        return 0
      }

      # First in PROMPT_COMMAND: disarm, and put back what the hook needs if something moved it.
      # Keeps $? and (through its argument) $_ for whatever runs after it.
      __assent_prompt() {
        local __assent_s=$?
        __assent_armed=0 __assent_latch=-1
        # Each command here costs a trap call (extdebug traces functions): one test for the
        # usual prompt, the repairs elsewhere.
        if [[ -z $__assent_off && (-z $__assent_alive || -z $__assent_ready ||
          ${PS0-} != *"$__assent_ps0"* || -n ${HISTIGNORE-} || ${HISTCONTROL-} == *ignore[sb]* ||
          :$BASHOPTS: != *:cmdhist:*) ]]; then
          __assent_repair
        fi
        __assent_alive=
        return "$__assent_s"
      }

      __assent_repair() {
        [[ ${PS0-} == *"$__assent_ps0"* ]] || PS0=${PS0-}$__assent_ps0
        __assent_history_settings
        if [[ -z $__assent_ready ]]; then
          __assent_ready=1
          # Here, not while the rc file runs: extdebug set in a startup file loads the
          # debugger profile.
          shopt -q extdebug && __assent_had_extdebug=1
          shopt -s extdebug
        fi
        # Our trap fired in the prompt function unless something replaced it.
        [[ -n $__assent_alive ]] || __assent_keep_trap
      }

      __assent_history_settings() {
        if [[ ${HISTCONTROL-} == *ignorespace* || ${HISTCONTROL-} == *ignoreboth* ]]; then
          __assent_ignorespace=1
          local __assent_h=:$HISTCONTROL:
          __assent_h=${__assent_h//:ignorespace:/:}
          __assent_h=${__assent_h//:ignoreboth:/:ignoredups:}
          __assent_h=${__assent_h#:}
          HISTCONTROL=${__assent_h%:}
        fi
        if [[ -n ${HISTIGNORE-} ]]; then
          __assent_histignore=$HISTIGNORE
          HISTIGNORE=
        fi
        shopt -s cmdhist
      }

      # Our trap must be the DEBUG trap. Another one set since (bash-preexec installs at its
      # first prompt, starship at its init) is chained; an empty one means the user removed
      # ours, which switches the hook off.
      __assent_keep_trap() {
        local __assent_t=''
        {
          trap -p DEBUG && printf '\0'
        } 1<>"$__assent_file" 2>/dev/null || :
        IFS= read -r -d '' __assent_t <"$__assent_file" || :
        __assent_t=${__assent_t%$'\n'}
        [[ $__assent_t == "$__assent_trap_p" ]] && return 0
        if [[ -z $__assent_t && -n $__assent_trap_set ]]; then
          __assent_off=1
          return 0
        fi
        if [[ -n $__assent_t ]]; then
          __assent_t=${__assent_t#trap -- }
          __assent_t=${__assent_t% DEBUG}
          # trap -p quotes it for eval.
          eval "__assent_prev=$__assent_t"
          # A wrapper that calls ours (bash-preexec keeps it as a preexec function) is left as
          # it is: our guard makes the second call a no-op.
        fi
        trap '__assent_trap "$_"' DEBUG
        __assent_trap_set=1
      }
      __assent_trap_set=
      __assent_alive=

      # Something put itself before us in PROMPT_COMMAND: take the first place back.
      __assent_prompt_first() {
        local __assent_p=${PROMPT_COMMAND-}
        __assent_p=${__assent_p//"$__assent_pc"$'\n'/}
        __assent_p=${__assent_p//"$__assent_pc"/}
        PROMPT_COMMAND=$__assent_pc$'\n'$__assent_p
      }

      # Switch the hook off in this shell and give back what it changed.
      __assent_uninstall() {
        __assent_off=1
        __assent_armed=0
        if [[ -n $__assent_prev ]]; then
          trap -- "$__assent_prev" DEBUG
        else
          trap - DEBUG
        fi
        [[ -n ${__assent_had_extdebug-} ]] || shopt -u extdebug
        PS0=${PS0//"$__assent_ps0"/}
        local __assent_p=${PROMPT_COMMAND-}
        __assent_p=${__assent_p//"$__assent_pc"$'\n'/}
        PROMPT_COMMAND=${__assent_p//"$__assent_pc"/}
      }

      PS0=${PS0-}$__assent_ps0
      __assent_prompt_first
    fi
  fi
fi
