//! `docs/catalogue.md`, generated: the level table (`levels.md`), the vocabulary of places
//! and, for every finding, an example command taken from the case tests. The test fails when
//! the file in the repository is not what these sources make; `ASSENT_BLESS=1 cargo test -p
//! assentd --lib catalogue` writes it anew.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use assent_client::protocol::Level;

use super::catalogue::UNREADABLE;
use super::effects::{self, Effect};
use super::{Surroundings, shell};
use crate::places::{self, Kind};
use crate::policy::tools::{PATH_TOOLS, PathUse};

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/u/proj",
    home: Some("/home/u"),
    project: Some("/home/u/proj"),
    truncated: false,
};

/// The commands of the case tests: first the analyser's own tables, then the classes of
/// disguise and the working day (`tests/cases`).
fn case_commands() -> [Vec<String>; 2] {
    let mut tables_out: Vec<String> = Vec::new();
    let tables: [&[(&str, Level, &[&str])]; 7] = [
        super::tests::CASES,
        super::programs::files::tests::CASES,
        super::programs::git::tests::CASES,
        super::programs::cloud::tests::HELD,
        super::programs::disk::tests::CASES,
        super::programs::data::tests::CASES,
        super::programs::system::tests::CASES,
    ];
    for table in tables {
        tables_out.extend(table.iter().map(|(line, _, _)| (*line).to_owned()));
    }
    let mut classes = Vec::new();
    for jsonl in [
        include_str!("../../tests/cases/held.jsonl"),
        include_str!("../../tests/cases/allowed.jsonl"),
    ] {
        for line in jsonl.lines() {
            let value: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            if let Some(command) = value.get("command").and_then(|c| c.as_str()) {
                classes.push(command.to_owned());
            }
        }
    }
    [tables_out, classes]
}

/// For each finding id, the shortest one-line command that gets it, from the analyser's
/// tables when one there does, else from the classes of disguise.
fn examples() -> BTreeMap<&'static str, String> {
    let mut best: BTreeMap<&'static str, String> = BTreeMap::new();
    for source in case_commands() {
        let mut found: BTreeMap<&'static str, String> = BTreeMap::new();
        for command in source {
            if command.contains('\n') || command.len() > 90 {
                continue;
            }
            for finding in shell(&command, &CTX).findings {
                if best.contains_key(finding.id) {
                    continue;
                }
                let slot = found.entry(finding.id).or_insert_with(|| command.clone());
                if (command.len(), &command) < (slot.len(), slot) {
                    *slot = command.clone();
                }
            }
        }
        best.extend(found);
    }
    best
}

fn level_name(level: Level) -> &'static str {
    level.as_str()
}

/// A command in a table cell: code, with `|` escaped.
fn code(text: &str) -> String {
    let ticks = if text.contains('`') { "`` " } else { "`" };
    let close = if text.contains('`') { " ``" } else { "`" };
    format!("{ticks}{}{close}", text.replace('|', "\\|"))
}

