//! Running an allowed command inside the Landlock domain its verdict gives
//! ([`Confinement`]): the door confines itself (`assent_client::confine`: with the ruleset the
//! daemon kept and passed, else planned from the disk), then starts the command and waits for
//! it, so that when the run fails the person and the agent learn what the kernel refused it and
//! how to let it do more.

use std::ffi::OsStr;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Command;

use assent_client::confine::{Domain, failed_confined, refused, restrict_self, terminal};
use assent_client::connection::Passed;
use assent_client::protocol::{Confinement, Origin, RefusedRequest, Subject};

use super::{exit, messages};

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

/// Confines this process as `confine` says, then runs `command` and waits for it, and exits
/// as it did. A run that fails is followed by one line saying what the kernel refused it (the
/// daemon read the kernel's records; `after` says how to ask) or, when that cannot be known,
/// that it ran confined and what it could change. `approved`: a person allowed this run.
/// `program`: the program as the line names it, the command's `argv[0]`. `or_bash`: the line a
/// command started without bash came from, run by bash instead should the program not start.
/// `close`: a descriptor the door holds that the command must not inherit.
pub fn run(
    command: &mut Command,
    program: &OsStr,
    or_bash: Option<&str>,
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
    let Domain { enforced, project } =
        restrict_self(confine, approved, kept, terminal::own_terminal());
    // Nothing the run starts may type into a terminal it holds (root could, without a
    // controlling terminal): refused by seccomp, on top of the domain. A confined run that
    // could is not run.
    if enforced.is_ok()
        && let Err(error) = terminal::refuse_terminal_typing()
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
    let own_session = !terminal::give_up_terminal();
    let ended = match super::child::run(command, program, or_bash, own_session, close) {
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
        let asked = RefusedRequest {
            subject: after.subject,
            origin: after.origin,
        };
        let said = match refused::ask(after.socket.as_deref(), asked) {
            Ok(refusals) => refused::text(&refusals, &fallback),
            Err(why) => Some(format!("{fallback} (what was refused is not known: {why})")),
        };
        if let Some(said) = said {
            messages::say(&said);
        }
    }
    code
}
