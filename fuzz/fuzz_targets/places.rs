//! Fuzz target for the places vocabulary (`assentd::places`), which the shell analysis
//! reaches only through words it has resolved: any pieces, from any working directory, for
//! any home, are placed somewhere without a panic; a literal path reads back as itself; and a
//! glob matches a name exactly when the name, as a word, meets it.
//!
//! Input: segments separated by 0xFF. The first byte picks the working directory, the home
//! and whether the path is a whole tree; each segment after it is one piece, its first byte
//! the kind (literal text, glob syntax, unknown text, part of a name, the home, what a
//! listing finds) and the rest the text. A last segment of two parts split by 0xFE is a glob
//! and a name to match.

#![cfg_attr(fuzzing, no_main)]

use assentd::places::{Glob, Path, Piece, Where, classify};

const DIRS: &[Option<&str>] = &[
    Some("/home/u/proj"),
    Some("/home/u"),
    Some("/"),
    Some("/proc/self/cwd"),
    Some("relative"),
    None,
];

const HOMES: &[Option<&str>] = &[Some("/home/u"), Some("/root"), Some(""), None];

fn piece(segment: &[u8]) -> Piece {
    let (kind, text) = segment.split_first().unwrap_or((&0, &[]));
    let text = String::from_utf8_lossy(text).into_owned();
    match kind % 6 {
        0 => Piece::Lit(text),
        1 => Piece::Glob(text),
        2 => Piece::Opaque,
        3 => Piece::Name,
        4 => Piece::Home,
        _ => Piece::Below,
    }
}

fn run(data: &[u8]) {
    let Some((config, rest)) = data.split_first() else {
        return;
    };
    let cwd = DIRS[usize::from(*config) % DIRS.len()];
    let home = HOMES[usize::from(config / 8) % HOMES.len()];
    let tree = config & 0x80 != 0;
    let mut segments: Vec<&[u8]> = rest.split(|b| *b == 0xFF).collect();
    if let Some(last) = segments.last()
        && let Some(at) = last.iter().position(|b| *b == 0xFE)
    {
        let glob = String::from_utf8_lossy(&last[..at]).into_owned();
        let name = String::from_utf8_lossy(&last[at + 1..]).into_owned();
        let g = Glob::parse(&glob);
        assert_eq!(
            Glob::literal(&name).meets(&g),
            g.matches(&name),
            "{glob:?} matches {name:?} exactly when the name meets it"
        );
        let _ = (
            g.names(&Glob::literal(&name)),
            g.within(&Glob::parse(&name)),
        );
        segments.pop();
    }
    let pieces: Vec<Piece> = segments.iter().map(|s| piece(s)).collect();
    let w = Where::new(cwd, home);
    let path = Path::from_pieces(&pieces, cwd);
    assert!(
        !classify(&path, tree, &w).is_empty(),
        "every path is somewhere: {pieces:?}"
    );
    if let Some(text) = path.literal_text() {
        assert_eq!(Path::absolute(&text), path, "a literal path reads back");
    }
    let _ = classify(&path.clone().through_proc(cwd), tree, &w);
    let _ = classify(&path.beneath(), tree, &w);
    if let Some(dir) = path.everything_in() {
        let _ = classify(&dir, true, &w);
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
