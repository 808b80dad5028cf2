//! The requester's words made fit to show: cleaned of every hidden character by the shared
//! [`assent_client::shown`] (so a notification hides nothing `assent watch` or `pending` would
//! show), shortened, escaped for markup (quoted words in italics) or left plain, and the time
//! to answer by.

use std::time::Duration;

use assent_client::shown;

/// A one-line field (cwd, session label, program or agent name, a message): every hidden
/// character as a visible escape ([`shown::one_line`]), then cut to at most `max` characters
/// with its head and tail kept.
pub fn clean(text: &str, max: usize) -> String {
    shorten(&shown::one_line(text), max)
}

/// At most `max` characters: the first two thirds and the last third around " … ".
pub fn shorten(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(3);
    let head = keep * 2 / 3;
    let tail = keep - head;
    let mut out: String = text.chars().take(head).collect();
    out.push_str(" … ");
    out.extend(text.chars().skip(count - tail));
    out
}

/// Escape for the notification body markup (a small subset of XML).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A finding's message (which quotes words in backticks: `` `rm` deletes `src` ``) for a body
/// in markup: escaped, each quoted word in italics.
pub(super) fn quoted_markup(message: &str) -> String {
    let mut out = String::new();
    let mut parts = message.split('`');
    if let Some(first) = parts.next() {
        out.push_str(&escape(first));
    }
    let rest: Vec<&str> = parts.collect();
    // Pairs of backticks quote; an odd one left over stays as it is.
    let mut i = 0;
    while i < rest.len() {
        if i + 1 < rest.len() {
            out.push_str(&format!(
                "<i>{}</i>{}",
                escape(rest[i]),
                escape(rest[i + 1])
            ));
            i += 2;
        } else {
            out.push('`');
            out.push_str(&escape(rest[i]));
            i += 1;
        }
    }
    out
}

/// A finding's message for a plain-text body: the backticks that quote its words go, since a
/// server without markup would show them as they are; a word with a space keeps them
/// (`assent_client::say::unquoted`).
pub(super) fn quoted_plain(message: &str) -> String {
    assent_client::say::unquoted(message)
}

/// When the request expires, as the local time of day ("answer by 14:32:05"): unlike a
/// countdown it stays true for as long as the notification is displayed. Where the time zone
/// cannot be read, the time left at the moment of showing ("4 min 59 s left").
pub fn answer_by(left: Duration) -> String {
    let at = jiff::SignedDuration::try_from(left)
        .ok()
        .and_then(|left| jiff::Timestamp::now().checked_add(left).ok());
    match at {
        Some(at) => format!(
            "answer by {}",
            at.to_zoned(jiff::tz::TimeZone::system())
                .strftime("%H:%M:%S")
        ),
        None => format!("{} left", time_left(left)),
    }
}

/// "4 min 59 s", "12 s".
pub fn time_left(left: Duration) -> String {
    let secs = left.as_secs();
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min {} s", secs / 60, secs % 60),
        _ => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
    }
}
