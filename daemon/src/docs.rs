//! Part of the `assentd` binary (`main.rs`), not the library: the hidden `--completions SHELL`
//! and `--man DIR` flags, which generate shell completions and the man page `assentd(8)` from
//! the clap definition itself so they cannot drift from the flags, and write the policy file's
//! page `assent-policy(5)` beside it (written by hand in `daemon/man/`; tests/tests/docs.rs
//! checks that it names every key the loader takes). The Debian package is built from their
//! output (`packaging/deb/build`); nothing generated is committed.

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

/// The policy file's page.
const POLICY_PAGE: &str = include_str!("../man/assent-policy.5");

/// Print completions for `shell`, or write `assentd.8` and `assent-policy.5` into `man`; `None`
/// when neither was asked for and the daemon should start.
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
        write_pages(dir)
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

/// `assentd.8`: clap's page with the sections its definition cannot give; and the policy page.
fn write_pages(dir: &Path) -> std::io::Result<()> {
    use assent_client::man::{Section, examples, see_also, statuses, tagged};
    let man = clap_mangen::Man::new(Args::command()).section("8");
    let mut page = Vec::new();
    man.render(&mut page)?;
    let status = statuses(&[
        (
            0,
            "Stopped cleanly (SIGTERM, SIGINT); --check-policy: the policy is valid.",
        ),
        (
            1,
            "Could not start (the reason is printed): the policy does not load, the socket is in use, the state directory cannot be made; --check-policy: the policy is not valid.",
        ),
        (2, "Usage error."),
    ]);
    let environment = tagged(&[
        (
            "ASSENT_LOG",
            "The log filter (ASSENT_LOG=debug); the log goes to the journal when its socket exists, else to standard error.",
        ),
        (
            "XDG_RUNTIME_DIR, XDG_STATE_HOME, XDG_CONFIG_HOME",
            "Where a user daemon's socket, state and policy are.",
        ),
        (
            "NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID",
            "systemd's notify protocol: READY=1, WATCHDOG=1, STOPPING=1.",
        ),
        (
            "LISTEN_FDS, LISTEN_PID",
            "Socket activation: serve on the socket systemd passed (a ListenSequentialPacket= socket).",
        ),
    ]);
    let signals = tagged(&[
        (
            "SIGHUP",
            "Reload the policy (it is also reloaded when the file changes).",
        ),
        (
            "SIGTERM, SIGINT",
            "Stop: held requests are denied, the socket file is removed (unless systemd passed it).",
        ),
    ]);
    let files = tagged(&[
        (
            "/run/assent/socket",
            "The system daemon's socket (mode 0666: the kernel names each caller).",
        ),
        (
            "/etc/assent/policy.toml",
            "The system daemon's policy: see assent-policy(5).",
        ),
        (
            "/var/lib/assent/remembered.json",
            "Approvals remembered always or for a duration.",
        ),
        (
            "/var/lib/assent/audit.jsonl",
            "Every decision, one JSON line each, when the journal is not used.",
        ),
        (
            "$XDG_RUNTIME_DIR/assent/socket, $XDG_CONFIG_HOME/assent/policy.toml, $XDG_STATE_HOME/assent/",
            "The same for a user daemon (--user); its audit is always $XDG_STATE_HOME/assent/audit.jsonl.",
        ),
    ]);
    let examples = examples(&[
        (
            "Run a daemon for yourself, on the embedded default policy:",
            "assentd --user",
        ),
        (
            "Check a policy file and print the policy in force with it:",
            "assentd --check-policy /etc/assent/policy.toml",
        ),
        (
            "The packaged system daemon, started by its socket:",
            "systemctl enable --now assentd.socket",
        ),
    ]);
    let see = see_also(&[
        ("assent", "1"),
        ("assent-policy", "5"),
        ("assent-notify", "1"),
        ("systemd.socket", "5"),
        ("polkit", "8"),
    ]);
    let page = assent_client::man::with_sections(
        &String::from_utf8_lossy(&page),
        &[
            Section {
                title: "EXIT STATUS",
                body: &status,
            },
            Section {
                title: "ENVIRONMENT",
                body: &environment,
            },
            Section {
                title: "SIGNALS",
                body: &signals,
            },
            Section {
                title: "FILES",
                body: &files,
            },
            Section {
                title: "EXAMPLES",
                body: &examples,
            },
            Section {
                title: "SEE ALSO",
                body: &see,
            },
        ],
    );
    std::fs::write(dir.join(man.get_filename()), page)?;
    std::fs::write(dir.join("assent-policy.5"), POLICY_PAGE)
}
