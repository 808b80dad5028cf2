//! `[[program]]` in the policy file: the programs a user or an administrator describes, read
//! into the analyser's `Book` (`analyse::book`, which also says how an entry is judged and why
//! it can only add). This module owns the format: its keys, their values in the analyser's
//! vocabulary (effects as in `levels.md`, places as its columns), and what is refused. Errors
//! are byte offsets with a reason; `file.rs` turns them into file:line:column.
//!
//! ```toml
//! [[program]]
//! name = "acmectl"
//! options = { "--profile" = "none" }   # takes a value that is not a place
//! [program.subcommands.nuke]
//! operands = "delete"                  # each operand is a place it deletes
//! [program.subcommands.deploy]
//! effect = "publish"                   # publish.remote, as `git push`
//! [program.subcommands.status]
//! effect = "none"
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use crate::analyse::book::{Book, Command, Entry};
use crate::analyse::effects::Effect;
use crate::places::Kind;

/// How deep subcommands may nest (`tool db user drop`); far beyond any real CLI.
const MAX_DEPTH: usize = 8;

/// One `[[program]]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProgramSpec {
    name: Spanned<String>,
    operands: Option<Spanned<String>>,
    effect: Option<Spanned<String>>,
    options: Option<BTreeMap<String, Spanned<String>>>,
    subcommands: Option<BTreeMap<String, Spanned<CommandSpec>>>,
}

/// A subcommand as written: the same keys as a program, without its name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CommandSpec {
    operands: Option<Spanned<String>>,
    effect: Option<Spanned<String>>,
    options: Option<BTreeMap<String, Spanned<String>>>,
    subcommands: Option<BTreeMap<String, Spanned<CommandSpec>>>,
}

/// A refusal: where in the text, and why.
pub(super) type Refusal = (usize, String);

/// The book of a policy file's entries; `source(offset)` names where an entry is written
/// (`file:line`).
pub(super) fn compile(
    specs: &[Spanned<ProgramSpec>],
    source: impl Fn(usize) -> String,
) -> Result<Book, Refusal> {
    let mut book = Book::default();
    for spanned in specs {
        let spec = spanned.get_ref();
        let at = spanned.span().start;
        let name = spec.name.get_ref();
        let name_at = spec.name.span().start;
        if name.is_empty() {
            return Err((name_at, "a program needs a non-empty name".into()));
        }
        if name.contains('/') || name.contains(blank) {
            return Err((
                name_at,
                format!(
                    "program name {name:?}: a program is named as a command names it, by its base name (no slash, no blank)"
                ),
            ));
        }
        if let Some(why) = never_a_command(name) {
            return Err((name_at, format!("program name {name:?}: {why}")));
        }
        let shape = CommandSpec {
            operands: spec.operands.clone(),
            effect: spec.effect.clone(),
            options: spec.options.clone(),
            subcommands: spec.subcommands.clone(),
        };
        let command = command(&shape, name, at, 0)?;
        let entry = Entry {
            name: name.clone(),
            source: source(at),
            command,
        };
        if !book.add(entry) {
            return Err((at, format!("a second [[program]] is named {name:?}")));
        }
    }
    Ok(book)
}

fn command(spec: &CommandSpec, shown: &str, at: usize, depth: usize) -> Result<Command, Refusal> {
    if depth > MAX_DEPTH {
        return Err((
            at,
            format!("{shown}: subcommands nest deeper than {MAX_DEPTH}"),
        ));
    }
    let operands = spec
        .operands
        .as_ref()
        .map(|o| {
            effect_name(o.get_ref())
                .map_err(|m| (o.span().start, format!("{shown}: operands: {m}")))
        })
        .transpose()?;
    let effect = spec
        .effect
        .as_ref()
        .map(|e| cells(e.get_ref()).map_err(|m| (e.span().start, format!("{shown}: effect: {m}"))))
        .transpose()?;
    let mut options = BTreeMap::new();
    for (option, value) in spec.options.iter().flatten() {
        let value_at = value.span().start;
        if !option.starts_with('-')
            || option == "-"
            || option == "--"
            || option.contains('=')
            || option.contains(blank)
        {
            return Err((
                value_at,
                format!(
                    "{shown}: option {option:?}: an option is written as a command gives it (`-o`, `--output`), without a value"
                ),
            ));
        }
        let effect = match value.get_ref().as_str() {
            "none" => None,
            other => Some(
                effect_name(other)
                    .map_err(|m| (value_at, format!("{shown}: option {option}: {m}")))?,
            ),
        };
        options.insert(option.clone(), effect);
    }
    let mut subcommands = BTreeMap::new();
    for (name, sub) in spec.subcommands.iter().flatten() {
        let sub_at = sub.span().start;
        if name.is_empty() || name.starts_with('-') || name.contains(blank) {
            return Err((
                sub_at,
                format!(
                    "{shown}: subcommand {name:?}: a subcommand is a word, not an option or a blank"
                ),
            ));
        }
        let inner = command(sub.get_ref(), &format!("{shown} {name}"), sub_at, depth + 1)?;
        subcommands.insert(name.clone(), inner);
    }
    if !subcommands.is_empty() && (operands.is_some() || effect.is_some()) {
        return Err((
            at,
            format!(
                "{shown}: has subcommands, so its own `operands` and `effect` would never apply; say them for each subcommand"
            ),
        ));
    }
    if subcommands.is_empty() && operands.is_none() && effect.is_none() {
        return Err((
            at,
            format!(
                "{shown}: says nothing of what it does; give it `effect` (`effect = \"none\"` for nothing), `operands`, or subcommands"
            ),
        ));
    }
    Ok(Command {
        operands,
        effect,
        options,
        subcommands,
    })
}

