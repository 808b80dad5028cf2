//! The one vocabulary of places: what a path is to the person whose machine it is. The shell
//! analysis, the arguments of tool calls and the signatures of remembered approvals all name
//! places through [`classify`] and [`Kind`], so `cat ~/.aws/credentials`, a `Read` of
//! `/home/u/.aws/credentials` and a rule a person remembers agree on what that file is.
//!
//! A path is judged by its text, never by the file system: pure, no I/O. A pattern (a glob, a
//! word only partly known) is judged by every place it could name. Which paths are which is
//! `vocabulary`'s table; where the project, the home and temp are comes from the request.

mod glob;
mod path;
mod vocabulary;

use std::borrow::Cow;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

pub use glob::Glob;
pub use path::{Anchor, Comp, Path, Piece, Secret};
use vocabulary::{At, RComp, Rule, Says, meets, names, views, within};

/// What a place is. File places first, then the places that are not files, which programs'
/// models name (`git push` publishes to a `Remote`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `/`, or everything in it.
    Root,
    /// A home directory as a whole, or everything in it.
    Home,
    /// A directory the system needs, as a whole.
    System,
    /// A disk, a partition, the machine's memory.
    Device,
    /// Keys, tokens, passwords, credential stores.
    Secret,
    /// What runs at login or start-up, git's internals and configuration, the system's files.
    Protected,
    /// The gate itself: its controls (answering, remembering, its socket, its daemon and
    /// approval agent), its policy, state, units and programs, the agents' hook settings and
    /// the shell start-up files that load its hook. An agent that changes any of these answers
    /// or switches off its own gate.
    Gate,
    /// Files outside the project: the owner's elsewhere in the home, another user's, the
    /// machine's data.
    Data,
    /// The working directory's tree.
    Project,
    /// Output a build recreates, in the project.
    Build,
    /// Scratch space.
    Temp,
    /// `/dev/null`, the standard streams: nothing written to them is kept or lost (but the
    /// device itself deleted, moved or made unwritable breaks every program that writes to it).
    Null,
    /// Only known when the command runs.
    Unknown,
    /// A remote repository, host or service.
    Remote,
    /// A database's tables and keys.
    Database,
    /// Containers, images, volumes, clusters' workloads.
    Containers,
    /// This machine's services and processes.
    Services,
    /// This machine: power, firewall, accounts, kernel.
    Machine,
    /// Installed software.
    Packages,
    /// A repository's commits, branches, stashes and reflog.
    History,
    /// Uncommitted changes in a working tree.
    Changes,
}

impl Kind {
    /// Every kind, in the order of the level table's columns.
    pub const ALL: [Kind; 21] = [
        Kind::Root,
        Kind::Home,
        Kind::System,
        Kind::Device,
        Kind::Secret,
        Kind::Protected,
        Kind::Gate,
        Kind::Data,
        Kind::Project,
        Kind::Build,
        Kind::Temp,
        Kind::Null,
        Kind::Unknown,
        Kind::Remote,
        Kind::Database,
        Kind::Containers,
        Kind::Services,
        Kind::Machine,
        Kind::Packages,
        Kind::History,
        Kind::Changes,
    ];

    /// The name in finding ids and in the level table.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Root => "root",
            Kind::Home => "home",
            Kind::System => "system",
            Kind::Device => "device",
            Kind::Secret => "secret",
            Kind::Protected => "protected",
            Kind::Gate => "gate",
            Kind::Data => "data",
            Kind::Project => "project",
            Kind::Build => "build",
            Kind::Temp => "temp",
            Kind::Null => "null",
            Kind::Unknown => "unknown",
            Kind::Remote => "remote",
            Kind::Database => "database",
            Kind::Containers => "containers",
            Kind::Services => "services",
            Kind::Machine => "machine",
            Kind::Packages => "packages",
            Kind::History => "history",
            Kind::Changes => "changes",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// What a person is told the place is, when no entry says more.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Root => "the whole file system",
            Kind::Home => "a home directory and everything in it",
            Kind::System => "a directory the system needs",
            Kind::Device => "a disk or the machine's memory",
            Kind::Secret => "a file that holds secrets",
            Kind::Protected => "a protected file",
            Kind::Gate => "the gate itself",
            Kind::Data => "files outside the project",
            Kind::Project => "the project",
            Kind::Build => "build output that the build recreates",
            Kind::Temp => "a temporary directory",
            Kind::Null => "a place that keeps nothing",
            Kind::Unknown => "a place only known when the command runs",
            Kind::Remote => "a remote repository or service",
            Kind::Database => "a database",
            Kind::Containers => "containers, images or volumes",
            Kind::Services => "services and processes",
            Kind::Machine => "the machine itself",
            Kind::Packages => "installed software",
            Kind::History => "the repository's history",
            Kind::Changes => "uncommitted changes",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// The places a path could be, each with what a person is told it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placed {
    bits: u32,
    why: [&'static str; Kind::ALL.len()],
}

impl Placed {
    /// One place.
    pub fn one(kind: Kind, why: &'static str) -> Placed {
        let mut p = Placed::default();
        p.add(kind, why);
        p
    }

