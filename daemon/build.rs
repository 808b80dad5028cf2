//! Reads the built-in program book (`src/analyse/index/*.toml`) and writes it as the Rust table
//! `analyse::index::ENTRIES` (`$OUT_DIR/book.rs`, included by `index.rs`), so the daemon starts
//! with the book compiled in: no parse at start-up, no allocation per lookup. Every key and
//! value is checked (`analyse/index/generate.rs`, which owns the format); a bad one fails the
//! build with file:line:column and the reason.

use std::path::Path;

#[path = "src/analyse/index/generate.rs"]
mod generate;
#[path = "src/analyse/index/generate_code.rs"]
mod generate_code;

/// The book's files, in the order their entries are looked up.
const FILES: &[&str] = &[
    "run.toml",
    "reading.toml",
    "files.toml",
    "network.toml",
    "system.toml",
    "data.toml",
    "code.toml",
];

fn main() {
    let dir = Path::new("src/analyse/index");
    println!("cargo:rerun-if-changed={}", dir.display());
    listed_only(dir);
    let files: Vec<(String, String)> = FILES
        .iter()
        .map(|file| {
            let path = dir.join(file);
            let shown = format!("daemon/{}", path.display());
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| fail(&format!("{shown}: cannot read: {e}")));
            (shown, text)
        })
        .collect();
    let out = generate::generate(&files).unwrap_or_else(|why| fail(&why));
    let target =
        Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| fail("no OUT_DIR"))).join("book.rs");
    std::fs::write(&target, out).unwrap_or_else(|e| fail(&format!("{}: {e}", target.display())));
}

/// A `.toml` file in the book's directory that `FILES` does not name would be left out unseen.
fn listed_only(dir: &Path) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".toml") && !FILES.contains(&name.as_str()) {
            fail(&format!(
                "{}/{name}: not in build.rs's FILES, so its programs would not be read",
                dir.display()
            ));
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}
