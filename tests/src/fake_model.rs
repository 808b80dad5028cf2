//! A scripted stand-in for the model APIs, so the real Claude Code, Codex and Gemini CLI can be
//! driven with no network and no model.
//!
//! It listens on 127.0.0.1 only and speaks enough HTTP/1.1 (one request per connection,
//! `Connection: close`) for three APIs. Anthropic's `POST /v1/messages` with `stream: true`: the
//! server-sent events `message_start`, `content_block_start` / `_delta` / `_stop` for a text or
//! `tool_use` block, `message_delta` with the stop reason, `message_stop`. OpenAI's
//! `POST /v1/responses` (Codex through a custom provider): `response.created`,
//! `response.output_item.done` with a `message` or a `function_call`, `response.completed`.
//! Gemini's `generateContent` and `streamGenerateContent?alt=sse` (`fake_model/gemini.rs`). The conversation is a script of
//! [`Step`]s: the reply to a request is the step numbered by how many tool calls the
//! request already carries, so a retried request gets the same answer and the step after the
//! last tool call sees that call's `tool_result`. Requests that carry no tools (Claude Code's
//! side calls: a title, a quota probe) get a short text and do not advance the script.
//!
//! Every request is recorded ([`FakeModel::requests`]), which is how a test reads what the
//! agent sent the model: the hook's reason, a command's output. Anything else it is asked
//! (`count_tokens`, a `HEAD /`) gets a harmless answer and is recorded too, so a new agent
//! version that calls somewhere new shows up in the log rather than hanging.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

mod gemini;

/// One assistant turn of the script.
#[derive(Debug, Clone)]
pub enum Step {
    /// Call the tool `name` with `input`; the turn stops with `tool_use`.
    Tool { name: String, input: Value },
    /// Say `text` and end the turn.
    Text(String),
}

impl Step {
    /// A `Bash` call of `command`.
    pub fn bash(command: &str) -> Step {
        Step::Tool {
            name: "Bash".into(),
            input: json!({"command": command, "description": "a scripted step"}),
        }
    }

    /// Codex's shell call (`exec_command`) of `command`, in a plain shell: a login shell
    /// reads `/etc/profile`, whose `PATH` would put the real `rm` before the tests' fake one.
    pub fn exec(command: &str) -> Step {
        Step::Tool {
            name: "exec_command".into(),
            input: json!({"cmd": command, "login": false}),
        }
    }

    /// A `Read` of the absolute path `file_path` (Claude Code's `Write` replaces only a file
    /// it has read).
    pub fn read(file_path: &str) -> Step {
        Step::Tool {
            name: "Read".into(),
            input: json!({"file_path": file_path}),
        }
    }

