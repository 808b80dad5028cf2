//! Approval agents over the real protocol: registration, pushes, answers with remembering, the
//! no-approver rule, and the trust rules that keep a requester from approving itself.
//!
//! The agent is `assent-test-approver agent …` (`src/bin/approver.rs`), a separate process,
//! started in a new login session as a desktop agent would be, or on purpose in the test's own
//! session to prove that one there does not count.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use assent_client::protocol::{
    CheckRequest, Context, DecidedBy, Decision, Origin, Remember, Request, Response,
};
use assent_tests::{
    Detached, Options, TestDaemon, approver, decided, held_check, refused, verdict_of,
};

/// A running test agent and the lines it prints.
struct Agent {
    child: Option<Child>,
    detached: Option<Detached>,
    lines: mpsc::Receiver<String>,
}

impl Agent {
    fn start(daemon: &TestDaemon, answer: &str, remember: &str, new_session: bool) -> Agent {
        let mut command = approver(daemon.socket());
        command
            .args(["agent", answer, remember, "50"])
            .stdout(Stdio::piped());
        // In a session of its own: detached from the test process, which makes the requests
        // (what a requester started may not answer it).
        let (child, detached, stdout): (_, _, Box<dyn std::io::Read + Send>) = if new_session {
            let mut d = Detached::spawn(&command);
            let stdout = d.stdout.take().expect("stdout is piped");
            (None, Some(d), Box::new(stdout))
        } else {
            let mut child = command.spawn().expect("the test agent starts");
            let stdout: ChildStdout = child.stdout.take().expect("stdout is piped");
            (Some(child), None, Box::new(stdout))
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let agent = Agent {
            child,
            detached,
            lines,
        };
        assert_eq!(agent.line(), "done", "the agent registers");
        agent
    }

    /// The next line, within 10 s.
    fn line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(10))
            .expect("the test agent printed a line in time")
    }

    /// Lines until one starts with `prefix`; that one.
    fn until(&self, prefix: &str) -> String {
        loop {
            let line = self.line();
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    /// No line within `wait`.
    fn quiet(&self, wait: Duration) -> bool {
        self.lines.recv_timeout(wait).is_err()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(detached) = &mut self.detached {
            detached.kill();
        }
    }
}

/// The approval agents registered for the caller's uid, as `assent status` counts them.
fn approvers(conn: &mut assent_client::Connection) -> u32 {
    match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => status.approvers,
        reply => panic!("expected the status, got {reply:?}"),
    }
}

fn daemon_denying_without_approver() -> TestDaemon {
    TestDaemon::with(Options {
        no_approver: None,
        ..Options::default()
    })
}

fn agent_check(command: &str, wait: bool) -> Request {
    Request::Check(CheckRequest {
        subject: assent_tests::shell(command),
        origin: Origin::Agent,
        context: Context {
            requires_confirmation: Some(true),
            ..Context::default()
        },
        wait,
    })
}

#[test]
fn without_an_agent_the_default_denies_and_says_how_to_start_one() {
    let daemon = daemon_denying_without_approver();
    let mut conn = daemon.connect();
    match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => assert_eq!(status.approvers, 0, "{status:?}"),
        reply => panic!("expected the status, got {reply:?}"),
    }
    let verdict = verdict_of(&mut conn, &agent_check("git push", true));
    assert_eq!(verdict.decision, Decision::Deny);
    assert_eq!(verdict.token, None, "nothing was held");
    assert!(
        verdict.reason.contains("assent-notify"),
        "the reason tells how to start an agent: {}",
        verdict.reason
    );
    // A person at a terminal is still held: they can answer with `assent approve`.
    let interactive = Request::Check(CheckRequest {
        origin: Origin::Interactive,
        ..match agent_check("git push", false) {
            Request::Check(check) => check,
            _ => unreachable!(),
        }
    });
    assert_eq!(
        verdict_of(&mut conn, &interactive).decision,
        Decision::Confirm
    );
}

#[test]
fn an_agent_is_shown_held_requests_and_its_answer_settles_them() {
    let daemon = daemon_denying_without_approver();
    let mut conn = daemon.connect();
    // With the agent registered, the embedded default holds instead of denying.
    let agent = Agent::start(&daemon, "allow", "once", true);
    match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => assert_eq!(status.approvers, 1, "{status:?}"),
        reply => panic!("expected the status, got {reply:?}"),
    }
    let verdict = verdict_of(&mut conn, &agent_check("git push origin main", true));
    assert_eq!(
        verdict.decision,
        Decision::Confirm,
        "held: an agent can ask"
    );
    let token = verdict.token.expect("held with a token");
    let held = agent.until("held ");
    assert!(held.starts_with(&format!("held {token} ")), "{held}");
    assert!(held.ends_with("git push origin main"), "{held}");
    let outcome = decided(&mut conn);
    assert!(outcome.allow);
    assert_eq!(outcome.by, DecidedBy::User);
    assert_eq!(
        agent.until("withdrawn "),
        format!("withdrawn {token} allow user")
    );
}

