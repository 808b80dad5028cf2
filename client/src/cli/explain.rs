//! `assent explain`: how a command is analysed and what would be decided. Holds nothing.
//!
//! One command from the arguments here; many from stdin in `batch`.

mod batch;
mod caret;

use std::io::Write;
use std::path::PathBuf;

use assent_client::Connection;
use assent_client::protocol::{
    Context, Decision, ExplainRequest, Explanation, Finding, Origin, Request, Response, Subject,
};
use clap::Args;
use serde::Serialize;

use super::check::working_dir;
use super::{OriginArg, colour, exit, messages};
use caret::caret;

/// The end of `assent explain --help`: the batch's records and the exit codes.
pub const AFTER_HELP: &str = "\
BATCH OUTPUT (--batch): one JSON object per input line, in input order, each with \"line\" (from
1), so input and output zip by position. An explained line has command, origin, level,
decision, reason, findings and commands. A line that cannot be explained has \"input\" (its
first 256 bytes; bytes that are not UTF-8 shown as U+FFFD), \"kind\" and \"error\" (what went
wrong, and what to do), and the batch goes on. Kinds:
    empty            a blank line
    not_utf8         JSON Lines must be UTF-8
    too_large        over 131072 bytes, the largest message assentd takes (skipped unread)
    too_deep         JSON nested deeper than 128 levels
    bad_json         not JSON
    bad_line         JSON, but not a command or a tool call
    connection_lost  the connection broke while this line was explained (not sent again)
    unavailable      assentd could not be reached again; nor is any line after it sent
    bad_reply        assentd's answer could not be understood
    (other)          assentd refused the line, with its own error kind, such as invalid
A request that could not be sent because assentd closed the connection (a restart) is sent
again once on a new connection.

EXIT CODES (explain):
    0    one command: it would be allowed; --json or --batch: explained, whatever the decision
    1    one command: it would be denied; --batch: at least one line has an error record, or
         stdout could not be written
    2    one command: it would be held for a person (or handed to the agent's own prompt)
    64   usage error, or stdin could not be read
    126  assentd could not be reached (with --batch: at the start, and nothing is printed; or
         lost and not reached again, and the lines left have unavailable records)";

/// `assent explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Decide as for this origin.
    #[arg(long, value_enum, default_value = "agent")]
    origin: OriginArg,
    /// The directory the command would run in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Read JSON Lines `{"command": …, "origin": …, "cwd": …}` or tool calls `{"tool": NAME,
    /// "args": {…}, "cwd": …}` on stdin and write exactly one JSON line per input line, in order, over one
    /// connection: for auditing a history file or a corpus. A line that cannot be explained gets
    /// an error record and the batch goes on (see BATCH OUTPUT below).
    #[arg(long, conflicts_with = "command")]
    batch: bool,
    /// The command line (words are joined with spaces).
    #[arg(
        trailing_var_arg = true,
        value_name = "COMMAND",
        required_unless_present = "batch"
    )]
    command: Vec<String>,
}

/// One output line of `--batch` or `--json`.
#[derive(Debug, Serialize)]
struct JsonExplanation<'a> {
    /// The input line it answers, from 1 (`--batch` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    command: &'a str,
    origin: Origin,
    level: assent_client::protocol::Level,
    decision: assent_client::protocol::Decision,
    reason: &'a str,
    findings: &'a [Finding],
    commands: &'a [assent_client::protocol::CommandInfo],
}