    /// A `Write` of `content` to the absolute path `file_path`.
    pub fn write(file_path: &str, content: &str) -> Step {
        Step::Tool {
            name: "Write".into(),
            input: json!({"file_path": file_path, "content": content}),
        }
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`, `GET`, …
    pub method: String,
    /// The request target, query included.
    pub path: String,
    /// The body, parsed when it is JSON (else `Null`).
    pub body: Value,
}

impl Recorded {
    /// Whether this is a turn of the scripted conversation (a Messages or Responses call with
    /// tools).
    pub fn is_turn(&self) -> bool {
        if gemini::is_call(self) {
            return gemini::offers_tools(self);
        }
        (self.path.starts_with("/v1/messages") || self.is_responses())
            && !self.path.contains("count_tokens")
            && self.body["tools"].as_array().is_some_and(|t| !t.is_empty())
    }

    fn is_responses(&self) -> bool {
        self.method == "POST" && self.path.trim_end_matches('/').ends_with("/responses")
    }

    /// What the agent reported back for the tool call of step `n`: the `tool_result` (Messages)
    /// or `function_call_output` (Responses) that answers it, as text.
    pub fn result_of(&self, n: usize) -> Option<String> {
        if gemini::is_call(self) {
            return gemini::result_of(self, n);
        }
        let (anthropic, openai) = (format!("toolu_fake_{n}"), format!("call_fake_{n}"));
        let blocks = self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten();
        let items = self.body["input"].as_array().into_iter().flatten();
        let found = blocks
            .filter(|b| b["type"] == "tool_result" && b["tool_use_id"] == anthropic.as_str())
            .map(|b| &b["content"])
            .chain(
                items
                    .filter(|i| {
                        i["type"] == "function_call_output" && i["call_id"] == openai.as_str()
                    })
                    .map(|i| &i["output"]),
            )
            .next()?;
        Some(match found {
            Value::String(text) => text.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        })
    }

    /// How many tool calls the conversation so far holds: the number of the step to play next.
    pub fn tool_calls(&self) -> usize {
        if gemini::is_call(self) {
            return gemini::tool_calls(self);
        }
        let messages = self.body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "assistant")
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|block| block["type"] == "tool_use");
        let responses = self.body["input"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|item| item["type"] == "function_call");
        messages.count() + responses.count()
    }
}

/// The server; it stops accepting when dropped (its thread ends with the test process).
pub struct FakeModel {
    url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl FakeModel {
    /// Serve `script` on a free port of 127.0.0.1.
    pub fn start(script: Vec<Step>) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("127.0.0.1 has a free port");
        let port = listener
            .local_addr()
            .expect("a bound listener has an address")
            .port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(script);
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (seen, script) = (Arc::clone(&seen), Arc::clone(&script));
                std::thread::spawn(move || {
                    let _ = serve(stream, &seen, &script);
                });
            }
        });
        FakeModel {
            url: format!("http://127.0.0.1:{port}"),
            requests,
        }
    }

    /// The base URL for `ANTHROPIC_BASE_URL`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The conversation's turns so far (see [`Recorded::is_turn`]).
    pub fn turns(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(Recorded::is_turn)
            .collect()
    }

    /// One line per request (method, path, model), for a failing test's message.
    pub fn summary(&self) -> String {
        self.requests()
            .iter()
            .map(|r| format!("{} {} {}", r.method, r.path, r.body["model"]))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Read one request from `stream`, record it, answer it, close.
fn serve(stream: TcpStream, seen: &Mutex<Vec<Recorded>>, script: &[Step]) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let (mut length, mut chunked) = (0usize, false);
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut body = vec![0; length.min(64 << 20)];
        reader.read_exact(&mut body)?;
        body
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let recorded = Recorded { method, path, body };
    if let Ok(mut seen) = seen.lock() {
        seen.push(recorded.clone());
    }
    respond(stream, &recorded, script)
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let size =
            usize::from_str_radix(line.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        if size == 0 || body.len() + size > 64 << 20 {
            return Ok(body);
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        line.clear();
        reader.read_line(&mut line)?;
    }
}

fn respond(mut stream: TcpStream, request: &Recorded, script: &[Step]) -> std::io::Result<()> {
    let (status, kind, body) = if request.path.starts_with("/v1/messages/count_tokens") {
        (
            "200 OK",
            "application/json",
            json!({"input_tokens": 10}).to_string(),
        )
    } else if gemini::is_call(request) {
        // A side call (routing, loop checks) wants JSON back: an empty object.
        let (n, step) = next_step(request, script, "{}");
        let (kind, body) = gemini::reply(request, &step, n);
        ("200 OK", kind, body)
    } else if request.is_responses() {
        let n = request.tool_calls();
        let step = script
            .get(n)
            .cloned()
            .unwrap_or_else(|| Step::Text("Done.".into()));
        ("200 OK", "text/event-stream", responses_events(&step, n))
    } else if request.method == "POST" && request.path.starts_with("/v1/messages") {
        let (n, step) = next_step(request, script, "Scripted side answer");
        let model = request.body["model"].as_str().unwrap_or("claude-fake");
        if request.body["stream"] == true {
            ("200 OK", "text/event-stream", events(&step, model, n))
        } else {
            (
                "200 OK",
                "application/json",
                message(&step, model, n).to_string(),
            )
        }
    } else if request.method == "HEAD" || request.method == "GET" {
        ("200 OK", "application/json", "{}".to_string())
    } else {
        let error = json!({"type": "error", "error": {"type": "not_found_error", "message": "not scripted"}});
        ("404 Not Found", "application/json", error.to_string())
    };
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nrequest-id: req_fake\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if request.method != "HEAD" {
        stream.write_all(body.as_bytes())?;
    }
    stream.flush()
}

/// The step a turn plays and its number (how many tool calls came before), `Done.` past the
/// script's end; a side call gets `side` and does not advance the script.
fn next_step(request: &Recorded, script: &[Step], side: &str) -> (usize, Step) {
    if !request.is_turn() {
        return (usize::MAX, Step::Text(side.into()));
    }
    let done = request.tool_calls();
    let step = script
        .get(done)
        .cloned()
        .unwrap_or_else(|| Step::Text("Done.".into()));
    (done, step)
}

/// The content block and stop reason of step `n`.
fn block(step: &Step, n: usize) -> (Value, &'static str) {
    match step {
        Step::Tool { name, input } => (
            json!({"type": "tool_use", "id": format!("toolu_fake_{n}"), "name": name, "input": input}),
            "tool_use",
        ),
        Step::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
    }
}

fn usage() -> Value {
    json!({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

/// A whole (non-streamed) message. Each step's message and tool call has an id of its own:
/// Claude Code merges the parts of a message by its id.
fn message(step: &Step, model: &str, n: usize) -> Value {
    let (block, stop) = block(step, n);
    json!({"id": format!("msg_fake_{n}"), "type": "message", "role": "assistant", "model": model,
        "content": [block], "stop_reason": stop, "stop_sequence": null, "usage": usage()})
}

/// A streamed message: the events in order, each `event:` and `data:` lines.
fn events(step: &Step, model: &str, n: usize) -> String {
    let (block, stop) = block(step, n);
    let (start, delta) = match step {
        Step::Tool { name, input } => (
            json!({"type": "tool_use", "id": block["id"], "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
        ),
        Step::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
    };
    let mut empty = message(step, model, n);
    empty["content"] = json!([]);
    empty["stop_reason"] = Value::Null;
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": empty}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// A streamed Responses reply: the one output item, then the completed response.
fn responses_events(step: &Step, n: usize) -> String {
    let item = match step {
        Step::Tool { name, input } => json!({"type": "function_call", "id": format!("fc_fake_{n}"),
            "call_id": format!("call_fake_{n}"), "name": name, "arguments": input.to_string(),
            "status": "completed"}),
        Step::Text(text) => json!({"type": "message", "id": format!("msg_fake_{n}"),
            "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}),
    };
    let id = format!("resp_fake_{n}");
    let usage = json!({"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
        "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}});
    [
        json!({"type": "response.created", "response": {"id": id}}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": id, "usage": usage}}),
    ]
    .iter()
    .map(|data| {
        format!(
            "event: {}\ndata: {data}\n\n",
            data["type"].as_str().unwrap_or_default()
        )
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of a streamed step, in order, each `data:` one JSON document of that type.
    #[test]
    fn a_stream_is_the_messages_api_events_in_order() {
        let names = [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ];
        for (step, block, delta, stop) in [
            (Step::bash("ls"), "tool_use", "input_json_delta", "tool_use"),
            (Step::Text("hi".into()), "text", "text_delta", "end_turn"),
        ] {
            let stream = events(&step, "m", 3);
            let events: Vec<(&str, Value)> = stream
                .split("\n\n")
                .filter(|e| !e.is_empty())
                .map(|e| {
                    let (name, data) = e.split_once("\ndata: ").expect("event and data lines");
                    let name = name.strip_prefix("event: ").expect("an event line");
                    (name, serde_json::from_str(data).expect("JSON data"))
                })
                .collect();
            let got: Vec<&str> = events.iter().map(|(name, _)| *name).collect();
            assert_eq!(got, names);
            for (name, data) in &events {
                assert_eq!(data["type"], *name);
            }
            assert_eq!(events[0].1["message"]["id"], "msg_fake_3");
            assert_eq!(events[1].1["content_block"]["type"], block);
            assert_eq!(events[2].1["delta"]["type"], delta);
            assert_eq!(events[4].1["delta"]["stop_reason"], stop);
        }
        let input = &events(&Step::bash("ls"), "m", 0);
        assert!(
            input.contains(r#""partial_json":"{\"command\":\"ls\""#),
            "{input}"
        );
    }

    #[test]
    fn the_next_step_is_the_number_of_tool_calls_so_far() {
        let call =
            |id: &str| json!({"role": "assistant", "content": [{"type": "tool_use", "id": id}]});
        let result =
            json!({"role": "user", "content": [{"type": "tool_result", "content": "out"}]});
        for (messages, next) in [
            (json!([{"role": "user", "content": "go"}]), 0),
            (
                json!([{"role": "user", "content": "go"}, call("a"), result]),
                1,
            ),
            (json!([call("a"), result, call("b"), result]), 2),
        ] {
            let request = Recorded {
                method: "POST".into(),
                path: "/v1/messages".into(),
                body: json!({"messages": messages, "tools": [{"name": "Bash"}]}),
            };
            assert!(request.is_turn());
            assert_eq!(request.tool_calls(), next, "{messages}");
        }
    }
}
