//! A project's own narrowing of what its confined runs may do: `.assent/confine.toml` at the
//! project's root (the root the daemon found, never a directory the client names). It can
//! only take away from what the policy's `[confine]` and the judgement give:
//!
//! ```toml
//! network = false   # TCP cut for every confined run in this project
//! caches = false    # no programs' caches, package directories or the policy's extra
//!                   # `[confine] writable` places; temp stays
//! project = false   # the project itself is not writable (temp and caches still are)
//! ```
//!
//! Each key defaults to what the policy says; `true` changes nothing, so no value widens. A
//! file the daemon cannot take (an unknown key, a wrong type, not a regular file, a link or
//! below a linked `.assent`, too large) narrows everything it can say: a project that tried to
//! widen, or wrote a narrowing wrong, gets less, never more. No file narrows nothing.
//!
//! The narrowings of the directories above the root count too, up to the home or `/` (not
//! theirs): a repository nested in a narrowed project (a submodule, or one an agent made with
//! `git init`) is a project of its own, and would otherwise escape what its parent took away.
//! Each key is the narrowest any of them says.
//!
//! Read as the requester (`read.rs`'s file-system credentials), bounded in size, never below
//! `/proc`, `/sys` or `/dev`, off the async workers within `read::READ_TIME`, and kept
//! `CACHE_TIME` per uid and root like the project itself. `parse` is pure.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::Mutex;
use std::time::Instant;

use assent_client::protocol::Confinement;
use serde::Deserialize;

use super::CACHE_TIME;
use crate::read;

/// Where the file lies below the project's root.
pub const FILE: &str = ".assent/confine.toml";
/// The largest file read; a larger one narrows everything.
const MAX_LEN: u64 = 16 * 1024;
/// Roots remembered at once; past this, all are forgotten.
const CACHE_MAX: usize = 4096;
/// Directories looked in from a root upwards, at most.
const MAX_LEVELS: usize = 64;

/// What a project takes away: each `false` narrows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Narrowing {
    pub network: bool,
    pub caches: bool,
    pub project: bool,
}

impl Default for Narrowing {
    fn default() -> Narrowing {
        Narrowing::NONE
    }
}

impl Narrowing {
    /// No file: the policy's confinement as it is.
    pub const NONE: Narrowing = Narrowing {
        network: true,
        caches: true,
        project: true,
    };
    /// A file the daemon cannot take: everything the file could narrow.
    pub const ALL: Narrowing = Narrowing {
        network: false,
        caches: false,
        project: false,
    };

    /// What both take away.
    fn and(self, other: Narrowing) -> Narrowing {
        Narrowing {
            network: self.network && other.network,
            caches: self.caches && other.caches,
            project: self.project && other.project,
        }
    }

    /// Takes from `confine` what this narrowing says, for a requester whose home is `home`
    /// under a policy that adds `policy_writable`. Only removes places and cuts TCP.
    pub fn apply(&self, confine: &mut Confinement, home: Option<&str>, policy_writable: &[String]) {
        if !self.network {
            confine.offline = true;
        }
        if !self.caches {
            let temp = crate::places::confine::scratch(None);
            let mut extra = crate::places::confine::scratch(home);
            extra.retain(|w| !temp.contains(w));
            if let Some(home) = home {
                extra.extend(crate::places::confine::package_dirs(home));
                let home = home.trim_end_matches('/');
                extra.extend(policy_writable.iter().map(|w| match w.strip_prefix("~/") {
                    Some(below) => format!("{home}/{below}"),
                    None => w.clone(),
                }));
            } else {
                extra.extend(policy_writable.iter().cloned());
            }
            confine.write.retain(|w| !extra.contains(w));
        }
        if !self.project {
            confine.project = None;
        }
    }
}

/// The narrowing a file's text says; an error for a text the daemon cannot take.
pub fn parse(text: &str) -> Result<Narrowing, String> {
    toml::from_str(text).map_err(|e| e.to_string())
}

/// The narrowings read lately, by uid and project root.
#[derive(Debug, Default)]
pub struct Cache {
    read: Mutex<HashMap<(u32, String), (Instant, Narrowing)>>,
}

impl Cache {
    /// The narrowing of the project at `root` and of the directories above it below `home`,
    /// read as `who`. A read the disk does not answer in time narrows everything and is not
    /// kept.
    pub async fn narrowing(&self, who: &read::As, root: &str, home: Option<&str>) -> Narrowing {
        let key = (who.uid, root.to_owned());
        if let Ok(read) = self.read.lock()
            && let Some((at, narrowing)) = read.get(&key)
            && at.elapsed() < CACHE_TIME
        {
            return *narrowing;
        }
        let (who, dir, home) = (who.clone(), root.to_owned(), home.map(str::to_owned));
        let look = tokio::task::spawn_blocking(move || read_as(&who, &dir, home.as_deref()));
        let narrowing = match tokio::time::timeout(read::READ_TIME, look).await {
            Ok(Ok(narrowing)) => narrowing,
            _ => return Narrowing::ALL,
        };
        if let Ok(mut read) = self.read.lock() {
            if read.len() >= CACHE_MAX {
                read.clear();
            }
            read.insert(key, (Instant::now(), narrowing));
        }
        narrowing
    }
}

