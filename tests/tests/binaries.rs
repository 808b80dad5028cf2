//! The built binaries end to end: `assentd` as a process (signals, a live or stale socket) and
//! the `assent` client's exit codes and output, as agents and scripts depend on them.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use assent_client::protocol::{DecidedBy, PROTOCOL_VERSION, Request, Response};
use assent_tests::{
    KillOnDrop, TestDaemon, assent, decided, fake_rm, held_check, hold, is_token, our_command,
    pending_tokens, run_bounded, run_detached, wait_bounded, wait_for_socket, wait_until,
};
use nix::sys::signal::{Signal, kill};
use serde_json::Value;

/// `assentd --user` as a process, in a temporary directory of its own; killed when dropped.
struct Assentd {
    child: KillOnDrop,
    socket: PathBuf,
    dir: PathBuf,
}

/// Start `assentd --user` on `dir/run/assent.sock`, and wait until it accepts.
fn start_assentd(dir: &Path) -> Assentd {
    start_assentd_with(dir, &[])
}

/// [`start_assentd`] with extra flags.
fn start_assentd_with(dir: &Path, flags: &[&str]) -> Assentd {
    let socket = dir.join("run").join("assent.sock");
    let child = spawn_assentd(dir, &socket)
        .args(flags)
        .stdout(Stdio::null())
        .stderr(File::create(dir.join("assentd.log")).expect("the log file can be made"))
        .spawn()
        .expect("assentd starts");
    let daemon = Assentd {
        child: KillOnDrop(Some(child)),
        socket,
        dir: dir.to_path_buf(),
    };
    if !wait_for_socket(&daemon.socket, Duration::from_secs(10)) {
        let log = std::fs::read_to_string(dir.join("assentd.log")).unwrap_or_default();
        panic!("assentd did not accept connections within 10 s; its log:\n{log}");
    }
    daemon
}

/// The `assentd --user` command for `socket`, with its XDG directories inside `dir`.
fn spawn_assentd(dir: &Path, socket: &Path) -> Command {
    let mut command = our_command("assentd");
    command
        .arg("--user")
        .arg("--socket")
        .arg(socket)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env("XDG_RUNTIME_DIR", dir.join("xdg-run"))
        .env("XDG_STATE_HOME", dir.join("xdg-state"))
        .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
        .env("HOME", dir);
    command
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Exit code, with the output in the failure message when it is not `want`.
fn assert_exit(output: &Output, want: i32, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(want),
        "{what}: exit {:?}\nstdout: {}\nstderr: {}",
        output.status,
        stdout(output),
        stderr(output)
    );
}

/// The first value under `key` anywhere in `value`, depth first.
fn find_key<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map
            .get(key)
            .or_else(|| map.values().find_map(|v| find_key(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}

/// Output that is one JSON document, or JSON Lines: the list of documents.
fn json_documents(text: &str) -> Vec<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => items,
        Ok(value) => vec![value],
        Err(_) => text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line}\nall output:\n{text}"))
            })
            .collect(),
    }
}

/// A stopping daemon must end held requests as denials (the waiting `assent check` exits 1,
/// never runs the command) and exit cleanly and quickly, leaving no socket behind.
#[test]
fn assentd_stops_on_sigterm_and_the_waiting_check_is_denied() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // No approval agent runs here: hold agents' requests anyway, as `--no-approver` allows.
    let mut daemon = start_assentd_with(dir.path(), &["--no-approver", "hold"]);
    let mut waiter = assent_tests::connect(&daemon.socket);
    hold(
        &mut waiter,
        &held_check("rm -rf /home/user/project/src", true, None),
    );
    let check = assent(&daemon.socket)
        .args(["check", "--", "rm", "-rf", "/home/user/project/src"])
        .spawn()
        .expect("assent check starts");
    let check = KillOnDrop(Some(check));
    let mut observer = assent_tests::connect(&daemon.socket);
    assert!(
        wait_until(Duration::from_secs(10), || pending_tokens(&mut observer)
            .len()
            == 2),
        "`assent check -- rm -rf /home/user/project/src` was not held"
    );
    drop(observer);

    kill(daemon.child.pid(), Signal::SIGTERM).expect("SIGTERM is delivered");
    let signalled = Instant::now();
    let output = wait_bounded(daemon.child.take(), Duration::from_secs(10));
    let took = signalled.elapsed();
    assert_exit(&output, 0, "assentd after SIGTERM");
    assert!(
        took < Duration::from_secs(1),
        "assentd took {took:?} to exit"
    );
    assert!(!daemon.socket.exists(), "a clean stop removes the socket");

    let outcome = decided(&mut waiter);
    assert!(!outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::Shutdown);
    let mut check = check;
    let output = wait_bounded(check.take(), Duration::from_secs(10));
    assert_exit(
        &output,
        1,
        "the held `assent check` after the daemon stopped",
    );
}

