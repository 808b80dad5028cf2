//! git: which subcommands only read, which change what git itself can restore (moderate),
//! and which lose uncommitted work, unreachable commits or published history.
//!
//! Subcommands are looked up in [`SUBCOMMANDS`]; each rule reads the subcommand's options
//! with [`scan`], which knows which options take a value, so `git checkout -bfeature` is not
//! mistaken for `-f`. The working-tree rules (`checkout`, `switch`, `restore`) are in
//! `worktree`, the history rules (`push`) in `history`.

mod history;
mod plumbing;
mod worktree;

use super::super::act::Site;
use super::super::catalogue::{self, Said};
use super::super::effects::Effect::{Delete, Overwrite, Read, Write};
use super::super::words::Word;
use crate::places::Kind;

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

type SubRule = for<'s> fn(&[Word<'s>], &mut Site<'_, 's, '_, '_>, &Git<'s>);

/// What the global options say: where the work tree is, and the configuration given with
/// `-c`.
#[derive(Default)]
pub(super) struct Git<'s> {
    /// `-C DIR` and `--work-tree DIR`, in order: the work tree is the last one, relative to
    /// those before. Empty: the working directory.
    dirs: Vec<Word<'s>>,
    /// `-c key=value`, keys lower-cased.
    config: Vec<(String, String)>,
}

impl Git<'_> {
    fn config(&self, key: &str) -> Option<&str> {
        self.config
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// How a subcommand is judged.
enum Sub {
    /// Only reads the repository.
    Read,
    Rule(SubRule),
}

const SUBCOMMANDS: &[(&str, Sub)] = &[
    ("status", Sub::Read),
    ("log", Sub::Read),
    ("diff", Sub::Rule(diff)),
    ("show", Sub::Rule(show)),
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
    ("cat-file", Sub::Rule(show)),
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
    ("update-ref", Sub::Rule(plumbing::update_ref)),
    ("symbolic-ref", Sub::Rule(plumbing::symbolic_ref)),
    ("read-tree", Sub::Rule(plumbing::read_tree)),
    ("checkout-index", Sub::Rule(plumbing::checkout_index)),
    ("apply", Sub::Rule(plumbing::apply)),
    ("maintenance", Sub::Rule(plumbing::maintenance)),
    ("repack", Sub::Rule(plumbing::repack)),
    ("filter-branch", Sub::Rule(history::filter_branch)),
    ("filter-repo", Sub::Rule(history::filter_repo)),
    ("tag", Sub::Rule(tag)),
    ("remote", Sub::Rule(remote)),
    ("config", Sub::Rule(config)),
    ("credential", Sub::Rule(credential)),
    ("clone", Sub::Rule(clone)),
];

/// `git clone` options that take a value (the next word unless given `--opt=value`).
const CLONE_VALUED: &[&str] = &[
    "-o",
    "--origin",
    "-b",
    "--branch",
    "-u",
    "--upload-pack",
    "--reference",
    "--reference-if-able",
    "--separate-git-dir",
    "--depth",
    "--shallow-since",
    "--shallow-exclude",
    "-j",
    "--jobs",
    "--template",
    "-c",
    "--config",
    "--filter",
    "--server-option",
    "--bundle-uri",
    "--ref-format",
];

/// `git clone [OPTIONS] REPO [DIR]`: makes DIR (by default the repository's name in the
/// working directory) and `--separate-git-dir`'s, as trees it writes. What the clone runs
/// from elsewhere is not read here: a `--template`'s hooks (`post-checkout` runs as the
/// clone ends), hooks or commands set with `-c`/`--config`, an `--upload-pack` program.
fn clone<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let mut operands = Vec::new();
    let mut runs = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let Some(t) = w.literal() else {
            operands.push(w.clone());
            continue;
        };
        if t == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        let (name, value) = match t.split_once('=') {
            Some((n, _)) if n.starts_with("--") => (n, Some(w.tail(n.len() + 1))),
            _ if t.starts_with('-') && t.len() > 2 && !t.starts_with("--") => {
                (&t[..2], Some(w.tail(2)))
            }
            _ => (t, None),
        };
        if !name.starts_with('-') {
            operands.push(w.clone());
            continue;
        }
        if !CLONE_VALUED.contains(&name) {
            continue;
        }
        let value = value.or_else(|| {
            i += 1;
            args.get(i - 1).cloned()
        });
        match name {
            "--separate-git-dir" => {
                if let Some(dir) = &value {
                    site.tree(Write, dir);
                }
            }
            "--template" | "-u" | "--upload-pack" => runs.push(format!("`git clone {t}`")),
            "-c" | "--config" => {
                let key = value.as_ref().and_then(Word::literal).map(|kv| {
                    kv.split_once('=')
                        .map_or(kv, |(k, _)| k)
                        .to_ascii_lowercase()
                });
                if key.is_none_or(|k| runs_a_command(&k)) {
                    runs.push(format!(
                        "`git clone {t} {}`",
                        value.map_or_else(String::new, |v| v.raw.to_owned())
                    ));
                }
            }
            _ => {}
        }
    }
    if let Some(dir) = operands.get(1) {
        site.tree(Write, dir);
    }
    for what in runs {
        site.say(catalogue::CODE_UNREAD, &what);
    }
    site.say(catalogue::GIT_CHANGE, "clone");
}

