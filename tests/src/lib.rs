//! Shared helpers for assent's end-to-end tests.
//!
//! [`TestDaemon`] runs the real daemon in-process on a socket in a temporary directory; its
//! `Drop` stops it. [`binary`] finds the built `assent` and `assentd` next to the test
//! executable. [`in_new_session`] starts a process in a login session of its own, which is what
//! an approver must be: the daemon refuses an answer from the requester's process or session.
//!
//! Every blocking wait here is bounded, so a wedged daemon fails a test in seconds instead of
//! hanging it.

pub mod agents;
pub mod confined;
pub mod dbus;
pub mod dunst;
pub mod fake_model;
pub mod needs;
pub mod notification_daemon;
pub mod process;
pub mod shells;
pub mod tmux;
pub mod x11;

use process::target_dir;
pub use process::{
    Detached, KillOnDrop, approver, assent, binary, command_at, drain_stderr, in_new_session,
    our_command, run_bounded, run_detached, wait_bounded,
};

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use assent_client::Connection;
use assent_client::protocol::{
    CheckRequest, Context, Decided, ErrorKind, Origin, Request, Response, Subject, Verdict,
};
use nix::sys::socket::{setsockopt, sockopt};
use nix::sys::time::{TimeVal, TimeValLike};

/// How long any single blocking receive in a test may take before the test fails.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a spawned process may run before it is killed and the test fails.
pub const PROCESS_TIMEOUT: Duration = Duration::from_secs(20);

/// The environment variables our binaries read; cleared so the caller's shell cannot redirect
/// a test to a real daemon.
pub const OUR_ENV: [&str; 3] = ["ASSENT_SOCKET", "ASSENT_LOG", "ASSENT_TIMEOUT"];

/// The service manager's variables the daemon reads (notify protocol, watchdog, socket
/// activation); cleared so a test run under systemd cannot talk to the real manager.
pub const SYSTEMD_ENV: [&str; 5] = [
    "NOTIFY_SOCKET",
    "WATCHDOG_USEC",
    "WATCHDOG_PID",
    "LISTEN_FDS",
    "LISTEN_PID",
];

/// How a [`TestDaemon`] is configured.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long a held request waits for an answer.
    pub hold_ttl: Duration,
    /// How many requests one uid may have held at once.
    pub max_pending_per_uid: usize,
    /// A policy file to write into the daemon's configuration directory before it starts.
    pub policy: Option<String>,
    /// What an agent's held request meets when no approval agent is registered. Tests
    /// default to `Hold` so that `assent approve` answers; the embedded policy says `Deny`.
    pub no_approver: Option<assentd::policy::NoApprover>,
    /// How long a connection may sit with no request.
    pub idle_timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hold_ttl: Duration::from_secs(60),
            max_pending_per_uid: 32,
            policy: None,
            no_approver: Some(assentd::policy::NoApprover::Hold),
            idle_timeout: assentd::config::DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// The real daemon, in-process, on a socket in its own temporary directory.
///
/// `assentd::run` runs on a multi-thread runtime of its own in a background thread, so the test
/// can use the blocking client. Dropping the guard stops the daemon.
pub struct TestDaemon {
    dir: tempfile::TempDir,
    socket: PathBuf,
    state_dir: PathBuf,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    done: mpsc::Receiver<()>,
    thread: Option<JoinHandle<()>>,
    options: Options,
}

impl TestDaemon {
    /// A daemon with the default options.
    pub fn start() -> TestDaemon {
        TestDaemon::with(Options::default())
    }

    /// A daemon with `options`.
    pub fn with(options: Options) -> TestDaemon {
        let dir = tempfile::tempdir().expect("a temporary directory can be made");
        // Other uids (the `nobody` approver) must reach the socket inside.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("the temporary directory is ours to chmod");
        let socket = dir.path().join("assent.sock");
        let state_dir = dir.path().join("state");
        let config_dir = dir.path().join("config");
        std::fs::create_dir_all(&state_dir).expect("the state directory can be made");
        std::fs::create_dir_all(&config_dir).expect("the config directory can be made");
        if let Some(policy) = &options.policy {
            std::fs::write(config_dir.join("policy.toml"), policy)
                .expect("the policy file is written");
        }
        let (shutdown, done, thread) = spawn_daemon(&socket, &state_dir, &config_dir, &options);
        TestDaemon {
            dir,
            socket,
            state_dir,
            shutdown: Some(shutdown),
            done,
            thread: Some(thread),
            options,
        }
    }

