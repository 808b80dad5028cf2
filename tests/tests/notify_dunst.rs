//! `assent-notify` against a real notification server: Debian's dunst under Xvfb, on a private
//! bus (`assent_tests::dunst`), with the real daemon and the real agent binary.
//!
//! The answer is chosen the way a dunst user does without a mouse: `dunstctl context` opens
//! dunst's menu of the displayed notifications' actions, and the menu command (a script the
//! test writes, which only prints the chosen line) picks one; dunst then sends
//! `ActionInvoked`. Every command here only goes to the analyser: nothing is executed.
//!
//! Needs `apt-get install dunst xvfb`; fails naming them if they are missing.

use assent_client::Connection;
use assent_client::protocol::{Decided, DecidedBy, Decision, Response};
use assent_tests::dbus::{Agent, PrivateBus};
use assent_tests::dunst::{Dunst, MenuLine};
use assent_tests::needs::{DBUS_BIN, DBUS_DAEMON, DUNST, XVFB, needs};
use assent_tests::x11::WIDTH;
use assent_tests::{
    RECV_TIMEOUT, TestDaemon, agent_check, held_check, hold, screenshot_path, verdict_of,
    wait_until,
};

/// The agent, dunst and its display, the bus and the daemon; stopped in this order on drop,
/// also when a test fails.
struct Setup {
    agent: Agent,
    dunst: Dunst,
    _bus: PrivateBus,
    daemon: TestDaemon,
}

/// The daemon (`no_approver` left at the tests' default), a private bus, dunst on it, and the
/// agent in a login session of its own, registered and talking to dunst.
fn setup() -> Setup {
    setup_with(assent_tests::Options::default())
}

/// [`setup`] with the daemon's `options`.
fn setup_with(options: assent_tests::Options) -> Setup {
    assent_tests::dunst::require_installed();
    let daemon = TestDaemon::with(options);
    let bus = PrivateBus::start();
    let dunst = Dunst::start(&bus);
    let agent = Agent::start(daemon.socket(), &bus);
    assert!(
        agent.wait_log("notification server found"),
        "assent-notify did not find dunst; its log:\n{}",
        agent.log()
    );
    Setup {
        agent,
        dunst,
        _bus: bus,
        daemon,
    }
}

impl Setup {
    /// The outcome of the request `conn` waits for; on failure, both programs' logs.
    fn decided(&self, conn: &mut Connection) -> Decided {
        match conn.recv() {
            Ok(Response::Decided(decided)) => decided,
            other => panic!(
                "expected Decided, got {other:?}\nassent-notify's log:\n{}\ndunst's log:\n{}",
                self.agent.log(),
                self.dunst.log()
            ),
        }
    }

    fn remembered(&self) -> usize {
        let mut conn = self.daemon.connect();
        conn.remembered().expect("the remembered approvals").len()
    }

    /// Hold `command` (waiting), let dunst show it, choose the action labelled `label` from
    /// dunst's context menu, and return the outcome with the menu dunst offered.
    fn answer_in_dunst(&self, command: &str, label: &str) -> (Decided, Vec<MenuLine>) {
        let mut conn = self.daemon.connect();
        hold(&mut conn, &held_check(command, true, None));
        assert!(
            self.dunst.wait_displayed(1),
            "dunst does not display the held request; assent-notify's log:\n{}\ndunst's log:\n{}",
            self.agent.log(),
            self.dunst.log()
        );
        self.dunst.choose(&format!("#{label} ("));
        let outcome = self.decided(&mut conn);
        let menu = self.dunst.menu();
        let actions: Vec<MenuLine> = menu.iter().filter_map(|l| MenuLine::parse(l)).collect();
        assert_eq!(
            actions.len(),
            menu.len(),
            "only actions in the menu: {menu:#?}"
        );
        (outcome, actions)
    }

    /// After an answer: dunst keeps a notification whose action was invoked, so the agent must
    /// close it; then dunst's history holds it, with the agent's text. Returns its body.
    fn closed_by_the_agent(&self, id: u32) -> String {
        assert!(
            self.dunst.wait_displayed(0),
            "the answered notification is still displayed; assent-notify's log:\n{}",
            self.agent.log()
        );
        let history: serde_json::Value =
            serde_json::from_str(&self.dunst.history()).expect("dunstctl history prints JSON");
        let entries = history["data"][0]
            .as_array()
            .unwrap_or_else(|| panic!("unexpected history: {history:#}"));
        let entry = entries
            .iter()
            .find(|e| e["id"]["data"].as_u64() == Some(u64::from(id)))
            .unwrap_or_else(|| panic!("notification {id} is not in dunst's history: {history:#}"));
        assert_eq!(entry["appname"]["data"], "assent", "{entry:#}");
        entry["body"]["data"]
            .as_str()
            .unwrap_or_else(|| panic!("no body: {entry:#}"))
            .to_string()
    }
}