/// A configuration key whose value git runs or loads (hooks, helpers, filters, pagers).
fn runs_a_command(key: &str) -> bool {
    key.starts_with("alias.")
        || key.starts_with("filter.")
        || key.starts_with("diff.")
        || key.starts_with("merge.")
        || key.starts_with("credential")
        || key.contains("hook")
        || key.contains("command")
        || key.contains("program")
        || key.contains("pager")
        || key.contains("editor")
        || key.contains("fsmonitor")
        || key.contains("helper")
        || key.contains("proxy")
        || key.contains("askpass")
        || key.contains("gpg")
        || key.ends_with(".path")
}

pub fn git<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    git_with(args, site, 0);
}

/// How many aliases given with `-c alias.NAME=…` are followed.
const MAX_ALIASES: u32 = 4;

fn git_with<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, aliases: u32) {
    let mut i = 0;
    let mut g = Git::default();
    while let Some(t) = args
        .get(i)
        .and_then(Word::literal)
        .filter(|t| t.starts_with('-'))
    {
        let value = |i: usize| args.get(i + 1).cloned();
        match t {
            "-C" | "--work-tree" => g.dirs.extend(value(i)),
            "-c" => {
                if let Some((k, v)) = value(i)
                    .as_ref()
                    .and_then(Word::literal)
                    .and_then(|kv| kv.split_once('='))
                {
                    g.config.push((k.to_ascii_lowercase(), v.to_owned()));
                }
            }
            _ => {
                if let Some(dir) = t.strip_prefix("--work-tree=") {
                    g.dirs.push(args[i].tail(t.len() - dir.len()));
                } else if let Some(dir) = t.strip_prefix("-C").filter(|d| !d.is_empty()) {
                    g.dirs.push(args[i].tail(t.len() - dir.len()));
                }
            }
        }
        i += if GIT_GLOBAL_ARGS.contains(&t) { 2 } else { 1 };
    }
    let Some(sub) = args.get(i) else { return };
    let Some(name) = sub.literal() else {
        let detail = format!("`git {}`", sub.raw);
        site.say(catalogue::DYNAMIC_COMMAND, &detail);
        return;
    };
    let rest = &args[i + 1..];
    if asks_for_help(rest) {
        return;
    }
    // An alias given on the line: its words run in place of the name.
    if let Some(alias) = g.config(&format!("alias.{}", name.to_ascii_lowercase())) {
        if alias.starts_with('!') || aliases >= MAX_ALIASES {
            site.say(
                catalogue::INLINE_PROGRAM,
                &format!("`git {name}` (an alias that runs `{alias}`)"),
            );
            return;
        }
        let mut words: Vec<Word> = args[..i].to_vec();
        words.extend(
            alias
                .split_whitespace()
                .map(|t| Word::made(t.to_owned(), sub.raw, sub.span.clone())),
        );
        words.extend(rest.iter().cloned());
        git_with(&words, site, aliases + 1);
        return;
    }
    written_files(name, rest, site);
    match SUBCOMMANDS.iter().find(|(n, _)| *n == name) {
        Some((_, Sub::Read)) => {}
        Some((_, Sub::Rule(rule))) => rule(rest, site, &g),
        // Aliases and plumbing: git can undo what they do as far as we know.
        None => site.say(catalogue::GIT_CHANGE, name),
    }
}

