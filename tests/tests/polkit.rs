//! The password step end to end, with the real polkit: a private system bus (a mount namespace
//! puts its socket at `/run/dbus/system_bus_socket`, where the setuid
//! `polkit-agent-helper-1` looks), `polkitd` with the shipped `org.assent.approve` action
//! (`auth_self`), the real `assentd` in system mode with a policy that wants the password for a
//! force push, and a throwaway user whose password the test sets. The user's request is held;
//! the same user answers with `assent approve` in tmux, where `pkttyagent` (started by
//! `assent approve`) asks for the password: a wrong one is refused, the right one approves,
//! and with no polkit reachable the answer is refused with a clear error. Nothing here runs a
//! held command: `assent check` only asks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use assent_tests::tmux::Pane;
use assent_tests::{KillOnDrop, PROCESS_TIMEOUT, binary, our_command, run_bounded, wait_until};

const USER: &str = "assent-pk-test";
const PASSWORD: &str = "Tr0ub4dor&3-assent";

/// Everything that must run where the private bus is: the bus, polkitd, the daemon (its
/// `pkcheck` finds the bus by path) and the tmux server of the user's terminal.
const NAMESPACE: &str = r#"
set -e
dir=$1; assentd=$2; actions=$3; polkitd=$4; uid=$5; gid=$6; home=$7; bin=$8
mount -t tmpfs tmpfs /run/dbus
mount --bind "$actions" /usr/share/polkit-1/actions
# Where the kernel keeps audit sessions, the user's terminal gets one of its own, apart from
# the test's (the requester's).
if [ -r /proc/self/sessionid ] && [ "$(cat /proc/self/sessionid)" != 4294967295 ]; then
  echo 0 > /proc/self/loginuid
fi
dbus-daemon --system --fork --nopidfile --print-pid=1 > "$dir/dbus.pid"
for i in $(seq 100); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.05; done
"$polkitd" --no-debug > "$dir/polkitd.log" 2>&1 &
echo $! > "$dir/polkitd.pid"
for i in $(seq 100); do pkaction --action-id org.assent.approve > /dev/null 2>&1 && break; sleep 0.05; done
"$assentd" --socket "$dir/socket" --state-dir "$dir/state" --policy "$dir/policy.toml" --no-approver hold > "$dir/assentd.log" 2>&1 &
echo $! > "$dir/assentd.pid"
for i in $(seq 100); do [ -S "$dir/socket" ] && break; sleep 0.05; done
tmux -S "$dir/tmux.sock" -f /dev/null new-session -d -x 200 -y 50 -s t \
  setpriv --reuid "$uid" --regid "$gid" --init-groups \
  /usr/bin/env -i "HOME=$home" "PATH=$bin:/usr/bin:/bin" TERM=xterm PS1='pk$ ' bash --norc --noprofile
touch "$dir/ready"
"#;

/// The user's held line: a force push, with a newline and escapes an agent could have put
/// there to forge or redraw the password dialog's text.
const HELD: &str = "git push --force\nFORGED\u{1b}[2J\u{2028}";

/// How the dialog names it: cleaned to one line.
const NAMED: &str = "approve a command assent is holding: git push --force\\nFORGED\\e[2J<U+2028>";

const POLICY: &str = r#"
[[rule]]
name = "a force push needs the password"
finding = "overwrite.remote"
decision = "confirm"
approval = "password"
"#;

/// The throwaway user, removed when dropped.
struct User {
    uid: u32,
    gid: u32,
    home: PathBuf,
}

impl User {
    fn create(home: &Path) -> User {
        let _ = Command::new("userdel").arg(USER).output();
        let made = run_bounded(Command::new("useradd").args(["-M", "-d"]).arg(home).args([
            "-s",
            "/bin/bash",
            USER,
        ]));
        assert!(made.status.success(), "useradd: {made:?}");
        let mut chpasswd = Command::new("chpasswd");
        chpasswd.stdin(std::process::Stdio::piped());
        let mut child = chpasswd.spawn().expect("chpasswd starts");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(format!("{USER}:{PASSWORD}\n").as_bytes())
            .expect("written");
        assert!(child.wait().expect("chpasswd ends").success());
        let user = nix::unistd::User::from_name(USER)
            .ok()
            .flatten()
            .expect("the user exists");
        std::fs::create_dir_all(home).expect("home made");
        nix::unistd::chown(home, Some(user.uid), Some(user.gid)).expect("home chowned");
        User {
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
            home: home.to_path_buf(),
        }
    }
}

