//! Held requests end to end: approve, deny, expire, cancel, every refused answer, the race of
//! two answers, the per-uid limit, and what a stop does to requests still held.
//!
//! Requests are held through the caller's own `requires_confirmation` claim, so these tests are
//! about holding and answering, whatever the analyser says about a command. Approvals come from
//! `assent-test-approver` (src/bin/approver.rs), a separate process that the tests start in a
//! new login session, because the daemon refuses an answer from the requester's own process or
//! session.

use std::time::Duration;

use assent_client::protocol::{DecidedBy, ErrorKind, PROTOCOL_VERSION, Request, Response};
use assent_tests::{
    Options, TestDaemon, approver, decided, held_check, hold, pending_tokens, refused, run_bounded,
    run_detached, wait_until,
};

/// Run the approver with `args` and return its one-line result (`done` or an error kind).
fn approve_with(daemon: &TestDaemon, args: &[&str], new_session: bool) -> String {
    let mut command = approver(daemon.socket());
    command.args(args);
    let output = if new_session {
        run_detached(&mut command)
    } else {
        run_bounded(&mut command)
    };
    assert!(
        output.status.success(),
        "the approver failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// Answer `token` from another login session, as a person at another terminal would.
fn answer_elsewhere(daemon: &TestDaemon, token: &str, verb: &str) -> String {
    approve_with(daemon, &["answer", token, verb], true)
}

fn answer(token: &str, allow: bool) -> Request {
    Request::Answer {
        token: token.into(),
        allow,
        session: None,
        item: None,
        remember: assent_client::protocol::Remember::Once,
    }
}

/// The heart of the gate: a held request waits on its connection until a person elsewhere
/// allows it, and then the requester hears who decided.
#[test]
fn an_approval_from_another_session_allows_the_waiting_requester() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "done");
    let outcome = decided(&mut requester);
    assert!(outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
    // The connection goes on after the outcome.
    match requester.request(&Request::Status) {
        Ok(Response::Status(status)) => assert_eq!(status.pending, 0),
        other => panic!("expected the status, got {other:?}"),
    }
}

/// A person's "no" reaches the waiting requester as a denial by the user.
#[test]
fn a_denial_from_another_session_denies_the_waiting_requester() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    assert_eq!(answer_elsewhere(&daemon, &token, "deny"), "done");
    let outcome = decided(&mut requester);
    assert!(!outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
}

/// Silence is a no: an unanswered request is denied when its time is up, and an answer that
/// arrives afterwards is told it came too late rather than "unknown token".
#[test]
fn an_unanswered_request_expires_and_a_late_answer_hears_expired() {
    let daemon = TestDaemon::with(Options {
        hold_ttl: Duration::from_millis(300),
        ..Options::default()
    });
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    let outcome = decided(&mut requester);
    assert!(!outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::Timeout);
    assert!(!pending_tokens(&mut requester).contains(&token));
    // An expired token is refused before any identity check, so even this connection hears it.
    assert_eq!(
        refused(daemon.connect().request(&answer(&token, true))),
        ErrorKind::Expired
    );
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "expired");
}

/// A request nobody waits on expires too: an answer after its deadline hears `expired`.
#[test]
fn a_request_held_without_waiting_expires_too() {
    let daemon = TestDaemon::with(Options {
        hold_ttl: Duration::from_millis(300),
        ..Options::default()
    });
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", false, None));
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "expired");
    assert!(!pending_tokens(&mut requester).contains(&token));
}

/// An agent that gives up withdraws its request on the waiting connection and hears that it
/// was cancelled; the token is then gone for approvers.
#[test]
fn cancel_on_the_waiting_connection_withdraws_the_request() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    requester
        .send(&Request::Cancel {
            token: token.clone(),
        })
        .expect("the cancel is sent");
    let outcome = decided(&mut requester);
    assert!(!outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::Cancelled);
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "not_found");
}

