//! What a confined run may touch, worked out from the disk: the Landlock rules a
//! [`Confinement`] comes to on this machine ([`Plan::of`]). The door (`assent run`, `assent sh`)
//! makes it for itself, and the daemon makes the same plan as the requester to keep a ruleset
//! ready for the door's next run; both read it here, so the two agree.
//!
//! The project is the one the daemon found and judged the line in (`Confinement.project`), never
//! looked for again here; a secret is hidden by granting reads on everything beside it, level
//! by level down from `/` (Landlock grants, it never excepts), so a file created after the
//! domain directly in a directory above a secret is not readable; a place that does not exist
//! yet is granted as the nearest directory above it, unless that is `/` or the home. Every path
//! is resolved first (`~/.ssh` as a link is hidden where it leads).
//!
//! A plan also lists the directories it consulted, and which of their entries it depends on
//! ([`Plan::consulted`]): a change of such an entry (made, removed or renamed) can change the
//! plan, so one kept for later must be dropped then.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreated, RulesetError, Scope,
};

use crate::protocol::Confinement;

mod consulted;
pub use consulted::{Consulted, Entries};

/// The ABI whose rights the domain asks for: files (with truncation and device ioctls), TCP,
/// and the scopes (signals, abstract Unix sockets) that keep the run to itself.
pub const ABI_WANTED: ABI = ABI::V6;

/// Rules a plan may hold; past this, fewer reads are granted (never more).
const MAX_RULES: usize = 4096;

/// Devices every run may open and write: nothing written to them is kept. `/dev/tty` names the
/// run's controlling terminal, and a run has none (`cli/child.rs` starts it in a session of its
/// own) or its own, the one on its standard streams (a shell confined in place that leads its
/// session there): opening it reaches no other terminal. Granted, so that a program that looks
/// for one (bash, at every start) is not refused, logged and blamed.
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
    /// Each path, resolved, with what may be done beneath it.
    pub rules: Vec<(PathBuf, BitFlags<AccessFs>)>,
    /// TCP is refused.
    pub offline: bool,
    /// The project found, for the message after a failed run.
    pub project: Option<PathBuf>,
    /// Ask the kernel to log what the run's program is refused.
    pub log_denials: bool,
    /// The directories whose entries the plan depends on: every entry of those it listed, and
    /// the names along each path it looked up or resolved.
    pub consulted: Consulted,
}

impl Plan {
    /// The plan for `confine`, run by a requester whose home is `home`. `approved`: a person
    /// allowed this run.
    pub fn of(confine: &Confinement, home: Option<&Path>, approved: bool) -> Plan {
        let read = AccessFs::ReadFile | AccessFs::Execute;
        let write = AccessFs::from_write(ABI_WANTED);
        let mut plan = Plan {
            offline: confine.offline,
            log_denials: confine.log_denials,
            ..Plan::default()
        };
        let home = home.and_then(|h| {
            plan.looked_up(h);
            resolve(h)
        });
        let seen = Home::list(home.as_deref());
        if let Some(home) = &home {
            plan.looked_up(home);
            plan.consulted.listed(home);
        }
        let mut hidden: Vec<PathBuf> = Vec::new();
        for pattern in &confine.hide {
            let pattern = Path::new(pattern);
            if seen.may_exist(pattern) {
                expand(pattern, &mut hidden, &mut plan);
            }
        }
        // Directories may be listed everywhere: names are not contents.
        plan.rules
            .push((PathBuf::from("/"), AccessFs::ReadDir.into()));
        let mut readable = Vec::new();
        carve(Path::new("/"), &hidden, &mut readable, &mut plan.consulted);
        for path in readable {
            plan.rules.push((path, read));
        }
        let mut writable: Vec<PathBuf> = Vec::new();
        if let Some(root) = &confine.project {
            plan.looked_up(Path::new(root));
            plan.project = project(root, home.as_deref());
            writable.extend(plan.project.clone());
        }
        for place in &confine.write {
            let place = Path::new(place);
            if !seen.may_exist(place) {
                continue;
            }
            plan.looked_up(place);
            if let Some(dir) = existing(place, home.as_deref(), approved) {
                writable.push(dir);
            }
        }
        if approved {
            for place in &confine.write_within {
                let place = Path::new(place);
                plan.looked_up(place);
                if let Some(dir) = existing(place, home.as_deref(), approved) {
                    writable.push(dir);
                }
            }
        }
        if confine.write_anywhere {
            writable.push(PathBuf::from("/"));
        }
        for dir in writable {
            plan.looked_up(&dir);
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
        for device in DEVICES {
            plan.looked_up(Path::new(device));
            plan.rules
                .push((PathBuf::from(device), (read | write) & file_rights()));
        }
        plan.rules.truncate(MAX_RULES);
        plan
    }

    /// Adds `terminal` (the run's own, `/dev/pts/N`, when it has one) as a device the run
    /// may use.
    pub fn add_terminal_of(&mut self, terminal: Option<PathBuf>) {
        if let Some(terminal) = terminal {
            self.rules.push((terminal, terminal_rights()));
        }
    }

    /// Notes that the plan looked `path` up: it depends on each name along it.
    fn looked_up(&mut self, path: &Path) {
        self.consulted.looked_up(path);
    }
}

/// `path` resolved (links followed), unless resolving it passes through a magic link
/// (`/dev/fd/N`, `/proc/self/fd/N`, `/proc/PID/cwd`, `/dev/stdout`): those name whatever the
/// *resolving* process holds open (the daemon's own descriptors, when the daemon plans: `/`,
/// its audit file), never a place a line was judged to change.
fn resolve(path: &Path) -> Option<PathBuf> {
    use nix::fcntl::{AT_FDCWD, OFlag, OpenHow, ResolveFlag, openat2};
    let how = OpenHow::new()
        .flags(OFlag::O_PATH | OFlag::O_CLOEXEC)
        .resolve(ResolveFlag::RESOLVE_NO_MAGICLINKS);
    openat2(AT_FDCWD, path, how).ok()?;
    path.canonicalize().ok()
}

/// The empty ruleset every confined run's domain starts from, the door's and the one the daemon
/// keeps alike: every file-system right of [`ABI_WANTED`] and its scopes handled (refused but
/// for the rules added), and TCP too when `offline`.
pub fn ruleset(offline: bool, level: CompatLevel) -> Result<RulesetCreated, RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(level)
        .handle_access(AccessFs::from_all(ABI_WANTED))?
        .scope(Scope::from_all(ABI_WANTED))?;
    if offline {
        ruleset = ruleset.handle_access(AccessNet::from_all(ABI_WANTED))?;
    }
    ruleset.create()
}