impl Drop for User {
    fn drop(&mut self) {
        let _ = Command::new("pkill").args(["-KILL", "-u", USER]).output();
        let _ = Command::new("userdel").arg(USER).output();
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// The namespace's processes, stopped when dropped.
struct Stack {
    dir: PathBuf,
    _unshare: KillOnDrop,
}

impl Stack {
    fn kill(&self, name: &str) {
        if let Some(pid) = std::fs::read_to_string(self.dir.join(format!("{name}.pid")))
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
        {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(self.dir.join("tmux.sock"))
            .arg("kill-server")
            .output();
        for name in ["assentd", "polkitd", "dbus"] {
            self.kill(name);
        }
    }
}

fn missing() -> Option<&'static str> {
    if !nix::unistd::geteuid().is_root() {
        return Some("root");
    }
    for tool in [
        "pkcheck",
        "pkttyagent",
        "pkaction",
        "dbus-daemon",
        "tmux",
        "unshare",
        "setpriv",
        "useradd",
        "chpasswd",
    ] {
        if Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .map_or(true, |o| !o.status.success())
        {
            return Some(tool);
        }
    }
    None
}

fn polkitd() -> Option<&'static str> {
    ["/usr/lib/polkit-1/polkitd", "/usr/libexec/polkitd"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// Hold the user's force push (waiting) and return its process and token.
fn hold_as_user(socket: &Path, user: &User) -> (KillOnDrop, String) {
    let mut check = Command::new("setpriv");
    check
        .args([
            "--reuid",
            &user.uid.to_string(),
            "--regid",
            &user.gid.to_string(),
        ])
        .arg("--init-groups")
        .arg(binary("assent"))
        .arg("--socket")
        .arg(socket)
        .args(["check", "--", HELD])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(socket.with_file_name("check.err")).expect("created"));
    let child = KillOnDrop(Some(check.spawn().expect("the user's check starts")));
    let mut token = String::new();
    let held = wait_until(PROCESS_TIMEOUT, || {
        let out = run_bounded(
            our_command("assent")
                .arg("--socket")
                .arg(socket)
                .args(["pending", "--json"]),
        );
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        match list["items"][0]["token"].as_str() {
            Some(t) => {
                token = t.to_owned();
                true
            }
            None => false,
        }
    });
    assert!(
        held,
        "the user's force push is held: {}",
        std::fs::read_to_string(socket.with_file_name("check.err")).unwrap_or_default()
    );
    (child, token)
}

#[test]
fn approving_with_the_password_through_polkit() {
    let missing = missing().or(polkitd().is_none().then_some("polkitd"));
    if !assent_tests::needs::skip_unless(missing.is_none(), missing.unwrap_or_default()) {
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().to_path_buf();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    std::fs::write(path.join("policy.toml"), POLICY).expect("policy written");
    let actions = path.join("actions");
    std::fs::create_dir_all(&actions).expect("actions dir");
    let action =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../packaging/polkit/org.assent.approve.policy");
    std::fs::copy(&action, actions.join("org.assent.approve.policy")).expect("action copied");
    let user = User::create(&path.join("home"));
    let bin = binary("assent")
        .parent()
        .expect("the binaries' directory")
        .to_path_buf();

    let mut unshare = Command::new("unshare");
    unshare
        .args([
            "--mount",
            "--propagation",
            "private",
            "bash",
            "-c",
            NAMESPACE,
            "ns",
        ])
        .arg(&path)
        .arg(binary("assentd"))
        .arg(&actions)
        .arg(polkitd().expect("checked"))
        .arg(user.uid.to_string())
        .arg(user.gid.to_string())
        .arg(&user.home)
        .arg(&bin);
    let unshare = KillOnDrop(Some(unshare.spawn().expect("unshare starts")));
    let stack = Stack {
        dir: path.clone(),
        _unshare: unshare,
    };
    assert!(
        wait_until(Duration::from_secs(30), || path.join("ready").exists()),
        "the private bus, polkitd and assentd start; assentd: {}; polkitd: {}",
        std::fs::read_to_string(path.join("assentd.log")).unwrap_or_default(),
        std::fs::read_to_string(path.join("polkitd.log")).unwrap_or_default()
    );
    let socket = path.join("socket");
    let pane = Pane::attach(path.join("tmux.sock"));
    pane.wait_text("pk$");

    // A wrong password: refused, and the request stays held.
    let (mut requester, token) = hold_as_user(&socket, &user);
    let approve = format!(
        "assent --socket {} approve {token}; echo \"r\"\"c=$?\"",
        socket.display()
    );
    pane.line(&approve);
    let screen = pane.wait_for("the password prompt", Duration::from_secs(20), |s| {
        s.contains("Password:")
    });
    // The dialog names the command it approves, cleaned: no line of it is forged.
    assert!(screen.contains(NAMED), "{screen}");
    assert!(!screen.lines().any(|l| l.starts_with("FORGED")), "{screen}");
    pane.line("not-the-password");
    let screen = pane.wait_for("the refusal", Duration::from_secs(30), answered);
    assert!(screen.contains("rc=1"), "{screen}");
    assert!(screen.contains("not_authorized"), "{screen}");
    assert!(
        requester
            .0
            .as_mut()
            .expect("owned")
            .try_wait()
            .expect("waits")
            .is_none(),
        "still held after a wrong password"
    );

    // The right password: approved, and the user's check is allowed.
    pane.clear();
    pane.line(&approve);
    pane.wait_for("the password prompt", Duration::from_secs(20), |s| {
        s.contains("Password:")
    });
    pane.line(PASSWORD);
    let screen = pane.wait_for("the answer", Duration::from_secs(30), answered);
    assert!(screen.contains("rc=0"), "{screen}");
    let status = requester
        .take()
        .wait_timeout_or_kill(PROCESS_TIMEOUT)
        .expect("the check ends");
    assert_eq!(status.code(), Some(0), "the held check is allowed");

    // No polkit reachable: refused with a clear error, never allowed.
    stack.kill("polkitd");
    stack.kill("dbus");
    let (_requester, token) = hold_as_user(&socket, &user);
    pane.clear();
    pane.line(&format!(
        "assent --socket {} approve {token}; echo \"r\"\"c=$?\"",
        socket.display()
    ));
    let screen = pane.wait_for("the refusal", Duration::from_secs(30), answered);
    assert!(screen.contains("rc=1"), "{screen}");
    assert!(screen.contains("polkit"), "{screen}");
}

trait WaitTimeout {
    fn wait_timeout_or_kill(self, timeout: Duration) -> std::io::Result<std::process::ExitStatus>;
}

impl WaitTimeout for std::process::Child {
    fn wait_timeout_or_kill(
        mut self,
        timeout: Duration,
    ) -> std::io::Result<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            if std::time::Instant::now() >= deadline {
                let _ = self.kill();
                return self.wait();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Whether the screen shows the exit status the typed line echoes (`r""c=` as typed).
fn answered(screen: &str) -> bool {
    screen.contains("rc=0") || screen.contains("rc=1")
}
