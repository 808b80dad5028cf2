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
        None => asker(item, assent_client::whose::own_uid()),
    }
}

/// [`program_name`] for `viewer` (a uid): another user's terminal is that user's, not "your".
fn asker(item: &PendingItem, viewer: u32) -> String {
    let name = program_name(&item.program, item.origin);
    if item.uid != viewer && name == "Your terminal" {
        format!(
            "{}'s terminal",
            clean(&assent_client::whose::name_of(item.uid), 32)
        )
    } else {
        name
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
                asker(item, assent_client::whose::own_uid()),
                item.pid
            ),
        };
        if let Some(session) = &item.session {
            who.push_str(&format!(", session {}", clean(session, 40)));
        }
        who.push_str(&format!(") · {}", answer_by(left)));
        self.line(&who);
    }

    /// How to answer elsewhere, always: a server may offer buttons it cannot show (stock
    /// dunst's need dmenu, which Debian does not install, and a click there closes the card
    /// unanswered); without buttons, it is the only way. `item`: one item of a batch.
    fn elsewhere(&mut self, caps: Caps, token: &str, item: Option<u32>) {
        let item = item.map(|n| format!(" --item {n}")).unwrap_or_default();
        let approve = format!("assent approve {token}{item}");
        self.line(&if caps.actions {
            format!("Or answer in a terminal: assent watch, or {approve}")
        } else {
            format!(
                "No buttons here: answer in a terminal with assent watch, or {approve} (assent deny {token}{item})"
            )
        });
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
    body.elsewhere(caps, &item.token, None);
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
    body.elsewhere(caps, &item.token, None);
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
    body.elsewhere(caps, &batch.token, Some(entry.item));
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
mod tests;
