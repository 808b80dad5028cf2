//! Reading a few files on the async worker itself, when that cannot hang.
//!
//! The blocking pool and its time limit exist because a read can hang: an agent may mount a
//! FUSE file system of its own (`fusermount` is setuid) and make a script or `.git` lead into
//! it, and a read stuck on a worker would stall the gate for every user. A read here cannot
//! reach such a file system: the root file system must be a local disk or memory file system
//! (checked once), and each file is opened with `openat2(RESOLVE_NO_XDEV)`, which refuses to
//! cross any mount point, the mounted file system never asked (a symbolic link that leads
//! into another mount crosses one too). A request whose file lies past a mount, or that wants
//! links resolved (`canonicalize` crosses mounts), or many files, is left to the pool, whole.
//! Only the outcomes the pool's `open` would give alike are kept: a file, a missing one, one
//! the requester may not read; anything else goes to the pool, so the judgement is the same.
//!
//! The files are read as the requester (`Creds` switches this thread's file-system ids and
//! gives them back before the worker runs anything else: nothing here awaits).

use std::fs::File;
use std::sync::OnceLock;

use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag};

use super::{As, Creds, Disk, Elsewhere, Open, Spent, Want, file_within};

/// Files read on the worker for one round, at most: `git status` wants one a directory up to
/// the repository, a script one. More go to the pool.
const MAX_INLINE: usize = 8;

/// Reads `wants` into `disk` on this thread as `who` when all of them are files that lie on
/// the root's file system, and says so; leaves `disk` and `spent` untouched otherwise, for
/// the pool.
pub(super) fn read(wants: &[Want], who: &As, disk: &mut Disk, spent: &mut Spent) -> bool {
    let files = wants.iter().all(|w| matches!(w, Want::File(_)));
    if !files || wants.len() > MAX_INLINE || !root_is_local() {
        return false;
    }
    let Some(creds) = Creds::become_(who) else {
        return false;
    };
    let mut now = spent.clone();
    let mut got = Vec::with_capacity(wants.len());
    for want in wants {
        let Want::File(path) = want else {
            return false;
        };
        match file_within(path, &mut now, Open::OnRoot) {
            Ok(g) => got.push((path.clone(), g)),
            Err(Elsewhere) => return false,
        }
    }
    // The worker is itself again before it runs anything else.
    drop(creds);
    disk.files.extend(got);
    *spent = now;
    true
}

/// `path` opened as the pool would open it, if its resolution stays on the root's file
/// system; `None` when it does not (or the kernel has no `openat2`), or it failed otherwise
/// than the pool's reading would tell the same way.
pub(super) fn open(path: &str) -> Option<std::io::Result<File>> {
    let how = OpenHow::new()
        .flags(OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_NOCTTY | OFlag::O_CLOEXEC)
        .resolve(ResolveFlag::RESOLVE_NO_XDEV | ResolveFlag::RESOLVE_NO_MAGICLINKS);
    match nix::fcntl::openat2(nix::fcntl::AT_FDCWD, path, how) {
        Ok(fd) => Some(Ok(File::from(fd))),
        // The walk up to these is the one the pool's `open` takes: no mount was crossed.
        Err(e @ (Errno::ENOENT | Errno::ENOTDIR | Errno::EACCES)) => {
            Some(Err(std::io::Error::from(e)))
        }
        // EXDEV (a mount crossed), ENOSYS, a lease's EWOULDBLOCK, ELOOP, ...: the pool's.
        Err(_) => None,
    }
}

