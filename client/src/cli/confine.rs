//! Running an allowed command inside the Landlock domain its verdict gives
//! ([`Confinement`]): the client confines itself, then starts the command and waits for it,
//! so that when the run fails the person and the agent learn what the kernel refused it and how
//! to let it do more (`refused.rs`).
//!
//! The plan ([`Plan::of`]) is made as the requester, from the disk: the project is the one the
//! daemon found and judged the line in (`Confinement.project`), never looked for again here; a
//! secret is hidden by granting reads on everything
//! beside it, level by level down from `/` (Landlock grants, it never excepts), so a file
//! created after the domain directly in a directory above a secret is not readable; a place
//! that does not exist yet is granted as the nearest directory above it, unless that is `/` or
//! the home. Every path is resolved first (`~/.ssh` as a link is hidden where it leads).

use std::ffi::OsStr;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use assent_client::protocol::{Confinement, Origin, Subject};
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::{exit, messages};

mod refused;

/// The ABI whose rights the domain asks for: files (with truncation and device ioctls), TCP,
/// and the scopes (signals, abstract Unix sockets) that keep the run to itself.
const ABI_WANTED: ABI = ABI::V6;

/// Rules a plan may hold; past this, fewer reads are granted (never more).
const MAX_RULES: usize = 4096;

/// Devices every run may open and write: nothing written to them is kept.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// What the kernel will be told: each path with the rights granted beneath it.
#[derive(Debug, Default)]
pub struct Plan {
    pub rules: Vec<(PathBuf, BitFlags<AccessFs>)>,
    pub offline: bool,
    /// The project found, for the message after a failed run.
    pub project: Option<PathBuf>,
    /// Ask the kernel to log what the run's program is refused.
    pub log_denials: bool,
}

/// What a door tells the daemon after a confined run failed, to learn what the kernel refused.
#[derive(Debug, Clone)]
pub struct After {
    /// The daemon's socket, as the door was given it.
    pub socket: Option<PathBuf>,
    /// The line, as it was checked.
    pub subject: Subject,
    pub origin: Origin,
}

impl Plan {
    /// The plan for `confine`, run by a requester whose home is `home`.
    pub fn of(confine: &Confinement, home: Option<&Path>, approved: bool) -> Plan {
        let read = AccessFs::ReadFile | AccessFs::Execute;
        let write = AccessFs::from_write(ABI_WANTED);
        let home = home.and_then(|h| h.canonicalize().ok());
        let seen = Home::list(home.as_deref());
        let mut hidden: Vec<PathBuf> = Vec::new();
        for pattern in &confine.hide {
            if seen.may_exist(Path::new(pattern)) {
                expand(Path::new(pattern), &mut hidden);
            }
        }
        let mut plan = Plan {
            offline: confine.offline,
            log_denials: confine.log_denials,
            ..Plan::default()
        };
        // Directories may be listed everywhere: names are not contents.
        plan.rules
            .push((PathBuf::from("/"), AccessFs::ReadDir.into()));
        let mut readable = Vec::new();
        carve(Path::new("/"), &hidden, &mut readable);
        for path in readable {
            plan.rules.push((path, read));
        }
        let mut writable: Vec<PathBuf> = Vec::new();
        if let Some(root) = &confine.project {
            plan.project = project(root, home.as_deref());
            writable.extend(plan.project.clone());
        }
        for place in &confine.write {
            if !seen.may_exist(Path::new(place)) {
                continue;
            }
            if let Some(dir) = existing(Path::new(place), home.as_deref(), approved) {
                writable.push(dir);
            }
        }
        if approved {
            for place in &confine.write_within {
                if let Some(dir) = existing(Path::new(place), home.as_deref(), approved) {
                    writable.push(dir);
                }
            }
        }
        if confine.write_anywhere {
            writable.push(PathBuf::from("/"));
        }
        for dir in writable {
            // A writable place that holds a secret is writable, not readable, beyond what the
            // carve already lets be read.
            let holds_secret = hidden.iter().any(|h| h.starts_with(&dir));
            let mut access = if holds_secret { write } else { write | read };
            // A place that is one file (`~/.cargo/.global-cache`, a file the line names) takes
            // only the rights a file can have; the kernel refuses the others on it.
            if !dir.is_dir() {
                access &= file_rights();
            }
            plan.rules.push((dir, access));
        }
        for device in DEVICES.iter().map(PathBuf::from).chain(own_terminal()) {
            plan.rules.push((device, (read | write) & file_rights()));
        }
        plan.rules.truncate(MAX_RULES);
        plan
    }

