//! `assent init bash|zsh`: print the interactive shell hook, for `eval "$(assent init bash)"`.
//!
//! The scripts live in `shell-hook/` and are compiled in, so the hook always matches the client
//! that prints it. Printing is all this does: it needs no daemon.

use std::io::Write;

use clap::ValueEnum;

use super::exit;

/// The shells the hook supports.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    /// bash 5.0 or later: a DEBUG trap with extdebug, armed once per line from PS0.
    Bash,
    /// zsh: a wrapped `accept-line` widget.
    Zsh,
}

const BASH: &str = include_str!("../../../shell-hook/assent.bash");
const ZSH: &str = include_str!("../../../shell-hook/assent.zsh");

/// Print the hook for `shell` on stdout.
pub fn init(shell: Shell) -> u8 {
    let script = match shell {
        Shell::Bash => BASH,
        Shell::Zsh => ZSH,
    };
    match std::io::stdout().lock().write_all(script.as_bytes()) {
        Ok(()) => exit::ALLOW,
        Err(error) => {
            super::messages::say(&format!("could not print the hook: {error}"));
            exit::DENY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both scripts guard against double sourcing and name everything `__assent_`.
    #[test]
    fn the_scripts_are_embedded() {
        assert!(BASH.contains("__assent_loaded"));
        assert!(ZSH.contains("__assent_loaded"));
    }
}
