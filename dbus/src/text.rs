//! What a notification says: summary, body and buttons for a held request, a batch, one item of
//! a batch under review, and the "missed request" notice.
//!
//! Pure functions of the daemon's data and the server's capabilities, so every wording is
//! unit-tested here. Everything shown comes from the daemon; the command, cwd, session label,
//! names and findings are the requester's data, so they are cleaned (every hidden character
//! made a visible escape, by the shared `assent_client::shown`), cut (a long command to the
//! text around its dangerous findings, [`command`]), and escaped when the server reads markup.
//! The highest level and every finding are always shown, never folded.

use std::time::Duration;

use assent_client::protocol::{Level, Origin, PendingBatchItem, PendingItem};

pub mod command;
mod words;

use command::Lines;
pub use words::{answer_by, clean, escape, shorten, time_left};
use words::{quoted_markup, quoted_plain};

/// The longest command shown whole, in characters; a longer one is shown as the text around
/// its dangerous findings ([`command`]).
pub const MAX_COMMAND_CHARS: usize = 400;
/// The most lines of a multi-line command shown whole.
pub const MAX_COMMAND_LINES: usize = 6;

/// Action keys: what the notification server sends back in `ActionInvoked`.
pub mod action {
    /// Allow this request once.
    pub const ALLOW_ONCE: &str = "allow-once";
    /// Allow it and identical requests for the requester's session.
    pub const ALLOW_SESSION: &str = "allow-session";
    /// Allow it and identical requests until forgotten.
    pub const ALLOW_ALWAYS: &str = "allow-always";
    /// Deny it (always once).
    pub const DENY: &str = "deny";
    /// Show the remembering answers (session, always) instead, Deny still beside them.
    pub const REMEMBER: &str = "remember";
    /// A batch: allow every held item once.
    pub const ALLOW_ALL: &str = "allow-all";
    /// A batch: deny every held item.
    pub const DENY_ALL: &str = "deny-all";
    /// A batch: one notification per item instead.
    pub const REVIEW: &str = "review";
}

/// What the notification server can do, from `GetCapabilities`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// It shows action buttons.
    pub actions: bool,
    /// It reads the body as markup (`<b>`, `<i>`, entities).
    pub body_markup: bool,
}

impl Caps {
    /// From the capability strings a server returns.
    pub fn from_list(list: &[String]) -> Caps {
        Caps {
            actions: list.iter().any(|c| c == "actions"),
            body_markup: list.iter().any(|c| c == "body-markup"),
        }
    }
}

impl Default for Caps {
    /// What the specification makes every server do: neither.
    fn default() -> Caps {
        Caps {
            actions: false,
            body_markup: false,
        }
    }
}

/// Notification urgency (the `urgency` hint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    /// Normal.
    Normal = 1,
    /// Critical: destructive and forbidden requests.
    Critical = 2,
}

/// One notification, ready for `Notify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The one-line summary.
    pub summary: String,
    /// The body (markup when the server reads it, else plain text).
    pub body: String,
    /// Buttons as (key, label), in order.
    pub actions: Vec<(&'static str, &'static str)>,
    /// Its urgency.
    pub urgency: Urgency,
    /// Milliseconds until the server may close it; `-1` for the server's default.
    pub expire_ms: i32,
}

/// How a person is shown the requesting program: known agents by name, shells as the person
/// at the terminal, anything else by its process name.
pub fn program_name(program: &str, origin: Origin) -> String {
    match program {
        "claude" => "Claude Code".into(),
        "codex" => "Codex".into(),
        "gemini" => "Gemini CLI".into(),
        "bash" | "zsh" | "sh" | "dash" | "fish" => "Your terminal".into(),
        "" if origin == Origin::Interactive => "Your terminal".into(),
        "" => "A program".into(),
        other => clean(other, 32),
    }
}

/// Who asks, for a summary: the agent the requester names, else its program's name.
fn who(item: &PendingItem) -> String {
    match &item.agent {
        Some(agent) => clean(agent, 40),
        None => program_name(&item.program, item.origin),
    }
}

/// "a destructive command" and the like, for a summary.
fn what(level: Level, origin: Origin) -> &'static str {
    let tool = origin == Origin::Tool;
    match (level, tool) {
        (Level::Safe, false) => "run a command",
        (Level::Safe, true) => "use a tool",
        (Level::Moderate, false) => "run a command that changes things",
        (Level::Moderate, true) => "use a tool that changes things",
        (Level::Opaque, false) => "run a command assent cannot analyse",
        (Level::Opaque, true) => "use a tool assent cannot analyse",
        (Level::Destructive, false) => "run a destructive command",
        (Level::Destructive, true) => "use a destructive tool",
        (Level::Forbidden, false) => "run a forbidden command",
        (Level::Forbidden, true) => "use a forbidden tool",
    }
}

