//! The digest of a held request: what approvers group identical requests on.
//!
//! A listing shortens long commands to fit a packet, so two requests that differ only past the
//! cut would look the same; an approver that grouped them on what it was shown would answer
//! the hidden one with the harmless one ("one answer for all", "Always" remembering it). The
//! digest covers the whole request as held instead: every item's full command or tool call
//! (name and arguments), its cwd, the exact subject sent, and who asked (origin, uid, owner,
//! program, session label, agent name).
//!
//! It is keyed with a secret drawn once per daemon run, so an agent cannot make two different
//! requests collide on purpose (it never learns the key), and it is only ever compared within
//! one run. The keyed hash is std's `RandomState` (SipHash with a key from the OS RNG, made to
//! resist chosen collisions), two independent keys for 128 bits; no new dependency.

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

use super::{Hold, Sent};

/// The two keys of this daemon run.
fn keys() -> &'static [std::collections::hash_map::RandomState; 2] {
    static KEYS: OnceLock<[std::collections::hash_map::RandomState; 2]> = OnceLock::new();
    KEYS.get_or_init(|| {
        [
            std::collections::hash_map::RandomState::new(),
            std::collections::hash_map::RandomState::new(),
        ]
    })
}

/// Feeds fields into both hashers with their lengths, so that no two different sequences of
/// fields feed the same bytes ("ab","c" and "a","bc" differ).
struct Feed([std::collections::hash_map::DefaultHasher; 2]);

impl Feed {
    fn bytes(&mut self, bytes: &[u8]) {
        for hasher in &mut self.0 {
            hasher.write_u64(bytes.len() as u64);
            hasher.write(bytes);
        }
    }

    fn text(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    fn optional(&mut self, text: Option<&str>) {
        match text {
            Some(text) => {
                self.bytes(b"some");
                self.text(text);
            }
            None => self.bytes(b"none"),
        }
    }

    fn number(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }
}

/// The digest of `hold`: 32 lowercase hex digits.
pub(super) fn of(hold: &Hold) -> String {
    let [a, b] = keys();
    let mut feed = Feed([a.build_hasher(), b.build_hasher()]);
    feed.text(hold.origin.as_str());
    feed.number(u64::from(hold.requester.uid));
    feed.number(u64::from(hold.owner));
    feed.text(&hold.program);
    feed.optional(hold.session.as_deref());
    feed.optional(hold.agent.as_deref());
    match &hold.sent {
        Sent::One { exact } => {
            feed.bytes(b"one");
            feed.text(exact);
        }
        Sent::Batch => feed.bytes(b"batch"),
    }
    feed.number(hold.items.len() as u64);
    for item in &hold.items {
        feed.text(&item.subject);
        feed.optional(item.cwd.as_deref());
        feed.text(item.level.as_str());
        feed.text(&item.signature);
    }
    let [a, b] = feed.0;
    format!("{:016x}{:016x}", a.finish(), b.finish())
}
