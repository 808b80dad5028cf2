//! git's less common ways of losing work: plumbing that writes the working tree
//! (`read-tree -u --reset`, `checkout-index -f`), reverse application of a patch
//! (`git diff | git apply -R`), refs deleted by name or by the `--stdin` protocol
//! (`update-ref`, `symbolic-ref -d`), and `-c` keys that make a `gc` expire the reflog or
//! prune unreachable objects at once.

use super::super::super::act::Site;
use super::super::super::catalogue;
use super::super::super::words::Word;
use super::{Git, Spec, discard, report, scan, shown};

/// `git read-tree -u --reset TREE`: the index and the working tree become TREE, local changes
/// and all (`reset --hard` in plumbing). `-m -u` refuses to overwrite changes.
pub(super) fn read_tree<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    let spec = Spec {
        long_args: &["prefix", "index-output", "exclude-per-directory"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if o.short.contains('u') && o.has_long("reset") {
        discard(site, g, catalogue::GIT_DISCARD, &shown("read-tree", args));
    } else {
        report(site, catalogue::GIT_CHANGE, "read-tree", args);
    }
}

/// `git checkout-index -f`: files are written from the index over the working copies.
/// With `--prefix` they go elsewhere (an export), and without `-f` existing files are kept.
pub(super) fn checkout_index<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    let spec = Spec {
        long_args: &["prefix", "stage"],
        all: &[
            "force",
            "all",
            "index",
            "quiet",
            "no-create",
            "prefix",
            "stage",
            "temp",
            "stdin",
        ],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if o.has('f', "force") && !o.has_long("prefix") && !o.has_long("temp") {
        discard(
            site,
            g,
            catalogue::GIT_DISCARD,
            &shown("checkout-index", args),
        );
    } else {
        report(site, catalogue::GIT_CHANGE, "checkout-index", args);
    }
}

/// `git apply -R`: the patch is taken back out of the working tree. Fed the working diff
/// (`git diff | git apply -R`) it undoes every uncommitted edit, with no copy kept. A check,
/// a summary or the index alone (`--cached`) leave the working tree as it is.
pub(super) fn apply<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    let spec = Spec {
        short_args: "pC",
        long_args: &[
            "exclude",
            "include",
            "directory",
            "whitespace",
            "build-fake-ancestor",
        ],
        all: &[
            "stat",
            "numstat",
            "summary",
            "check",
            "index",
            "cached",
            "intent-to-add",
            "3way",
            "ours",
            "theirs",
            "union",
            "build-fake-ancestor",
            "reverse",
            "reject",
            "unidiff-zero",
            "apply",
            "no-add",
            "allow-binary-replacement",
            "binary",
            "exclude",
            "include",
            "ignore-space-change",
            "ignore-whitespace",
            "whitespace",
            "inaccurate-eof",
            "verbose",
            "quiet",
            "recount",
            "directory",
            "unsafe-paths",
            "allow-empty",
        ],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    let only_reads = ["stat", "numstat", "summary", "check"]
        .iter()
        .any(|l| o.has_long(l))
        && !o.has_long("apply");
    if only_reads {
        return;
    }
    if o.has('R', "reverse") && !o.has_long("cached") {
        discard(site, g, catalogue::GIT_DISCARD, &shown("apply", args));
    } else {
        report(site, catalogue::GIT_CHANGE, "apply", args);
    }
}

/// `git update-ref -d REF`, and `--stdin`, whose transaction may hold `delete REF` lines.
pub(super) fn update_ref<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let spec = Spec {
        short_args: "m",
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if o.short.contains('d') {
        let detail = o.positional.first().map_or("", |w| w.raw);
        site.say(
            catalogue::GIT_REF_DELETE,
            &format!("update-ref -d {detail}"),
        );
    } else if o.has_long("stdin") {
        // The transaction is read from the input; a `delete REF` line in it deletes.
        site.say(catalogue::GIT_REF_DELETE, "update-ref --stdin");
    } else {
        report(site, catalogue::GIT_CHANGE, "update-ref", args);
    }
}

/// `git symbolic-ref -d|--delete NAME` removes a symbolic ref, `HEAD` among them.
pub(super) fn symbolic_ref<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let spec = Spec {
        short_args: "m",
        all: &["delete", "quiet", "short", "recurse", "no-recurse"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if o.has('d', "delete") {
        let detail = o.positional.first().map_or("", |w| w.raw);
        site.say(
            catalogue::GIT_REF_DELETE,
            &format!("symbolic-ref --delete {detail}"),
        );
    } else if o.operands() >= 2 {
        report(site, catalogue::GIT_CHANGE, "symbolic-ref", args);
    }
}

/// The `-c` keys that set how long a `gc` (or `reflog expire`, `worktree prune`) keeps what
/// only the reflog or nothing still reaches.
const EXPIRY_KEYS: &[&str] = &[
    "gc.reflogexpire",
    "gc.reflogexpireunreachable",
    "gc.pruneexpire",
    "gc.worktreepruneexpire",
    "gc.rerereresolved",
    "gc.rerereunresolved",
];

/// A `-c` expiry that drops at once what the defaults keep for weeks: `now`, `all`, `0`, or a
/// date in seconds, minutes or hours (`1.hour.ago`).
pub(super) fn expires_at_once(g: &Git) -> Option<String> {
    EXPIRY_KEYS.iter().find_map(|key| {
        let v = g.config(key)?.to_ascii_lowercase();
        let soon = matches!(v.as_str(), "now" | "all" | "0")
            || v.split(['.', ' '])
                .any(|p| ["second", "seconds", "minute", "minutes", "hour", "hours"].contains(&p));
        soon.then(|| format!("-c {key}={v}"))
    })
}

/// `git maintenance run`: its gc task prunes at once with an expiry given by `-c`.
pub(super) fn maintenance<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    let runs = args.first().and_then(Word::literal) == Some("run");
    match expires_at_once(g).filter(|_| runs) {
        Some(key) => site.say(catalogue::GIT_PRUNE, &format!("{key} maintenance run")),
        None => report(site, catalogue::GIT_CHANGE, "maintenance", args),
    }
}

/// `git repack -a -d`: everything reachable goes into one pack and the old packs are
/// deleted, with the unreachable objects in them, unless they are kept (`-A`, `-k`,
/// `--keep-unreachable`, `--cruft`).
pub(super) fn repack<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let spec = Spec {
        long_args: &[
            "window",
            "depth",
            "threads",
            "max-pack-size",
            "filter",
            "filter-to",
        ],
        all: &[
            "keep-unreachable",
            "cruft",
            "local",
            "quiet",
            "write-bitmap-index",
            "pack-kept-objects",
            "keep-pack",
            "geometric",
            "write-midx",
            "unpack-unreachable",
        ],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    let keeps = o.short.contains(['A', 'k'])
        || o.has_long("keep-unreachable")
        || o.has_long("cruft")
        || o.has_long("unpack-unreachable");
    if o.short.contains('a') && o.short.contains('d') && !keeps {
        report(site, catalogue::GIT_PRUNE, "repack", args);
    } else {
        report(site, catalogue::GIT_CHANGE, "repack", args);
    }
}

/// `git worktree prune` forgets every worktree whose directory is missing, with the state
/// kept for it (`-n` only says which).
pub(super) fn worktree_prune<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let spec = Spec {
        long_args: &["expire"],
        all: &["dry-run", "verbose", "expire"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if !o.has('n', "dry-run") {
        report(site, catalogue::GIT_PRUNE, "worktree prune", args);
    }
}
