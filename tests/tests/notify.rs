//! `assent-notify` end to end: the real agent binary, the real daemon, a private
//! `dbus-daemon` and a recording notification server on it (`assent_tests::dbus`).
//!
//! Every command here only goes to the analyser: the test holds it, the agent shows it, the
//! test clicks a button, and the test reads the daemon's decision. Nothing is executed.

use assent_tests::needs::{DBUS_DAEMON, needs};
use std::time::Duration;

use assent_client::protocol::{
    BatchRequest, Context, DecidedBy, Decision, Origin, Request, Response,
};
use assent_tests::dbus::{Agent, Notifications, PrivateBus};
use assent_tests::{
    Options, TestDaemon, assent, decided, held_check, hold, pending_tokens, run_detached, shell,
    verdict_of,
};

/// A daemon, a private bus, a notification server and the agent, registered.
struct Setup {
    daemon: TestDaemon,
    bus: PrivateBus,
    server: Option<Notifications>,
    agent: Agent,
}

fn setup_with(options: Options, server: bool) -> Setup {
    let daemon = TestDaemon::with(options);
    let bus = PrivateBus::start();
    let server = server.then(|| Notifications::start(&bus, 1));
    let agent = if server.is_some() {
        Agent::start(daemon.socket(), &bus)
    } else {
        Agent::spawn(daemon.socket(), &bus)
    };
    Setup {
        daemon,
        bus,
        server,
        agent,
    }
}

/// Whether every action key of `shown` is random (`a` and 32 hex digits) and its own.
fn random_keys(shown: &assent_tests::dbus::Shown) -> bool {
    let mut keys = shown.actions.clone();
    keys.sort_unstable();
    keys.dedup();
    keys.len() == shown.actions.len()
        && keys.iter().all(|k| {
            k.len() == 33 && k.starts_with('a') && k[1..].bytes().all(|b| b.is_ascii_hexdigit())
        })
}

fn setup() -> Setup {
    setup_with(Options::default(), true)
}

/// Held requests expire after two seconds.
fn short_ttl() -> Options {
    Options {
        hold_ttl: Duration::from_secs(2),
        ..Options::default()
    }
}

impl Setup {
    fn server(&self) -> &Notifications {
        self.server.as_ref().expect("this setup has a server")
    }

    /// Click "Remember…" on `shown`: it closes, and a new notification for the same request
    /// offers the remembering answers, Deny still beside them. Returns the new one.
    fn remembering(&self, shown: &assent_tests::dbus::Shown) -> assent_tests::dbus::Shown {
        self.server().click(shown.id, "Remember…");
        assert!(self.server().wait_closed(shown.id));
        let again = self.server().wait_for("the remembering answers", |n| {
            n.id != shown.id
                && n.labels
                    .first()
                    .is_some_and(|a| a == "Allow for this session")
        });
        assert_eq!(
            again.body.lines().next(),
            shown.body.lines().next(),
            "the same request"
        );
        assert!(random_keys(&again), "{again:#?}");
        assert_eq!(
            again.labels,
            ["Allow for this session", "Always allow", "Deny"]
        );
        assert_eq!(again.summary, shown.summary);
        again
    }

    fn remembered(&self) -> usize {
        let mut conn = self.daemon.connect();
        conn.remembered().expect("the remembered approvals").len()
    }
}

#[test]
fn allow_once_shows_who_wants_what_and_allows_this_request_only() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    hold(
        &mut conn,
        &held_check("git push --force", true, Some("conv-7")),
    );
    let shown = s.server().wait_for_body("git push --force");
    assert!(
        shown
            .summary
            .ends_with("wants to run a destructive command"),
        "{shown:#?}"
    );
    assert_eq!(shown.urgency, Some(2), "destructive is critical");
    // Three buttons at most, Deny always among them.
    assert!(random_keys(&shown), "{shown:#?}");
    assert_eq!(shown.labels, ["Allow once", "Remember…", "Deny"]);
    assert!(shown.body.contains("in /tmp"), "{}", shown.body);
    assert!(shown.body.contains("session conv-7"), "{}", shown.body);
    assert!(shown.body.contains(" · answer by "), "{}", shown.body);
    assert!(
        shown.expire_ms > 0 && shown.expire_ms <= 60_000,
        "expire timeout is the time left: {shown:#?}"
    );

    s.server().click(shown.id, "Allow once");
    let outcome = decided(&mut conn);
    assert!(outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
    // The server keeps a clicked notification (as dunst does): the agent closes it.
    assert!(s.server().wait_closed(shown.id));
    assert_eq!(s.remembered(), 0, "once remembers nothing");
    // The same request again is held again.
    let again = verdict_of(
        &mut s.daemon.connect(),
        &held_check("git push --force", false, None),
    );
    assert_eq!(again.decision, Decision::Confirm);
}

