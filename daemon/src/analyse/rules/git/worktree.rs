//! git subcommands that write files of the working tree: `checkout`, `switch`, `restore`,
//! `rm`. Moving to another branch is moderate (git refuses to overwrite local changes);
//! checking out *paths*, or forcing, overwrites uncommitted work without a copy.

use super::super::super::catalogue;
use super::super::super::words::Word;
use super::super::Site;
use super::{Spec, report, scan};

/// An operand that can only be a path, never a branch (`.`, `./src`, `:/`, a glob).
fn pathlike(w: &Word) -> bool {
    let t = w.text.as_str();
    t == "."
        || t == ".."
        || t.starts_with("./")
        || t.starts_with("../")
        || t.starts_with(':')
        || (w.dynamic && w.raw.contains(['*', '?']))
}

pub(super) fn checkout(args: &[Word], site: &mut Site) {
    let spec = Spec {
        short_args: "bBU",
        long_args: &[
            "orphan",
            "conflict",
            "unified",
            "inter-hunk-context",
            "pathspec-from-file",
        ],
        optional: &[
            ("track", &["direct", "inherit"]),
            ("recurse-submodules", &["checkout", "on-demand"]),
        ],
    };
    let o = scan(args, &spec);
    // `-b`, `-B` and `--orphan` make a branch; git refuses paths with them.
    let creates = o.short.contains(['b', 'B']) || o.has_long("orphan");
    let paths = o.has_long("pathspec-from-file")
        || !o.after.is_empty()
        || (!creates
            && (o.positional.len() >= 2 || o.positional.first().is_some_and(|w| pathlike(w))));
    if o.has('f', "force") || paths {
        report(site, catalogue::GIT_DISCARD, "checkout", args);
    } else {
        report(site, catalogue::GIT_CHANGE, "checkout", args);
    }
}

pub(super) fn switch(args: &[Word], site: &mut Site) {
    let spec = Spec {
        short_args: "cC",
        long_args: &["create", "force-create", "orphan", "conflict"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if o.has('f', "force") || o.has_long("discard-changes") {
        report(site, catalogue::GIT_DISCARD, "switch", args);
    } else {
        report(site, catalogue::GIT_CHANGE, "switch", args);
    }
}

pub(super) fn restore(args: &[Word], site: &mut Site) {
    let spec = Spec {
        short_args: "s",
        long_args: &["source", "pathspec-from-file", "conflict"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    let paths = o.operands() > 0 || o.has_long("pathspec-from-file");
    // Without `--staged` the working tree is restored; `--staged` alone only unstages.
    let worktree = o.has('W', "worktree") || !o.has('S', "staged");
    if paths && worktree {
        report(site, catalogue::GIT_DISCARD, "restore", args);
    } else {
        report(site, catalogue::GIT_CHANGE, "restore", args);
    }
}

/// `git rm` refuses to delete files with changes not in a commit, unless forced; with
/// `--cached` it leaves the files alone.
pub(super) fn rm(args: &[Word], site: &mut Site) {
    let o = scan(args, &Spec::default());
    if o.has('f', "force") && !o.has_long("cached") {
        report(site, catalogue::GIT_DISCARD, "rm", args);
    } else {
        report(site, catalogue::GIT_CHANGE, "rm", args);
    }
}
