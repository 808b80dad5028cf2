//! git subcommands that write files of the working tree: `checkout`, `switch`, `restore`,
//! `rm`. Moving to another branch is moderate (git refuses to overwrite local changes);
//! checking out *paths*, or forcing, overwrites uncommitted work without a copy.

use super::super::super::act::Site;
use super::super::super::catalogue;
use super::super::super::words::Word;
use super::{Opts, Spec, longs, report, scan};
use crate::analyse::effects::Effect;
use crate::places::Kind;

/// What a checkout, a restore or `git rm` does to the gate's own files among its operands
/// (`git checkout HEAD~1 -- .claude/settings.json` puts back a version without the hooks).
fn gate_files<'s>(o: &Opts<'_, 's>, effect: Effect, site: &mut Site<'_, 's, '_, '_>) {
    for w in o.positional.iter().chain(o.after.iter()) {
        if site.placed(w, false).has(Kind::Gate) {
            site.on(effect, w);
        }
    }
}

/// `git stash [push] [-- PATHS]`: the changes to the paths are put away and the files go back
/// to their committed text, the gate's own among them (`git stash -- .claude` takes back hook
/// settings that were never committed).
pub(super) fn stash_push<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let spec = Spec {
        short_args: "m",
        long_args: &["message", "pathspec-from-file"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    // A pathspec is often a directory (`.claude`): what lies beneath it counts.
    for w in o.positional.iter().chain(o.after.iter()) {
        if site.placed(w, true).has(Kind::Gate) {
            site.tree(Effect::Overwrite, w);
        }
    }
}

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

/// Names that are branches in most repositories, bare words that are not paths.
const BRANCHES: &[&str] = &[
    "main",
    "master",
    "develop",
    "development",
    "dev",
    "trunk",
    "staging",
    "stage",
    "production",
    "prod",
    "release",
    "next",
    "stable",
    "gh-pages",
    "beta",
    "alpha",
    "canary",
    "nightly",
    "feature",
    "hotfix",
    "bugfix",
    "fix",
    "wip",
    "experiment",
    "experimental",
    "refactor",
    "testing",
    "integration",
    "qa",
    "uat",
    "preview",
    "demo",
    "legacy",
    "latest",
    "edge",
    "default",
    "upstream",
    "HEAD",
    "FETCH_HEAD",
    "ORIG_HEAD",
    "MERGE_HEAD",
];

/// Directories most projects have: `src/x` is a path there, `feature/x` a branch.
const DIRS: &[&str] = &[
    "src",
    "lib",
    "libs",
    "test",
    "tests",
    "spec",
    "specs",
    "doc",
    "docs",
    "app",
    "apps",
    "bin",
    "cmd",
    "pkg",
    "internal",
    "include",
    "scripts",
    "script",
    "assets",
    "public",
    "static",
    "config",
    "conf",
    "etc",
    "vendor",
    "examples",
    "benches",
    "migrations",
    "templates",
    "components",
    "pages",
    "packages",
    "modules",
    "tools",
    "web",
    "data",
    "resources",
];

/// A word written as a revision: `-`, `HEAD~2`, `@{-1}`, `main^`, a hash, a version tag.
fn revision_shaped(t: &str) -> bool {
    let tag = t.strip_prefix('v').unwrap_or(t);
    t == "-"
        || t.contains(['~', '^', '@', ':'])
        || (t.len() >= 7 && t.len() <= 40 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        || tag.starts_with(|c: char| c.is_ascii_digit())
}

/// A lone operand git may take for paths. git decides when it runs: a revision by that name
/// is checked out, else the files are put back from the index and their edits lost. What can
/// only be a path (`.`, `src/`, `*.py`, `main.rs`, `.env`) is one; a word shaped like a
/// revision, a usual branch name, or a name with `-`, `_` or a prefix (`fix-typo`,
/// `feature/x`) is taken for a branch; any other bare word (`src`, `docs`) may be either, so
/// it is taken for a path.
fn may_be_path(w: &Word) -> bool {
    if pathlike(w) {
        return true;
    }
    let Some(t) = w.literal() else { return false };
    if t.ends_with('/') || t.contains(['*', '?', '[']) {
        return true;
    }
    if revision_shaped(t) || BRANCHES.contains(&t) {
        return false;
    }
    let last = t.rsplit('/').next().unwrap_or(t);
    let extension = last
        .rsplit_once('.')
        .is_some_and(|(_, ext)| ext.starts_with(|c: char| c.is_ascii_alphabetic()));
    if extension || last.starts_with('.') {
        return true;
    }
    match t.split_once('/') {
        Some((first, _)) => DIRS.contains(&first),
        None => !t.contains(['-', '_']),
    }
}

pub(super) fn checkout<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &super::Git<'s>) {
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
        all: longs::CHECKOUT,
    };
    let o = scan(args, &spec);
    // `-b`, `-B` and `--orphan` make a branch; git refuses paths with them.
    let creates = o.short.contains(['b', 'B']) || o.has_long("orphan");
    let paths = o.has_long("pathspec-from-file")
        || !o.after.is_empty()
        || (!creates
            && (o.positional.len() >= 2 || o.positional.first().is_some_and(|w| may_be_path(w))));
    if paths {
        gate_files(&o, Effect::Overwrite, site);
    }
    if o.has('f', "force") || paths {
        super::discard(
            site,
            g,
            catalogue::GIT_DISCARD,
            &super::shown("checkout", args),
        );
    } else {
        report(site, catalogue::GIT_CHANGE, "checkout", args);
    }
}

pub(super) fn switch<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &super::Git<'s>) {
    let spec = Spec {
        short_args: "cC",
        long_args: &["create", "force-create", "orphan", "conflict"],
        all: longs::SWITCH,
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if o.has('f', "force") || o.has_long("discard-changes") {
        super::discard(
            site,
            g,
            catalogue::GIT_DISCARD,
            &super::shown("switch", args),
        );
    } else {
        report(site, catalogue::GIT_CHANGE, "switch", args);
    }
}

pub(super) fn restore<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &super::Git<'s>) {
    let spec = Spec {
        short_args: "s",
        long_args: &["source", "pathspec-from-file", "conflict"],
        all: longs::RESTORE,
        ..Spec::default()
    };
    let o = scan(args, &spec);
    let paths = o.operands() > 0 || o.has_long("pathspec-from-file");
    // Without `--staged` the working tree is restored; `--staged` alone only unstages.
    let worktree = o.has('W', "worktree") || !o.has('S', "staged");
    if paths && worktree {
        gate_files(&o, Effect::Overwrite, site);
        super::discard(
            site,
            g,
            catalogue::GIT_DISCARD,
            &super::shown("restore", args),
        );
    } else {
        report(site, catalogue::GIT_CHANGE, "restore", args);
    }
}

/// `git rm` refuses to delete files with changes not in a commit, unless forced; with
/// `--cached` it leaves the files alone.
pub(super) fn rm<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &super::Git<'s>) {
    let spec = Spec {
        all: longs::RM,
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if !o.has_long("cached") {
        gate_files(&o, Effect::Delete, site);
    }
    if o.has('f', "force") && !o.has_long("cached") {
        super::discard(site, g, catalogue::GIT_DISCARD, &super::shown("rm", args));
    } else {
        report(site, catalogue::GIT_CHANGE, "rm", args);
    }
}