#[test]
fn an_agent_sees_requests_held_before_it_registered_and_hears_of_their_end() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let verdict = verdict_of(&mut conn, &held_check("first", false, None));
    let first = verdict.token.expect("held");
    let agent = Agent::start(&daemon, "none", "once", true);
    assert!(agent.line().starts_with(&format!("held {first} ")));
    // Withdrawn by the requester: the agent is told, so it can close the notification.
    let mut other = daemon.connect();
    let reply = other.request(&Request::Cancel {
        token: first.clone(),
    });
    assert!(matches!(reply, Ok(Response::Done)), "{reply:?}");
    assert_eq!(agent.line(), format!("withdrawn {first} deny cancelled"));
}

#[test]
fn an_agent_in_the_requesters_own_session_is_not_an_approver() {
    let daemon = daemon_denying_without_approver();
    // Registered, but in the test's login session: it could never answer these requests.
    let agent = Agent::start(&daemon, "allow", "once", false);
    let mut conn = daemon.connect();
    let verdict = verdict_of(&mut conn, &agent_check("git push", true));
    assert_eq!(verdict.decision, Decision::Deny, "{verdict:?}");
    assert!(
        agent.quiet(Duration::from_millis(300)),
        "nothing was pushed"
    );
}

#[test]
fn one_agent_per_login_session() {
    let daemon = TestDaemon::start();
    let _first = Agent::start(&daemon, "none", "once", false);
    let mut second = approver(daemon.socket());
    second.args(["agent", "none", "once", "1"]);
    let output = assent_tests::run_bounded(&mut second);
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "invalid");
}

#[test]
fn a_requester_cannot_answer_itself_at_a_prompt_unless_interactive_on_a_terminal() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    // An agent's request: its own Prompted answer is self-approval.
    let verdict = verdict_of(&mut conn, &held_check("git push", true, None));
    let token = verdict.token.expect("held");
    let reply = conn.request(&Request::Prompted {
        token: token.clone(),
        allow: true,
        remember: Remember::Always,
    });
    assert_eq!(
        refused(reply),
        assent_client::protocol::ErrorKind::SelfApproval
    );
    // Still held: the refused answer changed nothing, and nothing was remembered.
    let cancel = conn.request(&Request::Cancel { token });
    assert!(matches!(cancel, Ok(Response::Decided(d)) if d.by == DecidedBy::Cancelled));
    let mut other = daemon.connect();
    match other.request(&Request::ListRemembered { from: 0 }) {
        Ok(Response::Remembered(list)) => assert!(list.approvals.is_empty(), "{list:?}"),
        reply => panic!("expected the rules, got {reply:?}"),
    }
    // Prompted on a connection that holds nothing is refused too.
    let reply = other.request(&Request::Prompted {
        token: "pa_00000000000000000000000000000000".into(),
        allow: true,
        remember: Remember::Once,
    });
    assert_eq!(refused(reply), assent_client::protocol::ErrorKind::Invalid);
}

#[test]
fn always_is_remembered_across_a_restart_and_forget_removes_it() {
    let mut daemon = daemon_denying_without_approver();
    let agent = Agent::start(&daemon, "allow", "always", true);
    let mut conn = daemon.connect();
    let first = verdict_of(&mut conn, &agent_check("git push origin main", true));
    assert_eq!(first.decision, Decision::Confirm);
    assert!(decided(&mut conn).allow);
    agent.until("withdrawn ");
    // The same request again: allowed at once, by the remembered approval.
    let again = verdict_of(&mut conn, &agent_check("git push origin main", true));
    assert_eq!(again.decision, Decision::Allow, "{again:?}");
    assert!(again.reason.contains("remembered"), "{}", again.reason);
    // Another command is not covered: the signature is exact. With the agent gone (so that it
    // cannot answer this one too), it is denied for want of an approver, not allowed.
    drop(agent);
    assert!(
        assent_tests::wait_until(Duration::from_secs(10), || approvers(&mut conn) == 0),
        "the agent's registration ends with its connection"
    );
    let other = verdict_of(&mut conn, &agent_check("git push origin other", false));
    assert_eq!(other.decision, Decision::Deny, "{other:?}");

    daemon.restart();
    let mut conn = daemon.connect();
    let after = verdict_of(&mut conn, &agent_check("git push origin main", false));
    assert_eq!(
        after.decision,
        Decision::Allow,
        "survives a restart: {after:?}"
    );
    let rules = match conn.request(&Request::ListRemembered { from: 0 }) {
        Ok(Response::Remembered(list)) => list.approvals,
        reply => panic!("expected the rules, got {reply:?}"),
    };
    assert_eq!(rules.len(), 1, "{rules:?}");
    assert!(rules[0].uses >= 2, "{rules:?}");
    assert!(rules[0].signature.contains("git push origin main"));
    let forgot = conn.request(&Request::Forget {
        id: Some(rules[0].id.clone()),
    });
    assert!(
        matches!(forgot, Ok(Response::Forgot { removed: 1 })),
        "{forgot:?}"
    );
    let denied = verdict_of(&mut conn, &agent_check("git push origin main", false));
    assert_eq!(
        denied.decision,
        Decision::Deny,
        "forgotten, and no agent now"
    );
}

