//! The zsh hook (`shell-hook/assent.zsh`) in a real interactive zsh, driven through a
//! private tmux server against a test daemon.
//!
//! Safety: these shells are real. Every line typed here is harmless even if the hook fails open:
//! `rm` is a fake on the shell's PATH that only writes a marker file (each test checks
//! `command -v rm` before typing a line with it), and its target does not exist anyway.

use assent_tests::needs::{TMUX, ZSH, needs};
use assent_tests::shells::{Kind, RISKY, Shell, answer, audited, held_token, scenarios};
use std::path::Path;
use std::time::Duration;

use assent_tests::{TestDaemon, assent, pending_tokens};

/// zsh with the hook.
struct Zsh;

impl Zsh {
    fn start(socket: &Path) -> Shell {
        Shell::start(Kind::Zsh, socket, "", "", &[])
    }
}

#[test]
fn zsh_a_safe_line_runs_and_is_checked_once() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.pane
        .line(r#"echo pipe-ok | tr a-z A-Z && echo "SAFE-$((40+2))""#);
    sh.pane.wait_text("SAFE-42");
    sh.pane.wait_text("PIPE-OK");
    assert_eq!(
        audited(&daemon, "SAFE-$((40+2))").len(),
        1,
        "checked exactly once"
    );
}

#[test]
fn zsh_a_risky_line_is_held_and_runs_after_approval() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    scenarios::held_then_approved(Kind::Zsh, |sh, _| {
        // The prompt: three lines, each within 80 columns, in words.
        let screen = sh
            .pane
            .wait_text("[y] once  [s] session  [a] always  [N] deny \u{b7} ");
        for start in ["assent: destructive: ", "  or elsewhere: ", "[y] once  "] {
            let line = screen
                .lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("no line starting {start:?}:\n{screen}"));
            assert!(
                line.chars().count() <= 80,
                "{line:?} is wider than 80 columns"
            );
            assert!(!line.contains("policy"), "no policy jargon: {line}");
        }
    });
}

#[test]
fn zsh_a_denied_line_is_skipped_with_its_reason_and_stays_in_history() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    let typed = format!(r#"{RISKY}; echo "AFTER-$((1+1))""#);
    sh.pane.line(&typed);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line("fc -ln -1");
    let screen = sh.pane.wait_count(&typed, 2);
    assert!(!screen.contains("AFTER-2"), "{screen}");
    assert!(!sh.ran(), "the denied line ran");
}

#[test]
fn zsh_ctrl_c_while_held_withdraws_the_request() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    scenarios::ctrl_c_withdraws(Kind::Zsh);
}

#[test]
fn zsh_multi_line_buffers_and_continuation_lines() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    // One buffer of two lines (Alt-Enter inserts a newline): checked once, as a whole.
    sh.pane.type_text(r#"echo "ML1-$((1+1))""#);
    sh.pane.keys(&["M-Enter"]);
    sh.pane.line(r#"echo "ML2-$((2+2))""#);
    sh.pane.wait_text("ML2-4");
    sh.pane.wait_text("ML1-2");
    assert_eq!(audited(&daemon, "ML1-$((1+1))\"\necho \"ML2").len(), 1);

    // Continuation lines: the complete command is what is held.
    sh.expect_fake_rm();
    sh.pane.line("if true; then");
    sh.pane.line(RISKY);
    sh.pane.line(r#"echo "INSIDE-$((4+4))"; fi"#);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "NEXT-$((2+2))""#);
    let screen = sh.pane.wait_text("NEXT-4");
    assert!(!sh.ran());
    assert!(!screen.contains("INSIDE-8"), "{screen}");
}

#[test]
fn zsh_with_the_daemon_down_it_warns_once_then_runs() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    scenarios::daemon_down_then_back(Kind::Zsh);
}

/// A command typed over several lines (`for … do`, Enter, the body, Enter, `done`) is checked
/// once, whole, when it is complete: not half of it while the rest is still being typed, which
/// would hold the half and take the next keys for an answer.
#[test]
fn zsh_a_multi_line_command_is_checked_once_when_complete() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    sh.pane.line("for f in one; do");
    sh.pane.line(&format!("  {RISKY}"));
    // Nothing is held while the loop is open.
    std::thread::sleep(Duration::from_millis(500));
    let mut conn = daemon.connect();
    assert!(
        pending_tokens(&mut conn).is_empty(),
        "half a command was held"
    );
    assert!(!sh.ran());
    sh.pane.line("done; echo \"LOOP-$((2+3))\"");
    let token = held_token(&daemon);
    let listed = assent_tests::run_bounded(assent(daemon.socket()).arg("pending"));
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.contains("for f in one; do") && listed.contains("done; echo"),
        "the whole loop is what is held: {listed}"
    );
    assert!(!sh.ran());
    answer(&daemon, &token, true);
    sh.pane.wait_text("LOOP-5");
    assert!(sh.ran(), "the approved loop ran");
}

/// A refused line leaves `$?` non-zero, as a command that failed would.
#[test]
fn zsh_a_refused_line_leaves_a_failing_status() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    let daemon = TestDaemon::start();
    let sh = Zsh::start(daemon.socket());
    sh.expect_fake_rm();
    sh.pane.line(RISKY);
    let token = held_token(&daemon);
    answer(&daemon, &token, false);
    sh.pane.wait_text("assent: denied");
    sh.pane.line(r#"echo "STATUS-$?-$((6*7))""#);
    let screen = sh.pane.wait_text("-42");
    assert!(screen.contains("STATUS-1-42"), "{screen}");
    assert!(!sh.ran());
}

/// A forbidden line at the prompt needs this machine's host name and Enter, not `y`.
#[test]
fn a_forbidden_line_runs_only_after_the_host_name() {
    if !needs(&[TMUX, ZSH]) {
        return;
    }
    scenarios::forbidden_needs_the_host_name(Kind::Zsh);
}
