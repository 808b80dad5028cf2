//! A blocking connection to `assentd` over a SOCK_SEQPACKET Unix socket.
//!
//! Blocking on purpose: the client is started once per command, and a runtime's start-up would
//! be the user's wait. One packet is one message, so there is no framing code here.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::socket::{self, AddressFamily, MsgFlags, SockFlag, SockType, UnixAddr, sockopt};
use nix::sys::time::TimeVal;

use crate::codec;
use crate::error::{CodecError, Error};
use crate::protocol::{
    AuditEvent, MAX_MESSAGE_LEN, PendingItem, RememberedApproval, Request, Response,
};

/// How long a client waits to be accepted, and then for the first reply to a request, unless
/// told otherwise ([`Connection::set_deadline`], or `ASSENT_TIMEOUT` in seconds). The daemon
/// answers in milliseconds; a held request's reply comes at once too (its outcome later,
/// waited for separately).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(30);

/// [`DEFAULT_DEADLINE`], or `ASSENT_TIMEOUT` (whole seconds, at least 1) when it is set.
fn default_deadline() -> Duration {
    std::env::var("ASSENT_TIMEOUT")
        .ok()
        .and_then(|secs| secs.trim().parse::<u64>().ok())
        .filter(|&secs| secs > 0)
        .map_or(DEFAULT_DEADLINE, Duration::from_secs)
}

/// The receive buffer a connection starts with: every reply on the hot path (a verdict, a
/// hook's answer) fits. A larger packet grows it to the packet's size, at most
/// [`MAX_MESSAGE_LEN`]. A buffer of the largest message up front cost a client 33 page faults
/// for zeroing 128 KiB on every check.
const FIRST_BUFFER: usize = 4096;

/// A connection to the daemon.
#[derive(Debug)]
pub struct Connection {
    fd: OwnedFd,
    buf: Vec<u8>,
    /// The socket's path, for messages.
    path: PathBuf,
    /// How long `request` waits for its reply.
    deadline: Duration,
    /// A descriptor the daemon passed with the last packet (a door's ready Landlock ruleset).
    passed: Option<Passed>,
}

/// A descriptor the daemon passed with a reply (`SCM_RIGHTS`), owned: closed when dropped.
/// Only its number is given out, for the system call that uses it.
#[derive(Debug)]
pub struct Passed(std::os::fd::RawFd);

impl Passed {
    /// The descriptor's number, valid while this is alive.
    pub fn raw(&self) -> std::os::fd::RawFd {
        self.0
    }
}

impl Drop for Passed {
    fn drop(&mut self) {
        let _ = nix::unistd::close(self.0);
    }
}

impl Connection {
    /// Connect to the socket at `path`, waiting at most the deadline ([`DEFAULT_DEADLINE`]) to
    /// be accepted (a daemon whose backlog is full does not accept).
    pub fn connect(path: &Path) -> Result<Self, Error> {
        let connect_error = |errno: Errno| Error::Connect {
            path: path.to_path_buf(),
            source: errno.into(),
        };
        let fd = socket::socket(
            AddressFamily::Unix,
            SockType::SeqPacket,
            SockFlag::SOCK_CLOEXEC,
            None,
        )
        .map_err(connect_error)?;
        let addr = UnixAddr::new(path).map_err(connect_error)?;
        // A Unix socket's connect waits for room in the listener's backlog for as long as the
        // send timeout says; without one it waits forever.
        let deadline = default_deadline();
        set_timeout(&fd, sockopt::SendTimeout, Some(deadline)).map_err(connect_error)?;
        loop {
            match socket::connect(std::os::fd::AsRawFd::as_raw_fd(&fd), &addr) {
                Ok(()) => break,
                Err(Errno::EINTR) => continue,
                Err(Errno::EAGAIN) => {
                    return Err(Error::Timeout {
                        path: path.to_path_buf(),
                        what: "accept the connection",
                        waited: deadline,
                    });
                }
                Err(errno) => return Err(connect_error(errno)),
            }
        }
        check_server(&fd, path)?;
        Ok(Connection {
            fd,
            // One byte more than the limit, so an oversized packet is seen, not silently cut.
            buf: vec![0; FIRST_BUFFER],
            path: path.to_path_buf(),
            deadline,
            passed: None,
        })
    }

    /// How long [`Connection::request`] waits for its reply (an answer the daemon puts to
    /// polkit waits for a person to type a password).
    pub fn set_deadline(&mut self, deadline: Duration) {
        self.deadline = deadline;
    }

    /// A connection on a socket another process connected and handed over (the bash builtin
    /// leaves a held request's connection to `assent __resume`).
    pub fn from_fd(fd: OwnedFd) -> Self {
        Connection {
            fd,
            buf: vec![0; FIRST_BUFFER],
            path: PathBuf::from("(a connection handed over)"),
            deadline: default_deadline(),
            passed: None,
        }
    }

    /// Send one request.
    pub fn send(&mut self, request: &Request) -> Result<(), Error> {
        let packet = codec::encode_request(request)?;
        self.send_raw(&packet)
    }