    pub fn add(&mut self, kind: Kind, why: &'static str) {
        if !self.has(kind) {
            self.bits |= kind.bit();
            self.why[kind as usize] = why;
        }
    }

    pub fn union(&mut self, other: &Placed) {
        for kind in other.kinds() {
            self.add(kind, other.why(kind));
        }
    }

    pub fn has(&self, kind: Kind) -> bool {
        self.bits & kind.bit() != 0
    }

    /// Takes `kind` out.
    pub fn remove(&mut self, kind: Kind) {
        self.bits &= !kind.bit();
        self.why[kind as usize] = "";
    }

    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        Kind::ALL.into_iter().filter(|k| self.has(*k))
    }

    /// What the place is, in words: the entry that matched, else the kind's own description.
    pub fn why(&self, kind: Kind) -> &'static str {
        match self.why[kind as usize] {
            "" => kind.describe(),
            why => why,
        }
    }
}

/// Places a policy adds to the vocabulary (`sensitive_paths`, `protected_paths`): globs over
/// a path's text, as it is absolute and, below the requester's home, as `~/…`. They add to
/// what the vocabulary says, never take from it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Added<'a> {
    pub secret: Option<Patterns<'a>>,
    pub protected: Option<Patterns<'a>>,
}

/// Globs as written and compiled.
#[derive(Debug, Clone, Copy)]
pub struct Patterns<'a> {
    pub written: &'a [String],
    pub set: &'a globset::GlobSet,
}

/// Where a request is made: the requester's home and working directory, once split into
/// components for the many paths of one command line.
#[derive(Debug, Clone)]
pub struct Where<'a> {
    /// What the policy adds to the vocabulary.
    added: Added<'a>,
    home: Option<Vec<Comp>>,
    /// The working directory, when it holds a project: not `/`, not the home or above it.
    project: Option<Vec<Comp>>,
    cwd: Option<String>,
    home_text: Option<String>,
}

impl<'a> Where<'a> {
    pub fn new(cwd: Option<&str>, home: Option<&str>) -> Where<'a> {
        let home_path = home.filter(|h| h.starts_with('/')).map(Path::absolute);
        let cwd_path = cwd.filter(|c| c.starts_with('/')).map(Path::absolute);
        let project = cwd_path.filter(|c| {
            !c.comps.is_empty()
                && home_path
                    .as_ref()
                    .is_none_or(|h| !h.comps.starts_with(&c.comps))
                && !(c.comps.len() == 1 && SYSTEM_TOPS.iter().any(|t| is_name(&c.comps[0], t)))
        });
        Where {
            added: Added::default(),
            home_text: home_path.as_ref().and_then(Path::literal_text),
            home: home_path.map(|h| h.comps),
            project: project.map(|p| p.comps),
            cwd: cwd.filter(|c| c.starts_with('/')).map(str::to_owned),
        }
    }

    /// With the places a policy adds.
    pub fn with_added(mut self, added: Added<'a>) -> Where<'a> {
        self.added = added;
        self
    }

    /// The working directory, when known.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }
}

/// Top-level directories that are no project even when a command runs in them.
const SYSTEM_TOPS: &[&str] = &["home", "usr", "etc", "var", "opt", "srv", "mnt", "media"];

fn is_name(comp: &Comp, name: &str) -> bool {
    matches!(comp, Comp::Name(g) if g.as_literal().as_deref() == Some(name))
}

