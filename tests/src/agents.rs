//! The real coding agents, installed from npm and run headless under a user of their own.
//!
//! [`claude_code`], [`codex`] and [`gemini`] install the agents pinned in `tests/agents/package-lock.json` into
//! `TARGET/agents` with an npm cache of its own there (`npm ci`), once per test run: a file
//! lock serialises the test processes, and a copy of the lock file beside the install says it
//! is done, so a changed pin installs again. [`Sandbox`] is one test's world: an unprivileged
//! user whose home is in the user database (the daemon places `~` from there, not from the
//! agent's environment), that home with a project in it, and a fake `rm` first on `PATH`.
//! [`Sandbox::claude`], [`Sandbox::codex`] and [`Sandbox::gemini`] run an agent against a
//! [`FakeModel`](crate::fake_model) with the hook `assent setup` installs, telemetry and
//! updates off.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use crate::needs::{NODE, NPM, needs, needs_root};
use crate::process::{target_dir, wait_bounded};
use crate::wait_until;

mod gemini;

/// How long `npm ci` may take (it fetches about 70 MB the first time).
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);

/// The `claude` program pinned for the tests, installed if it is not yet; `None` when the
/// machine cannot run it (the test is to return: see [`needs`]).
pub fn claude_code() -> Option<PathBuf> {
    Some(installed()?.join("node_modules/.bin/claude"))
}

/// The `codex` program pinned for the tests (see [`claude_code`]).
pub fn codex() -> Option<PathBuf> {
    Some(installed()?.join("node_modules/.bin/codex"))
}

/// The `gemini` program pinned for the tests (see [`claude_code`]).
pub fn gemini() -> Option<PathBuf> {
    Some(installed()?.join("node_modules/.bin/gemini"))
}

/// Where the pinned agents are installed, installing them if they are not yet.
fn installed() -> Option<PathBuf> {
    if !needs(&[NODE, NPM]) || !needs_root("the agent runs as a user of its own") {
        return None;
    }
    static INSTALLED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let installed = INSTALLED.get_or_init(|| {
        let dir = target_dir().join("agents");
        install(&dir)?;
        Ok(dir)
    });
    match installed {
        Ok(dir) => Some(dir.clone()),
        Err(why) => panic!("the agents could not be installed: {why}"),
    }
}

