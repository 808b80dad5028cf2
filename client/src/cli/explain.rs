//! `assent explain`: how a command is analysed and what would be decided. Holds nothing.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use assent_client::Connection;
use assent_client::protocol::{
    Context, ExplainRequest, Explanation, Finding, Origin, Request, Response, Span, Subject,
};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::check::working_dir;
use super::{OriginArg, exit, messages};

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
    /// "args": {…}}` on stdin and write one JSON
    /// line per input line, over one connection: for auditing a history file or a corpus.
    #[arg(long, conflicts_with = "command")]
    batch: bool,
    /// The command line (words are joined with spaces).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND",
        required_unless_present = "batch"
    )]
    command: Vec<String>,
}

/// One input line of `--batch`.
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

/// One output line of `--batch` or `--json`.
#[derive(Debug, Serialize)]
struct JsonExplanation<'a> {
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
    let mut conn = match super::connect(socket) {
        Ok(conn) => conn,
        Err(code) => return code,
    };
    let cwd = match working_dir(args.cwd.as_deref()) {
        Ok(cwd) => cwd,
        Err(code) => return code,
    };
    if args.batch {
        return batch(&mut conn, &cwd, args.origin.into());
    }
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
        print_json(&command, origin, &explanation);
    } else {
        print_text(&command, origin, &explanation);
    }
    exit::ALLOW
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

fn batch(conn: &mut Connection, default_cwd: &str, default_origin: Origin) -> u8 {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut code = exit::ALLOW;
    for (number, line) in stdin.lines().enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                messages::say(&format!("could not read stdin: {error}"));
                return exit::USAGE;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let input: BatchInput = match serde_json::from_str(&line) {
            Ok(input) => input,
            Err(error) => {
                let report = serde_json::json!({"line": number + 1, "error": error.to_string()});
                let _ = writeln!(out, "{report}");
                code = exit::DENY;
                continue;
            }
        };
        let (label, subject, origin) = match (input.command, input.tool) {
            (Some(command), None) => {
                let cwd = input.cwd.unwrap_or_else(|| default_cwd.to_string());
                let origin = input.origin.unwrap_or(default_origin);
                (command.clone(), Subject::shell(&command, cwd), origin)
            }
            (None, Some(name)) => {
                let args_json = input
                    .args
                    .unwrap_or_else(|| serde_json::json!({}))
                    .to_string();
                let label = format!("tool {name} {args_json}");
                (label, Subject::Tool { name, args_json }, Origin::Tool)
            }
            _ => {
                let report = serde_json::json!({"line": number + 1, "error": "a line needs either \"command\" or \"tool\""});
                let _ = writeln!(out, "{report}");
                code = exit::DENY;
                continue;
            }
        };
        match ask(conn, subject, origin) {
            Ok(explanation) => {
                let _ = writeln!(out, "{}", json_line(&label, origin, &explanation));
            }
            Err(assent_client::Error::Refused(error)) => {
                let report = serde_json::json!({"line": number + 1, "command": label, "error": error.to_string()});
                let _ = writeln!(out, "{report}");
                code = exit::DENY;
            }
            Err(error) => {
                let _ = out.flush();
                messages::error(&error);
                return exit::UNAVAILABLE;
            }
        }
    }
    let _ = out.flush();
    code
}

fn json_line(command: &str, origin: Origin, explanation: &Explanation) -> String {
    let verdict = &explanation.verdict;
    let value = JsonExplanation {
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
    println!("{}", json_line(command, origin, explanation));
}

fn print_text(command: &str, origin: Origin, explanation: &Explanation) {
    let verdict = &explanation.verdict;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "command:  {command}");
    let _ = writeln!(out, "origin:   {}", origin.as_str());
    let _ = writeln!(out, "level:    {}", verdict.level.as_str());
    let _ = writeln!(
        out,
        "decision: {} ({})",
        verdict.decision.as_str(),
        verdict.reason
    );
    if !explanation.commands.is_empty() {
        let _ = writeln!(out, "commands:");
        for found in &explanation.commands {
            let _ = writeln!(
                out,
                "  {:<24} {}",
                found.path,
                shell_words::join(&found.argv)
            );
        }
    }
    if !verdict.findings.is_empty() {
        let _ = writeln!(out, "findings:");
        for finding in &verdict.findings {
            let _ = writeln!(
                out,
                "  {} [{}]: {}",
                finding.level.as_str(),
                finding.id,
                finding.message
            );
            for line in caret(command, finding.span) {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
}

/// The input line that holds the span, and a line of carets under the span.
fn caret(input: &str, span: Span) -> Vec<String> {
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
    vec![
        line.to_string(),
        format!("{}{}", " ".repeat(pad), "^".repeat(width)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carets_sit_under_the_span() {
        let span = Span { start: 6, end: 14 };
        assert_eq!(
            caret("ls && rm -rf x", span),
            ["ls && rm -rf x", "      ^^^^^^^^"]
        );
        let second_line = Span { start: 3, end: 5 };
        assert_eq!(caret("ls\nrm x", second_line), ["rm x", "^^"]);
        assert!(caret("ls", Span { start: 5, end: 9 }).is_empty());
    }
}
