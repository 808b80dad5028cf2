//! What `assent watch` draws: the whole screen, as lines that each fit the terminal's width.
//!
//! Pure, so what a person sees is table-tested: every field a requester wrote (command, cwd,
//! session label, claimed agent, program name, finding messages, signature) goes through
//! [`assent_client::shown`], so no byte of it can move the cursor, clear the screen or start a
//! line of the card's own. The command is a block of its own whose every line starts with a
//! gutter (`│ `), so a newline in it cannot forge a line of the card: every line it makes is
//! marked as the command's. Lines wider than the terminal (wide characters count two columns)
//! wrap under their label instead of being cut, so nothing written is hidden; only a command
//! too tall for the screen is cut, and the card says so and where to read it whole.

use std::time::Duration;

use assent_client::protocol::{Finding, PendingItem};
use assent_client::shown::{lines, one_line};

use super::super::term::columns;

/// The narrowest width the card is laid out for; a narrower terminal wraps it.
const MIN_WIDTH: usize = 20;

/// How many lines the card leaves the command at least, however short the screen.
const MIN_COMMAND_LINES: usize = 3;

/// The gutter before each line of a command.
const GUTTER: &str = "│ ";

/// Everything the screen shows at one tick.
pub struct View<'a> {
    /// The request asked about, if any.
    pub front: Option<&'a PendingItem>,
    /// Its time left.
    pub left: Duration,
    /// How many more wait behind it.
    pub waiting: usize,
    /// Keys are not taken yet: the card changed this long ago less than the settle time.
    pub settling: bool,
    /// What happened lately (answers and their replies, requests that ended), oldest first,
    /// each already fit to be shown.
    pub said: &'a [String],
    /// The terminal's columns.
    pub width: usize,
    /// The terminal's rows.
    pub height: usize,
}

/// The screen, line by line, each at most `view.width` characters.
pub fn render(view: &View) -> Vec<String> {
    let width = view.width.max(MIN_WIDTH);
    let mut out = Lines {
        width,
        lines: Vec::new(),
    };
    let more = match view.waiting {
        0 => String::new(),
        n => format!(" · {n} more waiting"),
    };
    out.prose(&format!(
        "assent watch: watching for held requests{more} · q quits"
    ));
    out.push("", &"─".repeat(width));
    match view.front {
        Some(item) => card(&mut out, item, view),
        None => out.push("", "no held requests"),
    }
    out.push("", &"─".repeat(width));
    for said in view.said {
        out.push("", said);
    }
    out.lines
}

/// The card's level line (`level    DESTRUCTIVE`, the card's own words) in the level's colour
/// when `on`; every other line, and all a requester wrote, as drawn.
pub fn paint(lines: &mut [String], on: bool) {
    use assent_client::protocol::Level;
    if !on {
        return;
    }
    let levels = [
        Level::Safe,
        Level::Moderate,
        Level::Opaque,
        Level::Destructive,
        Level::Forbidden,
    ];
    for line in lines.iter_mut() {
        let Some(name) = line.strip_prefix("level    ") else {
            continue;
        };
        if let Some(level) = levels
            .into_iter()
            .find(|level| level.as_str().to_uppercase() == name)
        {
            *line = format!(
                "level    {}",
                super::super::colour::level(level, name, true)
            );
        }
        return;
    }
}

/// The held request: who, what, where, why, what remembering covers, and the keys.
fn card(out: &mut Lines, item: &PendingItem, view: &View) {
    out.push("", &format!("held {}", item.token));
    let highest = item
        .findings
        .iter()
        .map(|f| f.level)
        .chain(item.items.iter().map(|i| i.level))
        .chain([item.level])
        .max()
        .unwrap_or(item.level);
    out.push("level    ", &highest.as_str().to_uppercase());
    let who = match &item.agent {
        Some(agent) => format!(
            "{} (by its own account), program {}, pid {}, uid {}",
            one_line(agent),
            one_line(&item.program),
            item.pid,
            item.uid
        ),
        None => format!(
            "program {}, pid {}, uid {}",
            one_line(&item.program),
            item.pid,
            item.uid
        ),
    };
    out.push("who      ", &who);
    if let Some(session) = &item.session {
        out.push("session  ", &one_line(session));
    }
    // Room for the command: the screen less the card's other lines, never under a few.
    let others = 12 + item.findings.len() + view.said.len() + 2 * item.items.len();
    let room = view.height.saturating_sub(others).max(MIN_COMMAND_LINES);
    if item.items.is_empty() {
        if let Some(cwd) = &item.cwd {
            out.push("in       ", &one_line(cwd));
        }
        out.push("", "command");
        out.command(&item.subject, room);
        findings(out, &item.findings, "");
    } else {
        out.push("", &format!("a batch of {} held items", item.items.len()));
        let room = (room / item.items.len()).max(1);
        for entry in &item.items {
            out.push(
                "",
                &format!("item {} ({})", entry.item, entry.level.as_str()),
            );
            if let Some(cwd) = &entry.cwd {
                out.push("in       ", &one_line(cwd));
            }
            out.command(&entry.subject, room);
            findings(out, &entry.findings, "  ");
        }
        findings(out, &item.findings, "");
    }
    out.push(
        "[s]/[a]  ",
        &format!("remember {}", one_line(&item.signature)),
    );
    let left = view.left.as_secs();
    let keys = if view.settling {
        "keys are not taken yet: read the request first".to_string()
    } else {
        format!(
            "[y] once  [s] session  [a] always  [d] deny · {}:{:02} left",
            left / 60,
            left % 60
        )
    };
    out.prose(&keys);
}

