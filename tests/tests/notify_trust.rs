//! `assent-notify` attacked as an agent would: the real agent binary and the real daemon, a
//! private `dbus-daemon`, the recording notification server (`assent_tests::dbus`) and another
//! connection on the bus that sends the server's signals ([`Forger`]).
//!
//! Each test tries one way to answer for the person or to show them something else, and checks
//! it fails while the person can still answer. Every command only goes to the analyser: the test
//! holds it, the agent shows it, nothing is executed.

use std::time::Duration;

use assent_client::protocol::{DecidedBy, Finding, Level};
use assent_tests::dbus::{Agent, Forger, Notifications, PrivateBus};
use assent_tests::needs::{DBUS_DAEMON, needs};
use assent_tests::{
    RECV_TIMEOUT, TestDaemon, assent, decided, held_check, hold, pending_tokens, run_detached,
    wait_until,
};

/// A daemon, a private bus, a notification server and the agent, registered.
struct Setup {
    daemon: TestDaemon,
    bus: PrivateBus,
    server: Option<Notifications>,
    agent: Agent,
}

fn setup() -> Setup {
    let daemon = TestDaemon::start();
    let bus = PrivateBus::start();
    let server = Notifications::start(&bus, 1);
    let agent = Agent::start(daemon.socket(), &bus);
    Setup {
        daemon,
        bus,
        server: Some(server),
        agent,
    }
}

impl Setup {
    fn server(&self) -> &Notifications {
        self.server.as_ref().expect("this setup has a server")
    }

    /// Whether the held request `token` is still held.
    fn still_held(&self, token: &str) -> bool {
        pending_tokens(&mut self.daemon.connect()).contains(&token.to_string())
    }
}

/// `ActionInvoked` from another connection does not answer: not to the agent with the right id
/// and the right key (read off the bus, as a program allowed to eavesdrop could), not as a
/// broadcast, not with the guessable name of the action. The person's click still does.
#[test]
fn a_forged_click_from_another_connection_is_not_an_answer() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    let token = hold(&mut conn, &held_check("git push --force", true, None));
    let shown = s.server().wait_for_body("git push --force");
    let key = s.server().key(shown.id, "Allow once");
    assert_ne!(key, "allow-once", "the key is not the action's name");

    let forger = Forger::connect(&s.bus);
    assert_ne!(forger.name(), shown.sender);
    forger.click(Some(&shown.sender), shown.id, &key);
    forger.click(None, shown.id, &key);
    forger.click(Some(&shown.sender), shown.id, "allow-once");
    assert!(
        wait_until(RECV_TIMEOUT, || s
            .agent
            .log()
            .matches("ActionInvoked ignored")
            .count()
            >= 3),
        "the forged clicks were not seen and ignored; assent-notify's log:\n{}",
        s.agent.log()
    );
    assert!(s.still_held(&token), "a forged click answered the request");
    assert!(s.server().is_open(shown.id));

    // The person's click, from the server that showed it, does.
    s.server().click(shown.id, "Deny");
    let outcome = decided(&mut conn);
    assert!(
        !outcome.allow && outcome.by == DecidedBy::User,
        "{outcome:?}"
    );
}