#[test]
fn allow_for_this_session_allows_the_same_request_of_that_session_without_a_notification() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    hold(
        &mut conn,
        &held_check("touch notify-session", true, Some("conv-1")),
    );
    let shown = s.server().wait_for_body("touch notify-session");
    let remembering = s.remembering(&shown);
    s.server().click(remembering.id, "Allow for this session");
    assert!(decided(&mut conn).allow);
    assert!(s.server().wait_closed(remembering.id));

    let again = verdict_of(
        &mut s.daemon.connect(),
        &held_check("touch notify-session", false, Some("conv-1")),
    );
    assert_eq!(again.decision, Decision::Allow, "{again:?}");
    let shown_for_it = s
        .server()
        .shown()
        .iter()
        .filter(|n| n.body.contains("touch notify-session"))
        .count();
    assert_eq!(
        shown_for_it, 2,
        "the request and its remembering answers; none for the allowed repeat"
    );
    // Another session's identical request is not covered.
    let other = verdict_of(
        &mut s.daemon.connect(),
        &held_check("touch notify-session", false, Some("conv-2")),
    );
    assert_eq!(other.decision, Decision::Confirm, "{other:?}");
}

#[test]
fn always_allow_is_remembered_across_a_daemon_restart() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let mut s = setup();
    let mut conn = s.daemon.connect();
    hold(&mut conn, &held_check("touch notify-always", true, None));
    let shown = s.server().wait_for_body("touch notify-always");
    let remembering = s.remembering(&shown);
    s.server().click(remembering.id, "Always allow");
    assert!(decided(&mut conn).allow);
    assert_eq!(s.remembered(), 1);

    drop(conn);
    s.daemon.restart();
    let again = verdict_of(
        &mut s.daemon.connect(),
        &held_check("touch notify-always", false, None),
    );
    assert_eq!(again.decision, Decision::Allow, "{again:?}");
    assert_eq!(s.remembered(), 1);
}

#[test]
fn deny_denies_once_and_remembers_nothing() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    hold(&mut conn, &held_check("touch notify-deny", true, None));
    let shown = s.server().wait_for_body("touch notify-deny");
    s.server().click(shown.id, "Deny");
    let outcome = decided(&mut conn);
    assert!(!outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
    assert!(s.server().wait_closed(shown.id));
    assert_eq!(s.remembered(), 0);
    let again = verdict_of(
        &mut s.daemon.connect(),
        &held_check("touch notify-deny", false, None),
    );
    assert_eq!(again.decision, Decision::Confirm);
}

#[test]
fn a_dismissed_notification_leaves_the_request_held_until_it_expires_as_a_deny() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup_with(short_ttl(), true);
    let mut conn = s.daemon.connect();
    let token = hold(&mut conn, &held_check("touch notify-dismiss", true, None));
    let shown = s.server().wait_for_body("touch notify-dismiss");
    s.server().dismiss(shown.id);
    assert!(s.agent.wait_log("notification closed without an answer"));
    // Still held: the dismissal answered nothing.
    assert!(pending_tokens(&mut s.daemon.connect()).contains(&token));

    let outcome = decided(&mut conn);
    assert!(!outcome.allow);
    assert_eq!(outcome.by, DecidedBy::Timeout, "a dismissal is no answer");
    let missed = s.server().wait_for("saying the request was missed", |n| {
        n.summary.starts_with("Missed request") && n.body.contains("touch notify-dismiss")
    });
    assert!(missed.actions.is_empty());
    assert_eq!(
        s.remembered(),
        0,
        "an expiry never creates a remembered approval"
    );
}

