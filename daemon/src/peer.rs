//! Who is on the other end of a connection, from the kernel only.
//!
//! The uid, gid and pid come from `SO_PEERCRED` (captured by the kernel at `connect`), a pidfd
//! from `SO_PEERPIDFD` where the kernel has it (6.5+), so that `/proc` reads about the peer are
//! checked against the process that connected rather than whoever has its pid now. Nothing a
//! request says about its sender is used for authority. A failed lookup is an error, never a
//! default identity.

// Asking a pidfd for its mount namespace is an `ioctl` returning a descriptor: unsafe.
#[allow(unsafe_code)]
mod mounts;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::{Arc, OnceLock};

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
    /// A pidfd for the peer process, where the kernel supports `SO_PEERPIDFD` (shared with
    /// the peer's [`Groups`], which may be read later on another thread).
    pub pidfd: Option<Arc<OwnedFd>>,
    /// The peer's login session (its session id, `getsid`), when it could be established while
    /// the pidfd proves the process is still the one that connected.
    pub sid: Option<i32>,
    /// The peer's audit session, read on first use ([`PeerIdentity::audit_session`]): only a
    /// held request and an answer need it, and a plain check should not pay two `/proc` reads.
    audit_session: std::sync::OnceLock<Option<u32>>,
    /// The peer's supplementary groups, read on first use ([`PeerIdentity::groups`]).
    groups: Groups,
}

/// A peer's supplementary groups, read from the kernel the first time a thread reads files as
/// the peer (most requests never do: what they would look up is cached, and the `/proc` read
/// costs more than the rest of a check's work on the daemon's side). With them, a daemon
/// running as root finds, reads and plans what the peer may reach through a group (a project
/// under a directory only its team may enter) as the peer would. Read once, and kept only
/// while the pidfd says the process is still the one that connected; none when that cannot be
/// told (no pidfd, another pid namespace, or the process runs as another user or group now,
/// after a set-user-id program), so the daemon reads with fewer rights than the peer, never
/// more, and keeps nothing it learned that way ([`Groups::unknown`]). A process cannot gain a
/// group without privilege, so what is read is at most what it had when it connected.
#[derive(Debug, Clone, Default)]
pub struct Groups {
    read: Arc<OnceLock<Option<Vec<u32>>>>,
    /// The peer's pid, pidfd, and the uid and gid it connected with.
    peer: Option<(i32, Arc<OwnedFd>, u32, u32)>,
}

impl Groups {
    /// Groups known already (tests, and a requester the daemon does not read as).
    pub fn known(groups: Vec<u32>) -> Groups {
        Groups {
            read: Arc::new(OnceLock::from(Some(groups))),
            peer: None,
        }
    }

    /// The groups, read now if they were not yet; none when they cannot be told.
    pub fn get(&self) -> &[u32] {
        self.read().as_deref().unwrap_or_default()
    }

    /// The groups could not be told (read now if they were not yet): what is read as the peer
    /// is read with fewer rights than it has, and must not be kept for its next request.
    pub fn unknown(&self) -> bool {
        self.read().is_none()
    }

    fn read(&self) -> &Option<Vec<u32>> {
        self.read.get_or_init(|| {
            let (pid, pidfd, uid, gid) = self.peer.as_ref()?;
            groups_of(*pid, *uid, *gid).filter(|_| pidfd_alive(pidfd, *pid))
        })
    }
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
    let pidfd = pidfd.map(Arc::new);
    let groups = Groups {
        read: Arc::new(OnceLock::new()),
        peer: pidfd
            .as_ref()
            .filter(|_| pid > 0)
            .map(|fd| (pid, Arc::clone(fd), creds.uid(), creds.gid())),
    };
    Ok(PeerIdentity {
        uid: creds.uid(),
        gid: creds.gid(),
        pid,
        pidfd,
        sid,
        audit_session: std::sync::OnceLock::new(),
        groups,
    })
}

