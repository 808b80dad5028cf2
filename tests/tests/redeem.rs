//! The pause-then-run flow of agent frameworks: `assent check --no-wait` (or `assent tool
//! --no-wait`) holds a request and prints its token; a person answers it elsewhere; the
//! requester redeems the token (`--token`) and runs it once, for exactly what was held.
//!
//! Safety: every command here is only checked, never run.

use std::process::Output;

use assent_tests::{TestDaemon, assent, is_token, run_bounded, run_detached};

/// Held for an agent by the embedded policy (destructive), never run here.
const RISKY: &str = "git push --force";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

/// `assent ARGS` as the requester (a child of this test, in its session).
fn requester(daemon: &TestDaemon, args: &[&str]) -> Output {
    run_bounded(assent(daemon.socket()).args(args))
}

/// `assent check --cwd /tmp [--session S] EXTRA -- COMMAND`.
fn check(daemon: &TestDaemon, extra: &[&str], command: &str) -> Output {
    run_bounded(
        assent(daemon.socket())
            .args(["check", "--cwd", "/tmp"])
            .args(extra)
            .args(["--", command]),
    )
}

/// A person answers from another login session.
fn answer(daemon: &TestDaemon, verb: &str, token: &str) {
    let output = run_detached(assent(daemon.socket()).args([verb, token]));
    assert_eq!(code(&output), Some(0), "{}", text(&output.stderr));
}

#[test]
fn a_check_token_is_redeemed_once_after_approval_for_the_same_command() {
    let daemon = TestDaemon::start();
    let held = check(&daemon, &["--no-wait", "--session", "conv-1"], RISKY);
    assert_eq!(code(&held), Some(2), "{}", text(&held.stderr));
    let token = text(&held.stdout).trim().to_string();
    assert!(is_token(&token), "{token:?}");
    let redeem = |extra: &[&str], command: &str| {
        let mut args = vec!["--token", token.as_str()];
        args.extend_from_slice(extra);
        check(&daemon, &args, command)
    };
    // Nobody answered yet: still held, the same token again.
    let early = redeem(&["--session", "conv-1"], RISKY);
    assert_eq!(code(&early), Some(2), "{}", text(&early.stderr));
    assert_eq!(text(&early.stdout).trim(), token);

    answer(&daemon, "approve", &token);
    // Another command, another session label: refused, and nothing is spent.
    let other = redeem(&["--session", "conv-1"], "git push --force origin main");
    assert_eq!(code(&other), Some(1));
    assert!(
        text(&other.stderr).contains("another command"),
        "{}",
        text(&other.stderr)
    );
    let elsewhere = redeem(&["--session", "conv-2"], RISKY);
    assert_eq!(code(&elsewhere), Some(1));
    assert!(
        text(&elsewhere.stderr).contains("session_mismatch"),
        "{}",
        text(&elsewhere.stderr)
    );
    // The requester, the session, the command: allowed, once.
    let allowed = redeem(&["--session", "conv-1"], RISKY);
    assert_eq!(code(&allowed), Some(0), "{}", text(&allowed.stderr));
    let again = redeem(&["--session", "conv-1"], RISKY);
    assert_eq!(code(&again), Some(1));
    assert!(
        text(&again.stderr).contains("not_found"),
        "{}",
        text(&again.stderr)
    );
    // The audit trail says the token was redeemed.
    let log = requester(&daemon, &["log", "--json", "-n", "20"]);
    let redeemed = text(&log.stdout)
        .lines()
        .filter(|l| l.contains(&format!("token {token} redeemed")))
        .count();
    assert_eq!(redeemed, 1, "{}", text(&log.stdout));
}

#[test]
fn a_denied_token_redeems_as_a_deny_and_an_unknown_one_is_not_found() {
    let daemon = TestDaemon::start();
    let held = check(&daemon, &["--no-wait"], RISKY);
    let token = text(&held.stdout).trim().to_string();
    answer(&daemon, "deny", &token);
    let denied = check(&daemon, &["--token", &token], RISKY);
    assert_eq!(code(&denied), Some(1), "{}", text(&denied.stderr));
    let unknown = check(
        &daemon,
        &["--token", "pa_00000000000000000000000000000000"],
        RISKY,
    );
    assert_eq!(code(&unknown), Some(1));
    assert!(
        text(&unknown.stderr).contains("not_found"),
        "{}",
        text(&unknown.stderr)
    );
}

#[test]
fn a_tool_token_is_redeemed_for_the_same_arguments_only() {
    let daemon = TestDaemon::start();
    let call = |extra: &[&str], args: &str| {
        run_bounded(
            assent(daemon.socket())
                .args(["tool", "file.delete", "--args", args])
                .args(extra),
        )
    };
    let args = r#"{"path": "/home/u/notes.md"}"#;
    let held = call(&["--no-wait"], args);
    assert_eq!(code(&held), Some(2), "{}", text(&held.stderr));
    let token = text(&held.stdout).trim().to_string();
    answer(&daemon, "approve", &token);
    let other = call(&["--token", &token], r#"{"path": "/home/u/.ssh/id_rsa"}"#);
    assert_eq!(code(&other), Some(1), "{}", text(&other.stderr));
    let allowed = call(&["--token", &token], args);
    assert_eq!(code(&allowed), Some(0), "{}", text(&allowed.stderr));
    let spent = call(&["--token", &token], args);
    assert_eq!(code(&spent), Some(1));
}
