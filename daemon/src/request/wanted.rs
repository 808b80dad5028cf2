//! What a line wanted read from the disk the last time it was judged in the same place, so
//! the same line again reads first and is judged once, with its disk.
//!
//! The first round of a reading line (`Asker::judge`) is judged without the disk only to learn
//! what to read: `analysis.wants`, a pure function of the line, where it runs (working
//! directory, home, project) and the policy's vocabulary. Kept under all of those, the same
//! line asks the same, so reading it first and going on from the second round gives the same
//! judgement. The files themselves are read again every time: only what to read is kept.
//! An agent sends its usual chain (`cargo build … && git status`) again and again, in one place.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use assent_client::protocol::Subject;

use crate::analyse::Want;
use crate::policy::Policy;

/// Lines kept, at most; past it the memory starts again empty.
const MAX_LINES: usize = 256;
/// Lines longer than this are not kept (at most `MAX_LINES` of them are held).
const MAX_LINE: usize = 4096;

/// The wants of lines judged lately.
#[derive(Debug, Default)]
pub struct Wanted {
    lines: Mutex<HashMap<Key, Entry>>,
}

/// A line where it was judged, and for whom.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    uid: u32,
    command: String,
    cwd: String,
    truncated: bool,
    home: Option<String>,
    project: Option<String>,
}

#[derive(Debug)]
struct Entry {
    /// The policy it was judged under: a reload (or another origin's policy) is another line.
    /// A `Weak` keeps the allocation, so its address names no later policy.
    policy: Weak<Policy>,
    wants: Vec<Want>,
}

impl Key {
    /// The key of a shell line of `uid`'s placed in `home` and `project`; `None` for a tool
    /// call or a long line.
    pub fn of(
        uid: u32,
        subject: &Subject,
        home: Option<&str>,
        project: Option<&str>,
    ) -> Option<Key> {
        match subject {
            Subject::Shell {
                command,
                cwd,
                truncated,
            } if command.len() <= MAX_LINE => Some(Key {
                uid,
                command: command.clone(),
                cwd: cwd.clone(),
                truncated: *truncated,
                home: home.map(str::to_owned),
                project: project.map(str::to_owned),
            }),
            _ => None,
        }
    }
}

impl Wanted {
    /// What `key` wanted read the last time, under this `policy`.
    pub fn before(&self, key: &Key, policy: &Arc<Policy>) -> Option<Vec<Want>> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        let entry = lines.get(key)?;
        Weak::ptr_eq(&entry.policy, &Arc::downgrade(policy)).then(|| entry.wants.clone())
    }

    /// `key`'s first round under `policy` wanted `wants`.
    pub fn learnt(&self, key: Key, policy: &Arc<Policy>, wants: &[Want]) {
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() >= MAX_LINES && !lines.contains_key(&key) {
            lines.clear();
        }
        let entry = Entry {
            policy: Arc::downgrade(policy),
            wants: wants.to_vec(),
        };
        lines.insert(key, entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(command: &str, cwd: &str) -> Subject {
        Subject::Shell {
            command: command.into(),
            cwd: cwd.into(),
            truncated: false,
        }
    }

    #[test]
    fn a_line_is_known_only_in_its_place_for_its_user_under_its_policy() {
        let wanted = Wanted::default();
        let policy = Arc::new(Policy::embedded());
        let home = Some("/home/u");
        let at = |uid, command, cwd, project| Key::of(uid, &line(command, cwd), home, project);
        let key = at(1000, "git status", "/home/u/p", Some("/home/u/p")).expect("a line");
        let wants = vec![Want::File("/home/u/p/.git/config".into())];
        assert_eq!(wanted.before(&key, &policy), None);
        wanted.learnt(key.clone(), &policy, &wants);
        assert_eq!(wanted.before(&key, &policy), Some(wants));
        for other in [
            at(1001, "git status", "/home/u/p", Some("/home/u/p")),
            at(1000, "git status", "/home/u/q", Some("/home/u/p")),
            at(1000, "git status", "/home/u/p", None),
            at(1000, "git status --short", "/home/u/p", Some("/home/u/p")),
        ] {
            let other = other.expect("a line");
            assert_eq!(wanted.before(&other, &policy), None, "{other:?}");
        }
        // A reloaded policy is another.
        let reloaded = Arc::new(Policy::embedded());
        assert_eq!(wanted.before(&key, &reloaded), None);
        // A tool call and a long line are not kept.
        let tool = Subject::Tool {
            name: "Read".into(),
            args_json: "{}".into(),
            cwd: None,
        };
        assert_eq!(Key::of(1000, &tool, home, None), None);
        let long = "x".repeat(MAX_LINE + 1);
        assert_eq!(Key::of(1000, &line(&long, "/"), home, None), None);
    }

    #[test]
    fn the_memory_is_bounded() {
        let wanted = Wanted::default();
        let policy = Arc::new(Policy::embedded());
        for n in 0..MAX_LINES * 2 {
            let key = Key::of(0, &line(&format!("bash s{n}.sh"), "/p"), None, None);
            wanted.learnt(key.expect("a line"), &policy, &[]);
            let kept = wanted.lines.lock().expect("not poisoned").len();
            assert!(kept <= MAX_LINES);
        }
    }
}