/// Files a subcommand writes besides the repository: `--output=FILE` (log, diff, show,
/// format-patch, archive), `archive -o FILE`, `format-patch -o DIR`, `bundle create FILE`.
fn written_files<'s>(name: &str, rest: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        let t = w.literal().unwrap_or("");
        if t == "--" {
            break;
        }
        let next = || rest.get(i + 1).cloned();
        let (file, dir): (Option<Word<'s>>, Option<Word<'s>>) = match t {
            "--output" => (next(), None),
            "-o" if name == "archive" => (next(), None),
            "-o" | "--output-directory" if name == "format-patch" => (None, next()),
            _ if t.starts_with("--output=") => (Some(w.tail("--output=".len())), None),
            _ if t.starts_with("--output-directory=") && name == "format-patch" => {
                (None, Some(w.tail("--output-directory=".len())))
            }
            _ if t.starts_with("-o") && t.len() > 2 && name == "archive" => (Some(w.tail(2)), None),
            _ if t.starts_with("-o") && t.len() > 2 && name == "format-patch" => {
                (None, Some(w.tail(2)))
            }
            _ => (None, None),
        };
        if let Some(f) = &file {
            site.on(Overwrite, f);
        }
        if let Some(d) = &dir {
            site.tree(Write, d);
        }
        i += 1;
    }
    if name == "bundle"
        && rest.first().and_then(Word::literal) == Some("create")
        && let Some(file) = rest.get(1)
    {
        site.on(Overwrite, file);
    }
}

/// Throwing away work: in a project, its uncommitted changes; in a work tree that is a
/// home, the system or files outside the project (`git -C ~ clean -fdx`), that place.
pub(super) fn discard<'s>(site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>, said: Said, detail: &str) {
    let tree = g.dirs.last().cloned().map(|last| {
        // `-C a -C b` is `a/b`: a relative later one is below the earlier ones.
        let mut text = String::new();
        let mut literal = true;
        for d in &g.dirs {
            match d.literal() {
                Some(t) if t.starts_with('/') => text = t.to_owned(),
                Some(t) => {
                    if !text.is_empty() {
                        text.push('/');
                    }
                    text.push_str(t);
                }
                None => literal = false,
            }
        }
        if literal {
            Word::made(text, last.raw, last.span.clone())
        } else {
            last
        }
    });
    // Without `-C` or `--work-tree` the work tree is the repository the command runs in:
    // what is lost is its uncommitted changes.
    let Some(worktree) = tree else {
        site.say(said, detail);
        return;
    };
    let placed = site.placed(&worktree, true);
    let elsewhere = [
        Kind::Root,
        Kind::Home,
        Kind::System,
        Kind::Data,
        Kind::Secret,
        Kind::Protected,
        Kind::Gate,
        Kind::Unknown,
    ]
    .iter()
    .any(|k| placed.has(*k));
    if elsewhere {
        site.tree(Delete, &worktree);
    } else {
        site.say(said, detail);
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
    /// Every long option, so that an abbreviation is read as git reads it (`--har` is
    /// `--hard`; an ambiguous one as every option it may mean).
    pub all: &'static [&'static str],
}

