//! `assent watch`, the terminal approval agent, in a real terminal (tmux, 80 columns) against
//! the real daemon: held requests appear as they arrive, named by the agent's own claim beside
//! the program the daemon saw, and one key answers the one on the screen. Tried as an attacker
//! would: a request whose words carry newlines, escapes and line separators cannot forge a line
//! or redraw the screen, and a key pressed just after the card was swapped for another does
//! not answer the new one.
//!
//! Safety: the commands here are only checked, never run.

use assent_tests::needs::{TMUX, needs};
use std::time::Duration;

use assent_client::Connection;
use assent_client::protocol::{CheckRequest, Context, Origin, Request, Subject};
use assent_tests::tmux::Pane;
use assent_tests::{TestDaemon, binary, decided, hold};

fn held_in(command: &str, cwd: &str) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::shell(command, cwd.into()),
        origin: Origin::Agent,
        context: Context {
            session: Some("conv-9".into()),
            agent: Some("Claude Code".into()),
            ..Context::default()
        },
        wait: true,
    })
}

fn held(command: &str) -> Request {
    held_in(command, "/home/dev/project")
}

/// A watch in its own tmux server (its own login session, like a second terminal), 80 columns
/// wide.
fn watch(daemon: &TestDaemon, dir: &std::path::Path) -> Pane {
    let assent = binary("assent");
    let socket = daemon.socket().display().to_string();
    let pane = Pane::start_sized(
        dir,
        &[
            ("TERM".into(), "xterm".into()),
            ("PATH".into(), "/usr/bin:/bin".into()),
        ],
        &[&assent.display().to_string(), "--socket", &socket, "watch"],
        (80, 40),
    );
    pane.wait_text("watching for held requests");
    pane
}

/// Wait until keys are taken for the request on the screen.
fn asked(pane: &Pane, what: &str) -> String {
    pane.wait_for(what, assent_tests::tmux::SCREEN_TIMEOUT, |s| {
        s.contains(what) && s.contains("[d] deny")
    })
}

/// The start of a token as the watch names what a key answered.
fn start(token: &str) -> String {
    format!("{}…", &token[..11])
}

/// Every line of the screen fits 80 columns.
fn fits(screen: &str) {
    for line in screen.lines() {
        assert!(line.chars().count() <= 80, "{line:?} in\n{screen}");
    }
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
    fits(&screen);
    assert!(screen.contains(&token), "{screen}");
    assert!(
        screen.contains("Claude Code (by its own account), program "),
        "{screen}"
    );
    assert!(screen.contains("in       /home/dev/project"), "{screen}");
    assert!(screen.contains("session  conv-9"), "{screen}");
    assert!(screen.contains("level    DESTRUCTIVE"), "{screen}");
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
    // The screen says which request the key answered: its token, program and first words.
    let screen = pane.wait_text(&format!("approved once {}", start(&token)));
    assert!(
        screen.contains(&format!("key y answers {}", start(&token))),
        "{screen}"
    );
    assert!(screen.contains(": git push --force"), "{screen}");

    asked(&pane, "git push --force origin main");
    pane.keys(&["d"]);
    assert!(!decided(&mut second).allow, "d denies");
    pane.wait_text(&format!("denied {}", start(&other)));

    pane.keys(&["q"]);
    let screen = pane.wait_text("stopped watching");
    // The card was on the alternate screen: leaving it leaves the terminal as it was.
    assert!(!screen.contains(&other), "{screen}");
}

/// A request answered elsewhere leaves the watch's screen; a key typed before a request is
/// readable does not answer it; Ctrl-C quits and restores the screen.
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
    let screen = pane.wait_text(&token);
    assert!(screen.contains("keys are not taken yet"), "{screen}");
    // Typed within the second the request has been on the screen: dropped.
    std::thread::sleep(Duration::from_millis(500));
    pane.keys(&["y"]);
    std::thread::sleep(Duration::from_millis(1500));
    let screen = pane.screen();
    assert!(!screen.contains("approved once"), "{screen}");
    assert!(!screen.contains("key y"), "{screen}");
    let output =
        assent_tests::run_detached(assent_tests::assent(daemon.socket()).args(["deny", &token]));
    assert!(output.status.success());
    assert!(!decided(&mut requester).allow);
    pane.wait_text(&format!("ended: {}", start(&token)));
    pane.keys(&["C-c"]);
    let screen = pane.wait_text("stopped watching");
    assert!(!screen.contains("ended: "), "{screen}");
}

