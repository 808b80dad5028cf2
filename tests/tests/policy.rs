//! Policy files and tool calls end to end: reloads while the daemon runs, a broken
//! file that keeps the running policy and shows in status, tool calls through the socket, the
//! rate limit, observe mode, and the `assent tool` binary's exit codes.

use std::time::Duration;

use assent_client::Connection;
use assent_client::protocol::{
    CheckRequest, Context, Decision, ErrorKind, ExplainRequest, Origin, Request, Response,
    StatusInfo, Subject,
};
use assent_tests::{Options, TestDaemon, assent, refused, run_bounded, shell, wait_until};

fn explain(conn: &mut Connection, command: &str) -> (Decision, String) {
    let request = Request::Explain(ExplainRequest {
        subject: shell(command),
        origin: Origin::Agent,
        context: Context::default(),
    });
    match conn.request(&request) {
        Ok(Response::Explained(e)) => (e.verdict.decision, e.verdict.reason),
        other => panic!("an explanation, not {other:?}"),
    }
}

fn status(conn: &mut Connection) -> StatusInfo {
    match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => status,
        other => panic!("a status, not {other:?}"),
    }
}

fn tool_check(name: &str, args: &str) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::Tool {
            name: name.into(),
            args_json: args.into(),
            cwd: None,
        },
        origin: Origin::Tool,
        context: Context::default(),
        wait: false,
    })
}

const DENY_LS: &str =
    "[[rule]]\nname = \"no ls\"\ncommand = \"ls\"\ndecision = \"deny\"\nmessage = \"not today\"\n";

#[test]
fn a_changed_policy_file_decides_the_next_request_and_a_broken_one_is_not_used() {
    // The weakening change below is held like a request: long enough for a loaded machine.
    let daemon = TestDaemon::with(assent_tests::Options {
        hold_ttl: Duration::from_secs(600),
        ..assent_tests::Options::default()
    });
    let mut conn = daemon.connect();
    assert_eq!(explain(&mut conn, "ls -l").0, Decision::Allow);
    assert!(status(&mut conn).policy.starts_with("embedded default"));

    std::fs::write(daemon.policy_file(), DENY_LS).expect("the policy is written");
    assert!(
        wait_until(Duration::from_secs(10), || explain(&mut conn, "ls -l").0
            == Decision::Deny),
        "the new policy was not picked up"
    );
    let (_, reason) = explain(&mut conn, "ls -l");
    assert!(
        reason.contains("rule \"no ls\"") && reason.contains("not today"),
        "{reason}"
    );
    assert_eq!(status(&mut conn).policy_error, None);

    // A broken file: the running policy stays, and status says why.
    std::fs::write(
        daemon.policy_file(),
        "[[rule]]\nname = \"x\"\ndecision = \"sometimes\"\n",
    )
    .expect("the policy is written");
    assert!(
        wait_until(Duration::from_secs(10), || status(&mut conn)
            .policy_error
            .is_some()),
        "the failed reload does not show in status"
    );
    let error = status(&mut conn).policy_error.unwrap_or_default();
    assert!(error.contains("policy.toml:3:12"), "{error}");
    assert_eq!(
        explain(&mut conn, "ls -l").0,
        Decision::Deny,
        "the old policy is kept"
    );

    // Fixed again: the error clears.
    std::fs::write(daemon.policy_file(), "observe = true\n").expect("the policy is written");
    assert!(wait_until(Duration::from_secs(10), || status(&mut conn)
        .policy_error
        .is_none()));
    // Observe mode weakens the policy: in user mode the file is the agent's to write too, so
    // agents stay under the approved policy until a person approves the change.
    let waiting = status(&mut conn).policy_waiting.unwrap_or_default();
    assert!(
        waiting.contains("observe = true") && waiting.contains("deny rule \"no ls\" removed"),
        "{waiting}"
    );
    assert_eq!(explain(&mut conn, "rm -rf ~").0, Decision::Deny);
    assert_eq!(
        explain(&mut conn, "ls -l").0,
        Decision::Deny,
        "the approved rule holds"
    );
    let tokens = assent_tests::pending_tokens(&mut conn);
    assert_eq!(tokens.len(), 1, "the change is asked about");
    let listed = assent_tests::run_bounded(assent_tests::assent(daemon.socket()).arg("pending"));
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("policy change") && listed.contains("observe = true"),
        "{listed}"
    );
    // A person approves it from elsewhere: now it judges agents too.
    let person = assent_tests::run_detached(
        assent_tests::assent(daemon.socket()).args(["approve", &tokens[0]]),
    );
    assert_eq!(person.status.code(), Some(0), "{person:?}");
    assert!(wait_until(Duration::from_secs(10), || status(&mut conn)
        .policy_waiting
        .is_none()));
    let (decision, reason) = explain(&mut conn, "rm -rf ~");
    assert_eq!(decision, Decision::Allow);
    assert!(
        reason.starts_with("observe mode: would have decided deny"),
        "{reason}"
    );
    // `status` says so before anything else.
    assert_eq!(status(&mut conn).observe.as_deref(), Some("everyone"));
    let said = assent_tests::run_bounded(assent_tests::assent(daemon.socket()).arg("status"));
    let said = String::from_utf8_lossy(&said.stdout);
    assert!(
        said.starts_with("OBSERVE MODE for everyone: nothing is held or denied"),
        "{said}"
    );
}

