//! Running an allowed command inside the Landlock domain its verdict gives
//! ([`Confinement`]): the client confines itself, then starts the command and waits for it,
//! so that when the run fails the person and the agent learn what the kernel refused it and how
//! to let it do more (`refused.rs`).
//!
//! The domain comes from one of two places. The daemon keeps, for a confinement it has seen,
//! a ruleset made ready as the requester and passes it with the reply (`kept.rs`): the door
//! then only confines itself with it. Otherwise the door works out the plan itself from the
//! disk (`assent_client::plan`) and builds the ruleset, rule by rule.

use std::ffi::OsStr;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use assent_client::connection::Passed;
use assent_client::plan::Plan;
use assent_client::protocol::{Confinement, Origin, Subject};
use landlock::{CompatLevel, Compatible, PathBeneath, PathFd, RulesetCreatedAttr, RulesetStatus};

use super::{exit, messages};

// The one system call the Landlock binding has no safe form for: confining with a ruleset
// another process made (the daemon's, passed over the socket).
#[allow(unsafe_code)]
mod kept;
mod refused;
mod tiocsti;

/// What a door tells the daemon after a confined run failed, to learn what the kernel refused.
#[derive(Debug, Clone)]
pub struct After {
    /// The daemon's socket, as the door was given it.
    pub socket: Option<PathBuf>,
    /// The line, as it was checked.
    pub subject: Subject,
    pub origin: Origin,
}

/// What an allowed line runs in: the verdict's confinement, whether a person allowed the run
/// (what only a person's approval adds is then granted), and the ruleset the daemon kept ready
/// for it, when it passed one.
#[derive(Debug)]
pub struct Confined {
    pub confine: Confinement,
    pub approved: bool,
    pub kept: Option<Passed>,
}

/// Confines this process (and so what it starts) to `plan`. With `required`, anything less
/// than the whole domain is an error: the line was let through because it is confined.
fn enforce(plan: &Plan, required: bool) -> Result<(), String> {
    let level = if required {
        CompatLevel::HardRequirement
    } else {
        CompatLevel::BestEffort
    };
    let mut created =
        assent_client::plan::ruleset(plan.offline, level).map_err(|e| e.to_string())?;
    for (path, access) in &plan.rules {
        let Ok(fd) = PathFd::new(path) else {
            continue;
        };
        // Best effort per rule: on a file the binding keeps only the rights a file can
        // have; a rule the kernel refuses grants less, never more.
        let rule = PathBeneath::new(fd, *access).set_compatibility(CompatLevel::BestEffort);
        created = created.add_rule(rule).map_err(|e| e.to_string())?;
    }
    if plan.log_denials {
        // The daemon reads the kernel's records (it said so only where the ABI logs):
        // without this, what the started program is refused after `execve` goes unlogged.
        created = created.log_new_exec(true).map_err(|e| e.to_string())?;
    }
    let status = created.restrict_self().map_err(|e| e.to_string())?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(()),
        RulesetStatus::PartiallyEnforced if !required => Ok(()),
        other => Err(format!(
            "the kernel's Landlock could not confine the run ({other:?})"
        )),
    }
}

/// The terminal on the standard streams, when there is one: the run may write to its own.
/// Asked of the descriptor first (one `ioctl`): an agent's run has pipes there, and reading
/// `/proc` for each would cost more than the rest of the door's work after the reply.
fn own_terminal() -> Option<PathBuf> {
    use std::io::IsTerminal;
    [2, 1, 0].into_iter().find_map(|fd| {
        let terminal = match fd {
            0 => std::io::stdin().is_terminal(),
            1 => std::io::stdout().is_terminal(),
            _ => std::io::stderr().is_terminal(),
        };
        if !terminal {
            return None;
        }
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
        a_pty(&link).then_some(link)
    })
}

/// `/dev/pts/N`: a terminal's own side, never the multiplexer `/dev/pts/ptmx` (opening it
/// makes new terminals) or anything else below.
fn a_pty(path: &Path) -> bool {
    path.strip_prefix("/dev/pts").ok().is_some_and(|rest| {
        let name = rest.as_os_str().as_encoded_bytes();
        !name.is_empty() && name.iter().all(u8::is_ascii_digit)
    })
}

