//! What the kernel refused to confined runs: Landlock's audit records (ABI 7:
//! `LANDLOCK_ACCESS`, one per refused access, and `LANDLOCK_DOMAIN`, which names the process
//! that made the domain), read from the kernel audit's netlink multicast group, so that a door
//! whose run failed can learn which place was refused ([`Denials::refused`]).
//!
//! It owns the reader thread, the bounded store of recent denials by domain, and the match of
//! a peer to the domains it made: a door confines itself and then starts the command, so the
//! domain's maker is the door's pid, which the daemon has from the socket's peer credentials.
//!
//! It must not: change the kernel's audit settings (whether the kernel audits is the
//! administrator's: `auditctl -e 1`, or `audit=1` at boot), block the runtime or hold a
//! blocking thread while a question waits for records (the reader is a thread of its own and
//! wakes the questions waiting; a uid has a few questions waiting at most), or trust a record's text beyond
//! what it is: a path is a file name anyone may have chosen, kept short and shown escaped.
//! Reading the group needs CAP_AUDIT_READ (the system daemon, root); a user-mode daemon cannot,
//! and says so instead.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use nix::sys::socket::{
    AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType, bind, recv, setsockopt,
    socket, sockopt,
};

/// `AUDIT_GET`, `AUDIT_LANDLOCK_ACCESS` and `AUDIT_LANDLOCK_DOMAIN` (linux/audit.h).
const AUDIT_GET: u16 = 1000;
const LANDLOCK_ACCESS: u16 = 1423;
const LANDLOCK_DOMAIN: u16 = 1424;
/// The kernel audit's read-only multicast group, `AUDIT_NLGRP_READLOG`, as a bind mask.
const READLOG_GROUP: u32 = 1;
/// Domains remembered at once; the oldest goes first.
const MAX_DOMAINS: usize = 512;
/// Refusals kept per domain: a run refused more tells no more.
const MAX_PER_DOMAIN: usize = 8;
/// The longest path kept from a record.
const MAX_PATH: usize = 1024;
/// How long a query waits for the kernel's records to reach the reader: they are queued as
/// the access is refused, before the run ends, and sent on by the kernel's audit thread.
const SETTLE_MAX: Duration = Duration::from_millis(200);
/// Once a domain's records arrived, how long without another one means they all did.
const QUIET: Duration = Duration::from_millis(15);
/// Questions one uid may have waiting for records at once; more are answered at once that it
/// cannot be told now. A door asks once, after its run: a uid with more is asking for nothing.
const MAX_WAITING_PER_UID: usize = 8;
/// How long the kernel's answer to whether its audit is on is taken as still true.
const ENABLED_FOR: Duration = Duration::from_secs(1);

const CANNOT_TELL: &str = "the kernel recorded nothing refused, and the daemon may not ask whether its audit is on (CAP_AUDIT_CONTROL)";
const TOO_MANY: &str = "too many questions of this user are waiting for the kernel's records";
const AUDIT_OFF: &str =
    "the kernel's audit is off, so it recorded nothing (`auditctl -e 1` turns it on)";

/// Whether this daemon reads the kernel's denials: a confinement then asks the kernel to log
/// what the run's program is refused (`Confinement.log_denials`).
static READING: AtomicBool = AtomicBool::new(false);

/// The daemon reads what the kernel refuses to confined runs.
pub fn reading() -> bool {
    READING.load(Ordering::Relaxed)
}

/// One refused access, as the kernel recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// `fs.write_file`, `fs.make_reg,fs.remove_file`, `net.connect_tcp`.
    pub access: String,
    /// The file or directory named, when the record names one.
    pub path: Option<String>,
    /// The process a refused signal was for (`opid`).
    pub target: Option<i32>,
}

/// What a refused signal to a process outside the run's domain is recorded as.
const SIGNAL: &str = "scope.signal";

#[derive(Debug, Default)]
struct Domain {
    maker: Option<(i32, u32)>,
    /// When the domain was made, in the order the store learned of makings: a pid's newest
    /// domain is its door's (an older one of the same pid and uid outlived its door in a
    /// process left behind).
    made: u64,
    refused: Vec<Refused>,
    last: Option<Instant>,
    /// The last processes a signal to was refused (`scope.signal`, `opid`): among them the
    /// door's parent, when the door marked the end of its run ([`Denials::refused`]), which
    /// comes last.
    signalled: VecDeque<i32>,
}