/// A blank, a control character or one that does not show as itself (a zero-width space, a
/// right-to-left override: `r\u{200b}m` reads as `rm`): none belongs in a command's word as
/// written here, and none may reach the comments `--check-policy` writes.
fn blank(c: char) -> bool {
    c.is_whitespace() || assent_client::shown::is_hidden(c)
}

/// Why `name` could never be the name a line runs a program by, if it could not: what the
/// entry says would then never apply, while it reads as if it did.
fn never_a_command(name: &str) -> Option<&'static str> {
    if !name.chars().any(char::is_alphanumeric) {
        return Some("a program's name has a letter or a digit in it");
    }
    if name.starts_with(['-', '~']) || name.contains(['*', '?', '[', ']', '$', '`']) {
        return Some("a program is named as it is run, not as an option, a glob or an expansion");
    }
    if name.len() > 4 && name.to_ascii_lowercase().ends_with(".exe") {
        return Some(
            "the gate reads `NAME.exe` as NAME (a Windows program run from WSL): name it without `.exe`",
        );
    }
    None
}

/// An effect of the level table, by its name.
fn effect_name(name: &str) -> Result<Effect, String> {
    Effect::from_name(name).ok_or_else(|| {
        let all: Vec<&str> = Effect::ALL.iter().map(|e| e.name()).collect();
        format!(
            "unknown effect {name:?}; expected one of {}",
            all.join(", ")
        )
    })
}

/// `effect`: "none", an effect on the remote service the program talks to (`publish`), or a
/// cell of the level table (`stop.services`), as finding ids name them.
fn cells(text: &str) -> Result<Vec<(Effect, Kind)>, String> {
    if text == "none" {
        return Ok(Vec::new());
    }
    let (effect, place) = match text.split_once('.') {
        Some((effect, place)) => {
            let kind = Kind::from_name(place).ok_or_else(|| {
                let all: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "unknown place {place:?}; expected one of {}",
                    all.join(", ")
                )
            })?;
            (effect, kind)
        }
        None => (text, Kind::Remote),
    };
    let effect = effect_name(effect).map_err(|m| {
        format!("{m}, or \"none\"; an effect alone is on the remote service, `EFFECT.PLACE` names the place")
    })?;
    Ok(vec![(effect, place)])
}

/// An entry written back in this format, for `assentd --check-policy`.
pub(super) fn to_toml(entry: &Entry) -> toml::Table {
    let mut table = command_table(&entry.command);
    table.insert("name".into(), toml::Value::String(entry.name.clone()));
    table
}

fn command_table(command: &Command) -> toml::Table {
    use toml::Value;
    let mut t = toml::Table::new();
    if let Some(effect) = command.operands {
        t.insert("operands".into(), Value::String(effect.name().into()));
    }
    if let Some(cells) = &command.effect {
        let text = match cells.first() {
            None => "none".to_owned(),
            Some((effect, place)) => format!("{}.{}", effect.name(), place.name()),
        };
        t.insert("effect".into(), Value::String(text));
    }
    if !command.options.is_empty() {
        let options: toml::Table = command
            .options
            .iter()
            .map(|(option, effect)| {
                let value = effect.map_or("none", Effect::name);
                (option.clone(), Value::String(value.into()))
            })
            .collect();
        t.insert("options".into(), Value::Table(options));
    }
    if !command.subcommands.is_empty() {
        let subs: toml::Table = command
            .subcommands
            .iter()
            .map(|(name, sub)| (name.clone(), Value::Table(command_table(sub))))
            .collect();
        t.insert("subcommands".into(), Value::Table(subs));
    }
    t
}

#[cfg(test)]
mod tests;
