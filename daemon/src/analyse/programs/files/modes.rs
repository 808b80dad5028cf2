//! Owners, modes and ACLs (`chmod`, `chown`, `setfacl`, `install -m`). A change of mode is a
//! permission change (`perms`) unless it grants what others should not have: write for
//! everyone is an exposure of any place; read for the group or others is one on a secret or
//! a home (the secrets it holds), and a setuid or setgid bit is one anywhere (a copy of a shell
//! or an interpreter then runs anything as its owner).

use super::super::super::act::Site;
use super::super::super::catalogue;
use super::super::super::effects::Effect::{Expose, Perms, Read};
use super::super::super::words::Word;
use crate::places::Kind;

/// What a mode or an ACL gives beyond the owner.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// Every user may write.
    pub others_write: bool,
    /// The group or every user may read.
    pub others_read: bool,
    /// The setuid or setgid bit.
    pub setid: bool,
}

impl Grant {
    fn add(self, other: Grant) -> Grant {
        Grant {
            others_write: self.others_write || other.others_write,
            others_read: self.others_read || other.others_read,
            setid: self.setid || other.setid,
        }
    }
}

/// What a chmod mode grants: octal digits (`4755`, `0644`) or symbolic clauses (`g+rw,o+r`,
/// `u+s`, `+s`, `a=r`). A clause without `ugoa` is for everyone, less the umask, which does
/// not mask read.
pub fn mode_grant(mode: &str) -> Grant {
    if !mode.is_empty() && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let digits: Vec<u8> = mode.bytes().map(|b| b - b'0').collect();
        let at = |from_end: usize| {
            digits
                .len()
                .checked_sub(from_end)
                .and_then(|i| digits.get(i))
                .copied()
                .unwrap_or(0)
        };
        return Grant {
            others_write: at(1) & 2 != 0,
            others_read: at(1) & 4 != 0 || at(2) & 4 != 0,
            setid: digits.len() >= 4 && at(4) & 6 != 0,
        };
    }
    mode.split(',').fold(Grant::default(), |g, clause| {
        let who_end = clause
            .find(|c: char| !"ugoa".contains(c))
            .unwrap_or(clause.len());
        let (who, ops) = clause.split_at(who_end);
        let everyone = who.is_empty() || who.contains('a');
        // What the `+…` and `=…` runs of the clause add; a `-…` run takes away.
        let mut op = ' ';
        let mut added = String::new();
        for c in ops.chars() {
            if "+-=".contains(c) {
                op = c;
            } else if op != '-' {
                added.push(c);
            }
        }
        let adds = !added.is_empty();
        g.add(Grant {
            others_write: adds && added.contains('w') && (who.contains('o') || who.contains('a')),
            others_read: adds
                && added.contains('r')
                && (everyone || who.contains('g') || who.contains('o')),
            setid: adds && added.contains('s') && (everyone || who.contains(['u', 'g'])),
        })
    })
}

/// What an ACL given to `setfacl -m`/`--set` grants: an entry for a named user, a group,
/// the mask or others (`u:nobody:rwx`, `g::r`, `o::r`, `other:rw`, `d:o:r`), not the owner's.
pub fn acl_grant(acl: &str) -> Grant {
    acl.split([',', '\n']).fold(Grant::default(), |g, entry| {
        let entry = entry.trim();
        let entry = entry
            .strip_prefix("default:")
            .or_else(|| entry.strip_prefix("d:"))
            .unwrap_or(entry);
        let mut parts = entry.split(':');
        let tag = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        let (qualifier, perms) = match rest.as_slice() {
            [perms] => ("", *perms),
            [qualifier, perms, ..] => (*qualifier, *perms),
            [] => return g,
        };
        let owner = matches!(tag, "u" | "user") && qualifier.is_empty();
        let others = matches!(tag, "o" | "other");
        if owner || matches!(tag, "m" | "mask") {
            return g;
        }
        g.add(Grant {
            others_write: others && perms.contains('w'),
            others_read: perms.contains(['r', 'w', 'x']),
            setid: false,
        })
    })
}

/// Judges what `grant` gives on `targets` (trees with `tree`): everyone's write exposes each;
/// read for others exposes a secret or a home; a setuid or setgid bit exposes whatever it is
/// set on. Otherwise it is a change of permissions.
fn judge<'s>(grant: Grant, targets: &[Word<'s>], tree: bool, site: &mut Site<'_, 's, '_, '_>) {
    for t in targets {
        let effect = if grant.others_write { Expose } else { Perms };
        if tree {
            site.tree(effect, t);
        } else {
            site.on(effect, t);
        }
        if grant.others_read && exposes_secrets(site, t, tree) {
            site.say(catalogue::MODE_READABLE, &t.shown());
        }
        if grant.setid {
            site.say(catalogue::MODE_SETID, &t.shown());
        }
    }
}

