//! Starting our binaries and other processes for the tests, every wait bounded: the binaries
//! built for this run ([`binary`]), commands with our environment cleared ([`our_command`]),
//! processes detached from the test process as a person at another terminal would start them
//! ([`Detached`], [`run_detached`]), and children that are killed when a test fails
//! ([`KillOnDrop`], [`wait_bounded`]).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::{OUR_ENV, PROCESS_TIMEOUT, SYSTEMD_ENV, wait_until};

/// The target directory the test executable was built into (`target/debug`).
pub(crate) fn target_dir() -> PathBuf {
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
    command_at(&binary(name))
}

/// A command for one of our programs at `path` (an installed one, say), set up as
/// [`our_command`] sets it up.
pub fn command_at(path: &Path) -> Command {
    let mut command = Command::new(path);
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
        // The shell creates the file before it writes the status into it: wait for the number,
        // not for the file.
        let code = || std::fs::read_to_string(&rc).ok()?.trim().parse().ok();
        wait_until(timeout, || code().is_some());
        code()
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
        let read = || -> Option<i32> { std::fs::read_to_string(&rc).ok()?.trim().parse().ok() };
        wait_until(Duration::from_secs(5), || read().is_some());
        let code: i32 = read().unwrap_or(125);
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
