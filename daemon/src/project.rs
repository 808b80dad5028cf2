//! The project a request is made in, which the daemon learns itself: the repository the working
//! directory is in (the nearest directory above it, itself included, that holds `.git`, a
//! directory or a file), or a directory the policy names (`project_paths`). In the home a
//! repository inside a hidden directory (`~/.ssh/x`, `~/.config/x`) is none, and where there is
//! no repository nothing is a project: the home's rules apply (a document in `~/Documents` is
//! the person's data, not a project file). Outside the home a directory with no repository
//! around it is its own project, as it always was (`/srv/site`, `/tmp/y`).
//!
//! A project lowers what a change costs, so it is never the client's word: the daemon looks on
//! the disk, as the requester (`read.rs`'s file-system credentials), at most [`MAX_LEVELS`]
//! `stat`s, never below `/proc` or `/sys`, off the async workers within `read::READ_TIME`.
//! What it found is kept [`CACHE_TIME`] per uid and directory, so an agent's burst of lines
//! from one directory looks once. The analyser ([`crate::analyse::Surroundings`]) and the
//! confinement a door builds (`Confinement.project`) are both handed the one project found
//! here, so what was judged and what the kernel grants agree.
//!
//! This module owns the rule and the look; [`choose`] is pure and table-tested. `narrow.rs`
//! reads what a project takes away from its confined runs.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::places::SYSTEM_TOPS;
use crate::policy::Globs;
use crate::read;

/// Directories looked at above the working directory, at most.
pub const MAX_LEVELS: usize = 64;
/// How long a look is trusted for the same uid and directory. A look that misses costs a
/// blocking thread's round trip (the `reading` bench: `ls -la` from a directory not seen
/// before); an agent's lines come in bursts from one directory, so most are kept answers.
/// Stale, a repository made meanwhile (`git init`) is seen late, which holds more, not less;
/// one removed meanwhile (`rm -rf .git`) was a project a moment before.
pub const CACHE_TIME: Duration = Duration::from_secs(10);
/// Directories remembered at once; past this the stale ones go, then all.
const CACHE_MAX: usize = 4096;

pub mod narrow;

/// The repositories found lately, by uid and working directory.
#[derive(Debug, Default)]
pub struct Cache {
    found: Mutex<HashMap<(u32, String), Found>>,
    /// The projects' own narrowings of their confined runs (`.assent/confine.toml`).
    pub narrowings: narrow::Cache,
}

/// When a repository was looked for, and what was found.
type Found = (Instant, Option<String>);

impl Cache {
    /// The nearest repository at or above `cwd` (below `home` when `cwd` lies in it), looked
    /// for as `who`. A look the disk does not answer in time finds none and is not kept.
    pub async fn repository(
        &self,
        who: &read::As,
        cwd: &str,
        home: Option<&str>,
    ) -> Option<String> {
        let key = (who.uid, cwd.to_owned());
        if let Ok(found) = self.found.lock()
            && let Some((at, root)) = found.get(&key)
            && at.elapsed() < CACHE_TIME
        {
            return root.clone();
        }
        // Only a root daemon reads with the requester's groups (asked now, as the look would).
        let who_unknown = nix::unistd::geteuid().is_root() && who.uid != 0 && who.groups.unknown();
        let (who, dir, home) = (who.clone(), cwd.to_owned(), home.map(str::to_owned));
        let look = tokio::task::spawn_blocking(move || look_as(&who, &dir, home.as_deref()));
        let root = match tokio::time::timeout(read::READ_TIME, look).await {
            Ok(Ok(Some(root))) => root,
            _ => return None,
        };
        // Looked with fewer rights than the requester has (its groups could not be told):
        // good for this request, which gets no more than it may, never kept for the next.
        if who_unknown {
            return root;
        }
        if let Ok(mut found) = self.found.lock() {
            if found.len() >= CACHE_MAX {
                found.retain(|_, (at, _)| at.elapsed() < CACHE_TIME);
                if found.len() >= CACHE_MAX {
                    found.clear();
                }
            }
            found.insert(key, (Instant::now(), root.clone()));
        }
        root
    }
}

/// Looks on this thread as `who`: `None` when it cannot read as the requester.
fn look_as(who: &read::As, cwd: &str, home: Option<&str>) -> Option<Option<String>> {
    let _creds = read::Creds::become_(who)?;
    Some(nearest_git(cwd, home, |dir| {
        let git = if dir == "/" {
            "/.git".to_owned()
        } else {
            format!("{dir}/.git")
        };
        match std::fs::symlink_metadata(git) {
            Ok(_) => Some(true),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                Some(false)
            }
            // Not allowed to look (a directory only a group may enter): whether a repository
            // is here cannot be told, so none above it is the project either.
            Err(_) => None,
        }
    }))
}

