//! Reading what a line runs from the disk, as the requester: the files and links the analysis
//! asked for (`analyse::Want`), read into the snapshot it is given next (`analyse::Disk`).
//!
//! This module owns the bounds and the credentials of those reads. Only regular files are
//! read (opened `O_NONBLOCK|O_NOCTTY`, then `fstat`: never a FIFO, a device or a terminal),
//! never on `/proc` or `/sys` (checked on the opened file's device, so no link leads there),
//! at most [`MAX_FILE`] bytes a file, [`MAX_TOTAL`] and [`MAX_FILES`] files a request. A
//! daemon running as root reads with the requester's file-system credentials (`setfsuid`
//! and `setfsgid` are per thread in Linux and drop the file capabilities while they differ
//! from 0), so it never reads what the requester could not; a daemon of another user reads
//! only for itself. The reads run on tokio's blocking pool under a time limit, so a hung
//! network file system stalls only its own request, which then finds its files unread; a few
//! files that lie on the root's own local file system are read on the worker instead
//! (`inline`: a path that would cross into another mount is given to the pool).

use std::io::Read as _;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use nix::unistd::{Gid, Uid};

use crate::analyse::{Disk, Got, Want};

mod inline;

/// The most read of one file: a script, a Makefile, a manifest, a git configuration.
pub const MAX_FILE: u64 = 64 * 1024;
/// The most read for one request, all files together.
pub const MAX_TOTAL: u64 = 512 * 1024;
/// Files read for one request, at most.
pub const MAX_FILES: usize = 64;
/// Links resolved for one request, at most.
pub const MAX_LINKS: usize = 64;
/// How long one round of reads may take before the rest counts as unread.
pub const READ_TIME: Duration = Duration::from_millis(500);
/// Rounds of reading per request: a script read may run another script.
pub const MAX_ROUNDS: usize = 3;

/// Who the files are read for: the requester's uid, gid and supplementary groups, and the
/// directories its line is placed from (its working directory, its home) as the line names
/// them.
#[derive(Debug, Clone, Default)]
pub struct As {
    pub uid: u32,
    pub gid: u32,
    /// The requester's supplementary groups (a project under a directory only its team may
    /// enter is found, read and planned as the requester sees it), read only by a root daemon
    /// when it switches to the requester.
    pub groups: crate::peer::Groups,
    /// Where a link leads is told in these directories' own names: on a system where `/home`
    /// is a link to `/var/home`, `~/proj/build` leads to `~/proj/build`, not elsewhere.
    pub named: Vec<String>,
}

/// What one request has read so far, against its bounds.
#[derive(Debug, Default, Clone)]
pub struct Spent {
    bytes: u64,
    files: usize,
    links: usize,
}

/// Reads `wants` into `disk` as `who`, off the async workers and within [`READ_TIME`]; what
/// was not read in time is recorded as unread.
pub async fn read(wants: Vec<Want>, who: As, disk: Disk, spent: Spent) -> (Disk, Spent) {
    // Two hand-overs between threads cost more than reading a git configuration from the
    // page cache; what cannot hang is read here.
    let (mut disk, mut spent) = (disk, spent);
    if inline::read(&wants, &who, &mut disk, &mut spent) {
        return (disk, spent);
    }
    let backup = wants.clone();
    let kept = disk.clone();
    let task = tokio::task::spawn_blocking(move || {
        let mut disk = disk;
        let mut spent = spent;
        read_now(&wants, who, &mut disk, &mut spent);
        (disk, spent)
    });
    match tokio::time::timeout(READ_TIME, task).await {
        Ok(Ok(done)) => done,
        // Too slow (or the reading thread failed): nothing of this round counts as read. The
        // thread finishes on its own and gives its credentials back then.
        _ => {
            let mut disk = kept;
            for want in backup {
                match want {
                    Want::File(path) => {
                        let why = "the disk did not answer in time".to_owned();
                        disk.files.insert(path, Got::Unread(why));
                    }
                    Want::Link(path) => {
                        disk.links.insert(path, None);
                    }
                    Want::Exists(path) => {
                        disk.exists.insert(path, true);
                    }
                }
            }
            (disk, Spent::exhausted())
        }
    }
}

