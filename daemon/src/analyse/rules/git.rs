//! git: which subcommands only read, which change what git itself can restore (moderate),
//! and which lose uncommitted work, unreachable commits or published history.
//!
//! Subcommands are looked up in [`SUBCOMMANDS`]; each rule reads the subcommand's options
//! with [`scan`], which knows which options take a value, so `git checkout -bfeature` is not
//! mistaken for `-f`. The working-tree rules (`checkout`, `switch`, `restore`) are in
//! `worktree`, the history rules (`push`) in `history`.

mod history;
mod worktree;

use super::super::catalogue::{self, Kind};
use super::super::words::Word;
use super::{Class, Site};

pub const COMMANDS: &[(&str, Class)] = &[("git", Class::Rule(git))];

/// `git` global options that take the next word as their value.
const GIT_GLOBAL_ARGS: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--exec-path",
];

type SubRule = fn(&[Word], &mut Site);

/// How a subcommand is judged.
enum Sub {
    /// Only reads the repository.
    Read,
    Rule(SubRule),
}

const SUBCOMMANDS: &[(&str, Sub)] = &[
    ("status", Sub::Read),
    ("log", Sub::Read),
    ("diff", Sub::Read),
    ("show", Sub::Read),
    ("blame", Sub::Read),
    ("annotate", Sub::Read),
    ("rev-parse", Sub::Read),
    ("rev-list", Sub::Read),
    ("ls-files", Sub::Read),
    ("ls-tree", Sub::Read),
    ("ls-remote", Sub::Read),
    ("describe", Sub::Read),
    ("shortlog", Sub::Read),
    ("help", Sub::Read),
    ("version", Sub::Read),
    ("grep", Sub::Read),
    ("cat-file", Sub::Read),
    ("for-each-ref", Sub::Read),
    ("show-ref", Sub::Read),
    ("show-branch", Sub::Read),
    ("name-rev", Sub::Read),
    ("merge-base", Sub::Read),
    ("var", Sub::Read),
    ("whatchanged", Sub::Read),
    ("count-objects", Sub::Read),
    ("fsck", Sub::Read),
    ("check-ignore", Sub::Read),
    ("check-attr", Sub::Read),
    ("check-ref-format", Sub::Read),
    ("cherry", Sub::Read),
    ("range-diff", Sub::Read),
    ("diff-tree", Sub::Read),
    ("diff-files", Sub::Read),
    ("diff-index", Sub::Read),
    ("verify-commit", Sub::Read),
    ("verify-tag", Sub::Read),
    ("push", Sub::Rule(history::push)),
    ("reset", Sub::Rule(reset)),
    ("clean", Sub::Rule(clean)),
    ("checkout", Sub::Rule(worktree::checkout)),
    ("switch", Sub::Rule(worktree::switch)),
    ("restore", Sub::Rule(worktree::restore)),
    ("rm", Sub::Rule(worktree::rm)),
    ("branch", Sub::Rule(branch)),
    ("stash", Sub::Rule(stash)),
    ("worktree", Sub::Rule(worktree_cmd)),
    ("reflog", Sub::Rule(reflog)),
    ("gc", Sub::Rule(gc)),
    ("prune", Sub::Rule(prune)),
    ("update-ref", Sub::Rule(update_ref)),
    ("filter-branch", Sub::Rule(history::filter_branch)),
    ("filter-repo", Sub::Rule(history::filter_repo)),
    ("tag", Sub::Rule(tag)),
    ("remote", Sub::Rule(remote)),
    ("config", Sub::Rule(config)),
];

fn git(args: &[Word], site: &mut Site) {
    let mut i = 0;
    while let Some(t) = args
        .get(i)
        .and_then(Word::literal)
        .filter(|t| t.starts_with('-'))
    {
        i += if GIT_GLOBAL_ARGS.contains(&t) { 2 } else { 1 };
    }
    let Some(sub) = args.get(i) else { return };
    let Some(name) = sub.literal() else {
        let detail = format!("`git {}`", sub.raw);
        site.report(catalogue::OPAQUE_DYNAMIC_COMMAND, &detail);
        return;
    };
    let rest = &args[i + 1..];
    if asks_for_help(rest) {
        return;
    }
    match SUBCOMMANDS.iter().find(|(n, _)| *n == name) {
        Some((_, Sub::Read)) => {}
        Some((_, Sub::Rule(rule))) => rule(rest, site),
        // Aliases and plumbing: git can undo what they do as far as we know.
        None => site.report(catalogue::GIT_CHANGE, name),
    }
}

