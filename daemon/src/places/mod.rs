//! The one vocabulary of places: what a path is to the person whose machine it is. The shell
//! analysis, the arguments of tool calls and the signatures of remembered approvals all name
//! places through [`classify`] and [`Kind`], so `cat ~/.aws/credentials`, a `Read` of
//! `/home/u/.aws/credentials` and a rule a person remembers agree on what that file is.
//!
//! A path is judged by its text, never by the file system: pure, no I/O. A pattern (a glob, a
//! word only partly known) is judged by every place it could name. Which paths are which is
//! `vocabulary`'s table; where the home and temp are comes from the request, and the project
//! from what the daemon found on the disk (`crate::project`).
//!
//! This file holds [`Where`] and [`classify`]; `kind.rs` the places, `path.rs` and `glob.rs`
//! paths and their components as patterns, `compiled.rs` the table compiled once, `lies.rs`
//! where a path the table does not settle lies (temp, build output, the project, a home), and
//! `beneath.rs` what lies beneath a directory acted on as a whole.

mod beneath;
mod compiled;
pub mod confine;
mod glob;
mod kind;
mod lies;
mod path;
pub mod running;
mod said;
mod vocabulary;

use std::borrow::Cow;

use beneath::{Probe, beneath, literal_start, related};
use compiled::compiled;
pub use glob::Glob;
pub use kind::{Kind, Placed};
use lies::structural;
pub use path::{Anchor, Comp, Path, Piece, Secret, disk_file};
use vocabulary::{At, RComp, Rule, Says, meets, names, views, within};

/// Places a policy adds to the vocabulary (`sensitive_paths`, `protected_paths`): globs over
/// a path's text, as it is absolute and, below the requester's home, as `~/…`. They add to
/// what the vocabulary says, never take from it. The policy's program book rides along, for
/// the analysis that takes these (`analyse::book`); placing paths never reads it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Added<'a> {
    pub secret: Option<Patterns<'a>>,
    pub protected: Option<Patterns<'a>>,
    pub programs: Option<&'a crate::analyse::book::Book>,
}

/// Globs as written and compiled.
#[derive(Debug, Clone, Copy)]
pub struct Patterns<'a> {
    pub written: &'a [String],
    pub set: &'a globset::GlobSet,
}

/// Where a request is made: the requester's home, its working directory and the project the
/// directory lies in, once split into components for the many paths of one command line.
#[derive(Debug, Clone)]
pub struct Where<'a> {
    /// What the policy adds to the vocabulary.
    added: Added<'a>,
    home: Option<Vec<Comp>>,
    /// The project: not `/`, not a system directory, not the home or above it.
    project: Option<Vec<Comp>>,
    cwd: Option<String>,
    home_text: Option<String>,
}

