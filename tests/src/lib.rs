//! Shared helpers for assent's end-to-end tests.
//!
//! [`TestDaemon`] runs the real daemon in-process on a socket in a temporary directory; its
//! `Drop` stops it. [`binary`] finds the built `assent` and `assentd` next to the test
//! executable. [`in_new_session`] starts a process in a login session of its own, which is what
//! an approver must be: the daemon refuses an answer from the requester's process or session.
//!
//! Every blocking wait here is bounded, so a wedged daemon fails a test in seconds instead of
//! hanging it.

pub mod dbus;
pub mod dunst;
pub mod needs;
pub mod notification_daemon;
pub mod shells;
pub mod tmux;
pub mod x11;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
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

/// The target directory the test executable was built into (`target/debug`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable knows its path");
    let deps = exe
        .parent()
        .expect("the test executable sits in a directory");
    let dir = if deps.ends_with("deps") {
        deps.parent().expect("deps has a parent")
    } else {
        deps
    };
    dir.to_path_buf()
}

/// The path of a workspace binary (`assent`, `assentd`, `assent-test-approver`), built for this
/// test run.
///
/// `cargo test -p assent-tests` builds this package's binaries but not the other packages',
/// and a binary left from an earlier build may predate the code under test, so the first call
/// in each test process runs `cargo build --workspace --bins` (`$CARGO`, else `cargo`) for the
/// profile the tests were built with (the name of the target directory they run from); when it
/// is already up to date that is a fraction of a second. A failed build fails the test: stale
/// binaries would test other code than this.
pub fn binary(name: &str) -> PathBuf {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the tests crate sits in the workspace")
            .join("Cargo.toml");
        let profile = target_dir()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut command = Command::new(cargo);
        command.args(["build", "--quiet", "--workspace", "--bins"]);
        // `debug` is the dev profile's directory; any other is named after its profile.
        if profile != "debug" {
            command.args(["--profile", &profile]);
        }
        match command
            .arg("--manifest-path")
            .arg(&manifest)
            .stdin(Stdio::null())
            .status()
        {
            Ok(status) if status.success() => Ok(()),
            other => Err(format!(
                "`cargo build --workspace --bins --profile {profile}` failed ({other:?})"
            )),
        }
    });
    if let Err(why) = built {
        panic!("{why}: the binaries under test could not be built");
    }
    let path = target_dir().join(name);
    assert!(
        path.is_file(),
        "{} is not built (looked in {})",
        name,
        target_dir().display()
    );
    path
}

/// A command for one of our binaries: our environment variables cleared, stdin closed, output
/// captured.
pub fn our_command(name: &str) -> Command {
    let mut command = Command::new(binary(name));
    for var in OUR_ENV.iter().chain(&SYSTEMD_ENV) {
        command.env_remove(var);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// `assent --socket SOCKET`, ready for a subcommand.
pub fn assent(socket: &Path) -> Command {
    let mut command = our_command("assent");
    command.arg("--socket").arg(socket);
    command
}

/// The test approver (`src/bin/approver.rs`) for `socket`.
pub fn approver(socket: &Path) -> Command {
    let mut command = our_command("assent-test-approver");
    command.arg("--socket").arg(socket);
    command
}

/// Make `command` start in a new login session (`setsid`), as an approver at another terminal
/// would be. The daemon compares login sessions to refuse self-approval.
#[allow(unsafe_code)] // `pre_exec`: the tests' one unsafe block.
pub fn in_new_session(command: &mut Command) -> &mut Command {
    // SAFETY: the closure runs in the forked child before exec and only calls setsid(2), which
    // is async-signal-safe; it touches no memory shared with the parent and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            nix::unistd::setsid().map_err(std::io::Error::from)?;
            Ok(())
        });
    }
    command
}

/// What a detached process runs: wait until the `setsid` that started it has gone (so it is
/// no longer below the test process), take an audit session of its own where the kernel keeps
/// them, then run the command and keep its exit status. `$1` the pid file, `$2` the status file,
/// `$3` the test process's pid.
const DETACH: &str = r#"pidfile=$1 rcfile=$2 test=$3; shift 3
echo $$ > "$pidfile"
ppid() { cut -d' ' -f4 "/proc/$1/stat" 2>/dev/null || echo 0; }
while [ "$(ppid "$(ppid $$)")" = "$test" ]; do sleep 0.01; done
if [ -r /proc/self/sessionid ] && [ "$(cat /proc/self/sessionid)" != 4294967295 ]; then
  echo "$(id -u)" > /proc/self/loginuid || { echo "assent-tests: no audit session of its own" >&2; exit 125; }
fi
"$@" &
echo $! > "$pidfile.program"
wait $!
echo $? > "$rcfile""#;

/// A process started away from the test process, as a person at another terminal would start
/// it: double-forked (the daemon refuses an answer from anything the requester started, and the
/// tests' in-process requests come from the test process itself), in a login session of its
/// own and, where the kernel keeps audit sessions, an audit session of its own. Its standard
/// output and error are pipes to the test; it is killed (its whole process group) when dropped.
pub struct Detached {
    /// Its standard output.
    pub stdout: Option<std::process::ChildStdout>,
    /// Its standard error.
    pub stderr: Option<std::process::ChildStderr>,
    dir: tempfile::TempDir,
    pid: Option<i32>,
}

