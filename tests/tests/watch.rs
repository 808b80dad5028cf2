//! `assent watch`, the terminal approval agent, in a real terminal (tmux) against the real
//! daemon: held requests appear as they arrive, named by the agent's own claim beside the
//! program the daemon saw, and one key answers the one on the screen.
//!
//! Safety: the commands here are only checked, never run.

use assent_tests::needs::{TMUX, needs};
use std::time::Duration;

use assent_client::Connection;
use assent_client::protocol::{CheckRequest, Context, Origin, Request, Subject};
use assent_tests::tmux::Pane;
use assent_tests::{TestDaemon, binary, decided, hold};

fn held(command: &str) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::shell(command, "/home/dev/project".into()),
        origin: Origin::Agent,
        context: Context {
            session: Some("conv-9".into()),
            agent: Some("Claude Code".into()),
            ..Context::default()
        },
        wait: true,
    })
}

/// A watch in its own tmux server (its own login session, like a second terminal).
fn watch(daemon: &TestDaemon, dir: &std::path::Path) -> Pane {
    let assent = binary("assent");
    let socket = daemon.socket().display().to_string();
    let pane = Pane::start(
        dir,
        &[("TERM".into(), "xterm".into())],
        &[&assent.display().to_string(), "--socket", &socket, "watch"],
    );
    pane.wait_text("watching for held requests");
    pane
}

/// Wait for the prompt of the request on the screen, then past the time keys are dropped.
fn asked(pane: &Pane, what: &str) -> String {
    let screen = pane.wait_for(what, assent_tests::tmux::SCREEN_TIMEOUT, |s| {
        s.contains(what) && s.contains("[d] deny")
    });
    std::thread::sleep(Duration::from_millis(500));
    screen
}

#[test]
fn a_watch_shows_held_requests_and_answers_them_with_one_key() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pane = watch(&daemon, dir.path());

    let mut first: Connection = daemon.connect();
    let token = hold(&mut first, &held("git push --force"));
    let screen = asked(&pane, "git push --force");
    assert!(screen.contains(&token), "{screen}");
    assert!(
        screen.contains("Claude Code (by its own account), program "),
        "{screen}"
    );
    assert!(screen.contains("in /home/dev/project"), "{screen}");
    assert!(screen.contains("session conv-9"), "{screen}");
    assert!(screen.contains(" left"), "{screen}");

    // A second one waits its turn behind the first.
    let mut second: Connection = daemon.connect();
    let other = hold(&mut second, &held("git push --force origin main"));
    pane.wait_text("1 more waiting");
    pane.keys(&["y"]);
    assert!(
        decided(&mut first).allow,
        "y approves the one on the screen"
    );
    pane.wait_text(&format!("approved once {token}"));

    asked(&pane, "git push --force origin main");
    pane.keys(&["d"]);
    assert!(!decided(&mut second).allow, "d denies");
    pane.wait_text(&format!("denied {other}"));

    pane.keys(&["q"]);
    pane.wait_text("stopped watching");
}

/// A request answered elsewhere leaves the watch's screen; a key typed before a request is
/// shown does not answer it.
#[test]
fn a_request_answered_elsewhere_leaves_and_early_keys_do_not_answer() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pane = watch(&daemon, dir.path());
    let mut requester: Connection = daemon.connect();
    let token = hold(&mut requester, &held("git push --force"));
    pane.wait_text(&token);
    // Typed at once, before the request settled on the screen: dropped.
    pane.keys(&["y"]);
    std::thread::sleep(Duration::from_millis(600));
    assert!(
        !pane.screen().contains(&format!("approved once {token}")),
        "{}",
        pane.screen()
    );
    let output =
        assent_tests::run_detached(assent_tests::assent(daemon.socket()).args(["deny", &token]));
    assert!(output.status.success());
    assert!(!decided(&mut requester).allow);
    pane.wait_text(&format!("{token} ended"));
    pane.keys(&["q"]);
    pane.wait_text("stopped watching");
}