impl Spent {
    /// Nothing more is read for this request.
    fn exhausted() -> Spent {
        Spent {
            bytes: MAX_TOTAL,
            files: MAX_FILES,
            links: MAX_LINKS,
        }
    }
}

/// Reads `wants` into `disk` on this thread, as `who`.
pub fn read_now(wants: &[Want], who: As, disk: &mut Disk, spent: &mut Spent) {
    let Some(_creds) = Creds::become_(&who) else {
        for want in wants {
            match want {
                Want::File(path) => {
                    let why = "the daemon cannot read as the requester".to_owned();
                    disk.files.insert(path.clone(), Got::Unread(why));
                }
                Want::Exists(path) => {
                    disk.exists.insert(path.clone(), true);
                }
                Want::Link(_) => {}
            }
        }
        return;
    };
    // Each named directory and where it really is, resolved once.
    let named: Vec<(String, String)> = who
        .named
        .iter()
        .filter_map(|n| {
            let real = std::fs::canonicalize(n).ok()?;
            let real = real.to_str()?.to_owned();
            (real != *n).then(|| (n.trim_end_matches('/').to_owned(), real))
        })
        .collect();
    for want in wants {
        match want {
            Want::File(path) => {
                // Opened anywhere, nothing is left for elsewhere.
                let got = file_within(path, spent, Open::Anywhere).unwrap_or_else(|Elsewhere| {
                    Got::Unread("the file could not be opened".to_owned())
                });
                disk.files.insert(path.clone(), got);
            }
            Want::Link(path) => {
                let led = if spent.links >= MAX_LINKS {
                    None
                } else {
                    spent.links += 1;
                    resolve(path).and_then(|real| renamed(real, path, &named))
                };
                disk.links.insert(path.clone(), led);
            }
            // Looked up as the requester, the link itself if it is one; past the budget,
            // taken to be there.
            Want::Exists(path) => {
                let there = if spent.links >= MAX_LINKS {
                    true
                } else {
                    spent.links += 1;
                    !matches!(
                        std::fs::symlink_metadata(path),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound
                    )
                };
                disk.exists.insert(path.clone(), there);
            }
        }
    }
}

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// Wherever its path leads (on the blocking pool, where a hang is bounded).
    Anywhere,
    /// Only if its path stays on the root's file system (`inline`).
    OnRoot,
}

/// The file's path leads where [`Open::OnRoot`] does not open: the pool reads it.
#[derive(Debug)]
struct Elsewhere;

/// One file of the request, counted against [`MAX_FILES`].
fn file_within(path: &str, spent: &mut Spent, open: Open) -> Result<Got, Elsewhere> {
    if spent.files >= MAX_FILES {
        return Ok(Got::Unread(format!(
            "more than {MAX_FILES} files for one line"
        )));
    }
    spent.files += 1;
    read_file(path, spent, open)
}

/// One regular file's text, within the bounds.
fn read_file(path: &str, spent: &mut Spent, open: Open) -> Result<Got, Elsewhere> {
    if !path.starts_with('/') {
        return Ok(Got::Unread("not an absolute path".to_owned()));
    }
    let file = match open {
        Open::Anywhere => std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY)
            .open(path),
        Open::OnRoot => inline::open(path).ok_or(Elsewhere)?,
    };
    Ok(opened(file, spent))
}

/// What an opened (or failed) file gives, within the bounds.
fn opened(file: std::io::Result<std::fs::File>, spent: &mut Spent) -> Got {
    let mut file = match file {
        Ok(f) => f,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Got::Missing;
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Got::Unread("not readable by the requester".to_owned());
        }
        Err(e) => return Got::Unread(format!("{}", e.kind())),
    };
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(e) => return Got::Unread(format!("{}", e.kind())),
    };
    if !meta.is_file() {
        return Got::Unread("not a regular file".to_owned());
    }
    if hidden_devices().contains(&meta.dev()) {
        return Got::Unread("a file of /proc or /sys".to_owned());
    }
    if meta.len() > MAX_FILE {
        // A compiled program is large: its start says it is not text.
        let mut head = Vec::new();
        if (&mut file).take(4096).read_to_end(&mut head).is_ok() && head.contains(&0) {
            return Got::Binary;
        }
        return Got::Unread(format!("larger than {} KiB", MAX_FILE / 1024));
    }
    if spent.bytes.saturating_add(meta.len()) > MAX_TOTAL {
        return Got::Unread(format!("past {} KiB read for one line", MAX_TOTAL / 1024));
    }
    let mut bytes = Vec::new();
    // A file that grew since `fstat` is read no further than the bound.
    if let Err(e) = (&mut file).take(MAX_FILE + 1).read_to_end(&mut bytes) {
        return Got::Unread(format!("{}", e.kind()));
    }
    if bytes.len() as u64 > MAX_FILE {
        return Got::Unread(format!("larger than {} KiB", MAX_FILE / 1024));
    }
    spent.bytes += bytes.len() as u64;
    if bytes.contains(&0) {
        return Got::Binary;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Got::Text(Arc::from(text)),
        Err(_) => Got::Binary,
    }
}

