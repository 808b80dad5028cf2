//! What the per-agent parsers share: reading fields of the hook's JSON, the call a shell
//! command or a tool call becomes, and the `PreToolUse` answer Claude Code and Codex both read.

use assent_client::protocol::{Context, Origin, Subject};
use serde::Serialize;
use serde_json::Value;

use super::{Call, MAX_TOOL_ARGS, SHORTENED_STRING, one_line};

/// A required string field.
pub(super) fn string_field<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    match value.get(key) {
        Some(Value::String(text)) if !text.is_empty() => Ok(text),
        Some(_) => Err(format!(
            "the hook input's `{key}` is not a non-empty string"
        )),
        None => Err(format!("the hook input has no `{key}`")),
    }
}

/// The input must be an object; if it names its event, it must be `expected`.
pub(super) fn check_event(input: &Value, expected: &str) -> Result<(), String> {
    if !input.is_object() {
        return Err("the hook input is not a JSON object".into());
    }
    match input.get("hook_event_name") {
        None => Ok(()),
        Some(Value::String(event)) if event == expected => Ok(()),
        Some(other) => Err(format!(
            "the hook is installed for event {other}, but `assent hook` answers {expected} only"
        )),
    }
}

/// The agent's session id, as the session label.
pub(super) fn session(input: &Value) -> Option<String> {
    input
        .get("session_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Where a shell call runs: its own directory argument (absolute, or below the agent's), else
/// the agent's `cwd`.
pub(super) fn run_dir(cwd: &str, dir: Option<&str>) -> String {
    match dir.filter(|d| !d.is_empty()) {
        Some(dir) if dir.starts_with('/') => dir.to_string(),
        Some(dir) => format!("{}/{dir}", cwd.trim_end_matches('/')),
        None => cwd.to_string(),
    }
}

/// A shell command run by the agent in `cwd` (which must be absolute).
pub(super) fn shell_call(command: &str, cwd: &str, input: &Value) -> Result<Call, String> {
    if command.trim().is_empty() {
        return Err("the shell command is empty".into());
    }
    if !cwd.starts_with('/') {
        return Err(format!("the working directory {cwd:?} is not absolute"));
    }
    Ok(Call {
        subject: Subject::shell(command, cwd.to_string()),
        origin: Origin::Agent,
        context: Context {
            session: session(input),
            ..Context::default()
        },
        rewritable: None,
    })
}

/// A tool call: the tool's input is its arguments. Arguments too large for one packet are
/// shortened and the call held for a person, never passed on unchecked.
pub(super) fn tool_call(name: &str, args: &Value, input: &Value) -> Call {
    let mut args_json = args.to_string();
    let mut requires_confirmation = None;
    if args_json.len() > MAX_TOOL_ARGS {
        args_json = shorten(args).to_string();
        requires_confirmation = Some(true);
        if args_json.len() > MAX_TOOL_ARGS {
            args_json = Value::String("(arguments too large to show)".into()).to_string();
        }
    }
    Call {
        subject: Subject::Tool {
            name: name.to_string(),
            args_json,
            cwd: input
                .get("cwd")
                .and_then(Value::as_str)
                .filter(|cwd| cwd.starts_with('/'))
                .map(str::to_string),
        },
        origin: Origin::Tool,
        context: Context {
            session: session(input),
            requires_confirmation,
            ..Context::default()
        },
        rewritable: None,
    }
}

/// `value` with every long string cut to [`SHORTENED_STRING`] bytes and marked.
pub(super) fn shorten(value: &Value) -> Value {
    match value {
        Value::String(text) if text.len() > SHORTENED_STRING => {
            let mut end = SHORTENED_STRING;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            Value::String(format!(
                "{}… [{} more bytes]",
                &text[..end],
                text.len() - end
            ))
        }
        Value::Array(items) => Value::Array(items.iter().map(shorten).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), shorten(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The `PreToolUse` answer Claude Code and Codex read, written straight from its parts (no
/// JSON tree built and printed: this runs before every tool call).
#[derive(Serialize)]
struct PreToolUse<'a> {
    #[serde(rename = "hookSpecificOutput")]
    specific: Specific<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Specific<'a> {
    hook_event_name: &'static str,
    permission_decision: &'a str,
    permission_decision_reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_input: Option<&'a Value>,
}

fn pre_tool_use(decision: &str, reason: &str, updated_input: Option<&Value>) -> String {
    let output = PreToolUse {
        specific: Specific {
            hook_event_name: "PreToolUse",
            permission_decision: decision,
            permission_decision_reason: one_line(reason),
            updated_input,
        },
    };
    // Strings and a JSON value only: serialising cannot fail; were it to, a deny.
    serde_json::to_string(&output).unwrap_or_else(|_| {
        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"assent: the hook could not write its answer"}}"#.into()
    })
}

/// A PreToolUse allow (or ask) that hands the agent `input` to run instead of the call's own
/// (Claude Code's `updatedInput`, which it takes with either, and shows in its prompt).
pub(super) fn rewritten_output(decision: &str, reason: &str, input: &Value) -> String {
    pre_tool_use(decision, reason, Some(input))
}

/// A PreToolUse allow, deny or ask.
pub(super) fn pre_tool_use_output(decision: &str, reason: &str) -> String {
    pre_tool_use(decision, reason, None)
}