    /// Confines this process (and so what it starts) to the plan. With `required`, anything
    /// less than the whole domain is an error: the line was let through because it is confined.
    pub fn enforce(&self, required: bool) -> Result<(), String> {
        let level = if required {
            CompatLevel::HardRequirement
        } else {
            CompatLevel::BestEffort
        };
        let mut ruleset = Ruleset::default()
            .set_compatibility(level)
            .handle_access(AccessFs::from_all(ABI_WANTED))
            .and_then(|r| r.scope(Scope::from_all(ABI_WANTED)))
            .map_err(|e| e.to_string())?;
        if self.offline {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(ABI_WANTED))
                .map_err(|e| e.to_string())?;
        }
        let mut created = ruleset.create().map_err(|e| e.to_string())?;
        for (path, access) in &self.rules {
            let Ok(fd) = PathFd::new(path) else {
                continue;
            };
            // Best effort per rule: on a file the binding keeps only the rights a file can
            // have; a rule the kernel refuses grants less, never more.
            let rule = PathBeneath::new(fd, *access).set_compatibility(CompatLevel::BestEffort);
            created = created.add_rule(rule).map_err(|e| e.to_string())?;
        }
        if self.log_denials {
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
}

/// The rights a rule on a file (not a directory) may carry.
fn file_rights() -> BitFlags<AccessFs> {
    AccessFs::ReadFile
        | AccessFs::WriteFile
        | AccessFs::Execute
        | AccessFs::Truncate
        | AccessFs::IoctlDev
}

/// The names in the home, read once: nearly every place the plan asks about lies below the
/// home, and most do not exist on a given machine (no `~/.aws`, no `~/.cache/bazel`). One
/// listing answers those without a system call each.
struct Home {
    dir: Option<PathBuf>,
    names: std::collections::HashSet<std::ffi::OsString>,
}

impl Home {
    fn list(home: Option<&Path>) -> Home {
        let names = home
            .and_then(|h| std::fs::read_dir(h).ok())
            .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        Home {
            dir: home.map(Path::to_path_buf),
            names,
        }
    }

    /// False when `path` lies below the home and the home has no entry of its first name.
    fn may_exist(&self, path: &Path) -> bool {
        let Some(below) = self.dir.as_deref().and_then(|h| path.strip_prefix(h).ok()) else {
            return true;
        };
        match below.components().next() {
            Some(std::path::Component::Normal(first)) => self.names.contains(first),
            _ => true,
        }
    }
}

/// Adds the paths `pattern` names: itself, or the entries of its directory its last
/// component matches as a glob. What does not exist hides nothing.
fn expand(pattern: &Path, out: &mut Vec<PathBuf>) {
    let Some(name) = pattern.file_name().and_then(OsStr::to_str) else {
        return;
    };
    if !name.contains(['*', '?', '[']) {
        // Most secret places do not exist on a given machine: one stat says so, where
        // resolving the path would read every component's link.
        if std::fs::symlink_metadata(pattern).is_ok()
            && let Ok(real) = pattern.canonicalize()
        {
            out.push(real);
        }
        return;
    }
    let (Some(dir), Ok(glob)) = (pattern.parent(), glob::Pattern::new(name)) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_str().is_some_and(|n| glob.matches(n))
            && let Ok(real) = entry.path().canonicalize()
        {
            out.push(real);
        }
    }
}

