//! `assent explain --batch`: exactly one JSON line out for every line in, in order, whatever the
//! line holds.
//!
//! A line that cannot be explained (empty, not UTF-8, longer than one message, not JSON, not a
//! command or tool call, refused by the daemon, or lost with the connection) gets a record of
//! its own with `kind` and `error`, and the batch goes on with the next line, so a consumer can
//! zip input and output by position. Input is read as bytes with a cap of one message per line
//! ([`CappedLines`]): no line can end the batch or make it hold more than one message's worth.
//!
//! The connection: a request that could not be sent (the daemon closed the connection since
//! its last answer: it restarted, or closed after refusing a packet) is sent again once on a new
//! connection; an explain holds and records nothing, so that is safe. A request that was sent
//! and got no answer is not sent again, since the line itself may have cost the connection: it
//! gets a `connection_lost` record and the next line goes on a new connection. When no new
//! connection can be made, every line left gets an `unavailable` record and no more attempts
//! are made, so a daemon that is gone costs one connect, not one per line.

use std::io::Write;
use std::path::PathBuf;

use assent_client::paths::resolve_socket;
use assent_client::protocol::{
    Context, ErrorKind, ExplainRequest, Explanation, MAX_MESSAGE_LEN, Origin, Request, Response,
    Subject, WireError,
};
use assent_client::{CodecError, Connection, Error, codec};
use serde::{Deserialize, Serialize};

use super::super::lines::{CappedLines, HEAD_KEPT, Line};
use super::super::{exit, messages};
use super::json_line;

/// The longest input line taken. A request is never smaller than the command it carries, so a
/// longer line could not be sent whatever it holds; it is skipped unread.
pub const MAX_LINE: usize = MAX_MESSAGE_LEN;

/// One input line.
#[derive(Debug, Deserialize)]
struct BatchInput {
    /// A shell command line…
    #[serde(default)]
    command: Option<String>,
    /// …or a tool call: its name and arguments.
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    args: Option<serde_json::Value>,
    #[serde(default)]
    origin: Option<Origin>,
    #[serde(default)]
    cwd: Option<String>,
}

/// What a line asks for when it does not say: the flags' origin and directory.
#[derive(Debug)]
pub struct Defaults {
    /// The `--cwd` flag or the current directory.
    pub cwd: String,
    /// The `--origin` flag.
    pub origin: Origin,
}

/// One parsed line, ready to send.
struct Ask {
    /// The command, or `tool NAME ARGS`, as the output shows it.
    label: String,
    origin: Origin,
    /// The encoded request.
    packet: Vec<u8>,
}

/// Why a line has no explanation.
#[derive(Debug)]
struct Failure {
    /// A stable name, for programs.
    kind: &'static str,
    /// What went wrong and what to do, for people.
    message: String,
}

/// The output line of a line that has no explanation.
#[derive(Debug, Serialize)]
struct ErrorRecord<'a> {
    line: u64,
    input: &'a str,
    kind: &'a str,
    error: &'a str,
}

/// `assent explain --batch`: read stdin to its end, print one record per line. Exit 0 when
/// every line was explained, 1 when any has an error record, 126 when assentd could not be
/// reached (at the start, or again after losing it).
pub fn run(socket: Option<PathBuf>, defaults: &Defaults) -> u8 {
    let path = match resolve_socket(socket.as_deref()) {
        Ok(path) => path,
        Err(error) => {
            messages::error(&error);
            return exit::UNAVAILABLE;
        }
    };
    let conn = match Connection::connect(&path) {
        Ok(conn) => conn,
        Err(error) => {
            messages::error(&error);
            return exit::UNAVAILABLE;
        }
    };
    let mut gate = Gate {
        path,
        conn: Some(conn),
        gone: None,
    };
    let mut lines = CappedLines::new(std::io::stdin().lock(), MAX_LINE);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut failed = false;
    let mut number: u64 = 0;
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                let _ = out.flush();
                messages::say(&format!(
                    "could not read stdin after line {number}: {error}"
                ));
                return exit::USAGE;
            }
        };
        number += 1;
        let record = match explain_line(&mut gate, &line, defaults) {
            Ok((ask, explanation)) => json_line(Some(number), &ask.label, ask.origin, &explanation),
            Err(failure) => {
                failed = true;
                error_record(number, &line, &failure)
            }
        };
        // Flushed line by line: a consumer may wait for each answer before writing more.
        if let Err(error) = writeln!(out, "{record}").and_then(|()| out.flush()) {
            messages::say(&format!(
                "could not write the answer to line {number}: {error}; stopped"
            ));
            return exit::DENY;
        }
    }
    if gate.gone.is_some() {
        exit::UNAVAILABLE
    } else if failed {
        exit::DENY
    } else {
        exit::ALLOW
    }
}