#[derive(Debug, Default)]
struct Store {
    domains: HashMap<u64, Domain>,
    order: VecDeque<u64>,
    makings: u64,
}

/// The denials read so far, and why none can be read when none can.
#[derive(Debug, Clone)]
pub struct Denials {
    store: Arc<Mutex<Store>>,
    why_not: Option<String>,
    /// Woken by the reader after every record it kept.
    changed: Arc<tokio::sync::Notify>,
    /// Questions waiting for records, by uid.
    waiting: Arc<Mutex<HashMap<u32, usize>>>,
}

/// One question's place among its uid's waiting ones, given back when it is answered.
struct Waiting<'a> {
    waiting: &'a Mutex<HashMap<u32, usize>>,
    uid: u32,
}

impl<'a> Waiting<'a> {
    fn take(waiting: &'a Mutex<HashMap<u32, usize>>, uid: u32) -> Option<Waiting<'a>> {
        let mut map = waiting.lock().unwrap_or_else(|p| p.into_inner());
        let count = map.entry(uid).or_default();
        if *count >= MAX_WAITING_PER_UID {
            return None;
        }
        *count += 1;
        Some(Waiting { waiting, uid })
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut map = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = map.get_mut(&self.uid) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                map.remove(&self.uid);
            }
        }
    }
}

impl Default for Denials {
    fn default() -> Denials {
        Denials::off("the daemon does not read the kernel's audit")
    }
}

impl Denials {
    fn off(why: &str) -> Denials {
        Denials {
            store: Arc::default(),
            why_not: Some(why.to_owned()),
            changed: Arc::default(),
            waiting: Arc::default(),
        }
    }

    /// Starts reading the kernel's Landlock denials when this kernel logs them (ABI 7) and the
    /// daemon may read the audit group; otherwise says why not.
    pub fn start() -> Denials {
        if crate::landlock::abi() < 7 {
            return Denials::off("this kernel's Landlock does not log what it refuses (ABI 7)");
        }
        let socket = match subscribe() {
            Ok(socket) => socket,
            Err(error) => {
                tracing::debug!(%error, "cannot read the kernel's audit");
                return Denials::off(&format!(
                    "the daemon may not read the kernel's audit ({error}; it needs CAP_AUDIT_READ, as the system daemon has)"
                ));
            }
        };
        let denials = Denials {
            store: Arc::default(),
            why_not: None,
            changed: Arc::default(),
            waiting: Arc::default(),
        };
        let store = Arc::downgrade(&denials.store);
        let changed = Arc::clone(&denials.changed);
        let spawned = std::thread::Builder::new()
            .name("assentd-denials".into())
            .spawn(move || read_loop(&socket, &store, &changed));
        if let Err(error) = spawned {
            return Denials::off(&format!("could not start the reader: {error}"));
        }
        READING.store(true, Ordering::Relaxed);
        denials
    }

    /// Why what the kernel refuses cannot be read right now; `None` when it can.
    pub fn why_not(&self) -> Option<String> {
        if let Some(why) = &self.why_not {
            return Some(why.clone());
        }
        (audit_enabled_lately() == Some(false)).then(|| AUDIT_OFF.to_owned())
    }

    /// What the kernel refused to the domain process `pid` of `uid` made, waiting briefly for
    /// records still on their way; or why that cannot be known. The wait holds no thread: the
    /// reader wakes it.
    ///
    /// The door marks the end of its run with a record of its own: after the run it is refused
    /// a signal to its parent (`barrier`, the door's parent's pid when the daemon could tell).
    /// The kernel sends its records on in the order it made them, so once that one is here,
    /// every one the run was refused is too, and the answer goes at once; it is no refusal of
    /// the run's and is not told. Without it, the answer waits for the records to fall quiet,
    /// or for the longest they could take when there are none.
    pub async fn refused(
        &self,
        pid: i32,
        uid: u32,
        barrier: Option<i32>,
    ) -> Result<Vec<Refused>, String> {
        if let Some(why) = &self.why_not {
            return Err(why.clone());
        }
        let Some(_waiting) = Waiting::take(&self.waiting, uid) else {
            return Err(TOO_MANY.into());
        };
        let enabled = tokio::task::spawn_blocking(audit_enabled_lately)
            .await
            .unwrap_or(None);
        if enabled == Some(false) {
            return Err(AUDIT_OFF.into());
        }
        self.settle(pid, uid, barrier, enabled).await
    }

