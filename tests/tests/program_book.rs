//! The policy's program book end to end: the real daemon loads the issue's `[[program]]`
//! example from its policy file, judges the three subcommands as the entry says, `assent
//! explain` names the entry, and a changed entry judges the next request after a reload.
//! The command lines only ever reach the analyser (explain requests and `assent explain`'s
//! argument), never a shell.

use std::time::Duration;

use assent_client::Connection;
use assent_client::protocol::{
    Context, Decision, ExplainRequest, Level, Origin, Request, Response,
};
use assent_tests::{Options, TestDaemon, assent, run_bounded, shell, wait_until};

/// The issue's example, exactly as written there, after a line of its own so the entry's line
/// number is not the first.
const ACME: &str = r#"confirm_agent_moderate = false

[[program]]
name = "acmectl"
[program.subcommands.nuke]
operands = "delete"          # each operand is a place this subcommand deletes
[program.subcommands.deploy]
effect = "publish"           # held for agents like git push
[program.subcommands.status]
effect = "none"
"#;

fn explain(conn: &mut Connection, command: &str, origin: Origin) -> (Level, Decision) {
    let request = Request::Explain(ExplainRequest {
        subject: shell(command),
        origin,
        context: Context::default(),
    });
    match conn.request(&request) {
        Ok(Response::Explained(e)) => (e.verdict.level, e.verdict.decision),
        other => panic!("an explanation, not {other:?}"),
    }
}

#[test]
fn the_issues_example_judges_its_lines_and_explain_names_the_entry() {
    let daemon = TestDaemon::with(Options {
        policy: Some(ACME.into()),
        hold_ttl: Duration::from_secs(600),
        ..Options::default()
    });
    let mut conn = daemon.connect();
    let agent = |conn: &mut Connection, line: &str| explain(conn, line, Origin::Agent);
    assert_eq!(
        agent(&mut conn, "acmectl status"),
        (Level::Safe, Decision::Allow)
    );
    assert_eq!(
        agent(&mut conn, "acmectl deploy prod"),
        (Level::Moderate, Decision::Confirm),
        "held for agents as git push is"
    );
    assert_eq!(
        explain(&mut conn, "acmectl deploy prod", Origin::Interactive),
        (Level::Moderate, Decision::Allow),
        "a person's own deploy goes through as their own push does"
    );
    assert_eq!(
        agent(&mut conn, "acmectl nuke ~/Documents"),
        agent(&mut conn, "rm -rf ~/Documents"),
    );
    assert_eq!(
        agent(&mut conn, "sudo acmectl nuke ~"),
        agent(&mut conn, "sudo rm -rf ~"),
    );
    // Not named by the entry: as unknown as before.
    let unknown = agent(&mut conn, "acmectl frobnicate ~/Documents");
    assert_eq!(unknown, agent(&mut conn, "acmectlx frobnicate ~/Documents"));

    let out =
        run_bounded(assent(daemon.socket()).args(["explain", "--", "acmectl nuke ~/Documents"]));
    let text = String::from_utf8_lossy(&out.stdout);
    let entry = format!(
        "`acmectl nuke` is judged by the policy's program book ({}:3)",
        daemon.policy_file().display()
    );
    assert!(
        text.contains("[book.policy]") && text.contains(&entry),
        "{text}"
    );
    let out = run_bounded(assent(daemon.socket()).args(["explain", "--", "rm -rf ~/Documents"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("book.policy"),
        "built-in knowledge is not the policy's: {text}"
    );

    // Running the client may have taken longer than the daemon keeps an idle connection.
    let mut conn = daemon.connect();
    // `status` changed to stop services: a person's requests are judged by it at once; agents'
    // wait for a person to approve the change, which the book's changes always need.
    std::fs::write(
        daemon.policy_file(),
        ACME.replace("effect = \"none\"", "effect = \"stop.services\""),
    )
    .expect("the policy is written");
    assert!(
        wait_until(Duration::from_secs(10), || explain(
            &mut conn,
            "acmectl status",
            Origin::Interactive
        ) == (
            Level::Destructive,
            Decision::Confirm
        )),
        "the changed entry does not judge the next request"
    );
    let waiting = match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => status.policy_waiting.unwrap_or_default(),
        other => panic!("a status, not {other:?}"),
    };
    assert!(
        waiting.contains("[[program]] \"acmectl\" changed"),
        "{waiting}"
    );
    assert_eq!(
        agent(&mut conn, "acmectl status"),
        (Level::Safe, Decision::Allow),
        "agents stay under the approved book until a person approves the change"
    );
}

/// `assentd --check-policy FILE` explains each entry a line per subcommand, and refuses a bad
/// one at its file:line:column with exit status 1.
#[test]
fn check_policy_explains_the_entries_and_refuses_a_bad_one() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let check = |text: &str| {
        let file = dir.path().join("policy.toml");
        std::fs::write(&file, text).expect("the policy is written");
        let out = run_bounded(
            assent_tests::our_command("assentd")
                .args(["--user", "--check-policy"])
                .arg(&file)
                .env("XDG_RUNTIME_DIR", dir.path())
                .env("XDG_STATE_HOME", dir.path())
                .env("XDG_CONFIG_HOME", dir.path().join("config")),
        );
        let said = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        (
            out.status.code(),
            said(&out.stdout),
            said(&out.stderr),
            file,
        )
    };
    let (code, stdout, stderr, file) = check(ACME);
    assert_eq!(code, Some(0), "{stderr}");
    for line in [
        format!("# program book, {}:3:", file.display()),
        "#   acmectl deploy: it publishes the remote (publish.remote: moderate)".into(),
        "#   acmectl nuke: each operand is a place it deletes (delete.*), with what lies beneath it"
            .into(),
        "#   acmectl status: it changes nothing (safe)".into(),
    ] {
        assert!(stdout.contains(&line), "{line} in:\n{stdout}");
    }
    let bad = ACME.replace("effect = \"none\"", "");
    let (code, _, stderr, file) = check(&bad);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains(&format!(
            "{}:9:1: acmectl status: says nothing of what it does",
            file.display()
        )),
        "{stderr}"
    );
}