/// The long options each judged subcommand has (git's documentation).
pub(super) mod longs {
    pub const RESET: &[&str] = &[
        "hard",
        "soft",
        "mixed",
        "merge",
        "keep",
        "quiet",
        "no-quiet",
        "patch",
        "intent-to-add",
        "recurse-submodules",
        "no-recurse-submodules",
        "pathspec-from-file",
        "pathspec-file-nul",
        "refresh",
        "no-refresh",
    ];
    pub const CLEAN: &[&str] = &["force", "dry-run", "quiet", "interactive", "exclude"];
    pub const CHECKOUT: &[&str] = &[
        "quiet",
        "progress",
        "no-progress",
        "force",
        "ours",
        "theirs",
        "merge",
        "conflict",
        "detach",
        "track",
        "no-track",
        "guess",
        "no-guess",
        "orphan",
        "ignore-skip-worktree-bits",
        "overwrite-ignore",
        "no-overwrite-ignore",
        "recurse-submodules",
        "no-recurse-submodules",
        "overlay",
        "no-overlay",
        "pathspec-from-file",
        "pathspec-file-nul",
        "patch",
        "ignore-other-worktrees",
    ];
    pub const SWITCH: &[&str] = &[
        "create",
        "force-create",
        "detach",
        "guess",
        "no-guess",
        "force",
        "discard-changes",
        "merge",
        "conflict",
        "quiet",
        "progress",
        "no-progress",
        "track",
        "no-track",
        "orphan",
        "ignore-other-worktrees",
        "recurse-submodules",
        "no-recurse-submodules",
    ];
    pub const RESTORE: &[&str] = &[
        "source",
        "patch",
        "worktree",
        "staged",
        "quiet",
        "progress",
        "no-progress",
        "ours",
        "theirs",
        "merge",
        "conflict",
        "ignore-unmerged",
        "ignore-skip-worktree-bits",
        "recurse-submodules",
        "no-recurse-submodules",
        "overlay",
        "no-overlay",
        "pathspec-from-file",
        "pathspec-file-nul",
    ];
    pub const BRANCH: &[&str] = &[
        "delete",
        "create-reflog",
        "force",
        "move",
        "copy",
        "color",
        "no-color",
        "ignore-case",
        "column",
        "no-column",
        "list",
        "verbose",
        "quiet",
        "abbrev",
        "no-abbrev",
        "track",
        "no-track",
        "set-upstream-to",
        "unset-upstream",
        "edit-description",
        "contains",
        "no-contains",
        "merged",
        "no-merged",
        "sort",
        "points-at",
        "format",
        "show-current",
        "all",
        "remotes",
    ];
    pub const RM: &[&str] = &[
        "force",
        "dry-run",
        "cached",
        "ignore-unmatch",
        "sparse",
        "quiet",
        "pathspec-from-file",
        "pathspec-file-nul",
    ];
    pub const GC: &[&str] = &[
        "aggressive",
        "auto",
        "prune",
        "no-prune",
        "quiet",
        "force",
        "keep-largest-pack",
        "cruft",
        "no-cruft",
    ];
    pub const PRUNE: &[&str] = &["dry-run", "verbose", "progress", "expire"];
    pub const WORKTREE_REMOVE: &[&str] = &["force"];
}

/// The long options an abbreviation stands for: the option itself when it is one, else every
/// option it starts (git refuses an ambiguous one; taking them all can only add effects).
fn expand_long<'a>(given: &'a str, all: &'static [&'static str]) -> Vec<&'a str> {
    if all.is_empty() || all.contains(&given) {
        return vec![given];
    }
    let matches: Vec<&'a str> = all
        .iter()
        .copied()
        .filter(|o| o.starts_with(given))
        .collect();
    if matches.is_empty() || given.is_empty() {
        vec![given]
    } else {
        matches
    }
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
            let (given, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let names = expand_long(given, spec.all);
            let name = names[0];
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
            for n in names {
                o.long.push((n, value));
            }
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
fn report(site: &mut Site, said: Said, sub: &str, args: &[Word]) {
    site.say(said, &shown(sub, args));
}

fn reset<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    let o = scan(
        args,
        &Spec {
            all: longs::RESET,
            ..Spec::default()
        },
    );
    // `--merge` keeps local changes only where the merge did not touch a file.
    match ["hard", "merge"].iter().find(|m| o.has_long(m)) {
        Some(mode) => discard(site, g, catalogue::GIT_DISCARD, &format!("reset --{mode}")),
        None => report(site, catalogue::GIT_CHANGE, "reset", args),
    }
}

fn clean<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    let spec = Spec {
        short_args: "e",
        long_args: &["exclude"],
        all: longs::CLEAN,
        ..Spec::default()
    };
    let o = scan(args, &spec);
    // `-n` with `-f` is still a dry run, but one flag away from deleting: held like the peers.
    // `-c clean.requireForce=false` lets it delete without `-f`.
    let force_needed = g.config("clean.requireforce").is_none_or(|v| {
        !matches!(
            v.to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        )
    });
    if o.has('f', "force") || (!force_needed && !o.has('n', "dry-run")) {
        discard(site, g, catalogue::GIT_CLEAN, &shown("", args));
    } else if !o.has('n', "dry-run") {
        report(site, catalogue::GIT_CHANGE, "clean", args);
    }
}

fn branch<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
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
        all: longs::BRANCH,
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

fn stash<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    match action(args) {
        Some(a @ ("drop" | "clear")) => site.say(catalogue::GIT_STASH_DROP, &shown(a, &args[1..])),
        Some("list" | "show") => {}
        a => {
            let rest = if matches!(a, Some("push" | "save")) {
                &args[1..]
            } else {
                args
            };
            worktree::stash_push(rest, site);
            report(site, catalogue::GIT_CHANGE, "stash", args);
        }
    }
}