/// Where `path` leads once its links are followed, when that is elsewhere; a path that does
/// not exist yet is resolved through its directory.
fn resolve(path: &str) -> Option<String> {
    let p = std::path::Path::new(path);
    let real = match std::fs::canonicalize(p) {
        Ok(real) => real,
        Err(_) => {
            let parent = std::fs::canonicalize(p.parent()?).ok()?;
            parent.join(p.file_name()?)
        }
    };
    let real = real.to_str()?.to_owned();
    let same = real == path.trim_end_matches('/') || (real == "/" && path == "/");
    (!same).then_some(real)
}

/// `real` told from the named directory it lies in, when it does; `None` when that is `path`
/// itself (no link but the named directory's own).
fn renamed(real: String, path: &str, named: &[(String, String)]) -> Option<String> {
    for (name, dir) in named {
        if let Some(rest) = real.strip_prefix(dir.as_str())
            && (rest.is_empty() || rest.starts_with('/'))
        {
            let told = format!("{name}{rest}");
            return (told != path.trim_end_matches('/')).then_some(told);
        }
    }
    Some(real)
}

/// The devices of `/proc` and `/sys`, whose files are never read.
fn hidden_devices() -> &'static [u64] {
    static DEVICES: OnceLock<Vec<u64>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        ["/proc", "/sys"]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.dev())
            .collect()
    })
}

/// `path` lies on a local disk or memory file system (or an overlay of them): one that answers
/// without a server, and whose every change this kernel makes, so inotify sees it.
pub(crate) fn local_fs(path: &std::path::Path) -> bool {
    use nix::sys::statfs::{
        BTRFS_SUPER_MAGIC, EXT4_SUPER_MAGIC, F2FS_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC, TMPFS_MAGIC,
        XFS_SUPER_MAGIC, statfs,
    };
    statfs(path).is_ok_and(|fs| {
        [
            EXT4_SUPER_MAGIC,
            XFS_SUPER_MAGIC,
            BTRFS_SUPER_MAGIC,
            F2FS_SUPER_MAGIC,
            TMPFS_MAGIC,
            OVERLAYFS_SUPER_MAGIC,
        ]
        .contains(&fs.filesystem_type())
    })
}

/// The thread's file-system credentials and supplementary groups, set to the requester's
/// while this lives (the project's look, `project.rs`, takes them too).
pub(crate) struct Creds {
    switched: bool,
}

/// The daemon's own supplementary groups, put back on a thread when it is done reading.
/// Read on the first switch, before it: a thread outside a `Creds` always has them.
static DAEMON_GROUPS: std::sync::OnceLock<Vec<rustix::thread::Gid>> = std::sync::OnceLock::new();