pub fn render() -> String {
    let examples = examples();
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "# What the gate decides, and why");
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "<!-- Generated from daemon/src/analyse/levels.md, daemon/src/places/vocabulary.rs and the \
         case tests by `ASSENT_BLESS=1 cargo test -p assentd --lib catalogue`. Do not edit: \
         edit those, then bless. -->"
    );
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "Every shell command, and every tool call, is read as **effects on places**: `rm -r \
         ~/.ssh` *deletes* a *secret*, `cat .env` *reads* a *secret*, `git push --force` \
         *overwrites* a *remote*. Each pair has one level, from one table, and a finding's id is \
         its pair: `delete.secret`, `read.secret`, `overwrite.remote`. A command's level is the \
         highest of its findings; what each level means for each origin (an agent, a person at \
         a prompt, a tool call) is the policy's business (README, *Policy*)."
    );
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "Levels: **safe** (reads only), **moderate** (changes that can be undone), **opaque** \
         (cannot be analysed), **destructive** (data or history lost, a secret read, something \
         published), **forbidden** (never from automation)."
    );
    let _ = writeln!(w);

    // The table.
    let _ = writeln!(w, "## The level table");
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "s = safe, m = moderate, o = opaque, **D** = destructive, **F** = forbidden."
    );
    let _ = writeln!(w);
    let _ = write!(w, "| effect \\ place |");
    for kind in Kind::ALL {
        let _ = write!(w, " {} |", kind.name());
    }
    let _ = writeln!(w);
    let _ = write!(w, "|---|");
    for _ in Kind::ALL {
        let _ = write!(w, ":-:|");
    }
    let _ = writeln!(w);
    for effect in Effect::ALL {
        let _ = write!(w, "| {} |", effect.name());
        for kind in Kind::ALL {
            let mark = match effects::level(effect, kind) {
                Level::Safe => "s",
                Level::Moderate => "m",
                Level::Opaque => "o",
                Level::Destructive => "**D**",
                Level::Forbidden => "**F**",
            };
            let _ = write!(w, " {mark} |");
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w);

    // Places.
    let _ = writeln!(w, "## Places");
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "A path is placed by its text, never by looking at the disk: `~`, `$HOME` and `~user` \
         are the requester's or that user's home, a relative path starts in the directory the \
         line has `cd`'d to, and a glob or a partly unknown word is every place it could name. \
         The project is the working directory (unless it is `/`, a home or a system \
         directory); build output is a build directory below it or a compiler's output file; \
         temp is `/tmp`, `/var/tmp`, `/dev/shm`. The entries below name the rest; a pattern \
         ending in `/` is a whole tree, `~*/` is any home, `**/` is anywhere. A policy's \
         `sensitive_paths` and `protected_paths` add to them."
    );
    let _ = writeln!(w);
    let mut by_kind: BTreeMap<usize, Vec<(&str, &str)>> = BTreeMap::new();
    for (pattern, kinds, why) in places::entries() {
        for kind in kinds {
            by_kind
                .entry(kind as usize)
                .or_default()
                .push((pattern, why));
        }
    }
    for kind in Kind::ALL {
        let _ = writeln!(w, "### {}", kind.name());
        let _ = writeln!(w);
        let _ = writeln!(w, "{}.", capitalised(kind.describe()));
        let _ = writeln!(w);
        if let Some(entries) = by_kind.get(&(kind as usize)) {
            let _ = writeln!(w, "| pattern | what it is |");
            let _ = writeln!(w, "|---|---|");
            for (pattern, why) in entries {
                let _ = writeln!(w, "| {} | {why} |", code(pattern));
            }
            let _ = writeln!(w);
        }
    }

    // Findings.
    let _ = writeln!(w, "## Findings");
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "Every pair that is not safe, with the shortest command of the case tests that gets it \
         (— where none does yet)."
    );
    let _ = writeln!(w);
    for effect in Effect::ALL {
        let _ = writeln!(w, "### {}", effect.name());
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "The command {} the place. Cost: {}.",
            effect.verb(),
            effect.cost()
        );
        let _ = writeln!(w);
        let _ = writeln!(w, "| finding | level | example |");
        let _ = writeln!(w, "|---|---|---|");
        for kind in Kind::ALL {
            let level = effects::level(effect, kind);
            if level == Level::Safe {
                continue;
            }
            let id = effects::cell_id(effect, kind);
            let example = examples.get(id).map_or("—".to_owned(), |c| code(c));
            let _ = writeln!(w, "| `{id}` | {} | {example} |", level_name(level));
        }
        let _ = writeln!(w);
    }

    let _ = writeln!(w, "## Input that cannot be read");
    let _ = writeln!(w);
    let _ = writeln!(w, "| finding | level | example |");
    let _ = writeln!(w, "|---|---|---|");
    for u in UNREADABLE {
        let example = examples.get(u.id).map_or("—".to_owned(), |c| code(c));
        let _ = writeln!(w, "| `{}` | opaque | {example} |", u.id);
    }
    let _ = writeln!(w);

    let _ = writeln!(w, "## Tool calls");
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "A tool call's path arguments are placed like shell words and get the effect the tool \
         has on them, with the same findings: `Read` of `~/.ssh/id_rsa` is `read.secret`, as \
         `cat ~/.ssh/id_rsa` is. A tool not listed here is *given* its paths (`use.*`) unless \
         the registry says it only reads; Codex's `apply_patch` is judged by the files its \
         patch adds (overwrite), updates (write), deletes and moves to. An argument is a path \
         when its name's last word says path, file or directory, in any case and with any \
         separator (`file_path`, `filePath`, `target_file`, `absolute_path`, `dir_path`), or \
         the name is an end of a move (`source`, `dest`), at any depth of nested arguments; a \
         tool's name is matched the same way (`ReadFile` is `read_file`). Under any other \
         name, a value that is plainly a path (absolute or in a home, one word) and names a \
         secret, a protected file or the gate is given to a tool that is neither a file tool \
         nor registered as only reading (`attachment`, `location`)."
    );
    let _ = writeln!(w);
    let _ = writeln!(w, "| tool | effect on its paths |");
    let _ = writeln!(w, "|---|---|");
    for (tool, used) in PATH_TOOLS {
        let effect = match used {
            PathUse::Reads => "read",
            PathUse::Searches => "read, a whole tree",
            PathUse::Lists => "none: lists names",
            PathUse::Writes => "overwrite",
            PathUse::Edits => "write",
            PathUse::Deletes => "delete, a whole tree",
            PathUse::Moves => "move (source), overwrite (destination)",
        };
        let _ = writeln!(w, "| `{tool}` | {effect} |");
    }
    out
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[test]
fn catalogue_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/catalogue.md");
    let made = render();
    if std::env::var_os("ASSENT_BLESS").is_some() {
        std::fs::write(&path, &made).expect("docs/ is writable");
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == made,
        "docs/catalogue.md is not what levels.md, the vocabulary and the case tests make: run \
         `ASSENT_BLESS=1 cargo test -p assentd --lib catalogue` and commit the file"
    );
}

/// Cells that are not safe and that no command of the case tests reaches yet. The number
/// may only go down: a cell that loses its last example, or a new cell without one, fails.
const CELLS_WITHOUT_EXAMPLE: usize = 156;

#[test]
fn catalogue_examples_cover_the_table() {
    let examples = examples();
    let missing: Vec<&str> = Effect::ALL
        .iter()
        .flat_map(|e| Kind::ALL.iter().map(move |k| (*e, *k)))
        .filter(|(e, k)| effects::level(*e, *k) != Level::Safe)
        .map(|(e, k)| effects::cell_id(e, k))
        .filter(|id| !examples.contains_key(id))
        .collect();
    assert!(
        missing.len() <= CELLS_WITHOUT_EXAMPLE,
        "{} cells without an example, more than {CELLS_WITHOUT_EXAMPLE}: {missing:?}",
        missing.len()
    );
}
