//! Gemini CLI's BeforeTool hook.
//!
//! Input (stdin): `session_id`, `transcript_path`, `cwd`, `hook_event_name: "BeforeTool"`,
//! `timestamp`, `tool_name`, `tool_input`, `mcp_context`, `original_request_name`.
//! `run_shell_command` carries `tool_input.command` and, optionally, `tool_input.dir_path`
//! (older releases: `directory`), relative to `cwd`; every other tool (`write_file`, `replace`,
//! `read_file`, `mcp_<server>_<tool>`, …) is a tool call with `tool_input` as its arguments.
//!
//! Output: exactly one JSON document, `{"decision": "allow"|"deny"|"ask", "reason": "…"}`:
//! Gemini *allows* when stdout is not JSON, so nothing else may reach stdout. Every answer exits
//! 0: Gemini counts any other exit as a failed hook (and tells the person `Hook(s) [assent]
//! failed` on every deny), while a `deny` at exit 0 blocks the call and hands the model
//! "Tool execution blocked: REASON". `ask` puts the call to Gemini's own confirmation, even in
//! its YOLO mode. Gemini's hook `timeout` is in milliseconds.

use serde::Serialize;
use serde_json::Value;

use super::{Answer, Call, check_event, one_line, run_dir, shell_call, string_field, tool_call};

/// Turn Gemini CLI's hook input into a check.
pub(super) fn parse(input: &Value) -> Result<Call, String> {
    check_event(input, "BeforeTool")?;
    let tool = string_field(input, "tool_name")?;
    let Some(tool_input) = input.get("tool_input").filter(|v| v.is_object()) else {
        return Err("the hook input has no `tool_input` object".into());
    };
    if tool == "run_shell_command" {
        let command = string_field(tool_input, "command")?;
        let cwd = string_field(input, "cwd")?;
        let dir = ["dir_path", "directory"]
            .iter()
            .find_map(|key| tool_input.get(*key).and_then(Value::as_str));
        let cwd = run_dir(cwd, dir);
        // Gemini CLI merges `hookSpecificOutput.tool_input` into the call it runs: the line can
        // run confined.
        let mut call = shell_call(command, &cwd, input)?;
        call.rewritable = Some(tool_input.clone());
        return Ok(call);
    }
    Ok(tool_call(tool, tool_input, input))
}

/// The answer in Gemini CLI's format.
pub(super) fn render(answer: &Answer) -> String {
    let (decision, reason) = match answer {
        // Defer is refused for Gemini; an allow, should it ever be.
        Answer::Allow(reason) | Answer::Defer(reason) => ("allow", reason),
        Answer::Deny(reason) => ("deny", reason),
        Answer::Ask(reason) => ("ask", reason),
        Answer::Rewrite { reason, input, ask } => {
            // Only the command is handed back: Gemini merges it into the call's own input, and
            // builds the call it confirms (on an ask) from it.
            let command = input.get("command").unwrap_or(&Value::Null);
            let decision = if *ask { "ask" } else { "allow" };
            return output(decision, reason, Some(command));
        }
    };
    output(decision, reason, None)
}

/// Gemini CLI's answer, written straight from its parts (no JSON tree built and printed).
#[derive(Serialize)]
struct Output<'a> {
    decision: &'a str,
    reason: String,
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    specific: Option<Specific<'a>>,
}

#[derive(Serialize)]
struct Specific<'a> {
    tool_input: Command<'a>,
}

#[derive(Serialize)]
struct Command<'a> {
    command: &'a Value,
}

fn output(decision: &str, reason: &str, command: Option<&Value>) -> String {
    let output = Output {
        decision,
        reason: one_line(reason),
        specific: command.map(|command| Specific {
            tool_input: Command { command },
        }),
    };
    // Strings and a JSON value only: serialising cannot fail; were it to, a deny (Gemini CLI
    // allows on anything that is not JSON).
    serde_json::to_string(&output).unwrap_or_else(|_| {
        r#"{"decision":"deny","reason":"assent: the hook could not write its answer"}"#.into()
    })
}

#[cfg(test)]
mod tests {
    use assent_client::protocol::Subject;
    use serde_json::json;

    use super::*;

    #[test]
    fn the_shell_runs_in_its_dir_path() {
        let call = parse(&json!({
            "session_id": "g", "cwd": "/home/u/p", "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls", "dir_path": "sub"}
        }))
        .expect("a valid shell call");
        let Subject::Shell { cwd, .. } = call.subject else {
            panic!("a shell subject");
        };
        assert_eq!(cwd, "/home/u/p/sub");
    }

    #[test]
    fn the_wrong_event_is_an_error() {
        assert!(
            parse(&json!({
                "cwd": "/p", "hook_event_name": "AfterTool", "tool_name": "run_shell_command",
                "tool_input": {"command": "ls"}
            }))
            .is_err()
        );
    }

    #[test]
    fn answers_are_gemini_json() {
        for (answer, decision) in [
            (Answer::Allow("no\nway".into()), "allow"),
            (Answer::Deny("no\nway".into()), "deny"),
            (Answer::Ask("no\nway".into()), "ask"),
        ] {
            let out: Value = serde_json::from_str(&render(&answer)).expect("JSON");
            assert_eq!(out, json!({"decision": decision, "reason": "no way"}));
        }
    }

    /// A rewritten call goes with an allow, or to Gemini's own confirmation with an ask: Gemini
    /// builds the call it confirms and runs from the hook's `tool_input`.
    #[test]
    fn a_rewritten_call_is_allowed_or_asked() {
        for (ask, decision) in [(false, "allow"), (true, "ask")] {
            let answer = Answer::Rewrite {
                reason: "r".into(),
                input: json!({"command": "door", "dir_path": "sub"}),
                ask,
            };
            let out: Value = serde_json::from_str(&render(&answer)).expect("JSON");
            assert_eq!(
                out,
                json!({"decision": decision, "reason": "r",
                    "hookSpecificOutput": {"tool_input": {"command": "door"}}})
            );
        }
    }
}
