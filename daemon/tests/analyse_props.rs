//! Robustness of the shell analyser (issue 3, item 7): random lines built from shell
//! fragments, and mutations of the peer-case commands, never panic or overflow a 2 MiB
//! stack, keep every span inside the input on character boundaries, and give the level of
//! their most severe finding. The lines are only ever analysed, never run.

use std::path::Path;

use assent_client::protocol::Level;
use assentd::analyse::{Analysis, Context, shell};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const CTX: Context<'static> = Context {
    cwd: "/home/user/project",
    home: Some("/home/user"),
    truncated: false,
};

/// Pieces of shell that exercise quoting, nesting, heredocs and the walker's quirks.
const FRAGMENTS: &[&str] = &[
    "rm",
    " -rf",
    " ~",
    " /",
    " x",
    "'",
    "\"",
    "$(",
    ")",
    "`",
    "&&",
    "||",
    "|",
    ";",
    "&",
    "\n",
    "\\\n",
    "<<EOF\n",
    "\nEOF\n",
    "<<<",
    "<",
    ">",
    ">>",
    "2>&1",
    "{",
    "}",
    "(",
    " ( ",
    "$x",
    "${HOME}",
    "$'\\x72m'",
    "c=rm; $c",
    "sudo ",
    "env -S ",
    "xargs ",
    "find . -exec ",
    " {} \\;",
    "bash -c ",
    "python3 -c ",
    "perl -e ",
    "awk '{system(\"",
    "sed 's/a/b/e'",
    "eval ",
    "cd / && ",
    "f() { f|f& }; f",
    "for i in a; do ",
    "; done",
    "if x; then ",
    "; fi",
    "case $a in b) ",
    ";; esac",
    "é",
    "日本",
    "\u{0}",
    "\u{feff}",
    "#",
    "*",
    "~bob",
    "parallel ::: ",
    "ssh h ",
    "su -c ",
    "watch ",
    "busybox ",
    "git reset --hard",
];

fn check(line: &str) -> Result<(), TestCaseError> {
    let a: Analysis = shell(line, &CTX);
    for span in a
        .findings
        .iter()
        .map(|f| &f.span)
        .chain(a.commands.iter().map(|c| &c.span))
    {
        prop_assert!(
            span.start <= span.end && span.end <= line.len(),
            "{span:?} in {line:?}"
        );
        prop_assert!(
            line.is_char_boundary(span.start) && line.is_char_boundary(span.end),
            "{span:?} in {line:?}"
        );
    }
    let max = a
        .findings
        .iter()
        .map(|f| f.level)
        .max()
        .unwrap_or(Level::Safe);
    prop_assert_eq!(a.level, max, "{:?}", line);
    Ok(())
}

fn peer_commands() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer-cases");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for line in text.lines() {
            let record: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            if let Some(c) = record.get("command").and_then(|c| c.as_str()) {
                out.push(c.to_owned());
            }
        }
    }
    out
}

/// A mutation of `base`: a fragment inserted, a range cut, or the line doubled.
fn mutate(base: &str, op: u8, at: usize, len: usize, fragment: &str) -> String {
    let boundary = |i: usize| {
        let mut i = i.min(base.len());
        while !base.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let a = boundary(at);
    let b = boundary(at.saturating_add(len));
    match op % 3 {
        0 => format!("{}{fragment}{}", &base[..a], &base[a..]),
        1 => format!("{}{}", &base[..a], &base[b.max(a)..]),
        _ => format!("{base} {fragment} {base}"),
    }
}

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .expect("a thread can be spawned")
        .join()
        .expect("the analyser does not panic or overflow on a 2 MiB stack");
}

#[test]
fn random_fragment_lines() {
    on_small_stack(|| {
        let mut runner = TestRunner::new(Config {
            cases: 3000,
            failure_persistence: None,
            ..Config::default()
        });
        let lines = prop::collection::vec(prop::sample::select(FRAGMENTS), 0..32)
            .prop_map(|parts| parts.concat());
        runner
            .run(&lines, |line| check(&line))
            .expect("every random line keeps the properties");
    });
}

#[test]
fn mutated_peer_cases() {
    on_small_stack(|| {
        let commands = peer_commands();
        assert!(!commands.is_empty(), "the peer cases are in the repository");
        let mut runner = TestRunner::new(Config {
            cases: 4000,
            failure_persistence: None,
            ..Config::default()
        });
        let strategy = (
            0..commands.len(),
            any::<u8>(),
            0usize..256,
            0usize..32,
            prop::sample::select(FRAGMENTS),
        );
        runner
            .run(&strategy, |(i, op, at, len, fragment)| {
                check(&mutate(&commands[i], op, at, len, fragment))
            })
            .expect("every mutated peer case keeps the properties");
    });
}
