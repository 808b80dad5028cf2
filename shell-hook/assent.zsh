# assent for interactive zsh: each typed line goes through the assent gate before it runs.
#
# Install with `eval "$(assent init zsh)"` in ~/.zshrc. It is a second look for the person at the
# keyboard, who can always switch it off (`__assent_uninstall`); agents are gated through their
# own doors, never through this hook.
#
# zsh's preexec cannot veto a command, so the hook wraps the widgets that accept a line
# (accept-line and its relatives): once the buffer is a whole command, it goes to `assent check`
# with the lines already read of a multi-line command ($PREBUFFER) before it is accepted. Allowed:
# the original widget runs. Held: `assent check` waits for an approval from another terminal or
# the desktop (Ctrl-C withdraws it). Refused: the reason is printed, the line is kept in
# history and not run. When the daemon is unreachable it warns once and lets lines run (fail
# open); ASSENT_FAIL_CLOSED=1 refuses them instead.
#
# What it cannot see: functions and aliases defined earlier run commands the typed line does not
# show, and programs started by the line are not interactive lines. All names start with
# __assent_.

if [[ -o interactive ]] && (( ! ${+__assent_loaded} )); then
  typeset -g __assent_loaded=1
  typeset -g __assent_bin=${ASSENT_BIN:-${commands[assent]-}}
  typeset -g __assent_down= __assent_silent=
  typeset -gA __assent_orig=()
  # EPOCHREALTIME, to tell an allow that came at once from one a person gave.
  zmodload -F zsh/datetime p:EPOCHREALTIME 2>/dev/null

  if [[ -z $__assent_bin ]]; then
    print -u2 'assent: no assent on PATH and ASSENT_BIN is unset; lines are not checked'
  else
    # Ask the gate about one line: 0 to run it, 1 not to.
    # __assent_silent is set when nothing was printed (an allow at once).
    __assent_check() {
      local __assent_status=0 __assent_start=$EPOCHREALTIME __assent_said=
      __assent_silent=
      if [[ -n $__assent_down ]]; then
        # Down at the last check: look quietly first, so the warning is not repeated.
        if ! "$__assent_bin" status >/dev/null 2>&1; then
          __assent_unavailable
          return
        fi
        __assent_down=
        print -u2 'assent: the gate is back; lines are checked again'
        __assent_said=1
      fi
      "$__assent_bin" check --origin interactive --session "zsh-$$" --cwd "$PWD" -- "$1" \
        || __assent_status=$?
      case $__assent_status in
        0)
          # A hold prints; an allow that came at once did not.
          [[ -z $__assent_said ]] && (( EPOCHREALTIME - __assent_start < 0.5 )) \
            && __assent_silent=1
          return 0
          ;;
        1|2|130) return 1 ;;
        126)
          # 126 after a wait means the gate went away while the line was held: not allowed.
          if [[ -n $__assent_start ]] && (( EPOCHREALTIME - __assent_start > 1.0 )); then
            return 1
          fi
          ;;
      esac
      __assent_unavailable
    }

    __assent_unavailable() {
      if [[ ${ASSENT_FAIL_CLOSED-} == 1 ]]; then
        print -u2 'assent: the gate is unavailable and ASSENT_FAIL_CLOSED=1: the line was not run'
        return 1
      fi
      if [[ -z $__assent_down ]]; then
        __assent_down=1
        print -u2 'assent: the gate is unavailable; lines run unchecked in this shell until it is back'
      fi
      return 0
    }

    # How many screen rows the prompt and the buffer take (zle -I leaves the cursor below
    # them), into __assent_nrows. No $(...): a fork costs as much as the check.
    __assent_rows() {
      emulate -L zsh
      setopt extendedglob
      local __assent_p __assent_l __assent_esc=$'\e'
      integer __assent_n=0 __assent_cols=${COLUMNS:-80}
      if [[ -n $PREBUFFER ]]; then __assent_p=${(%)PS2}; else __assent_p=${(%)PS1}; fi
      # Colours and other escapes take no room.
      __assent_p=${__assent_p//${__assent_esc}\[[0-9\;\?]#[a-zA-Z]}$BUFFER
      for __assent_l in "${(@f)__assent_p}"; do
        (( __assent_n += 1 + (${#__assent_l} > 0 ? (${#__assent_l} - 1) / __assent_cols : 0) ))
      done
      typeset -g __assent_nrows=$(( __assent_n > 0 ? __assent_n : 1 ))
    }

    # Whether a buffer is a whole command yet, without running any of it: a line with nothing
    # that can stay open (a quote, a bracket, a backslash, a here-document, a reserved word) is;
    # anything else is parsed by a non-interactive `zsh -n`, which executes nothing. An
    # unfinished `for … do` or quote fails to parse; so does a line with a syntax error, which
    # zsh refuses to run anyway.
    __assent_complete() {
      emulate -L zsh
      setopt extendedglob
      [[ $1 == *[\'\"\`\\\(\{\[\<]* \
        || $1 == (|*[^[:alnum:]_])(for|while|until|if|case|select|repeat|foreach|function)([^[:alnum:]_]*|) ]] \
        || return 0
      [[ -n ${commands[zsh]-} ]] || return 0
      "${commands[zsh]}" -fn -c "$1" 2>/dev/null
    }
    # The wrapper of every accepting widget: check, then accept or refuse. A buffer that is not
    # a whole command yet is accepted unchecked: zsh reads its next line (PS2), and the whole
    # command is checked when it is complete, so keys typed meanwhile are never taken for an
    # answer to a prompt about half of it.
    __assent_accept() {
      local __assent_text=$PREBUFFER$BUFFER
      if [[ -n ${__assent_text//[[:space:]]/} ]] && __assent_complete "$__assent_text"; then
        # Make room below the line for what the gate says, and give the terminal back its
        # usual settings, so Ctrl-C reaches a held check.
        zle -I
        if ! __assent_check "$__assent_text"; then
          # Refused: keep it in history, run nothing, start a fresh prompt.
          print -rs -- "$__assent_text"
          BUFFER=
          zle .send-break
          return 1
        fi
        # An allow that came at once printed nothing: go back up over the line zle -I left,
        # so accepting it draws it once, in place.
        if [[ -n $__assent_silent ]]; then
          __assent_rows
          print -n -- $'\e['"$__assent_nrows"$'A\r\e[J'
        fi
      fi
      local __assent_widget=${__assent_orig[$WIDGET]-}
      if [[ -n $__assent_widget ]]; then
        zle "$__assent_widget" -- "$@"
      else
        zle ".$WIDGET" -- "$@"
      fi
    }

    # Wrap the accepting widgets, keeping any wrapper another plugin installed before us.
    () {
      local __assent_w __assent_def
      for __assent_w in accept-line accept-and-hold accept-line-and-down-history \
        accept-and-infer-next-history; do
        __assent_def=${widgets[$__assent_w]-}
        if [[ $__assent_def == user:* && $__assent_def != user:__assent_accept ]]; then
          zle -A "$__assent_w" "__assent_orig_$__assent_w"
          __assent_orig[$__assent_w]=__assent_orig_$__assent_w
        fi
        zle -N "$__assent_w" __assent_accept
      done
    }

    # Switch the hook off in this shell and give back the widgets it wrapped.
    __assent_uninstall() {
      local __assent_w
      for __assent_w in accept-line accept-and-hold accept-line-and-down-history \
        accept-and-infer-next-history; do
        if [[ -n ${__assent_orig[$__assent_w]-} ]]; then
          zle -A "${__assent_orig[$__assent_w]}" "$__assent_w"
        else
          zle -A ".$__assent_w" "$__assent_w"
        fi
      done
    }
  fi
fi