/// Grants `dir` whole when no hidden path lies beneath it; else each entry but the hidden,
/// carving further into those with a hidden path beneath. A directory that cannot be listed
/// is granted nothing.
fn carve(dir: &Path, hidden: &[PathBuf], out: &mut Vec<PathBuf>) {
    if out.len() >= MAX_RULES {
        return;
    }
    if !hidden.iter().any(|h| h.starts_with(dir) && h != dir) {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if hidden.contains(&path) {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && hidden.iter().any(|h| h.starts_with(&path)) {
            carve(&path, hidden, out);
        } else {
            out.push(path);
        }
    }
}

/// The project the daemon judged the line in, resolved: the door looks for no other, so what
/// was judged and what is granted agree. The home or above it is never granted as one, whatever
/// a verdict says.
fn project(root: &str, home: Option<&Path>) -> Option<PathBuf> {
    let root = Path::new(root).canonicalize().ok()?;
    let is_home_or_above = home.is_some_and(|h| h.starts_with(&root));
    (!is_home_or_above && root != Path::new("/")).then_some(root)
}

/// `dir` lies in a hidden directory of the home (`~/.config/x`, `~/.ssh`).
fn in_hidden(dir: &Path, home: Option<&Path>) -> bool {
    let Some(below) = home.and_then(|h| dir.strip_prefix(h).ok()) else {
        return false;
    };
    below
        .components()
        .any(|c| c.as_os_str().to_str().is_some_and(|n| n.starts_with('.')))
}

/// `place` resolved when it exists. A place that does not exist yet cannot be granted alone
/// (the kernel grants what it can open); for a line a person approved it is granted as the
/// nearest directory above it, unless that is `/`, the home or above it, or in one of the
/// home's hidden directories (`~/.config`: a new place there would open autostart entries and
/// units). A line the policy let through by itself gets only what exists.
fn existing(place: &Path, home: Option<&Path>, approved: bool) -> Option<PathBuf> {
    // One stat per level up to what exists, then one resolution: most caches do not exist.
    let found = place
        .ancestors()
        .find(|a| std::fs::symlink_metadata(a).is_ok())?;
    let real = found.canonicalize().ok()?;
    if found == place {
        return Some(real);
    }
    let too_wide = real == Path::new("/")
        || home.is_some_and(|h| h.starts_with(&real))
        || in_hidden(&real, home);
    (approved && !too_wide).then_some(real)
}

/// The terminal on the standard streams, when there is one: the run may write to its own.
fn own_terminal() -> Option<PathBuf> {
    [2, 1, 0].into_iter().find_map(|fd| {
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
        link.starts_with("/dev/pts/").then_some(link)
    })
}

/// Confines this process as `confine` says, then runs `command` and waits for it, and exits
/// as it did. A run that fails is followed by one line saying what the kernel refused it (the
/// daemon read the kernel's records; `after` says how to ask) or, when that cannot be known,
/// that it ran confined and what it could change. `approved`: a person allowed this run.
pub fn run(
    command: &mut Command,
    program: &OsStr,
    confine: &Confinement,
    approved: bool,
    after: After,
) -> u8 {
    // The home the daemon knows, else the user database's: never `$HOME`, which the caller
    // sets (unset, or elsewhere, it would let the real home pass for a project).
    let home = confine.home.as_ref().map(PathBuf::from).or_else(|| {
        nix::unistd::User::from_uid(nix::unistd::getuid())
            .ok()
            .flatten()
            .map(|u| u.dir)
    });
    let plan = Plan::of(confine, home.as_deref(), approved);
    let mut confined = true;
    if let Err(error) = plan.enforce(confine.required) {
        confined = false;
        if confine.required {
            messages::say(&format!(
                "not running: the gate let this line through only to run confined, and {error}"
            ));
            return exit::UNAVAILABLE;
        }
        messages::say(&format!("running unconfined: {error}"));
    }
    let status = match super::child::run(command) {
        Ok(status) => status,
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
    let code = match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(1),
        _ => 1,
    };
    if code != 0 && confined {
        let fallback = failed_confined(confine, plan.project.as_deref());
        messages::say(&match refused::ask(after) {
            Ok(refusals) => refused::text(&refusals, &fallback),
            Err(why) => format!("{fallback} (what was refused is not known: {why})"),
        });
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
        "ran confined: it could change only {project}, temp, the build caches and what the line names, read no secrets{net}; if it failed on \"Permission denied\" or \"Operation not permitted\", the place it needed is outside those: a person can run it, or add the directory to [confine] writable in the policy"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_hidden_by_granting_what_lies_beside_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        for d in [
            "home/.ssh",
            "home/.config/gh",
            "home/.config/other",
            "home/src",
        ] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        std::fs::write(root.join("home/.config/gh/hosts.yml"), "t").expect("write");
        let hidden = vec![
            root.join("home/.ssh"),
            root.join("home/.config/gh/hosts.yml"),
        ];
        let mut out = Vec::new();
        carve(&root, &hidden, &mut out);
        assert!(out.contains(&root.join("home/src")), "{out:?}");
        assert!(out.contains(&root.join("home/.config/other")), "{out:?}");
        assert!(
            !out.iter().any(|p| p.starts_with(root.join("home/.ssh"))),
            "{out:?}"
        );
        assert!(
            !out.contains(&root.join("home/.config/gh/hosts.yml")),
            "{out:?}"
        );
        assert!(!out.contains(&root.join("home")), "{out:?}");
    }

    #[test]
    fn the_project_is_the_one_the_daemon_judged_in_never_the_home() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        let home = root.join("home");
        let repo = home.join("src/repo");
        std::fs::create_dir_all(repo.join("crates/a")).expect("mkdir");
        let text = |p: &Path| p.to_str().expect("utf-8").to_owned();
        assert_eq!(project(&text(&repo), Some(&home)), Some(repo.clone()));
        assert_eq!(
            project(&text(&home), Some(&home)),
            None,
            "the home is no project"
        );
        assert_eq!(project(&text(&root), Some(&home)), None, "nor above it");
        assert_eq!(project("/", Some(&home)), None);
        assert_eq!(project(&text(&home.join("gone")), Some(&home)), None);
        // Through a link, the place it leads to is granted.
        std::os::unix::fs::symlink(&repo, root.join("link")).expect("link");
        assert_eq!(project(&text(&root.join("link")), Some(&home)), Some(repo));
    }

    #[test]
    fn a_new_place_is_granted_as_its_directory_only_when_a_person_approved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        let home = root.join("home");
        std::fs::create_dir_all(home.join("Documents")).expect("mkdir");
        std::fs::create_dir_all(home.join(".config")).expect("mkdir");
        let new = home.join("Documents/new.txt");
        assert_eq!(
            existing(&new, Some(&home), true),
            Some(home.join("Documents"))
        );
        assert_eq!(existing(&new, Some(&home), false), None);
        assert_eq!(existing(&home.join(".config/x"), Some(&home), true), None);
        assert_eq!(existing(&home.join("new.txt"), Some(&home), true), None);
        assert_eq!(
            existing(Path::new("/no-such-dir/x"), Some(&home), true),
            None
        );
        assert_eq!(
            existing(&home.join("Documents"), Some(&home), false),
            Some(home.join("Documents"))
        );
    }
}