    /// Stop the daemon and start a new one on the same socket, state and configuration (what
    /// survives a restart: remembered approvals, the policy; what does not: held requests).
    pub fn restart(&mut self) {
        self.stop();
        let _ = std::fs::remove_file(&self.socket);
        let config_dir = self.dir.path().join("config");
        let (shutdown, done, thread) =
            spawn_daemon(&self.socket, &self.state_dir, &config_dir, &self.options);
        self.shutdown = Some(shutdown);
        self.done = done;
        self.thread = Some(thread);
    }

    /// The daemon's socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The daemon's state directory (the audit file `audit.jsonl` is there).
    pub fn state_dir(&self) -> &Path {
        &self.state_dir
    }

    /// The temporary directory everything lives in.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The policy file the daemon watches (it may not exist: then the embedded default).
    pub fn policy_file(&self) -> PathBuf {
        self.dir.path().join("config").join("policy.toml")
    }

    /// A new connection with bounded receives and sends.
    pub fn connect(&self) -> Connection {
        connect(&self.socket)
    }

    /// Trigger shutdown and wait (at most 5 s) for `run` to return. Returns how long `run` took
    /// to return after the trigger, or `None` if it did not return in time or was already
    /// stopped.
    pub fn stop(&mut self) -> Option<Duration> {
        let trigger = self.shutdown.take()?;
        let started = Instant::now();
        let _ = trigger.send(());
        match self.done.recv_timeout(Duration::from_secs(5)) {
            Ok(()) => {
                let took = started.elapsed();
                if let Some(thread) = self.thread.take() {
                    let _ = thread.join();
                }
                Some(took)
            }
            Err(_) => {
                // Leave the thread behind rather than hang the test run.
                eprintln!("assentd::run did not return within 5 s of shutdown");
                None
            }
        }
    }
}

/// Start the daemon of a [`TestDaemon`] in a thread of its own; bound before this returns, so
/// connects succeed at once and no test sleeps.
fn spawn_daemon(
    socket: &Path,
    state_dir: &Path,
    config_dir: &Path,
    options: &Options,
) -> (
    tokio::sync::oneshot::Sender<()>,
    mpsc::Receiver<()>,
    JoinHandle<()>,
) {
    let mut config = assentd::Config::for_user_dirs(
        socket.to_path_buf(),
        state_dir.to_path_buf(),
        config_dir.to_path_buf(),
    );
    config.hold_ttl = options.hold_ttl;
    config.max_pending_per_uid = options.max_pending_per_uid;
    config.no_approver = options.no_approver;
    config.idle_timeout = options.idle_timeout;
    // Reloads are seen within a tenth of a second, so reload tests wait little.
    config.policy_poll = Duration::from_millis(50);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("test-assentd")
        .build()
        .expect("a tokio runtime can be built");
    let listener = {
        let _entered = runtime.enter();
        assentd::bind(socket, 0o666).expect("the test socket binds")
    };
    let (shutdown_tx, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
    let (done_tx, done) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("test-assentd".into())
        .spawn(move || {
            runtime.block_on(assentd::run(listener, config, async move {
                let _ = shutdown_rx.await;
            }));
            let _ = done_tx.send(());
            runtime.shutdown_timeout(Duration::from_secs(2));
        })
        .expect("the daemon thread starts");
    (shutdown_tx, done, thread)
}

impl Drop for TestDaemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Connect to `socket`, with receive and send timeouts of [`RECV_TIMEOUT`] so a test that
/// waits for a reply that never comes fails instead of hanging.
pub fn connect(socket: &Path) -> Connection {
    let conn = Connection::connect(socket).expect("the daemon accepts connections");
    set_timeouts(&conn, RECV_TIMEOUT);
    conn
}

/// Set the receive and send timeouts of a connection.
pub fn set_timeouts(conn: &Connection, timeout: Duration) {
    let millis = i64::try_from(timeout.as_millis()).expect("a test timeout fits in i64");
    let tv = TimeVal::milliseconds(millis);
    setsockopt(conn, sockopt::ReceiveTimeout, &tv).expect("SO_RCVTIMEO can be set");
    setsockopt(conn, sockopt::SendTimeout, &tv).expect("SO_SNDTIMEO can be set");
}

/// A shell check.
pub fn check(command: &str, origin: Origin) -> Request {
    Request::Check(CheckRequest {
        subject: shell(command),
        origin,
        context: Context::default(),
        wait: false,
    })
}

/// A shell subject run in `/tmp`.
pub fn shell(command: &str) -> Subject {
    Subject::Shell {
        command: command.into(),
        cwd: "/tmp".into(),
        truncated: false,
    }
}

/// A check that is held whatever the analyser says: the caller's own `requires_confirmation`
/// raises the decision to Confirm. Used wherever a test is about holding, not analysis.
pub fn held_check(command: &str, wait: bool, session: Option<&str>) -> Request {
    Request::Check(CheckRequest {
        subject: shell(command),
        origin: Origin::Agent,
        context: Context {
            session: session.map(str::to_string),
            requires_confirmation: Some(true),
            confidence: None,
            prompt: false,
            agent: None,
            confines: false,
            grant: false,
            asks_when_held: false,
        },
        wait,
    })
}

/// Send a check and expect a verdict.
pub fn verdict_of(conn: &mut Connection, request: &Request) -> Verdict {
    match conn.request(request) {
        Ok(Response::Verdict(verdict)) => verdict,
        other => panic!("expected a verdict for {request:?}, got {other:?}"),
    }
}

/// Send a check that must be held; return its token.
pub fn hold(conn: &mut Connection, request: &Request) -> String {
    let verdict = verdict_of(conn, request);
    assert_eq!(
        verdict.decision,
        assent_client::protocol::Decision::Confirm,
        "expected {request:?} to be held, got {verdict:?}"
    );
    let token = verdict.token.expect("a held verdict carries its token");
    assert!(is_token(&token), "token {token:?} is not pa_ + 32 hex");
    token
}

/// [`held_check`] with the agent a hook names (`Claude Code`, `Codex`, `Gemini CLI`).
pub fn agent_check(command: &str, agent: &str) -> Request {
    let mut request = held_check(command, true, None);
    if let Request::Check(check) = &mut request {
        check.context.agent = Some(agent.to_string());
    }
    request
}

/// Where a test saves a screenshot named `name` for a person to look at: under the target
/// directory's `screenshots/`, kept after the test (`$ASSENT_SCREENSHOTS` overrides it).
pub fn screenshot_path(name: &str) -> PathBuf {
    let dir = std::env::var_os("ASSENT_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let exe = std::env::current_exe().expect("the test executable has a path");
            // target/debug/deps/TEST -> target/screenshots
            exe.ancestors()
                .nth(3)
                .expect("the test executable is under the target directory")
                .join("screenshots")
        });
    dir.join(format!("{name}.png"))
}