impl Creds {
    /// As `who`: root switches this thread's file-system ids and supplementary groups (the
    /// kernel's `setgroups` is per thread; nothing else of the daemon changes); another user
    /// reads only for itself (`None` otherwise).
    pub(crate) fn become_(who: &As) -> Option<Creds> {
        let me = nix::unistd::geteuid();
        if !me.is_root() {
            return (me.as_raw() == who.uid).then_some(Creds { switched: false });
        }
        if who.uid == 0 {
            return Some(Creds { switched: false });
        }
        // The daemon's own, read before the first switch, to put back after each.
        DAEMON_GROUPS.get_or_init(|| {
            nix::unistd::getgroups()
                .unwrap_or_default()
                .into_iter()
                .map(|g| rustix::thread::Gid::from_raw_unchecked(g.as_raw()))
                .collect()
        });
        let theirs: Vec<rustix::thread::Gid> = who
            .groups
            .get()
            .iter()
            .map(|g| rustix::thread::Gid::from_raw_unchecked(*g))
            .collect();
        // From here on, dropping `creds` puts every credential back. The groups are set every
        // time, even when they equal the daemon's: a thread whose last restore failed must not
        // read with another requester's.
        let creds = Creds { switched: true };
        if rustix::thread::set_thread_groups(&theirs).is_err() {
            return None;
        }
        // The group first: once the uid is not 0 the thread may no longer change it.
        nix::unistd::setfsgid(Gid::from_raw(who.gid));
        nix::unistd::setfsuid(Uid::from_raw(who.uid));
        // Each call returns the id before it: asking again (with an id it cannot take) says
        // whether the switch happened. Without CAP_SETUID (or CAP_SETGID) it does not, and
        // nothing is read.
        let gid = nix::unistd::setfsgid(Gid::from_raw(u32::MAX));
        let uid = nix::unistd::setfsuid(Uid::from_raw(u32::MAX));
        (uid.as_raw() == who.uid && gid.as_raw() == who.gid).then_some(creds)
    }
}

