//! The directories a plan depends on, and on which of their entries: a directory the plan
//! listed depends on every entry (a new one is granted, or hidden, by a plan made now), one it
//! only walked through on the way to a path depends on that path's next name alone. A plan kept
//! for later must be dropped when an entry it depends on is made, removed or renamed; a change
//! of any other entry (a temporary file beside the project, an editor's save in `/tmp`) leaves
//! it as it would be made now.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// Links [`Consulted::follow_links`] follows, at most.
const MAX_LINKS: usize = 64;

/// Which entries of one directory a plan depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entries {
    /// Every one: the plan listed the directory.
    All,
    /// Only these: the plan looked paths up through them.
    Named(BTreeSet<OsString>),
}

impl Entries {
    /// Whether a change of the entry `name` (`None`: of the directory itself, or unnamed)
    /// can change the plan.
    pub fn matter(&self, name: Option<&OsStr>) -> bool {
        match (self, name) {
            (Entries::All, _) | (_, None) => true,
            (Entries::Named(names), Some(name)) => names.contains(name),
        }
    }

    /// Whether every entry `self` depends on, `other` depends on too.
    fn within(&self, other: &Entries) -> bool {
        match (self, other) {
            (_, Entries::All) => true,
            (Entries::All, Entries::Named(_)) => false,
            (Entries::Named(mine), Entries::Named(theirs)) => mine.is_subset(theirs),
        }
    }
}

/// Each directory a plan consulted, with the entries it depends on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Consulted(BTreeMap<PathBuf, Entries>);

impl Consulted {
    /// The plan listed `dir`: it depends on all of its entries.
    pub fn listed(&mut self, dir: &Path) {
        self.0.insert(dir.to_path_buf(), Entries::All);
    }

    /// The plan looked `path` up: it depends on each name along it, in the directory above
    /// that name (an entry made, removed or replaced by a link in any of them could change
    /// where it leads). A `..` or `.` along the way makes the directory it is in depend on all.
    pub fn looked_up(&mut self, path: &Path) {
        let mut below = path;
        while let Some(dir) = below.parent() {
            if dir.as_os_str().is_empty() {
                break;
            }
            match below.components().next_back() {
                Some(Component::Normal(name)) => self.named(dir, name),
                _ => self.listed(dir),
            }
            below = dir;
        }
    }

    fn named(&mut self, dir: &Path, name: &OsStr) {
        match self
            .0
            .entry(dir.to_path_buf())
            .or_insert_with(|| Entries::Named(BTreeSet::new()))
        {
            Entries::All => {}
            Entries::Named(names) => {
                names.insert(name.to_os_string());
            }
        }
    }

