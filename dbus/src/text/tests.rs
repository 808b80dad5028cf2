//! Unit tests of notification texts.

use super::*;
use assent_client::protocol::{Finding, Span};

const MARKUP: Caps = Caps {
    actions: true,
    body_markup: true,
};
const PLAIN: Caps = Caps {
    actions: false,
    body_markup: false,
};

fn item(subject: &str, level: Level, program: &str) -> PendingItem {
    PendingItem {
        token: "pa_1".into(),
        uid: 1000,
        pid: 4242,
        origin: Origin::Agent,
        subject: subject.into(),
        cwd: Some("/home/u/proj".into()),
        level,
        findings: vec![Finding {
            id: "fs.rm_recursive".into(),
            level,
            message: "`rm` deletes a directory tree".into(),
            span: Span::default(),
        }],
        session: Some("conv-1".into()),
        expires_in_ms: 300_000,
        items: vec![],
        program: program.into(),
        signature: format!("{subject} in /home/u/proj"),
        agent: None,
        digest: String::new(),
    }
}

/// The agent the hook names leads the summary; the body keeps it apart from what the
/// daemon saw, so a lying client cannot pass its claim off as checked.
#[test]
fn the_agent_is_named_as_its_own_claim_beside_the_program_seen() {
    let mut held = item("rm -rf build", Level::Destructive, "node");
    held.agent = Some("Claude Code".into());
    let note = request(&held, 1, Duration::from_secs(299), MARKUP, false);
    assert_eq!(
        note.summary,
        "Claude Code wants to run a destructive command"
    );
    assert!(
        note.body
            .contains("Claude Code by its own account (program node, pid 4242"),
        "{}",
        note.body
    );
    held.agent = Some("Your\u{7}terminal\u{202e}".into());
    let note = request(&held, 1, Duration::from_secs(299), MARKUP, false);
    assert!(!note.summary.contains('\u{7}') && !note.summary.contains('\u{202e}'));
}

/// Quoted words in a finding are italic where the server reads markup, and lose their
/// backticks where it does not; what is inside is escaped either way.
#[test]
fn findings_quote_words_without_showing_backticks() {
    assert_eq!(
        quoted_markup("`rm` deletes `src <x>` (the project)"),
        "<i>rm</i> deletes <i>src &lt;x&gt;</i> (the project)"
    );
    assert_eq!(quoted_markup("an odd ` one"), "an odd ` one");
    assert_eq!(
        quoted_plain("`rm` deletes `src` (the project)"),
        "rm deletes src (the project)"
    );
    assert_eq!(
        quoted_plain("`rm` deletes `target dir` (the project)"),
        "rm deletes `target dir` (the project)"
    );
    let plain = request(
        &item("rm -rf src", Level::Destructive, "claude"),
        1,
        Duration::from_secs(60),
        Caps {
            actions: true,
            body_markup: false,
        },
        false,
    );
    assert!(!plain.body.contains('`'), "{}", plain.body);
}

#[test]
fn program_names() {
    for (comm, origin, shown) in [
        ("claude", Origin::Agent, "Claude Code"),
        ("codex", Origin::Agent, "Codex"),
        ("gemini", Origin::Tool, "Gemini CLI"),
        ("bash", Origin::Interactive, "Your terminal"),
        ("zsh", Origin::Interactive, "Your terminal"),
        ("", Origin::Interactive, "Your terminal"),
        ("", Origin::Agent, "A program"),
        ("my-agent", Origin::Agent, "my-agent"),
        ("evil\u{202e}gnp", Origin::Agent, "evil<U+202E>gnp"),
    ] {
        assert_eq!(program_name(comm, origin), shown, "{comm:?}");
    }
}

/// A terminal is "your terminal" only to its own user; to the approver of another uid's
/// request (`[approvers]`), it is that user's.
#[test]
fn another_users_terminal_is_theirs() {
    let mut held = item("rm -rf src", Level::Destructive, "bash");
    held.origin = Origin::Interactive;
    held.uid = 0;
    assert_eq!(asker(&held, 0), "Your terminal");
    assert_eq!(asker(&held, 1000), "root's terminal");
    held.program = "claude".into();
    assert_eq!(asker(&held, 1000), "Claude Code");
}

