//! `assent tool --batch`: several tool calls judged together (seed 003).
//!
//! Reads JSON Lines on stdin (bounded by one packet), sends one `CheckBatch`, and prints one
//! line per item. Held items share one batch token, which a person answers as a whole
//! (`assent approve TOKEN`) or item by item (`assent approve TOKEN --item N`). Exit 0 when
//! every item is allowed, 1 when any is denied, 2 when items are held and `--no-wait` was
//! given (the token is printed on stdout), 126 when the gate is unavailable.

use std::io::{Read, Write};
use std::path::PathBuf;

use assent_client::protocol::{
    BatchRequest, BatchVerdict, Context, Decided, Decision, MAX_BATCH_ITEMS, MAX_MESSAGE_LEN,
    Origin, Outcome, Request, Response, Subject, Verdict,
};
use serde::{Deserialize, Serialize};

use super::super::check::working_dir;
use super::super::{exit, messages, wait};
use super::ToolArgs;

/// One input line.
#[derive(Debug, Deserialize)]
struct Line {
    /// A tool call's name…
    #[serde(default)]
    tool: Option<String>,
    /// …and its arguments.
    #[serde(default)]
    args: Option<serde_json::Value>,
    /// Or a shell command line…
    #[serde(default)]
    command: Option<String>,
    /// …and where it runs (default: the current directory).
    #[serde(default)]
    cwd: Option<String>,
}

/// One output line of `--json`.
#[derive(Debug, Serialize)]
struct JsonItem<'a> {
    /// The item's number, from 1 (`--item N`).
    item: u32,
    /// The command or tool call.
    subject: &'a str,
    /// The final decision (`confirm` while held, with `--no-wait`).
    decision: Decision,
    /// The daemon's verdict on it.
    verdict: &'a Verdict,
    /// The outcome of a held item.
    decided: Option<&'a Decided>,
    /// The batch token, for a held item.
    token: Option<&'a str>,
}

/// Read and parse the batch: each item's summary and subject.
/// The batch on stdin, each line a subject; a line without `cwd` is in `cwd` (`--cwd`, else
/// the current directory).
fn read_batch(cwd: Option<&std::path::Path>) -> Result<Vec<(String, Subject)>, u8> {
    let mut text = String::new();
    if let Err(error) = std::io::stdin()
        .take(MAX_MESSAGE_LEN as u64 + 1)
        .read_to_string(&mut text)
    {
        messages::say(&format!("could not read the batch on stdin: {error}"));
        return Err(exit::USAGE);
    }
    if text.len() > MAX_MESSAGE_LEN {
        messages::say(&format!(
            "the batch is larger than {MAX_MESSAGE_LEN} bytes: not sent, not allowed"
        ));
        return Err(exit::DENY);
    }
    let mut items = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let usage = |why: String| {
            messages::say(&format!("line {}: {why}", number + 1));
            exit::USAGE
        };
        let line: Line = serde_json::from_str(raw).map_err(|e| usage(e.to_string()))?;
        let item = match (line.command, line.tool) {
            (Some(command), None) => {
                let cwd = match line.cwd {
                    Some(cwd) => cwd,
                    None => working_dir(cwd)?,
                };
                (command.clone(), Subject::shell(&command, cwd))
            }
            (None, Some(name)) => {
                let args_json = line
                    .args
                    .unwrap_or_else(|| serde_json::json!({}))
                    .to_string();
                let cwd = match line.cwd {
                    Some(cwd) => cwd,
                    None => working_dir(cwd)?,
                };
                (
                    format!("tool {name} {args_json}"),
                    Subject::Tool {
                        name,
                        args_json,
                        cwd: Some(cwd),
                    },
                )
            }
            _ => {
                return Err(usage(
                    "each line needs either \"tool\" (with \"args\") or \"command\"".into(),
                ));
            }
        };
        items.push(item);
    }
    if items.is_empty() {
        messages::say("the batch is empty: give one JSON line per tool call on stdin");
        return Err(exit::USAGE);
    }
    if items.len() > MAX_BATCH_ITEMS {
        messages::say(&format!(
            "a batch carries at most {MAX_BATCH_ITEMS} items, not {}",
            items.len()
        ));
        return Err(exit::USAGE);
    }
    Ok(items)
}