/// `cwd` with `.`, `..` and repeated slashes taken out; `None` unless it is absolute.
fn normal(cwd: &str) -> Option<String> {
    if !cwd.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in cwd.split('/') {
        match part {
            "" | "." => {}
            ".." => _ = parts.pop(),
            name => parts.push(name),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// `cwd` and the directories above it, itself first, up to `/`.
fn ancestors(cwd: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(cwd), |dir| match dir.rfind('/') {
        Some(0) if *dir != "/" => Some("/"),
        Some(i) if i > 0 => Some(&dir[..i]),
        _ => None,
    })
}

/// `dir` is `home` or lies above it.
fn home_or_above(dir: &str, home: &str) -> bool {
    dir == "/" || home == dir || home.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// `dir` lies below `home`.
fn below(dir: &str, home: &str) -> Option<String> {
    dir.strip_prefix(home)
        .filter(|r| r.starts_with('/'))
        .map(|r| r[1..].to_owned())
}

/// The nearest directory at or above `cwd` that holds `.git` (`has_git`), never the home or
/// above it, and never below `/proc` or `/sys`. A level where `has_git` cannot tell (`None`:
/// the look may not enter it) ends the look with none.
pub fn nearest_git(
    cwd: &str,
    home: Option<&str>,
    mut has_git: impl FnMut(&str) -> Option<bool>,
) -> Option<String> {
    let cwd = normal(cwd)?;
    if ["/proc", "/sys"]
        .iter()
        .any(|p| cwd == *p || cwd.starts_with(&format!("{p}/")))
    {
        return None;
    }
    let home = home.and_then(normal);
    for dir in ancestors(&cwd)
        .take(MAX_LEVELS)
        .take_while(|dir| home.as_deref().is_none_or(|h| !home_or_above(dir, h)))
    {
        match has_git(dir) {
            Some(true) => return Some(dir.to_owned()),
            Some(false) => {}
            // A level that cannot be told hides whether the repository is here or above.
            None => return None,
        }
    }
    None
}

/// The project of a request made from `cwd` by a requester whose home is `home`, from the
/// repository the disk showed (`git`, [`nearest_git`]) and the directories the policy names
/// (`named`: globs over a directory's absolute text or its `~/…` form): the nearest of them
/// to `cwd`. A repository in a hidden directory of the home, at `/` or at a system directory
/// (`/etc` of etckeeper) is none; the home and above are never one. Outside the home, with
/// neither, the working directory itself.
pub fn choose(
    cwd: &str,
    home: Option<&str>,
    git: Option<&str>,
    named: Option<&Globs>,
) -> Option<String> {
    let cwd = normal(cwd)?;
    let home = home.and_then(normal);
    let git = git.and_then(normal);
    let in_home = home.as_deref().and_then(|h| below(&cwd, h)).is_some();
    for dir in ancestors(&cwd).take(MAX_LEVELS) {
        if dir == "/" || home.as_deref().is_some_and(|h| home_or_above(dir, h)) {
            break;
        }
        let below_home = home.as_deref().and_then(|h| below(dir, h));
        if git.as_deref() == Some(dir) {
            let hidden = below_home
                .as_deref()
                .is_some_and(|b| b.split('/').any(|c| c.starts_with('.')));
            let system = dir.matches('/').count() == 1 && SYSTEM_TOPS.contains(&&dir[1..]);
            if !hidden && !system {
                return Some(dir.to_owned());
            }
        }
        if let Some(named) = named {
            let tilde = below_home.map(|b| format!("~/{b}"));
            if named.is_match(dir) || tilde.is_some_and(|t| named.is_match(&t)) {
                return Some(dir.to_owned());
            }
        }
    }
    let above_home = home.as_deref().is_some_and(|h| home_or_above(&cwd, h));
    (!in_home && !above_home).then_some(cwd)
}

/// Whether `project` holds one of the gate's own places (its state, with the remembered
/// approvals and the audit; its socket; its policy): a project is what a confined run may
/// change, and a working directory outside the home can be one of those directories' parents.
pub fn holds_the_gate(project: &str, config: &crate::config::Config) -> bool {
    let project = std::path::Path::new(project);
    [
        config.state_dir.as_path(),
        config.socket.as_path(),
        config.config_dir.as_path(),
        config.policy_file.as_path(),
    ]
    .iter()
    .any(|gate| gate.starts_with(project))
}

#[cfg(test)]
mod tests;
