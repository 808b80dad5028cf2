//! Interactive shells with the assent hook, for the hook tests: bash with `assent check` per
//! line, bash with the loadable builtin, and zsh, each in a private tmux server
//! ([`crate::tmux`]) with its own HOME, rc file and PATH in a temporary directory, against a
//! [`TestDaemon`]; and what those tests ask of the daemon (the held request, an answer from
//! elsewhere, the audit events of a line).
//!
//! Safety: these shells are real. `rm` in them is a fake on their PATH that only writes a
//! marker file ([`Shell::expect_fake_rm`] checks it before a line uses it), and [`RISKY`]'s
//! target does not exist anyway.

pub mod scenarios;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use assent_client::protocol::{AuditEvent, Origin, PendingItem};

use crate::tmux::{Pane, fake_program, markers};
use crate::{
    RECV_TIMEOUT, TestDaemon, assent, binary, check, run_detached, verdict_of, wait_until,
};

/// A line the analyser holds (destructive: `rm -r` of a non-temporary path), harmless here.
pub const RISKY: &str = "rm -rf /nonexistent-assent-test/victim";
/// What the fake `rm` writes when that line runs.
pub const RAN: &str = "FAKE-rm -rf /nonexistent-assent-test/victim";

/// Which shell, and how it checks a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// bash, one `assent check` per line (`ASSENT_BUILTIN=off`: the fallback when the builtin
    /// is missing).
    Bash,
    /// bash with the `assent_check` loadable builtin, found next to `assent` ([`Shell::start`]
    /// makes sure it loaded, unless `ASSENT_BUILTIN` is set).
    BashBuiltin,
    /// zsh.
    Zsh,
}

/// An interactive shell with the hook.
pub struct Shell {
    /// Its terminal.
    pub pane: Pane,
    kind: Kind,
    dir: tempfile::TempDir,
}

impl Shell {
    /// Start `kind` on `socket`. `before` and `after` go around the hook's `eval` in the rc
    /// file (which is done twice: sourcing it again is a no-op); `env` is added to, or
    /// overrides, the shell's environment.
    pub fn start(
        kind: Kind,
        socket: &Path,
        before: &str,
        after: &str,
        env: &[(&str, &str)],
    ) -> Shell {
        if kind == Kind::BashBuiltin {
            builtin_so();
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        let t = dir.path();
        for sub in ["home", "work", "run", "zdot"] {
            std::fs::create_dir_all(t.join(sub)).expect("the test directories can be made");
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(t.join("run"), std::fs::Permissions::from_mode(0o700))
            .expect("the runtime directory is ours");
        fake_program(&t.join("bin"), "rm", &t.join("markers"));
        let assent_bin = binary("assent");
        let (name, print, prompt) = match kind {
            Kind::Zsh => ("zsh", "print", "%% "),
            Kind::Bash | Kind::BashBuiltin => ("bash", "echo", "$ "),
        };
        // bash's rc file says which check it ended up with: `builtin`, or nothing.
        let ready = match kind {
            Kind::Zsh => "RC-READY".to_string(),
            Kind::Bash | Kind::BashBuiltin => "\"RC-READY-[$(type -t assent_check)]\"".to_string(),
        };
        let rc = format!(
            "PS1='{prompt}'\n\
             HISTFILE='{t}/home/.{name}_history'\n\
             HISTSIZE=1000\n\
             SAVEHIST=1000\n\
             alias zap='rm -rf'\n\
             alias hi='echo HI-$((7*6))'\n\
             {before}\n\
             eval \"$(\"$ASSENT_BIN\" init {name})\"\n\
             eval \"$(\"$ASSENT_BIN\" init {name})\"\n\
             {after}\n\
             cd '{t}/work'\n\
             {print} {ready}\n",
            t = t.display()
        );
        let rc_path = match kind {
            Kind::Zsh => t.join("zdot/.zshrc"),
            Kind::Bash | Kind::BashBuiltin => t.join("rc.bash"),
        };
        std::fs::write(&rc_path, rc).expect("the rc file is written");
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            t.join("bin").display(),
            assent_bin
                .parent()
                .expect("the binary is in a directory")
                .display()
        );
        let mut vars: Vec<(String, String)> = vec![
            ("HOME".into(), t.join("home").display().to_string()),
            ("ZDOTDIR".into(), t.join("zdot").display().to_string()),
            ("PATH".into(), path),
            ("TERM".into(), "screen".into()),
            ("LANG".into(), "C.UTF-8".into()),
            (
                "XDG_RUNTIME_DIR".into(),
                t.join("run").display().to_string(),
            ),
            ("ASSENT_SOCKET".into(), socket.display().to_string()),
            ("ASSENT_BIN".into(), assent_bin.display().to_string()),
        ];
        if kind == Kind::Bash {
            vars.push(("ASSENT_BUILTIN".into(), "off".into()));
        }
        vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let rc_text = rc_path.to_str().expect("a UTF-8 path");
        let argv: Vec<&str> = match kind {
            // -d: no /etc/zsh files; the rc file is ZDOTDIR's .zshrc.
            Kind::Zsh => vec!["/usr/bin/zsh", "-d", "-i"],
            Kind::Bash | Kind::BashBuiltin => {
                vec!["/usr/bin/bash", "--noprofile", "--rcfile", rc_text, "-i"]
            }
        };
        let pane = Pane::start(t, &vars, &argv);
        pane.wait_text("RC-READY");
        // Unless a test chose otherwise, the check is the builtin in this shell (as the rc
        // file saw it once the hook was loaded: a typed line may not run at all).
        if kind == Kind::BashBuiltin && !env.iter().any(|(k, _)| *k == "ASSENT_BUILTIN") {
            pane.wait_text("RC-READY-[builtin]");
        }
        Shell { pane, kind, dir }
    }

    /// The shell's temporary directory (`home`, `work`, `bin`, the markers).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Where the fake `rm` writes what it was asked to do.
    pub fn marker_file(&self) -> PathBuf {
        self.dir.path().join("markers")
    }

    /// Make sure `rm` in this shell is the fake before typing a line that uses it.
    pub fn expect_fake_rm(&self) {
        let fake = format!("{}/bin/rm", self.dir.path().display());
        match self.kind {
            Kind::Zsh => {
                self.pane.line("command -v rm");
                self.pane.wait_count(&fake, 1);
            }
            Kind::Bash | Kind::BashBuiltin => {
                self.pane.line("type rm");
                self.pane.wait_text(&format!("rm is {fake}"));
            }
        }
    }

    /// Whether [`RISKY`] ran.
    pub fn ran(&self) -> bool {
        markers(&self.marker_file()).contains(RAN)
    }
}

/// The bash builtin, built for this test run next to the `assent` it goes with (where the
/// hook looks for it).
pub fn builtin_so() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let assent = binary("assent");
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("the tests crate sits in the workspace")
                .join("Cargo.toml");
            let mut command = Command::new(cargo);
            command.args(["build", "--quiet", "-p", "assent-bash"]);
            let profile = crate::target_dir()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if profile != "debug" {
                command.args(["--profile", &profile]);
            }
            let status = command
                .arg("--manifest-path")
                .arg(&manifest)
                .stdin(Stdio::null())
                .status();
            assert!(
                matches!(status, Ok(s) if s.success()),
                "cargo build -p assent-bash: {status:?}"
            );
            let so = assent
                .parent()
                .expect("the binary is in a directory")
                .join("libassent_bash.so");
            assert!(so.is_file(), "{} is not built", so.display());
            so
        })
        .clone()
}