/// The `Groups:` line of `/proc/PID/status`: the process's supplementary groups now. A
/// process cannot gain one without privilege, so these are at most what it had when it
/// connected.
/// Only while every one of its user and group ids (real, effective, saved, file system) is
/// still the one it connected with: a set-user-id program it ran since (`sudo`, `newgrp`) may
/// have given it groups that came with other ids.
fn groups_of(pid: i32, uid: u32, gid: u32) -> Option<Vec<u32>> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let ids = |key: &str, want: u32| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .is_some_and(|ids| {
                let ids: Vec<&str> = ids.split_whitespace().collect();
                ids.len() == 4 && ids.iter().all(|id| id.parse() == Ok(want))
            })
    };
    if !ids("Uid:", uid) || !ids("Gid:", gid) {
        return None;
    }
    let line = status.lines().find_map(|l| l.strip_prefix("Groups:"))?;
    line.split_whitespace().map(|g| g.parse().ok()).collect()
}

/// `/proc/PID/sessionid` when the kernel has set one (4294967295 is "unset").
fn audit_session_of(pid: i32) -> Option<u32> {
    if pid <= 0 {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/sessionid")).ok()?;
    text.trim().parse::<u32>().ok().filter(|&id| id != u32::MAX)
}

/// Whether this kernel keeps audit sessions at all (`/proc/self/sessionid` exists).
pub fn kernel_has_audit_sessions() -> bool {
    std::path::Path::new("/proc/self/sessionid").exists()
}

/// One process, named so that it cannot be confused with a later one that takes its pid: its
/// pid and its start time (clock ticks after boot), and its name for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub start: u64,
    pub comm: String,
}

/// Programs that only pass a request on: a hook's shell, our own client, `env`, `timeout`.
const GO_BETWEENS: &[&str] = &[
    "assent",
    "assent-sh",
    "sh",
    "bash",
    "zsh",
    "dash",
    "fish",
    "env",
    "timeout",
    "setsid",
    "nohup",
    "stdbuf",
    "nice",
    "xargs",
];

/// The program that asked, as the daemon saw it: the first process of the requesting chain
/// that is not a go-between (the hook's `sh -c` and `assent` under Claude Code name `claude`),
/// else the requesting process itself. `None` when the chain could not be read.
pub fn asking_program(chain: &[Proc]) -> Option<String> {
    chain
        .iter()
        .find(|p| !GO_BETWEENS.contains(&p.comm.as_str()))
        .or(chain.first())
        .map(|p| p.comm.clone())
}

/// The agent a client says it serves, made fit to show: one line of at most 40 characters
/// without control characters; `None` when nothing is left.
pub fn claimed_agent(claim: Option<&str>) -> Option<String> {
    let text: String = claim?
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(40)
        .collect();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

impl std::fmt::Display for Proc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.pid, self.comm)
    }
}

/// What `/proc/PID/stat` says of a process that the walks below need.
struct Stat {
    ppid: i32,
    session: i32,
    /// Its controlling terminal's device number, 0 for none.
    tty: i32,
    start: u64,
    comm: String,
}

fn stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name is in parentheses and may hold spaces and ')': fields start after the last ')'.
    let open = text.find('(')?;
    let (head, rest) = text.rsplit_once(')')?;
    let comm: String = head.get(open + 1..)?.chars().take(32).collect();
    // rest: state(3) ppid(4) pgrp(5) session(6) tty_nr(7) … starttime(22).
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        ppid: fields.get(1)?.parse().ok()?,
        session: fields.get(3)?.parse().ok()?,
        tty: fields.get(4)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        comm,
    })
}