/// The root is a local disk or memory file system, which answers without a server.
fn root_is_local() -> bool {
    static LOCAL: OnceLock<bool> = OnceLock::new();
    *LOCAL.get_or_init(|| super::local_fs(std::path::Path::new("/")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::Got;
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::fs::PermissionsExt;
    use std::sync::Arc;

    fn me() -> As {
        As {
            uid: nix::unistd::geteuid().as_raw(),
            gid: nix::unistd::getegid().as_raw(),
            groups: Default::default(),
            named: Vec::new(),
        }
    }

    /// A directory on the root's own file system, if the root is local and the build's
    /// directory lies on it (the case where files are read on the worker).
    fn on_root() -> Option<tempfile::TempDir> {
        let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).expect("tempdir");
        let dev = |p: &std::path::Path| std::fs::metadata(p).expect("stat").dev();
        let same = dev(dir.path()) == dev(std::path::Path::new("/"));
        (root_is_local() && same).then_some(dir)
    }

    /// Read on the worker: the same files as the pool's reading gives, and a missing one.
    #[test]
    fn files_on_the_root_are_read_here_as_the_pool_reads_them() {
        let Some(dir) = on_root() else { return };
        let root = dir.path().to_str().expect("utf-8").to_owned();
        std::fs::write(format!("{root}/config"), "[core]\n\tfsmonitor = x\n").expect("write");
        std::fs::create_dir(format!("{root}/.git")).expect("mkdir");
        std::os::unix::fs::symlink(format!("{root}/config"), format!("{root}/.git/config"))
            .expect("link");
        let wants = vec![
            Want::File(format!("{root}/.git/config")),
            Want::File(format!("{root}/none/.git/config")),
        ];
        let (mut disk, mut spent) = (Disk::default(), Spent::default());
        assert!(
            read(&wants, &me(), &mut disk, &mut spent),
            "files on the root are read on the worker"
        );
        let mut pool = Disk::default();
        super::super::read_now(&wants, me(), &mut pool, &mut Spent::default());
        assert_eq!(disk, pool);
        assert_eq!(
            disk.files.get(&format!("{root}/.git/config")),
            Some(&Got::Text(Arc::from("[core]\n\tfsmonitor = x\n")))
        );
        assert_eq!(spent.files, 2);
    }

    /// Past a mount point (here /proc, and a link into it), through a link resolution, or more
    /// files than a round reads here: the pool's, with nothing read or counted.
    #[test]
    fn what_lies_past_a_mount_is_left_to_the_pool() {
        let Some(dir) = on_root() else { return };
        let root = dir.path().to_str().expect("utf-8").to_owned();
        std::os::unix::fs::symlink("/proc/self/status", format!("{root}/status")).expect("link");
        std::fs::write(format!("{root}/x.sh"), "true\n").expect("write");
        let file = |p: String| Want::File(p);
        let cases = [
            vec![file("/proc/self/status".to_owned())],
            vec![file(format!("{root}/x.sh")), file(format!("{root}/status"))],
            vec![
                file(format!("{root}/x.sh")),
                Want::Link(format!("{root}/x.sh")),
            ],
            (0..=MAX_INLINE)
                .map(|_| file(format!("{root}/x.sh")))
                .collect(),
        ];
        for wants in cases {
            let (mut disk, mut spent) = (Disk::default(), Spent::default());
            assert!(
                !read(&wants, &me(), &mut disk, &mut spent),
                "{wants:?} read on the worker"
            );
            assert_eq!(disk, Disk::default(), "{wants:?}");
            assert_eq!(spent.files, 0, "{wants:?}");
        }
    }

    /// Root reads as the requester on the worker, and the worker is root again afterwards.
    #[test]
    fn the_worker_reads_as_the_requester_and_is_itself_after() {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let Some(dir) = on_root() else { return };
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let root = dir.path().to_str().expect("utf-8").to_owned();
        let private = format!("{root}/private.sh");
        std::fs::write(&private, "true\n").expect("write");
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let wants = [Want::File(private.clone())];
        let nobody = As {
            uid: 65534,
            gid: 65534,
            groups: Default::default(),
            named: Vec::new(),
        };
        let mut disk = Disk::default();
        assert!(read(&wants, &nobody, &mut disk, &mut Spent::default()));
        assert!(
            matches!(disk.files.get(&private), Some(Got::Unread(_))),
            "{:?}",
            disk.files
        );
        let mut disk = Disk::default();
        assert!(read(&wants, &me(), &mut disk, &mut Spent::default()));
        assert!(matches!(disk.files.get(&private), Some(Got::Text(_))));
        std::fs::write(format!("{root}/after"), "x").expect("still root");
    }
}