/// A requester that dies (closes its connection) must not leave a request an approver could
/// still allow for nobody.
#[test]
fn closing_the_waiting_connection_withdraws_the_request() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    let mut observer = daemon.connect();
    assert!(pending_tokens(&mut observer).contains(&token));
    drop(requester);
    assert!(
        wait_until(Duration::from_secs(5), || !pending_tokens(&mut observer)
            .contains(&token)),
        "the request is still listed after its requester left"
    );
    assert_eq!(
        refused(observer.request(&answer(&token, true))),
        ErrorKind::NotFound
    );
}

/// The requester's owner may cancel from another connection (a second terminal), and the
/// waiting connection hears it.
#[test]
fn the_owner_can_cancel_from_another_connection() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    let reply = daemon.connect().request(&Request::Cancel {
        token: token.clone(),
    });
    assert!(matches!(reply, Ok(Response::Done)), "{reply:?}");
    assert_eq!(decided(&mut requester).by, DecidedBy::Cancelled);
}

/// A token that never existed is `not_found`, not a hint about which tokens do.
#[test]
fn answering_an_unknown_token_is_not_found() {
    let daemon = TestDaemon::start();
    let token = "pa_00000000000000000000000000000000";
    assert_eq!(
        refused(daemon.connect().request(&answer(token, true))),
        ErrorKind::NotFound
    );
    assert_eq!(answer_elsewhere(&daemon, token, "deny"), "not_found");
}

/// A token is consumed by its answer: answering again is `not_found`, so an approval can never
/// be replayed.
#[test]
fn answering_an_answered_token_is_not_found() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", false, None));
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "done");
    assert_eq!(answer_elsewhere(&daemon, &token, "deny"), "not_found");
}

/// Authority comes from the kernel's uid: another (non-root) user cannot answer my request,
/// nor cancel it.
#[test]
fn another_uid_cannot_answer_or_cancel() {
    if !assent_tests::needs::needs_root("running as another uid") {
        return;
    }
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", false, None));
    let as_nobody = |verb: &str| approve_with(&daemon, &["--uid", "65534", verb, &token], true);
    assert_eq!(
        approve_with(
            &daemon,
            &["--uid", "65534", "answer", &token, "allow"],
            true
        ),
        "user_mismatch"
    );
    assert_eq!(as_nobody("cancel"), "user_mismatch");
    // Still held: a refused answer consumes nothing. Root may answer anyone's.
    assert!(pending_tokens(&mut requester).contains(&token));
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "done");
}

/// An approver scoped to one agent conversation cannot answer another conversation's request;
/// one scoped to the right conversation can.
#[test]
fn an_answer_for_another_session_label_is_refused() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(
        &mut requester,
        &held_check("rm -rf build", true, Some("s1")),
    );
    assert_eq!(
        approve_with(&daemon, &["answer", &token, "allow", "other"], true),
        "session_mismatch"
    );
    assert_eq!(
        approve_with(&daemon, &["answer", &token, "allow", "s1"], true),
        "done"
    );
    let outcome = decided(&mut requester);
    assert!(outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
}

/// An agent must not approve its own request on the connection it asked on.
#[test]
fn the_requesting_connection_cannot_approve_itself() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", false, None));
    assert_eq!(
        refused(requester.request(&answer(&token, true))),
        ErrorKind::SelfApproval
    );
    assert!(
        pending_tokens(&mut requester).contains(&token),
        "still held"
    );
}

/// Nor from a second connection of the same process.
#[test]
fn another_connection_of_the_requesting_process_cannot_approve() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", false, None));
    assert_eq!(
        refused(daemon.connect().request(&answer(&token, true))),
        ErrorKind::SelfApproval
    );
    assert!(
        pending_tokens(&mut requester).contains(&token),
        "still held"
    );
}

/// Nor by running an approver in its own login session (an agent running `assent approve`).
#[test]
fn another_process_of_the_requesting_login_session_cannot_approve() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", false, None));
    assert_eq!(
        approve_with(&daemon, &["answer", &token, "allow"], false),
        "self_approval"
    );
    assert!(
        pending_tokens(&mut requester).contains(&token),
        "still held"
    );
}