    /// [`Denials::refused`] once the audit is known not to be off (`enabled`: known on).
    async fn settle(
        &self,
        pid: i32,
        uid: u32,
        barrier: Option<i32>,
        enabled: Option<bool>,
    ) -> Result<Vec<Refused>, String> {
        let start = tokio::time::Instant::now();
        loop {
            // Asked for before looking, so a record kept in between still wakes this.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let (mut found, last, signalled) = self.lookup(pid, uid);
            // The door's mark is no refusal of the run's, whether it is in yet or not.
            if let Some(parent) = barrier {
                found.retain(|r| !(r.access == SIGNAL && r.target == Some(parent)));
            }
            if barrier.is_some_and(|parent| signalled.contains(&parent)) {
                found.truncate(MAX_PER_DOMAIN);
                return Ok(found);
            }
            let quiet_at = last.map(|t| tokio::time::Instant::from_std(t) + QUIET);
            let now = tokio::time::Instant::now();
            let settled = quiet_at.is_some_and(|q| q <= now);
            if settled || now >= start + SETTLE_MAX {
                // Nothing recorded says nothing refused only where the audit is known to be on.
                if found.is_empty() && enabled.is_none() {
                    return Err(CANNOT_TELL.into());
                }
                found.truncate(MAX_PER_DOMAIN);
                return Ok(found);
            }
            let wake = quiet_at.map_or(start + SETTLE_MAX, |q| q.min(start + SETTLE_MAX));
            let _ = tokio::time::timeout_at(wake, changed).await;
        }
    }

    /// The refusals of the newest domain process `pid` of `uid` made, when its last record
    /// came, and the processes it was refused to signal.
    fn lookup(&self, pid: i32, uid: u32) -> (Vec<Refused>, Option<Instant>, Vec<i32>) {
        let store = self.store.lock().unwrap_or_else(|p| p.into_inner());
        let newest = store
            .domains
            .values()
            .filter(|d| d.maker == Some((pid, uid)))
            .max_by_key(|d| d.made);
        match newest {
            Some(domain) => {
                let mut found = domain.refused.clone();
                found.truncate(MAX_PER_DOMAIN + 1);
                (
                    found,
                    domain.last,
                    domain.signalled.iter().copied().collect(),
                )
            }
            None => (Vec::new(), None, Vec::new()),
        }
    }
}

/// A netlink audit socket bound to the read-only multicast group, with a receive timeout so
/// the reader notices when the daemon is gone.
fn subscribe() -> nix::Result<OwnedFd> {
    let fd = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkAudit,
    )?;
    bind(fd.as_raw_fd(), &NetlinkAddr::new(0, READLOG_GROUP))?;
    setsockopt(
        &fd,
        sockopt::ReceiveTimeout,
        &nix::sys::time::TimeVal::new(1, 0),
    )?;
    Ok(fd)
}

fn read_loop(socket: &OwnedFd, store: &Weak<Mutex<Store>>, changed: &tokio::sync::Notify) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let received = recv(socket.as_raw_fd(), &mut buf, MsgFlags::empty());
        let Some(store) = store.upgrade() else {
            return;
        };
        match received {
            Ok(len) => {
                let packet = buf.get(..len).unwrap_or_default();
                if let Some((kind, text)) = message(packet) {
                    let mut store = store.lock().unwrap_or_else(|p| p.into_inner());
                    store.take(kind, &text, Instant::now());
                    drop(store);
                    changed.notify_waiters();
                }
            }
            // The timeout, a signal, or records the kernel dropped for a full buffer: go on.
            Err(
                nix::errno::Errno::EAGAIN | nix::errno::Errno::EINTR | nix::errno::Errno::ENOBUFS,
            ) => {}
            Err(error) => {
                tracing::warn!(%error, "stopped reading the kernel's audit");
                return;
            }
        }
    }
}