fn explain_line(
    gate: &mut Gate,
    line: &Line<'_>,
    defaults: &Defaults,
) -> Result<(Ask, Explanation), Failure> {
    let ask = parse(line, defaults)?;
    let explanation = gate.explain(&ask.packet)?;
    Ok((ask, explanation))
}

/// Check a line and encode its request; every way it can be unfit is a [`Failure`].
fn parse(line: &Line<'_>, defaults: &Defaults) -> Result<Ask, Failure> {
    let bytes = match line {
        Line::Whole(bytes) => bytes,
        Line::TooLong { len, .. } => {
            return Err(Failure::new(
                "too_large",
                format!(
                    "the line is {len} bytes, over the limit of {MAX_LINE} (the largest message assentd takes): skipped unread; shorten it, or explain the command on its own with `assent explain`"
                ),
            ));
        }
    };
    let text = std::str::from_utf8(bytes).map_err(|error| {
        Failure::new(
            "not_utf8",
            format!(
                "the line is not UTF-8 (byte {} is not): JSON Lines input must be UTF-8; convert it, for example with iconv",
                error.valid_up_to() + 1
            ),
        )
    })?;
    if text.trim().is_empty() {
        return Err(Failure::new(
            "empty",
            "an empty line: nothing to explain; remove it, or write a JSON object such as {\"command\": \"ls\"}".into(),
        ));
    }
    let input: BatchInput = serde_json::from_str(text).map_err(|error| json_failure(&error))?;
    let (label, subject, origin) = match (input.command, input.tool) {
        (Some(command), None) => {
            let cwd = input.cwd.unwrap_or_else(|| defaults.cwd.clone());
            let origin = input.origin.unwrap_or(defaults.origin);
            let subject = Subject::shell(&command, cwd);
            (command, subject, origin)
        }
        (None, Some(name)) => {
            let args_json = input
                .args
                .unwrap_or_else(|| serde_json::json!({}))
                .to_string();
            let label = format!("tool {name} {args_json}");
            let cwd = Some(input.cwd.unwrap_or_else(|| defaults.cwd.clone()));
            let subject = Subject::Tool {
                name,
                args_json,
                cwd,
            };
            (label, subject, Origin::Tool)
        }
        (command, _) => {
            let which = if command.is_some() {
                "both \"command\" and \"tool\""
            } else {
                "neither \"command\" nor \"tool\""
            };
            return Err(Failure::new(
                "bad_line",
                format!(
                    "the line has {which}: give {{\"command\": …}} for a shell line or {{\"tool\": NAME, \"args\": {{…}}}} for a tool call"
                ),
            ));
        }
    };
    let request = Request::Explain(ExplainRequest {
        subject,
        origin,
        context: Context::default(),
    });
    let packet = codec::encode_request(&request).map_err(|error| {
        Failure::new(
            "too_large",
            format!("the request for this line does not fit one message ({error}): not sent; shorten the tool's arguments"),
        )
    })?;
    Ok(Ask {
        label,
        origin,
        packet,
    })
}