/// A runaway agent cannot queue requests without bound: past the per-uid limit the next held
/// request is refused with a clear error, and room frees up when one ends.
#[test]
fn the_pending_limit_refuses_the_next_held_request() {
    let daemon = TestDaemon::with(Options {
        max_pending_per_uid: 2,
        ..Options::default()
    });
    let mut conn = daemon.connect();
    let first = hold(&mut conn, &held_check("rm -rf a", false, None));
    hold(&mut conn, &held_check("rm -rf b", false, None));
    assert_eq!(
        refused(conn.request(&held_check("rm -rf c", false, None))),
        ErrorKind::LimitReached
    );
    // An allowed check is not affected by the limit.
    let verdict = assent_tests::verdict_of(
        &mut conn,
        &assent_tests::check("ls", assent_client::protocol::Origin::Agent),
    );
    assert_eq!(verdict.decision, assent_client::protocol::Decision::Allow);
    assert!(matches!(
        conn.request(&Request::Cancel { token: first }),
        Ok(Response::Done)
    ));
    hold(&mut conn, &held_check("rm -rf c", false, None));
}

/// Consuming a token is atomic: of two answers at the same moment exactly one wins and the
/// other hears `not_found`.
#[test]
fn two_racing_answers_one_wins() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    for _ in 0..10 {
        let token = hold(&mut requester, &held_check("rm -rf build", true, None));
        let results = approve_with(&daemon, &["race", &token], true);
        let mut results: Vec<&str> = results.lines().collect();
        results.sort_unstable();
        assert_eq!(results, ["done", "not_found"]);
        let outcome = decided(&mut requester);
        assert!(outcome.allow, "{outcome:?}");
    }
}

/// A stopping gate must not leave agents waiting forever nor let them run: every held request
/// ends as a denial saying the gate is stopping, and `run` returns promptly.
#[test]
fn shutdown_denies_held_requests_with_gate_stopping() {
    let mut daemon = TestDaemon::start();
    let mut waiting: Vec<_> = (0..3)
        .map(|i| {
            let mut conn = daemon.connect();
            hold(
                &mut conn,
                &held_check(&format!("rm -rf build{i}"), true, None),
            );
            conn
        })
        .collect();
    let took = daemon.stop().expect("assentd::run returns after shutdown");
    assert!(took < Duration::from_secs(1), "run took {took:?} to return");
    for conn in &mut waiting {
        let outcome = decided(conn);
        assert!(!outcome.allow, "{outcome:?}");
        assert_eq!(outcome.by, DecidedBy::Shutdown);
        assert!(outcome.reason.contains("gate stopping"), "{outcome:?}");
        assert!(matches!(conn.recv(), Err(assent_client::Error::Closed)));
    }
}

/// Approvers see what they are asked to approve: the held request is listed with its subject,
/// session label and requester, and every ending is in the audit log.
#[test]
fn held_requests_are_listed_and_audited() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(
        &mut requester,
        &held_check("rm -rf build", false, Some("conv-7")),
    );
    let items = match requester.request(&Request::ListPending { from: 0 }) {
        Ok(Response::Pending(list)) => list.items,
        other => panic!("expected the pending list, got {other:?}"),
    };
    let item = items
        .iter()
        .find(|item| item.token == token)
        .expect("the held request is listed");
    assert_eq!(item.subject, "rm -rf build");
    assert_eq!(item.session.as_deref(), Some("conv-7"));
    assert_eq!(item.cwd.as_deref(), Some("/tmp"));
    assert_eq!(item.uid, nix::unistd::geteuid().as_raw());
    assert_eq!(
        item.pid,
        i32::try_from(std::process::id()).expect("pid fits")
    );
    assert_eq!(answer_elsewhere(&daemon, &token, "deny"), "done");
    let events = match requester.request(&Request::Log { limit: 10, from: 0 }) {
        Ok(Response::Log(page)) => page.events,
        other => panic!("expected the log, got {other:?}"),
    };
    let for_token: Vec<_> = events
        .iter()
        .filter(|event| event.token.as_deref() == Some(token.as_str()))
        .collect();
    assert_eq!(for_token.len(), 2, "held, then denied: {events:?}");
    assert_eq!(for_token[1].by, DecidedBy::User);
}

