//! The daemon refuses an answer from what the requesting agent started, in whatever session:
//! a fake agent (a shell, its own session's leader) holds a request, then tries to approve it
//! from a child in a new POSIX session (`setsid assent approve`) and from a raw socket client
//! of its own (python3 sending the answer's bytes). Both are refused as `self_approval` and the
//! audit trail names the chain; a person at another terminal (a process the agent did not
//! start) approves it. Where the kernel keeps audit sessions, one audit session is one session
//! whatever the POSIX ones. Nothing here runs a held command: `assent check` only asks.

use std::path::Path;
use std::time::Duration;

use assent_client::codec::{decode_response, encode_request};
use assent_client::protocol::{ErrorKind, Remember, Request, Response};
use assent_tests::{
    KillOnDrop, PROCESS_TIMEOUT, TestDaemon, assent, binary, in_new_session, pending_tokens,
    run_bounded, run_detached, wait_until,
};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .filter_map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// The fake agent: it asks (the request waits), then, once the test has written the token,
/// answers it itself in two ways and records what happened.
const AGENT: &str = r#"
dir=$1; assent=$2; socket=$3
("$assent" --socket "$socket" check -- 'git push --force' > "$dir/check.out" 2>&1; echo $? > "$dir/check.rc") &
while [ ! -s "$dir/token" ]; do sleep 0.05; done
token=$(cat "$dir/token")
setsid "$assent" --socket "$socket" approve "$token" > "$dir/setsid.out" 2>&1
echo $? > "$dir/setsid.rc"
python3 - "$socket" "$(cat "$dir/answer.hex")" > "$dir/raw.out" 2>&1 <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(bytes.fromhex(sys.argv[2]))
print(s.recv(131072).hex())
PY
echo done > "$dir/tried"
wait
"#;

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

#[test]
fn what_the_agent_started_may_not_answer_and_a_person_elsewhere_may() {
    if !assent_tests::needs::needs(&[assent_tests::needs::PYTHON3]) {
        return;
    }
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    let answer = |token: &str| Request::Answer {
        token: token.into(),
        allow: true,
        session: None,
        item: None,
        remember: Remember::Once,
    };
    let mut agent = std::process::Command::new("bash");
    agent
        .args(["-c", AGENT, "agent"])
        .arg(dir.path())
        .arg(binary("assent"))
        .arg(daemon.socket());
    // The agent leads a session of its own, as an agent started from a terminal is below one.
    let agent = KillOnDrop(Some(
        in_new_session(&mut agent).spawn().expect("bash starts"),
    ));
    let mut conn = daemon.connect();
    let mut tokens = Vec::new();
    assert!(
        wait_until(PROCESS_TIMEOUT, || {
            tokens = pending_tokens(&mut conn);
            !tokens.is_empty()
        }),
        "the agent's request is held"
    );
    let token = tokens[0].clone();
    let packet = encode_request(&answer(&token)).expect("the answer encodes");
    std::fs::write(dir.path().join("answer.hex"), hex(&packet)).expect("written");
    std::fs::write(dir.path().join("token"), &token).expect("written");
    assert!(
        wait_until(PROCESS_TIMEOUT, || dir.path().join("tried").exists()),
        "the agent tried to answer"
    );

    // (a) Its child in a new session: refused, and told why.
    assert_eq!(read(dir.path(), "setsid.rc").trim(), "1");
    let said = read(dir.path(), "setsid.out");
    assert!(said.contains("self_approval"), "{said}");
    assert!(said.contains("descends from"), "{said}");
    // (b) A raw socket client it started: refused.
    let raw = unhex(read(dir.path(), "raw.out").trim());
    match decode_response(&raw) {
        Ok(Response::Error(error)) => assert_eq!(error.kind, ErrorKind::SelfApproval, "{error:?}"),
        other => panic!("the raw client's answer was not refused: {other:?}"),
    }
    assert_eq!(pending_tokens(&mut conn), vec![token.clone()], "still held");
    // The audit trail names the chain.
    let log = run_bounded(assent(daemon.socket()).args(["log", "-n", "20", "--json"]));
    let log = String::from_utf8_lossy(&log.stdout);
    let agent_pid = agent.pid().as_raw();
    assert!(
        log.contains("answer refused (self_approval)")
            && log.contains(&format!("{agent_pid} (bash)")),
        "{log}"
    );

    // (c) A person at another terminal: accepted, and the agent's check is allowed.
    let person = run_detached(assent(daemon.socket()).args(["approve", &token]));
    assert_eq!(person.status.code(), Some(0), "{person:?}");
    assert!(
        wait_until(PROCESS_TIMEOUT, || read(dir.path(), "check.rc").trim()
            == "0"),
        "{}",
        read(dir.path(), "check.out")
    );
    drop(agent);
}