/// `--help` before `--`, or a lone `-h`: git shows help and does nothing else.
fn asks_for_help(args: &[Word]) -> bool {
    let literal = args.iter().map(|w| w.literal().unwrap_or(""));
    if args.len() == 1 && args[0].literal() == Some("-h") {
        return true;
    }
    literal.take_while(|t| *t != "--").any(|t| t == "--help")
}

/// Which options of a subcommand take a value.
#[derive(Default)]
pub(super) struct Spec {
    /// Short options whose value is the rest of the word or the next word (`-b NAME`).
    pub short_args: &'static str,
    /// Long options whose value is the next word unless given as `--opt=value`.
    pub long_args: &'static [&'static str],
    /// Long options whose value is optional: the next word is taken only if it is one of
    /// these (`--track direct`), as the peers read it.
    pub optional: &'static [(&'static str, &'static [&'static str])],
}

/// A subcommand's words sorted into options and operands.
#[derive(Default)]
pub(super) struct Opts<'a, 'w> {
    /// Every short option seen, value-taking ones included (their values are not).
    pub short: String,
    /// Long options without `--`, with their values if any.
    pub long: Vec<(&'a str, Option<&'a str>)>,
    /// Operands before `--`.
    pub positional: Vec<&'a Word<'w>>,
    /// Operands after `--`.
    pub after: Vec<&'a Word<'w>>,
    pub dashdash: bool,
}

impl Opts<'_, '_> {
    pub fn has(&self, short: char, long: &str) -> bool {
        self.short.contains(short) || self.has_long(long)
    }

    pub fn has_long(&self, long: &str) -> bool {
        self.long.iter().any(|(l, _)| *l == long)
    }

    pub fn value(&self, long: &str) -> Option<&str> {
        self.long.iter().find(|(l, _)| *l == long).and_then(|l| l.1)
    }

    /// Operands on both sides of `--`.
    pub fn operands(&self) -> usize {
        self.positional.len() + self.after.len()
    }
}

/// Sorts `args` into options and operands the way git's option parser does: options may
/// follow operands, `--` ends them, a dynamic word is an operand.
pub(super) fn scan<'a, 'w>(args: &'a [Word<'w>], spec: &Spec) -> Opts<'a, 'w> {
    let mut o = Opts::default();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = match w.literal() {
            Some(t) if !o.dashdash => t,
            _ => {
                if o.dashdash {
                    o.after.push(w);
                } else {
                    o.positional.push(w);
                }
                continue;
            }
        };
        if t == "--" {
            o.dashdash = true;
        } else if let Some(long) = t.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let next = args.get(i).and_then(Word::literal);
            let takes_next = inline.is_none()
                && (spec.long_args.contains(&name)
                    || spec
                        .optional
                        .iter()
                        .any(|(n, vals)| *n == name && next.is_some_and(|v| vals.contains(&v))));
            let value = if takes_next {
                i += 1;
                next
            } else {
                inline
            };
            o.long.push((name, value));
        } else if t.len() > 1 && t.starts_with('-') {
            for (at, c) in t.char_indices().skip(1) {
                o.short.push(c);
                if spec.short_args.contains(c) {
                    i += usize::from(at + c.len_utf8() == t.len());
                    break;
                }
            }
        } else {
            o.positional.push(w);
        }
    }
    o
}

/// `sub` and up to four of its words as written, for a message.
pub(super) fn shown(sub: &str, args: &[Word]) -> String {
    let mut out: Vec<&str> = Some(sub).filter(|s| !s.is_empty()).into_iter().collect();
    out.extend(args.iter().take(4).map(|w| w.raw));
    if args.len() > 4 {
        out.push("…");
    }
    out.join(" ")
}

/// Reports `kind` with the subcommand and its words.
fn report(site: &mut Site, kind: Kind, sub: &str, args: &[Word]) {
    site.report(kind, &shown(sub, args));
}

fn reset(args: &[Word], site: &mut Site) {
    let o = scan(args, &Spec::default());
    // `--merge` keeps local changes only where the merge did not touch a file.
    match ["hard", "merge"].iter().find(|m| o.has_long(m)) {
        Some(mode) => site.report(catalogue::GIT_RESET_HARD, &format!("--{mode}")),
        None => report(site, catalogue::GIT_CHANGE, "reset", args),
    }
}