/// The first request is withdrawn and a second takes its place on the screen: a key pressed
/// within the second after does not answer the second (it was meant for the first, or typed
/// before the new card could be read), and the card says keys are not taken yet.
#[test]
fn a_card_swapped_for_another_does_not_take_a_key_at_once() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pane = watch(&daemon, dir.path());
    let mut first: Connection = daemon.connect();
    let harmless = hold(&mut first, &held("git push --force origin feature"));
    asked(&pane, "git push --force origin feature");

    // The swap: the first withdrawn (its requester goes away), the second held at once.
    drop(first);
    let mut second: Connection = daemon.connect();
    let swapped = hold(&mut second, &held("git push --force origin main"));
    let screen = pane.wait_for(
        "the swapped card",
        assent_tests::tmux::SCREEN_TIMEOUT,
        |s| s.contains(&swapped) && !s.contains(&format!("held {harmless}")),
    );
    assert!(screen.contains("keys are not taken yet"), "{screen}");
    // Pressed half a second after the swap: later than a glance, sooner than a reading.
    std::thread::sleep(Duration::from_millis(500));
    pane.keys(&["y"]);
    // The y was dropped: once keys are taken, a d denies the second.
    asked(&pane, "git push --force origin main");
    let screen = pane.screen();
    assert!(!screen.contains("key y"), "{screen}");
    pane.keys(&["d"]);
    assert!(
        !decided(&mut second).allow,
        "the key pressed within a second of the swap did not approve"
    );
    pane.wait_text(&format!("denied {}", start(&swapped)));
    pane.keys(&["q"]);
    pane.wait_text("stopped watching");
}

/// Newlines, escapes, U+2028, U+0085 and U+202E in the command, the cwd and the session label
/// show as visible escapes: nothing clears the screen, and no line is forged.
#[test]
fn a_request_cannot_forge_or_redraw_the_watch() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pane = watch(&daemon, dir.path());
    let forged = "\nFORGED approved by policy\u{1b}[2J\u{1b}[H\u{2028}FORGED\u{85}FORGED\u{202e}";
    let mut requester: Connection = daemon.connect();
    let token = hold(
        &mut requester,
        &Request::Check(CheckRequest {
            subject: Subject::shell(
                &format!("git push --force{forged}"),
                format!("/home/dev{forged}"),
            ),
            origin: Origin::Agent,
            context: Context {
                session: Some(format!("conv{forged}")),
                agent: Some(format!("Claude{forged}")),
                ..Context::default()
            },
            wait: true,
        }),
    );
    let screen = asked(&pane, &token);
    fits(&screen);
    // The screen was not cleared: the card's first line is still there.
    assert!(screen.contains("watching for held requests"), "{screen}");
    assert!(
        screen.contains("\\e[2J\\e[H<U+2028>FORGED\\x85FORGED<U+202E>"),
        "{screen}"
    );
    // No line starts with the requester's words: only the command keeps a newline, and
    // its lines are marked as the command's.
    for line in screen.lines() {
        assert!(
            !line.trim_start().starts_with("FORGED"),
            "forged line {line:?} in\n{screen}"
        );
    }
    assert!(
        screen.contains("\n│ FORGED approved by policy\\e[2J"),
        "{screen}"
    );
    assert!(
        screen.contains("in       /home/dev\\nFORGED approved by policy"),
        "{screen}"
    );
    assert!(
        screen.contains("session  conv\\nFORGED approved by policy"),
        "{screen}"
    );
    pane.keys(&["d"]);
    assert!(!decided(&mut requester).allow);
    // SIGTERM quits as q does: off the alternate screen, the terminal as it was.
    let pid = assent_tests::run_bounded(
        std::process::Command::new("tmux")
            .arg("-S")
            .arg(dir.path().join("tmux.sock"))
            .args(["display-message", "-p", "-t", "t", "#{pane_pid}"])
            .stdout(std::process::Stdio::piped()),
    );
    let pid: i32 = String::from_utf8_lossy(&pid.stdout)
        .trim()
        .parse()
        .expect("the watch's pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("the watch is signalled");
    let screen = pane.wait_text("stopped watching");
    assert!(!screen.contains(&token), "{screen}");
}