/// A request held without waiting was handed on as a token: its requester leaving must not
/// withdraw it, or `--no-wait` tokens would die with the process that printed them.
#[test]
fn a_request_held_without_waiting_outlives_its_connection() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", false, None));
    drop(requester);
    let mut observer = daemon.connect();
    // A disconnect would be handled at once; give it a moment to (wrongly) happen.
    std::thread::sleep(Duration::from_millis(100));
    assert!(pending_tokens(&mut observer).contains(&token));
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "done");
}

/// While a connection waits for its outcome, any request but Cancel is refused and the wait
/// goes on: the outcome still arrives.
#[test]
fn a_waiting_connection_refuses_other_requests_and_keeps_waiting() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    assert_eq!(
        refused(requester.request(&Request::Status)),
        ErrorKind::Invalid
    );
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "done");
    let outcome = decided(&mut requester);
    assert!(outcome.allow, "{outcome:?}");
}

/// A waiting requester that breaks the protocol loses its request: it is withdrawn, not left
/// for an approver to allow for nobody.
#[test]
fn garbage_on_a_waiting_connection_withdraws_the_request() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = hold(&mut requester, &held_check("rm -rf build", true, None));
    requester
        .send_raw(&[PROTOCOL_VERSION as u8, 0, 0xff])
        .expect("the packet is sent");
    match requester.recv() {
        Ok(Response::Error(error)) => assert_eq!(error.kind, ErrorKind::BadMessage),
        other => panic!("expected bad_message, got {other:?}"),
    }
    assert!(matches!(
        requester.recv(),
        Err(assent_client::Error::Closed)
    ));
    assert_eq!(answer_elsewhere(&daemon, &token, "allow"), "not_found");
}

/// After a stop, the socket no longer accepts: no request can slip in while the gate is down.
#[test]
fn a_stopped_daemon_accepts_no_connections() {
    let mut daemon = TestDaemon::start();
    let mut idle = daemon.connect();
    // Served once, so it is an accepted connection and not one still in the backlog.
    assert!(matches!(
        idle.request(&Request::Status),
        Ok(Response::Status(_))
    ));
    daemon.stop().expect("assentd::run returns after shutdown");
    let after = idle.recv();
    assert!(
        matches!(after, Err(assent_client::Error::Closed)),
        "an idle connection is closed at stop: {after:?}"
    );
    assert!(assent_client::Connection::connect(daemon.socket()).is_err());
}

/// Approvers must see every held request: ten held commands of nearly 16 KiB each (more than
/// one packet together) are all listed, or the list says it is incomplete.
#[test]
fn the_pending_list_shows_every_request_even_when_large() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let tokens: Vec<String> = (0..10)
        .map(|i| {
            let command = format!("echo {i} {}", "x".repeat(15 * 1024));
            hold(&mut requester, &held_check(&command, false, None))
        })
        .collect();
    let listed = pending_tokens(&mut daemon.connect());
    let missing = tokens.iter().filter(|t| !listed.contains(t)).count();
    assert_eq!(missing, 0, "{missing} of 10 held requests are not listed");
}

/// When even shortened commands cannot all fit one reply, the list comes in pages, and reading
/// them all gives every held request once.
#[test]
fn a_pending_list_too_large_for_one_packet_comes_in_pages() {
    let daemon = TestDaemon::with(Options {
        max_pending_per_uid: 64,
        ..Options::default()
    });
    let mut requester = daemon.connect();
    for i in 0..40 {
        let command = format!("echo {i} {}", "y".repeat(15 * 1024));
        hold(&mut requester, &held_check(&command, false, None));
    }
    let list = match daemon.connect().request(&Request::ListPending { from: 0 }) {
        Ok(Response::Pending(list)) => list,
        other => panic!("expected the pending list, got {other:?}"),
    };
    assert!(
        list.next.is_some() && list.items.len() < 40,
        "40 commands of 4 KiB each cannot fit 128 KiB"
    );
    let all = daemon.connect().pending().expect("every page");
    let mut tokens: Vec<&str> = all.iter().map(|item| item.token.as_str()).collect();
    tokens.sort_unstable();
    tokens.dedup();
    assert_eq!(tokens.len(), 40);
    assert!(
        all.iter()
            .all(|item| item.subject.len() <= 4096 + '…'.len_utf8())
    );
}
