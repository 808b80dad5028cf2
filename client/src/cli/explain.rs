//! `assent explain`: how a command is analysed and what would be decided. Holds nothing.
//!
//! One command from the arguments here; many from stdin in `batch`.

mod batch;

use std::io::Write;
use std::path::PathBuf;

use assent_client::Connection;
use assent_client::protocol::{
    Context, Decision, ExplainRequest, Explanation, Finding, Origin, Request, Response, Span,
    Subject,
};
use clap::Args;
use serde::Serialize;

use super::check::working_dir;
use super::{OriginArg, colour, exit, messages};

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
    let verdict = &explanation.verdict;
    let paint = colour::stdout();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "command:  {command}");
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
        verdict.reason
    );
    if !explanation.commands.is_empty() {
        // Each simple command as it would run; where it sits in the line's syntax tree is
        // the analyser's business (`--json` keeps it as `path`).
        let _ = writeln!(out, "commands:");
        for found in &explanation.commands {
            let _ = writeln!(out, "  {}", shell_words::join(&found.argv));
        }
    }
    let room = columns().map(|c| c.saturating_sub(CARET_INDENT.len()));
    if !verdict.findings.is_empty() {
        let _ = writeln!(out, "findings:");
        for finding in &verdict.findings {
            let _ = writeln!(
                out,
                "  {} [{}]: {}",
                colour::level(finding.level, finding.level.as_str(), paint),
                finding.id,
                finding.message
            );
            for line in caret(command, finding.span, room) {
                let _ = writeln!(out, "{CARET_INDENT}{line}");
            }
        }
    }
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

/// The input line that holds the span, and a line of carets under the span. A line wider than
/// `room` columns is shown as a window around the span, cut with `…`, so the terminal never
/// wraps it and the carets stay under what they mark.
fn caret(input: &str, span: Span, room: Option<usize>) -> Vec<String> {
    let (start, end) = (span.start as usize, span.end as usize);
    if start >= end || end > input.len() || !input.is_char_boundary(start) {
        return Vec::new();
    }
    let line_start = input[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = input[start..].find('\n').map_or(input.len(), |i| start + i);
    let line = &input[line_start..line_end];
    let pad = input[line_start..start].chars().count();
    let stop = end.min(line_end);
    let width = input
        .get(start..stop)
        .map_or(1, |s| s.chars().count().max(1));
    let chars: Vec<char> = line.chars().collect();
    let room = room.unwrap_or(usize::MAX).max(MIN_ROOM);
    if chars.len() <= room {
        return vec![
            line.to_string(),
            format!("{}{}", " ".repeat(pad), "^".repeat(width)),
        ];
    }
    // Room for the text between the two marks; a little context before the span.
    let keep = room - 2;
    let from = pad
        .saturating_sub(CONTEXT)
        .min(chars.len().saturating_sub(keep));
    let to = (from + keep).min(chars.len());
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.extend(chars.get(from..to).unwrap_or_default());
    if to < chars.len() {
        shown.push('…');
    }
    let lead = usize::from(from > 0);
    let marked = width.min(to.saturating_sub(pad)).max(1);
    vec![
        shown,
        format!("{}{}", " ".repeat(pad - from + lead), "^".repeat(marked)),
    ]
}

/// The narrowest window a line is cut to.
const MIN_ROOM: usize = 20;
/// How much of the line before a span a cut window keeps.
const CONTEXT: usize = 10;

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

    #[test]
    fn carets_sit_under_the_span() {
        let span = Span { start: 6, end: 14 };
        assert_eq!(
            caret("ls && rm -rf x", span, None),
            ["ls && rm -rf x", "      ^^^^^^^^"]
        );
        let second_line = Span { start: 3, end: 5 };
        assert_eq!(caret("ls\nrm x", second_line, Some(74)), ["rm x", "^^"]);
        assert!(caret("ls", Span { start: 5, end: 9 }, None).is_empty());
    }

    /// A line wider than the terminal is shown as a window around the span, so the terminal
    /// does not wrap it and the carets stay under what they mark.
    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let line = format!("{} && rm -rf target/{}", "x".repeat(100), "y".repeat(100));
        let start = line.find("rm").expect("rm is there");
        let span = Span {
            start: start as u32,
            end: (start + 5) as u32,
        };
        let shown = caret(&line, span, Some(40));
        assert_eq!(shown.len(), 2);
        for text in &shown {
            assert!(text.chars().count() <= 40, "{text:?}");
        }
        let at = shown[1].find('^').expect("carets");
        let marked: String = shown[0].chars().skip(at).take(5).collect();
        assert_eq!(marked, "rm -r", "{shown:?}");
        assert!(
            shown[0].starts_with('…') && shown[0].ends_with('…'),
            "{shown:?}"
        );
        // A line that fits is shown whole.
        assert_eq!(
            caret("rm -rf x", Span { start: 0, end: 2 }, Some(40))[0],
            "rm -rf x"
        );
    }
}