/// The narrowing of `root` and the directories above it below `home`, read on this thread as
/// `who`.
fn read_as(who: &read::As, root: &str, home: Option<&str>) -> Narrowing {
    let Some(_creds) = read::Creds::become_(who) else {
        return Narrowing::ALL;
    };
    enclosing(root, home)
        .into_iter()
        .enumerate()
        .map(|(level, dir)| read_at(dir, (level > 0).then_some(who.uid)))
        .fold(Narrowing::NONE, Narrowing::and)
}

/// `root` and the directories above it whose narrowing counts: up to, not including, the
/// home (when `root` lies below it) or `/`; none below `/proc`, `/sys` or `/dev`.
fn enclosing<'a>(root: &'a str, home: Option<&str>) -> Vec<&'a str> {
    let kernel = ["/proc", "/sys", "/dev"]
        .iter()
        .any(|p| root == *p || root.starts_with(&format!("{p}/")));
    if kernel || !root.starts_with('/') {
        return Vec::new();
    }
    let home = home.map(|h| h.trim_end_matches('/'));
    let mut dirs = Vec::new();
    let mut dir = root.trim_end_matches('/');
    while !dir.is_empty() && Some(dir) != home && dirs.len() < MAX_LEVELS {
        dirs.push(dir);
        dir = dir.rfind('/').map_or("", |at| &dir[..at]);
    }
    dirs
}