/// Two daemons on one socket would split the users' requests: the second refuses to start.
#[test]
fn a_second_assentd_on_a_live_socket_fails() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let daemon = start_assentd(dir.path());
    let other = tempfile::tempdir().expect("a temporary directory");
    let output = run_bounded(spawn_assentd(other.path(), &daemon.socket).stdout(Stdio::null()));
    assert_exit(&output, 1, "a second assentd on a live socket");
    let message = stderr(&output);
    assert!(
        message.contains("another assentd") && message.contains("listening"),
        "stderr should say another assentd is listening: {message}"
    );
    // The first one is untouched.
    let mut conn = assent_tests::connect(&daemon.socket);
    assert!(matches!(
        conn.request(&Request::Status),
        Ok(Response::Status(_))
    ));
}

/// After a crash (SIGKILL) the socket file stays behind; the next start must replace it rather
/// than refuse, or a crash would need a person to clean up.
#[test]
fn a_stale_socket_is_replaced() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut first = start_assentd(dir.path());
    kill(first.child.pid(), Signal::SIGKILL).expect("SIGKILL is delivered");
    let _ = wait_bounded(first.child.take(), Duration::from_secs(10));
    assert!(first.socket.exists(), "a killed daemon leaves its socket");

    let second = start_assentd(&first.dir);
    assert_eq!(second.socket, first.socket);
    let mut conn = assent_tests::connect(&second.socket);
    match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => assert_eq!(status.pending, 0),
        other => panic!("the new daemon should serve, got {other:?}"),
    }
}

/// Exit 0 is the one answer that lets a hook run the command.
#[test]
fn assent_check_allows_a_safe_command_with_exit_0() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).args(["check", "--", "ls", "-la"]));
    assert_exit(&output, 0, "assent check -- ls -la");
}

/// A forbidden command from an agent (the default origin) is denied: exit 1.
#[test]
fn assent_check_denies_a_forbidden_command_with_exit_1() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).args(["check", "--", "rm", "-rf", "/"]));
    assert_exit(&output, 1, "assent check -- rm -rf /");
}

/// With `--no-wait` a held command exits 2 at once and hands over its token, so a script can
/// pass it to a person.
#[test]
fn assent_check_no_wait_prints_the_token_and_exits_2() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).args([
        "check",
        "--no-wait",
        "--",
        "rm",
        "-rf",
        "/home/user/project/src",
    ]));
    assert_exit(
        &output,
        2,
        "assent check --no-wait -- rm -rf /home/user/project/src",
    );
    let token = stdout(&output).trim().to_string();
    assert!(is_token(&token), "stdout should be the token: {token:?}");
    assert!(pending_tokens(&mut daemon.connect()).contains(&token));
}

/// No gate, no run: an agent's client fails closed with 126 when no daemon listens.
#[test]
fn assent_without_a_daemon_exits_126() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let output = run_bounded(assent(&dir.path().join("nothing.sock")).args(["check", "--", "ls"]));
    assert_exit(&output, 126, "assent check with no daemon");
    assert!(!stderr(&output).is_empty(), "the reason goes to stderr");
}

/// A usage error is 64 (EX_USAGE), distinct from deny (1) and held (2), so no caller mistakes a
/// typo for a verdict.
#[test]
fn assent_check_without_a_command_is_a_usage_error_64() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).arg("check"));
    assert_exit(&output, 64, "assent check with no command");
}

