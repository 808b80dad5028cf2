//! What a person is told a place is, when the path is only near what an entry names: a file in
//! a secret directory (`~/.ssh/notes.txt` is not an SSH private key, it is in their
//! directory), or a directory acted on as a whole beneath which a secret may lie (`rm -r
//! ~/.config/x` may delete the browser's saved passwords; it is not them). Only the words
//! change here: which places a path is, and so every level, stay the vocabulary's.

use super::compiled::{Near, compiled};
use super::vocabulary::{Rule, Says};
use super::{Comp, Kind, Path, match_rule};

/// The words near an entry, made once when the vocabulary is compiled.
pub(super) fn near(pattern: &str, says: Says, why: &'static str) -> Near {
    let secret = matches!(says, Says::Is(Kind::Secret) | Says::Both(Kind::Secret, _));
    let dir = pattern
        .strip_suffix("/**")
        .filter(|dir| secret && !dir.contains("**"))
        .map(|dir| Rule::compile(dir, Says::Ordinary, ""));
    Near {
        dir,
        inside: format!("in the directory of {why}"),
        above: format!("a directory that may hold {why}"),
    }
}

/// What `path`, which entry `i` matched, is told it is: the entry's own words for the place it
/// names; for a path below a secret directory the entry takes whole, a later entry's words
/// when one names that very path for certain (`~/.ssh/id_rsa`: an SSH private key), else the
/// directory's ("in the directory of SSH private keys"). `candidates`: the entries whose key
/// the path holds, as the caller found them.
pub(super) fn described(
    i: usize,
    path: &Path,
    home: Option<&[Comp]>,
    candidates: Option<&[bool]>,
) -> &'static str {
    let v = compiled();
    let rule = &v.rules[i];
    let Some(dir) = &v.near[i].dir else {
        return rule.why;
    };
    if match_rule(path, dir, home) == Some(true) {
        return rule.why;
    }
    let named = v.rules.iter().enumerate().skip(i + 1).find(|(j, later)| {
        later.says == rule.says
            && !later.tree
            && candidates.is_none_or(|on| on.get(*j).copied().unwrap_or(false))
            && match_rule(path, later, home) == Some(true)
    });
    match named {
        Some((_, later)) => later.why,
        None => v.near[i].inside.as_str(),
    }
}
