//! `assent completions SHELL` and the hidden `assent man DIR`: shell completions and man pages
//! generated from the clap definitions themselves, so they cannot drift from the flags. The
//! Debian package is built from their output (`packaging/deb/build`); nothing generated is
//! committed.
//!
//! Neither is on the check path: `fast.rs` answers a plain check before clap is touched, and
//! clap builds this subcommand's arguments only when it parses.

use std::io::Write;
use std::path::Path;

use clap::{CommandFactory, ValueEnum};

use super::{Cli, exit, messages};

/// The shells completions are generated for.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    /// bash (bash-completion).
    Bash,
    /// zsh (compinit).
    Zsh,
    /// fish.
    Fish,
}

/// Print the completion script for `shell` on stdout.
pub fn completions(shell: Shell) -> u8 {
    let generator = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(generator, &mut Cli::command(), "assent", &mut script);
    match std::io::stdout().lock().write_all(&script) {
        Ok(()) => exit::ALLOW,
        Err(error) => {
            messages::say(&format!("could not print the completions: {error}"));
            exit::DENY
        }
    }
}

/// Write `assent.1` and one page per subcommand (`assent-check.1`, …) into `dir`.
pub fn man(dir: &Path) -> u8 {
    match clap_mangen::generate_to(Cli::command(), dir) {
        Ok(()) => exit::ALLOW,
        Err(error) => {
            messages::say(&format!(
                "could not write the man pages into {}: {error}",
                dir.display()
            ));
            exit::DENY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pages name every visible subcommand and leave out the hidden generator.
    #[test]
    fn man_pages_cover_the_subcommands() {
        let dir = tempfile_dir();
        assert_eq!(man(&dir), exit::ALLOW);
        let top = std::fs::read_to_string(dir.join("assent.1")).expect("assent.1 is written");
        assert!(top.contains("assent\\-check(1)"), "{top}");
        assert!(dir.join("assent-check.1").is_file());
        assert!(dir.join("assent-completions.1").is_file());
        assert!(!dir.join("assent-man.1").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("assent-man-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory can be made");
        dir
    }
}
