//! Owners and permissions: `chmod`, `chown`, `chgrp`. Changing them is moderate; on a system
//! directory or file destructive, recursively on the whole system or a home forbidden (there
//! is no record of what the modes were), and making files world-writable destructive.

use super::opts::{Spec, parse};
use super::paths::{Area, area, locate, system_file};
use crate::analyse::catalogue;
use crate::analyse::rules::{Site, describe};
use crate::analyse::words::Word;

const SPEC: Spec = Spec {
    short_values: "",
    long: &[
        "changes",
        "dereference",
        "from",
        "no-dereference",
        "no-preserve-root",
        "preserve-root",
        "quiet",
        "recursive",
        "reference",
        "silent",
        "verbose",
        "help",
        "version",
    ],
    long_values: &["from"],
};

/// `-w`, `-x`, `-rwx` are modes to chmod, not options.
fn is_mode_word(t: &str) -> bool {
    t.strip_prefix('-')
        .is_some_and(|m| !m.is_empty() && m.chars().all(|c| "rwxXst".contains(c)))
}

pub fn chmod(args: &[Word], site: &mut Site) {
    let (modes, rest): (Vec<Word>, Vec<Word>) = args
        .iter()
        .cloned()
        .partition(|w| w.literal().is_some_and(is_mode_word));
    let a = parse(&rest, &SPEC);
    if a.long.iter().any(|l| l == "help" || l == "version") {
        return;
    }
    let mut operands = a.operands.clone();
    let mode = match (modes.first(), a.long.iter().any(|l| l == "reference")) {
        (Some(m), _) => Some(m.text.clone()),
        (None, true) => None,
        (None, false) if !operands.is_empty() => Some(operands.remove(0).text.clone()),
        (None, false) => None,
    };
    let recursive = a.has('R', "recursive");
    let targets: Vec<&Word> = operands.to_vec();
    judge_targets(&targets, recursive, site);
    if let Some(m) = mode.filter(|m| world_writable(m)) {
        site.report(catalogue::FS_WORLD_WRITABLE, &m);
    }
}

pub fn chown(args: &[Word], site: &mut Site) {
    let a = parse(args, &SPEC);
    if a.long.iter().any(|l| l == "help" || l == "version") {
        return;
    }
    let skip = usize::from(!a.long.iter().any(|l| l == "reference"));
    let targets: Vec<&Word> = a.operands.iter().skip(skip).copied().collect();
    judge_targets(&targets, a.has('R', "recursive"), site);
}

fn judge_targets(targets: &[&Word], recursive: bool, site: &mut Site) {
    let ctx = site.ctx();
    let named = site.st.tmpdir_named;
    let mut wide: Vec<&Word> = Vec::new();
    let mut system: Vec<&Word> = Vec::new();
    for w in targets {
        let at = locate(w, ctx, named);
        let everything = matches!(area(&at, ctx), Area::Everything | Area::System);
        if recursive && everything {
            wide.push(w);
        } else if everything || system_file(&at) {
            system.push(w);
        }
    }
    if !wide.is_empty() {
        site.report(catalogue::FS_PERMS_WIDE, &describe(&wide, ""));
    } else if !system.is_empty() {
        site.report(catalogue::FS_PERMS_SYSTEM, &describe(&system, ""));
    } else {
        let name = site.name.to_owned();
        site.report(catalogue::FS_PERMS, &name);
    }
}

/// Whether a chmod mode gives others write access: octal with the others' write bit, or a
/// symbolic clause for `o` or `a` adding or setting `w`. A bare `+w` honours the umask.
pub fn world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return mode.bytes().last().is_some_and(|b| (b - b'0') & 2 != 0);
    }
    mode.split(',').any(|clause| {
        let who_end = clause
            .find(|c: char| !"ugoa".contains(c))
            .unwrap_or(clause.len());
        let (who, ops) = clause.split_at(who_end);
        (who.contains('o') || who.contains('a'))
            && ops
                .split(['-'])
                .next()
                .is_some_and(|added| added.contains(['+', '=']) && added.contains('w'))
    })
}