/// `assent tool --batch`.
pub fn batch(socket: Option<PathBuf>, args: ToolArgs) -> u8 {
    let items = match read_batch(args.cwd.as_deref()) {
        Ok(items) => items,
        Err(code) => return code,
    };
    let mut conn = match super::super::connect(socket) {
        Ok(conn) => conn,
        Err(code) => return code,
    };
    let (summaries, subjects): (Vec<String>, Vec<Subject>) = items.into_iter().unzip();
    let request = Request::CheckBatch(BatchRequest {
        subjects,
        origin: Origin::Tool,
        context: Context {
            session: args.session,
            requires_confirmation: args.requires_confirmation,
            confidence: args.confidence,
            prompt: false,
            agent: None,
            confines: false,
            grant: false,
            asks_when_held: false,
        },
        wait: !args.no_wait,
    });
    let verdict = match conn.request(&request) {
        Ok(Response::BatchVerdict(verdict)) if verdict.items.len() == summaries.len() => verdict,
        Ok(other) => {
            messages::say(&format!("unexpected reply: {other:?}"));
            return exit::UNAVAILABLE;
        }
        Err(assent_client::Error::Refused(error)) => {
            // The daemon refused to judge (bad input, a limit): nothing is allowed.
            messages::say(&format!("refused: {error}"));
            return exit::DENY;
        }
        Err(error) => {
            messages::error(&error);
            return exit::UNAVAILABLE;
        }
    };
    let Some(token) = verdict.token.clone() else {
        return report(&summaries, &verdict, None, args.json);
    };
    if args.no_wait {
        report(&summaries, &verdict, None, args.json);
        println!("{token}");
        return exit::HELD;
    }
    if !args.json {
        say_items(&summaries, &verdict, None);
    }
    let another = verdict.items.iter().any(|item| item.another_answers);
    match wait::wait_batch(
        &mut conn,
        &token,
        verdict.expires_in_ms,
        !args.json,
        another,
    ) {
        wait::Waited::Decided(decided) if decided.len() == summaries.len() => {
            report(&summaries, &verdict, Some(&decided), args.json)
        }
        wait::Waited::Decided(decided) => {
            messages::say(&format!(
                "the gate answered {} items for a batch of {}: not allowed",
                decided.len(),
                summaries.len()
            ));
            exit::DENY
        }
        wait::Waited::Cancelled => exit::CANCELLED,
        wait::Waited::Lost(error) => {
            messages::error(&error);
            messages::say("the gate went away while the batch was held: not allowed");
            exit::UNAVAILABLE
        }
    }
}

/// Print every item's outcome and return the exit code: 0 when all are allowed, else 1 (2 is
/// the caller's, for a batch left held).
fn report(
    summaries: &[String],
    verdict: &BatchVerdict,
    decided: Option<&[Decided]>,
    json: bool,
) -> u8 {
    let mut all_allowed = true;
    let mut out = std::io::stdout().lock();
    for (index, (summary, item)) in summaries.iter().zip(&verdict.items).enumerate() {
        let outcome = decided.map(|d| &d[index]);
        let decision = final_decision(item, verdict.token.as_deref(), outcome);
        all_allowed &= decision == Decision::Allow;
        if json {
            let line = JsonItem {
                item: u32::try_from(index + 1).unwrap_or(u32::MAX),
                subject: summary,
                decision,
                verdict: item,
                decided: outcome,
                token: match item.outcome_with(verdict.token.as_deref()) {
                    Outcome::Held(token) => Some(token),
                    _ => None,
                },
            };
            if let Ok(text) = serde_json::to_string(&line) {
                let _ = writeln!(out, "{text}");
            }
        }
    }
    if !json {
        say_items(summaries, verdict, decided);
    }
    if all_allowed { exit::ALLOW } else { exit::DENY }
}

/// The item's decision: the answer to a held item once settled, a deny for one that needed a
/// person but was not held (this client has no prompt to hand it to), else the verdict's.
fn final_decision(item: &Verdict, token: Option<&str>, outcome: Option<&Decided>) -> Decision {
    match (item.outcome_with(token), outcome) {
        (Outcome::Allow, _) => Decision::Allow,
        (Outcome::Deny | Outcome::Ask, _) => Decision::Deny,
        (Outcome::Held(_), Some(outcome)) if outcome.allow => Decision::Allow,
        (Outcome::Held(_), Some(_)) => Decision::Deny,
        (Outcome::Held(_), None) => Decision::Confirm,
    }
}

/// One line per item on stderr, in one write.
fn say_items(summaries: &[String], verdict: &BatchVerdict, decided: Option<&[Decided]>) {
    let mut text = String::new();
    for (index, (summary, item)) in summaries.iter().zip(&verdict.items).enumerate() {
        let outcome = decided.map(|d| &d[index]);
        let (word, why) = match (
            final_decision(item, verdict.token.as_deref(), outcome),
            outcome,
        ) {
            (Decision::Allow, Some(o)) | (Decision::Deny, Some(o))
                if item.decision == Decision::Confirm =>
            {
                let word = if o.allow { "allowed" } else { "denied" };
                (word, o.reason.as_str())
            }
            (Decision::Allow, _) => ("allowed", item.reason.as_str()),
            (Decision::Deny, _) => ("denied", item.reason.as_str()),
            (Decision::Confirm, _) => ("held for approval", item.reason.as_str()),
        };
        text.push_str(&format!(
            "assent: item {} {word} ({}): {summary}\n    {why}\n",
            index + 1,
            item.level.as_str()
        ));
    }
    if let (Some(token), None) = (&verdict.token, decided) {
        if verdict.items.iter().any(|item| item.another_answers) {
            // The requester cannot answer them; who can is not said.
            text.push_str(&format!(
                "assent: held items share the batch token {token}; another person must answer them\n"
            ));
        } else {
            text.push_str(&format!(
                "assent: held items share the batch token {token}: `assent approve {token}` answers them all, `--item N` one\n"
            ));
        }
    }
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
