//! What a person sees while `assent check` waits for an answer, in a real terminal (tmux) at 80
//! and at 140 columns: who must answer and how, with the token, once; then one line with the
//! time left, redrawn in place every second without leaving wrapped copies. With an
//! `[approvers]` mapping, the requester is told that another person must answer, and neither
//! how to answer nor who that person is.
//!
//! Safety: the command here is only checked (`assent check` runs nothing).

use std::path::Path;
use std::time::Duration;

use assent_tests::needs::{TMUX, needs};
use assent_tests::tmux::Pane;
use assent_tests::{Options, TestDaemon, binary, pending_tokens, wait_until};

/// `assent check -- git push --force` (held for an agent) waiting in a terminal of `columns`;
/// the screen after a few redraws, and the token.
fn waiting(daemon: &TestDaemon, dir: &Path, columns: u16) -> (String, String) {
    waiting_as(daemon, dir, columns, "agent")
}

/// [`waiting`], the request made for `origin`.
fn waiting_as(daemon: &TestDaemon, dir: &Path, columns: u16, origin: &str) -> (String, String) {
    let assent = binary("assent").display().to_string();
    let socket = daemon.socket().display().to_string();
    let pane = Pane::start_sized(
        dir,
        &[
            ("TERM".into(), "screen".into()),
            ("PATH".into(), "/usr/bin:/bin".into()),
        ],
        &[
            &assent, "--socket", &socket, "check", "--origin", origin, "--", "git", "push",
            "--force",
        ],
        (columns, 30),
    );
    pane.wait_text("left");
    let mut tokens = Vec::new();
    assert!(
        wait_until(Duration::from_secs(10), || {
            tokens = pending_tokens(&mut daemon.connect());
            !tokens.is_empty()
        }),
        "held"
    );
    // Three redraws of the time left.
    std::thread::sleep(Duration::from_millis(3500));
    (pane.screen(), tokens.remove(0))
}

/// How often `text` is on the screen (a wrapped copy that tmux joins back into one row
/// counts again).
fn times(screen: &str, text: &str) -> usize {
    screen.matches(text).count()
}

#[test]
fn the_waiting_line_fits_80_and_140_columns_and_the_token_is_shown_once() {
    if !needs(&[TMUX]) {
        return;
    }
    for columns in [80, 140] {
        let daemon = TestDaemon::start();
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (screen, token) = waiting(&daemon, dir.path(), columns);
        assert_eq!(
            times(&screen, "withdraws it"),
            1,
            "{columns} columns: one time-left line, no wrapped copies:\n{screen}"
        );
        assert_eq!(times(&screen, " left "), 1, "{columns} columns:\n{screen}");
        assert_eq!(
            screen.matches(&token).count(),
            1,
            "{columns} columns: the token once:\n{screen}"
        );
        assert!(
            screen.contains(&format!("assent approve {token}")),
            "{screen}"
        );
        assert!(screen.contains("waiting for an answer"), "{screen}");
        // The verdict's own lines above are printed once and may wrap; what the wait draws
        // fits.
        for row in screen.lines().filter(|row| {
            ["answer it from", "assent approve", "waiting for"]
                .iter()
                .any(|what| row.contains(what))
        }) {
            assert!(
                row.chars().count() <= usize::from(columns),
                "{row:?}\n{screen}"
            );
        }
    }
}

/// The policy maps the requester to another user (here `nobody`): the waiting requester is
/// told another person must answer, never that user's name or uid, and not to run `assent
/// approve`, which it could not.
#[test]
fn with_an_approvers_mapping_the_requester_is_told_another_person_answers() {
    if !needs(&[TMUX]) {
        return;
    }
    let uid = nix::unistd::getuid().as_raw();
    let daemon = TestDaemon::with(Options {
        policy: Some(format!("[approvers]\n\"{uid}\" = 65534\n")),
        ..Options::default()
    });
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (screen, token) = waiting(&daemon, dir.path(), 80);
    assert!(screen.contains("another person must answer"), "{screen}");
    assert!(screen.contains("waiting for another person"), "{screen}");
    assert!(!screen.contains("assent approve"), "{screen}");
    for name in ["nobody", "65534"] {
        assert!(!screen.contains(name), "{name} shown:\n{screen}");
    }
    assert_eq!(screen.matches(&token).count(), 1, "{screen}");
    assert_eq!(times(&screen, "withdraws it"), 1, "{screen}");
}

/// A person's own line (origin interactive) that another person must answer: no prompt at the
/// requester's terminal (the daemon would refuse its answer), but the same words as an agent's
/// wait: another person answers, and not how.
#[test]
fn an_interactive_line_another_person_answers_is_not_asked_at_the_terminal() {
    if !needs(&[TMUX]) {
        return;
    }
    let uid = nix::unistd::getuid().as_raw();
    let daemon = TestDaemon::with(Options {
        policy: Some(format!("[approvers]\n\"{uid}\" = 65534\n")),
        ..Options::default()
    });
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (screen, _) = waiting_as(&daemon, dir.path(), 80, "interactive");
    assert!(screen.contains("another person must answer"), "{screen}");
    assert!(screen.contains("waiting for another person"), "{screen}");
    assert!(!screen.contains("[y] once"), "{screen}");
    assert!(!screen.contains("assent approve"), "{screen}");
}