/// A line serde_json would not take: too deeply nested, not JSON, or not our shape.
fn json_failure(error: &serde_json::Error) -> Failure {
    let text = error.to_string();
    // The position is always on line 1 of a one-line document; say the column alone.
    let what = match text.rsplit_once(" at line ") {
        Some((what, _)) if error.line() != 0 => what,
        _ => text.as_str(),
    };
    let column = error.column();
    if what == "recursion limit exceeded" {
        return Failure::new(
            "too_deep",
            format!(
                "the JSON nests deeper than 128 levels (at column {column}): not sent; flatten the tool's arguments"
            ),
        );
    }
    match error.classify() {
        serde_json::error::Category::Data => Failure::new(
            "bad_line",
            format!(
                "not a command or tool call ({what}, at column {column}): give {{\"command\": …, \"origin\": …, \"cwd\": …}} or {{\"tool\": NAME, \"args\": {{…}}}}"
            ),
        ),
        _ => Failure::new(
            "bad_json",
            format!(
                "not valid JSON ({what}, at column {column}): give one JSON object per line, such as {{\"command\": \"ls\"}}"
            ),
        ),
    }
}

fn error_record(number: u64, line: &Line<'_>, failure: &Failure) -> String {
    let (bytes, cut) = match line {
        Line::Whole(bytes) => (*bytes, bytes.len() > HEAD_KEPT),
        Line::TooLong { head, .. } => (*head, true),
    };
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let mut input = String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD_KEPT)]).into_owned();
    if cut {
        input.push('…');
    }
    let record = ErrorRecord {
        line: number,
        input: &input,
        kind: failure.kind,
        error: &failure.message,
    };
    serde_json::to_string(&record).expect("a record of strings and a number always serializes")
}

impl Failure {
    fn new(kind: &'static str, message: String) -> Failure {
        Failure { kind, message }
    }

    fn refused(wire: &WireError) -> Failure {
        Failure::new(
            wire.kind.as_str(),
            format!("assentd refused this line: {}", wire.message),
        )
    }
}

/// The batch's connection, made again when the daemon drops it.
struct Gate {
    path: PathBuf,
    conn: Option<Connection>,
    /// Why assentd cannot be reached any more; then every line left is `unavailable`.
    gone: Option<String>,
}

impl Gate {
    /// The connection, or a new one when the last was lost.
    fn conn(&mut self) -> Result<&mut Connection, Failure> {
        if let Some(why) = &self.gone {
            return Err(unavailable(why));
        }
        let conn = match self.conn.take() {
            Some(conn) => conn,
            None => Connection::connect(&self.path).map_err(|error| {
                self.give_up(format!("{error}; then run the lines from here again"))
            })?,
        };
        Ok(self.conn.insert(conn))
    }

    /// Stop trying: this line and every one after it are `unavailable`.
    fn give_up(&mut self, why: String) -> Failure {
        self.conn = None;
        let failure = unavailable(&why);
        self.gone = Some(why);
        failure
    }

    /// Send one request and read its answer.
    fn explain(&mut self, packet: &[u8]) -> Result<Explanation, Failure> {
        if self.conn()?.send_raw(packet).is_err() {
            // Not delivered: the daemon closed the connection after its last answer.
            self.conn = None;
            if let Err(error) = self.conn()?.send_raw(packet) {
                return Err(self.give_up(format!("{error}; then run the lines from here again")));
            }
        }
        let received = self.conn()?.recv();
        self.answer(received)
    }

    fn answer(&mut self, received: Result<Response, Error>) -> Result<Explanation, Failure> {
        match received {
            Ok(Response::Explained(explanation)) => Ok(explanation),
            Ok(Response::Error(wire)) => Err(self.refused(&wire)),
            Ok(_) => Err(Failure::new(
                "bad_reply",
                "assentd answered with something other than an explanation: install the assent client and assentd from the same release".into(),
            )),
            Err(Error::Codec(CodecError::Version { theirs })) => Err(self.give_up(format!(
                "assentd speaks protocol {theirs}, this client another: install the assent client and assentd from the same release"
            ))),
            Err(Error::Codec(error)) => Err(Failure::new(
                "bad_reply",
                format!("could not understand assentd's answer: {error}"),
            )),
            Err(error) => {
                self.conn = None;
                Err(Failure::new(
                    "connection_lost",
                    format!(
                        "the connection was lost while assentd explained this line ({error}); the batch went on over a new connection. Explain the line again on its own: if it fails again, it is the cause (please report it)"
                    ),
                ))
            }
        }
    }