#[test]
fn an_expired_request_is_withdrawn_and_reported_as_missed() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup_with(short_ttl(), true);
    let mut conn = s.daemon.connect();
    hold(&mut conn, &held_check("touch notify-expire", true, None));
    let shown = s.server().wait_for_body("touch notify-expire");
    let outcome = decided(&mut conn);
    assert_eq!(outcome.by, DecidedBy::Timeout);
    assert!(s.server().wait_closed(shown.id), "the agent closes it");
    assert!(s.server().close_calls().contains(&shown.id));
    s.server().wait_for("saying the request was missed", |n| {
        n.summary.starts_with("Missed request") && n.body.contains("touch notify-expire")
    });
    assert_eq!(s.remembered(), 0);
}

#[test]
fn a_request_answered_from_the_cli_is_withdrawn_from_the_desktop() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    let token = hold(&mut conn, &held_check("touch notify-cli", true, None));
    let shown = s.server().wait_for_body("touch notify-cli");
    let output = run_detached(assent(s.daemon.socket()).args(["approve", &token]));
    assert!(
        output.status.success(),
        "assent approve: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(decided(&mut conn).allow);
    assert!(s.server().wait_closed(shown.id));
    assert!(s.server().close_calls().contains(&shown.id));
    assert!(
        !s.server()
            .shown()
            .iter()
            .any(|n| n.summary.starts_with("Missed")),
        "answered elsewhere is not missed"
    );
}

/// A restarted notification server cannot be told from one an agent started in its place: it
/// is not shown the requests held across the restart (they are answered with `assent approve`
/// or `assent deny`), and is shown what comes once they have ended.
#[test]
fn a_restarted_notification_server_gets_only_what_is_held_after_the_restart() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let mut s = setup();
    let mut conn = s.daemon.connect();
    let token = hold(
        &mut conn,
        &held_check("touch notify-server-restart", true, None),
    );
    s.server().wait_for_body("touch notify-server-restart");
    s.server.take().expect("a server").stop();
    // The new server numbers from 100, so an id of the old one cannot be mistaken for it.
    let server = Notifications::start(&s.bus, 100);
    assert!(s.agent.wait_log("changed owner while requests are held"));
    // The agent has found the new server before the request ends.
    assert!(
        assent_tests::wait_until(assent_tests::RECV_TIMEOUT, || s
            .agent
            .log()
            .matches("notification server found")
            .count()
            >= 2),
        "{}",
        s.agent.log()
    );
    let output = run_detached(assent(s.daemon.socket()).args(["deny", &token]));
    assert!(
        output.status.success(),
        "assent deny: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!decided(&mut conn).allow);
    assert!(s.agent.wait_log("trusted again"), "{}", s.agent.log());
    assert!(server.shown().is_empty(), "{:#?}", server.shown());
    let mut conn = s.daemon.connect();
    hold(
        &mut conn,
        &held_check("touch notify-after-server-restart", true, None),
    );
    let again = server.wait_for_body("touch notify-after-server-restart");
    assert!(again.id >= 100, "{again:#?}");
    server.click(again.id, "Allow once");
    assert!(decided(&mut conn).allow);
    assert!(server.wait_closed(again.id));
}