/// Directories that builds, package managers and test runners recreate from the sources.
/// `out/`, `bin/`, `vendor/` and `.cache/` are left out: hand-made files live there too often.
const BUILD_DIRS: &[&str] = &[
    "target",
    "node_modules",
    "build",
    "dist",
    "_build",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    ".gradle",
    "coverage",
    "htmlcov",
    ".eggs",
    ".angular",
    ".docusaurus",
    "zig-cache",
    ".zig-cache",
    "dist-newstyle",
    ".stack-work",
    ".nyc_output",
    ".terraform",
    ".cache-loader",
    ".vite",
];

/// Scratch directories.
const TEMP_DIRS: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

/// The compiled vocabulary.
struct Vocabulary {
    rules: Vec<Rule>,
    /// Finds the rules whose key a literal path holds.
    keys: AhoCorasick,
    /// For each key, the rules that have it.
    by_key: Vec<Vec<usize>>,
    temp: Vec<Vec<RComp>>,
    build: Vec<Glob>,
    /// Whole-tree entries that name one literal directory from the root, by its text.
    tree_literal: std::collections::HashMap<String, usize>,
    /// The other whole-tree entries (a home, `/home/*`).
    tree_other: Vec<usize>,
    /// Where each entry starts, by index.
    starts: Vec<Start>,
    /// The entries for the null device and its kin (`/dev/null`, `/dev/stdout`).
    nulls: Vec<usize>,
}

fn vocabulary() -> &'static Vocabulary {
    static V: OnceLock<Vocabulary> = OnceLock::new();
    V.get_or_init(|| {
        let rules: Vec<Rule> = vocabulary::ENTRIES
            .iter()
            .map(|(pattern, says, why)| Rule::compile(pattern, *says, why))
            .collect();
        let mut key_texts: Vec<String> = Vec::new();
        let mut by_key: Vec<Vec<usize>> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            match key_texts.iter().position(|k| *k == rule.key) {
                Some(k) => by_key[k].push(i),
                None => {
                    key_texts.push(rule.key.clone());
                    by_key.push(vec![i]);
                }
            }
        }
        let keys =
            AhoCorasick::new(&key_texts).expect("the vocabulary's keys are a few short strings");
        let temp = TEMP_DIRS
            .iter()
            .map(|t| Rule::compile(&format!("{t}/**"), Says::Ordinary, "").comps)
            .collect();
        let build = BUILD_DIRS.iter().map(|b| Glob::literal(b)).collect();
        let mut tree_literal = std::collections::HashMap::new();
        let mut tree_other = Vec::new();
        for (i, (pattern, _, _)) in vocabulary::ENTRIES.iter().enumerate() {
            if !rules[i].tree {
                continue;
            }
            let literal = pattern.starts_with('/') && !pattern.contains(['*', '?', '[']);
            if literal {
                let text = pattern.trim_end_matches('/');
                tree_literal.insert(
                    if text.is_empty() {
                        "/".to_owned()
                    } else {
                        text.to_owned()
                    },
                    i,
                );
            } else {
                tree_other.push(i);
            }
        }
        let starts = vocabulary::ENTRIES
            .iter()
            .map(|(pattern, _, _)| Start::new(pattern))
            .collect();
        let nulls = (0..rules.len())
            .filter(|&i| rules[i].says == Says::Is(Kind::Null) && !rules[i].tree)
            .collect();
        Vocabulary {
            nulls,
            rules,
            keys,
            by_key,
            temp,
            build,
            tree_literal,
            tree_other,
            starts,
        }
    })
}

/// The literal components a pattern starts with, for a pattern anchored at the root or a
/// home: `Some("/etc/assent")`, `Some("~*/.config/gh")`; `None` for `**/…`.
fn literal_start(pattern: &str) -> Option<String> {
    if pattern.starts_with("**") {
        return None;
    }
    let mut out = String::new();
    for (i, part) in pattern.split('/').enumerate() {
        if part.contains(['*', '?', '[']) && !(i == 0 && part == "~*") {
            break;
        }
        if i > 0 {
            out.push('/');
        }
        out.push_str(part);
    }
    Some(out)
}

