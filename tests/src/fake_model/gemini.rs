//! The fake model's Gemini API (Gemini CLI through `GOOGLE_GEMINI_BASE_URL`):
//! `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` and `:generateContent`.
//!
//! A request's `contents` are the conversation: `model` turns carry `functionCall` parts, and
//! the user turn after one carries the matching `functionResponse`. A streamed reply is one
//! server-sent event, `data: GenerateContentResponse`, with the step's one part (a
//! `functionCall` or text) and `finishReason: STOP`; the whole reply is the same document.

use serde_json::{Value, json};

use super::{Recorded, Step};

impl Step {
    /// Gemini CLI's shell call (`run_shell_command`) of `command`.
    pub fn gemini_shell(command: &str) -> Step {
        Step::Tool {
            name: "run_shell_command".into(),
            input: json!({"command": command, "description": "a scripted step"}),
        }
    }

    /// Gemini CLI's `write_file` of `content` to `file_path`.
    pub fn gemini_write(file_path: &str, content: &str) -> Step {
        Step::Tool {
            name: "write_file".into(),
            input: json!({"file_path": file_path, "content": content}),
        }
    }
}

/// Whether `request` is a Gemini model call (streamed or not).
pub(super) fn is_call(request: &Recorded) -> bool {
    request.method == "POST"
        && (request.path.contains(":streamGenerateContent")
            || request.path.contains(":generateContent"))
}

/// Whether the request offers the model tools: a turn of the scripted conversation (Gemini
/// CLI's side calls, such as choosing a model or checking for a loop, offer none).
pub(super) fn offers_tools(request: &Recorded) -> bool {
    request.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|tool| {
            tool["functionDeclarations"]
                .as_array()
                .is_some_and(|d| !d.is_empty())
        })
}

/// The parts of the conversation's turns by `role`, in order.
fn parts<'a>(request: &'a Recorded, role: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    request.body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |turn| turn["role"] == role)
        .filter_map(|turn| turn["parts"].as_array())
        .flatten()
}

/// How many function calls the model has made so far.
pub(super) fn tool_calls(request: &Recorded) -> usize {
    parts(request, "model")
        .filter(|part| part.get("functionCall").is_some())
        .count()
}

/// What the agent answered to the `n`th function call: its `functionResponse.response`, the
/// `output` or `error` string when it has one, else the whole response as JSON.
pub(super) fn result_of(request: &Recorded, n: usize) -> Option<String> {
    let response = parts(request, "user")
        .filter_map(|part| part.get("functionResponse"))
        .nth(n)?;
    let body = &response["response"];
    Some(
        ["output", "error"]
            .iter()
            .find_map(|key| body[*key].as_str())
            .map_or_else(|| body.to_string(), str::to_string),
    )
}

/// The reply to `request` with `step` (numbered `n`): the content type and body.
pub(super) fn reply(request: &Recorded, step: &Step, n: usize) -> (&'static str, String) {
    let part = match step {
        Step::Tool { name, input } => {
            json!({"functionCall": {"id": format!("call_fake_{n}"), "name": name, "args": input}})
        }
        Step::Text(text) => json!({"text": text}),
    };
    let response = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-fake",
        "responseId": format!("resp_fake_{n}"),
    });
    if request.path.contains(":streamGenerateContent") {
        ("text/event-stream", format!("data: {response}\r\n\r\n"))
    } else {
        ("application/json", response.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(contents: Value) -> Recorded {
        Recorded {
            method: "POST".into(),
            path: "/v1beta/models/gemini-fake:streamGenerateContent?alt=sse".into(),
            body: json!({"contents": contents,
                "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}]}),
        }
    }

    /// The next step is counted from the model's function calls, and each call's answer is
    /// read from the functionResponse that matches it in order.
    #[test]
    fn calls_are_counted_and_answers_read_in_order() {
        let call = |name: &str| json!({"role": "model", "parts": [{"functionCall": {"name": name, "args": {}}}]});
        let answer = |output: Value| json!({"role": "user", "parts": [{"functionResponse": {"name": "x", "response": output}}]});
        let go = json!({"role": "user", "parts": [{"text": "go"}]});
        let first = request(json!([go]));
        assert!(is_call(&first) && offers_tools(&first));
        assert_eq!(tool_calls(&first), 0);
        let later = request(json!([
            go,
            call("a"),
            answer(json!({"output": "listed"})),
            call("b"),
            answer(json!({"error": "blocked"})),
        ]));
        assert_eq!(tool_calls(&later), 2);
        assert_eq!(result_of(&later, 0).as_deref(), Some("listed"));
        assert_eq!(result_of(&later, 1).as_deref(), Some("blocked"));
        assert_eq!(result_of(&later, 2), None);
    }

    /// A streamed reply is one `data:` event holding the step's part.
    #[test]
    fn a_streamed_reply_is_one_event_with_the_call() {
        let (kind, body) = reply(&request(json!([])), &Step::gemini_shell("ls"), 4);
        assert_eq!(kind, "text/event-stream");
        let data = body
            .strip_prefix("data: ")
            .and_then(|b| b.strip_suffix("\r\n\r\n"))
            .expect("one event");
        let response: Value = serde_json::from_str(data).expect("JSON");
        let call = &response["candidates"][0]["content"]["parts"][0]["functionCall"];
        assert_eq!(call["name"], "run_shell_command");
        assert_eq!(call["args"]["command"], "ls");
        assert_eq!(call["id"], "call_fake_4");
    }
}