/// With no notification server the agent does not register (requests would wait where
/// nobody sees them): the daemon has no approval agent, so the policy's no-approver rule
/// applies at once. It registers when a server appears, and unregisters when it leaves.
#[test]
fn with_no_notification_server_the_agent_waits_unregistered() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let mut s = setup_with(
        Options {
            no_approver: Some(assentd::policy::NoApprover::Deny),
            ..short_ttl()
        },
        false,
    );
    assert!(s.agent.wait_log("waiting for a notification server"));
    let mut conn = s.daemon.connect();
    let refused = verdict_of(&mut conn, &held_check("touch notify-no-server", true, None));
    assert_eq!(refused.decision, Decision::Deny, "{refused:?}");
    assert!(
        refused.reason.contains("no approval agent"),
        "{}",
        refused.reason
    );
    assert!(s.agent.running(), "the agent survives: {}", s.agent.log());
    assert_eq!(s.agent.registrations(), 0, "{}", s.agent.log());
    // A server that comes later is found, and requests are shown there.
    let server = Notifications::start(&s.bus, 1);
    assert!(s.agent.wait_log("notification server found"));
    s.agent.wait_registered(1);
    let mut conn = s.daemon.connect();
    hold(
        &mut conn,
        &held_check("touch notify-late-server", true, None),
    );
    let shown = server.wait_for_body("touch notify-late-server");
    server.click(shown.id, "Allow once");
    assert!(decided(&mut conn).allow);
    // It leaves: the agent unregisters, and the daemon sees no approval agent again.
    server.stop();
    assert!(s.agent.wait_log("unregistered until one is back"));
    let status_says_none = assent_tests::wait_until(Duration::from_secs(5), || {
        let output = assent_tests::run_bounded(assent(s.daemon.socket()).arg("status"));
        String::from_utf8_lossy(&output.stdout).contains("approval agents: none")
    });
    assert!(status_says_none, "{}", s.agent.log());
}

#[test]
fn after_a_daemon_restart_the_agent_reconnects_and_shows_new_requests() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let mut s = setup();
    let mut conn = s.daemon.connect();
    hold(
        &mut conn,
        &held_check("touch notify-before-restart", true, None),
    );
    let before = s.server().wait_for_body("touch notify-before-restart");
    s.daemon.restart();
    // The old request ended with the old daemon: its notification goes.
    assert!(s.server().wait_closed(before.id));
    s.agent.wait_registered(2);

    let mut conn = s.daemon.connect();
    hold(
        &mut conn,
        &held_check("touch notify-after-restart", true, None),
    );
    let after = s.server().wait_for_body("touch notify-after-restart");
    s.server().click(after.id, "Allow once");
    assert!(decided(&mut conn).allow);
}

#[test]
fn identical_requests_share_one_notification_and_one_answer() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut first = s.daemon.connect();
    let mut second = s.daemon.connect();
    hold(&mut first, &held_check("touch notify-twins", true, None));
    s.server().wait_for_body("touch notify-twins");
    hold(&mut second, &held_check("touch notify-twins", true, None));
    let shown = s.server().wait_for_body("2 identical requests");
    let ids: std::collections::BTreeSet<u32> = s
        .server()
        .shown()
        .iter()
        .filter(|n| n.body.contains("touch notify-twins"))
        .map(|n| n.id)
        .collect();
    assert_eq!(ids.len(), 1, "one notification: {:#?}", s.server().shown());
    s.server().click(shown.id, "Allow once");
    assert!(decided(&mut first).allow);
    assert!(decided(&mut second).allow);
}

fn batch(commands: &[&str]) -> Request {
    Request::CheckBatch(BatchRequest {
        subjects: commands.iter().map(|c| shell(c)).collect(),
        origin: Origin::Agent,
        context: Context {
            requires_confirmation: Some(true),
            ..Context::default()
        },
        wait: true,
    })
}

fn batch_held(conn: &mut assent_client::Connection, request: &Request) -> String {
    match conn.request(request) {
        Ok(Response::BatchVerdict(verdict)) => verdict.token.expect("the batch is held"),
        other => panic!("expected a batch verdict, got {other:?}"),
    }
}

fn batch_decided(conn: &mut assent_client::Connection) -> Vec<bool> {
    match conn.recv() {
        Ok(Response::BatchDecided(outcome)) => outcome.items.iter().map(|d| d.allow).collect(),
        other => panic!("expected the batch's outcome, got {other:?}"),
    }
}