/// One netlink message's type and text (the kernel sends one record a packet).
fn message(packet: &[u8]) -> Option<(u16, String)> {
    let header = packet.get(..16)?;
    let len = u32::from_ne_bytes(header.get(..4)?.try_into().ok()?) as usize;
    let kind = u16::from_ne_bytes(header.get(4..6)?.try_into().ok()?);
    let body = packet.get(16..len.min(packet.len()))?;
    let body = body.split(|b| *b == 0).next().unwrap_or_default();
    Some((kind, String::from_utf8_lossy(body).into_owned()))
}

impl Store {
    fn take(&mut self, kind: u16, text: &str, now: Instant) {
        let fields = fields(text);
        let Some(id) = fields
            .iter()
            .find(|(k, _)| *k == "domain")
            .and_then(|(_, v)| u64::from_str_radix(v, 16).ok())
        else {
            return;
        };
        let value = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.as_str())
        };
        match kind {
            LANDLOCK_ACCESS => {
                let Some(access) = value("blockers") else {
                    return;
                };
                let target = value("opid").and_then(|p| p.parse().ok());
                let refused = Refused {
                    access: access.chars().take(64).collect(),
                    path: value("path").map(|p| cut(p, MAX_PATH)),
                    target,
                };
                let domain = self.domain(id);
                domain.last = Some(now);
                if access == SIGNAL
                    && let Some(target) = target
                {
                    // The last ones are kept: the door's mark comes after all of the run's.
                    if domain.signalled.len() >= MAX_PER_DOMAIN {
                        domain.signalled.pop_front();
                    }
                    domain.signalled.push_back(target);
                }
                // One more than is told: the door's own mark of the run's end among them.
                if domain.refused.len() <= MAX_PER_DOMAIN && !domain.refused.contains(&refused) {
                    domain.refused.push(refused);
                }
            }
            LANDLOCK_DOMAIN => match value("status") {
                Some("allocated") => {
                    let pid = value("pid").and_then(|p| p.parse().ok());
                    let uid = value("uid").and_then(|u| u.parse().ok());
                    if let (Some(pid), Some(uid)) = (pid, uid) {
                        self.makings += 1;
                        let made = self.makings;
                        let domain = self.domain(id);
                        domain.maker = Some((pid, uid));
                        domain.made = made;
                        domain.last = Some(now);
                    }
                }
                // The domain is gone with every process in it: a later maker of the same pid
                // is another process.
                Some("deallocated") => {
                    self.domains.remove(&id);
                    self.order.retain(|d| *d != id);
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn domain(&mut self, id: u64) -> &mut Domain {
        if !self.domains.contains_key(&id) {
            while self.order.len() >= MAX_DOMAINS {
                if let Some(oldest) = self.order.pop_front() {
                    self.domains.remove(&oldest);
                }
            }
            self.order.push_back(id);
        }
        self.domains.entry(id).or_default()
    }
}

/// A record's `key=value` fields, after its `audit(…): ` stamp. The kernel writes a string
/// it does not trust quoted when it holds no space, quote or control character, and as hex
/// otherwise, so no value holds a space.
fn fields(text: &str) -> Vec<(&str, String)> {
    let rest = text.split_once("): ").map_or(text, |(_, rest)| rest);
    rest.split(' ')
        .filter_map(|word| word.split_once('='))
        .map(|(key, value)| (key, unquote(value)))
        .collect()
}

fn unquote(value: &str) -> String {
    if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        return inner.to_owned();
    }
    let hex = value.len().is_multiple_of(2)
        && !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_hexdigit());
    if hex && value.bytes().any(|b| b.is_ascii_uppercase()) {
        let bytes: Option<Vec<u8>> = (0..value.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(value.get(i..i + 2)?, 16).ok())
            .collect();
        if let Some(bytes) = bytes {
            return String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    value.to_owned()
}

fn cut(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// [`audit_enabled`], asked of the kernel at most once every [`ENABLED_FOR`].
fn audit_enabled_lately() -> Option<bool> {
    static LAST: Mutex<Option<(Instant, Option<bool>)>> = Mutex::new(None);
    if let Some((at, enabled)) = *LAST.lock().unwrap_or_else(|p| p.into_inner())
        && at.elapsed() < ENABLED_FOR
    {
        return enabled;
    }
    let enabled = audit_enabled();
    *LAST.lock().unwrap_or_else(|p| p.into_inner()) = Some((Instant::now(), enabled));
    enabled
}

/// Whether the kernel audits at all (`AUDIT_GET`'s `enabled`); `None` when the daemon may not
/// ask (it needs CAP_AUDIT_CONTROL) or the kernel did not answer.
pub fn audit_enabled() -> Option<bool> {
    let fd = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkAudit,
    )
    .ok()?;
    setsockopt(
        &fd,
        sockopt::ReceiveTimeout,
        &nix::sys::time::TimeVal::new(0, 200_000),
    )
    .ok()?;
    // nlmsghdr: length, type, flags (NLM_F_REQUEST), sequence, port.
    let mut request = Vec::with_capacity(16);
    request.extend_from_slice(&16u32.to_ne_bytes());
    request.extend_from_slice(&AUDIT_GET.to_ne_bytes());
    request.extend_from_slice(&1u16.to_ne_bytes());
    request.extend_from_slice(&1u32.to_ne_bytes());
    request.extend_from_slice(&0u32.to_ne_bytes());
    nix::sys::socket::sendto(
        fd.as_raw_fd(),
        &request,
        &NetlinkAddr::new(0, 0),
        MsgFlags::empty(),
    )
    .ok()?;
    let mut buf = [0u8; 512];
    for _ in 0..4 {
        let len = recv(fd.as_raw_fd(), &mut buf, MsgFlags::empty()).ok()?;
        let packet = buf.get(..len)?;
        let kind = u16::from_ne_bytes(packet.get(4..6)?.try_into().ok()?);
        if kind == AUDIT_GET {
            // struct audit_status: mask, then enabled.
            let enabled = u32::from_ne_bytes(packet.get(20..24)?.try_into().ok()?);
            return Some(enabled != 0);
        }
        // NLMSG_ERROR (2) with an errno: not allowed to ask.
        if kind == 2 && i32::from_ne_bytes(packet.get(16..20)?.try_into().ok()?) != 0 {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_domain_s_refusals_are_matched_to_the_process_that_made_it() {
        let now = Instant::now();
        let mut store = Store::default();
        for (kind, text) in [
            (
                LANDLOCK_ACCESS,
                r#"audit(1795824477.038:3): domain=103a3812d blockers=fs.make_reg path="/home/u/Documents" dev="vda" ino=10010626"#,
            ),
            (
                LANDLOCK_DOMAIN,
                r#"audit(1795824477.038:3): domain=103a3812d status=allocated mode=enforcing pid=300 uid=1000 exe="/usr/bin/assent" comm="assent""#,
            ),
            // A path with a space is written as hex.
            (
                LANDLOCK_ACCESS,
                "audit(1795824477.040:4): domain=103a3812d blockers=fs.write_file path=2F686F6D652F752F6D79206E6F746573 dev=\"vda\" ino=3",
            ),
            (
                LANDLOCK_ACCESS,
                "audit(1795824477.041:5): domain=103a3812d blockers=net.connect_tcp daddr=127.0.0.1 dest=80",
            ),
            // Another process's domain.
            (
                LANDLOCK_ACCESS,
                r#"audit(1795824477.050:6): domain=2 blockers=fs.read_file path="/etc/shadow""#,
            ),
            (
                LANDLOCK_DOMAIN,
                r#"audit(1795824477.050:6): domain=2 status=allocated mode=enforcing pid=301 uid=1000 exe="/x" comm="x""#,
            ),
        ] {
            store.take(kind, text, now);
        }
        let denials = Denials {
            store: Arc::new(Mutex::new(store)),
            why_not: None,
            changed: Arc::default(),
            waiting: Arc::default(),
        };
        let (found, _, _) = denials.lookup(300, 1000);
        assert_eq!(
            found,
            vec![
                Refused {
                    access: "fs.make_reg".into(),
                    path: Some("/home/u/Documents".into()),
                    target: None,
                },
                Refused {
                    access: "fs.write_file".into(),
                    path: Some("/home/u/my notes".into()),
                    target: None,
                },
                Refused {
                    access: "net.connect_tcp".into(),
                    path: None,
                    target: None,
                },
            ]
        );
        assert!(denials.lookup(300, 0).0.is_empty(), "another uid's pid");
        assert!(denials.lookup(999, 1000).0.is_empty());
        // Gone with its processes: a later process of that pid learns nothing of it.
        denials.store.lock().expect("store").take(
            LANDLOCK_DOMAIN,
            "audit(1.0:7): domain=103a3812d status=deallocated denials=3",
            now,
        );
        assert!(denials.lookup(300, 1000).0.is_empty());
    }

    /// The door's own refused signal to its parent marks the end of its run: the answer goes
    /// once it is in, without it.
    #[tokio::test]
    async fn the_doors_mark_settles_the_answer_at_once_and_is_not_told() {
        let now = Instant::now();
        let mut store = Store::default();
        for (kind, text) in [
            (
                LANDLOCK_ACCESS,
                r#"audit(1.0:3): domain=7 blockers=fs.write_file path="/home/u/notes""#,
            ),
            (
                LANDLOCK_DOMAIN,
                r#"audit(1.0:3): domain=7 status=allocated mode=enforcing pid=300 uid=1000 exe="/usr/bin/assent" comm="assent""#,
            ),
            // The run signalled another process: a refusal of its own, told.
            (
                LANDLOCK_ACCESS,
                r#"audit(1.0:4): domain=7 blockers=scope.signal opid=555 ocomm="sleep""#,
            ),
            // The door's mark: a signal to its parent, 200.
            (
                LANDLOCK_ACCESS,
                r#"audit(1.0:5): domain=7 blockers=scope.signal opid=200 ocomm="node""#,
            ),
        ] {
            store.take(kind, text, now);
        }
        let denials = Denials {
            store: Arc::new(Mutex::new(store)),
            why_not: None,
            changed: Arc::default(),
            waiting: Arc::default(),
        };
        let found = denials
            .settle(300, 1000, Some(200), Some(true))
            .await
            .expect("known");
        let accesses: Vec<(&str, Option<i32>)> = found
            .iter()
            .map(|r| (r.access.as_str(), r.target))
            .collect();
        assert_eq!(
            accesses,
            vec![("fs.write_file", None), ("scope.signal", Some(555))]
        );
        // Another parent's mark is not this door's: every refusal is told, after the quiet.
        let found = denials
            .settle(300, 1000, Some(201), Some(true))
            .await
            .expect("known");
        assert_eq!(found.len(), 3);
    }

    fn with(store: Store) -> Denials {
        Denials {
            store: Arc::new(Mutex::new(store)),
            why_not: None,
            changed: Arc::default(),
            waiting: Arc::default(),
        }
    }

    fn made(store: &mut Store, domain: &str, pid: i32) {
        let text = format!(
            r#"audit(1.0:1): domain={domain} status=allocated mode=enforcing pid={pid} uid=1000 exe="/usr/bin/assent" comm="assent""#
        );
        store.take(LANDLOCK_DOMAIN, &text, Instant::now());
    }

    fn refused(store: &mut Store, domain: &str, what: &str) {
        let text = format!("audit(1.0:2): domain={domain} {what}");
        store.take(LANDLOCK_ACCESS, &text, Instant::now());
    }

    /// A domain an earlier door of the same pid left behind (a process of its run still in it)
    /// is not the new door's: only the newest domain its pid made is told.
    #[test]
    fn only_the_newest_domain_of_a_pid_is_its_doors() {
        let mut store = Store::default();
        made(&mut store, "a1", 300);
        refused(
            &mut store,
            "a1",
            r#"blockers=fs.write_file path="/old/run""#,
        );
        made(&mut store, "b2", 300);
        refused(
            &mut store,
            "b2",
            r#"blockers=fs.write_file path="/new/run""#,
        );
        let (found, _, _) = with(store).lookup(300, 1000);
        let paths: Vec<_> = found.iter().filter_map(|r| r.path.as_deref()).collect();
        assert_eq!(paths, vec!["/new/run"]);
    }

    /// A run refused many signals before the door's mark: the mark is still seen (the last
    /// signals are kept), and never told as the run's.
    #[tokio::test]
    async fn the_mark_after_many_refused_signals_still_settles_and_is_not_told() {
        let mut store = Store::default();
        made(&mut store, "c3", 300);
        for target in 500..520 {
            refused(
                &mut store,
                "c3",
                &format!("blockers=scope.signal opid={target}"),
            );
        }
        refused(&mut store, "c3", "blockers=scope.signal opid=200");
        let denials = with(store);
        let found = denials
            .settle(300, 1000, Some(200), Some(true))
            .await
            .expect("known");
        assert!(!found.iter().any(|r| r.target == Some(200)), "{found:?}");
        assert!(!found.is_empty() && found.len() <= MAX_PER_DOMAIN);
    }

    /// A question waits for the reader's records without holding a thread, and is woken by
    /// them: the mark arriving answers it then, without what came long after.
    #[tokio::test]
    async fn a_waiting_question_is_woken_by_the_mark() {
        let mut store = Store::default();
        made(&mut store, "d4", 300);
        let denials = with(store);
        let reader = denials.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            {
                let mut store = reader.store.lock().expect("store");
                refused(
                    &mut store,
                    "d4",
                    r#"blockers=fs.write_file path="/in/time""#,
                );
                refused(&mut store, "d4", "blockers=scope.signal opid=200");
            }
            reader.changed.notify_waiters();
            tokio::time::sleep(SETTLE_MAX * 3 / 4).await;
            refused(
                &mut reader.store.lock().expect("store"),
                "d4",
                r#"blockers=fs.write_file path="/too/late""#,
            );
            reader.changed.notify_waiters();
        });
        let found = denials
            .settle(300, 1000, Some(200), Some(true))
            .await
            .expect("known");
        let paths: Vec<_> = found.iter().filter_map(|r| r.path.as_deref()).collect();
        assert_eq!(paths, vec!["/in/time"], "{found:?}");
    }

    /// One uid may keep only a few questions waiting; another uid is not held back by it.
    #[test]
    fn a_uid_has_a_few_questions_waiting_at_most() {
        let waiting = Mutex::new(HashMap::new());
        let held: Vec<_> = (0..MAX_WAITING_PER_UID)
            .map(|_| Waiting::take(&waiting, 1000).expect("a place"))
            .collect();
        assert!(Waiting::take(&waiting, 1000).is_none());
        assert!(Waiting::take(&waiting, 1001).is_some());
        drop(held);
        assert!(Waiting::take(&waiting, 1000).is_some());
        assert!(
            waiting.lock().expect("map").is_empty(),
            "nothing left behind"
        );
    }

    #[test]
    fn the_store_is_bounded_and_garbage_is_ignored() {
        let now = Instant::now();
        let mut store = Store::default();
        for i in 0..(MAX_DOMAINS as u64 + 10) {
            for j in 0..20 {
                let text =
                    format!("audit(1.0:1): domain={i:x} blockers=fs.write_file path=\"/p/{j}\"");
                store.take(LANDLOCK_ACCESS, &text, now);
            }
        }
        assert_eq!(store.domains.len(), MAX_DOMAINS);
        assert!(
            store
                .domains
                .values()
                .all(|d| d.refused.len() <= MAX_PER_DOMAIN + 1)
        );
        for text in [
            "",
            "domain=",
            "domain=zz blockers=x",
            "audit(: x",
            "\u{0}\u{1}",
        ] {
            store.take(LANDLOCK_ACCESS, text, now);
        }
        assert_eq!(message(&[1, 2, 3]), None);
        let long = format!(
            "audit(1.0:1): domain=1 blockers=fs.write_file path=\"/{}\"",
            "é".repeat(2000)
        );
        store.take(LANDLOCK_ACCESS, &long, now);
        let kept = &store.domains[&1].refused;
        assert!(
            kept.iter()
                .all(|r| r.path.as_ref().is_none_or(|p| p.len() <= MAX_PATH))
        );
    }
}
