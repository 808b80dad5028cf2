//! Whose files a held request's words speak of. The daemon writes a finding for the person who
//! asked ("your files outside the project", "the keys that may log in as you"); a person who
//! answers another uid's request (the policy's `[approvers]`, or root) reads it with that user
//! named instead ("alice's files outside the project", "the keys that may log in as alice"),
//! and a word written from the home (`~/Documents`) from theirs (`~alice/Documents`).
//! Every text an approver sees passes a held request through [`seen_by`] first: the
//! notification, `assent watch`, `assent pending`.
//!
//! This module only rewrites words for a reader; it decides nothing.

use crate::protocol::PendingItem;

/// The uid this process runs as: the reader of what it shows.
pub fn own_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

/// The user name of `uid`, or `uid N` when it has none.
pub fn name_of(uid: u32) -> String {
    user_name(uid).unwrap_or_else(|| format!("uid {uid}"))
}

fn user_name(uid: u32) -> Option<String> {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map(|user| user.name)
}

/// `text` said of the files of `name` rather than the reader's: "your home directory" is "the
/// home of NAME", "your X" is "NAME's X", "you" is "NAME". Only whole words change.
pub fn for_another(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some((at, word)) = next_you(rest) {
        out.push_str(&rest[..at]);
        let after = &rest[at + word.len()..];
        let lower = word.to_ascii_lowercase();
        if lower == "your" && after.starts_with(" home directory") {
            out.push_str(&format!("the home of {name}"));
            rest = &after[" home directory".len()..];
            continue;
        }
        match lower.as_str() {
            "your" => out.push_str(&format!("{name}'s")),
            "yours" => out.push_str(&format!("{name}'s")),
            "yourself" => out.push_str(name),
            _ => out.push_str(name),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `text` with each quoted word that starts at the reader's own home (`` `~/x` ``, `` `~` ``)
/// started at `name`'s instead (`` `~alice/x` ``): for another user's request, `~` was theirs.
pub fn tilde_of(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let quoted = i % 2 == 1;
        match part.strip_prefix('~') {
            Some(rest) if quoted && (rest.is_empty() || rest.starts_with('/')) => {
                out.push('~');
                out.push_str(name);
                out.push_str(rest);
            }
            _ => out.push_str(part),
        }
    }
    out
}

/// The first whole word `you`, `your`, `yours` or `yourself` (any case) in `text`: its byte
/// offset and the word as written.
fn next_you(text: &str) -> Option<(usize, &str)> {
    let bytes = text.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'\'';
    let mut from = 0;
    while let Some(found) = text[from..].to_ascii_lowercase().find("you") {
        let at = from + found;
        let end = text[at..]
            .bytes()
            .position(|b| !b.is_ascii_alphabetic())
            .map_or(text.len(), |n| at + n);
        let word = &text[at..end];
        let before_ok = at == 0 || !is_word(bytes[at - 1]);
        let whole = matches!(
            word.to_ascii_lowercase().as_str(),
            "you" | "your" | "yours" | "yourself"
        );
        if before_ok && whole {
            return Some((at, word));
        }
        from = end.max(at + 1);
    }
    None
}

/// `item` as `viewer` (a uid) reads it: unchanged for the requester's own uid; else its
/// findings (and its batch items' findings) speak of the requester by name.
pub fn seen_by(item: &mut PendingItem, viewer: u32) {
    if item.uid == viewer {
        return;
    }
    let user = user_name(item.uid);
    let name = user.clone().unwrap_or_else(|| format!("uid {}", item.uid));
    let findings = item
        .findings
        .iter_mut()
        .chain(item.items.iter_mut().flat_map(|i| i.findings.iter_mut()));
    for finding in findings {
        let read = for_another(&finding.message, &name);
        // `~uid 1001` would name nobody: a uid without a name keeps the `~` as written.
        finding.message = match &user {
            Some(user) => tilde_of(&read, user),
            None => read,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_users_files_are_named_for_them() {
        let table = [
            (
                "`rm` deletes `src` (your files outside the project)",
                "`rm` deletes `src` (alice's files outside the project)",
            ),
            (
                "`rm` deletes `~` (your home directory): deleted files do not go to a trash",
                "`rm` deletes `~` (the home of alice): deleted files do not go to a trash",
            ),
            (
                "`cp` writes to `~/.ssh` (the keys that may log in as you): what is added",
                "`cp` writes to `~/.ssh` (the keys that may log in as alice): what is added",
            ),
            ("Your terminal", "alice's terminal"),
            (
                "a place your policy protects",
                "a place alice's policy protects",
            ),
            // Not a word of its own: left alone.
            (
                "youtube-dl writes to `layout`",
                "youtube-dl writes to `layout`",
            ),
            ("nothing to change", "nothing to change"),
        ];
        for (said, read) in table {
            assert_eq!(for_another(said, "alice"), read, "{said}");
        }
    }

    #[test]
    fn the_requester_reads_its_own_words() {
        let mut item = PendingItem {
            uid: 4242,
            findings: vec![crate::protocol::Finding {
                id: "delete.data".into(),
                level: crate::protocol::Level::Destructive,
                message: "`rm` deletes `src` (your files outside the project)".into(),
                span: crate::protocol::Span::default(),
            }],
            token: "pa_0".into(),
            pid: 1,
            origin: crate::protocol::Origin::Agent,
            subject: "rm -rf src".into(),
            cwd: None,
            level: crate::protocol::Level::Destructive,
            session: None,
            expires_in_ms: 1000,
            items: Vec::new(),
            program: "claude".into(),
            signature: String::new(),
            agent: None,
            digest: String::new(),
        };
        let own = item.clone();
        seen_by(&mut item, 4242);
        assert_eq!(item, own);
        seen_by(&mut item, 4243);
        assert!(
            !item.findings[0].message.contains("your"),
            "{:?}",
            item.findings
        );
    }

    /// A requester with a user name (root has one everywhere): its home's words start at it.
    #[test]
    fn a_named_requesters_home_is_named() {
        let mut item = PendingItem {
            token: "pa_0".into(),
            uid: 0,
            pid: 1,
            origin: crate::protocol::Origin::Agent,
            subject: "rm -rf ~/Documents".into(),
            cwd: None,
            level: crate::protocol::Level::Destructive,
            findings: vec![crate::protocol::Finding {
                id: "delete.data".into(),
                level: crate::protocol::Level::Destructive,
                message: "`rm` deletes `~/Documents` (your files outside the project)".into(),
                span: crate::protocol::Span::default(),
            }],
            session: None,
            expires_in_ms: 1000,
            items: Vec::new(),
            program: "claude".into(),
            signature: String::new(),
            agent: None,
            digest: String::new(),
        };
        seen_by(&mut item, 1000);
        assert_eq!(
            item.findings[0].message,
            "`rm` deletes `~root/Documents` (root's files outside the project)"
        );
    }

    #[test]
    fn a_word_from_the_home_is_from_the_requesters() {
        let table = [
            (
                "`rm` deletes `~/Documents` (x)",
                "`rm` deletes `~alice/Documents` (x)",
            ),
            ("`rm` deletes `~` (x)", "`rm` deletes `~alice` (x)"),
            // Another user's home already, or not a quoted word: left alone.
            ("`cat` reads `~bob/.netrc`", "`cat` reads `~bob/.netrc`"),
            ("in ~/.bashrc: `ls`", "in ~/.bashrc: `ls`"),
            ("`a` and `~/x` and ~/y", "`a` and `~alice/x` and ~/y"),
        ];
        for (said, read) in table {
            assert_eq!(tilde_of(said, "alice"), read, "{said}");
        }
    }
}