/// Whether `text` has the token form: `pa_` and 32 lowercase hex digits.
pub fn is_token(text: &str) -> bool {
    text.strip_prefix("pa_").is_some_and(|hex| {
        hex.len() == 32
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Receive the final outcome of a held request this connection waits for.
pub fn decided(conn: &mut Connection) -> Decided {
    match conn.recv() {
        Ok(Response::Decided(decided)) => decided,
        other => panic!("expected Decided, got {other:?}"),
    }
}

/// Expect a request to be refused with an error; return its kind.
pub fn refused(result: Result<Response, assent_client::Error>) -> ErrorKind {
    match result {
        Err(assent_client::Error::Refused(error)) => error.kind,
        other => panic!("expected an error reply, got {other:?}"),
    }
}

/// The tokens held right now, as `conn`'s uid sees them.
pub fn pending_tokens(conn: &mut Connection) -> Vec<String> {
    match conn.pending() {
        Ok(items) => items.into_iter().map(|item| item.token).collect(),
        other => panic!("expected the pending list, got {other:?}"),
    }
}

/// A temporary directory in this user's real home (the daemon's `~`, from the user
/// database): outside `/tmp`, which every confined run may change, and outside this
/// repository, which would be a confined run's project.
pub fn home_scratch(prefix: &str) -> tempfile::TempDir {
    let home = nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map(|u| u.dir)
        .expect("the user database knows this user's home");
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(home)
        .expect("a directory in the home can be made")
}

/// Poll `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if condition() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Poll-connect to `socket` until the daemon accepts, for at most `timeout`.
pub fn wait_for_socket(socket: &Path, timeout: Duration) -> bool {
    wait_until(timeout, || Connection::connect(socket).is_ok())
}

/// A directory `dir/bin` holding a fake `rm` that only touches the marker `dir/rm-ran`; put it
/// first on `PATH` so that a command the gate wrongly allowed still deletes nothing.
pub fn fake_rm(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("the bin directory can be made");
    let marker = dir.join("rm-ran");
    let script = bin.join("rm");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .expect("the fake rm is written");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
        .expect("the fake rm is made executable");
    (bin, marker)
}
