//! Which mount namespace a peer is in, asked of its pidfd (`PIDFD_GET_MNT_NAMESPACE`, Linux
//! 6.11): one `ioctl` and one `fstat`, where reading `/proc/PID/ns/mnt` walks a new process's
//! `/proc` entries on every request (about a tenth of a confined door's daemon time). The pidfd
//! names the process that connected, so a pid taken by another process since cannot answer for
//! it: the kernel says the process is gone instead.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use nix::libc;

/// `_IO(PIDFS_IOCTL_MAGIC, 3)` from `<linux/pidfd.h>`.
const PIDFD_GET_MNT_NAMESPACE: libc::Ioctl = 0xFF03;

/// The (device, inode) naming the mount namespace of the process `pidfd` refers to. `None`
/// when the kernel cannot tell (the process is gone, an older kernel, no permission).
pub(super) fn of_pidfd(pidfd: &OwnedFd) -> Option<(u64, u64)> {
    // SAFETY: the ioctl takes no argument and returns a new descriptor or -1; the descriptor
    // it returns is owned by nobody else, so it is wrapped at once and closed on drop.
    let fd = unsafe { libc::ioctl(pidfd.as_raw_fd(), PIDFD_GET_MNT_NAMESPACE, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` was just returned by the kernel to this thread and is not owned elsewhere.
    let ns = unsafe { OwnedFd::from_raw_fd(fd) };
    let stat = nix::sys::stat::fstat(&ns).ok()?;
    Some((stat.st_dev, stat.st_ino))
}

/// The daemon's own mount namespace, as [`of_pidfd`] names one.
pub(super) fn ours() -> Option<(u64, u64)> {
    static OURS: std::sync::OnceLock<Option<(u64, u64)>> = std::sync::OnceLock::new();
    *OURS.get_or_init(|| {
        let stat = nix::sys::stat::stat("/proc/self/ns/mnt").ok()?;
        Some((stat.st_dev, stat.st_ino))
    })
}