/// What a run may do to its own terminal, `/dev/pts/N`: what it may do to any file.
pub fn terminal_rights() -> BitFlags<AccessFs> {
    let read = AccessFs::ReadFile | AccessFs::Execute;
    let write = AccessFs::from_write(ABI_WANTED);
    (read | write) & file_rights()
}

/// The rights a rule on a file (not a directory) may carry.
pub fn file_rights() -> BitFlags<AccessFs> {
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
fn expand(pattern: &Path, out: &mut Vec<PathBuf>, plan: &mut Plan) {
    let Some(name) = pattern.file_name().and_then(OsStr::to_str) else {
        return;
    };
    plan.looked_up(pattern);
    if !name.contains(['*', '?', '[']) {
        // Most secret places do not exist on a given machine: one stat says so, where
        // resolving the path would read every component's link.
        if std::fs::symlink_metadata(pattern).is_ok()
            && let Some(real) = resolve(pattern)
        {
            plan.looked_up(&real);
            out.push(real);
        }
        return;
    }
    let (Some(dir), Ok(glob)) = (pattern.parent(), glob::Pattern::new(name)) else {
        return;
    };
    // Which entries match is the listing's: a new one may.
    plan.consulted.listed(dir);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_str().is_some_and(|n| glob.matches(n))
            && let Some(real) = resolve(&entry.path())
        {
            plan.looked_up(&real);
            out.push(real);
        }
    }
}

/// Grants `dir` whole when no hidden path lies beneath it; else each entry but the hidden,
/// carving further into those with a hidden path beneath. A directory that cannot be listed
/// is granted nothing. Each directory listed is noted in `consulted`.
fn carve(dir: &Path, hidden: &[PathBuf], out: &mut Vec<PathBuf>, consulted: &mut Consulted) {
    if out.len() >= MAX_RULES {
        return;
    }
    if !hidden.iter().any(|h| h.starts_with(dir) && h != dir) {
        out.push(dir.to_path_buf());
        return;
    }
    consulted.listed(dir);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // A link is granted nothing: a rule on it would be on where it leads (a descriptor
        // opened through it), which may be the secret itself (`~/.ssh` a link to
        // `~/dot/ssh`). What it leads to is read as what lies there allows.
        if hidden.contains(&path) || entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && hidden.iter().any(|h| h.starts_with(&path)) {
            carve(&path, hidden, out, consulted);
        } else {
            out.push(path);
        }
    }
}