/// An agent that kills the notification server and starts its own gets nothing shown while
/// the request is held, cannot click it, and the person answers with `assent approve`. Once
/// no request held at the change is left, the new server is trusted again (logged at warn).
#[test]
fn a_server_that_took_the_name_while_a_request_is_held_is_shown_nothing() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let mut s = setup();
    let mut conn = s.daemon.connect();
    let token = hold(
        &mut conn,
        &held_check("touch notify-taken-over", true, None),
    );
    let first = s.server().wait_for_body("touch notify-taken-over");
    s.server.take().expect("a server").stop();
    let usurper = Notifications::start(&s.bus, 100);
    // Both changes seen: the name left, and was taken. (A request held before the agent has
    // seen a change is one held during it, and waited for too.)
    assert!(
        wait_until(RECV_TIMEOUT, || s
            .agent
            .log()
            .matches("changed owner while requests are held")
            .count()
            >= 2),
        "{}",
        s.agent.log()
    );
    // A second request held meanwhile is not shown either.
    let mut other = s.daemon.connect();
    let second = hold(
        &mut other,
        &held_check("touch notify-meanwhile", true, None),
    );
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        usurper.shown().is_empty(),
        "the new owner was shown {:#?}",
        usurper.shown()
    );
    // It guesses at the old notification's id with every key it might try.
    for key in ["allow-once", &first.actions[0]] {
        let forger = Forger::connect(&s.bus);
        forger.click(Some(&first.sender), first.id, key);
    }
    assert!(s.still_held(&token));

    // The person answers at the terminal: the daemon kept the request.
    let output = run_detached(assent(s.daemon.socket()).args(["approve", &token]));
    assert!(
        output.status.success(),
        "assent approve: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let outcome = decided(&mut conn);
    assert!(
        outcome.allow && outcome.by == DecidedBy::User,
        "{outcome:?}"
    );
    assert!(s.still_held(&second), "the second request is still held");

    // That was the last request held at the change: trust comes back, and what was held since
    // is shown.
    assert!(s.agent.wait_log("trusted again"), "{}", s.agent.log());
    assert!(
        wait_until(RECV_TIMEOUT, || usurper
            .shown()
            .iter()
            .any(|n| n.body.contains("touch notify-meanwhile"))),
        "not shown once trusted again; assent-notify's log:\n{}",
        s.agent.log()
    );
    let shown = usurper.wait_for_body("touch notify-meanwhile");
    usurper.click(shown.id, "Allow once");
    assert!(decided(&mut other).allow);
}

/// notification-daemon sends a click as `ActionInvoked` then `NotificationClosed`; read from
/// two streams, the close could be handled first and the click lost (2 of 7 were). Twenty
/// clicks sent that way are twenty answers.
#[test]
fn twenty_clicks_followed_by_a_close_are_twenty_answers() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    for n in 0..20 {
        let mut conn = s.daemon.connect();
        let command = format!("touch notify-click-{n}");
        hold(&mut conn, &held_check(&command, true, None));
        let shown = s.server().wait_for_body(&command);
        let label = if n % 2 == 0 { "Allow once" } else { "Deny" };
        s.server().click_and_close(shown.id, label);
        let outcome = decided(&mut conn);
        assert_eq!(outcome.by, DecidedBy::User, "click {n}: {outcome:?}");
        assert_eq!(outcome.allow, n % 2 == 0, "click {n}: {outcome:?}");
    }
}

/// Two requests that read the same in the listing (cut at 4 KiB) but differ after the cut are
/// two notifications, each answered on its own: "one answer for all" would answer the hidden
/// one with the harmless one.
#[test]
fn requests_that_differ_past_the_listing_cut_are_two_notifications() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let padding = "a".repeat(5000);
    let mut harmless = s.daemon.connect();
    let mut hidden = s.daemon.connect();
    hold(
        &mut harmless,
        &held_check(&format!("echo notify-cut {padding} ok"), true, None),
    );
    let first = s.server().wait_for_body("notify-cut");
    hold(
        &mut hidden,
        &held_check(&format!("echo notify-cut {padding}; touch x"), true, None),
    );
    let second = s.server().wait_for("for the second request", |n| {
        n.body.contains("notify-cut") && n.id != first.id
    });
    assert!(
        !s.server()
            .shown()
            .iter()
            .any(|n| n.body.contains("identical")),
        "{:#?}",
        s.server().shown()
    );
    s.server().click(first.id, "Allow once");
    assert!(decided(&mut harmless).allow);
    s.server().click(second.id, "Deny");
    assert!(!decided(&mut hidden).allow);
}

/// A long command shows the text around its destructive part, however much harmless text
/// surrounds it, and every finding is in the body, none folded.
#[test]
fn the_dangerous_middle_and_every_finding_are_shown() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    let command = format!(
        "echo notify-middle {} && rm -rf ~/notify-middle && git push --force origin main && echo {}",
        "a".repeat(1500),
        "b".repeat(1500)
    );
    let token = hold(&mut conn, &held_check(&command, true, None));
    let shown = s.server().wait_for_body("notify-middle");
    assert!(
        shown.body.contains("rm -rf ~/notify-middle"),
        "{}",
        shown.body
    );
    let held = pending_findings(&s, &token);
    assert!(held.len() >= 2, "{held:#?}");
    let body = plain(&shown.body);
    for finding in &held {
        let line = format!(
            "• {}: {}",
            finding.level.as_str(),
            finding.message.replace('`', "")
        );
        assert!(body.contains(&line), "{line:?} is not in {body}");
    }
    assert!(!body.contains(" more"), "{body}");
    assert!(
        held.iter().any(|f| f.level >= Level::Destructive),
        "{held:#?}"
    );
    s.server().click(shown.id, "Deny");
    assert!(!decided(&mut conn).allow);
}