/// The effective uid of `pid` (`Uid:` of `/proc/PID/status`, second field).
fn uid_of(pid: i32) -> Option<u32> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("Uid:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// How far up a chain of parents is followed.
const MAX_CHAIN: usize = 32;

/// Walk up from `pid`: the process and its parents, each step checked (the child still names
/// the parent after the parent was read, so a parent that exited and whose pid was taken is
/// never recorded). `keep_going` says, for a process just recorded, whether to go on to its
/// parent.
fn walk_up(pid: i32, max: usize, mut keep_going: impl FnMut(i32, &Stat) -> bool) -> Vec<Proc> {
    let mut out = Vec::new();
    let Some(mut current) = stat(pid) else {
        return out;
    };
    let mut current_pid = pid;
    loop {
        out.push(Proc {
            pid: current_pid,
            start: current.start,
            comm: current.comm.clone(),
        });
        if out.len() >= max || current.ppid <= 1 || !keep_going(current_pid, &current) {
            break;
        }
        let parent_pid = current.ppid;
        let Some(parent) = stat(parent_pid) else {
            break;
        };
        // Still the child's parent after the parent was read: the link held.
        if stat(current_pid).map(|s| s.ppid) != Some(parent_pid) {
            break;
        }
        current = parent;
        current_pid = parent_pid;
    }
    out
}

/// The requesting process and the processes above it, up to the agent that asked: past the
/// door's own go-betweens (the hook's `sh`, `assent`, `env`, `timeout`) and past the sessions an
/// agent makes for its tools (Claude Code runs its hook through `sh` in a session of its own,
/// Codex starts the hook as a session leader), to the first process that is neither (`claude`,
/// `codex`, Gemini CLI's `node`). Whatever descends from one of them may not answer.
///
/// The walk stops early at a session leader with a controlling terminal: that is a person's
/// login or terminal shell (the bash hook's own shell, a tmux pane's), and what is above it
/// (the terminal emulator, the tmux server) is shared with the person's other terminals, where
/// `assent watch` must still answer. An agent's hook never has one: a new session starts
/// without a controlling terminal. Past the first process of another uid nothing is the
/// requester's own.
pub fn requester_chain(pid: i32, uid: u32) -> Vec<Proc> {
    if pid <= 0 {
        return Vec::new();
    }
    let mut chain = walk_up(pid, MAX_CHAIN, |p, st| {
        GO_BETWEENS.contains(&st.comm.as_str()) && !(p == st.session && st.tty != 0)
    });
    if let Some(cut) = chain.iter().position(|p| uid_of(p.pid) != Some(uid)) {
        chain.truncate(cut.max(1));
    }
    chain
}

/// What the kernel says of the agent at the top of a requesting chain, besides its ancestry:
/// what a process it started keeps after it double-forks away from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFacts {
    /// The agent process.
    pub proc: Proc,
    /// Its POSIX session: a job it put in the background stays in it unless it calls `setsid`.
    pub sid: i32,
    /// Its controlling terminal (0 for none): kept by a job that leaves the agent without
    /// `setsid`.
    pub tty: i32,
    /// Its cgroup, only where it is the agent's own (its parent is in another): every process
    /// the agent starts stays in it, double fork or not. `None` where the agent shares its
    /// parent's (a terminal's, a login session's), which a person's other terminals share too.
    pub cgroup: Option<String>,
}

/// The agent of a requesting chain (its last process, when that is not a go-between: a chain
/// that ends in a shell ended at a person's terminal), with the facts a later answer is held
/// against. `None` when there is no agent above the door, or its facts cannot be read.
pub fn agent_facts(chain: &[Proc]) -> Option<AgentFacts> {
    let top = chain.last()?;
    if GO_BETWEENS.contains(&top.comm.as_str()) {
        return None;
    }
    let st = stat(top.pid).filter(|st| st.start == top.start)?;
    let own = cgroup_of(top.pid);
    let parent = cgroup_of(st.ppid);
    let cgroup = own.filter(|own| Some(own) != parent.as_ref() && own != "/");
    Some(AgentFacts {
        proc: top.clone(),
        sid: st.session,
        tty: st.tty,
        cgroup,
    })
}

/// What the kernel says of an answering process that is held against the agent's facts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswererFacts {
    /// Its controlling terminal (0 for none).
    pub tty: i32,
    /// Its cgroup (v2), when it can be read.
    pub cgroup: Option<String>,
}

/// The answering process's terminal and cgroup.
pub fn answerer_facts(pid: i32) -> AnswererFacts {
    if pid <= 0 {
        return AnswererFacts::default();
    }
    AnswererFacts {
        tty: stat(pid).map_or(0, |st| st.tty),
        cgroup: cgroup_of(pid),
    }
}

/// The cgroup v2 path of `pid` (`0::/user.slice/…` in `/proc/PID/cgroup`).
fn cgroup_of(pid: i32) -> Option<String> {
    if pid <= 0 {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(|path| path.chars().take(4096).collect())
}

/// Whether cgroup `inner` is `outer` or beneath it.
pub fn cgroup_within(inner: &str, outer: &str) -> bool {
    inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('/') || outer.ends_with('/'))
}