/// `npm ci` the pinned agents into `dir`, unless the install there is of the same lock file.
fn install(dir: &Path) -> Result<(), String> {
    let pins = Path::new(env!("CARGO_MANIFEST_DIR")).join("agents");
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Other users run the agent from here.
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
    let lock = std::fs::File::create(dir.join("install.lock")).map_err(|e| e.to_string())?;
    lock.lock()
        .map_err(|e| format!("locking the install: {e}"))?;
    let wanted = std::fs::read(pins.join("package-lock.json")).map_err(|e| e.to_string())?;
    let done = dir.join("installed-lock.json");
    if std::fs::read(&done).is_ok_and(|had| had == wanted) {
        return Ok(());
    }
    let _ = std::fs::remove_file(&done);
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(pins.join(file), dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
    }
    let child = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--prefix"])
        .arg(dir)
        .arg("--cache")
        .arg(dir.join(".npm"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("npm: {e}"))?;
    let output = wait_bounded(child, INSTALL_TIMEOUT);
    if !output.status.success() {
        return Err(format!(
            "npm ci failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    std::fs::write(&done, wanted).map_err(|e| e.to_string())
}

/// One test's user, home, project and fake `rm`; the home is removed when dropped.
pub struct Sandbox {
    /// The user's name.
    pub name: String,
    /// Its uid and gid.
    pub uid: u32,
    pub gid: u32,
    /// Its home, the user database's: `/home/NAME`, made afresh.
    pub home: PathBuf,
    /// The project the agent works in (`HOME/project`).
    pub project: PathBuf,
    /// A directory first on the agent's `PATH`: the fake `rm`, and `assent`.
    pub bin: PathBuf,
    /// The file the fake `rm` appends its arguments to, one line a run.
    pub rm_log: PathBuf,
    /// Where the agent's and the tests' files outside the home go.
    pub work: tempfile::TempDir,
}

/// The fake `rm`: it deletes nothing and logs each run.
/// Logs its arguments and the program that started it (`bash`: a shell ran it, confined in
/// place or not; `assent`: a door did).
const FAKE_RM: &str =
    "#!/bin/sh\necho \"$* by $(cat /proc/$PPID/comm)\" >> \"$(dirname \"$0\")/../rm.log\"\n";

impl Sandbox {
    /// The user `name` (made with `useradd` if it does not exist yet) with a fresh home.
    pub fn new(name: &str) -> Sandbox {
        let work = tempfile::tempdir().expect("a temporary directory");
        std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))
            .expect("the temporary directory is ours");
        // Under /home as a person's is: a home under /tmp would be a temporary directory
        // to the gate, where deleting is routine.
        let home = Path::new("/home").join(name);
        if home.exists() {
            std::fs::remove_dir_all(&home).expect("the last run's home is removed");
        }
        // useradd and usermod lock the user database and give up when another holds it, so
        // this process's tests change it one at a time.
        static USERS: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one_at_a_time = USERS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let existing = nix::unistd::User::from_name(name).ok().flatten();
        let made = match existing {
            Some(_) => Command::new("usermod")
                .arg("-d")
                .arg(&home)
                .arg(name)
                .output(),
            None => Command::new("useradd")
                .args(["-M", "-s", "/bin/sh", "-d"])
                .arg(&home)
                .arg(name)
                .output(),
        }
        .expect("useradd and usermod run");
        // Another test process may have made the same user a moment ago.
        let user = nix::unistd::User::from_name(name)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("user {name} could not be made: {made:?}"));
        if user.dir != home {
            let moved = Command::new("usermod")
                .arg("-d")
                .arg(&home)
                .arg(name)
                .output();
            assert!(
                moved.as_ref().is_ok_and(|o| o.status.success()),
                "usermod: {moved:?}"
            );
        }
        let (uid, gid) = (user.uid.as_raw(), user.gid.as_raw());
        let project = home.join("project");
        let bin = work.path().join("bin");
        // The project is a repository, as an agent's is: in the home only a repository (or a
        // directory the policy names) is a project; anywhere else there the home's rules apply.
        for dir in [&home, &project.join(".git"), &bin] {
            std::fs::create_dir_all(dir).expect("the sandbox's directories are made");
        }
        std::fs::write(bin.join("rm"), FAKE_RM).expect("the fake rm is written");
        std::fs::set_permissions(bin.join("rm"), std::fs::Permissions::from_mode(0o755))
            .expect("the fake rm is executable");
        // A copy, not a link into the build tree: `setup --check` fails a hook whose program
        // `cargo clean` removes, as it should for a person.
        std::fs::copy(crate::binary("assent"), bin.join("assent"))
            .expect("assent is copied into the sandbox's PATH");
        // And the bash builtin beside it, as the package installs both: a rewritten call then
        // confines the agent's own shell in place, as a person's would.
        std::fs::copy(crate::shells::builtin_so(), bin.join("libassent_bash.so"))
            .expect("the builtin is copied beside assent");
        let rm_log = work.path().join("rm.log");
        std::fs::write(&rm_log, "").expect("the rm log is made");
        std::fs::set_permissions(&rm_log, std::fs::Permissions::from_mode(0o666))
            .expect("the rm log is writable");
        let sandbox = Sandbox {
            name: name.to_string(),
            uid,
            gid,
            home,
            project,
            bin,
            rm_log,
            work,
        };
        sandbox.chown_home();
        sandbox
    }

    /// Give everything in the home to the user (call after writing into it as root). An agent
    /// running meanwhile makes and removes its own files there: one gone before `chown` got to
    /// it is no failure.
    pub fn chown_home(&self) {
        let out = Command::new("chown")
            .arg("-R")
            .arg(format!("{}:{}", self.uid, self.gid))
            .arg(&self.home)
            .output()
            .expect("chown runs");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success()
                || said
                    .lines()
                    .all(|line| line.contains("No such file or directory")),
            "chown of the home: {out:?}"
        );
    }

    /// How many times the fake `rm` ran.
    pub fn rm_runs(&self) -> usize {
        self.rm_starts().len()
    }

    /// The program that started the fake `rm`, each time it ran.
    pub fn rm_starts(&self) -> Vec<String> {
        std::fs::read_to_string(&self.rm_log)
            .unwrap_or_default()
            .lines()
            .map(|line| line.rsplit(" by ").next().unwrap_or_default().to_owned())
            .collect()
    }

    /// A command that runs as the user, in its project, with a clean environment of its own,
    /// in an audit session of its own where the kernel keeps them (as a login gives one: root
    /// sets the loginuid, then drops to the user), so that what the agent leaves behind keeps
    /// it however it double-forks and whatever session it makes.
    pub fn command(&self, program: &Path, socket: &Path) -> Command {
        let mut command = Command::new("/bin/sh");
        command
            .args([
                "-c",
                r#"u=$1 g=$2; shift 2; echo "$u" > /proc/self/loginuid 2>/dev/null; exec /usr/bin/setpriv --reuid "$u" --regid "$g" --clear-groups -- "$0" "$@""#,
            ])
            .arg(program)
            .arg(self.uid.to_string())
            .arg(self.gid.to_string());
        command
            .env_clear()
            .env("HOME", &self.home)
            .env("USER", &self.name)
            .env("LOGNAME", &self.name)
            .env("SHELL", "/bin/bash")
            .env("LANG", "C.UTF-8")
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin.display()),
            )
            .env("ASSENT_SOCKET", socket)
            .current_dir(&self.project)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// `assent setup claude-code` as the user: the hook into `~/.claude/settings.json`.
    pub fn setup_claude_code(&self, socket: &Path) {
        self.setup_claude_code_with(socket, &[]);
    }

    /// `assent setup claude-code EXTRA...` as the user (`--defer`).
    pub fn setup_claude_code_with(&self, socket: &Path, extra: &[&str]) {
        let mut setup = self.command(&crate::binary("assent"), socket);
        setup
            .args(["setup", "claude-code"])
            .args(extra)
            .arg("--assent")
            .arg(self.bin.join("assent"));
        let out = wait_bounded(
            setup.spawn().expect("assent setup starts"),
            crate::PROCESS_TIMEOUT,
        );
        assert!(out.status.success(), "assent setup claude-code: {out:?}");
    }

    /// Run Claude Code headless against the fake model at `model_url`, for at most `timeout`
    /// (then its process group is killed and the test fails with what it printed); the hook
    /// asks the daemon on `socket`. Returns its exit status and what it printed.
    pub fn claude(
        &self,
        claude: &Path,
        model_url: &str,
        socket: &Path,
        timeout: Duration,
    ) -> (Option<i32>, String) {
        let mut command = self.command(claude, socket);
        command
            .args(["-p", "Run the scripted steps."])
            .args(["--output-format", "stream-json", "--verbose"])
            .env("ANTHROPIC_BASE_URL", model_url)
            .env("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-tests")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        self.run_agent(command, timeout)
    }

    /// Codex's configuration: the fake model at `model_url` as a custom provider (Responses
    /// API), no login shells (whose `/etc/profile` would put the real `rm` first), then the hook `assent setup codex` installs (`hooks.json`, and hooks switched on).
    pub fn setup_codex(&self, model_url: &str, socket: &Path) {
        let dir = self.home.join(".codex");
        std::fs::create_dir_all(&dir).expect("~/.codex is made");
        let config = format!(
            "model = \"gpt-fake\"\nmodel_provider = \"fake\"\nallow_login_shell = false\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{model_url}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_MODEL_KEY\"\n"
        );
        std::fs::write(dir.join("config.toml"), config).expect("config.toml is written");
        self.chown_home();
        let mut setup = self.command(&crate::binary("assent"), socket);
        setup
            .args(["setup", "codex", "--assent"])
            .arg(self.bin.join("assent"));
        let out = wait_bounded(
            setup.spawn().expect("assent setup starts"),
            crate::PROCESS_TIMEOUT,
        );
        assert!(out.status.success(), "assent setup codex: {out:?}");
    }

    /// `assent setup --check TARGET` as the user: its exit code and what it printed.
    pub fn setup_check(&self, socket: &Path, target: &str) -> (Option<i32>, String) {
        let mut check = self.command(&self.bin.join("assent"), socket);
        check.args(["setup", "--check", target]);
        let out = wait_bounded(
            check.spawn().expect("assent setup starts"),
            crate::PROCESS_TIMEOUT,
        );
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), said)
    }

    /// Trust every hook Codex lists as not trusted yet, as a person does in its `/hooks`: ask `codex app-server`
    /// (`hooks/list`) for each hook's key and current hash, and record them in `config.toml`
    /// as `[hooks.state."KEY"] trusted_hash = "HASH"`, where Codex keeps that trust. Returns
    /// the keys trusted.
    pub fn trust_codex_hooks(&self, codex: &Path, socket: &Path) -> Vec<String> {
        let hooks: Vec<(String, String)> = self
            .codex_hooks(codex, socket)
            .iter()
            .filter(|hook| hook["trustStatus"] != "trusted")
            .filter_map(|hook| {
                Some((
                    hook["key"].as_str()?.to_string(),
                    hook["currentHash"].as_str()?.to_string(),
                ))
            })
            .collect();
        let config = self.home.join(".codex/config.toml");
        let mut text = std::fs::read_to_string(&config).expect("config.toml is there");
        for (key, hash) in &hooks {
            let quote = |s: &str| serde_json::Value::String(s.to_string()).to_string();
            text.push_str(&format!(
                "\n[hooks.state.{}]\ntrusted_hash = {}\n",
                quote(key),
                quote(hash)
            ));
        }
        std::fs::write(&config, text).expect("config.toml is written");
        hooks.into_iter().map(|(key, _)| key).collect()
    }

    /// The hooks Codex lists (`codex app-server`, `hooks/list`), as it reports them: `key`,
    /// `command`, `currentHash`, `trustStatus` (`trusted`, `untrusted`, `modified`) and more.
    pub fn codex_hooks(&self, codex: &Path, socket: &Path) -> Vec<serde_json::Value> {
        let mut command = self.command(codex, socket);
        command
            .arg("app-server")
            .env("CODEX_HOME", self.home.join(".codex"))
            .stdin(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let mut child = command.spawn().expect("codex app-server starts");
        let requests = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"assent-tests","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"initialized"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{}}"#,
        ];
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                let reply: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                if reply["id"] == 2 {
                    let _ = tx.send(reply);
                    return;
                }
            }
        });
        {
            use std::io::Write;
            for request in requests {
                let _ = writeln!(stdin, "{request}");
            }
        }
        let reply = rx.recv_timeout(crate::PROCESS_TIMEOUT);
        let group = nix::unistd::Pid::from_raw(-(child.id() as i32));
        let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
        let _ = child.wait();
        let reply = reply.expect("codex app-server answers hooks/list");
        reply["result"]["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| entry["hooks"].as_array())
            .flatten()
            .cloned()
            .collect()
    }

    /// Run `codex exec` headless (see [`Sandbox::claude`]); `extra` goes before the prompt.
    pub fn codex(
        &self,
        codex: &Path,
        socket: &Path,
        extra: &[&str],
        timeout: Duration,
    ) -> (Option<i32>, String) {
        let mut command = self.command(codex, socket);
        command
            .args(["exec", "--skip-git-repo-check"])
            .args(extra)
            .arg("Run the scripted steps.")
            .env("CODEX_HOME", self.home.join(".codex"))
            .env("FAKE_MODEL_KEY", "fake-key-for-tests");
        self.run_agent(command, timeout)
    }

    /// Run an agent's `command` with its output in a file, for at most `timeout`.
    pub(crate) fn run_agent(
        &self,
        mut command: Command,
        timeout: Duration,
    ) -> (Option<i32>, String) {
        let out = self.work.path().join("agent.out");
        let file = std::fs::File::create(&out).expect("the agent's output file is made");
        let err = file.try_clone().expect("the output file can be shared");
        command.stdout(file).stderr(err).process_group(0);
        let mut child = command.spawn().expect("the agent starts");
        let mut status = None;
        wait_until(timeout, || {
            status = child.try_wait().ok().flatten();
            status.is_some()
        });
        let printed = std::fs::read_to_string(&out).unwrap_or_default();
        let Some(status) = status else {
            let group = nix::unistd::Pid::from_raw(-(child.id() as i32));
            let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            panic!("the agent did not finish within {timeout:?}; it printed:\n{printed}");
        };
        (status.code(), printed)
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// Writes `approve-all.sh` into `project`: a script an agent's background job runs to approve
/// whatever the agent's user has held, the attack the daemon must refuse. The gate reads a
/// script the line runs, and would refuse `assent approve` in it before it ran; so the script
/// runs a compiled approver (a copy of `assent-test-approver`, which the gate judges as a
/// program file it cannot read), and it is the daemon that must refuse its answers.
pub fn write_self_approver(project: &Path, socket: &Path) {
    let approver = project.join("approver");
    std::fs::copy(crate::process::binary("assent-test-approver"), &approver)
        .expect("the approver is copied");
    std::fs::set_permissions(&approver, std::fs::Permissions::from_mode(0o755))
        .expect("the approver is made executable");
    // The job finds the socket as it runs: a script that names the gate's socket is the gate's
    // own to the analyser and would be refused before it ran, and this test is of the daemon
    // refusing an answer from the agent's own processes.
    std::fs::write(
        project.join("socket.txt"),
        socket.as_os_str().as_encoded_bytes(),
    )
    .expect("written");
    let script = "sleep 2\n./approver --socket-file socket.txt race-all 8000\necho approve tried\n";
    std::fs::write(project.join("approve-all.sh"), script).expect("written");
}

/// Wait at most `timeout` for the one request held on `daemon`; its token.
pub fn held(daemon: &crate::TestDaemon, timeout: Duration) -> Option<String> {
    let mut conn = daemon.connect();
    let mut tokens = Vec::new();
    wait_until(timeout, || {
        tokens = crate::pending_tokens(&mut conn);
        !tokens.is_empty()
    });
    tokens.into_iter().next()
}
