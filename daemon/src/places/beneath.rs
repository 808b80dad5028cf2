//! What lies beneath a directory a command acts on as a whole: the secrets, protected files
//! and gate files the vocabulary places there. A literal directory is probed against each
//! entry's literal start first, so most entries are ruled out without matching.

use super::compiled::compiled;
use super::vocabulary::{At, RComp, Says};
use super::{Comp, Kind, Path, Placed, Where, match_rule};

/// The literal components a pattern starts with, for a pattern anchored at the root or a
/// home: `Some("/etc/assent")`, `Some("~*/.config/gh")`; `None` for `**/…`.
pub(super) fn literal_start(pattern: &str) -> Option<String> {
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

/// What lies beneath a directory a command acts on as a whole: the secrets and protected
/// files the vocabulary places there (`rm -r ~/.config` deletes the gate's policy).
pub(super) fn beneath(path: &Path, literal: Option<&str>, w: &Where, placed: &mut Placed) {
    let v = compiled();
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
                placed.add(kind, v.near[i].above.as_str());
            }
            continue;
        }
        if let Some(p) = &probe
            && !starts[i].may_be_beneath(p)
        {
            continue;
        }
        if match_rule(&below, rule, home).is_some() {
            placed.add(kind, v.near[i].above.as_str());
        }
    }
}

/// Where an anchored entry of the vocabulary starts: its literal start, to tell quickly
/// whether it can lie beneath a path. Built once; the requester's home is put in by the
/// [`Probe`].
#[derive(Debug, Clone)]
pub(super) enum Start {
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
    pub(super) fn new(pattern: &str) -> Start {
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
    pub(super) fn may_be_beneath(&self, probe: &Probe) -> bool {
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
pub(super) fn related(a: &str, b: &str) -> bool {
    let below = |x: &str, y: &str| {
        y.is_empty() || x == y || (x.starts_with(y) && x.as_bytes().get(y.len()) == Some(&b'/'))
    };
    below(a, b) || below(b, a)
}

/// A literal path, read once for [`Start::may_be_beneath`]: its text, and the part of it
/// below whichever home it is in, and whether that is the requester's home (or a directory
/// above it); `None` when the requester's home is not known.
pub(super) struct Probe<'t> {
    text: &'t str,
    below_home: Option<&'t str>,
    own_home: Option<bool>,
}

impl<'t> Probe<'t> {
    pub(super) fn new(text: &'t str, home: Option<&str>) -> Probe<'t> {
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
