//! A real interactive shell in a private tmux server, for the shell hook's tests.
//!
//! Each [`Pane`] has its own tmux server (`tmux -S SOCKET` in the test's temporary directory, no
//! configuration file), runs one shell with a clean environment (`env -i`), and kills the server
//! when dropped. Keys go in with `send-keys`, the screen comes back with `capture-pane`, and
//! every wait polls against a deadline, so a wedged shell fails a test in seconds.
//!
//! The shells are real and run as the test's user: every line a test types must be harmless
//! even if the hook under test fails open. Programs that would do damage are shadowed by fakes
//! on a test-only PATH that only write a marker file (see [`fake_program`]).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a test waits for anything on the screen.
pub const SCREEN_TIMEOUT: Duration = Duration::from_secs(10);

/// One shell in one private tmux server.
pub struct Pane {
    socket: PathBuf,
}

impl Pane {
    /// Start `argv` (program and arguments, run without a shell) with exactly `env` as its
    /// environment, in a new tmux server whose socket is `dir/tmux.sock`.
    pub fn start(dir: &Path, env: &[(String, String)], argv: &[&str]) -> Pane {
        Pane::start_sized(dir, env, argv, (220, 50))
    }

    /// [`Pane::start`] in a window of `(columns, rows)`, for what must fit a small terminal.
    pub fn start_sized(
        dir: &Path,
        env: &[(String, String)],
        argv: &[&str],
        (columns, rows): (u16, u16),
    ) -> Pane {
        let socket = dir.join("tmux.sock");
        // Keep the pane after its program exits, so a program that ends shows what it said, and
        // why. Set in the server's configuration, read before the program starts: set after
        // `new-session`, a program quicker than that second tmux call took its pane and the
        // session with it, and the screen read empty.
        let config = dir.join("tmux.conf");
        std::fs::write(&config, "set-option -g remain-on-exit on\n")
            .expect("the tmux configuration is written");
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let mut command = tmux(&socket);
        command.arg("-f").arg(&config);
        command.args([
            "new-session",
            "-d",
            "-x",
            columns.as_str(),
            "-y",
            rows.as_str(),
            "-s",
            "t",
            // More than one argument: tmux runs the program itself, no `sh -c`.
            "/usr/bin/env",
            "-i",
        ]);
        for (key, value) in env {
            command.arg(format!("{key}={value}"));
        }
        command.args(argv);
        let output = crate::run_bounded(&mut command);
        assert!(
            output.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        Pane { socket }
    }

    /// The pane of a tmux server something else started on `socket`, with its session named
    /// `t` (a server started inside another mount namespace, say).
    pub fn attach(socket: PathBuf) -> Pane {
        Pane { socket }
    }

    fn cmd(&self) -> Command {
        tmux(&self.socket)
    }

    /// Type `text` literally (no key names), without Enter.
    pub fn type_text(&self, text: &str) {
        let output =
            crate::run_bounded(self.cmd().args(["send-keys", "-t", "t", "-l", "--", text]));
        assert!(output.status.success(), "send-keys failed");
    }

    /// Press keys by tmux name (`Enter`, `C-c`).
    pub fn keys(&self, keys: &[&str]) {
        let output = crate::run_bounded(self.cmd().args(["send-keys", "-t", "t"]).args(keys));
        assert!(output.status.success(), "send-keys failed");
    }

    /// Type `text` and press Enter.
    pub fn line(&self, text: &str) {
        self.type_text(text);
        self.keys(&["Enter"]);
    }

    /// Clear the screen and forget the scrollback, so later waits see only what comes next.
    pub fn clear(&self) {
        self.line("clear");
        std::thread::sleep(Duration::from_millis(300));
        let _ = crate::run_bounded(self.cmd().args(["clear-history", "-t", "t"]));
    }

    /// The screen and its scrollback, wrapped lines joined.
    pub fn screen(&self) -> String {
        let output =
            crate::run_bounded(
                self.cmd()
                    .args(["capture-pane", "-p", "-J", "-t", "t", "-S", "-"]),
            );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Wait until `condition` holds for the screen; panic with the screen after `timeout`.
    pub fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        condition: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if condition(&screen) {
                return screen;
            }
            if Instant::now() >= deadline {
                panic!("timed out after {timeout:?} waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Wait until the screen shows `text` at least `count` times.
    pub fn wait_count(&self, text: &str, count: usize) -> String {
        self.wait_for(&format!("{count} × {text:?}"), SCREEN_TIMEOUT, |s| {
            s.matches(text).count() >= count
        })
    }

    /// Wait until the screen shows `text`.
    pub fn wait_text(&self, text: &str) -> String {
        self.wait_count(text, 1)
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        // For a person debugging a test: `ASSENT_TEST_SCREEN=1 cargo test … -- --nocapture`.
        if std::env::var_os("ASSENT_TEST_SCREEN").is_some() {
            eprintln!("---- screen ----\n{}----------------", self.screen());
        }
        let _ = self
            .cmd()
            .arg("kill-server")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn tmux(socket: &Path) -> Command {
    let mut command = Command::new("tmux");
    command
        .arg("-S")
        .arg(socket)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Write an executable `dir/name` that only appends `FAKE-<name> <args>` to `marker`, so a
/// test can type a dangerous-looking line and see whether it ran without anything being harmed.
pub fn fake_program(dir: &Path, name: &str, marker: &Path) {
    std::fs::create_dir_all(dir).expect("the fake bin directory can be made");
    let script = dir.join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"FAKE-{name} $*\" >> '{}'\n",
            marker.display()
        ),
    )
    .expect("the fake program is written");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
        .expect("the fake program is made executable");
}

/// The lines of `marker` (empty if it does not exist).
pub fn markers(marker: &Path) -> String {
    std::fs::read_to_string(marker).unwrap_or_default()
}
