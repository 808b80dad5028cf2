//! Codex CLI's PreToolUse hook (experimental in Codex: `[features] hooks = true`, formerly
//! `codex_hooks`).
//!
//! Input (stdin): `session_id`, `turn_id`, `transcript_path`, `cwd`, `hook_event_name:
//! "PreToolUse"`, `model`, `permission_mode`, `tool_name`, `tool_input`, `tool_use_id`. Shell
//! tools (`Bash`, and the older `shell`, `local_shell`, `exec_command` names) carry
//! `tool_input.command`, a string or an argv array such as `["bash", "-lc", "…"]`; everything
//! else (`apply_patch`, `mcp__*`) is a tool call with `tool_input` as its arguments.
//!
//! Output: Codex rejects `permissionDecision: "ask"` *and then lets the call run*, and rejects
//! `"allow"` without `updatedInput` as invalid, so we never send either. An allow is `{}` (no
//! objection: Codex's own approval rules still apply); a deny is `permissionDecision: "deny"`
//! with a non-empty `permissionDecisionReason`, plus exit 2 with the reason on stderr (Codex
//! blocks on exit 2 only when stderr is non-empty).

use serde_json::Value;

use super::{
    Answer, Call, check_event, pre_tool_use_output, run_dir, shell_call, string_field, tool_call,
};

/// Codex's names for its shell tools.
const SHELL_TOOLS: [&str; 5] = [
    "Bash",
    "shell",
    "local_shell",
    "exec_command",
    "shell_command",
];

/// The shells whose `-c SCRIPT` we unwrap from an argv.
const SHELLS: [&str; 4] = ["bash", "sh", "zsh", "dash"];

/// Turn Codex's hook input into a check.
pub(super) fn parse(input: &Value) -> Result<Call, String> {
    check_event(input, "PreToolUse")?;
    let tool = string_field(input, "tool_name")?;
    let Some(tool_input) = input.get("tool_input").filter(|v| v.is_object()) else {
        return Err("the hook input has no `tool_input` object".into());
    };
    if SHELL_TOOLS.contains(&tool) {
        let command = command_line(tool_input.get("command"))?;
        let cwd = string_field(input, "cwd")?;
        // The call may run elsewhere than the session: its `workdir`.
        let cwd = run_dir(cwd, tool_input.get("workdir").and_then(Value::as_str));
        // Codex would run an `updatedInput` handed back with an allow, but inside its own
        // sandbox (on by default) the rewritten door cannot reach the gate's socket (`connect`
        // is refused), and nothing in the hook's input says whether that sandbox is on: so the
        // call is not rewritten, and runs unconfined as Codex got it.
        return shell_call(&command, &cwd, input);
    }
    // `apply_patch` names its files relative to the session's directory, which Codex gives
    // beside the call: the call carries it, and the daemon places them there.
    Ok(tool_call(tool, tool_input, input))
}

/// The command line to check: the string as is; an argv's `-c SCRIPT` when it is exactly a
/// shell running a script (`bash -lc SCRIPT`); otherwise the argv shell-quoted into one line.
fn command_line(command: Option<&Value>) -> Result<String, String> {
    match command {
        Some(Value::String(line)) => Ok(line.clone()),
        Some(Value::Array(items)) => {
            let argv: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            let argv = argv.ok_or("the shell command's argv holds a non-string")?;
            if argv.is_empty() {
                return Err("the shell command's argv is empty".into());
            }
            if let [program, flags, script] = argv[..] {
                let name = program.rsplit('/').next().unwrap_or(program);
                let runs_script = flags.starts_with('-')
                    && !flags.starts_with("--")
                    && flags[1..].contains('c')
                    && flags[1..].bytes().all(|b| b.is_ascii_alphabetic());
                if SHELLS.contains(&name) && runs_script {
                    return Ok(script.to_string());
                }
            }
            Ok(shell_words::join(argv))
        }
        Some(_) => Err("the shell command is neither a string nor an argv array".into()),
        None => Err("the hook input's `tool_input` has no `command`".into()),
    }
}

/// The answer in Codex's format.
pub(super) fn render(answer: &Answer) -> String {
    match answer {
        // Defer is refused for Codex; an allow, should it ever be.
        Answer::Allow(_) | Answer::Defer(_) => "{}".into(),
        Answer::Deny(reason) => pre_tool_use_output("deny", reason),
        // Never produced for Codex (the flag is refused); a deny, should it ever be.
        Answer::Ask(reason) => pre_tool_use_output("deny", reason),
        // Never produced for Codex (see `parse`); a deny, should it ever be.
        Answer::Rewrite { reason, .. } => pre_tool_use_output("deny", reason),
    }
}

#[cfg(test)]
mod tests {
    use assent_client::protocol::Subject;
    use serde_json::json;

    use super::*;

    #[test]
    fn an_argv_is_unwrapped_or_quoted() {
        let line = |v: Value| command_line(Some(&v));
        assert_eq!(line(json!("ls -la")).as_deref(), Ok("ls -la"));
        assert_eq!(
            line(json!(["bash", "-lc", "rm -rf build"])).as_deref(),
            Ok("rm -rf build")
        );
        assert_eq!(
            line(json!(["/bin/sh", "-c", "echo hi"])).as_deref(),
            Ok("echo hi")
        );
        assert_eq!(
            line(json!(["ls", "-la", "my dir"])).as_deref(),
            Ok("ls -la 'my dir'")
        );
        assert!(line(json!([])).is_err());
        assert!(line(json!(["ls", 3])).is_err());
        assert!(line(json!({"x": 1})).is_err());
        assert!(command_line(None).is_err());
    }

    #[test]
    fn allow_is_no_objection_and_deny_has_a_reason() {
        assert_eq!(render(&Answer::Allow("ok".into())), "{}");
        let out: Value = serde_json::from_str(&render(&Answer::Deny("no".into()))).expect("JSON");
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(out["hookSpecificOutput"]["permissionDecisionReason"], "no");
    }

    #[test]
    fn a_shell_call_runs_in_its_workdir() {
        let call = |tool_input: Value| {
            let input = json!({
                "hook_event_name": "PreToolUse", "cwd": "/home/u/p",
                "tool_name": "shell", "tool_input": tool_input,
            });
            match parse(&input).expect("a valid call").subject {
                Subject::Shell { cwd, .. } => cwd,
                other => panic!("a shell subject, not {other:?}"),
            }
        };
        assert_eq!(call(json!({"command": ["ls"]})), "/home/u/p");
        assert_eq!(
            call(json!({"command": ["cat", "credentials"], "workdir": "/home/u/.aws"})),
            "/home/u/.aws"
        );
        assert_eq!(
            call(json!({"command": ["ls"], "workdir": "sub"})),
            "/home/u/p/sub"
        );
    }
}