fn worktree_cmd<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    match action(args) {
        Some("remove") => {
            let spec = Spec {
                all: longs::WORKTREE_REMOVE,
                ..Spec::default()
            };
            let o = scan(&args[1..], &spec);
            if o.has('f', "force") {
                discard(
                    site,
                    g,
                    catalogue::GIT_WORKTREE_FORCE,
                    &shown("", &args[1..]),
                );
            } else {
                report(site, catalogue::GIT_CHANGE, "worktree", args);
            }
        }
        Some("list") => {}
        Some("prune") => plumbing::worktree_prune(&args[1..], site),
        // `git worktree add [OPTIONS] PATH [COMMIT]`: checks the work tree out at PATH.
        Some("add") => {
            if let Some(path) = worktree_path(&args[1..]) {
                site.tree(Write, path);
            }
            report(site, catalogue::GIT_CHANGE, "worktree", args);
        }
        _ => report(site, catalogue::GIT_CHANGE, "worktree", args),
    }
}

/// The path `git worktree add` checks out at: its first operand (`-b`, `-B` and `--reason`
/// take a value; a word only known at run time may be it).
fn worktree_path<'a, 's>(args: &'a [Word<'s>]) -> Option<&'a Word<'s>> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.literal() {
            Some("--") => return args.get(i + 1),
            Some("-b" | "-B" | "--reason") => i += 2,
            Some(t) if t.starts_with('-') => i += 1,
            _ => return Some(w),
        }
    }
    None
}

fn reflog<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    if let Some("expire" | "delete" | "drop") = action(args) {
        report(site, catalogue::GIT_PRUNE, "reflog", args);
    }
}

fn gc<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, g: &Git<'s>) {
    let o = scan(
        args,
        &Spec {
            all: longs::GC,
            ..Spec::default()
        },
    );
    if matches!(o.value("prune"), Some("now" | "all")) {
        report(site, catalogue::GIT_PRUNE, "gc", args);
    } else if let Some(key) = plumbing::expires_at_once(g) {
        site.say(catalogue::GIT_PRUNE, &format!("{key} gc"));
    } else {
        report(site, catalogue::GIT_CHANGE, "gc", args);
    }
}

fn prune<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let o = scan(
        args,
        &Spec {
            all: longs::PRUNE,
            ..Spec::default()
        },
    );
    if !o.has('n', "dry-run") {
        report(site, catalogue::GIT_PRUNE, "prune", args);
    }
}

fn tag<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let o = scan(args, &Spec::default());
    let lists = o.has('l', "list") && !o.short.contains(['d', 'f', 'a', 's', 'm']);
    if o.operands() > 0 && !lists {
        report(site, catalogue::GIT_CHANGE, "tag", args);
    }
}

fn remote<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    match action(args) {
        None | Some("-v" | "--verbose" | "show" | "get-url") => {}
        _ => report(site, catalogue::GIT_CHANGE, "remote", args),
    }
}

fn config<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let spec = Spec {
        short_args: "f",
        long_args: &["file", "blob"],
        ..Spec::default()
    };
    let o = scan(args, &spec);
    // `-f FILE` reads (and writes) any file as git configuration.
    let file = args
        .iter()
        .enumerate()
        .find_map(|(i, w)| match w.literal() {
            Some("-f" | "--file") => args.get(i + 1).cloned(),
            Some(t) if t.starts_with("--file=") => Some(w.tail(7)),
            Some(t) if t.starts_with("-f") && t.len() > 2 => Some(w.tail(2)),
            _ => None,
        });
    if let Some(f) = &file {
        site.on(Read, f);
    }
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
        // A key that can only change how git shows or names things is an undoable change;
        // any other may name a program git runs (`core.pager`, `alias.x=!…`).
        let key = o.positional.first().and_then(|w| w.literal()).unwrap_or("");
        let value = o.positional.get(1).and_then(|w| w.literal());
        if (safe_config_key(key) || reading_alias(key, value) || known_program(key, value))
            && !o.short.contains('e')
            && !o.has_long("edit")
        {
            report(site, catalogue::GIT_CHANGE, "config", args);
        } else {
            report(site, catalogue::GIT_CONFIG, "", args);
        }
    }
}

/// `git diff --no-index A B` compares any two files: it shows both.
fn diff<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    let o = scan(args, &Spec::default());
    if o.has_long("no-index") {
        let files: Vec<Word> = o
            .positional
            .iter()
            .chain(&o.after)
            .map(|w| (*w).clone())
            .collect();
        for f in &files {
            site.on(Read, f);
        }
    }
}

