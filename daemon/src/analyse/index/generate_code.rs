//! The built-in book's `[[code]]` tables, checked and turned into Rust: where programs take
//! code to run (option values, subcommands, addresses), read by `programs::code` beside the
//! program's own entry, for programs known or not. Each becomes one row of `CODE`:
//!
//! ```toml
//! [[code]]
//! names = ["scp", "sftp"]
//! takes = [{ ssh_option = ["o"] }, { shell = ["S"] }, { with = "ssh_config" }]
//! ```
//!
//! `takes` is read in order, each item one of: `shell` (options whose value is a command line
//! run by a shell), `escape` (options whose value is an editor's or a debugger's command, its
//! shell escapes read as shell), `unread` (options whose value is code in a language not read
//! here), `ssh_option` (`-o Key=Value` options whose command-valued keys are shell), `with` (a
//! function of `programs/code.rs` that reads what data cannot say). Options are named as the
//! program's reader matches them, without dashes (`e` for `-e`, `rsh` for `--rsh`; `-eval` for
//! a single-dash long option, `+` for vim's `+CMD`).

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Deserialize;
use toml::Spanned;

use super::generate::Refusal;

/// One `[[code]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeEntry {
    names: Spanned<Vec<Spanned<String>>>,
    takes: Spanned<Vec<Spanned<Take>>>,
}

/// One item of `takes`: exactly one key.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Take {
    shell: Option<Vec<Spanned<String>>>,
    escape: Option<Vec<Spanned<String>>>,
    unread: Option<Vec<Spanned<String>>>,
    ssh_option: Option<Vec<Spanned<String>>>,
    with: Option<Spanned<String>>,
}

/// One `[[code]]` as a Rust row of `CODE`, `(&[names], &[Code, …])`; `seen` holds the names
/// already given a row, with where.
pub fn row(
    c: CodeEntry,
    seen: &mut HashMap<String, String>,
    file: &str,
    line: usize,
) -> Result<String, Refusal> {
    if c.names.get_ref().is_empty() {
        return Err((c.names.span().start, "a row needs at least one name".into()));
    }
    let mut out = String::from("(&[");
    for name in c.names.get_ref() {
        let n = name.get_ref();
        if n.is_empty() || n.contains('/') || n.contains(char::is_whitespace) {
            return Err((
                name.span().start,
                format!("{n:?}: a name is a command's base name"),
            ));
        }
        if let Some(first) = seen.insert(n.clone(), format!("{file}:{line}")) {
            return Err((
                name.span().start,
                format!("{n:?} has a [[code]] row already at {first}"),
            ));
        }
        let _ = write!(out, "{n:?}, ");
    }
    out.push_str("], &[");
    if c.takes.get_ref().is_empty() {
        return Err((c.takes.span().start, "`takes` says nothing".into()));
    }
    for take in c.takes.get_ref() {
        let at = take.span().start;
        let t = take.get_ref();
        let lists = [
            ("Shell", &t.shell),
            ("Escape", &t.escape),
            ("Unread", &t.unread),
            ("SshOption", &t.ssh_option),
        ];
        let given =
            lists.iter().filter(|(_, l)| l.is_some()).count() + usize::from(t.with.is_some());
        if given != 1 {
            return Err((
                at,
                "each item of `takes` is one of `shell`, `escape`, `unread`, `ssh_option`, `with`"
                    .into(),
            ));
        }
        if let Some(f) = &t.with {
            let ok = !f.get_ref().is_empty()
                && f.get_ref()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !ok {
                return Err((
                    f.span().start,
                    format!(
                        "{:?}: the name of a function of programs/code.rs",
                        f.get_ref()
                    ),
                ));
            }
            let _ = write!(out, "Code::With(programs::code::{}), ", f.get_ref());
        }
        for (kind, list) in lists {
            let Some(list) = list else { continue };
            if list.is_empty() {
                return Err((at, "an empty list of options".into()));
            }
            let _ = write!(out, "Code::{kind}(&[");
            for o in list {
                let name = o.get_ref();
                let ok = !name.is_empty()
                    && !name.starts_with("--")
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
                if !ok {
                    return Err((
                        o.span().start,
                        format!(
                            "option {name:?}: named without dashes (`e` for `-e`, `rsh` for `--rsh`)"
                        ),
                    ));
                }
                let _ = write!(out, "{name:?}, ");
            }
            out.push_str("]), ");
        }
    }
    out.push_str("])");
    Ok(out)
}