impl Drop for Creds {
    fn drop(&mut self) {
        if self.switched {
            nix::unistd::setfsuid(Uid::from_raw(0));
            nix::unistd::setfsgid(nix::unistd::getegid());
            if let Some(ours) = DAEMON_GROUPS.get()
                && let Err(error) = rustix::thread::set_thread_groups(ours)
            {
                // Never left with a requester's: none at all can only narrow what the thread
                // may read. Said, since it should not happen.
                let _ = rustix::thread::set_thread_groups(&[]);
                tracing::error!(%error, "could not give a reading thread its own groups back");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn me() -> As {
        As {
            uid: nix::unistd::geteuid().as_raw(),
            gid: nix::unistd::getegid().as_raw(),
            groups: Default::default(),
            named: Vec::new(),
        }
    }

    #[test]
    fn reads_regular_files_within_bounds_and_nothing_else() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_str().expect("utf-8").to_owned();
        std::fs::write(format!("{root}/x.sh"), "rm -rf ~/Documents/old\n").expect("write");
        std::fs::write(format!("{root}/big"), vec![b'a'; MAX_FILE as usize + 1]).expect("write");
        std::fs::write(format!("{root}/prog"), b"\x7fELF\0\0").expect("write");
        let mut large = b"\x7fELF\0\0".to_vec();
        large.resize(MAX_FILE as usize * 2, 0);
        std::fs::write(format!("{root}/large-prog"), large).expect("write");
        nix::unistd::mkfifo(
            format!("{root}/fifo").as_str(),
            nix::sys::stat::Mode::from_bits_truncate(0o600),
        )
        .expect("mkfifo");
        std::os::unix::fs::symlink("/proc/self/environ", format!("{root}/env")).expect("link");
        std::os::unix::fs::symlink(&root, format!("{root}/up")).expect("link");
        let file = |n: &str| Want::File(format!("{root}/{n}"));
        let wants = vec![
            file("x.sh"),
            file("big"),
            file("prog"),
            file("large-prog"),
            file("fifo"),
            file("env"),
            file("none"),
            Want::File("/dev/zero".to_owned()),
            Want::Link(format!("{root}/up/x.sh")),
            Want::Link(format!("{root}/x.sh")),
        ];
        let mut disk = Disk::default();
        read_now(&wants, me(), &mut disk, &mut Spent::default());
        let got = |n: &str| disk.files.get(&format!("{root}/{n}")).cloned();
        assert_eq!(
            got("x.sh"),
            Some(Got::Text(Arc::from("rm -rf ~/Documents/old\n")))
        );
        assert!(
            matches!(got("big"), Some(Got::Unread(_))),
            "{:?}",
            got("big")
        );
        assert_eq!(got("prog"), Some(Got::Binary));
        assert_eq!(got("large-prog"), Some(Got::Binary));
        assert!(
            matches!(got("fifo"), Some(Got::Unread(_))),
            "{:?}",
            got("fifo")
        );
        assert!(
            matches!(got("env"), Some(Got::Unread(_))),
            "{:?}",
            got("env")
        );
        assert_eq!(got("none"), Some(Got::Missing));
        assert!(matches!(disk.files.get("/dev/zero"), Some(Got::Unread(_))));
        let real = std::fs::canonicalize(&root).expect("canonical");
        let real = real.to_str().expect("utf-8");
        assert_eq!(
            disk.links.get(&format!("{root}/up/x.sh")),
            Some(&Some(format!("{real}/x.sh")))
        );
        let plain = if real == root {
            None
        } else {
            Some(format!("{real}/x.sh"))
        };
        assert_eq!(disk.links.get(&format!("{root}/x.sh")), Some(&plain));
    }

    /// A project reached through a linked directory (`/home` a link to `/var/home`) leads
    /// nowhere else; a link inside it still does.
    #[test]
    fn links_are_told_in_the_names_the_line_uses() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = std::fs::canonicalize(dir.path()).expect("canonical");
        let real = real.to_str().expect("utf-8").to_owned();
        std::fs::create_dir_all(format!("{real}/var/home/u/proj/src")).expect("dirs");
        std::os::unix::fs::symlink(format!("{real}/var/home"), format!("{real}/home"))
            .expect("link");
        std::os::unix::fs::symlink(
            format!("{real}/var/home/u"),
            format!("{real}/var/home/u/proj/up"),
        )
        .expect("link");
        let who = As {
            groups: Default::default(),
            named: vec![format!("{real}/home/u/proj"), format!("{real}/home/u")],
            ..me()
        };
        let src = format!("{real}/home/u/proj/src");
        let up = format!("{real}/home/u/proj/up");
        let wants = [Want::Link(src.clone()), Want::Link(up.clone())];
        let mut disk = Disk::default();
        read_now(&wants, who, &mut disk, &mut Spent::default());
        assert_eq!(disk.links.get(&src), Some(&None));
        assert_eq!(disk.links.get(&up), Some(&Some(format!("{real}/home/u"))));
    }

    /// Whether anything is at a path, as the requester: a file, a dangling link; not what
    /// is not there, nor what the requester cannot look up (that counts as there).
    #[test]
    fn looks_up_whether_a_path_is_there() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_str().expect("utf-8").to_owned();
        std::fs::write(format!("{root}/.env"), "KEY=1\n").expect("write");
        std::os::unix::fs::symlink(format!("{root}/nowhere"), format!("{root}/dangling"))
            .expect("link");
        let at = |n: &str| format!("{root}/{n}");
        let wants: Vec<Want> = [".env", "dangling", "none", "none/below"]
            .iter()
            .map(|n| Want::Exists(at(n)))
            .collect();
        let mut disk = Disk::default();
        read_now(&wants, me(), &mut disk, &mut Spent::default());
        let there = |n: &str| disk.exists.get(&at(n)).copied();
        assert_eq!(there(".env"), Some(true));
        assert_eq!(there("dangling"), Some(true));
        assert_eq!(there("none"), Some(false));
        assert_eq!(there("none/below"), Some(false));
        // Past the request's budget of look-ups, a path is taken to be there.
        let mut spent = Spent {
            links: MAX_LINKS,
            ..Spent::default()
        };
        let mut disk = Disk::default();
        read_now(&[Want::Exists(at("none"))], me(), &mut disk, &mut spent);
        assert_eq!(disk.exists.get(&at("none")), Some(&true));
    }