fn clean(args: &[Word], site: &mut Site) {
    let spec = Spec {
        short_args: "e",
        long_args: &["exclude"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    // `-n` with `-f` is still a dry run, but one flag away from deleting: held like the peers.
    if o.has('f', "force") {
        report(site, catalogue::GIT_CLEAN, "", args);
    } else if !o.has('n', "dry-run") {
        report(site, catalogue::GIT_CHANGE, "clean", args);
    }
}

fn branch(args: &[Word], site: &mut Site) {
    let spec = Spec {
        short_args: "u",
        long_args: &[
            "set-upstream-to",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "points-at",
            "sort",
            "format",
        ],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    // `-D`, `-M`, `-C` are `--delete`, `--move`, `--copy` with `--force`.
    if o.short.contains(['D', 'M', 'C', 'f']) || o.has_long("force") {
        report(site, catalogue::GIT_BRANCH_FORCE, "", args);
        return;
    }
    const CHANGES: &[&str] = &[
        "delete",
        "move",
        "copy",
        "set-upstream-to",
        "unset-upstream",
        "edit-description",
        "track",
    ];
    let changes = o.operands() > 0
        || o.short.contains(['d', 'm', 'c', 'u', 't'])
        || o.long.iter().any(|(l, _)| CHANGES.contains(l));
    if changes {
        report(site, catalogue::GIT_CHANGE, "branch", args);
    }
}

/// The first word, when it names a sub-subcommand (`git stash drop`).
fn action<'a>(args: &'a [Word]) -> Option<&'a str> {
    args.first().and_then(Word::literal)
}

fn stash(args: &[Word], site: &mut Site) {
    match action(args) {
        Some(a @ ("drop" | "clear")) => {
            site.report(catalogue::GIT_STASH_DROP, &shown(a, &args[1..]))
        }
        Some("list" | "show") => {}
        _ => report(site, catalogue::GIT_CHANGE, "stash", args),
    }
}

fn worktree_cmd(args: &[Word], site: &mut Site) {
    match action(args) {
        Some("remove") => {
            let o = scan(&args[1..], &Spec::default());
            if o.has('f', "force") {
                report(site, catalogue::GIT_WORKTREE_FORCE, "", &args[1..]);
            } else {
                report(site, catalogue::GIT_CHANGE, "worktree", args);
            }
        }
        Some("list") => {}
        _ => report(site, catalogue::GIT_CHANGE, "worktree", args),
    }
}

fn reflog(args: &[Word], site: &mut Site) {
    if let Some("expire" | "delete") = action(args) {
        report(site, catalogue::GIT_PRUNE, "reflog", args);
    }
}

fn gc(args: &[Word], site: &mut Site) {
    let o = scan(args, &Spec::default());
    if matches!(o.value("prune"), Some("now" | "all")) {
        report(site, catalogue::GIT_PRUNE, "gc", args);
    } else {
        report(site, catalogue::GIT_CHANGE, "gc", args);
    }
}

fn prune(args: &[Word], site: &mut Site) {
    let o = scan(args, &Spec::default());
    if !o.has('n', "dry-run") {
        report(site, catalogue::GIT_PRUNE, "prune", args);
    }
}

fn update_ref(args: &[Word], site: &mut Site) {
    let spec = Spec {
        short_args: "m",
        ..Spec::default()
    };
    let o = scan(args, &spec);
    if o.short.contains('d') {
        let detail = o.positional.first().map_or("", |w| w.raw);
        site.report(catalogue::GIT_REF_DELETE, &format!("`{detail}`"));
    } else {
        report(site, catalogue::GIT_CHANGE, "update-ref", args);
    }
}

fn tag(args: &[Word], site: &mut Site) {
    let o = scan(args, &Spec::default());
    let lists = o.has('l', "list") && !o.short.contains(['d', 'f', 'a', 's', 'm']);
    if o.operands() > 0 && !lists {
        report(site, catalogue::GIT_CHANGE, "tag", args);
    }
}

fn remote(args: &[Word], site: &mut Site) {
    match action(args) {
        None | Some("-v" | "--verbose" | "show" | "get-url") => {}
        _ => report(site, catalogue::GIT_CHANGE, "remote", args),
    }
}

fn config(args: &[Word], site: &mut Site) {
    let o = scan(args, &Spec::default());
    let reads = o.short.contains('l')
        || o.long
            .iter()
            .any(|(l, _)| l.starts_with("get") || *l == "list")
        || matches!(action(args), Some("get" | "list"))
        || (o.operands() <= 1 && o.long.iter().all(|(l, _)| !SETS.contains(l)));
    const SETS: &[&str] = &[
        "unset",
        "unset-all",
        "add",
        "replace-all",
        "rename-section",
        "remove-section",
        "edit",
    ];
    if !reads || o.short.contains('e') {
        report(site, catalogue::GIT_CHANGE, "config", args);
    }
}

/// The table tests, and the table runner the other families of `rules` share.
#[cfg(test)]
pub(super) mod tests;