/// Where `path` is. `tree`: the command acts on the directory and everything beneath it
/// (`rm -r`, `chmod -R`, `tar c`), so a directory holding secrets or protected files counts
/// as them.
pub fn classify(path: &Path, tree: bool, w: &Where) -> Placed {
    let v = vocabulary();
    let mut placed = Placed::default();
    let home = w.home.as_deref();
    let literal = path.literal_text();
    // The null device and the standard streams are what they are, whatever the command does
    // with them (`/dev/**` is the system's as a tree); nothing lies beneath them either
    // (`cp x /dev/null` is not a copy into a directory `/dev/null`).
    if let Some(text) = literal.as_deref().filter(|t| t.starts_with("/dev/")) {
        let mut at = text.len();
        loop {
            let ancestor = Path::absolute(&text[..at]);
            if let Some(&i) = v
                .nulls
                .iter()
                .find(|&&i| match_rule(&ancestor, &v.rules[i], home) == Some(true))
            {
                placed.add(Kind::Null, v.rules[i].why);
                return placed;
            }
            match text[..at].rfind('/') {
                Some(slash) if slash > "/dev".len() => at = slash,
                _ => break,
            }
        }
    }
    // A directory acted on as a whole: the root, a home, a system directory. A path whose
    // start is unknown is not taken for one of them: it is unknown.
    let whole = match path
        .everything_in()
        .filter(|_| path.anchor != Anchor::Unknown)
    {
        Some(dir) => Some(Cow::Owned(dir)),
        None => (tree && path.anchor != Anchor::Unknown).then_some(Cow::Borrowed(path)),
    };
    if let Some(dir) = &whole {
        let text = dir.literal_text();
        // The tree itself, not every entry in it (`~/*` skips `~/.ssh`): what lies beneath
        // counts too, so reading all of `~` reads its secrets.
        let whole_tree = tree && matches!(dir, Cow::Borrowed(_));
        // `cat /etc/*`: every entry of the directory, one by one, each also placed as
        // itself below (`/etc/shadow` is among them).
        let entries_too = !tree && matches!(dir, Cow::Owned(_));
        let settle = |mut placed: Placed| {
            if whole_tree {
                beneath(dir, text.as_deref(), w, &mut placed);
            }
            placed
        };
        let mut settled = false;
        if let Some(&i) = text.as_ref().and_then(|t| v.tree_literal.get(t)) {
            let rule = &v.rules[i];
            if let Says::Is(kind) | Says::Both(kind, _) = rule.says {
                placed.add(kind, rule.why);
                if !entries_too {
                    return settle(placed);
                }
                settled = true;
            }
        }
        let others: Box<dyn Iterator<Item = usize>> = if text.is_some() {
            Box::new(v.tree_other.iter().copied())
        } else {
            Box::new((0..v.rules.len()).filter(|&i| v.rules[i].tree))
        };
        let starts = &v.starts;
        let probe = text
            .as_deref()
            .map(|t| Probe::new(t, w.home_text.as_deref()));
        for i in others.take_while(|_| !settled) {
            let rule = &v.rules[i];
            // A literal directory can lie in an entry's tree only where their starts meet.
            if let Some(p) = &probe
                && starts.get(i).is_some_and(|s| !s.may_be_beneath(p))
            {
                continue;
            }
            if let Says::Is(kind) | Says::Both(kind, _) = rule.says
                && let Some(certain) = match_rule(dir, rule, home)
            {
                placed.add(kind, rule.why);
                if certain && dir.is_literal() {
                    if !entries_too {
                        return settle(placed);
                    }
                    break;
                }
            }
        }
    }
    // An entry's key is literal text within one component: a path can match it only if one of
    // its literal components holds the key, or one of its globs could spell it (unknown
    // components match only wildcards in the vocabulary, never literal text).
    let candidates = key_text(path).map(|text| {
        let mut on = vec![false; v.rules.len()];
        for m in v.keys.find_overlapping_iter(&text) {
            for &r in &v.by_key[m.pattern().as_usize()] {
                on[r] = true;
            }
        }
        on
    });
    // Settled: an entry that is not `Ordinary` matches every path the word names. An
    // `Ordinary` entry that may match leaves part of the pattern to where it lies.
    let mut settled = false;
    let mut ordinary = false;
    for (i, rule) in v.rules.iter().enumerate() {
        if rule.tree || candidates.as_ref().is_some_and(|on| !on[i]) {
            continue;
        }
        let Some(certain) = match_rule(path, rule, home) else {
            continue;
        };
        match rule.says {
            Says::Is(kind) => placed.add(kind, rule.why),
            Says::Both(a, b) => {
                placed.add(a, rule.why);
                placed.add(b, rule.why);
            }
            Says::Ordinary => ordinary = true,
        }
        if certain {
            settled = rule.says != Says::Ordinary;
            break;
        }
    }
    if !settled || ordinary {
        structural(path, w, &mut placed);
    }
    // Beneath a directory only known at run time lies anything: it is unknown already.
    if tree && path.anchor != Anchor::Unknown {
        beneath(path, literal.as_deref(), w, &mut placed);
    }
    added(path, literal.as_deref(), tree, w, &mut placed);
    placed
}

