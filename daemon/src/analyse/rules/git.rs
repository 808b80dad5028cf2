//! git: publishing and history-rewriting subcommands.

use super::super::catalogue;
use super::super::words::Word;
use super::{Class, Site, describe};

pub const COMMANDS: &[(&str, Class)] = &[("git", Class::Rule(git))];

/// `git` subcommands that only read.
const GIT_READ_ONLY: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "rev-parse",
    "ls-files",
    "describe",
    "shortlog",
];

/// `git` global options that take the next word as their value.
const GIT_GLOBAL_ARGS: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
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
    match sub.literal() {
        None => site.report(
            catalogue::OPAQUE_DYNAMIC_COMMAND,
            &format!("`git {}`", sub.raw),
        ),
        Some("push") => git_push(&args[i + 1..], site),
        Some(s) if GIT_READ_ONLY.contains(&s) => {}
        Some(_) => {}
    }
}

/// `git push` long options that take the next word as their value.
const PUSH_ARGS: &[&str] = &[
    "--repo",
    "--receive-pack",
    "--exec",
    "--push-option",
    "--signed",
];

fn git_push(args: &[Word], site: &mut Site) {
    let mut force: Option<String> = None;
    let mut positional: Vec<&Word> = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        // A dynamic refspec such as `+$branch` still shows its leading `+` as written.
        let t = w.literal().unwrap_or(w.raw);
        let long = t
            .strip_prefix("--")
            .map(|l| l.split('=').next().unwrap_or(""));
        match long {
            Some(l) if l.starts_with("force-with-lease") => {
                force.get_or_insert_with(|| {
                    "`--force-with-lease` (the safer form, which refuses if the remote moved, but still)".to_owned()
                });
            }
            Some(l)
                if l.len() >= 3
                    && ["force", "delete", "mirror", "prune"]
                        .iter()
                        .any(|o| o.starts_with(l)) =>
            {
                force = Some(format!("`{t}`"));
            }
            Some(_) => {
                if PUSH_ARGS.contains(&t) {
                    i += 1;
                }
            }
            None if t.len() > 1 && t.starts_with('-') => {
                for c in t.chars().skip(1) {
                    if c == 'f' || c == 'd' {
                        force = Some(format!("`{t}`"));
                    }
                    if c == 'o' {
                        i += usize::from(t.ends_with('o'));
                        break;
                    }
                }
            }
            None => {
                if t.starts_with('+') || (t.starts_with(':') && t.len() > 1) {
                    force = Some(format!("`{t}`"));
                }
                positional.push(w);
            }
        }
    }
    match force {
        Some(how) => site.report(catalogue::GIT_PUSH_FORCE, &how),
        None => site.report(
            catalogue::GIT_PUSH,
            &describe(&positional, "the configured remote"),
        ),
    }
}