fn urgency(level: Level) -> Urgency {
    if level >= Level::Destructive {
        Urgency::Critical
    } else {
        Urgency::Normal
    }
}

/// `expire_timeout` for a notification shown with `left` to go: the time left, at least 1 ms
/// (0 would mean "never expires").
fn expire_ms(left: Duration) -> i32 {
    i32::try_from(left.as_millis()).unwrap_or(i32::MAX).max(1)
}

/// Builds a body line by line, escaping when the server reads markup.
struct Body {
    markup: bool,
    text: String,
}

impl Body {
    fn new(caps: Caps) -> Body {
        Body {
            markup: caps.body_markup,
            text: String::new(),
        }
    }

    fn line(&mut self, text: &str) {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        if self.markup {
            self.text.push_str(&escape(text));
        } else {
            self.text.push_str(text);
        }
    }

    /// A line in bold where the server reads markup.
    fn bold(&mut self, text: &str) {
        if self.markup {
            if !self.text.is_empty() {
                self.text.push('\n');
            }
            self.text.push_str("<b>");
            self.text.push_str(&escape(text));
            self.text.push_str("</b>");
        } else {
            self.line(text);
        }
    }

    /// Every finding, each with its level: never folded, so nothing dangerous hides behind
    /// "and 2 more".
    fn findings(&mut self, findings: &[assent_client::protocol::Finding]) {
        for finding in findings {
            let message = clean(&finding.message, 300);
            let level = finding.level.as_str();
            if self.markup {
                if !self.text.is_empty() {
                    self.text.push('\n');
                }
                self.text
                    .push_str(&format!("• {level}: {}", quoted_markup(&message)));
            } else {
                self.line(&format!("• {level}: {}", quoted_plain(&message)));
            }
        }
    }

    /// The command: in bold on lines of its own where the server reads markup (so none of
    /// its lines passes for the card's), on one line otherwise.
    fn command(&mut self, subject: &str, findings: &[assent_client::protocol::Finding]) {
        let lines = if self.markup { Lines::Kept } else { Lines::One };
        self.bold(&command::excerpt(subject, findings, lines));
    }

    /// The requester line: program, pid, session label, and the time left.
    fn requester(&mut self, item: &PendingItem, left: Duration) {
        // The agent's name is its own claim; the program and pid are what the daemon saw.
        let mut who = match &item.agent {
            Some(agent) => format!(
                "{} by its own account (program {}, pid {}",
                clean(agent, 40),
                clean(&item.program, 32),
                item.pid
            ),
            None => format!(
                "{} (pid {}",
                program_name(&item.program, item.origin),
                item.pid
            ),
        };
        if let Some(session) = &item.session {
            who.push_str(&format!(", session {}", clean(session, 40)));
        }
        who.push_str(&format!(") · {}", answer_by(left)));
        self.line(&who);
    }

    /// Without buttons, say how to answer instead.
    fn no_actions(&mut self, caps: Caps, token: &str) {
        if !caps.actions {
            self.line(&format!(
                "This notification server shows no buttons: answer with `assent approve {token}` or `assent deny {token}`."
            ));
        }
    }
}

/// The answers to a single request (or one item under review): at most three buttons, as some
/// servers show no more (GNOME Shell) or cut the rest off (notification-daemon), with Deny
/// always among them.
const REQUEST_ACTIONS: [(&str, &str); 3] = [
    (action::ALLOW_ONCE, "Allow once"),
    (action::REMEMBER, "Remember…"),
    (action::DENY, "Deny"),
];

/// The answers that remember, after "Remember…": Deny stays, so it is never hidden.
const REMEMBER_ACTIONS: [(&str, &str); 3] = [
    (action::ALLOW_SESSION, "Allow for this session"),
    (action::ALLOW_ALWAYS, "Always allow"),
    (action::DENY, "Deny"),
];

/// The three answers to a batch.
const BATCH_ACTIONS: [(&str, &str); 3] = [
    (action::ALLOW_ALL, "Allow all"),
    (action::DENY_ALL, "Deny all"),
    (action::REVIEW, "Review"),
];

/// The request answers to offer: the first three, or the remembering ones.
fn answers(remembering: bool) -> &'static [(&'static str, &'static str)] {
    if remembering {
        &REMEMBER_ACTIONS
    } else {
        &REQUEST_ACTIONS
    }
}