/// Confines this process as `confine` says, then runs `command` and waits for it, and exits
/// as it did. A run that fails is followed by one line saying what the kernel refused it (the
/// daemon read the kernel's records; `after` says how to ask) or, when that cannot be known,
/// that it ran confined and what it could change. `approved`: a person allowed this run.
/// `program`: the program as the line names it, the command's `argv[0]`. `close`: a
/// descriptor the door holds that the command must not inherit.
pub fn run(
    command: &mut Command,
    program: &OsStr,
    confined: Confined,
    after: After,
    close: Option<i32>,
) -> u8 {
    let Confined {
        confine,
        approved,
        kept,
    } = confined;
    let confine = &confine;
    let terminal = own_terminal();
    // The daemon's ruleset knows no terminal: the door adds the run's own to it.
    let (enforced, project) = match kept
        .map(|ruleset| kept::restrict(&ruleset, terminal.as_deref(), confine.log_denials))
    {
        Some(Ok(())) => (Ok(()), confine.project.as_deref().map(PathBuf::from)),
        // Refused (an old kernel, a descriptor that is no ruleset): as if none had come.
        Some(Err(_)) | None => {
            // The home the daemon knows, else the user database's: never `$HOME`, which the
            // caller sets (unset, or elsewhere, it would let the real home pass for a project).
            let home = confine.home.as_ref().map(PathBuf::from).or_else(|| {
                nix::unistd::User::from_uid(nix::unistd::getuid())
                    .ok()
                    .flatten()
                    .map(|u| u.dir)
            });
            let mut plan = Plan::of(confine, home.as_deref(), approved);
            plan.add_terminal_of(terminal);
            (enforce(&plan, confine.required), plan.project.take())
        }
    };
    // Nothing the run starts may type into a terminal it holds (root could, without a
    // controlling terminal): refused by seccomp, on top of the domain. A confined run that
    // could is not run.
    if enforced.is_ok()
        && let Err(error) = tiocsti::refuse_terminal_typing()
    {
        messages::say(&format!(
            "not running: the run could not be kept from typing into a terminal ({error})"
        ));
        return exit::UNAVAILABLE;
    }
    let mut confined = true;
    if let Err(error) = enforced {
        confined = false;
        if confine.required {
            messages::say(&format!(
                "not running: the gate let this line through only to run confined, and {error}"
            ));
            return exit::UNAVAILABLE;
        }
        messages::say(&format!("running unconfined: {error}"));
    }
    // Without a controlling terminal: the door's given up when it can, else a session of its
    // own for the command.
    let own_session = !tiocsti::give_up_terminal();
    let ended = match super::child::run(command, program, own_session, close) {
        Ok(ended) => ended,
        Err(error) => {
            messages::say(&format!(
                "could not run {}: {error}",
                program.to_string_lossy()
            ));
            return if error.kind() == std::io::ErrorKind::NotFound {
                exit::NOT_FOUND
            } else {
                exit::UNAVAILABLE
            };
        }
    };
    let status = ended.status;
    let code = match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        _ => 1,
    };
    // A run a signal passed on ended was stopped from outside, not refused.
    if code != 0 && confined && !ended.signalled {
        if confine.log_denials {
            refused::barrier();
        }
        let fallback = failed_confined(confine, project.as_deref());
        let said = match refused::ask(after) {
            Ok(refusals) => refused::text(&refusals, &fallback),
            Err(why) => Some(format!("{fallback} (what was refused is not known: {why})")),
        };
        if let Some(said) = said {
            messages::say(&said);
        }
    }
    code
}

/// What a person and an agent read after a confined run failed.
fn failed_confined(confine: &Confinement, project: Option<&Path>) -> String {
    let project = project.map_or_else(
        || "no project".to_owned(),
        |p| format!("the project {}", p.display()),
    );
    let net = if confine.offline { ", no TCP" } else { "" };
    format!(
        "ran confined: it could change only {project}, temp, the build caches and what the line names, read no secret files{net}; if it failed on \"Permission denied\" or \"Operation not permitted\", the place it needed is outside those: a person can run it, or add the directory to [confine] writable in the policy"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_terminals_own_side_is_its_terminal() {
        for (path, pty) in [
            ("/dev/pts/0", true),
            ("/dev/pts/17", true),
            ("/dev/pts/ptmx", false),
            ("/dev/pts/", false),
            ("/dev/pts/1/x", false),
            ("/dev/pts/../tty", false),
            ("/dev/tty1", false),
        ] {
            assert_eq!(a_pty(Path::new(path)), pty, "{path}");
        }
    }
}
