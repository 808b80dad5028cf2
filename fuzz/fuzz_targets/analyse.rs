//! Fuzz target for the shell analyser: any input is answered without a
//! panic, with spans inside the input on character boundaries and the level of the most
//! severe finding. `cargo fuzz run analyse` (nightly) runs it under libFuzzer; built on
//! stable it is a plain binary that replays the files named on its command line.

#![cfg_attr(fuzzing, no_main)]

use assent_client::protocol::Level;
use assentd::analyse::{Surroundings, shell};

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/user/project",
    home: Some("/home/user"),
    project: Some("/home/user/project"),
    truncated: false,
};

fn run(data: &[u8]) {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let a = shell(line, &CTX);
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