#[test]
fn a_deny_is_never_remembered() {
    let daemon = daemon_denying_without_approver();
    let agent = Agent::start(&daemon, "deny", "always", true);
    let mut conn = daemon.connect();
    let first = verdict_of(&mut conn, &agent_check("git push", true));
    assert_eq!(first.decision, Decision::Confirm);
    assert!(!decided(&mut conn).allow);
    agent.until("withdrawn ");
    let again = verdict_of(&mut conn, &agent_check("git push", false));
    assert_eq!(again.decision, Decision::Confirm, "asked again: {again:?}");
    match conn.request(&Request::ListRemembered { from: 0 }) {
        Ok(Response::Remembered(list)) => assert!(list.approvals.is_empty(), "{list:?}"),
        reply => panic!("expected the rules, got {reply:?}"),
    }
}

#[test]
fn a_session_approval_covers_the_same_session_label_only() {
    let daemon = daemon_denying_without_approver();
    let agent = Agent::start(&daemon, "allow", "session", true);
    let mut conn = daemon.connect();
    let in_session = |label: &str, wait: bool| {
        Request::Check(CheckRequest {
            subject: assent_tests::shell("git push"),
            origin: Origin::Agent,
            context: Context {
                session: Some(label.into()),
                requires_confirmation: Some(true),
                ..Context::default()
            },
            wait,
        })
    };
    assert_eq!(
        verdict_of(&mut conn, &in_session("conv-1", true)).decision,
        Decision::Confirm
    );
    assert!(decided(&mut conn).allow);
    agent.until("withdrawn ");
    assert_eq!(
        verdict_of(&mut conn, &in_session("conv-1", false)).decision,
        Decision::Allow
    );
    assert_eq!(
        verdict_of(&mut conn, &in_session("conv-2", false)).decision,
        Decision::Confirm,
        "another conversation is asked again"
    );
}

#[test]
fn with_no_approver_ask_the_client_denies_what_only_an_agents_prompt_could_answer() {
    let daemon = TestDaemon::with(Options {
        no_approver: Some(assentd::policy::NoApprover::Ask),
        ..Options::default()
    });
    let mut conn = daemon.connect();
    let verdict = verdict_of(&mut conn, &agent_check("git push", true));
    assert_eq!(verdict.decision, Decision::Confirm);
    assert_eq!(
        verdict.token, None,
        "nothing was held: the agent's own prompt decides"
    );
    let output = assent_tests::run_bounded(
        assent_tests::assent(daemon.socket()).args(["check", "--", "git", "push"]),
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("assent-notify"),
        "{output:?}"
    );
}

#[test]
fn a_batch_of_tool_calls_claimed_interactive_meets_the_no_approver_rule_too() {
    let daemon = daemon_denying_without_approver();
    let mut conn = daemon.connect();
    // Tool calls are judged as tool calls whatever the caller claims, so "interactive" does
    // not make a person's own request of them.
    let batch = Request::CheckBatch(assent_client::protocol::BatchRequest {
        subjects: vec![assent_client::protocol::Subject::Tool {
            name: "database.drop_everything".into(),
            args_json: "{}".into(),
            cwd: None,
        }],
        origin: Origin::Interactive,
        context: Context::default(),
        wait: false,
    });
    match conn.request(&batch) {
        Ok(Response::BatchVerdict(verdict)) => {
            assert_eq!(verdict.token, None, "nothing held: {verdict:?}");
            assert_eq!(verdict.items[0].decision, Decision::Deny, "{verdict:?}");
            assert!(
                verdict.items[0].reason.contains("assent-notify"),
                "{verdict:?}"
            );
        }
        reply => panic!("expected a batch verdict, got {reply:?}"),
    }
}