    /// Send raw bytes as one packet. For tests of the daemon's handling of bad input.
    pub fn send_raw(&mut self, packet: &[u8]) -> Result<(), Error> {
        loop {
            match socket::send(
                std::os::fd::AsRawFd::as_raw_fd(&self.fd),
                packet,
                MsgFlags::MSG_NOSIGNAL,
            ) {
                Ok(_) => return Ok(()),
                Err(Errno::EINTR) => continue,
                Err(errno) => return Err(Error::Io(errno.into())),
            }
        }
    }

    /// Receive one packet's bytes, blocking. `Ok(None)` is end of connection.
    ///
    /// The packet is first looked at (`MSG_PEEK | MSG_TRUNC` gives its whole length without
    /// taking it), so the buffer can be grown to fit before it is taken: a packet is never cut.
    pub fn recv_raw(&mut self) -> Result<Option<&[u8]>, Error> {
        let fd = std::os::fd::AsRawFd::as_raw_fd(&self.fd);
        let len = recv_retrying(fd, &mut self.buf, MsgFlags::MSG_PEEK | MsgFlags::MSG_TRUNC)?;
        if len == 0 {
            return Ok(None);
        }
        if len > MAX_MESSAGE_LEN {
            // Taken and dropped, so that the connection is not stuck on it.
            let _ = recv_retrying(fd, &mut self.buf, MsgFlags::empty());
            return Err(Error::Codec(CodecError::TooLarge { len }));
        }
        if len > self.buf.len() {
            self.buf.resize(len, 0);
        }
        let (n, passed) = recv_passing(fd, &mut self.buf)?;
        self.passed = passed;
        if n == 0 {
            return Ok(None);
        }
        Ok(Some(&self.buf[..n.min(self.buf.len())]))
    }

    /// The descriptor the daemon passed with the last reply, if it passed one: a door's
    /// Landlock ruleset, made ready for its run.
    pub fn take_passed(&mut self) -> Option<Passed> {
        self.passed.take()
    }

    /// Receive one response, blocking.
    pub fn recv(&mut self) -> Result<Response, Error> {
        match self.recv_raw()? {
            None => Err(Error::Closed),
            Some(packet) => Ok(codec::decode_response(packet)?),
        }
    }

    /// Send a request and wait for its reply, at most the deadline. An error reply becomes
    /// [`Error::Refused`]. (A held request's outcome, which comes later, is waited for with
    /// [`Connection::recv`] or a poll, which have no deadline.)
    pub fn request(&mut self, request: &Request) -> Result<Response, Error> {
        self.send(request)?;
        set_timeout(&self.fd, sockopt::ReceiveTimeout, Some(self.deadline))
            .map_err(|errno| Error::Io(errno.into()))?;
        let reply = self.recv();
        set_timeout(&self.fd, sockopt::ReceiveTimeout, None)
            .map_err(|errno| Error::Io(errno.into()))?;
        match reply {
            Err(Error::Io(error)) if error.kind() == std::io::ErrorKind::WouldBlock => {
                Err(Error::Timeout {
                    path: self.path.clone(),
                    what: "answer",
                    waited: self.deadline,
                })
            }
            Err(error) => Err(error),
            Ok(Response::Error(error)) => Err(Error::Refused(error)),
            Ok(response) => Ok(response),
        }
    }
}

impl Connection {
    /// Every held request the caller may see, oldest first, read page by page.
    pub fn pending(&mut self) -> Result<Vec<PendingItem>, Error> {
        self.all_pages(
            |from| Request::ListPending { from },
            |response| match response {
                Response::Pending(list) => Ok((list.items, list.next)),
                other => Err(Box::new(other)),
            },
        )
    }

    /// Every remembered approval the caller may see, oldest first, read page by page.
    pub fn remembered(&mut self) -> Result<Vec<RememberedApproval>, Error> {
        self.all_pages(
            |from| Request::ListRemembered { from },
            |response| match response {
                Response::Remembered(list) => Ok((list.approvals, list.next)),
                other => Err(Box::new(other)),
            },
        )
    }

    /// The `limit` most recent audit events the caller may see, oldest first, page by page.
    pub fn log(&mut self, limit: u32) -> Result<Vec<AuditEvent>, Error> {
        self.all_pages(
            |from| Request::Log { limit, from },
            |response| match response {
                Response::Log(page) => Ok((page.events, page.next)),
                other => Err(Box::new(other)),
            },
        )
    }

    /// Ask for page after page until the daemon says there is no next one. Each page must
    /// start further on than the last, so a confused daemon cannot keep the client looping.
    fn all_pages<T>(
        &mut self,
        request: impl Fn(u32) -> Request,
        items: impl Fn(Response) -> Result<(Vec<T>, Option<u32>), Box<Response>>,
    ) -> Result<Vec<T>, Error> {
        let mut all = Vec::new();
        let mut from = 0;
        loop {
            let (page, next) = items(self.request(&request(from))?).map_err(|other| {
                Error::Unexpected(format!("{other:?}").chars().take(200).collect())
            })?;
            all.extend(page);
            match next {
                None => return Ok(all),
                Some(next) if next > from => from = next,
                Some(next) => {
                    return Err(Error::Unexpected(format!(
                        "a list page at {from} said the next starts at {next}"
                    )));
                }
            }
        }
    }
}