/// `git show REV:PATH`, `git cat-file -p REV:PATH`: what PATH held, committed.
fn show<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    for w in args {
        let Some(t) = w.literal() else { continue };
        if t.starts_with('-') {
            continue;
        }
        if let Some((_, path)) = t.split_once(':')
            && !path.is_empty()
        {
            let path = path.strip_prefix("./").unwrap_or(path);
            site.on(Read, &w.tail(t.len() - path.len()));
        }
    }
}

/// `git credential fill` asks the credential helpers for a password and prints it.
fn credential<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, _: &Git<'s>) {
    if matches!(action(args), Some("fill" | "get")) {
        site.place(
            Read,
            Kind::Secret,
            "the passwords git's credential helpers keep".to_owned(),
        );
    }
}

/// Configuration keys that name no program and no place git writes to.
/// `alias.lg 'log --oneline --graph'`: an alias for a subcommand that only reads. Others
/// (`alias.st 'push --force'`, `alias.x '!sh …'`) hide what a later `git st` does.
fn reading_alias(key: &str, value: Option<&str>) -> bool {
    let Some(value) = value else { return false };
    let first = value.split_whitespace().next().unwrap_or("");
    key.to_ascii_lowercase().starts_with("alias.")
        && !value.contains(['!', ';', '|', '&', '`', '$'])
        && SUBCOMMANDS
            .iter()
            .any(|(name, sub)| *name == first && matches!(sub, Sub::Read))
}

/// A command-valued key set to what a person sets it to every day: an editor or pager of the
/// usual ones with options only (`core.editor vim`, `core.pager "less -FRX"`, `core.editor
/// "code --wait"`), a built-in diff or merge tool by name, or hooks kept in the project
/// (`core.hooksPath .githooks`: read like the project's hooks when git runs them).
fn known_program(key: &str, value: Option<&str>) -> bool {
    const PROGRAMS: &[&str] = &[
        "vi",
        "vim",
        "nvim",
        "gvim",
        "nano",
        "emacs",
        "emacsclient",
        "micro",
        "hx",
        "helix",
        "kak",
        "code",
        "codium",
        "subl",
        "mate",
        "gedit",
        "kate",
        "less",
        "more",
        "most",
        "cat",
        "bat",
        "delta",
        "diff-so-fancy",
        "diff-highlight",
        "riff",
    ];
    const TOOLS: &[&str] = &[
        "vimdiff",
        "nvimdiff",
        "gvimdiff",
        "meld",
        "kdiff3",
        "opendiff",
        "bc",
        "bc3",
        "tkdiff",
        "xxdiff",
        "emerge",
        "diffuse",
        "p4merge",
        "araxis",
        "tortoisemerge",
        "vscode",
    ];
    let Some(value) = value else {
        return false;
    };
    let key = key.to_ascii_lowercase();
    let mut words = value.split_whitespace();
    let first = words.next().unwrap_or("");
    match key.as_str() {
        "core.editor" | "core.pager" | "sequence.editor" => {
            PROGRAMS.contains(&first)
                && words.all(|w| {
                    w.starts_with('-')
                        && w.chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-=".contains(c))
                })
        }
        _ if key.starts_with("pager.") => PROGRAMS.contains(&first) && words.next().is_none(),
        "diff.tool" | "merge.tool" | "diff.guitool" | "merge.guitool" => TOOLS.contains(&value),
        "core.hookspath" => {
            !value.is_empty()
                && !value.starts_with(['/', '~', '$'])
                && !value.split('/').any(|part| part == "..")
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
        }
        _ => false,
    }
}

fn safe_config_key(key: &str) -> bool {
    const KEYS: &[&str] = &[
        "user.name",
        "user.email",
        "init.defaultbranch",
        "pull.rebase",
        "pull.ff",
        "push.default",
        "push.autosetupremote",
        "fetch.prune",
        "merge.conflictstyle",
        "rebase.autosquash",
        "rebase.autostash",
        "core.autocrlf",
        "core.ignorecase",
        "core.filemode",
        "core.quotepath",
        "diff.colormoved",
        "rerere.enabled",
        "advice.detachedhead",
        "commit.gpgsign",
        "tag.gpgsign",
        "log.date",
        "help.autocorrect",
        "safe.directory",
    ];
    const PREFIXES: &[&str] = &["color.", "branch.", "column."];
    let key = key.to_ascii_lowercase();
    KEYS.contains(&key.as_str()) || PREFIXES.iter().any(|p| key.starts_with(p))
}

/// The table tests, and the table runner the other families of `rules` share.
#[cfg(test)]
pub(crate) mod tests;