#[test]
fn tool_calls_are_judged_by_the_registry_and_their_arguments() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let verdict = |conn: &mut Connection, name: &str, args: &str| match conn
        .request(&tool_check(name, args))
    {
        Ok(Response::Verdict(v)) => v,
        other => panic!("a verdict, not {other:?}"),
    };
    assert_eq!(
        verdict(&mut conn, "web.search", r#"{"query": "x"}"#).decision,
        Decision::Allow
    );
    let held = verdict(
        &mut conn,
        "calendar.delete_event",
        r#"{"event_id": "evt123"}"#,
    );
    assert_eq!(held.decision, Decision::Confirm);
    assert!(held.token.is_some());
    let denied = verdict(&mut conn, "bash", r#"{"command": "rm -rf /"}"#);
    assert_eq!(denied.decision, Decision::Deny);
    let unknown = verdict(&mut conn, "mcp__x__y", "{}");
    assert_eq!(unknown.decision, Decision::Confirm);
    assert!(unknown.findings.iter().any(|f| f.id == "tool.unknown"));
}

#[test]
fn the_rate_limit_refuses_with_limit_reached() {
    let daemon = TestDaemon::with(Options {
        policy: Some("rate_limit = 3\n".into()),
        ..Options::default()
    });
    let mut conn = daemon.connect();
    let mut kinds = Vec::new();
    for _ in 0..5 {
        match conn.request(&tool_check("web.search", "{}")) {
            Ok(Response::Verdict(v)) => assert_eq!(v.decision, Decision::Allow),
            other => kinds.push(refused(other)),
        }
    }
    assert!(
        !kinds.is_empty(),
        "five checks in a second passed a limit of 3"
    );
    assert!(
        kinds.iter().all(|k| *k == ErrorKind::LimitReached),
        "{kinds:?}"
    );
}

#[test]
fn the_tool_subcommand_exits_as_check_does() {
    let daemon = TestDaemon::start();
    let run = |args: &[&str]| {
        let mut command = assent(daemon.socket());
        command.arg("tool").args(args);
        run_bounded(&mut command)
    };
    let code = |args: &[&str]| run(args).status.code();
    assert_eq!(
        code(&["web.search", "--args", r#"{"query": "x"}"#]),
        Some(0)
    );
    let held = run(&[
        "file.delete",
        "--args",
        r#"{"path": "notes.txt"}"#,
        "--no-wait",
    ]);
    assert_eq!(held.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&held.stdout)
            .trim()
            .starts_with("pa_")
    );
    assert_eq!(
        code(&["bash", "--args", r#"{"command": "rm -rf /"}"#]),
        Some(1)
    );
    assert_eq!(
        code(&["web.search", "--requires-confirmation", "true", "--no-wait"]),
        Some(2)
    );
    // A claim never lowers: destructive stays held whatever the caller says.
    assert_eq!(
        code(&[
            "file.delete",
            "--requires-confirmation",
            "false",
            "--confidence",
            "1",
            "--no-wait"
        ]),
        Some(2)
    );
    assert_eq!(
        code(&["tasks.create", "--confidence", "0.5", "--no-wait"]),
        Some(2)
    );
    assert_eq!(code(&["web.search", "--confidence", "2"]), Some(64));
    let json = run(&["web.search", "--json"]);
    let value: serde_json::Value =
        serde_json::from_slice(&json.stdout).expect("--json prints JSON");
    assert_eq!(value["decision"], "allow");
}
