//! A requester's words as `pending`, `log`, the reply of `deny` and the terminal prompt show
//! them: newlines, escapes, line separators and bidi controls become visible escapes.
//!
//! Safety: the commands here are only checked, never run.

use super::*;

/// Newlines, escapes, U+2028, U+0085 and U+202E in the command, the cwd, the session label and
/// the agent's name show as visible escapes in `pending`, `log` and the reply of `deny`: no
/// output holds a character that could forge a line or redraw the terminal.
#[test]
fn pending_log_and_replies_show_a_requesters_words_escaped() {
    let daemon = TestDaemon::start();
    let forged = "\nFORGED approved\u{1b}[2J\u{2028}X\u{85}Y\u{202e}Z";
    let mut requester = daemon.connect();
    let token = hold(
        &mut requester,
        &Request::Check(CheckRequest {
            subject: Subject::shell(&format!("{RISKY}{forged}"), format!("/tmp{forged}")),
            origin: Origin::Agent,
            context: Context {
                session: Some(format!("conv{forged}")),
                agent: Some(format!("Claude{forged}")),
                ..Context::default()
            },
            wait: true,
        }),
    );
    let escaped = "\\nFORGED approved\\e[2J<U+2028>X\\x85Y<U+202E>Z";
    let hidden = |text: &str| text.chars().any(assent_client::shown::is_hidden);
    let no_forged_line = |text: &str| text.lines().all(|l| !l.trim_start().starts_with("FORGED"));

    let pending = elsewhere(&daemon, &["pending"]);
    let listed = text(&pending.stdout);
    assert!(!hidden(&listed.replace('\n', "")), "{listed:?}");
    assert!(no_forged_line(&listed), "{listed}");
    assert!(listed.contains(&format!("{RISKY}{escaped}")), "{listed}");
    assert!(listed.contains(&format!("in /tmp{escaped}")), "{listed}");
    assert!(
        listed.contains(&format!("session conv{escaped}")),
        "{listed}"
    );

    let deny = elsewhere(&daemon, &["deny", &token]);
    let said = text(&deny.stdout);
    assert!(said.starts_with(&format!("denied {token}")), "{said}");
    assert!(!hidden(said.trim_end_matches('\n')), "{said:?}");
    assert!(said.contains(escaped), "{said}");
    assert!(!decided(&mut requester).allow);

    let log = elsewhere(&daemon, &["log"]);
    let logged = text(&log.stdout);
    assert!(!hidden(&logged.replace('\n', "")), "{logged:?}");
    assert!(no_forged_line(&logged), "{logged}");
    assert!(logged.contains(escaped), "{logged}");
}

/// A path holding an escape that clears the screen and a line separator, in a person's own
/// held line: the prompt shows them as escapes, the screen above is not cleared, and no line
/// of the prompt is forged.
#[test]
fn the_terminal_prompt_shows_hidden_characters_escaped() {
    if !needs(&[TMUX]) {
        return;
    }
    let daemon = TestDaemon::start();
    let term = Terminal::start(daemon.socket());
    term.pane.line("echo \"BEFORE-$((2+3))\"");
    term.pane.wait_text("BEFORE-5");
    // Only checked: `assent check` asks and exits; `rm` here is the fake anyway.
    term.pane.line(
        r#"assent check --origin interactive -- rm -rf $'/nonexistent/x\e[2J\u2028\u0085FORGED'; echo "EXIT-$((0+$?))""#,
    );
    let screen = term.pane.wait_text(CHOICES);
    assert!(
        screen.contains("BEFORE-5"),
        "the screen was cleared:\n{screen}"
    );
    assert!(
        screen.contains("/nonexistent/x\\e[2J<U+2028>\\x85FORGED"),
        "{screen}"
    );
    assert!(screen.lines().all(|l| !l.starts_with("FORGED")), "{screen}");
    term.pane.type_text("n");
    term.pane.wait_text("EXIT-1");
    assert!(term.nothing_ran());
}
