//! Which notification signals count: the notifications this agent showed, the server that
//! showed each, and its action keys.
//!
//! Anything on the session bus can send a signal named `ActionInvoked` from
//! `/org/freedesktop/Notifications`, and an agent that knows a notification id and the key
//! "allow-once" could click for the person. So every notification gets keys of its own, drawn
//! from the OS RNG and never shown, and a signal counts only when its sender (set by the bus,
//! not forgeable) is the unique name that answered the `Notify` that made that id, and its key
//! is one of that notification's keys. (A program that monitors the bus can read the keys; what
//! it could do with them is stopped in `desktop.rs`.) Pure: no I/O but the RNG.

use std::collections::HashMap;

/// One shown notification.
#[derive(Debug, Clone)]
struct Record {
    /// The unique bus name that answered its `Notify` call.
    server: String,
    /// Its random keys, each with the action it stands for.
    keys: Vec<(String, &'static str)>,
}

/// The notifications shown and not yet closed.
#[derive(Debug, Default)]
pub struct Registry {
    shown: HashMap<u32, Record>,
}

/// A fresh action key: `a` and 32 hex digits from the OS RNG; `None` if the RNG fails.
pub fn new_key() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let mut key = String::with_capacity(33);
    key.push('a');
    for byte in bytes {
        key.push_str(&format!("{byte:02x}"));
    }
    Some(key)
}

impl Registry {
    /// Notification `id` was shown by `server` with `keys` (random key, action); it replaces
    /// notification `replaced` (0 for none), whose keys no longer count.
    pub fn shown(
        &mut self,
        id: u32,
        replaced: u32,
        server: &str,
        keys: Vec<(String, &'static str)>,
    ) {
        if replaced != 0 {
            self.shown.remove(&replaced);
        }
        self.shown.insert(
            id,
            Record {
                server: server.to_string(),
                keys,
            },
        );
    }

    /// `ActionInvoked(id, key)` from `sender`: the action it stands for, or `None` when it is
    /// not from the server that showed `id` or not one of its keys.
    pub fn action(&self, id: u32, sender: &str, key: &str) -> Option<&'static str> {
        let record = self.shown.get(&id)?;
        if record.server != sender {
            return None;
        }
        record
            .keys
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, action)| *action)
    }

    /// `NotificationClosed(id)` from `sender`: whether it counts (it came from the server that
    /// showed `id`); if so `id` is forgotten.
    pub fn closed(&mut self, id: u32, sender: &str) -> bool {
        match self.shown.get(&id) {
            Some(record) if record.server == sender => {
                self.shown.remove(&id);
                true
            }
            _ => false,
        }
    }

    /// Whether `id` is one of the notifications shown and not yet closed.
    pub fn has(&self, id: u32) -> bool {
        self.shown.contains_key(&id)
    }

    /// This agent closed `id`.
    pub fn forget(&mut self, id: u32) {
        self.shown.remove(&id);
    }

    /// The server changed: nothing it showed counts any more.
    pub fn clear(&mut self) {
        self.shown.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_random_and_unguessable() {
        let a = new_key().expect("the RNG works");
        let b = new_key().expect("the RNG works");
        assert_ne!(a, b);
        assert_eq!(a.len(), 33);
        assert!(!a.contains("allow") && !a.contains("deny"));
    }

    #[test]
    fn only_the_server_that_showed_it_with_one_of_its_keys_counts() {
        let mut registry = Registry::default();
        registry.shown(
            7,
            0,
            ":1.5",
            vec![("k1".into(), "allow-once"), ("k2".into(), "deny")],
        );
        registry.shown(8, 0, ":1.5", vec![("k3".into(), "allow-once")]);
        for (id, sender, key, counts) in [
            (7, ":1.5", "k1", Some("allow-once")),
            (7, ":1.5", "k2", Some("deny")),
            // Another connection, right id and key.
            (7, ":1.9", "k1", None),
            // The action's name instead of its key.
            (7, ":1.5", "allow-once", None),
            // Another notification's key.
            (7, ":1.5", "k3", None),
            (9, ":1.5", "k1", None),
        ] {
            assert_eq!(
                registry.action(id, sender, key),
                counts,
                "{id} {sender} {key}"
            );
        }
        // A close from elsewhere is ignored; the server's own forgets the notification.
        assert!(!registry.closed(7, ":1.9"));
        assert_eq!(registry.action(7, ":1.5", "k1"), Some("allow-once"));
        assert!(registry.closed(7, ":1.5"));
        assert_eq!(registry.action(7, ":1.5", "k1"), None);
        // A replacement takes over the id's keys; the old ones stop counting.
        registry.shown(10, 8, ":1.5", vec![("k4".into(), "deny")]);
        assert_eq!(registry.action(8, ":1.5", "k3"), None);
        assert_eq!(registry.action(10, ":1.5", "k4"), Some("deny"));
        registry.clear();
        assert_eq!(registry.action(10, ":1.5", "k4"), None);
    }
}