impl Detached {
    /// Start `command` (its program, arguments, environment and directory) detached.
    pub fn spawn(command: &Command) -> Detached {
        let dir = tempfile::tempdir().expect("a temporary directory can be made");
        let mut detach = Command::new("setsid");
        detach
            .args(["-f", "sh", "-c", DETACH, "sh"])
            .arg(dir.path().join("pid"))
            .arg(dir.path().join("rc"))
            .arg(std::process::id().to_string())
            .arg(command.get_program())
            .args(command.get_args())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => detach.env(key, value),
                None => detach.env_remove(key),
            };
        }
        if let Some(cwd) = command.get_current_dir() {
            detach.current_dir(cwd);
        }
        let mut shim = detach.spawn().expect("setsid starts");
        let stdout = shim.stdout.take();
        let stderr = shim.stderr.take();
        // `setsid -f` returns once it has forked; the detached shell carries on alone.
        let _ = shim.wait();
        let pidfile = dir.path().join("pid");
        let started = wait_until(PROCESS_TIMEOUT, || pidfile.exists());
        assert!(started, "the detached process did not start");
        let pid = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|t| t.trim().parse().ok());
        Detached {
            stdout,
            stderr,
            dir,
            pid,
        }
    }

    /// Start `command` detached with its standard output discarded and its standard error
    /// appended to `log`.
    pub fn spawn_logged(command: &Command, log: &Path) -> Detached {
        Detached::spawn_into(command, None, log)
    }

    /// Start `command` detached with its standard output appended to `out` as it comes, and its
    /// standard error to `err` (a long-lived process whose output the test reads as it goes).
    pub fn spawn_logging(command: &Command, out: &Path, err: &Path) -> Detached {
        Detached::spawn_into(command, Some(out), err)
    }

    fn spawn_into(command: &Command, out_log: Option<&Path>, err_log: &Path) -> Detached {
        let mut detached = Detached::spawn(command);
        let (Some(out), Some(err)) = (detached.stdout.take(), detached.stderr.take()) else {
            return detached;
        };
        let copy = |mut from: Box<dyn Read + Send>, to: Option<PathBuf>| {
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let mut file = to.and_then(|to| {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(to)
                        .ok()
                });
                while let Ok(n) = from.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Some(file) = file.as_mut() {
                        let _ = std::io::Write::write_all(file, &buf[..n]);
                    }
                }
            });
        };
        copy(Box::new(out), out_log.map(Path::to_path_buf));
        copy(Box::new(err), Some(err_log.to_path_buf()));
        detached
    }

    /// Its pid (the shell that runs the command; its process group is the command's too).
    pub fn pid(&self) -> Option<i32> {
        self.pid
    }

    /// The command's own pid, once it has started.
    pub fn program_pid(&self) -> Option<i32> {
        let file = self.dir.path().join("pid.program");
        wait_until(PROCESS_TIMEOUT, || file.exists());
        std::fs::read_to_string(file).ok()?.trim().parse().ok()
    }

    /// The command's exit code once it has ended, waiting at most `timeout`.
    pub fn exit_code(&self, timeout: Duration) -> Option<i32> {
        let rc = self.dir.path().join("rc");
        wait_until(timeout, || rc.exists());
        std::fs::read_to_string(rc).ok()?.trim().parse().ok()
    }

    /// Wait for it to finish and collect its output and exit status, killing it and failing
    /// the test after `timeout`.
    pub fn wait_with_output(mut self, timeout: Duration) -> Output {
        let read = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut bytes);
                }
                bytes
            })
        };
        let out = read(
            self.stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let err = read(
            self.stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let deadline = Instant::now() + timeout;
        while !(out.is_finished() && err.is_finished()) {
            assert!(
                Instant::now() < deadline,
                "a detached process (pid {:?}) did not finish within {timeout:?}",
                self.pid
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        let rc = self.dir.path().join("rc");
        wait_until(Duration::from_secs(5), || rc.exists());
        let code: i32 = std::fs::read_to_string(&rc)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(125);
        self.pid = None;
        Output {
            status: std::os::unix::process::ExitStatusExt::from_raw(code << 8),
            stdout,
            stderr,
        }
    }

    /// Kill it (its process group).
    pub fn kill(&mut self) {
        if let Some(pid) = self.pid.take() {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

impl Drop for Detached {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Run `command` detached ([`Detached`]) to completion, as a person at another terminal.
pub fn run_detached(command: &mut Command) -> Output {
    Detached::spawn(command).wait_with_output(PROCESS_TIMEOUT)
}

/// Run `command` to completion, killing it and failing the test after [`PROCESS_TIMEOUT`].
pub fn run_bounded(command: &mut Command) -> Output {
    let child = command.spawn().expect("the command starts");
    wait_bounded(child, PROCESS_TIMEOUT)
}

/// Wait for `child` and collect its output, killing it (by its pid) and failing the test after
/// `timeout`.
pub fn wait_bounded(child: Child, timeout: Duration) -> Output {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid fits in i32"));
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(timeout) {
        Ok(output) => output.expect("waiting for the child works"),
        Err(_) => {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("a child process (pid {pid}) did not finish within {timeout:?}");
        }
    }
}

/// A spawned process that is killed (by its pid) and reaped when dropped.
pub struct KillOnDrop(pub Option<Child>);

impl KillOnDrop {
    /// The child's pid.
    pub fn pid(&self) -> nix::unistd::Pid {
        let child = self.0.as_ref().expect("the child is still owned");
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("a pid fits in i32"))
    }

    /// Take the child out, so it is no longer killed on drop.
    pub fn take(&mut self) -> Child {
        self.0.take().expect("the child is still owned")
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Read what is left on a child's stderr pipe, for failure messages.
pub fn drain_stderr(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut text);
    }
    text
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