/// Coding agents by the name their process runs under (`comm`, at most 15 bytes). A process
/// below one of them is an agent's, whatever it asked: it may not answer a held request or
/// register as an approval agent. Agents that run as a plain interpreter (Gemini CLI is `node`)
/// are known by the requests they made instead.
pub const AGENT_PROGRAMS: &[&str] = &[
    "claude",
    "codex",
    "gemini",
    "cursor-agent",
    "aider",
    "opencode",
    "goose",
    "amp",
    "crush",
    "qwen",
    "cline",
    "kiro-cli",
    "copilot",
];

/// Whether `process` runs with `no_new_privs` (`/proc/PID/status`), which every confined
/// process does and none can take off; `None` when it cannot be read, or when the pid is no
/// longer that process (its start time read again).
pub fn no_new_privs(process: &Proc) -> Option<bool> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", process.pid)).ok()?;
    let set = status
        .lines()
        .find_map(|line| line.strip_prefix("NoNewPrivs:"))
        .map(|value| value.trim() == "1")?;
    (stat(process.pid)?.start == process.start).then_some(set)
}

/// The answering process and all its ancestors (up to init, at most 64 processes).
pub fn ancestors(pid: i32) -> Vec<Proc> {
    if pid <= 0 {
        return Vec::new();
    }
    walk_up(pid, MAX_CHAIN * 2, |_, _| true)
}

impl PeerIdentity {
    /// The peer's audit session (`/proc/PID/sessionid`), where the kernel keeps one for it: set
    /// at login, inherited, and not changed by `setsid` or by the process itself. Read the first
    /// time it is asked for, while the pidfd shows the pid is still the process that connected;
    /// no answer when it is not (the peer is gone, and its pid may be someone else's).
    pub fn audit_session(&self) -> Option<u32> {
        *self.audit_session.get_or_init(|| {
            audit_session_of(self.pid).filter(|_| {
                self.pidfd
                    .as_ref()
                    .is_none_or(|fd| pidfd_alive(fd, self.pid))
            })
        })
    }

    /// Whether the peer process still exists and is still the one that connected (its pidfd
    /// still names its pid). False without a pidfd: nothing can be proven then.
    pub fn still_alive(&self) -> bool {
        match &self.pidfd {
            Some(pidfd) => pidfd_alive(pidfd, self.pid),
            None => false,
        }
    }

    /// The peer's parent process, while its pidfd says the peer is the process that
    /// connected.
    pub fn parent(&self) -> Option<i32> {
        let parent = stat(self.pid)?.ppid;
        self.still_alive().then_some(parent)
    }

    /// The peer's supplementary groups, read when first needed ([`Groups`]).
    pub fn groups(&self) -> Groups {
        self.groups.clone()
    }

    /// Whether the peer sees the file system as the daemon does: the same mount namespace,
    /// read while its pidfd says it is still the process that connected. A ruleset the daemon
    /// planned names its own view's files; a process in a container of its own sees others at
    /// those paths. False when it cannot be told.
    pub fn same_mounts(&self) -> bool {
        if self.pid <= 0 {
            return false;
        }
        if let Some(pidfd) = &self.pidfd
            && let Some(theirs) = mounts::of_pidfd(pidfd)
        {
            return mounts::ours() == Some(theirs);
        }
        // No pidfd, or a kernel that cannot name a pidfd's namespace: from `/proc`.
        static OURS: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
        let ours = OURS.get_or_init(|| std::fs::read_link("/proc/self/ns/mnt").ok());
        let theirs = std::fs::read_link(format!("/proc/{}/ns/mnt", self.pid)).ok();
        ours.is_some() && *ours == theirs && (self.pidfd.is_none() || self.still_alive())
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

    /// Whether the peer may answer its own held line at a terminal prompt: it has a controlling
    /// terminal (a confined run has none), and between it and its session's leader (the
    /// person's terminal shell, whose hook asked) runs neither a door of the gate's (what runs
    /// through `assent run`/`sh` is what an agent or a repository chose, confined or not) nor a
    /// coding agent. Not whether it is in the terminal's foreground: the bash builtin's shell
    /// asks, and its `assent __resume` child prompts in the foreground on the shell's
    /// connection. The processes walked are returned, for the agents that asked lately to be
    /// looked for among them; the reason when it may not.
    pub fn at_its_terminal(&self) -> Result<Vec<Proc>, String> {
        let at = at_its_terminal(self.pid)?;
        if !self.still_alive() {
            return Err("it has exited".into());
        }
        Ok(at)
    }
}

/// Programs of the gate's own that run a line (the doors): a terminal prompt never runs under one.
const DOORS: &[&str] = &["assent", "assent-sh"];

fn at_its_terminal(pid: i32) -> Result<Vec<Proc>, String> {
    let me = stat(pid).ok_or("it could not be looked at")?;
    if me.tty == 0 {
        return Err("it has no controlling terminal".into());
    }
    let mut walked = Vec::new();
    let (mut current_pid, mut current) = (pid, me);
    for _ in 0..MAX_CHAIN {
        let this = Proc {
            pid: current_pid,
            start: current.start,
            comm: current.comm.clone(),
        };
        if current_pid != pid && DOORS.contains(&this.comm.as_str()) {
            return Err(format!("it runs under {this}, a door of the gate's"));
        }
        if AGENT_PROGRAMS.contains(&this.comm.as_str()) {
            return Err(format!("it runs under {this}, a coding agent"));
        }
        walked.push(this);
        if current_pid == current.session {
            return Ok(walked);
        }
        let parent_pid = current.ppid;
        let parent = stat(parent_pid).ok_or("its parents could not be looked at")?;
        // Still the child's parent after the parent was read: the link held.
        if stat(current_pid).map(|s| s.ppid) != Some(parent_pid) || parent_pid <= 1 {
            return Err("its parents could not be looked at".into());
        }
        (current_pid, current) = (parent_pid, parent);
    }
    Err("its session's leader is too far above it".into())
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
        Some(pidfd) => pidfd_alive(pidfd, pid).then_some(sid),
        None => Some(sid),
    }
}

