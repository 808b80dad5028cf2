//! Gemini CLI in a [`Sandbox`]: its settings, the hook `assent setup gemini` installs, and a
//! headless run against the fake model.
//!
//! Gemini CLI takes the model's address from `GOOGLE_GEMINI_BASE_URL` (which also selects its
//! "gateway" authentication) and a key from `GEMINI_API_KEY`; `-p` runs it headless, `--skip-trust`
//! trusts the project for the run, `--approval-mode yolo` keeps its own confirmations out of
//! the way and `--include-directories HOME` its own workspace check (which refuses a path
//! outside the project before any hook), so that the gate is the only thing between the model
//! and the command.

use std::path::Path;
use std::time::Duration;

use super::Sandbox;
use crate::process::wait_bounded;

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