/// Whether `key` is a random action key (`a` and 32 hex digits), not a guessable name.
fn random_key(key: &str) -> bool {
    key.len() == 33 && key.starts_with('a') && key[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// The menu offers the agent's three buttons for one notification, with random keys; returns
/// its id. (dunst keeps a notification's actions in a hash table: the menu's order is not the
/// order sent.)
fn three_buttons(menu: &[MenuLine]) -> u32 {
    let mut offered: Vec<&str> = menu.iter().map(|l| l.label.as_str()).collect();
    offered.sort_unstable();
    assert_eq!(offered, ["Allow once", "Deny", "Remember…"], "{menu:#?}");
    assert!(menu.iter().all(|l| random_key(&l.key)), "{menu:#?}");
    let id = menu[0].id;
    assert!(menu.iter().all(|l| l.id == id), "{menu:#?}");
    assert!(
        menu.iter()
            .all(|l| l.summary.contains(" wants to ") && l.summary == menu[0].summary),
        "{menu:#?}"
    );
    id
}

#[test]
fn allow_once_chosen_in_dunst_allows_the_waiting_request() {
    if !needs(&[DBUS_DAEMON, DBUS_BIN, XVFB, DUNST]) {
        return;
    }
    let s = setup();
    let (outcome, menu) = s.answer_in_dunst("touch notify-dunst-once", "Allow once");
    assert!(outcome.allow, "{outcome:?}");
    assert_eq!(outcome.by, DecidedBy::User);
    let id = three_buttons(&menu);
    let body = s.closed_by_the_agent(id);
    assert!(body.contains("touch notify-dunst-once"), "{body}");
    assert_eq!(s.remembered(), 0, "once remembers nothing");
}

#[test]
fn deny_chosen_in_dunst_denies_the_waiting_request() {
    if !needs(&[DBUS_DAEMON, DBUS_BIN, XVFB, DUNST]) {
        return;
    }
    let s = setup();
    let (outcome, menu) = s.answer_in_dunst("touch notify-dunst-deny", "Deny");
    assert!(!outcome.allow, "{outcome:?}");
    assert_eq!(
        outcome.by,
        DecidedBy::User,
        "a deny from dunst, not an expiry"
    );
    let id = three_buttons(&menu);
    let body = s.closed_by_the_agent(id);
    assert!(body.contains("touch notify-dunst-deny"), "{body}");
    assert_eq!(s.remembered(), 0, "a deny is never remembered");
    let again = verdict_of(
        &mut s.daemon.connect(),
        &held_check("touch notify-dunst-deny", false, None),
    );
    assert_eq!(again.decision, Decision::Confirm, "held again: {again:?}");
}

/// "Remember…" in dunst's menu replaces the notification with the remembering answers, Deny
/// still among them; "Always allow" there allows the request and remembers it.
#[test]
fn remember_then_always_allow_in_dunst_remembers_the_request() {
    if !needs(&[DBUS_DAEMON, DBUS_BIN, XVFB, DUNST]) {
        return;
    }
    let s = setup();
    let mut conn = s.daemon.connect();
    hold(
        &mut conn,
        &held_check("touch notify-dunst-always", true, None),
    );
    assert!(
        s.dunst.wait_displayed(1),
        "dunst does not display the held request; assent-notify's log:\n{}",
        s.agent.log()
    );
    s.dunst.choose("#Remember… (");
    let first: Vec<MenuLine> = s
        .dunst
        .menu()
        .iter()
        .filter_map(|l| MenuLine::parse(l))
        .collect();
    three_buttons(&first);
    assert!(
        s.agent.wait_log("showing the remembering answers"),
        "{}",
        s.agent.log()
    );
    assert!(
        wait_until(RECV_TIMEOUT, || s.dunst.count("displayed") == 1
            && s.agent.log().matches("notification shown").count() >= 2),
        "the remembering answers are not displayed; assent-notify's log:\n{}\ndunst's log:\n{}",
        s.agent.log(),
        s.dunst.log()
    );
    s.dunst.choose("#Always allow (");
    let outcome = s.decided(&mut conn);
    assert!(outcome.allow, "{outcome:?}");
    let lines: Vec<MenuLine> = s
        .dunst
        .menu()
        .iter()
        .filter_map(|l| MenuLine::parse(l))
        .collect();
    assert!(lines.iter().all(|l| random_key(&l.key)), "{lines:#?}");
    let mut offered: Vec<String> = lines.into_iter().map(|l| l.label).collect();
    offered.sort_unstable();
    assert_eq!(offered, ["Allow for this session", "Always allow", "Deny"]);
    assert_eq!(s.remembered(), 1, "always is remembered");
}

/// What a person sees: dunst draws the notification on its screen (saved as a PNG to look at;
/// the path is printed), and dunst's own record of it names the agent and holds the command and
/// the time to answer by.
#[test]
fn the_notification_dunst_draws_names_the_agent() {
    if !needs(&[DBUS_DAEMON, DBUS_BIN, XVFB, DUNST]) {
        return;
    }
    let s = setup();
    let before = s.dunst.shot();
    assert_eq!(before.drawn(), None, "the screen starts empty");
    let mut conn = s.daemon.connect();
    let token = hold(
        &mut conn,
        &agent_check("touch notify-dunst-screenshot", "Claude Code"),
    );
    assert!(
        s.dunst.wait_displayed(1),
        "dunst does not display the held request; assent-notify's log:\n{}",
        s.agent.log()
    );
    let shot = s.dunst.wait_drawn(&before);
    let png = screenshot_path("dunst");
    shot.save_png(&png);
    eprintln!("dunst's screen: {}", png.display());
    let drawn = shot.drawn().expect("something is drawn");
    assert!(
        drawn.width >= 200 && drawn.height >= 40 && drawn.width < WIDTH,
        "a notification-sized box, not {drawn:?} (see {})",
        png.display()
    );
    assert!(
        shot.colours(drawn) > 8,
        "text in the box, not a flat colour (see {})",
        png.display()
    );

    s.dunst.choose("#Deny (");
    let outcome = s.decided(&mut conn);
    assert!(!outcome.allow, "{outcome:?}");
    let menu: Vec<MenuLine> = s
        .dunst
        .menu()
        .iter()
        .filter_map(|l| MenuLine::parse(l))
        .collect();
    let id = three_buttons(&menu);
    assert!(
        menu[0].summary.starts_with("Claude Code wants to "),
        "{menu:#?}"
    );
    let body = s.closed_by_the_agent(id);
    assert!(body.contains("touch notify-dunst-screenshot"), "{body}");
    assert!(body.contains("answer by "), "{body}");
    // Stock dunst offers buttons only through dmenu, which Debian does not install: the card
    // itself says how to answer elsewhere.
    assert!(
        body.contains(&format!("assent watch, or assent approve {token}")),
        "{body}"
    );
    assert!(
        !body.contains('`'),
        "no markdown quotes shown as they are: {body}"
    );
}

/// An agent kills the person's dunst and starts one of its own while a request is held: the
/// new dunst is shown nothing (so neither it nor its configuration can pick "Allow once"), and
/// the person answers with `assent approve`.
#[test]
fn a_dunst_started_in_place_of_the_persons_is_shown_nothing_while_a_request_is_held() {
    if !needs(&[DBUS_DAEMON, DBUS_BIN, XVFB, DUNST]) {
        return;
    }
    let Setup {
        agent,
        dunst,
        _bus: bus,
        daemon,
    } = setup();
    let mut conn = daemon.connect();
    let token = hold(
        &mut conn,
        &held_check("touch notify-dunst-replaced", true, None),
    );
    assert!(
        dunst.wait_displayed(1),
        "dunst does not display the held request; assent-notify's log:\n{}",
        agent.log()
    );
    drop(dunst);
    let usurper = Dunst::start(&bus);
    assert!(
        wait_until(RECV_TIMEOUT, || agent
            .log()
            .matches("changed owner while requests are held")
            .count()
            >= 2),
        "assent-notify did not see dunst replaced; its log:\n{}",
        agent.log()
    );
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert_eq!(
        (usurper.count("displayed"), usurper.count("waiting")),
        (0, 0),
        "the new dunst was shown the held request; assent-notify's log:\n{}",
        agent.log()
    );
    let output =
        assent_tests::run_detached(assent_tests::assent(daemon.socket()).args(["approve", &token]));
    assert!(
        output.status.success(),
        "assent approve: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let outcome = assent_tests::decided(&mut conn);
    assert!(
        outcome.allow && outcome.by == DecidedBy::User,
        "{outcome:?}"
    );
    assert_eq!(usurper.count("history"), 0, "nothing was shown meanwhile");
    drop(agent);
}

/// The action keys an eavesdropper read off the bus: every `string "…"` that `dbus-monitor`
/// printed of the `Notify` calls it saw, a random key paired with the label after it.
fn eavesdropped_keys(monitor_log: &std::path::Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(monitor_log).unwrap_or_default();
    let strings: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("string \""))
        .filter_map(|l| l.strip_suffix('"'))
        .collect();
    strings
        .windows(2)
        .filter(|w| random_key(w[0]))
        .map(|w| (w[0].to_string(), w[1].to_string()))
        .collect()
}

/// An agent's program eavesdrops on the session bus (`dbus-monitor`, allowed to any program
/// of the user's) and so learns the held request's notification id and its random action keys,
/// then calls `Notify` with that `replaces_id` and those keys: dunst now shows the agent's
/// harmless text on the request's buttons. assent-notify sees the replacement on the bus, takes
/// no click on that notification, closes it, and shows nothing more while the request is held;
/// the person answers it with `assent approve`.
#[test]
fn a_notification_replaced_by_another_program_takes_no_click() {
    if !needs(&[DBUS_DAEMON, DBUS_BIN, XVFB, DUNST]) {
        return;
    }
    // Held long enough for a loaded machine: an expired request's notification is closed, and
    // the replacement would be a new notification instead.
    let Setup {
        agent,
        dunst,
        _bus: bus,
        daemon,
    } = setup_with(assent_tests::Options {
        hold_ttl: std::time::Duration::from_secs(600),
        ..assent_tests::Options::default()
    });
    let dir = tempfile::tempdir().expect("a temporary directory");
    let monitor_log = dir.path().join("monitor.txt");
    let _monitor = assent_tests::KillOnDrop(Some(
        std::process::Command::new("dbus-monitor")
            .arg("--address")
            .arg(bus.address())
            .arg("type='method_call',member='Notify'")
            .stdin(std::process::Stdio::null())
            .stdout(std::fs::File::create(&monitor_log).expect("the log is made"))
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("dbus-monitor starts"),
    ));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut conn = daemon.connect();
    let token = hold(
        &mut conn,
        &held_check("touch notify-dunst-swapped", true, None),
    );
    assert!(
        dunst.wait_displayed(1),
        "dunst does not display the held request; assent-notify's log:\n{}",
        agent.log()
    );
    let mut keys = Vec::new();
    assert!(
        wait_until(RECV_TIMEOUT, || {
            keys = eavesdropped_keys(&monitor_log);
            keys.len() >= 3
        }),
        "dbus-monitor saw the keys: {:?}",
        std::fs::read_to_string(&monitor_log)
    );
    // The id: dunst's menu, opened and left without a choice, names it.
    dunst.choose("#no such action (");
    let menu: Vec<MenuLine> = dunst
        .menu()
        .iter()
        .filter_map(|l| MenuLine::parse(l))
        .collect();
    let id = three_buttons(&menu);
    // dunst refuses a second menu until the first one's thread has ended.
    std::thread::sleep(std::time::Duration::from_secs(1));
    let actions: Vec<(&str, &str)> = keys.iter().map(|(k, l)| (k.as_str(), l.as_str())).collect();
    let forger = assent_tests::dbus::Forger::connect(&bus);
    let replaced = forger.replace(id, "assent", "`ls` in ~/project", &actions);
    assert_eq!(replaced, Ok(id), "dunst took the replacement");
    assert!(
        wait_until(RECV_TIMEOUT, || agent
            .log()
            .contains("replaced by another program")),
        "assent-notify did not see its notification replaced; its log:\n{}",
        agent.log()
    );
    // The person clicks "Allow once" on whatever dunst displays now.
    if dunst.count("displayed") > 0 {
        dunst.choose("#Allow once (");
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(
        assent_tests::pending_tokens(&mut daemon.connect()),
        vec![token.clone()],
        "a click on the replaced notification answered the request; assent-notify's log:\n{}",
        agent.log()
    );
    assert_eq!(
        dunst.count("displayed"),
        0,
        "the replaced notification was closed"
    );
    let output =
        assent_tests::run_detached(assent_tests::assent(daemon.socket()).args(["approve", &token]));
    assert!(
        output.status.success(),
        "assent approve: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let outcome = assent_tests::decided(&mut conn);
    assert!(
        outcome.allow && outcome.by == DecidedBy::User,
        "{outcome:?}"
    );
    drop(agent);
}
