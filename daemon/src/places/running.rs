//! This daemon's own files where its configuration put them: the policy file (`--policy`), the
//! state directory (`--state-dir`, `XDG_STATE_HOME`), the configuration directory
//! (`XDG_CONFIG_HOME`) and the socket. The vocabulary names the default places
//! (`~/.config/assent/**`, `/var/lib/assent/**`, …); a daemon started with others would
//! otherwise let an agent's line append to its policy or plant a remembered approval in its
//! state, judged as ordinary data. They are the gate's place, as the defaults are.
//!
//! Added when a daemon starts serving ([`add`]). A process runs one daemon, but tests start
//! several in one: each adds its own, and all are the gate's while the process lives (each
//! set is kept for the life of the process, a few hundred bytes a daemon). A path that is not
//! UTF-8 is named by its resolved form only when that is.

use std::path::Path;
use std::sync::RwLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::Patterns;

struct Running {
    written: Vec<String>,
    set: GlobSet,
}

static RUNNING: RwLock<Option<&'static Running>> = RwLock::new(None);

/// Names this daemon's files: each path with whether it is a directory whose whole tree is
/// the gate's (`true`) or one file (`false`), as given and as resolved.
pub fn add(paths: &[(&Path, bool)]) {
    let mut running = RUNNING.write().unwrap_or_else(|e| e.into_inner());
    let mut written: Vec<String> = running.map(|r| r.written.clone()).unwrap_or_default();
    for &(path, tree) in paths {
        let resolved = path.canonicalize().ok();
        for form in std::iter::once(path).chain(resolved.as_deref()) {
            let Some(text) = form.to_str().map(|t| t.trim_end_matches('/')) else {
                continue;
            };
            if text.is_empty() {
                continue;
            }
            let escaped = globset::escape(text);
            if tree {
                written.push(format!("{escaped}/**"));
            }
            written.push(escaped);
        }
    }
    written.sort();
    written.dedup();
    let mut builder = GlobSetBuilder::new();
    for pattern in &written {
        match GlobBuilder::new(pattern).literal_separator(true).build() {
            Ok(glob) => {
                builder.add(glob);
            }
            Err(error) => tracing::warn!(%error, pattern, "a gate path cannot be a glob"),
        }
    }
    match builder.build() {
        Ok(set) => *running = Some(Box::leak(Box::new(Running { written, set }))),
        Err(error) => tracing::warn!(%error, "the gate's own paths cannot be matched"),
    }
}

/// The daemons' files as places, once one [`add`]ed them.
pub fn patterns() -> Option<Patterns<'static>> {
    let running = *RUNNING.read().unwrap_or_else(|e| e.into_inner());
    running.map(|r| Patterns {
        written: &r.written,
        set: &r.set,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_named_as_written_and_escaped() {
        let mut builder = GlobSetBuilder::new();
        let dir = globset::escape("/srv/a[1]");
        for p in [format!("{dir}/**"), dir] {
            builder.add(
                GlobBuilder::new(&p)
                    .literal_separator(true)
                    .build()
                    .expect("glob"),
            );
        }
        let set = builder.build().expect("set");
        assert!(set.is_match("/srv/a[1]/state/remembered.json"));
        assert!(set.is_match("/srv/a[1]"));
        assert!(!set.is_match("/srv/a1/x"));
        assert!(!set.is_match("/srv/a[1]x"));
    }
}