#[test]
fn a_batch_is_one_notification_with_allow_all_deny_all_and_review() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    batch_held(
        &mut conn,
        &batch(&["touch notify-b1", "touch notify-b2", "touch notify-b3"]),
    );
    let shown = s.server().wait_for_body("touch notify-b1");
    assert!(shown.summary.contains("3 operations"), "{shown:#?}");
    assert_eq!(shown.labels, ["Allow all", "Deny all", "Review"]);
    assert!(random_keys(&shown), "{shown:#?}");
    assert_eq!(shown.labels, ["Allow all", "Deny all", "Review"]);
    s.server().click(shown.id, "Deny all");
    assert_eq!(batch_decided(&mut conn), [false, false, false]);
    assert!(s.server().wait_closed(shown.id));

    // Review: one notification per item, each answered on its own.
    let mut conn = s.daemon.connect();
    batch_held(
        &mut conn,
        &batch(&["touch notify-r1", "touch notify-r2", "touch notify-r3"]),
    );
    let shown = s.server().wait_for_body("touch notify-r1");
    s.server().click(shown.id, "Review");
    assert!(s.server().wait_closed(shown.id));
    let items: Vec<_> = (1..=3)
        .map(|n| {
            s.server().wait_for(&format!("for item {n}"), |note| {
                note.summary.ends_with(&format!("(item {n} of 3)"))
                    && note.body.contains(&format!("touch notify-r{n}"))
            })
        })
        .collect();
    for item in &items {
        assert_eq!(item.labels, ["Allow once", "Remember…", "Deny"]);
        assert!(random_keys(item), "{item:#?}");
    }
    s.server().click(items[0].id, "Allow once");
    s.server().click(items[1].id, "Deny");
    s.server().click(items[2].id, "Allow once");
    assert_eq!(batch_decided(&mut conn), [true, false, true]);
}

#[test]
fn without_action_buttons_the_notification_says_how_to_answer() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let daemon = TestDaemon::start();
    let bus = PrivateBus::start();
    let server = Notifications::with_capabilities(&bus, 1, &["body"]);
    let agent = Agent::start(daemon.socket(), &bus);
    let mut conn = daemon.connect();
    let token = hold(
        &mut conn,
        &held_check("touch notify-no-actions", true, None),
    );
    let shown = server.wait_for_body("touch notify-no-actions");
    assert!(shown.actions.is_empty(), "{shown:#?}");
    assert!(
        shown.body.contains(&format!("assent approve {token}")),
        "{shown:#?}"
    );
    assert!(!shown.body.contains("<b>"), "no markup: {shown:#?}");
    assert!(agent.log().contains("no action buttons"), "{}", agent.log());
    // The agent told the daemon, and `assent status` warns.
    let status = status_of(&daemon);
    assert!(
        status
            .contains("warning: 1 of them show requests on a notification server without buttons"),
        "{status}"
    );
}

/// `assent status` as the person would read it.
fn status_of(daemon: &TestDaemon) -> String {
    let output = assent_tests::run_bounded(assent_tests::assent(daemon.socket()).arg("status"));
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A server that shows buttons: no warning.
#[test]
fn status_does_not_warn_of_a_notification_server_with_buttons() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let status = status_of(&s.daemon);
    assert!(status.contains("approval agents: 1"), "{status}");
    assert!(!status.contains("without buttons"), "{status}");
}

#[test]
fn the_agent_stops_cleanly_on_sigterm_and_closes_its_notifications() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    hold(&mut conn, &held_check("touch notify-sigterm", true, None));
    let shown = s.server().wait_for_body("touch notify-sigterm");
    let Setup {
        agent,
        server,
        daemon,
        bus,
    } = s;
    assert_eq!(agent.terminate(), Some(0));
    let server = server.expect("a server");
    assert!(server.close_calls().contains(&shown.id));
    drop((daemon, bus));
}

#[test]
fn a_second_agent_on_the_same_session_bus_exits_at_once() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut second = assent_tests::our_command("assent-notify");
    second
        .arg("--socket")
        .arg(s.daemon.socket())
        .env("DBUS_SESSION_BUS_ADDRESS", s.bus.address())
        .env_remove("JOURNAL_STREAM");
    let output = run_detached(&mut second);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("already running"), "{stderr}");
    assert_eq!(s.agent.registrations(), 1);
}