/// `assent approve` from another terminal is how a person answers without the desktop.
#[test]
fn assent_approve_from_another_session_approves() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(
        &mut requester,
        &held_check("rm -rf /home/user/project/src", true, None),
    );
    let output = run_detached(assent(daemon.socket()).args(["approve", &token]));
    assert_exit(&output, 0, "assent approve from another session");
    let outcome = decided(&mut requester);
    assert!(outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
}

/// `assent deny` from another terminal denies.
#[test]
fn assent_deny_from_another_session_denies() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(
        &mut requester,
        &held_check("rm -rf /home/user/project/src", true, None),
    );
    let output = run_detached(assent(daemon.socket()).args(["deny", &token]));
    assert_exit(&output, 0, "assent deny from another session");
    let outcome = decided(&mut requester);
    assert!(!outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
}

/// An agent that runs `assent approve` on its own request, from its own session, is refused and
/// told why.
#[test]
fn assent_approve_from_the_requesters_session_is_refused() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(
        &mut requester,
        &held_check("rm -rf /home/user/project/src", false, None),
    );
    let output = run_bounded(assent(daemon.socket()).args(["approve", &token]));
    assert_exit(&output, 1, "assent approve from the requester's session");
    assert!(
        stderr(&output).contains("self_approval"),
        "stderr names the error kind: {}",
        stderr(&output)
    );
    assert!(
        pending_tokens(&mut requester).contains(&token),
        "still held"
    );
}

/// `assent pending --json` lists what an approver can answer.
#[test]
fn assent_pending_json_lists_held_requests() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(
        &mut requester,
        &held_check("rm -rf /home/user/project/src", false, None),
    );
    let output = run_bounded(assent(daemon.socket()).args(["pending", "--json"]));
    assert_exit(&output, 0, "assent pending --json");
    let text = stdout(&output);
    let documents = json_documents(&text);
    let tokens: Vec<&str> = documents
        .iter()
        .filter_map(|d| find_key(d, "token").and_then(Value::as_str))
        .collect();
    assert!(tokens.contains(&token.as_str()), "{text}");
}

/// `explain` exits like `check` would (0 allow, 1 deny, 2 held), without running anything;
/// the held example does not depend on the directory the test runs in.
#[test]
fn assent_explain_exits_as_check_would() {
    let daemon = TestDaemon::start();
    for (line, code) in [("ls -la", 0), ("rm -rf /", 1), ("git push --force", 2)] {
        let output =
            run_bounded(assent(daemon.socket()).args(["explain", "--origin", "agent", "--", line]));
        assert_exit(&output, code, line);
    }
}

/// `explain --json` is for people and tools to see why: it carries the level and decision.
#[test]
fn assent_explain_json_shows_level_and_decision() {
    let daemon = TestDaemon::start();
    let output = run_bounded(
        assent(daemon.socket()).args(["explain", "--json", "--origin", "agent", "rm -rf /"]),
    );
    assert_exit(&output, 0, "assent explain --json");
    let text = stdout(&output);
    let value: Value =
        serde_json::from_str(&text).expect("explain --json prints one JSON document");
    assert_eq!(
        find_key(&value, "level").and_then(Value::as_str),
        Some("forbidden"),
        "{text}"
    );
    assert_eq!(
        find_key(&value, "decision").and_then(Value::as_str),
        Some("deny"),
        "{text}"
    );
}