    /// Where a name the plan walked through is a symbolic link, the plan depends on every entry
    /// of its directory too (the link can be pointed elsewhere, or a link made in a directory
    /// its target passes, with no name of the path as written changing), and on each name along
    /// where it leads, links there followed in turn. Reads the disk: for a plan kept for later.
    /// False past `MAX_LINKS` links: then what the plan depends on is not known, and it must
    /// not be kept.
    pub fn follow_links(&mut self) -> bool {
        let mut todo: Vec<PathBuf> = self
            .0
            .iter()
            .filter_map(|(dir, entries)| match entries {
                Entries::Named(names) => Some(names.iter().map(|name| dir.join(name))),
                Entries::All => None,
            })
            .flatten()
            .collect();
        let mut seen = HashSet::new();
        let mut links = 0;
        while let Some(path) = todo.pop() {
            if !seen.insert(path.clone())
                || !std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink())
            {
                continue;
            }
            links += 1;
            if links > MAX_LINKS {
                return false;
            }
            let Some(dir) = path.parent() else {
                continue;
            };
            self.listed(dir);
            let Ok(target) = std::fs::read_link(&path) else {
                return false;
            };
            // Where it leads as written (a `..` in it makes its directory count whole), and
            // where the whole chain ends.
            let written = dir.join(target);
            let resolved = std::fs::canonicalize(&path).ok();
            for target in std::iter::once(written).chain(resolved) {
                self.looked_up(&target);
                todo.extend(
                    target
                        .ancestors()
                        .filter(|a| a.parent().is_some())
                        .map(Path::to_path_buf),
                );
            }
        }
        true
    }

    /// The directories, each with what of it the plan depends on.
    pub fn iter(&self) -> impl Iterator<Item = (&Path, &Entries)> {
        self.0.iter().map(|(dir, entries)| (dir.as_path(), entries))
    }

    /// Whether the plan consulted `dir` at all.
    pub fn contains(&self, dir: &Path) -> bool {
        self.0.contains_key(dir)
    }

    /// What of `dir` the plan depends on, if it consulted it.
    pub fn entries(&self, dir: &Path) -> Option<&Entries> {
        self.0.get(dir)
    }

    /// Whether `self` depends on nothing `other` does not: a plan made again under the
    /// watches set for `other` is still wholly watched.
    pub fn within(&self, other: &Consulted) -> bool {
        self.0.iter().all(|(dir, entries)| {
            other
                .0
                .get(dir)
                .is_some_and(|theirs| entries.within(theirs))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(consulted: &Consulted, dir: &str, name: &str) -> bool {
        consulted
            .entries(Path::new(dir))
            .is_some_and(|e| e.matter(Some(OsStr::new(name))))
    }

    #[test]
    fn a_path_looked_up_depends_on_each_name_along_it_and_a_listing_on_all() {
        let mut consulted = Consulted::default();
        consulted.looked_up(Path::new("/tmp/work/repo"));
        consulted.looked_up(Path::new("/tmp/other"));
        assert!(named(&consulted, "/", "tmp"));
        assert!(named(&consulted, "/tmp", "work") && named(&consulted, "/tmp", "other"));
        assert!(named(&consulted, "/tmp/work", "repo"));
        assert!(
            !named(&consulted, "/tmp", "scratch.txt"),
            "another entry beside it"
        );
        assert!(!named(&consulted, "/tmp/work", "notes"));
        assert!(
            !consulted.contains(Path::new("/tmp/work/repo")),
            "not what lies below"
        );
        // The directory itself going always matters.
        assert!(
            consulted
                .entries(Path::new("/tmp"))
                .is_some_and(|e| e.matter(None))
        );

        consulted.listed(Path::new("/tmp"));
        assert!(
            named(&consulted, "/tmp", "scratch.txt"),
            "a listed directory depends on all"
        );
        consulted.looked_up(Path::new("/tmp/x"));
        assert!(named(&consulted, "/tmp", "anything"), "and stays so");

        let mut dots = Consulted::default();
        dots.looked_up(Path::new("/srv/a/../b"));
        assert!(
            named(&dots, "/srv/a", "c"),
            "a `..` makes its directory depend on all"
        );
        assert!(named(&dots, "/srv", "a") && !named(&dots, "/srv", "c"));
    }

    #[test]
    fn a_link_along_a_path_makes_its_directory_and_where_it_leads_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("real");
        for d in ["cfg", "links", "store/one"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        // cfg/gh -> links/current -> store/one: a chain through a directory the path as
        // written never names.
        std::os::unix::fs::symlink(root.join("links/current"), root.join("cfg/gh")).expect("ln");
        std::os::unix::fs::symlink("../store/one", root.join("links/current")).expect("ln");
        let mut consulted = Consulted::default();
        consulted.looked_up(&root.join("cfg/gh/hosts.yml"));
        let text = |p: &str| root.join(p).display().to_string();
        assert!(!named(&consulted, &text("cfg"), "other"));
        assert!(consulted.follow_links());
        assert!(
            named(&consulted, &text("cfg"), "other"),
            "the link's directory counts whole"
        );
        assert!(
            named(&consulted, &text("links"), "other"),
            "and the next link's"
        );
        assert!(
            named(&consulted, &text("store"), "one"),
            "and the names where it leads"
        );
        assert!(!named(&consulted, &text("store"), "two"));
        // A loop of links is followed a bounded number of times.
        std::os::unix::fs::symlink(root.join("b"), root.join("a")).expect("ln");
        std::os::unix::fs::symlink(root.join("a"), root.join("b")).expect("ln");
        let mut looped = Consulted::default();
        looped.looked_up(&root.join("a/x"));
        assert!(looped.follow_links());
    }

    #[test]
    fn within_compares_directories_and_their_entries() {
        let mut small = Consulted::default();
        small.looked_up(Path::new("/a/b"));
        let mut wide = small.clone();
        wide.looked_up(Path::new("/a/c"));
        assert!(small.within(&wide) && !wide.within(&small));
        let mut all = Consulted::default();
        all.listed(Path::new("/"));
        all.listed(Path::new("/a"));
        assert!(wide.within(&all) && !all.within(&wide));
        let mut elsewhere = Consulted::default();
        elsewhere.looked_up(Path::new("/z/y"));
        assert!(!elsewhere.within(&wide));
    }
}