/// The places a policy adds: a path whose text one of its globs matches, or (`tree`) a
/// literal directory that holds what one of them names below a literal start.
fn added(path: &Path, literal: Option<&str>, tree: bool, w: &Where, placed: &mut Placed) {
    let lists = [
        (
            w.added.secret,
            Kind::Secret,
            "a place your policy names as secret",
        ),
        (
            w.added.protected,
            Kind::Protected,
            "a place your policy protects",
        ),
    ];
    if lists.iter().all(|(p, _, _)| p.is_none()) {
        return;
    }
    let text = path.pattern_text();
    let home = w.home_text.as_deref();
    let mut forms = vec![text.clone()];
    match (text.strip_prefix('~'), home) {
        (Some(rest), Some(h)) => forms.push(format!("{h}{rest}")),
        (None, Some(h)) => {
            if let Some(rest) = text.strip_prefix(h)
                && (rest.is_empty() || rest.starts_with('/'))
            {
                forms.push(format!("~{rest}"));
            }
        }
        _ => {}
    }
    for (patterns, kind, why) in lists {
        let Some(patterns) = patterns else { continue };
        if forms.iter().any(|f| patterns.set.is_match(f)) {
            placed.add(kind, why);
            continue;
        }
        let Some(dir) = literal.filter(|_| tree).map(|d| d.trim_end_matches('/')) else {
            continue;
        };
        let holds = patterns.written.iter().any(|written| {
            let expanded = match (written.strip_prefix('~'), home) {
                (Some(rest), Some(h)) => format!("{h}{rest}"),
                _ => written.clone(),
            };
            // Below a start every path shares (`**/*.kdbx`) nothing in particular lies.
            let start = literal_start(&expanded).filter(|s| !s.is_empty() && s.starts_with('/'));
            start.is_some_and(|s| related(&s, dir) && s.len() >= dir.len())
        });
        if holds {
            placed.add(kind, why);
        }
    }
}

/// The literal components of a path that has no globs, joined by `/`, for the key search.
fn key_text(path: &Path) -> Option<String> {
    let mut text = String::new();
    for c in &path.comps {
        match c {
            Comp::Name(g) => {
                text.push('/');
                text.push_str(&g.as_literal()?);
            }
            Comp::Opaque | Comp::Below | Comp::Beneath => text.push('/'),
        }
    }
    Some(text)
}

/// Whether `rule` could match `path`: `Some(true)` when every path it names does.
fn match_rule(path: &Path, rule: &Rule, home: Option<&[Comp]>) -> Option<bool> {
    let mut seen = Vec::new();
    views(path, rule.at, home, &mut seen);
    let mut hit = None;
    for view in &seen {
        let may = if rule.at == At::Anywhere {
            names(view, &rule.comps)
        } else {
            meets(view, &rule.comps)
        };
        if may {
            let all = within(view, &rule.comps);
            hit = Some(hit.unwrap_or(false) || all);
            if all {
                break;
            }
        }
    }
    hit
}

/// Temp, build output, the project, the home, elsewhere: where a path lies.
fn structural(path: &Path, w: &Where, placed: &mut Placed) {
    match path.anchor {
        Anchor::Unknown => {
            placed.add(Kind::Unknown, "");
            return;
        }
        Anchor::Home => {
            placed.add(Kind::Data, "your files outside the project");
            return;
        }
        Anchor::Root => {}
    }
    let v = vocabulary();
    let comps = path.comps.as_slice();
    // Unknown text may hold `..` and lead anywhere (`/tmp/$x`); what a listing finds below a
    // directory (`Below`) stays there.
    if comps.contains(&Comp::Opaque) {
        placed.add(Kind::Unknown, "");
    }
    let under = |dir: &[Comp], add_any: bool| -> (bool, bool) {
        let mut rule: Vec<RComp> = dir.iter().map(as_rcomp).collect();
        if add_any {
            rule.push(RComp::AnyDirs);
        }
        (meets(comps, &rule), within(comps, &rule))
    };
    for temp in &v.temp {
        if meets(comps, temp) {
            placed.add(Kind::Temp, "");
            if within(comps, temp) {
                return;
            }
        }
    }
    if let Some(project) = &w.project {
        let (may, all) = under(project, true);
        if may {
            if let Some(build) = build_output(comps, project, &v.build) {
                placed.add(Kind::Build, "");
                if build {
                    return;
                }
            }
            placed.add(Kind::Project, "");
            if all {
                return;
            }
        }
    }
    if let Some(home) = &w.home {
        let (may, all) = under(home, true);
        if may {
            placed.add(Kind::Data, "your files outside the project");
            if all {
                return;
            }
        }
    }
    placed.add(Kind::Data, "files outside the project");
}

