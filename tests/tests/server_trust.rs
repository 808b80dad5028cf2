//! Whose answers a client takes: a socket served by another uid than root or the client's own
//! is not the gate, whatever `--socket` or `ASSENT_SOCKET` says. An agent that serves a socket
//! of its own under another uid, and points a client at it, would otherwise get "allow" for
//! anything. The fake server here answers nothing at all: the client must refuse it before it
//! sends a request. And where the system gate's socket exists, an agent's door uses it whatever
//! `ASSENT_SOCKET` says (tested in a mount namespace with a `/run` of its own).

use std::process::Command;
use std::time::Duration;

use assent_tests::{KillOnDrop, PROCESS_TIMEOUT, assent, run_bounded, wait_until};

/// A SOCK_SEQPACKET listener at `$1` that accepts and keeps its connections open. Run as
/// `/usr/bin/python3`: root's own `python3` may be a shim under `/root`, which nobody can run.
const SERVER: &str = r#"
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])
s.listen(8)
kept = []
while True:
    c, _ = s.accept()
    kept.append(c)
"#;

#[test]
fn a_socket_served_by_another_uid_is_not_the_gate() {
    if !assent_tests::needs::needs(&[assent_tests::needs::PYTHON3])
        || !assent_tests::needs::needs_root("serving a socket as another uid")
    {
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .expect("the dir opens to nobody");
    let socket = dir.path().join("socket");
    let mut server = Command::new("setpriv");
    server
        .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .args(["/usr/bin/python3", "-c", SERVER])
        .arg(&socket);
    let _server = KillOnDrop(Some(server.spawn().expect("setpriv starts")));
    assert!(
        wait_until(PROCESS_TIMEOUT, || socket.exists()),
        "the fake server listens"
    );
    // By the flag and by the environment alike: refused at once, with the reason and the fix.
    let by_flag = run_bounded(assent(&socket).args(["check", "--", "ls"]));
    let mut by_env = assent_tests::our_command("assent");
    by_env
        .env("ASSENT_SOCKET", &socket)
        .args(["check", "--", "ls"]);
    let by_env = run_bounded(&mut by_env);
    for output in [by_flag, by_env] {
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(126), "{said}");
        assert!(
            said.contains("served by uid 65534") && said.contains("neither root nor you"),
            "{said}"
        );
    }
    // `run` never runs the program on such an answer.
    let marker = dir.path().join("ran");
    let run = run_bounded(assent(&socket).args(["run", "--", "touch"]).arg(&marker));
    assert_eq!(run.status.code(), Some(126));
    std::thread::sleep(Duration::from_millis(50));
    assert!(!marker.exists(), "the program ran on an untrusted answer");
}

/// Run in a mount namespace of its own, where `/run` is a fresh tmpfs: `/run/assent/socket` is
/// served by nobody (uid 65534), then the agent's door asks twice, with `ASSENT_SOCKET` naming
/// the real gate and with `--socket` naming it. Prints `env=RC` and `flag=RC`.
const SYSTEM_SOCKET_TAKEN: &str = r#"
mount -t tmpfs none /run || exit 77
mkdir -p /run/assent && chmod 777 /run/assent
setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -c "$SERVER" /run/assent/socket &
i=0
while [ ! -S /run/assent/socket ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
"$ASSENT" check -- ls; echo "env=$?"
"$ASSENT" --socket "$GATE" check -- ls; echo "flag=$?"
kill $!
"#;

/// Where the system gate's socket exists, an agent's door uses it whatever `ASSENT_SOCKET`
/// says (an agent can start itself or its shell with any environment), and takes its answers
/// only from root: here it is served by another uid, so the door refuses it instead of asking
/// the socket `ASSENT_SOCKET` names. Only `--socket` (what a hook's own settings, which the gate
/// protects, name) picks another.
#[test]
fn where_the_system_socket_exists_the_door_ignores_assent_socket() {
    if !assent_tests::needs::needs(&[assent_tests::needs::PYTHON3])
        || !assent_tests::needs::needs_root("a mount namespace with a /run of its own")
    {
        return;
    }
    let gate = assent_tests::TestDaemon::start();
    let mut script = Command::new("unshare");
    script
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg(SYSTEM_SOCKET_TAKEN)
        .env("SERVER", SERVER)
        .env("ASSENT", assent_tests::binary("assent"))
        .env("GATE", gate.socket())
        .env("ASSENT_SOCKET", gate.socket())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = run_bounded(&mut script);
    let said = String::from_utf8_lossy(&output.stdout);
    let errors = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(77), "tmpfs on /run: {errors}");
    assert!(
        said.contains("env=126") && said.contains("flag=0"),
        "stdout: {said}\nstderr: {errors}"
    );
    assert!(
        errors.contains("/run/assent/socket is served by uid 65534"),
        "{errors}"
    );
}