/// The project the daemon judged the line in, resolved: the door looks for no other, so what
/// was judged and what is granted agree. The home or above it is never granted as one, whatever
/// a verdict says.
fn project(root: &str, home: Option<&Path>) -> Option<PathBuf> {
    let root = resolve(Path::new(root))?;
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
    let real = resolve(found)?;
    let too_wide = || {
        real == Path::new("/")
            || home.is_some_and(|h| h.starts_with(&real))
            || in_hidden(&real, home)
    };
    if found == place {
        // `/`, the home or above it, named by a line the policy let through by itself: never.
        // Only a person's approval grants that much.
        let whole = real == Path::new("/") || home.is_some_and(|h| h.starts_with(&real));
        return (approved || !whole).then_some(real);
    }
    (approved && !too_wide()).then_some(real)
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
        let mut consulted = Consulted::default();
        carve(&root, &hidden, &mut out, &mut consulted);
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
        // A link beside the secret that leads to it is granted nothing.
        std::os::unix::fs::symlink(root.join("home/.ssh"), root.join("home/keys")).expect("link");
        let mut again = Vec::new();
        carve(&root, &hidden, &mut again, &mut Consulted::default());
        assert!(!again.contains(&root.join("home/keys")), "{again:?}");
        assert!(again.contains(&root.join("home/src")), "{again:?}");
        // Every directory whose entries decided what is granted was noted.
        for listed in ["home", "home/.config", "home/.config/gh"] {
            assert_eq!(
                consulted.entries(&root.join(listed)),
                Some(&Entries::All),
                "{listed}: {consulted:?}"
            );
        }
        assert!(!consulted.contains(&root.join("home/src")), "{consulted:?}");
    }

    #[test]
    fn a_plan_notes_every_directory_its_places_depend_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        let home = root.join("home");
        let repo = root.join("work/repo");
        std::fs::create_dir_all(home.join(".config")).expect("mkdir");
        std::fs::create_dir_all(&repo).expect("mkdir");
        let text = |p: PathBuf| p.to_str().expect("utf-8").to_owned();
        let confine = Confinement {
            project: Some(text(repo.clone())),
            // A secret that does not exist yet: made later, in `~/.config/gh`, it must be
            // seen as a change of `~/.config`.
            hide: vec![
                text(home.join(".config/gh/hosts.yml")),
                text(home.join(".ssh")),
            ],
            write: vec![text(root.join("cache/cargo"))],
            ..Confinement::default()
        };
        let plan = Plan::of(&confine, Some(&home), false);
        for dir in [&home, &home.join(".config"), &root.join("work"), &root] {
            assert!(
                plan.consulted.contains(dir),
                "{dir:?}: {:?}",
                plan.consulted
            );
        }
        assert!(plan.consulted.contains(Path::new("/")));
        // On the way to a place, only its own name matters: a file made beside the project
        // changes nothing; the project's name, or a secret's, does.
        let matters = |dir: &Path, name: &str| {
            plan.consulted
                .entries(dir)
                .is_some_and(|e| e.matter(Some(OsStr::new(name))))
        };
        assert!(matters(&root.join("work"), "repo"));
        assert!(!matters(&root.join("work"), "notes.txt"));
        assert!(matters(&home.join(".config"), "gh"));
        assert!(matters(&home, "anything"), "the home is listed");
        assert!(
            plan.rules.iter().any(|(p, _)| *p == repo),
            "{:?}",
            plan.rules
        );
    }

    #[test]
    fn a_place_named_through_a_magic_link_or_the_whole_disk_is_never_granted_by_itself() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        let home = root.join("home");
        let elsewhere = root.join("elsewhere");
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::create_dir_all(&elsewhere).expect("mkdir");
        // A directory this process holds open: `/dev/fd/N` names it here, and in a daemon that
        // plans, whatever the daemon holds open as N.
        let held = std::fs::File::open(&elsewhere).expect("open");
        let fd = held.as_raw_fd();
        let text = |p: &Path| p.to_str().expect("utf-8").to_owned();
        for approved in [false, true] {
            let confine = Confinement {
                write: vec![
                    format!("/dev/fd/{fd}"),
                    format!("/proc/self/fd/{fd}"),
                    "/proc/self/cwd".into(),
                    "/dev/stderr".into(),
                ],
                home: Some(text(&home)),
                ..Confinement::default()
            };
            let plan = Plan::of(&confine, Some(&home), approved);
            let writable: Vec<&PathBuf> = plan
                .rules
                .iter()
                .filter(|(_, access)| access.contains(AccessFs::WriteFile))
                .map(|(path, _)| path)
                .filter(|path| !path.starts_with("/dev/"))
                .collect();
            assert!(writable.is_empty(), "approved {approved}: {writable:?}");
        }
        // `/` and the home, named by a line the policy let through by itself: not granted.
        for whole in [PathBuf::from("/"), home.clone()] {
            let confine = Confinement {
                write: vec![text(&whole)],
                home: Some(text(&home)),
                ..Confinement::default()
            };
            let by_itself = Plan::of(&confine, Some(&home), false);
            assert!(
                !by_itself
                    .rules
                    .iter()
                    .any(|(p, a)| *p == whole && a.contains(AccessFs::WriteFile)),
                "{whole:?}: {:?}",
                by_itself.rules
            );
            let approved = Plan::of(&confine, Some(&home), true);
            assert!(
                approved
                    .rules
                    .iter()
                    .any(|(p, a)| *p == whole && a.contains(AccessFs::WriteFile)),
                "a person's approval grants what it approved: {whole:?}"
            );
        }
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