/// `explain --batch` answers a JSON Lines stream line for line, for policy testing in bulk.
#[test]
fn assent_explain_batch_answers_each_line() {
    let daemon = TestDaemon::start();
    let mut child = assent(daemon.socket())
        .args(["explain", "--batch"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("assent explain --batch starts");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        stdin
            .write_all(
                b"{\"command\":\"ls -la\",\"origin\":\"agent\",\"cwd\":\"/tmp\"}\n\
                  {\"command\":\"rm -rf /\",\"origin\":\"agent\",\"cwd\":\"/tmp\"}\n",
            )
            .expect("the batch is written");
    }
    let output = wait_bounded(child, Duration::from_secs(20));
    assert_exit(&output, 0, "assent explain --batch");
    let text = stdout(&output);
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each output line is JSON"))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["command"], "ls -la", "{text}");
    assert_eq!(lines[0]["decision"], "allow", "{text}");
    assert_eq!(lines[1]["command"], "rm -rf /", "{text}");
    assert_eq!(lines[1]["decision"], "deny", "{text}");
    assert_eq!(lines[1]["level"], "forbidden", "{text}");
    assert!(lines[1]["findings"].is_array(), "{text}");
}

/// `assent status` tells a person which protocol the daemon speaks and what is waiting.
#[test]
fn assent_status_shows_protocol_and_pending() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    hold(
        &mut requester,
        &held_check("rm -rf /home/user/project/src", false, None),
    );
    let output = run_bounded(assent(daemon.socket()).args(["status", "--json"]));
    assert_exit(&output, 0, "assent status --json");
    let text = stdout(&output);
    let value: Value = serde_json::from_str(&text).expect("status --json prints JSON");
    assert_eq!(
        find_key(&value, "protocol").and_then(Value::as_u64),
        Some(u64::from(PROTOCOL_VERSION)),
        "{text}"
    );
    assert_eq!(
        find_key(&value, "pending").and_then(Value::as_u64),
        Some(1),
        "{text}"
    );
    let output = run_bounded(assent(daemon.socket()).arg("status"));
    assert_exit(&output, 0, "assent status");
    let text = stdout(&output).to_lowercase();
    assert!(
        text.contains("protocol") && text.contains("pending"),
        "status names the protocol and the pending count: {text}"
    );
    assert!(
        text.contains("approval agents: none") && text.contains("assent-notify"),
        "status says no approval agent runs, and what to start: {text}"
    );
}

/// `assent log` shows recent decisions, and the audit file in the state directory has the same
/// events, so the trail survives the daemon.
#[test]
fn assent_log_json_shows_recent_events_also_in_the_audit_file() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    for i in 0..7 {
        assent_tests::verdict_of(
            &mut conn,
            &assent_tests::check(
                &format!("ls /tmp/log-{i}"),
                assent_client::protocol::Origin::Agent,
            ),
        );
    }
    let output = run_bounded(assent(daemon.socket()).args(["log", "-n", "5", "--json"]));
    assert_exit(&output, 0, "assent log -n 5 --json");
    let text = stdout(&output);
    let events = json_documents(&text);
    assert_eq!(events.len(), 5, "{text}");
    assert_eq!(
        find_key(&events[4], "subject").and_then(Value::as_str),
        Some("ls /tmp/log-6"),
        "newest last: {text}"
    );
    let audit = daemon.state_dir().join("audit.jsonl");
    assert!(
        wait_until(Duration::from_secs(5), || std::fs::read_to_string(&audit)
            .is_ok_and(
                |t| t.lines().count() >= 7 && t.contains("ls /tmp/log-6")
            )),
        "the audit file {} should have the 7 events",
        audit.display()
    );
}

/// `assent run` executes an allowed command itself (the agent's door), with its own output.
#[test]
fn assent_run_executes_an_allowed_command() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).args(["run", "--", "echo", "hello gate"]));
    assert_exit(&output, 0, "assent run -- echo 'hello gate'");
    assert_eq!(stdout(&output), "hello gate\n");
}

/// `assent sh -c` is usable as an agent's `$SHELL`: it runs the string with bash on allow, and
/// passes on the exit status.
#[test]
fn assent_sh_c_runs_an_allowed_string() {
    let daemon = TestDaemon::start();
    let output = run_bounded(assent(daemon.socket()).args(["sh", "-c", "echo hi; exit 3"]));
    assert_exit(&output, 3, "assent sh -c 'echo hi; exit 3'");
    assert_eq!(stdout(&output), "hi\n");
}

/// `assent run` is an agent's door: a denied command is never executed, and the agent sees 126.
#[test]
fn assent_run_never_executes_a_denied_command() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (bin, marker) = fake_rm(dir.path());
    let output = run_bounded(
        assent(daemon.socket())
            .args(["run", "--", "rm", "-rf", "/"])
            .env("PATH", &bin),
    );
    assert_exit(&output, 126, "assent run -- rm -rf /");
    assert!(!marker.exists(), "the denied command ran");
}

