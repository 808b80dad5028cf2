//! The two things the daemon says to and takes from systemd: the notify protocol (`READY=1`,
//! `WATCHDOG=1`, `STOPPING=1` as datagrams to `$NOTIFY_SOCKET`) and socket activation (the
//! listening socket handed over as fd 3 with `LISTEN_FDS`/`LISTEN_PID`).
//!
//! Both are spoken directly, a few lines each, rather than through a crate. Without systemd
//! (`NOTIFY_SOCKET`, `LISTEN_FDS` unset) nothing here has any effect. This is the daemon's only
//! module with `unsafe`: taking ownership of the inherited descriptor.
//!
//! The environment variables are left in place: the daemon never starts a process that could
//! inherit them, and `LISTEN_PID` would make them void in one anyway.

use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::sys::socket::{SockType, getsockopt, sockopt};

use crate::error::Error;

/// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
const LISTEN_FDS_START: i32 = 3;

/// Where notifications go, and how often the watchdog wants to hear from us, read once at start.
#[derive(Debug, Default)]
pub struct Notifier {
    socket: Option<SocketAddr>,
    watchdog: Option<Duration>,
}

impl Notifier {
    /// A notifier that says nothing (in-process tests, or no service manager).
    pub fn none() -> Notifier {
        Notifier::default()
    }

    /// From `NOTIFY_SOCKET` (a path, or `@name` for an abstract socket) and `WATCHDOG_USEC`
    /// (honoured only when `WATCHDOG_PID` is unset or names this process).
    pub fn from_env() -> Notifier {
        let socket = std::env::var_os("NOTIFY_SOCKET").and_then(|name| {
            let address = notify_address(name.as_encoded_bytes());
            if address.is_none() {
                tracing::warn!(socket = ?name, "ignoring an unusable NOTIFY_SOCKET");
            }
            address
        });
        let ours = std::env::var("WATCHDOG_PID")
            .map(|pid| pid.trim() == std::process::id().to_string())
            .unwrap_or(true);
        let watchdog = std::env::var("WATCHDOG_USEC")
            .ok()
            .and_then(|usec| usec.trim().parse::<u64>().ok())
            .filter(|usec| ours && *usec > 0)
            .map(Duration::from_micros);
        Notifier { socket, watchdog }
    }

    /// The watchdog timeout systemd asked for, if any; pings go out at half of it.
    pub fn watchdog(&self) -> Option<Duration> {
        self.watchdog
    }

    /// Send `state` (e.g. `READY=1`) to the service manager. Best effort: a full queue or a
    /// vanished manager is logged at debug level and otherwise ignored, and this never blocks.
    pub fn notify(&self, state: &str) {
        let Some(address) = &self.socket else {
            return;
        };
        let sent = UnixDatagram::unbound().and_then(|socket| {
            socket.set_nonblocking(true)?;
            socket.send_to_addr(state.as_bytes(), address)
        });
        if let Err(error) = sent {
            tracing::debug!(%error, state, "could not notify the service manager");
        }
    }
}

/// The address in `NOTIFY_SOCKET`: an absolute path, or `@name` for an abstract socket.
fn notify_address(name: &[u8]) -> Option<SocketAddr> {
    use std::os::linux::net::SocketAddrExt as _;
    match name.first()? {
        b'@' => SocketAddr::from_abstract_name(&name[1..]).ok(),
        b'/' => {
            let path = std::path::Path::new(std::ffi::OsStr::from_bytes(name));
            SocketAddr::from_pathname(path).ok()
        }
        _ => None,
    }
}