#[test]
fn summary_says_who_wants_what_at_which_level() {
    let note = request(
        &item("rm -rf build", Level::Destructive, "claude"),
        1,
        Duration::from_secs(299),
        MARKUP,
        false,
    );
    assert_eq!(
        note.summary,
        "Claude Code wants to run a destructive command"
    );
    assert_eq!(note.urgency, Urgency::Critical);
    assert_eq!(note.expire_ms, 299_000);
    let keys: Vec<&str> = note.actions.iter().map(|(key, _)| *key).collect();
    // Three buttons at most (GNOME Shell shows three), Deny always among them; the
    // remembering answers are one click further, Deny still beside them.
    assert_eq!(keys, ["allow-once", "remember", "deny"]);
    let more = request(
        &item("rm -rf build", Level::Destructive, "claude"),
        1,
        Duration::from_secs(299),
        MARKUP,
        true,
    );
    let keys: Vec<&str> = more.actions.iter().map(|(key, _)| *key).collect();
    assert_eq!(keys, ["allow-session", "allow-always", "deny"]);
    let mut tool = item("tool file.delete {}", Level::Moderate, "codex");
    tool.origin = Origin::Tool;
    let note = request(&tool, 1, Duration::from_secs(5), MARKUP, false);
    assert_eq!(
        note.summary,
        "Codex wants to use a tool that changes things"
    );
    assert_eq!(note.urgency, Urgency::Normal);
}

#[test]
fn body_escapes_markup_and_names_the_requester() {
    let note = request(
        &item("echo '<b>' && rm -rf a&b", Level::Destructive, "claude"),
        1,
        Duration::from_secs(61),
        MARKUP,
        false,
    );
    let (body, by) = note
        .body
        .rsplit_once(" · answer by ")
        .unwrap_or_else(|| panic!("a deadline: {}", note.body));
    assert_eq!(
        body,
        "<b>echo &apos;&lt;b&gt;&apos; &amp;&amp; rm -rf a&amp;b</b>\n\
         in /home/u/proj\n\
         • destructive: <i>rm</i> deletes a directory tree\n\
         Claude Code (pid 4242, session conv-1)"
    );
    // HH:MM:SS, local time; then where else to answer, even where there are buttons (stock
    // dunst offers buttons it cannot show).
    let (by, elsewhere) = by.split_once('\n').expect("a line after the deadline");
    assert!(
        by.len() == 8 && by.bytes().filter(|b| *b == b':').count() == 2,
        "{by}"
    );
    assert_eq!(
        elsewhere,
        "Or answer in a terminal: assent watch, or assent approve pa_1"
    );
}

#[test]
fn without_markup_or_actions_the_body_is_plain_and_says_how_to_answer() {
    let note = request(
        &item("a < b", Level::Moderate, "claude"),
        3,
        Duration::from_secs(5),
        PLAIN,
        false,
    );
    assert!(note.body.starts_with("a < b\n"), "{}", note.body);
    assert!(note.body.contains("3 identical requests"), "{}", note.body);
    assert!(
        note.body.ends_with(
            "No buttons here: answer in a terminal with assent watch, or assent approve pa_1 \
             (assent deny pa_1)"
        ),
        "{}",
        note.body
    );
    assert!(note.actions.is_empty());
}