/// `assent sh -c` likewise never hands a denied string to bash.
#[test]
fn assent_sh_never_executes_a_denied_string() {
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (bin, marker) = fake_rm(dir.path());
    let output = run_bounded(
        assent(daemon.socket())
            .args(["sh", "-c", "rm -rf /"])
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display())),
    );
    assert_exit(&output, 126, "assent sh -c 'rm -rf /'");
    assert!(!marker.exists(), "the denied string ran");
}

/// Ctrl-C on a waiting check withdraws the request (no approver can allow it afterwards) and
/// exits 130.
#[test]
fn ctrl_c_on_a_waiting_check_withdraws_it() {
    let daemon = TestDaemon::start();
    let child = assent(daemon.socket())
        .args(["check", "--", "rm", "-rf", "/home/user/project/src"])
        .spawn()
        .expect("assent check starts");
    let mut child = KillOnDrop(Some(child));
    // Ctrl-C withdraws the request once the client says it waits (it blocks the signals for
    // the wait from then on), so send it only after that line.
    let stderr_pipe = child
        .0
        .as_mut()
        .and_then(|c| c.stderr.take())
        .expect("stderr is piped");
    let (lines_tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr_pipe)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines_tx.send(line);
        }
    });
    loop {
        match lines.recv_timeout(Duration::from_secs(10)) {
            Ok(line) if line.contains("waiting for an answer") => break,
            Ok(_) => {}
            Err(e) => {
                panic!("`assent check -- rm -rf /home/user/project/src` never said it waits: {e}")
            }
        }
    }
    let mut observer = daemon.connect();
    let tokens = pending_tokens(&mut observer);
    assert_eq!(tokens.len(), 1, "one request is held");
    kill(child.pid(), Signal::SIGINT).expect("SIGINT is delivered");
    let output = wait_bounded(child.take(), Duration::from_secs(10));
    assert_exit(&output, 130, "assent check after Ctrl-C");
    assert!(
        wait_until(Duration::from_secs(5), || pending_tokens(&mut observer)
            .is_empty()),
        "the request is still held after Ctrl-C"
    );
    let reply = observer.request(&Request::Answer {
        token: tokens[0].clone(),
        allow: true,
        session: None,
        item: None,
        remember: assent_client::protocol::Remember::Once,
    });
    assert!(
        matches!(&reply, Err(assent_client::Error::Refused(e)) if e.kind == assent_client::protocol::ErrorKind::NotFound),
        "{reply:?}"
    );
}

/// A refused answer names its error kind on stderr and exits 1, so scripts can tell why.
#[test]
fn assent_approve_of_an_unknown_token_exits_1_with_not_found() {
    let daemon = TestDaemon::start();
    let output = run_detached(
        assent(daemon.socket()).args(["approve", "pa_00000000000000000000000000000000"]),
    );
    assert_exit(&output, 1, "assent approve of an unknown token");
    assert!(stderr(&output).contains("not_found"), "{}", stderr(&output));
}

/// The origin flag matters: `git push` is the person's business at their own shell, but is held
/// for an agent (the default origin).
#[test]
fn assent_check_origin_decides_git_push() {
    let daemon = TestDaemon::start();
    let person = run_bounded(assent(daemon.socket()).args([
        "check",
        "--origin",
        "interactive",
        "--",
        "git",
        "push",
    ]));
    assert_exit(&person, 0, "assent check --origin interactive -- git push");
    let agent =
        run_bounded(assent(daemon.socket()).args(["check", "--no-wait", "--", "git", "push"]));
    assert_exit(&agent, 2, "assent check --no-wait -- git push");
}