/// The listening socket systemd passed (socket activation), when `LISTEN_PID` is this process
/// and `LISTEN_FDS` is 1. `Ok(None)` when the daemon was not socket-activated and should bind
/// its own. The descriptor is checked to be a listening `SOCK_SEQPACKET` socket and is made
/// close-on-exec and non-blocking. Only the first call can return it; call it before opening
/// any file.
pub fn listen_fd() -> Result<Option<OwnedFd>, Error> {
    static TAKEN: AtomicBool = AtomicBool::new(false);
    let for_us =
        std::env::var("LISTEN_PID").is_ok_and(|pid| pid.trim() == std::process::id().to_string());
    let Some(count) = std::env::var("LISTEN_FDS").ok().filter(|_| for_us) else {
        return Ok(None);
    };
    let bad = |why: String| Error::Activation(why);
    match count.trim().parse::<u32>() {
        Ok(0) => return Ok(None),
        Ok(1) => {}
        Ok(n) => return Err(bad(format!("expected one socket, got LISTEN_FDS={n}"))),
        Err(_) => return Err(bad(format!("LISTEN_FDS={count:?} is not a number"))),
    }
    if TAKEN.swap(true, Ordering::SeqCst) {
        return Ok(None);
    }
    // SAFETY: LISTEN_PID names this process and LISTEN_FDS=1, so by the socket-activation
    // contract fd 3 is open and was passed to us alone. `main` calls this first, while the
    // process is single-threaded and before it opens any file, so fd 3 cannot be a descriptor
    // of our own even if the variables lie (a closed fd 3 then fails the checks below); no other
    // code takes descriptors by number, and `TAKEN` makes this the only `OwnedFd` made from it.
    let fd = unsafe { OwnedFd::from_raw_fd(LISTEN_FDS_START) };
    let kind = getsockopt(&fd, sockopt::SockType)
        .map_err(|e| bad(format!("fd 3 is not a socket: {e}")))?;
    if kind != SockType::SeqPacket {
        return Err(bad(format!(
            "fd 3 is a {kind:?} socket; the unit must use ListenSequentialPacket="
        )));
    }
    if !getsockopt(&fd, sockopt::AcceptConn).unwrap_or(false) {
        return Err(bad("fd 3 is not listening".into()));
    }
    set_flags(fd.as_fd()).map_err(|e| bad(format!("could not set flags on fd 3: {e}")))?;
    Ok(Some(fd))
}

/// Close-on-exec (systemd passes it inheritable) and non-blocking (the runtime polls it).
fn set_flags(fd: std::os::fd::BorrowedFd<'_>) -> nix::Result<()> {
    fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
    let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notify_addresses_are_paths_or_abstract_names() {
        use std::os::linux::net::SocketAddrExt as _;
        let path = notify_address(b"/run/systemd/notify").expect("a path");
        assert_eq!(
            path.as_pathname(),
            Some(std::path::Path::new("/run/systemd/notify"))
        );
        let abstract_name = notify_address(b"@assent/notify").expect("an abstract name");
        assert_eq!(
            abstract_name.as_abstract_name(),
            Some(&b"assent/notify"[..])
        );
        assert!(notify_address(b"relative").is_none());
        assert!(notify_address(b"").is_none());
    }

    #[test]
    fn a_silent_notifier_sends_nothing_and_does_not_fail() {
        let notifier = Notifier::none();
        assert!(notifier.watchdog().is_none());
        notifier.notify("READY=1");
    }

    #[test]
    fn notify_reaches_an_abstract_socket() {
        use std::os::linux::net::SocketAddrExt as _;
        let name = format!("assent-test-notify-{}", std::process::id());
        let address = SocketAddr::from_abstract_name(name.as_bytes()).expect("a valid name");
        let receiver = UnixDatagram::bind_addr(&address).expect("the name is free");
        receiver
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("a timeout can be set");
        let notifier = Notifier {
            socket: notify_address(format!("@{name}").as_bytes()),
            watchdog: None,
        };
        notifier.notify("READY=1");
        let mut buf = [0u8; 64];
        let n = receiver.recv(&mut buf).expect("the datagram arrives");
        assert_eq!(&buf[..n], b"READY=1");
    }
}