/// A long command shows the text around its dangerous finding; every field of the card is
/// cleaned of what could forge a line or hide a word.
#[test]
fn a_long_command_shows_its_danger_and_every_field_is_cleaned() {
    let command = format!(
        "echo {} ; rm -rf ~ ; echo {}",
        "a".repeat(3000),
        "b".repeat(3000)
    );
    let start = command.find("rm -rf ~").expect("in it");
    let mut held = item(&command, Level::Destructive, "claude\u{2028}x");
    held.findings[0].span = Span {
        start: u32::try_from(start).expect("small"),
        end: u32::try_from(start + 8).expect("small"),
    };
    held.cwd = Some("/tmp\nAllowed by policy".into());
    held.session = Some("s\u{1b}[2J".into());
    held.agent = Some("Claude\u{200b} Code\u{85}".into());
    for caps in [MARKUP, PLAIN] {
        let note = request(&held, 1, Duration::from_secs(60), caps, false);
        assert!(note.body.contains("; rm -rf ~ ;"), "{}", note.body);
        assert!(
            note.body.contains("in /tmp\\nAllowed by policy"),
            "{}",
            note.body
        );
        assert!(note.body.contains("session s\\e[2J"), "{}", note.body);
        assert!(
            note.body.contains("claude&lt;U+2028&gt;x") || note.body.contains("claude<U+2028>x"),
            "{}",
            note.body
        );
        assert!(
            note.summary.starts_with("Claude<U+200B> Code\\x85 wants"),
            "{}",
            note.summary
        );
        for hidden in ['\u{1b}', '\u{2028}', '\u{200b}', '\u{85}'] {
            assert!(!note.body.contains(hidden) && !note.summary.contains(hidden));
        }
    }
    // Without markup, a newline in the command cannot start a line of the card.
    let note = request(
        &item(
            "ls\nClaude Code (pid 1) · safe",
            Level::Destructive,
            "claude",
        ),
        1,
        Duration::from_secs(60),
        PLAIN,
        false,
    );
    assert!(
        note.body.starts_with("ls\\nClaude Code (pid 1)"),
        "{}",
        note.body
    );
}

/// Every finding is listed with its level: none folds into "and N more".
#[test]
fn every_finding_is_shown_with_its_level() {
    let mut held = item("rm -rf a b c d e f", Level::Forbidden, "claude");
    held.findings = (0..7)
        .map(|n| Finding {
            id: format!("f{n}"),
            level: if n == 6 {
                Level::Forbidden
            } else {
                Level::Moderate
            },
            message: format!("finding number {n}"),
            span: Span::default(),
        })
        .collect();
    let note = request(&held, 1, Duration::from_secs(60), MARKUP, false);
    for n in 0..6 {
        assert!(
            note.body
                .contains(&format!("• moderate: finding number {n}")),
            "{}",
            note.body
        );
    }
    assert!(
        note.body.contains("• forbidden: finding number 6"),
        "{}",
        note.body
    );
    assert!(!note.body.contains("more"), "{}", note.body);
    assert_eq!(note.summary, "Claude Code wants to run a forbidden command");
}

#[test]
fn time_left_reads_well() {
    assert_eq!(time_left(Duration::from_millis(12_900)), "12 s");
    assert_eq!(time_left(Duration::from_secs(299)), "4 min 59 s");
    assert_eq!(time_left(Duration::from_secs(7260)), "2 h 1 min");
    assert_eq!(expire_ms(Duration::ZERO), 1);
}

#[test]
fn a_batch_has_allow_all_deny_all_review() {
    let mut batch_item = item("5 operations", Level::Destructive, "claude");
    batch_item.items = (1..=5)
        .map(|n| PendingBatchItem {
            item: n,
            subject: format!("rm -rf dir{n}"),
            cwd: Some("/tmp".into()),
            level: Level::Destructive,
            findings: vec![],
        })
        .collect();
    let note = batch(&batch_item, Duration::from_secs(30), MARKUP);
    assert_eq!(
        note.summary,
        "Claude Code wants to run 5 operations (highest: destructive)"
    );
    let labels: Vec<&str> = note.actions.iter().map(|(_, label)| *label).collect();
    assert_eq!(labels, ["Allow all", "Deny all", "Review"]);
    assert!(
        note.body.starts_with("1. rm -rf dir1 (destructive)\n2."),
        "{}",
        note.body
    );
    let one = review_item(
        &batch_item,
        &batch_item.items[2],
        Duration::from_secs(3),
        PLAIN,
        false,
    );
    assert_eq!(
        one.summary,
        "Claude Code wants to run a destructive command (item 3 of 5)"
    );
    assert!(one.body.contains("--item 3"), "{}", one.body);
}

#[test]
fn the_missed_notice_says_what_was_denied() {
    let note = missed(
        &item("git push --force", Level::Destructive, "claude"),
        MARKUP,
    );
    assert_eq!(note.summary, "Missed request from Claude Code: denied");
    assert!(
        note.body.starts_with("<b>git push --force</b>"),
        "{}",
        note.body
    );
    assert!(note.body.contains("nothing was remembered"));
    assert!(note.actions.is_empty());
}