/// Whether the process a pidfd refers to, which had `pid` when it connected, has not exited:
/// a pidfd turns readable when its process exits (a zombie counts as gone), and a pid cannot be
/// taken by another process while the one holding it has not been reaped. One `poll`, where
/// reading the pid from `/proc/self/fdinfo` took seven system calls on every connection.
fn pidfd_alive(pidfd: &OwnedFd, pid: i32) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    if pid <= 0 {
        return false;
    }
    let mut fds = [PollFd::new(pidfd.as_fd(), PollFlags::POLLIN)];
    matches!(poll(&mut fds, PollTimeout::ZERO), Ok(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process's groups count only while it runs as the user and group it connected with:
    /// after a set-user-id program it may have others' groups.
    #[test]
    fn groups_are_read_only_for_the_ids_the_peer_connected_with() {
        let pid = i32::try_from(std::process::id()).expect("pid");
        let (uid, gid) = (
            nix::unistd::geteuid().as_raw(),
            nix::unistd::getegid().as_raw(),
        );
        let ours: Vec<u32> = nix::unistd::getgroups()
            .expect("getgroups")
            .iter()
            .map(|g| g.as_raw())
            .collect();
        assert_eq!(groups_of(pid, uid, gid), Some(ours));
        assert_eq!(groups_of(pid, uid.wrapping_add(1), gid), None);
        assert_eq!(groups_of(pid, uid, gid.wrapping_add(1)), None);
        // No pidfd to prove who the pid is: unknown, so nothing read as the peer is kept.
        assert!(Groups::default().unknown());
        assert!(Groups::default().get().is_empty());
        assert!(!Groups::known(vec![5]).unknown());
    }

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

    #[test]
    fn a_peer_that_exited_is_gone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s");
        let listener = std::os::unix::net::UnixListener::bind(&path).expect("bind");
        let mut child = std::process::Command::new("python3")
            .args([
                "-c",
                "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); sys.stdin.read()",
            ])
            .arg(&path)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let (socket, _) = listener.accept().expect("accept");
        let peer = identify(&socket).expect("identity");
        assert_eq!(peer.pid, child.id() as i32);
        // A kernel without SO_PEERPIDFD proves nothing here.
        let pinned = peer.pidfd.is_some();
        assert!(!pinned || peer.still_alive(), "connected and waiting");
        drop(child.stdin.take());
        child.wait().expect("wait");
        if pinned {
            assert!(!peer.still_alive(), "exited and reaped");
        }
        assert_eq!(
            peer.audit_session(),
            None,
            "nothing is read about a gone peer"
        );
    }
}