impl<'a> Where<'a> {
    /// The working directory taken for the project, as tests and the fuzz targets place paths.
    /// A request's project is the repository the daemon found ([`Where::at`]).
    pub fn new(cwd: Option<&str>, home: Option<&str>) -> Where<'a> {
        Where::at(cwd, home, cwd)
    }

    /// Where a request made from `cwd` by a requester whose home is `home` is, with the
    /// project the daemon found it lies in (`crate::project`): `None` for none, as in
    /// `~/Documents`, where the home's rules apply.
    pub fn at(cwd: Option<&str>, home: Option<&str>, project: Option<&str>) -> Where<'a> {
        let home_path = home.filter(|h| h.starts_with('/')).map(Path::absolute);
        let project = project.filter(|p| p.starts_with('/')).map(Path::absolute);
        let project = project.filter(|c| {
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
pub const SYSTEM_TOPS: &[&str] = &["home", "usr", "etc", "var", "opt", "srv", "mnt", "media"];

fn is_name(comp: &Comp, name: &str) -> bool {
    matches!(comp, Comp::Name(g) if g.as_literal().as_deref() == Some(name))
}

/// Where `path` is. `tree`: the command acts on the directory and everything beneath it
/// (`rm -r`, `chmod -R`, `tar c`), so a directory holding secrets or protected files counts
/// as them.
pub fn classify(path: &Path, tree: bool, w: &Where) -> Placed {
    // Every path a walk found below a known directory, no name narrowing it (`find ~ -type f
    // -exec cat {} +`): that directory's whole tree, as `grep -r x ~` reads it.
    if let Some(dir) = path.found_tree() {
        return classify(&dir, true, w);
    }
    let mut placed = placed_as_written(path, tree, w, own_files(path, w));
    // What a walk found below a known directory by one name (`find ~ -name credentials`): a
    // file of that name at any depth there, a secret among them where a secret is so named.
    // A pattern (`-name '*.pem'`) only from the home or above it, or from a directory that
    // holds a secret's place (`find ~/.mozilla -name '*.db'` finds `key4.db`): in a project,
    // `*.json` is its own files, not the keys some other directory keeps.
    if let Some((wide, dir, literal)) = path.found_named()
        && (literal
            || w.home_text.as_deref().is_some_and(|h| {
                dir.as_deref()
                    .is_some_and(|d| related(h, d) && d.len() <= h.len())
            })
            || dir.as_deref().is_some_and(|d| {
                placed_as_written(&Path::absolute(d), true, w, false).has(Kind::Secret)
            }))
    {
        let any = placed_as_written(&wide, false, w, false);
        if any.has(Kind::Secret) {
            placed.add(Kind::Secret, any.why(Kind::Secret));
        }
    }
    placed
}

/// Whether `path` names the files of one type in a directory below the home or outside it
/// (`*.json` in the project, `find . -name '*.json'`'s finds): those are that directory's own
/// files, as all of them are (`find . -type f`, `grep -r x .` read no secret by that), not
/// the files of a secret's name that also end so wherever they are (`**/secrets.json`,
/// `**/client_secret*.json`). A type that is a secret's own (`*.pem`, `*.key`) still is, and so
/// is a file kept in that very place (`~/.docker/*.json` holds `config.json`); in the home
/// itself or above it, any file type could be the home's keys.
fn own_files(path: &Path, w: &Where) -> bool {
    let Some((Comp::Name(last), dir)) = path.comps.split_last() else {
        return false;
    };
    if !last.is_file_type() || path.anchor == Anchor::Unknown {
        return false;
    }
    let dir = Path {
        anchor: path.anchor,
        comps: dir
            .iter()
            .filter(|c| !matches!(c, Comp::Found | Comp::Beneath))
            .cloned()
            .collect(),
    };
    let Some(text) = dir.literal_text() else {
        return false;
    };
    // Not the home, nor a directory the home is in, nor one that holds a secret's place
    // beneath it (`~/.config` holds gcloud's, `/etc` NetworkManager's): a walk down there
    // finds those too.
    let outside = w
        .home_text
        .as_deref()
        .is_some_and(|home| !(related(home, &text) && text.len() <= home.len()));
    outside && !placed_as_written(&dir, true, w, false).has(Kind::Secret)
}

/// [`classify`] of the path as its components say, a walk's finds as unknown names below.
/// `own_files`: a file-type name ([`own_files`]) is not taken for a secret's one name.
fn placed_as_written(path: &Path, tree: bool, w: &Where, own_files: bool) -> Placed {
    let v = compiled();
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
        // Only a secret's name: the gate's own files and protected ones named anywhere
        // (`**/.claude/settings.json`) are what they are whatever kind of file they are.
        if own_files
            && !certain
            && rule.at == At::Anywhere
            && rule.says == Says::Is(Kind::Secret)
            && !names_a_file_type(rule)
            && !bare_type(rule)
        {
            continue;
        }
        let why = said::described(i, path, home, candidates.as_deref());
        match rule.says {
            Says::Is(kind) => placed.add(kind, why),
            Says::Both(a, b) => {
                placed.add(a, why);
                placed.add(b, why);
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
        (
            running::patterns(),
            Kind::Gate,
            "the gate's own files (where this daemon keeps its policy, state or socket)",
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

/// Whether `rule`'s file is named by an extension alone (`**/.env`): any glob of that type
/// (`*.env`) matches it.
fn bare_type(rule: &Rule) -> bool {
    matches!(rule.comps.last(), Some(RComp::Name(g))
        if g.as_literal().is_some_and(|n| n.starts_with('.') && !n[1..].contains('.')))
}

/// Whether `rule` names files by their type alone (`**/*.pem`), not by a name or a name's
/// stem (`**/secrets.json`, `**/client_secret*.json`).
fn names_a_file_type(rule: &Rule) -> bool {
    matches!(rule.comps.last(), Some(RComp::Name(g)) if g.is_file_type())
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
            Comp::Opaque | Comp::Below | Comp::Found | Comp::Beneath => text.push('/'),
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