/// A fake coding agent shaped as Claude Code and Codex are: a program that is not a shell
/// (here python3), which runs its hook through `sh` in a session of its own, so the hook's
/// session leader is not the agent; and its background jobs, which try to answer the held
/// request: a child of the agent in a session of its own, an orphan that left the agent's
/// process tree by a double fork but kept its session, and a child that registers as an
/// approval agent. `assent check` only asks: nothing held runs here.
const HOOKED_AGENT: &str = r#"
import os, subprocess, sys, time
dir, assent, socket, approver = sys.argv[1:5]
def file(name):
    return os.path.join(dir, name)
hook = subprocess.Popen(
    ["sh", "-c", '"$0" --socket "$1" check -- "git push --force" > "$2/check.out" 2>&1; echo $? > "$2/check.rc"',
     assent, socket, dir],
    start_new_session=True)
while not os.path.exists(file("token")) or not open(file("token")).read():
    time.sleep(0.05)
token = open(file("token")).read()
answer = '"$0" --socket "$1" approve "$2" > "$3.out" 2>&1; echo $? > "$3.rc"'
# A background job in a session of its own: still the agent's child.
subprocess.run(["sh", "-c", answer, assent, socket, token, file("child")], start_new_session=True)
# A double fork: the job's parent exits, so it is reparented away from the agent; it keeps
# the agent's session.
subprocess.run(["sh", "-c", '(sleep 0.3; ' + answer + ') & exit 0', assent, socket, token, file("orphan")])
while not os.path.exists(file("orphan.rc")):
    time.sleep(0.05)
# Its child registering as an approval agent, to be pushed the request and allow it.
with open(file("register.out"), "w") as out:
    subprocess.run([approver, "--socket", socket, "agent", "allow", "once", "1"],
                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True, timeout=20)
open(file("tried"), "w").write("done")
hook.wait()
"#;

#[test]
fn an_agent_whose_hook_leads_its_own_session_cannot_answer_from_its_background_jobs() {
    if !assent_tests::needs::needs(&[assent_tests::needs::PYTHON3]) {
        return;
    }
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut agent = std::process::Command::new("python3");
    agent
        .args(["-c", HOOKED_AGENT])
        .arg(dir.path())
        .arg(binary("assent"))
        .arg(daemon.socket())
        .arg(binary("assent-test-approver"));
    let agent = KillOnDrop(Some(
        in_new_session(&mut agent).spawn().expect("python3 starts"),
    ));
    let mut conn = daemon.connect();
    let mut tokens = Vec::new();
    assert!(
        wait_until(PROCESS_TIMEOUT, || {
            tokens = pending_tokens(&mut conn);
            !tokens.is_empty()
        }),
        "the agent's request is held"
    );
    let token = tokens[0].clone();
    std::fs::write(dir.path().join("token"), &token).expect("written");
    assert!(
        wait_until(PROCESS_TIMEOUT, || dir.path().join("tried").exists()),
        "the agent's jobs tried to answer"
    );
    let agent_pid = agent.pid().as_raw();
    // Its child, in a session of its own: below the agent, though not below the hook's session.
    assert_eq!(read(dir.path(), "child.rc").trim(), "1");
    let said = read(dir.path(), "child.out");
    assert!(
        said.contains("self_approval") && said.contains(&format!("{agent_pid} (python3)")),
        "{said}"
    );
    // The orphan: no longer below the agent, still in its session.
    assert_eq!(read(dir.path(), "orphan.rc").trim(), "1");
    let said = read(dir.path(), "orphan.out");
    assert!(
        said.contains("self_approval") && said.contains("POSIX session"),
        "{said}"
    );
    // Its child may not become an approval agent.
    let said = read(dir.path(), "register.out");
    assert!(said.starts_with("self_approval"), "{said}");
    assert_eq!(pending_tokens(&mut conn), vec![token.clone()], "still held");
    // The request names the agent, not its hook's shell or the client.
    let listed = run_bounded(assent(daemon.socket()).arg("pending"));
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("python3"), "{listed}");

    // A person at another terminal: accepted, and the agent's check is allowed.
    let person = run_detached(assent(daemon.socket()).args(["approve", &token]));
    assert_eq!(person.status.code(), Some(0), "{person:?}");
    assert!(
        wait_until(PROCESS_TIMEOUT, || read(dir.path(), "check.rc").trim()
            == "0"),
        "{}",
        read(dir.path(), "check.out")
    );
    drop(agent);
}