/// Set a socket's send or receive timeout; `None` waits forever.
/// `recv`, again when a signal interrupted it.
fn recv_retrying(fd: std::os::fd::RawFd, buf: &mut [u8], flags: MsgFlags) -> Result<usize, Error> {
    loop {
        match socket::recv(fd, buf, flags) {
            Ok(n) => return Ok(n),
            Err(Errno::EINTR) => continue,
            Err(errno) => return Err(Error::Io(errno.into())),
        }
    }
}

/// Takes one packet, and the one descriptor that may come with it (close-on-exec at once, so
/// nothing the client starts inherits it). More than one is never expected: any beyond the
/// first are closed.
fn recv_passing(fd: std::os::fd::RawFd, buf: &mut [u8]) -> Result<(usize, Option<Passed>), Error> {
    let mut space = nix::cmsg_space!([std::os::fd::RawFd; 1]);
    loop {
        let mut iov = [std::io::IoSliceMut::new(buf)];
        match socket::recvmsg::<()>(fd, &mut iov, Some(&mut space), MsgFlags::MSG_CMSG_CLOEXEC) {
            Ok(msg) => {
                let mut passed = None;
                // With too little room the kernel closes what did not fit; what did is
                // left to this process, which is short-lived.
                for cmsg in msg.cmsgs().into_iter().flatten() {
                    if let socket::ControlMessageOwned::ScmRights(fds) = cmsg {
                        for raw in fds {
                            if passed.is_none() {
                                passed = Some(Passed(raw));
                            } else {
                                let _ = nix::unistd::close(raw);
                            }
                        }
                    }
                }
                return Ok((msg.bytes, passed));
            }
            Err(Errno::EINTR) => continue,
            Err(errno) => return Err(Error::Io(errno.into())),
        }
    }
}

fn set_timeout<O>(fd: &OwnedFd, option: O, timeout: Option<Duration>) -> Result<(), Errno>
where
    O: socket::SetSockOpt<Val = TimeVal>,
{
    let value = timeout.map_or(TimeVal::new(0, 0), |t| {
        TimeVal::new(
            i64::try_from(t.as_secs()).unwrap_or(i64::MAX),
            i64::from(t.subsec_micros()),
        )
    });
    socket::setsockopt(fd, option, &value)
}

impl AsFd for Connection {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// Whose answers a client trusts: the server of the system socket must be root, any other
/// socket's root or this user (a user-mode daemon). A socket that someone else serves (an
/// agent that pointed `ASSENT_SOCKET` at a server of its own under another uid, a socket left
/// in a shared directory) would answer "allow" to anything. The uid is the kernel's
/// (`SO_PEERCRED` of the listening process), not anything the server says.
fn check_server(fd: &OwnedFd, path: &Path) -> Result<(), Error> {
    let server = sockopt::PeerCredentials;
    let uid = socket::getsockopt(fd, server)
        .map_err(|errno| Error::Connect {
            path: path.to_path_buf(),
            source: errno.into(),
        })?
        .uid();
    let me = nix::unistd::geteuid().as_raw();
    let system = path == Path::new(crate::paths::SYSTEM_SOCKET);
    if uid == 0 || (!system && uid == me) {
        return Ok(());
    }
    Err(Error::UntrustedServer {
        path: path.to_path_buf(),
        uid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_of_any_size_come_whole_and_one_too_large_is_refused_alone() {
        let (ours, theirs) = socket::socketpair(
            AddressFamily::Unix,
            SockType::SeqPacket,
            None,
            SockFlag::SOCK_CLOEXEC,
        )
        .expect("socketpair");
        let mut conn = Connection::from_fd(ours);
        let sizes = [
            1,
            FIRST_BUFFER,
            FIRST_BUFFER + 1,
            MAX_MESSAGE_LEN,
            MAX_MESSAGE_LEN + 1,
            5,
        ];
        // Sent from a thread: the socket's buffer may not hold them all at once.
        let sender = std::thread::spawn(move || {
            for (i, size) in sizes.into_iter().enumerate() {
                let packet = vec![u8::try_from(i).expect("few"); size];
                socket::send(
                    std::os::fd::AsRawFd::as_raw_fd(&theirs),
                    &packet,
                    MsgFlags::empty(),
                )
                .expect("send");
            }
            theirs
        });
        for (i, size) in sizes.into_iter().enumerate() {
            let got = conn.recv_raw();
            if size > MAX_MESSAGE_LEN {
                assert!(
                    matches!(got, Err(Error::Codec(CodecError::TooLarge { len })) if len == size),
                    "{got:?}"
                );
                continue;
            }
            let packet = got.expect("received").expect("a packet").to_vec();
            assert_eq!(packet.len(), size);
            assert!(packet.iter().all(|&b| usize::from(b) == i), "packet {i}");
        }
        drop(sender.join().expect("sender"));
        assert!(
            matches!(conn.recv_raw(), Ok(None)),
            "end of connection after the last"
        );
    }
}