/// Reads the file below `root` on this thread, with the credentials it runs with. `owner`: a
/// directory above the project counts only when its `.assent` is the requester's or root's
/// (anyone may make `/tmp/.assent`).
fn read_at(root: &str, owner: Option<u32>) -> Narrowing {
    use std::os::unix::fs::MetadataExt;
    // `.assent` itself must be a directory, not a link to one elsewhere.
    let dir = format!("{root}/.assent");
    match std::fs::symlink_metadata(&dir) {
        Ok(meta) if owner.is_some_and(|uid| meta.uid() != uid && meta.uid() != 0) => {
            return Narrowing::NONE;
        }
        Ok(meta) if meta.is_dir() => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Narrowing::NONE,
        _ => return Narrowing::ALL,
    }
    let path = format!("{root}/{FILE}");
    // No link followed at the last step, and no waiting on a FIFO.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(&path);
    let file = match file {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Narrowing::NONE,
        Err(error) => {
            tracing::debug!(%error, "a project's confine.toml cannot be read: everything narrowed");
            return Narrowing::ALL;
        }
    };
    let regular = file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() <= MAX_LEN);
    let mut text = String::new();
    if !regular || file.take(MAX_LEN + 1).read_to_string(&mut text).is_err() {
        return Narrowing::ALL;
    }
    parse(&text).unwrap_or_else(|error| {
        tracing::debug!(%error, "a project's confine.toml is not taken: everything narrowed");
        Narrowing::ALL
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confinement() -> Confinement {
        let mut write = crate::places::confine::scratch(Some("/home/u"));
        write.push("/srv/shared".into());
        write.push("/home/u/Documents/named.txt".into());
        Confinement {
            write,
            project: Some("/home/u/src/app".into()),
            offline: false,
            home: Some("/home/u".into()),
            ..Confinement::default()
        }
    }

    #[test]
    fn a_project_file_narrows_and_no_key_widens() {
        let policy = vec!["/srv/shared".to_owned()];
        for (text, want) in [
            ("", Ok(Narrowing::NONE)),
            (
                "network = false",
                Ok(Narrowing {
                    network: false,
                    ..Narrowing::NONE
                }),
            ),
            (
                "network = true\ncaches = true\nproject = true",
                Ok(Narrowing::NONE),
            ),
            (
                "caches = false\nproject = false",
                Ok(Narrowing {
                    network: true,
                    ..Narrowing::ALL
                }),
            ),
            // Whatever would widen is not a key: the file is refused, and everything narrowed.
            ("writable = [\"/\"]", Err(())),
            ("enabled = false", Err(())),
            ("write_anywhere = true", Err(())),
            ("[confine]\nwritable = [\"~\"]", Err(())),
            ("network = \"yes\"", Err(())),
        ] {
            let got = parse(text).map_err(|_| ());
            assert_eq!(got, want, "{text}");
            let narrowing = got.unwrap_or(Narrowing::ALL);
            let before = confinement();
            let mut after = before.clone();
            narrowing.apply(&mut after, Some("/home/u"), &policy);
            assert!(
                after.write.iter().all(|w| before.write.contains(w)),
                "{text}: {after:?}"
            );
            assert!(after.offline >= before.offline, "{text}");
            assert!(
                after.project.is_none() || after.project == before.project,
                "{text}"
            );
            assert_eq!(after.write_anywhere, before.write_anywhere, "{text}");
            assert_eq!(after.write_within, before.write_within, "{text}");
            assert_eq!(after.hide, before.hide, "{text}");
        }
    }

    #[test]
    fn no_caches_keeps_temp_and_what_the_line_names() {
        let mut c = confinement();
        Narrowing::ALL.apply(&mut c, Some("/home/u"), &["/srv/shared".to_owned()]);
        assert!(c.write.contains(&"/tmp".to_owned()), "{c:?}");
        assert!(
            c.write.contains(&"/home/u/Documents/named.txt".to_owned()),
            "{c:?}"
        );
        assert!(!c.write.contains(&"/srv/shared".to_owned()), "{c:?}");
        assert!(
            !c.write.contains(&"/home/u/.cargo/registry".to_owned()),
            "{c:?}"
        );
        assert!(c.offline && c.project.is_none());
    }

    #[test]
    fn the_file_is_read_without_following_a_link_and_bounded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_str().expect("utf-8").to_owned();
        let me = read::As {
            uid: nix::unistd::geteuid().as_raw(),
            gid: nix::unistd::getegid().as_raw(),
            groups: Default::default(),
            named: Vec::new(),
        };
        assert_eq!(read_as(&me, &root, None), Narrowing::NONE, "no file");
        std::fs::create_dir_all(dir.path().join(".assent")).expect("mkdir");
        let file = dir.path().join(FILE);
        std::fs::write(&file, "network = false\n").expect("write");
        assert!(!read_as(&me, &root, None).network);
        std::fs::write(&file, "#".repeat(MAX_LEN as usize + 10)).expect("write");
        assert_eq!(read_as(&me, &root, None), Narrowing::ALL, "too large");
        std::fs::remove_file(&file).expect("rm");
        let elsewhere = dir.path().join("elsewhere.toml");
        std::fs::write(&elsewhere, "").expect("write");
        std::os::unix::fs::symlink(&elsewhere, &file).expect("link");
        assert_eq!(read_as(&me, &root, None), Narrowing::ALL, "a link");
        assert_eq!(read_as(&me, "/proc/self", None), Narrowing::NONE);
        // `.assent` as a link to a directory elsewhere narrows everything.
        std::fs::remove_file(&file).expect("rm");
        std::fs::remove_dir(dir.path().join(".assent")).expect("rmdir");
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).expect("mkdir");
        std::os::unix::fs::symlink(&other, dir.path().join(".assent")).expect("link");
        assert_eq!(
            read_as(&me, &root, None),
            Narrowing::ALL,
            "a linked .assent"
        );
    }

    /// A repository nested in a narrowed project keeps its parent's narrowing; what lies
    /// above the home, or the home itself, narrows nothing below it.
    #[test]
    fn the_directories_above_a_root_narrow_it_too() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let parent = home.join("src/app");
        let nested = parent.join("vendor/lib");
        std::fs::create_dir_all(&nested).expect("mkdir");
        let text = |p: &std::path::Path| p.to_str().expect("utf-8").to_owned();
        let me = read::As {
            uid: nix::unistd::geteuid().as_raw(),
            gid: nix::unistd::getegid().as_raw(),
            groups: Default::default(),
            named: Vec::new(),
        };
        let write = |at: &std::path::Path, narrowing: &str| {
            std::fs::create_dir_all(at.join(".assent")).expect("mkdir");
            std::fs::write(at.join(FILE), narrowing).expect("write");
        };
        write(&parent, "network = false\n");
        write(&nested, "project = false\n");
        let got = read_as(&me, &text(&nested), Some(&text(&home)));
        assert!(!got.network && !got.project && got.caches, "{got:?}");
        let got = read_as(&me, &text(&parent), Some(&text(&home)));
        assert!(!got.network && got.project, "{got:?}");
        // The home's own file, and one above the home, are not a project's.
        write(&home, "caches = false\n");
        write(dir.path(), "caches = false\n");
        let got = read_as(&me, &text(&parent), Some(&text(&home)));
        assert!(got.caches, "{got:?}");
        assert_eq!(
            enclosing("/home/u/src/app/", Some("/home/u/")),
            vec!["/home/u/src/app", "/home/u/src"]
        );
        assert_eq!(
            enclosing("/srv/app", Some("/home/u")),
            vec!["/srv/app", "/srv"]
        );
        assert!(enclosing("relative", None).is_empty());
    }
}
