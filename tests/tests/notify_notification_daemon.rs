//! `assent-notify` against a second real notification server: GNOME's notification-daemon
//! under Xvfb, on a private bus (`assent_tests::notification_daemon`), with the real daemon and
//! the real agent binary. What the server was asked to show is read off the bus, what it drew
//! off its screen (saved as a PNG to look at; the path is printed). The command only goes to
//! the analyser: nothing is executed.
//!
//! Needs `apt-get install notification-daemon xvfb`; fails naming them if they are missing.

use assent_tests::dbus::{Agent, PrivateBus};
use assent_tests::needs::{DBUS_BIN, DBUS_DAEMON, NOTIFICATION_DAEMON, XVFB, needs};
use assent_tests::notification_daemon::NotificationDaemon;
use assent_tests::x11::WIDTH;
use assent_tests::{TestDaemon, agent_check, hold, screenshot_path};

/// notification-daemon shows at most three actions, Deny among them; the agent is named, the
/// time to answer by is given, markdown quotes become markup, and the bubble is drawn.
#[test]
fn the_notification_notification_daemon_draws_names_the_agent_with_three_actions() {
    if !needs(&[DBUS_DAEMON, DBUS_BIN, XVFB, NOTIFICATION_DAEMON]) {
        return;
    }
    let daemon = TestDaemon::start();
    let bus = PrivateBus::start();
    let server = NotificationDaemon::start(&bus);
    let agent = Agent::start(daemon.socket(), &bus);
    assert!(
        agent.wait_log("notification server found"),
        "assent-notify did not find notification-daemon; its log:\n{}",
        agent.log()
    );
    let before = server.shot();
    assert_eq!(before.drawn(), None, "the screen starts empty");

    let mut conn = daemon.connect();
    hold(
        &mut conn,
        &agent_check("touch notify-gnome-screenshot", "Claude Code"),
    );
    let call = server.wait_notify();
    assert_eq!(
        call.labels,
        ["Allow once", "Remember…", "Deny"],
        "three actions, Deny shown: {call:#?}"
    );
    assert!(
        call.summary.starts_with("Claude Code wants to "),
        "{call:#?}"
    );
    assert!(
        call.body.contains("touch notify-gnome-screenshot"),
        "{call:#?}"
    );
    assert!(call.body.contains("answer by "), "{call:#?}");
    assert!(
        !call.body.contains('`'),
        "quotes become markup on a server with body-markup: {call:#?}"
    );

    let shot = server.wait_drawn(&before);
    let png = screenshot_path("notification-daemon");
    shot.save_png(&png);
    eprintln!("notification-daemon's screen: {}", png.display());
    let drawn = shot.drawn().expect("something is drawn");
    assert!(
        drawn.width >= 200 && drawn.height >= 80 && drawn.width < WIDTH,
        "a notification-sized bubble, not {drawn:?} (see {}); the server's log:\n{}",
        png.display(),
        server.log()
    );
    assert!(
        shot.colours(drawn) > 8,
        "text in the bubble, not a flat colour (see {})",
        png.display()
    );
    drop(conn);
}