/// Every finding, never folded: its level and its message.
fn findings(out: &mut Lines, findings: &[Finding], indent: &str) {
    if findings.is_empty() {
        return;
    }
    out.push(indent, &format!("findings ({})", findings.len()));
    let mark = format!("{indent}  - ");
    for finding in findings {
        out.push(
            &mark,
            &format!("{}: {}", finding.level.as_str(), one_line(&finding.message)),
        );
    }
}

/// What a key answered, for the line that says so: the token's start, the program, and the
/// command's first words (`pa_0123abcd… claude: git push --force`).
pub fn answered(item: &PendingItem) -> String {
    let start: String = item.token.chars().take(11).collect();
    let words: Vec<&str> = item.subject.split_whitespace().take(6).collect();
    let mut words = one_line(&words.join(" "));
    if words.chars().count() > 48 {
        words = words.chars().take(47).collect();
        words.push('…');
    }
    format!("{start}… {}: {words}", one_line(&item.program))
}

/// The width of `text` in columns.
#[cfg(test)]
fn width(text: &str) -> usize {
    text.chars().map(columns).sum()
}

/// `text` cut into pieces of at most `room` columns (at least one piece, at least one
/// character each).
fn wrap(text: &str, room: usize) -> Vec<String> {
    let mut pieces = vec![String::new()];
    let mut used = 0;
    for c in text.chars() {
        let w = columns(c);
        if used + w > room && used > 0 {
            pieces.push(String::new());
            used = 0;
        }
        if let Some(last) = pieces.last_mut() {
            last.push(c);
        }
        used += w;
    }
    pieces
}

/// `text` cut into lines of at most `room` columns between words, as prose is read; a word
/// longer than a line is cut where the line ends (a path, a token). Spaces inside a line are
/// kept as they are.
fn wrap_words(text: &str, room: usize) -> Vec<String> {
    let mut pieces = vec![String::new()];
    let mut used = 0;
    for (i, word) in text.split(' ').enumerate() {
        let w: usize = word.chars().map(columns).sum();
        if i > 0 {
            if used > 0 && used + 1 + w > room {
                pieces.push(String::new());
                used = 0;
            } else if let Some(last) = pieces.last_mut() {
                last.push(' ');
                used += 1;
            }
        }
        if used + w <= room {
            if let Some(last) = pieces.last_mut() {
                last.push_str(word);
            }
            used += w;
            continue;
        }
        for c in word.chars() {
            let cw = columns(c);
            if used + cw > room && used > 0 {
                pieces.push(String::new());
                used = 0;
            }
            if let Some(last) = pieces.last_mut() {
                last.push(c);
            }
            used += cw;
        }
    }
    pieces
}

/// The lines drawn so far, each fit to the width.
struct Lines {
    width: usize,
    lines: Vec<String>,
}

impl Lines {
    /// `text` after `label`, wrapped at the width with its continuation lines under the text.
    /// Cut by characters: a field a requester wrote is shown to the column, so where its lines
    /// break is not for its words to choose.
    fn push(&mut self, label: &str, text: &str) {
        self.push_wrapped(label, text, wrap);
    }

    /// The card's own words (the header, the keys), wrapped between words.
    fn prose(&mut self, text: &str) {
        self.push_wrapped("", text, wrap_words);
    }

    fn push_wrapped(&mut self, label: &str, text: &str, wrap: fn(&str, usize) -> Vec<String>) {
        let indent = " ".repeat(label.chars().count().min(self.width / 2));
        let label: String = label.chars().take(self.width / 2).collect();
        let room = self.width - indent.chars().count();
        let mut chunks = wrap(text, room).into_iter();
        let first = chunks.next().unwrap_or_default();
        self.lines.push(format!("{label}{first}"));
        for chunk in chunks {
            self.lines.push(format!("{indent}{chunk}"));
        }
    }

    /// A command as the lines it is, each behind the gutter, at most `room` lines; a taller
    /// one says how much more there is and where to read it whole.
    fn command(&mut self, command: &str, room: usize) {
        // Every line, wrapped parts included, behind the gutter: all of them are the command's.
        let cols = self.width.saturating_sub(GUTTER.chars().count());
        let mut block: Vec<String> = Vec::new();
        for line in lines(command).split('\n') {
            for chunk in wrap(line, cols) {
                block.push(format!("{GUTTER}{chunk}"));
            }
        }
        let total = block.len();
        if total <= room {
            self.lines.extend(block);
            return;
        }
        self.lines
            .extend(block.into_iter().take(room.saturating_sub(1)));
        self.push(
            "",
            &format!(
                "… {} more lines of this command: `assent pending` shows it whole",
                total - room.saturating_sub(1)
            ),
        );
    }
}

#[cfg(test)]
mod tests;