/// Files a compiler makes beside its sources, which a build makes again: `*.o`, `*.pyc`.
const BUILD_FILES: &[&str] = &[".o", ".obj", ".pyc", ".pyo", ".class"];

/// Whether a path below `project` is at or under a build directory, or is a file a compiler
/// made: `Some(true)` certainly, `Some(false)` possibly (a glob).
fn build_output(comps: &[Comp], project: &[Comp], build: &[Glob]) -> Option<bool> {
    let below = comps.get(project.len()..)?;
    // `main.o`, `*.pyc`: every name the last component can be ends in a compiler's suffix.
    if let Some(Comp::Name(last)) = below.last()
        && BUILD_FILES
            .iter()
            .any(|suffix| last.text().ends_with(suffix))
    {
        return Some(true);
    }
    let mut maybe = false;
    for c in below {
        match c {
            Comp::Name(g) => {
                if let Some(name) = g.as_literal() {
                    if build.iter().any(|b| b.matches(&name)) || name.ends_with(".egg-info") {
                        return Some(true);
                    }
                } else if g.text().ends_with(".egg-info") {
                    // `*.egg-info`: every name it matches is one.
                    return Some(true);
                } else if build.iter().any(|b| g.meets(b)) {
                    maybe = true;
                }
            }
            Comp::Opaque | Comp::Beneath | Comp::Below => {}
        }
    }
    maybe.then_some(false)
}

fn as_rcomp(c: &Comp) -> RComp {
    match c {
        Comp::Name(g) => RComp::Name(g.clone()),
        Comp::Opaque | Comp::Beneath | Comp::Below => RComp::AnyDirs,
    }
}

/// What lies beneath a directory a command acts on as a whole: the secrets and protected
/// files the vocabulary places there (`rm -r ~/.config` deletes the gate's policy).
fn beneath(path: &Path, literal: Option<&str>, w: &Where, placed: &mut Placed) {
    let v = vocabulary();
    let home = w.home.as_deref();
    let below = path.beneath();
    let starts = &v.starts;
    // The gate's files beneath the whole file system, a home or a system directory add
    // nothing a person needs told: what acts on all of it is judged by that already.
    let wide = [Kind::Root, Kind::Home, Kind::System]
        .iter()
        .any(|k| placed.has(*k));
    let probe = literal.map(|t| Probe::new(t, w.home_text.as_deref()));
    for (i, rule) in v.rules.iter().enumerate() {
        let kind = match rule.says {
            Says::Is(k @ (Kind::Secret | Kind::Protected | Kind::Gate)) | Says::Both(k, _) => k,
            _ => continue,
        };
        if kind == Kind::Gate && wide {
            continue;
        }
        if rule.tree {
            continue;
        }
        // `**/.claude/settings.json` lies beneath any directory named `.claude`: what acts on
        // `.claude` as a whole acts on its settings.
        if rule.at == At::Anywhere {
            let named = match (path.comps.last(), rule.comps.as_slice()) {
                (Some(Comp::Name(last)), [RComp::AnyDirs, RComp::Name(first), _, ..]) => {
                    last.as_literal().is_some_and(|name| first.matches(&name))
                }
                _ => false,
            };
            if named {
                placed.add(kind, rule.why);
            }
            continue;
        }
        if let Some(p) = &probe
            && !starts[i].may_be_beneath(p)
        {
            continue;
        }
        if match_rule(&below, rule, home).is_some() {
            placed.add(kind, rule.why);
        }
    }
}

