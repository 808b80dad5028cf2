//! Claude Code's PreToolUse hook.
//!
//! Input (stdin): `session_id`, `transcript_path`, `cwd`, `permission_mode`,
//! `hook_event_name: "PreToolUse"`, `tool_name`, `tool_input`, `tool_use_id`. `Bash` carries
//! `tool_input.command`; every other tool (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`, `Read`,
//! `Grep`, `Glob`, `mcp__*`, …) is checked as a tool call with `tool_input` as its arguments,
//! where the daemon looks at the path arguments.
//!
//! Output (stdout, exit 0): `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//! "permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason": "…"}}`. A deny also
//! exits 2 with the reason on stderr, which Claude blocks on and feeds to the model.

use serde_json::Value;

use super::{
    Answer, Call, check_event, pre_tool_use_output, rewritten_output, shell_call, string_field,
    tool_call,
};

/// Turn Claude Code's hook input into a check.
pub(super) fn parse(input: &Value) -> Result<Call, String> {
    check_event(input, "PreToolUse")?;
    let tool = string_field(input, "tool_name")?;
    let Some(tool_input) = input.get("tool_input").filter(|v| v.is_object()) else {
        return Err("the hook input has no `tool_input` object".into());
    };
    if tool == "Bash" {
        let command = string_field(tool_input, "command")?;
        let cwd = string_field(input, "cwd")?;
        // Claude Code runs the `updatedInput` an allow hands back: the line can run confined.
        let mut call = shell_call(command, cwd, input)?;
        call.rewritable = Some(tool_input.clone());
        return Ok(call);
    }
    Ok(tool_call(tool, tool_input, input))
}

/// The answer in Claude Code's format.
pub(super) fn render(answer: &Answer) -> String {
    match answer {
        Answer::Allow(reason) => pre_tool_use_output("allow", reason),
        Answer::Deny(reason) => pre_tool_use_output("deny", reason),
        Answer::Ask(reason) => pre_tool_use_output("ask", reason),
        Answer::Rewrite { reason, input, ask } => {
            rewritten_output(if *ask { "ask" } else { "allow" }, reason, input)
        }
        // Nothing: Claude Code then applies its own permission rules, as with no hook.
        Answer::Defer(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use assent_client::protocol::{Origin, Subject};
    use serde_json::json;

    use super::*;

    #[test]
    fn bash_is_a_shell_check_in_the_agents_cwd_and_session() {
        let call = parse(&json!({
            "session_id": "s1", "cwd": "/home/u/p", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "t"
        }))
        .expect("a valid Bash call");
        assert_eq!(call.origin, Origin::Agent);
        assert_eq!(call.context.session.as_deref(), Some("s1"));
        assert_eq!(
            call.subject,
            Subject::Shell {
                command: "ls -la".into(),
                cwd: "/home/u/p".into(),
                truncated: false
            }
        );
    }

    #[test]
    fn other_tools_are_tool_checks_with_their_input_in_the_agents_cwd() {
        let call = parse(&json!({
            "cwd": "/p", "tool_name": "Write",
            "tool_input": {"file_path": "/p/.env", "content": "A=1"}
        }))
        .expect("a valid Write call");
        let Subject::Tool {
            name,
            args_json,
            cwd,
        } = call.subject
        else {
            panic!("a tool subject");
        };
        assert_eq!(name, "Write");
        assert_eq!(cwd.as_deref(), Some("/p"), "the project the agent works in");
        let args: Value = serde_json::from_str(&args_json).expect("JSON arguments");
        assert_eq!(args["file_path"], "/p/.env");
    }

    #[test]
    fn missing_or_wrong_fields_are_errors() {
        for input in [
            json!({}),
            json!({"tool_name": "Bash"}),
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            json!({"tool_name": "Bash", "cwd": "/p", "tool_input": {"command": 3}}),
            json!({"tool_name": 7, "tool_input": {}}),
            json!({"tool_name": "Read", "tool_input": "x"}),
        ] {
            assert!(parse(&input).is_err(), "{input}");
        }
    }

    #[test]
    fn every_answer_is_claudes_json() {
        for (answer, word) in [
            (Answer::Allow("ok".into()), "allow"),
            (Answer::Deny("no".into()), "deny"),
            (Answer::Ask("hm".into()), "ask"),
        ] {
            let out: Value = serde_json::from_str(&render(&answer)).expect("JSON");
            assert_eq!(out["hookSpecificOutput"]["hookEventName"], "PreToolUse");
            assert_eq!(out["hookSpecificOutput"]["permissionDecision"], word);
            assert!(out["hookSpecificOutput"]["permissionDecisionReason"].is_string());
        }
        assert_eq!(
            render(&Answer::Defer("ok".into())),
            "",
            "a deferred allow says nothing"
        );
    }

    /// A rewritten call goes with an allow, or to Claude's own prompt with an ask: Claude takes
    /// `updatedInput` with either.
    #[test]
    fn a_rewritten_call_is_allowed_or_asked() {
        for (ask, word) in [(false, "allow"), (true, "ask")] {
            let input = json!({"command": "assent sh --grant 'pg_1' -c 'make'"});
            let answer = Answer::Rewrite {
                reason: "r".into(),
                input: input.clone(),
                ask,
            };
            let out: Value = serde_json::from_str(&render(&answer)).expect("JSON");
            assert_eq!(out["hookSpecificOutput"]["permissionDecision"], word);
            assert_eq!(out["hookSpecificOutput"]["updatedInput"], input);
        }
    }
}