/// A body in markup as a person reads it: tags gone, entities as characters.
fn plain(body: &str) -> String {
    let mut text = body.to_string();
    for tag in ["<b>", "</b>", "<i>", "</i>"] {
        text = text.replace(tag, "");
    }
    for (entity, c) in [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&apos;", "'"),
        ("&amp;", "&"),
    ] {
        text = text.replace(entity, c);
    }
    text
}

/// The findings the daemon lists for held request `token`.
fn pending_findings(s: &Setup, token: &str) -> Vec<Finding> {
    let mut conn = s.daemon.connect();
    let items = conn.pending().expect("the pending list");
    items
        .into_iter()
        .find(|i| i.token == token)
        .map(|i| i.findings)
        .unwrap_or_default()
}

/// A destructive tail after 4 KiB of harmless text, past where a listing cuts, is in the
/// notification: the daemon keeps the text around it, and the agent shows it.
#[test]
fn a_destructive_tail_past_the_listing_cut_is_shown() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    let command = format!(
        "echo notify-tail {} ; rm -rf ~/notify-tail",
        "a".repeat(6000)
    );
    hold(&mut conn, &held_check(&command, true, None));
    let shown = s.server().wait_for_body("notify-tail");
    assert!(
        plain(&shown.body).contains("; rm -rf ~/notify-tail"),
        "{}",
        shown.body
    );
    s.server().click(shown.id, "Deny");
    assert!(!decided(&mut conn).allow);
}

/// An agent's program that eavesdrops on the session bus reads a held request's notification
/// id and its random keys off the `Notify` call, and calls `Notify` with that id as its
/// `replaces_id` and those keys, so the buttons under its own text are the request's. On a
/// server that sends its signals to every connection (GNOME Shell and mako do), the person's
/// click on that text would come back as a click on the request. assent-notify sees the
/// replacement on the bus: the click does not count, its notification is closed, and the
/// person answers with `assent approve`.
#[test]
fn a_notification_replaced_by_its_id_takes_no_click_from_a_server_that_tells_everyone() {
    if !needs(&[DBUS_DAEMON]) {
        return;
    }
    // Held long enough for a loaded machine: an expired request's notification is closed, and
    // the replacement would be a new notification instead.
    let daemon = TestDaemon::with(assent_tests::Options {
        hold_ttl: Duration::from_secs(600),
        ..assent_tests::Options::default()
    });
    let bus = PrivateBus::start();
    let server = Notifications::start(&bus, 1);
    let agent = Agent::start(daemon.socket(), &bus);
    let s = Setup {
        daemon,
        bus,
        server: Some(server),
        agent,
    };
    let mut conn = s.daemon.connect();
    let token = hold(&mut conn, &held_check("touch notify-replaced", true, None));
    let shown = s.server().wait_for_body("touch notify-replaced");
    let keys: Vec<(&str, &str)> = shown
        .actions
        .iter()
        .zip(&shown.labels)
        .map(|(k, l)| (k.as_str(), l.as_str()))
        .collect();
    let forger = Forger::connect(&s.bus);
    let replaced = forger.replace(shown.id, "assent", "`ls` in ~/project", &keys);
    assert_eq!(
        replaced,
        Ok(shown.id),
        "the server took the replacement: {:#?}\nassent-notify's log:\n{}",
        s.server().shown(),
        s.agent.log()
    );
    assert!(
        s.agent.wait_log("replaced by another program"),
        "assent-notify did not see its notification replaced; its log:\n{}",
        s.agent.log()
    );
    s.server().click_to_all(shown.id, "Allow once");
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        s.still_held(&token),
        "the click on the replaced notification answered; assent-notify's log:\n{}",
        s.agent.log()
    );
    assert!(
        s.server().close_calls().contains(&shown.id),
        "the replaced notification was closed: {:?}",
        s.server().close_calls()
    );
    let output = run_detached(assent(s.daemon.socket()).args(["approve", &token]));
    assert!(
        output.status.success(),
        "assent approve: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let outcome = decided(&mut conn);
    assert!(
        outcome.allow && outcome.by == DecidedBy::User,
        "{outcome:?}"
    );
}