/// Where an anchored entry of the vocabulary starts: its literal start, to tell quickly
/// whether it can lie beneath a path. Built once; the requester's home is put in by the
/// [`Probe`].
#[derive(Debug, Clone)]
enum Start {
    /// Any home: the entry's start below it; the home may be the requester's, `/root` or
    /// `/home/NAME`.
    AnyHome(String),
    /// The requester's home: the entry's start below it.
    OwnHome(String),
    Text(String),
    /// Nothing literal to go by.
    Anything,
}

impl Start {
    fn new(pattern: &str) -> Start {
        let Some(start) = literal_start(pattern) else {
            return Start::Anything;
        };
        if let Some(rest) = start.strip_prefix("~*") {
            return Start::AnyHome(rest.to_owned());
        }
        if let Some(rest) = start.strip_prefix('~') {
            return Start::OwnHome(rest.to_owned());
        }
        Start::Text(start)
    }

    /// Whether the entry may lie at or beneath the probed path (or above it).
    fn may_be_beneath(&self, probe: &Probe) -> bool {
        match self {
            Start::Anything => true,
            Start::Text(start) => related(start, probe.text),
            Start::OwnHome(rest) => match probe.own_home {
                // Without a home to put in, nothing literal to go by.
                None => true,
                Some(false) => false,
                Some(true) => related(probe.below_home.unwrap_or(""), rest),
            },
            Start::AnyHome(rest) => match &probe.below_home {
                Some(r) => related(r, rest),
                // `/`, `/home`: every home is below.
                None => matches!(probe.text, "" | "/home"),
            },
        }
    }
}

/// Whether one of two literal paths lies at or beneath the other.
fn related(a: &str, b: &str) -> bool {
    let below = |x: &str, y: &str| {
        y.is_empty() || x == y || (x.starts_with(y) && x.as_bytes().get(y.len()) == Some(&b'/'))
    };
    below(a, b) || below(b, a)
}

/// A literal path, read once for [`Start::may_be_beneath`]: its text, and the part of it
/// below whichever home it is in, and whether that is the requester's home (or a directory
/// above it); `None` when the requester's home is not known.
struct Probe<'t> {
    text: &'t str,
    below_home: Option<&'t str>,
    own_home: Option<bool>,
}

impl<'t> Probe<'t> {
    fn new(text: &'t str, home: Option<&str>) -> Probe<'t> {
        let text = text.trim_end_matches('/');
        let own_home = home.map(|h| related(text, h));
        let below_home = if let Some(h) = home
            && related(text, h)
        {
            Some(text.strip_prefix(h).unwrap_or(""))
        } else if let Some(after) = text.strip_prefix("/home/") {
            Some(after.find('/').map_or("", |i| &after[i..]))
        } else {
            text.strip_prefix("/root")
        };
        Probe {
            text,
            below_home,
            own_home,
        }
    }
}

/// The vocabulary as written, for documentation: each entry's pattern, the places it says,
/// and what a person is told it is. Entries that only say a path is ordinary say no place.
pub fn entries() -> impl Iterator<Item = (&'static str, Vec<Kind>, &'static str)> {
    vocabulary::ENTRIES.iter().map(|(pattern, says, why)| {
        let kinds = match says {
            Says::Is(k) => vec![*k],
            Says::Both(a, b) => vec![*a, *b],
            Says::Ordinary => Vec::new(),
        };
        (*pattern, kinds, *why)
    })
}

/// Where a literal path text is (a tool call's argument, a remembered approval's file). `~`
/// and `~/…` name the requester's home; a relative path is below the working directory.
pub fn classify_text(text: &str, tree: bool, w: &Where, home: Option<&str>) -> Placed {
    let pieces = text_pieces(text, home);
    classify(&Path::from_pieces(&pieces, w.cwd()), tree, w)
}

/// A literal path text as pieces, `~` expanded.
pub fn text_pieces(text: &str, home: Option<&str>) -> Vec<Piece> {
    let rest = match text.strip_prefix('~') {
        Some(r) if r.is_empty() || r.starts_with('/') => Some(r),
        _ => None,
    };
    match (rest, home.filter(|h| h.starts_with('/'))) {
        (Some(rest), Some(home)) => vec![Piece::Lit(format!("{home}{rest}"))],
        (Some(rest), None) => vec![Piece::Home, Piece::Lit(rest.to_owned())],
        (None, _) => vec![Piece::Lit(text.to_owned())],
    }
}

#[cfg(test)]
mod props;

#[cfg(test)]
pub(crate) mod tests;
