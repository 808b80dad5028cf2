//! Part of the `assentd` binary (`main.rs`), not the library: the hidden `--completions SHELL`
//! and `--man DIR` flags, which generate shell completions and the man page from the clap
//! definition itself so they cannot drift from the flags. The Debian package is built from
//! their output (`packaging/deb/build`); nothing generated is committed.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::{CommandFactory, ValueEnum};

use super::Args;

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

/// Print completions for `shell`, or write `assentd.1` into `man`; `None` when neither was
/// asked for and the daemon should start.
pub fn generate(shell: Option<Shell>, man: Option<&Path>) -> Option<ExitCode> {
    let result = if let Some(shell) = shell {
        let generator = match shell {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
        };
        let mut script = Vec::new();
        clap_complete::generate(generator, &mut Args::command(), "assentd", &mut script);
        std::io::stdout().lock().write_all(&script)
    } else if let Some(dir) = man {
        clap_mangen::generate_to(Args::command(), dir)
    } else {
        return None;
    };
    Some(match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("assentd: could not write the completions or man page: {error}");
            ExitCode::FAILURE
        }
    })
}
