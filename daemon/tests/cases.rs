//! Classes of disguise, and the everyday commands that must stay allowed.
//!
//! `cases/held.jsonl` holds commands that really destroy, overwrite or leak when bash runs
//! them, each in a class (secret reads, delete disguises, option parsing, protected writes,
//! unknown programs, line state, stdin and substitutions, root as the requester) with the
//! least level it must get (`min`). `cases/allowed.jsonl` holds a coding agent's day (builds,
//! tests, git, package installs, writing and cleaning in the project, harmless reads in the
//! home) that must stay safe or moderate. They were written adversarially, apart from the
//! analyser's own tables, and are only ever analysed, never run.
//!
//! `cases/known.jsonl` lists the cases the analyser does not meet yet, each with why. The test
//! fails when a case is missed that is not listed, and when a listed case is met (remove it
//! from the list then), so the list stays the truth. `cargo test -p assentd --test cases --
//! --nocapture` prints the score per class.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use assent_client::protocol::Level;
use assentd::analyse::{Disk, Got, Surroundings, shell, shell_read};
use assentd::places::Added;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Case {
    command: String,
    cwd: String,
    home: String,
    class: String,
    #[serde(default)]
    min: Option<String>,
    /// What the daemon read from the disk for the line, by path relative to `cwd`: a file's
    /// text, or `null` for no file there. A case with files or links is analysed with that
    /// snapshot, as the last round of reading (anything else wanted is unread).
    #[serde(default)]
    files: Option<BTreeMap<String, Option<String>>>,
    /// Symbolic links among the paths, relative to `cwd`, and where each leads.
    #[serde(default)]
    links: Option<BTreeMap<String, String>>,
    /// The project the daemon found (the repository around `cwd`): when the case leaves it
    /// out, it stands in a repository at `cwd`; `null` stands where there is none
    /// (`~/Documents`), where the home's rules apply.
    #[serde(default, deserialize_with = "present")]
    project: Option<Option<String>>,
}

/// A key that is there, `null` or not, is `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize)]
struct Known {
    command: String,
    why: String,
}

fn load<T: for<'de> Deserialize<'de>>(name: &str) -> Vec<T> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cases")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the case tables are in the repository");
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: {e}: {line}")))
        .collect()
}

fn level_named(name: &str) -> Level {
    match name {
        "safe" => Level::Safe,
        "moderate" => Level::Moderate,
        "opaque" => Level::Opaque,
        "destructive" => Level::Destructive,
        "forbidden" => Level::Forbidden,
        other => panic!("unknown level {other}"),
    }
}

fn level_of(case: &Case) -> Level {
    let ctx = Surroundings {
        cwd: &case.cwd,
        home: Some(&case.home),
        project: match &case.project {
            Some(found) => found.as_deref(),
            None => Some(&case.cwd),
        },
        truncated: false,
    };
    if case.files.is_none() && case.links.is_none() {
        return shell(&case.command, &ctx).level;
    }
    let mut disk = Disk {
        complete: true,
        ..Disk::default()
    };
    let at = |rel: &str| format!("{}/{rel}", case.cwd.trim_end_matches('/'));
    for (rel, text) in case.files.iter().flatten() {
        let got = match text {
            Some(t) => Got::Text(Arc::from(t.as_str())),
            None => Got::Missing,
        };
        disk.files.insert(at(rel), got);
    }
    for (rel, to) in case.links.iter().flatten() {
        disk.links.insert(at(rel), Some(to.clone()));
    }
    shell_read(&case.command, &ctx, Added::default(), &disk).level
}

#[test]
fn classes_of_disguise_are_held_and_a_working_day_is_not() {
    let known: Vec<Known> = load("known.jsonl");
    assert!(
        known.iter().all(|k| !k.why.trim().is_empty()),
        "every known gap says why"
    );
    let is_known = |command: &str| known.iter().any(|k| k.command == command);
    let mut unexpected = Vec::new();
    let mut met_now = Vec::new();
    // class → (met, total)
    let mut score: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let held: Vec<Case> = load("held.jsonl");
    let allowed: Vec<Case> = load("allowed.jsonl");
    assert!(held.len() > 300 && allowed.len() > 200);
    for case in held.iter().chain(&allowed) {
        let level = level_of(case);
        let ok = match &case.min {
            Some(min) => level >= level_named(min),
            None => level <= Level::Moderate,
        };
        let entry = score.entry(case.class.clone()).or_default();
        entry.1 += 1;
        if ok {
            entry.0 += 1;
        }
        match (ok, is_known(&case.command)) {
            (false, false) => {
                unexpected.push(format!("{level:?} {:?} ({})", case.command, case.class))
            }
            (true, true) => met_now.push(case.command.clone()),
            _ => {}
        }
    }
    for (class, (met, total)) in &score {
        println!("{class:<24} {met:>4}/{total}");
    }
    let stale: Vec<&str> = known
        .iter()
        .map(|k| k.command.as_str())
        .filter(|c| !held.iter().chain(&allowed).any(|case| case.command == *c))
        .collect();
    assert!(stale.is_empty(), "known gaps that are no case: {stale:#?}");
    assert!(
        unexpected.is_empty(),
        "cases not met (fix the analyser, or list them in cases/known.jsonl with why):\n{}",
        unexpected.join("\n")
    );
    assert!(
        met_now.is_empty(),
        "listed as known gaps but met now (remove them from cases/known.jsonl):\n{}",
        met_now.join("\n")
    );
}