/// `assent explain`.
pub fn explain(socket: Option<PathBuf>, args: ExplainArgs) -> u8 {
    let cwd = match working_dir(args.cwd.as_deref()) {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    if args.batch {
        let defaults = batch::Defaults {
            cwd,
            origin: args.origin.into(),
        };
        return batch::run(socket, &defaults);
    }
    let mut conn = match super::connect(socket) {
        Ok(conn) => conn,
        Err(code) => return code,
    };
    let command = args.command.join(" ");
    let origin: Origin = args.origin.into();
    let explanation = match ask(&mut conn, Subject::shell(&command, cwd), origin) {
        Ok(explanation) => explanation,
        Err(error) => {
            messages::error(&error);
            return exit::UNAVAILABLE;
        }
    };
    if args.json {
        // The decision is in the JSON; a tool reading it is not told twice.
        print_json(&command, origin, &explanation);
        return exit::ALLOW;
    }
    print_text(&command, origin, &explanation);
    // Like `assent check`, so a script can ask without running anything.
    match explanation.verdict.decision {
        Decision::Allow => exit::ALLOW,
        Decision::Deny => exit::DENY,
        Decision::Confirm => exit::HELD,
    }
}

fn ask(
    conn: &mut Connection,
    subject: Subject,
    origin: Origin,
) -> Result<Explanation, assent_client::Error> {
    let request = Request::Explain(ExplainRequest {
        subject,
        origin,
        context: Context::default(),
    });
    match conn.request(&request)? {
        Response::Explained(explanation) => Ok(explanation),
        other => Err(assent_client::Error::Unexpected(format!("{other:?}"))),
    }
}

fn json_line(
    line: Option<u64>,
    command: &str,
    origin: Origin,
    explanation: &Explanation,
) -> String {
    let verdict = &explanation.verdict;
    let value = JsonExplanation {
        line,
        command,
        origin,
        level: verdict.level,
        decision: verdict.decision,
        reason: &verdict.reason,
        findings: &verdict.findings,
        commands: &explanation.commands,
    };
    serde_json::to_string(&value).unwrap_or_default()
}

fn print_json(command: &str, origin: Origin, explanation: &Explanation) {
    println!("{}", json_line(None, command, origin, explanation));
}

fn print_text(command: &str, origin: Origin, explanation: &Explanation) {
    let room = columns().map(|c| c.saturating_sub(CARET_INDENT.len()));
    let text = text(command, origin, explanation, colour::stdout(), room);
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// What `explain` prints for a person: every word of the requester's (the command, what the
/// analyser quotes of it in a finding) through `shown`, so a control character shows as its
/// escape and cannot redraw the terminal; the caret lines fit `room` columns.
fn text(
    command: &str,
    origin: Origin,
    explanation: &Explanation,
    paint: bool,
    room: Option<usize>,
) -> String {
    use assent_client::shown::one_line;
    use std::fmt::Write as _;
    let verdict = &explanation.verdict;
    let mut out = String::new();
    let _ = writeln!(out, "command:  {}", one_line(command));
    let _ = writeln!(out, "origin:   {}", origin.as_str());
    let _ = writeln!(
        out,
        "level:    {}",
        colour::level(verdict.level, verdict.level.as_str(), paint)
    );
    let _ = writeln!(
        out,
        "decision: {} ({})",
        colour::decision(verdict.decision, verdict.decision.as_str(), paint),
        one_line(&verdict.reason)
    );
    if !explanation.commands.is_empty() {
        // Each simple command as it would run; where it sits in the line's syntax tree is
        // the analyser's business (`--json` keeps it as `path`).
        let _ = writeln!(out, "commands:");
        for found in &explanation.commands {
            let _ = writeln!(out, "  {}", one_line(&shell_words::join(&found.argv)));
        }
    }
    if !verdict.findings.is_empty() {
        let _ = writeln!(out, "findings:");
        for finding in &verdict.findings {
            let _ = writeln!(
                out,
                "  {} [{}]: {}",
                colour::level(finding.level, finding.level.as_str(), paint),
                one_line(&finding.id),
                one_line(&finding.message)
            );
            for line in caret(command, finding.span, room) {
                let _ = writeln!(out, "{CARET_INDENT}{line}");
            }
        }
    }
    out
}

/// What the line under a finding is indented by.
const CARET_INDENT: &str = "      ";

/// The columns a person's terminal shows: `$COLUMNS`, else the terminal's own width (as the
/// waiting line reads it); `None` (no limit) when stdout is not a terminal and nothing says
/// its width.
fn columns() -> Option<usize> {
    use std::io::IsTerminal as _;
    let env = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    let stdout = std::io::stdout();
    env.or_else(|| {
        stdout
            .is_terminal()
            .then(|| super::term::size(std::os::fd::AsFd::as_fd(&stdout)).0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_names_the_real_line_limit() {
        let limit = batch::MAX_LINE.to_string();
        assert!(
            AFTER_HELP.contains(&format!("over {limit} bytes")),
            "{limit}"
        );
        assert!(AFTER_HELP.contains(&format!("first {} bytes", super::super::lines::HEAD_KEPT)));
    }

    /// A person reads one level of quoting and no control character of the requester's: the
    /// command, the reason and a finding are shown through `shown`, and the carets sit under
    /// the span of a line that holds a tab.
    #[test]
    fn the_text_shows_the_requesters_words_escaped() {
        use assent_client::protocol::{CommandInfo, Level, Span, Verdict};
        let command = "printf '\\e[2J'\t; rm -rf src";
        let at = command.find("rm").expect("rm");
        let explanation = Explanation {
            verdict: Verdict {
                decision: Decision::Confirm,
                level: Level::Destructive,
                findings: vec![Finding {
                    id: "delete.data".into(),
                    level: Level::Destructive,
                    message: "`rm` deletes `src`\u{1b}[31m".into(),
                    span: Span {
                        start: at as u32,
                        end: command.len() as u32,
                    },
                }],
                reason: "default policy: destructive from agent".into(),
                token: None,
                expires_in_ms: None,
                confine: None,
                grant: None,
                another_answers: false,
            },
            commands: vec![CommandInfo {
                path: "list[1]".into(),
                argv: vec!["rm".into(), "-rf".into(), "src".into()],
                span: Span::default(),
            }],
        };
        let shown = text(command, Origin::Agent, &explanation, false, Some(74));
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\t'),
            "{shown}"
        );
        assert!(!shown.contains("list[1]"), "{shown}");
        assert!(shown.contains("`rm` deletes `src`\\e[31m"), "{shown}");
        let lines: Vec<&str> = shown.lines().collect();
        let carets = lines.last().expect("the caret line");
        let line = lines[lines.len() - 2];
        let from = carets.find('^').expect("carets");
        assert_eq!(&line[from..from + 10], "rm -rf src", "{shown}");
    }
}
