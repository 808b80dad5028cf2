//! Linked `-z nodelete`: bash `dlclose`s a loadable when its last builtin is disabled (`enable
//! -d`), and a line that disables `assent_confine` while the builtin runs it would unmap the
//! code it returns into. Kept loaded, the library stays mapped until the shell exits.
//!
//! And with GCC's unwinder linked in (`libgcc_eh.a`) in place of `libgcc_s.so.1`, which
//! Rust's standard library names for unwinding: bash has not loaded `libgcc_s`, so every
//! `enable -f` would load and relocate a second library, 0.13 ms of each agent's call
//! (BENCHMARKS.md). With the unwinder's code inside (its symbols stay hidden: rustc's version
//! script exports only the builtins), `--as-needed` drops `libgcc_s`, and a caught panic still
//! unwinds. Where the C compiler has no `libgcc_eh.a` (not GCC's), `libgcc_s` stays.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    println!("cargo:rerun-if-env-changed=CC");
    if let Some(archive) = gcc_eh() {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--whole-archive,{},--no-whole-archive",
            archive.display()
        );
    }
}

/// The C compiler's `libgcc_eh.a`, when it has one (it prints the bare name when it does not).
fn gcc_eh() -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && path.is_absolute() && path.is_file()).then_some(path)
}