/// A shell in an audit session of its own (root can start one by writing its loginuid) that
/// asks in a POSIX session of its own, then answers from a process that is not below it (a
/// double fork) and not in its POSIX session, but shares the audit session.
const AUDIT: &str = r#"
dir=$1; assent=$2; socket=$3
echo 0 > /proc/self/loginuid || exit 77
(setsid "$assent" --socket "$socket" check -- 'git push --force' > "$dir/check.out" 2>&1; echo $? > "$dir/check.rc") &
while [ ! -s "$dir/token" ]; do sleep 0.05; done
# Left the shell's tree (a double fork) and its POSIX session: only the audit session is shared.
(setsid sh -c 'sleep 0.3; "$0" --socket "$1" approve "$2" > "$3/same.out" 2>&1; echo $? > "$3/same.rc"' \
  "$assent" "$socket" "$(cat "$dir/token")" "$dir" &)
while [ ! -e "$dir/same.rc" ]; do sleep 0.05; done
wait
"#;

#[test]
fn one_audit_session_is_one_session_whatever_the_posix_sessions() {
    let ours = std::fs::read_to_string("/proc/self/sessionid").ok();
    let can = ours.is_some() && nix::unistd::geteuid().is_root();
    if !assent_tests::needs::skip_unless(can, "root and the kernel's audit sessions") {
        return;
    }
    let daemon = TestDaemon::start();
    let status = run_bounded(assent(daemon.socket()).arg("status"));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains("sessions: audit sessions"), "{status}");

    let dir = tempfile::tempdir().expect("a temp dir");
    let mut shell = std::process::Command::new("sh");
    shell
        .args(["-c", AUDIT, "audit"])
        .arg(dir.path())
        .arg(binary("assent"))
        .arg(daemon.socket());
    let mut shell = KillOnDrop(Some(in_new_session(&mut shell).spawn().expect("sh starts")));
    let mut conn = daemon.connect();
    let mut tokens = Vec::new();
    let held = wait_until(PROCESS_TIMEOUT, || {
        tokens = pending_tokens(&mut conn);
        !tokens.is_empty()
    });
    if !held {
        let status = shell.take().wait().expect("sh ends");
        assert_ne!(
            status.code(),
            Some(77),
            "root could not start an audit session"
        );
        panic!("the request was not held: {status:?}");
    }
    std::fs::write(dir.path().join("token"), &tokens[0]).expect("written");
    assert!(wait_until(PROCESS_TIMEOUT, || dir
        .path()
        .join("same.rc")
        .exists()));
    // Its own POSIX session, not below the requester, the same audit session: refused.
    let said = std::fs::read_to_string(dir.path().join("same.out")).unwrap_or_default();
    assert!(
        said.contains("self_approval") && said.contains("audit session"),
        "{said}"
    );
    // Another audit session: accepted.
    let mut other = std::process::Command::new("sh");
    other
        .args([
            "-c",
            "echo 0 > /proc/self/loginuid && exec \"$0\" --socket \"$1\" approve \"$2\"",
        ])
        .arg(binary("assent"))
        .arg(daemon.socket())
        .arg(&tokens[0]);
    let out = run_detached(&mut other);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(wait_until(Duration::from_secs(10), || {
        std::fs::read_to_string(dir.path().join("check.rc")).is_ok_and(|rc| rc.trim() == "0")
    }));
}