fn actions(caps: Caps, list: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    if caps.actions {
        list.to_vec()
    } else {
        Vec::new()
    }
}

/// The notification for a held request; `count` identical requests share it.
pub fn request(
    item: &PendingItem,
    count: usize,
    left: Duration,
    caps: Caps,
    remembering: bool,
) -> Note {
    let mut body = Body::new(caps);
    body.command(&item.subject, &item.findings);
    if let Some(cwd) = &item.cwd {
        body.line(&format!("in {}", clean(cwd, 240)));
    }
    body.findings(&item.findings);
    body.requester(item, left);
    if count > 1 {
        body.line(&format!("{count} identical requests: one answer for all"));
    }
    body.no_actions(caps, &item.token);
    Note {
        summary: format!("{} wants to {}", who(item), what(item.level, item.origin)),
        body: body.text,
        actions: actions(caps, answers(remembering)),
        urgency: urgency(item.level),
        expire_ms: expire_ms(left),
    }
}

/// The notification for a batch: its items, and Allow all / Deny all / Review.
pub fn batch(item: &PendingItem, left: Duration, caps: Caps) -> Note {
    let mut body = Body::new(caps);
    // Every held item with its level and findings: "Allow all" answers all of them.
    for entry in &item.items {
        body.line(&format!(
            "{}. {} ({})",
            entry.item,
            command::excerpt(&entry.subject, &entry.findings, Lines::One),
            entry.level.as_str()
        ));
        body.findings(&entry.findings);
    }
    body.requester(item, left);
    body.no_actions(caps, &item.token);
    let count = item.items.len();
    Note {
        summary: format!(
            "{} wants to run {count} operation{} (highest: {})",
            who(item),
            if count == 1 { "" } else { "s" },
            item.level.as_str()
        ),
        body: body.text,
        actions: actions(caps, &BATCH_ACTIONS),
        urgency: urgency(item.level),
        expire_ms: expire_ms(left),
    }
}

/// The notification for item `entry` of batch `batch` under review.
pub fn review_item(
    batch: &PendingItem,
    entry: &PendingBatchItem,
    left: Duration,
    caps: Caps,
    remembering: bool,
) -> Note {
    let mut body = Body::new(caps);
    body.command(&entry.subject, &entry.findings);
    if let Some(cwd) = &entry.cwd {
        body.line(&format!("in {}", clean(cwd, 240)));
    }
    body.findings(&entry.findings);
    body.requester(batch, left);
    if !caps.actions {
        let token = &batch.token;
        let n = entry.item;
        body.line(&format!(
            "This notification server shows no buttons: answer with `assent approve {token} --item {n}` or `assent deny {token} --item {n}`."
        ));
    }
    Note {
        summary: format!(
            "{} wants to {} (item {} of {})",
            who(batch),
            what(entry.level, batch.origin),
            entry.item,
            batch.items.len()
        ),
        body: body.text,
        actions: actions(caps, answers(remembering)),
        urgency: urgency(entry.level),
        expire_ms: expire_ms(left),
    }
}

/// After a request expired unanswered: what was denied. Never has buttons.
pub fn missed(item: &PendingItem, caps: Caps) -> Note {
    let mut body = Body::new(caps);
    if item.items.is_empty() {
        body.command(&item.subject, &item.findings);
    } else {
        body.bold(&format!("{} operations", item.items.len()));
    }
    if let Some(cwd) = &item.cwd {
        body.line(&format!("in {}", clean(cwd, 240)));
    }
    body.line("Nobody answered in time, so it was denied this once; nothing was remembered.");
    Note {
        summary: format!("Missed request from {}: denied", who(item)),
        body: body.text,
        actions: Vec::new(),
        urgency: Urgency::Normal,
        expire_ms: -1,
    }
}

/// An answer the daemon refused (e.g. the request ended just before the click).
pub fn refused(message: &str, caps: Caps) -> Note {
    let mut body = Body::new(caps);
    body.line(&clean(message, 300));
    Note {
        summary: "assent could not record your answer".into(),
        body: body.text,
        actions: Vec::new(),
        urgency: Urgency::Normal,
        expire_ms: -1,
    }
}

#[cfg(test)]
mod tests {
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
        // HH:MM:SS, local time.
        assert!(
            by.len() == 8 && by.bytes().filter(|b| *b == b':').count() == 2,
            "{by}"
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
        assert!(note.body.contains("assent approve pa_1"), "{}", note.body);
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
                note.body.contains("claude&lt;U+2028&gt;x")
                    || note.body.contains("claude<U+2028>x"),
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
}
