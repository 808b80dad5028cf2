//! Gemini CLI in a [`Sandbox`]: its settings, the hook `assent setup gemini` installs, and a
//! headless run against the fake model.
//!
//! Gemini CLI takes the model's address from `GOOGLE_GEMINI_BASE_URL` (which also selects its
//! "gateway" authentication) and a key from `GEMINI_API_KEY`; `-p` runs it headless, `--skip-trust`
//! trusts the project for the run, `--approval-mode yolo` keeps its own confirmations out of
//! the way and `--include-directories HOME` its own workspace check (which refuses a path
//! outside the project before any hook), so that the gate is the only thing between the model
//! and the command. [`Sandbox::gemini_interactive`] runs it in a terminal instead (a private
//! tmux server), for what only its interactive mode shows: its own confirmation prompt.

use std::path::Path;
use std::time::Duration;

use super::Sandbox;
use crate::process::wait_bounded;
use crate::tmux::Pane;

/// What the user's `~/.gemini/settings.json` holds before `assent setup gemini`: an API key
/// (`GEMINI_API_KEY`) as the way in, whose requests go to `GOOGLE_GEMINI_BASE_URL`; no usage
/// statistics, telemetry or update checks (the machine may have no network).
const SETTINGS: &str = r#"{
  // Written by the tests.
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
"#;

impl Sandbox {
    /// Gemini CLI's user settings, then `assent setup gemini` as the user.
    pub fn setup_gemini(&self, socket: &Path) {
        let dir = self.home.join(".gemini");
        std::fs::create_dir_all(&dir).expect("~/.gemini is made");
        std::fs::write(dir.join("settings.json"), SETTINGS).expect("settings.json is written");
        self.chown_home();
        let mut setup = self.command(&crate::binary("assent"), socket);
        setup
            .args(["setup", "gemini", "--assent"])
            .arg(self.bin.join("assent"));
        let out = wait_bounded(
            setup.spawn().expect("assent setup starts"),
            crate::PROCESS_TIMEOUT,
        );
        assert!(out.status.success(), "assent setup gemini: {out:?}");
    }

    /// Gemini CLI interactive (`-i PROMPT`) in a terminal of its own as the user, with the
    /// same settings and flags as [`Sandbox::gemini`] but the home outside its workspace (which
    /// it would first ask to trust): for calls in the project. It stays until the pane is
    /// dropped.
    pub fn gemini_interactive(&self, gemini: &Path, model_url: &str, socket: &Path) -> Pane {
        let (uid, gid) = (self.uid.to_string(), self.gid.to_string());
        let text = |p: &Path| p.to_str().expect("test paths are UTF-8").to_string();
        let env: Vec<(String, String)> = [
            ("HOME", text(&self.home)),
            ("USER", self.name.clone()),
            ("LOGNAME", self.name.clone()),
            ("SHELL", "/bin/bash".into()),
            ("LANG", "C.UTF-8".into()),
            ("TERM", "xterm-256color".into()),
            (
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", text(&self.bin)),
            ),
            ("ASSENT_SOCKET", text(socket)),
            ("GOOGLE_GEMINI_BASE_URL", model_url.into()),
            ("GEMINI_API_KEY", "fake-key-for-tests".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let (gemini, project) = (text(gemini), text(&self.project));
        // setpriv has no --chdir: `env -C` starts it in the project.
        let argv = [
            "/usr/bin/setpriv",
            "--reuid",
            &uid,
            "--regid",
            &gid,
            "--clear-groups",
            "/usr/bin/env",
            "-C",
            &project,
            &gemini,
            "-i",
            "Run the scripted steps.",
            "--skip-trust",
            "--approval-mode",
            "yolo",
            "--model",
            "gemini-fake",
        ];
        Pane::start(self.work.path(), &env, &argv)
    }

    /// Run Gemini CLI headless against the fake model at `model_url` (see
    /// [`Sandbox::claude`]), with `env` added to its environment.
    pub fn gemini(
        &self,
        gemini: &Path,
        model_url: &str,
        socket: &Path,
        env: &[(&str, &str)],
        timeout: Duration,
    ) -> (Option<i32>, String) {
        let mut command = self.command(gemini, socket);
        command
            .args(["-p", "Run the scripted steps."])
            .args(["--output-format", "stream-json"])
            .args(["--skip-trust", "--approval-mode", "yolo"])
            .args(["--model", "gemini-fake"])
            // The home in its workspace: Gemini's own check would refuse paths outside the
            // project before the hook is asked.
            .arg("--include-directories")
            .arg(&self.home)
            .env("GOOGLE_GEMINI_BASE_URL", model_url)
            .env("GEMINI_API_KEY", "fake-key-for-tests");
        for (name, value) in env {
            command.env(name, value);
        }
        self.run_agent(command, timeout)
    }
}
