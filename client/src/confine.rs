//! Confining this process to the Landlock domain an allowed line's verdict gives
//! ([`Confinement`]), for whatever it runs next: the `assent` doors (which then start the
//! command and wait for it) and the bash builtin that confines an agent's own shell in place
//! before it runs the line.
//!
//! The domain comes from one of two places. The daemon keeps, for a confinement it has seen,
//! a ruleset made ready as the requester and passes it with the reply ([`kept`]): this process
//! then only adds its terminal and confines itself with it. Otherwise it works out the plan
//! itself from the disk ([`Plan::of`]) and builds the ruleset, rule by rule ([`enforce`]).
//! On top of the domain, a seccomp filter refuses the `ioctl`s that type into a terminal
//! ([`terminal`]). After a run that failed, [`refused`] asks the daemon what the kernel refused
//! it and words the line that says so.

use std::path::{Path, PathBuf};

use landlock::{CompatLevel, Compatible, PathBeneath, PathFd, RulesetCreatedAttr, RulesetStatus};

use crate::connection::Passed;
use crate::plan::Plan;
use crate::protocol::Confinement;

// The system calls the Landlock binding has no safe form for (confining with a ruleset another
// process made) and a seccomp filter handed to the kernel by pointer.
#[allow(unsafe_code)]
pub mod kept;
pub mod refused;
#[allow(unsafe_code)]
pub mod terminal;

/// What confining this process came to: whether the domain holds, and the project it lets the
/// run change (for the line after a failed run).
#[derive(Debug)]
pub struct Domain {
    /// `Err`: why the domain could not be made whole (the process is then unconfined, or
    /// confined less than asked where the confinement is not `required`).
    pub enforced: Result<(), String>,
    /// The project the run may change.
    pub project: Option<PathBuf>,
}

/// Confines this process as `confine` says: with the ruleset the daemon `kept` and passed
/// when it did (adding the run's own `terminal`), else with the plan worked out from the disk.
/// `approved`: a person allowed this run (what only an approval adds is then granted).
pub fn restrict_self(
    confine: &Confinement,
    approved: bool,
    kept: Option<Passed>,
    terminal: Option<PathBuf>,
) -> Domain {
    // The daemon's ruleset knows no terminal: the run's own is added to it.
    match kept.map(|ruleset| kept::restrict(&ruleset, terminal.as_deref(), confine.log_denials)) {
        Some(Ok(())) => Domain {
            enforced: Ok(()),
            project: confine.project.as_deref().map(PathBuf::from),
        },
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
            Domain {
                enforced: enforce(&plan, confine.required),
                project: plan.project.take(),
            }
        }
    }
}

/// Confines this process (and so what it starts) to `plan`. With `required`, anything less
/// than the whole domain is an error: the line was let through because it is confined.
pub fn enforce(plan: &Plan, required: bool) -> Result<(), String> {
    let level = if required {
        CompatLevel::HardRequirement
    } else {
        CompatLevel::BestEffort
    };
    let mut created = crate::plan::ruleset(plan.offline, level).map_err(|e| e.to_string())?;
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

/// What a person and an agent read after a confined run failed when what the kernel refused
/// it is not known: what it could change, and how to let it do more.
pub fn failed_confined(confine: &Confinement, project: Option<&Path>) -> String {
    let project = project.map_or_else(
        || "no project".to_owned(),
        |p| format!("the project {}", p.display()),
    );
    let net = if confine.offline { ", no TCP" } else { "" };
    format!(
        "ran confined: it could change only {project}, temp, the build caches and what the line names, read no secret files{net}; if it failed on \"Permission denied\" or \"Operation not permitted\", the place it needed is outside those: a person can run it, or add the directory to [confine] writable in the policy"
    )
}
