//! Fuzz target for the splitter and the line state it carries across pieces: the input is
//! analysed as it is, parsed whole (`shell_unsplit`), and as a long line — the input
//! repeated, joined by `;` or a newline, past the 2,048 bytes from which `shell` cuts a line
//! into pieces. Every answer keeps the analyser's promises (no panic, spans inside the input
//! on character boundaries, the level of the most severe finding). With
//! `ASSENT_FUZZ_AGREE=1` in the environment, a line cut in pieces must also get the level of
//! the same line parsed whole: off by default while the bugs named in README.md stand.
//!
//! The inputs are analysed, never run.

#![cfg_attr(fuzzing, no_main)]

use assent_client::protocol::Level;
use assentd::analyse::{Analysis, Surroundings, shell, shell_unsplit};

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/user/project",
    home: Some("/home/user"),
    project: Some("/home/user/project"),
    truncated: false,
};

/// Long lines are cut past this many bytes (the analyser's `SPLIT_AT`).
const SPLIT_AT: usize = 2048;

/// The longest line built from an input: long enough to be cut in many pieces, short
/// enough that parsing it whole stays fast.
const LONGEST: usize = 16 * 1024;

fn keeps_promises(line: &str, a: &Analysis) {
    for span in a
        .findings
        .iter()
        .map(|f| &f.span)
        .chain(a.commands.iter().map(|c| &c.span))
    {
        assert!(
            span.start <= span.end && span.end <= line.len(),
            "span {span:?} outside the input"
        );
        assert!(
            line.is_char_boundary(span.start) && line.is_char_boundary(span.end),
            "span {span:?} not on character boundaries"
        );
    }
    let max = a
        .findings
        .iter()
        .map(|f| f.level)
        .max()
        .unwrap_or(Level::Safe);
    assert_eq!(a.level, max, "the level is the most severe finding's");
}

/// `unit` repeated, joined by `joint`, until the line is past the splitter's threshold.
fn long_line(unit: &str, joint: &str) -> Option<String> {
    if unit.trim().is_empty() || unit.len() > LONGEST / 2 {
        return None;
    }
    let mut line = unit.to_owned();
    while line.len() <= SPLIT_AT {
        line.push_str(joint);
        line.push_str(unit);
    }
    Some(line)
}

fn run(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let agree = std::env::var_os("ASSENT_FUZZ_AGREE").is_some();
    let mut lines = vec![input.to_owned()];
    // The joint after the input's first byte picks `;` or a newline.
    let joint = if data.first().is_some_and(|b| b % 2 == 0) {
        "; "
    } else {
        "\n"
    };
    lines.extend(long_line(input, joint));
    for line in &lines {
        let cut = shell(line, &CTX);
        keeps_promises(line, &cut);
        if line.len() > LONGEST {
            continue;
        }
        let whole = shell_unsplit(line, &CTX);
        keeps_promises(line, &whole);
        if agree {
            let start: String = line.chars().take(200).collect();
            assert_eq!(
                cut.level,
                whole.level,
                "cut and whole agree on {start:?}… ({} bytes)",
                line.len()
            );
        }
    }
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| run(data));

#[cfg(not(fuzzing))]
fn main() {
    for path in std::env::args().skip(1) {
        match std::fs::read(&path) {
            Ok(data) => run(&data),
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
}