    #[test]
    fn a_request_reads_no_more_than_its_budget() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_str().expect("utf-8").to_owned();
        let wants: Vec<Want> = (0..MAX_FILES + 3)
            .map(|n| {
                let path = format!("{root}/f{n}");
                std::fs::write(&path, vec![b'a'; 60 * 1024]).expect("write");
                Want::File(path)
            })
            .collect();
        let mut disk = Disk::default();
        read_now(&wants, me(), &mut disk, &mut Spent::default());
        let text = disk
            .files
            .values()
            .filter(|g| matches!(g, Got::Text(_)))
            .count();
        assert_eq!(text as u64, MAX_TOTAL / (60 * 1024));
        assert_eq!(disk.files.len(), MAX_FILES + 3);
    }

    /// Root reads with the requester's file-system ids: a file only root may read is unread
    /// for another user, and the thread is root again afterwards.
    #[test]
    fn root_reads_only_what_the_requester_could() {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let root = dir.path().to_str().expect("utf-8").to_owned();
        let private = format!("{root}/private.sh");
        let public = format!("{root}/public.sh");
        std::fs::write(&private, "true\n").expect("write");
        std::fs::write(&public, "true\n").expect("write");
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        std::fs::set_permissions(&public, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let wants = [Want::File(private.clone()), Want::File(public.clone())];
        let nobody = As {
            uid: 65534,
            gid: 65534,
            groups: Default::default(),
            named: Vec::new(),
        };
        let mut disk = Disk::default();
        read_now(&wants, nobody.clone(), &mut disk, &mut Spent::default());
        assert!(
            matches!(disk.files.get(&private), Some(Got::Unread(_))),
            "{:?}",
            disk.files
        );
        assert!(matches!(disk.files.get(&public), Some(Got::Text(_))));
        // Root again on this thread.
        let mut disk = Disk::default();
        read_now(&wants, me(), &mut disk, &mut Spent::default());
        assert!(matches!(disk.files.get(&private), Some(Got::Text(_))));
        std::fs::write(format!("{root}/after"), "x").expect("still root");
    }

    /// The requester's supplementary groups open what they open (a directory only a group
    /// may enter), on the reading thread alone, and the thread has the daemon's own groups
    /// back afterwards.
    #[test]
    fn root_reads_with_the_requesters_groups_on_this_thread_only() {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let team = dir.path().join("team");
        std::fs::create_dir(&team).expect("mkdir");
        // A group nobody is in, that only its members may enter.
        let gid = 54321;
        std::fs::set_permissions(&team, std::fs::Permissions::from_mode(0o770)).expect("chmod");
        nix::unistd::chown(&team, None, Some(Gid::from_raw(gid))).expect("chgrp");
        let file = team.join("build.sh").to_str().expect("utf-8").to_owned();
        std::fs::write(&file, "true\n").expect("write");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let wants = [Want::File(file.clone())];
        let ours = nix::unistd::getgroups().expect("getgroups");

        let outsider = As {
            uid: 65534,
            gid: 65534,
            groups: Default::default(),
            named: Vec::new(),
        };
        let mut disk = Disk::default();
        read_now(&wants, outsider.clone(), &mut disk, &mut Spent::default());
        assert!(matches!(disk.files.get(&file), Some(Got::Unread(_))));

        let member = As {
            groups: crate::peer::Groups::known(vec![gid]),
            ..outsider
        };
        let mut disk = Disk::default();
        read_now(&wants, member.clone(), &mut disk, &mut Spent::default());
        assert!(
            matches!(disk.files.get(&file), Some(Got::Text(_))),
            "{:?}",
            disk.files
        );
        assert_eq!(nix::unistd::getgroups().expect("getgroups"), ours);

        // While one thread reads as the member, the daemon's other threads keep its groups.
        let (ask, asked) = std::sync::mpsc::channel::<()>();
        let elsewhere = std::thread::spawn(move || {
            asked.recv().expect("asked");
            nix::unistd::getgroups().expect("getgroups")
        });
        let creds = Creds::become_(&member).expect("root switches");
        assert_eq!(
            nix::unistd::getgroups().expect("getgroups"),
            vec![Gid::from_raw(gid)]
        );
        ask.send(()).expect("ask");
        assert_eq!(elsewhere.join().expect("thread"), ours);
        drop(creds);
        assert_eq!(nix::unistd::getgroups().expect("getgroups"), ours);
    }

    #[test]
    fn another_users_files_are_not_read_by_a_daemon_that_is_not_root() {
        if nix::unistd::geteuid().is_root() {
            return;
        }
        let other = As {
            uid: nix::unistd::geteuid().as_raw() + 1,
            gid: 0,
            groups: Default::default(),
            named: Vec::new(),
        };
        let mut disk = Disk::default();
        let wants = [Want::File("/etc/hostname".to_owned())];
        read_now(&wants, other, &mut disk, &mut Spent::default());
        assert!(matches!(
            disk.files.get("/etc/hostname"),
            Some(Got::Unread(_))
        ));
    }
}