/// The one held request, once it is there.
pub fn held(daemon: &TestDaemon) -> PendingItem {
    let mut conn = daemon.connect();
    let mut items = Vec::new();
    assert!(
        wait_until(RECV_TIMEOUT, || {
            items = conn.pending().expect("the pending list");
            !items.is_empty()
        }),
        "nothing was held"
    );
    assert_eq!(items.len(), 1, "one line, one held request: {items:?}");
    items.remove(0)
}

/// The one held request's token, once it is there.
pub fn held_token(daemon: &TestDaemon) -> String {
    held(daemon).token
}

/// Answer as a person at another terminal: `assent approve|deny TOKEN` in a session of its own.
pub fn answer(daemon: &TestDaemon, token: &str, allow: bool) {
    let verb = if allow { "approve" } else { "deny" };
    let mut command = assent(daemon.socket());
    command.args([verb, token]);
    let output = run_detached(&mut command);
    assert!(
        output.status.success(),
        "assent {verb}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The audit events whose command contains `needle`, read through the daemon as `assent log`
/// reads them. An event is recorded before its reply goes, so once the line's output is on the
/// screen its checks are all there; a check of the test's own, recorded after them, marks the
/// end of what there is to count.
pub fn audited(daemon: &TestDaemon, needle: &str) -> Vec<AuditEvent> {
    static SENTINELS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let mut conn = daemon.connect();
    let log = |conn: &mut assent_client::Connection| conn.log(100_000).expect("the log");
    let sentinel = format!(
        "true assent-test-end-of-log-{}-{}",
        std::process::id(),
        SENTINELS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    verdict_of(&mut conn, &check(&sentinel, Origin::Interactive));
    let events = log(&mut conn);
    assert!(
        events.iter().any(|e| e.subject == sentinel),
        "the log holds the test's own check"
    );
    events
        .into_iter()
        .filter(|e| e.subject.contains(needle))
        .collect()
}