/// Whether letting others read `t` lets them read secrets: it is one, or it is a home (the
/// home itself is a place only as a whole, with what lies beneath it).
fn exposes_secrets(site: &Site, t: &Word, tree: bool) -> bool {
    site.placed(t, tree).has(Kind::Secret) || site.placed(t, true).has(Kind::Home)
}

/// What a mode set by other means (an inline program's `os.chmod(p, 0o644)`) grants on
/// `target` beyond its permission change: read for others on a secret or a home, a setuid
/// or setgid bit anywhere.
pub fn grant_on<'s>(read: bool, setid: bool, target: &Word<'s>, site: &mut Site<'_, 's, '_, '_>) {
    // A path the program built has no text on the line: its value is shown.
    let shown = target.shown();
    if read && exposes_secrets(site, target, false) {
        site.say(catalogue::MODE_READABLE, &shown);
    }
    if setid {
        site.say(catalogue::MODE_SETID, &shown);
    }
}

/// `-w`, `-x`, `-rwx` are modes to chmod, not options.
fn is_mode_word(t: &str) -> bool {
    t.strip_prefix('-')
        .is_some_and(|m| !m.is_empty() && m.chars().all(|c| "rwxXst".contains(c)))
}

/// `chmod MODE FILE…`: changes modes (of trees with `-R`), judged by what the mode grants.
pub fn chmod<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() {
        return;
    }
    // The grammar read `-w` as an option; bash and chmod take it as a mode.
    let dash_mode = words
        .iter()
        .find(|w| w.literal().is_some_and(is_mode_word))
        .and_then(Word::literal)
        .map(str::to_owned);
    let reference = site.args.value(&["reference"]).cloned();
    let mut targets: Vec<Word> = site.args.operands.iter().map(|w| (*w).clone()).collect();
    let mode = match (&dash_mode, &reference) {
        (Some(m), _) => Some(m.clone()),
        (None, Some(_)) => None,
        (None, None) if !targets.is_empty() => {
            let m = targets.remove(0);
            Some(m.literal().unwrap_or("").to_owned())
        }
        _ => None,
    };
    if let Some(r) = &reference {
        site.on(Read, r);
    }
    let tree = site.args.has(&["R", "recursive"]);
    let grant = mode.as_deref().map(mode_grant).unwrap_or_default();
    judge(grant, &targets, tree, site);
}

/// `install -m MODE`: the mode of what it installs (its operands, sources included: a secret
/// installed world-readable is exposed all the same).
pub fn install_mode<'s>(site: &mut Site<'_, 's, '_, '_>) {
    let Some(mode) = site.args.value(&["m", "mode"]).and_then(Word::literal) else {
        return;
    };
    let grant = mode_grant(mode);
    if grant == Grant::default() {
        return;
    }
    let ops: Vec<Word> = site.args.operands.iter().map(|w| (*w).clone()).collect();
    for w in &ops {
        if grant.others_write {
            site.on(Expose, w);
        }
        if grant.others_read && exposes_secrets(site, w, false) {
            site.say(catalogue::MODE_READABLE, &w.shown());
        }
    }
    if grant.setid
        && let Some(dest) = ops.last()
    {
        site.say(catalogue::MODE_SETID, dest.raw);
    }
}

/// `chown OWNER FILE…`, `chgrp GROUP FILE…`.
pub fn chown<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if site.args.only_help() {
        return;
    }
    let reference = site.args.has(&["reference"]);
    let skip = usize::from(!reference);
    let targets: Vec<Word> = site
        .args
        .operands
        .iter()
        .skip(skip)
        .map(|w| (*w).clone())
        .collect();
    let tree = site.args.has(&["R", "recursive"]);
    judge(Grant::default(), &targets, tree, site);
}

/// `chattr`, `setfacl`, `setfattr`: the first operand is the change unless an option gave it,
/// the rest its files. An ACL (`-m`, `--modify`, `--set`, or the first operand) is judged by
/// what it grants.
pub fn perms_after_first<'s>(_: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let given = site.args.has(&[
        "m",
        "x",
        "M",
        "X",
        "modify",
        "remove",
        "set",
        "set-file",
        "modify-file",
        "remove-file",
    ]);
    let skip = usize::from(!given);
    // Only setfacl's change is an ACL; chattr's and setfattr's grant nothing to others.
    let is_acl = site.name.rsplit('/').next() == Some("setfacl");
    let acl = site
        .args
        .value(&["m", "modify", "set"])
        .or_else(|| {
            (!given)
                .then(|| site.args.operands.first().copied())
                .flatten()
        })
        .and_then(Word::literal)
        .filter(|_| is_acl)
        .map(str::to_owned);
    let targets: Vec<Word> = site
        .args
        .operands
        .iter()
        .skip(skip)
        .map(|w| (*w).clone())
        .collect();
    let tree = site.args.has(&["R", "recursive"]);
    let grant = acl.as_deref().map(acl_grant).unwrap_or_default();
    judge(grant, &targets, tree, site);
}
