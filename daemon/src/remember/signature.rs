//! The signature of a request: what a remembered approval matches, in words a person reads
//! (seed 004's table).
//!
//! | subject | signature |
//! |---|---|
//! | shell command, or a shell tool (`Bash`, `run_shell_command`, …) with a cwd | `cargo test in /home/u/proj` |
//! | read tools (`Read`, `read_file`) | `reading /etc/hosts` |
//! | write tools (`Write`, `write_file`) | `writing /home/u/notes.md` |
//! | edit tools (`Edit`, `MultiEdit`, `NotebookEdit`, `replace`) | `editing src/main.rs` |
//! | fetch tools (`WebFetch`, `web_fetch` with a `url`) | `fetching https://docs.rs/tokio` |
//! | search tools (`Grep`, `grep`, `search_file_content`) | `searching for 'fn main' under src/` |
//! | file-name globs (`Glob`, `glob`) | `files matching **/*.rs under /home/u/proj` |
//! | anything else | `tool calendar.delete_event {"event_id":"evt123"}` (canonical JSON) |
//!
//! The signature must be exact: two different requests never share one, or approving one would
//! allow the other. So every variable part is written so the whole can be read back one way
//! only: a path, URL, pattern or tool name is one *word*, plain when it is made of harmless
//! characters, else single-quoted shell style (`'My Documents'`, with `'\''` for a quote); the
//! cwd of a shell command comes last and is a plain absolute path or a quoted word, so the
//! command before ` in ` can be anything. No tool form ends in ` in WORD` (which is why a search
//! says `searching for P under PATH` and not the seed's `pattern 'P' in PATH`, which a shell
//! command `pattern 'P'` run in PATH would also produce), each tool form starts with its own
//! verb, and a shell tool with a command and a cwd is the same request as that shell command.
//! A command cut at 16 KiB (`truncated`) ends in a marker no other signature ends in, and is
//! never remembered: other commands share its first 16 KiB.

use assent_client::protocol::Subject;
use serde_json::{Map, Value};

use crate::policy::tools::{self, COMMAND_KEYS, PathUse, is_cwd_key, is_path_key};

/// Ends the signature of a truncated command; [`super::Remembered`] never remembers or matches
/// one. No other signature ends in `)`.
pub(super) const TRUNCATED_MARK: &str = " (truncated: never remembered)";

/// Tools that fetch a `url`.
const FETCH_TOOLS: &[&str] = &["WebFetch", "web_fetch"];
/// Tools that search file contents for a `pattern`.
const GREP_TOOLS: &[&str] = &["Grep", "grep", "search_file_content"];
/// Tools that list file names matching a `pattern`.
const GLOB_TOOLS: &[&str] = &["Glob", "glob"];
/// Tools whose `command` is a shell command line.
const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "bash",
    "shell",
    "exec_command",
    "run_shell_command",
    "system.execute_command",
];

/// Where a search or glob looks.
const WHERE_ARGS: &[&str] = &["path", "dir_path"];

/// The signature of a subject, in words (module doc).
pub fn signature(subject: &Subject) -> String {
    match subject {
        Subject::Shell {
            command,
            cwd,
            truncated,
        } => {
            let mut sig = shell(command, cwd);
            if *truncated {
                sig.push_str(TRUNCATED_MARK);
            }
            sig
        }
        Subject::Tool {
            name, args_json, ..
        } => tool(name, args_json),
    }
}

fn shell(command: &str, cwd: &str) -> String {
    let cwd = if cwd.starts_with('/') && is_plain(cwd) {
        cwd.to_string()
    } else {
        quote(cwd)
    };
    format!("{command} in {cwd}")
}