/// System mode (as root): the socket is open to every user (0666) because callers are told
/// apart by their kernel credentials, and the audit trail records the uid the kernel reported,
/// not anything the client said. Without a journal the audit goes to the state directory.
#[test]
fn system_mode_serves_other_users_and_audits_their_kernel_uid() {
    if !assent_tests::needs::needs_root("system mode") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory can be made");
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("the temporary directory is ours to chmod");
    let socket = dir.path().join("run").join("assent.sock");
    let state = dir.path().join("state");
    let child = our_command("assentd")
        .arg("--socket")
        .arg(&socket)
        .arg("--state-dir")
        .arg(&state)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("assentd starts");
    let _daemon = KillOnDrop(Some(child));
    assert!(
        wait_for_socket(&socket, Duration::from_secs(10)),
        "assentd accepts"
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(&socket)
            .expect("the socket exists")
            .permissions(),
    );
    assert_eq!(
        mode & 0o777,
        0o666,
        "the system socket is open to every user"
    );

    let mut as_nobody = assent(&socket);
    as_nobody.args(["check", "--", "ls -la"]);
    std::os::unix::process::CommandExt::uid(&mut as_nobody, 65534);
    std::os::unix::process::CommandExt::gid(&mut as_nobody, 65534);
    as_nobody.current_dir("/");
    assert_exit(&run_bounded(&mut as_nobody), 0, "nobody's safe check");

    let audit = state.join("audit.jsonl");
    assert!(
        wait_until(Duration::from_secs(5), || std::fs::read_to_string(&audit)
            .is_ok_and(|text| text.contains("\"uid\":65534"))),
        "the audit file records nobody's uid 65534"
    );
}

/// `--socket` and `--state-dir` are enough for a user daemon: it must not insist on
/// `XDG_RUNTIME_DIR` or `HOME` for locations it was given (a service manager may set neither).
#[test]
fn a_user_daemon_needs_no_environment_when_given_its_locations() {
    let dir = tempfile::tempdir().expect("a temporary directory can be made");
    let socket = dir.path().join("assent.sock");
    let child = our_command("assentd")
        .arg("--user")
        .arg("--socket")
        .arg(&socket)
        .arg("--state-dir")
        .arg(dir.path().join("state"))
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("HOME")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("assentd starts");
    let _daemon = KillOnDrop(Some(child));
    assert!(
        wait_for_socket(&socket, Duration::from_secs(10)),
        "assentd accepts without XDG_RUNTIME_DIR or HOME"
    );
}

/// A line that is not UTF-8 is still checked, on the fast path and through clap alike: the
/// bad bytes become U+FFFD. (An error would read as "the gate is unavailable" to the shell
/// hook, which then lets the line run unchecked.)
#[test]
fn a_command_that_is_not_utf8_is_checked_not_refused() {
    use std::os::unix::ffi::OsStrExt as _;
    let daemon = TestDaemon::start();
    let word = std::ffi::OsStr::from_bytes(b"ls \xff");
    for flags in [&["check", "--"][..], &["check", "--session=s", "--"][..]] {
        let output = run_bounded(assent(daemon.socket()).args(flags).arg(word));
        assert_exit(&output, 0, "assent check with a non-UTF-8 word");
    }
    let output = run_bounded(assent(daemon.socket()).args(["log", "--json"]));
    let text = stdout(&output);
    assert_eq!(
        text.matches("ls \u{fffd}").count(),
        2,
        "both were checked and audited as text: {text}"
    );
}

/// `assentd --check-policy` with no file checks the file the daemon would use; with none there,
/// it prints the embedded default. A file too large or with nothing in it is refused, saying so.
#[test]
fn check_policy_with_no_file_prints_the_effective_policy() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = |args: &[&str]| {
        let mut command = our_command("assentd");
        command
            .args(["--user"])
            .args(args)
            .env("XDG_RUNTIME_DIR", dir.path())
            .env("XDG_STATE_HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path().join("config"));
        run_bounded(&mut command)
    };
    let out = run(&["--check-policy"]);
    assert_exit(&out, 0, "--check-policy with no file");
    assert!(
        stdout(&out).contains("the embedded default policy applies"),
        "{}",
        stdout(&out)
    );
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "# nothing yet\n").expect("write");
    let out = run(&["--check-policy", &empty.display().to_string()]);
    assert_exit(&out, 1, "an empty policy");
    assert!(stderr(&out).contains("is empty"), "{}", stderr(&out));
    let out = run(&["--check-policy", "/dev/zero"]);
    assert_exit(&out, 1, "an endless policy");
    assert!(
        stderr(&out).contains("larger than 4 MiB"),
        "{}",
        stderr(&out)
    );
}
