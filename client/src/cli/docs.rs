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

/// What `assent` exits with, for EXIT STATUS: every code of [`exit`], so the page names them
/// all (the help's EXIT CODES say the same in short).
pub const EXIT_STATUS: [(u8, &str); 7] = [
    (exit::ALLOW, "Allowed, or the request succeeded."),
    (
        exit::DENY,
        "Denied: by the policy, by a person, or because nobody answered before the request expired; or an answer was refused.",
    ),
    (
        exit::HELD,
        "Held, with --no-wait: the token is printed on standard output.",
    ),
    (exit::USAGE, "Usage error."),
    (
        exit::UNAVAILABLE,
        "The gate is unavailable (no daemon, another protocol version): nothing was allowed. run and sh also exit 126 when the command is denied.",
    ),
    (exit::NOT_FOUND, "run and sh: the program was not found."),
    (
        exit::CANCELLED,
        "Ctrl-C while the request was held: it was withdrawn.",
    ),
];

/// The sections of `assent(1)` that clap's definition cannot give.
fn sections() -> Vec<(&'static str, String)> {
    use assent_client::man::{examples, see_also, statuses, tagged};
    let mut status = statuses(&EXIT_STATUS);
    status.push_str(
        ".PP\nrun and sh exit with the program's own status when it was allowed and ran. assent hook exits 0 (allow) or 2 (deny) only, as the agents read it.\n",
    );
    vec![
        ("EXIT STATUS", status),
        (
            "ENVIRONMENT",
            tagged(&[
                (
                    "ASSENT_SOCKET",
                    "The daemon's socket when --socket is not given. An agent's doors (check, run, sh, hook) use /run/assent/socket whenever it exists, whatever this says.",
                ),
                (
                    "XDG_RUNTIME_DIR",
                    "Where a user daemon's socket is: $XDG_RUNTIME_DIR/assent/socket.",
                ),
                (
                    "ASSENT_TIMEOUT",
                    "How long to wait for the daemon to accept and answer (default 30s); a held request waits for its answer regardless.",
                ),
                (
                    "ASSENT_SESSION, ASSENT_AGENT",
                    "The session label and the agent's name sent with a request. They are the client's own claim: they can raise a decision, never lower it.",
                ),
                (
                    "NO_COLOR",
                    "Set and not empty: no colour with --color=auto (the default), as https://no-color.org asks. TERM=dumb does the same.",
                ),
                (
                    "COLUMNS",
                    "The width help text and assent watch fit, when the terminal does not say.",
                ),
            ]),
        ),
        (
            "FILES",
            tagged(&[
                (
                    "/run/assent/socket",
                    "The system daemon's socket (assentd.socket).",
                ),
                (
                    "$XDG_RUNTIME_DIR/assent/socket",
                    "A user daemon's socket (assentd --user).",
                ),
                (
                    "/etc/assent/policy.toml",
                    "The system daemon's policy; a user daemon's is $XDG_CONFIG_HOME/assent/policy.toml. See assent-policy(5).",
                ),
                (
                    "/var/lib/assent/audit.jsonl",
                    "The audit file, one JSON line per decision; assent log shows the recent ones (a user daemon's: $XDG_STATE_HOME/assent/audit.jsonl).",
                ),
                (
                    "/var/lib/assent/remembered.json",
                    "Approvals remembered always or for a duration (assent remembered, assent forget).",
                ),
            ]),
        ),
        (
            "EXAMPLES",
            examples(&[
                (
                    "Check a line as an agent would; exit 0 means it may run:",
                    "assent check -- ls -la",
                ),
                (
                    "See how a line is analysed and what would be decided, without holding it:",
                    "assent explain 'cd repo && git push --force'",
                ),
                (
                    "Check, then run the program if allowed:",
                    "assent run -- cargo test",
                ),
                (
                    "From another terminal, list held requests and allow one for the session:",
                    "assent pending && assent approve pa_0123... --remember session",
                ),
                (
                    "Answer held requests from this terminal, one key each:",
                    "assent watch",
                ),
                (
                    "Put the gate's hook into Claude Code's settings, then check it is in place:",
                    "assent setup claude-code && assent setup --check",
                ),
            ]),
        ),
        (
            "SEE ALSO",
            see_also(&[
                ("assentd", "8"),
                ("assent-policy", "5"),
                ("assent-notify", "1"),
                ("assent-check", "1"),
                ("assent-watch", "1"),
                ("polkit", "8"),
            ]),
        ),
    ]
}

/// Write `assent.1` and one page per subcommand (`assent-check.1`, …) into `dir`: clap's pages,
/// with the sections above on `assent.1` (its EXIT CODES help text is EXIT STATUS there) and a
/// SEE ALSO on each subcommand's page.
pub fn man(dir: &Path) -> u8 {
    match write_pages(dir) {
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

fn write_pages(dir: &Path) -> std::io::Result<()> {
    use assent_client::man::{Section, with_sections};
    let mut top = Cli::command().disable_help_subcommand(true);
    top.build();
    for sub in top.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_subpages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(top.after_help(None::<&str>));
    let sections = sections();
    let sections: Vec<Section<'_>> = sections
        .iter()
        .map(|(title, body)| Section { title, body })
        .collect();
    std::fs::write(
        dir.join(man.get_filename()),
        with_sections(&render(&man)?, &sections),
    )
}

/// A subcommand's page and its own subcommands' pages, each with a SEE ALSO.
fn write_subpages(command: &clap::Command, dir: &Path) -> std::io::Result<()> {
    use assent_client::man::{Section, see_also, with_sections};
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_subpages(sub, dir)?;
    }
    let body = see_also(&[("assent", "1"), ("assentd", "8"), ("assent-policy", "5")]);
    let man = clap_mangen::Man::new(command.clone());
    let page = with_sections(
        &render(&man)?,
        &[Section {
            title: "SEE ALSO",
            body: &body,
        }],
    );
    std::fs::write(dir.join(man.get_filename()), page)
}

/// A page clap_mangen rendered, as text.
fn render(man: &clap_mangen::Man) -> std::io::Result<String> {
    let mut page = Vec::new();
    man.render(&mut page)?;
    Ok(String::from_utf8_lossy(&page).into_owned())
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
        for section in [
            "EXIT STATUS",
            "ENVIRONMENT",
            "FILES",
            "EXAMPLES",
            "SEE ALSO",
        ] {
            assert!(
                top.contains(&format!(".SH \"{section}\"")),
                "{section}:\n{top}"
            );
        }
        let check = std::fs::read_to_string(dir.join("assent-check.1")).expect("a subpage");
        assert!(
            check.contains(".SH \"SEE ALSO\"\n.BR assent (1)"),
            "{check}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The page's EXIT STATUS and the help's EXIT CODES name the same codes.
    #[test]
    fn the_exit_status_and_the_help_agree() {
        for (status, _) in EXIT_STATUS {
            assert!(
                super::super::AFTER_HELP.contains(&format!("{status} ")),
                "{status} is not in the help's EXIT CODES"
            );
        }
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("assent-man-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory can be made");
        dir
    }
}