fn tool(name: &str, args_json: &str) -> String {
    let args = serde_json::from_str::<Value>(args_json).ok();
    if let Some(Value::Object(map)) = &args
        && let Some(sig) = known_tool(name, map)
    {
        return sig;
    }
    let args = match args {
        // Canonical (keys sorted, no spaces), so the same call written another way matches;
        // but a float would be rounded, and two different numbers could print the same, so
        // arguments with one keep their exact text.
        Some(value) if !has_float(&value) => value.to_string(),
        Some(_) => args_json.to_string(),
        None => format!("(not JSON) {}", quote(args_json)),
    };
    format!("tool {} {args}", word(name))
}

/// The seed's forms for the tools whose meaning we know; `None` when the arguments are not the
/// expected ones (then the whole arguments are the signature).
fn known_tool(name: &str, args: &Map<String, Value>) -> Option<String> {
    let is = |list: &[&str]| list.contains(&name);
    // The file tools, from the table the tool analysis reads.
    let verb = match tools::path_use(name) {
        Some(PathUse::Reads) => Some("reading"),
        Some(PathUse::Writes) => Some("writing"),
        Some(PathUse::Edits) => Some("editing"),
        _ => None,
    };
    if let Some(verb) = verb {
        return one_path(args).map(|p| format!("{verb} {}", word(p)));
    }
    if is(FETCH_TOOLS) {
        return only_string(args, &["url"]).map(|u| format!("fetching {}", word(u)));
    }
    if is(GREP_TOOLS) || is(GLOB_TOOLS) {
        let pattern = only_string(args, &["pattern"])?;
        let verb = if is(GREP_TOOLS) {
            "searching for"
        } else {
            "files matching"
        };
        let mut sig = format!("{verb} {}", word(pattern));
        match present(args, WHERE_ARGS) {
            0 => {}
            1 => {
                let place = only_string(args, WHERE_ARGS)?;
                sig.push_str(" under ");
                sig.push_str(&word(place));
            }
            _ => return None,
        }
        return Some(sig);
    }
    if is(SHELL_TOOLS) {
        let command = only_string(args, COMMAND_KEYS)?;
        let cwd = only_string_where(args, is_cwd_key).filter(|c| c.starts_with('/'))?;
        return Some(shell(command, cwd));
    }
    None
}

/// The one path-like argument, if there is exactly one and it is a string (any other beside
/// it makes the call fall back to the whole-arguments form).
fn one_path(args: &Map<String, Value>) -> Option<&str> {
    only_string_where(args, is_path_key)
}

/// The value of the one key of `keys` present in `args`, if exactly one is and it is a string.
fn only_string<'a>(args: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    only_string_where(args, |key| keys.contains(&key))
}

/// The value of the one key of `args` that `named` picks, if exactly one is and it is a
/// string.
fn only_string_where(args: &Map<String, Value>, named: impl Fn(&str) -> bool) -> Option<&str> {
    let mut picked = args.iter().filter(|(key, _)| named(key));
    match (picked.next(), picked.next()) {
        (Some((_, value)), None) => value.as_str(),
        _ => None,
    }
}

fn present(args: &Map<String, Value>, keys: &[&str]) -> usize {
    keys.iter().filter(|k| args.contains_key(**k)).count()
}

fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(map) => map.values().any(has_float),
        _ => false,
    }
}

/// Characters that may stand in a word unquoted. Not whitespace, quotes, backslashes or
/// control characters (they would make the words ambiguous or unreadable), nor `)`, `]`, `}`
/// (what JSON and the truncation mark end with).
fn is_plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '/' | '.'
                        | '_'
                        | '-'
                        | '+'
                        | ','
                        | ':'
                        | '@'
                        | '%'
                        | '='
                        | '~'
                        | '^'
                        | '*'
                        | '?'
                        | '&'
                        | '#'
                        | '!'
                        | '['
                )
        })
}

/// `s` as one word: as it is when plain, else single-quoted.
fn word(s: &str) -> String {
    if is_plain(s) { s.to_string() } else { quote(s) }
}

/// Single-quoted, shell style: `'it'\''s'`.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