    fn refused(&mut self, wire: &WireError) -> Failure {
        match wire.kind {
            ErrorKind::VersionMismatch => self.give_up(format!(
                "{}: install the assent client and assentd from the same release",
                wire.message
            )),
            // assentd closes the connection after these; the next line goes on a new one.
            ErrorKind::BadMessage
            | ErrorKind::TooLarge
            | ErrorKind::Identity
            | ErrorKind::LimitReached => {
                self.conn = None;
                Failure::refused(wire)
            }
            _ => Failure::refused(wire),
        }
    }
}

fn unavailable(why: &str) -> Failure {
    Failure::new("unavailable", format!("not explained: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(line: &[u8]) -> &'static str {
        let defaults = Defaults {
            cwd: "/tmp".into(),
            origin: Origin::Agent,
        };
        match parse(&Line::Whole(line), &defaults) {
            Ok(_) => "ok",
            Err(failure) => failure.kind,
        }
    }

    #[test]
    fn each_unfit_line_has_its_kind() {
        let deep = format!(
            r#"{{"tool":"t","args":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let table: &[(&[u8], &str)] = &[
            (br#"{"command":"ls"}"#, "ok"),
            (br#"{"tool":"web.search","args":{"query":"x"}}"#, "ok"),
            (br#"{"tool":"web.search"}"#, "ok"),
            (b"", "empty"),
            (b" \t\r", "empty"),
            (b"{\"command\":\"ls \xff\"}", "not_utf8"),
            (br#"{"command":"ls""#, "bad_json"),
            (b"ls -la", "bad_json"),
            (deep.as_bytes(), "too_deep"),
            (br#""ls""#, "bad_line"),
            (br#"{"command":5}"#, "bad_line"),
            (br#"{"command":"ls","origin":"root"}"#, "bad_line"),
            (br#"{"command":"ls","tool":"t"}"#, "bad_line"),
            (br#"{"cwd":"/"}"#, "bad_line"),
        ];
        for (line, want) in table {
            assert_eq!(kind_of(line), *want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn a_request_over_one_message_is_not_sent() {
        // Numbers are written out again longer (`1e9` as `1000000000.0`): a line within the
        // limit can still make a request over it.
        let numbers = vec!["1e9"; MAX_LINE / 4 - 10].join(",");
        let big = format!(r#"{{"tool":"t","args":[{numbers}]}}"#);
        assert!(big.len() <= MAX_LINE);
        assert_eq!(kind_of(big.as_bytes()), "too_large");
        let too_long = Line::TooLong {
            head: b"{",
            len: MAX_LINE as u64 + 1,
        };
        let defaults = Defaults {
            cwd: "/".into(),
            origin: Origin::Agent,
        };
        assert!(matches!(parse(&too_long, &defaults), Err(f) if f.kind == "too_large"));
    }

    #[test]
    fn an_error_record_shows_the_input_lossily_and_cut() {
        let failure = Failure::new("empty", "why".into());
        let record: serde_json::Value =
            serde_json::from_str(&error_record(7, &Line::Whole(b"a\xffb\r"), &failure))
                .expect("a record is JSON");
        assert_eq!(
            record,
            serde_json::json!({"line": 7, "input": "a\u{fffd}b", "kind": "empty", "error": "why"})
        );
        let long = vec![b'z'; HEAD_KEPT + 10];
        let record: serde_json::Value =
            serde_json::from_str(&error_record(1, &Line::Whole(&long), &failure))
                .expect("a record is JSON");
        let shown = record["input"].as_str().expect("input is a string");
        assert_eq!(shown, format!("{}…", "z".repeat(HEAD_KEPT)));
    }
}
