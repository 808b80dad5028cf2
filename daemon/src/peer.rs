//! Who is on the other end of a connection, from the kernel only.
//!
//! The uid, gid and pid come from `SO_PEERCRED` (captured by the kernel at `connect`), a pidfd
//! from `SO_PEERPIDFD` where the kernel has it (6.5+), so that `/proc` reads about the peer are
//! checked against the process that connected rather than whoever has its pid now. Nothing a
//! request says about its sender is used for authority. A failed lookup is an error, never a
//! default identity.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};

use nix::errno::Errno;
use nix::sys::socket::{getsockopt, sockopt};
use nix::unistd::Pid;

use crate::error::Error;

/// The kernel's account of a peer.
#[derive(Debug)]
pub struct PeerIdentity {
    /// Effective uid at connect time.
    pub uid: u32,
    /// Effective gid at connect time.
    pub gid: u32,
    /// Process id at connect time (0 when the peer is in another pid namespace).
    pub pid: i32,
    /// A pidfd for the peer process, where the kernel supports `SO_PEERPIDFD`.
    pub pidfd: Option<OwnedFd>,
    /// The peer's login session (its session id, `getsid`), when it could be established while
    /// the pidfd proves the process is still the one that connected.
    pub sid: Option<i32>,
}

/// Read the peer's identity off a connected socket.
pub fn identify(socket: &impl AsFd) -> Result<PeerIdentity, Error> {
    let creds = getsockopt(socket, sockopt::PeerCredentials)
        .map_err(|e| Error::Identity(format!("SO_PEERCRED failed: {e}")))?;
    let pidfd = match getsockopt(socket, sockopt::PeerPidfd) {
        Ok(fd) => Some(fd),
        // Older kernels: no pidfd, so /proc-based facts are best effort and marked unknown.
        Err(Errno::ENOPROTOOPT) | Err(Errno::EINVAL) => None,
        // The peer is gone already, or something stranger: no identity beyond the creds.
        Err(_) => None,
    };
    let pid = creds.pid();
    let sid = session_of(pid, pidfd.as_ref());
    Ok(PeerIdentity {
        uid: creds.uid(),
        gid: creds.gid(),
        pid,
        pidfd,
        sid,
    })
}

impl PeerIdentity {
    /// Whether the peer process still exists and is still the one that connected (its pidfd
    /// still names its pid). False without a pidfd: nothing can be proven then.
    pub fn still_alive(&self) -> bool {
        match &self.pidfd {
            Some(pidfd) => pidfd_pid(pidfd) == Some(self.pid),
            None => false,
        }
    }

    /// The peer's program name (`comm`: `claude`, `bash`), for notifications and lists;
    /// `?` when it cannot be read or the process is gone.
    pub fn program(&self) -> String {
        let comm = std::fs::read_to_string(format!("/proc/{}/comm", self.pid)).ok();
        match comm {
            Some(comm) if self.pidfd.is_none() || self.still_alive() => {
                let name: String = comm.trim_end().chars().take(32).collect();
                if name.is_empty() { "?".into() } else { name }
            }
            _ => "?".into(),
        }
    }

    /// Whether the peer has a controlling terminal (field 7, `tty_nr`, of `/proc/PID/stat`),
    /// proven only while its pidfd pins the pid.
    pub fn has_terminal(&self) -> bool {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) else {
            return false;
        };
        // The name in parentheses may hold spaces and ')': fields start after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return false;
        };
        // rest: state ppid pgrp session tty_nr ...
        let tty = rest
            .split_whitespace()
            .nth(4)
            .and_then(|f| f.parse::<i64>().ok());
        matches!(tty, Some(n) if n != 0) && self.still_alive()
    }
}

/// The session id of `pid`. With a pidfd, only if the pidfd confirms afterwards that `pid` is
/// still the process that connected (no pid reuse in between). Without one (kernels before 6.5)
/// the lookup is unpinned: a pid reused between connect and lookup could be misattributed.
/// That is a documented limit of old kernels, chosen over making approval impossible there.
fn session_of(pid: i32, pidfd: Option<&OwnedFd>) -> Option<i32> {
    if pid <= 0 {
        return None;
    }
    let sid = nix::unistd::getsid(Some(Pid::from_raw(pid))).ok()?.as_raw();
    match pidfd {
        Some(pidfd) => (pidfd_pid(pidfd) == Some(pid)).then_some(sid),
        None => Some(sid),
    }
}

/// The pid a pidfd refers to, or `None` once that process has exited (the kernel reports -1).
fn pidfd_pid(pidfd: &OwnedFd) -> Option<i32> {
    let path = format!("/proc/self/fdinfo/{}", pidfd.as_raw_fd());
    let info = std::fs::read_to_string(path).ok()?;
    let pid = info
        .lines()
        .find_map(|line| line.strip_prefix("Pid:"))?
        .trim()
        .parse::<i32>()
        .ok()?;
    (pid > 0).then_some(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socketpair_peer_is_this_process() {
        let (a, _b) = nix::sys::socket::socketpair(
            nix::sys::socket::AddressFamily::Unix,
            nix::sys::socket::SockType::SeqPacket,
            None,
            nix::sys::socket::SockFlag::SOCK_CLOEXEC,
        )
        .expect("socketpair works in tests");
        let peer = identify(&a).expect("identity of a socketpair peer");
        assert_eq!(peer.uid, nix::unistd::geteuid().as_raw());
        assert_eq!(peer.pid, std::process::id() as i32);
        if peer.pidfd.is_some() {
            let own = nix::unistd::getsid(None).expect("own sid").as_raw();
            assert_eq!(peer.sid, Some(own));
        }
    }
}
