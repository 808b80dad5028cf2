//! git subcommands that publish or rewrite history: `push`, `filter-branch`, `filter-repo`.

use super::super::super::act::Site;
use super::super::super::catalogue;
use super::super::super::words::Word;
use super::super::describe;
use super::{Spec, report, scan};

/// `git push` long options that take the next word as their value.
const PUSH_ARGS: &[&str] = &[
    "--repo",
    "--receive-pack",
    "--exec",
    "--push-option",
    "--signed",
];

pub(super) fn push(args: &[Word], site: &mut Site, _: &super::Git) {
    let mut force: Option<String> = None;
    let mut delete: Option<String> = None;
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
            // `--force-if-includes` only sharpens `--force-with-lease`.
            Some(l) if l.len() >= 3 && ["force", "mirror"].iter().any(|o| o.starts_with(l)) => {
                force = Some(format!("`{t}`"));
            }
            Some(l) if l.len() >= 3 && ["delete", "prune"].iter().any(|o| o.starts_with(l)) => {
                delete = Some(format!("`{t}`"));
            }
            Some(_) => {
                if PUSH_ARGS.contains(&t) {
                    i += 1;
                }
            }
            None if t.len() > 1 && t.starts_with('-') => {
                for c in t.chars().skip(1) {
                    if c == 'f' {
                        force = Some(format!("`{t}`"));
                    }
                    if c == 'd' {
                        delete = Some(format!("`{t}`"));
                    }
                    if c == 'o' {
                        i += usize::from(t.ends_with('o'));
                        break;
                    }
                }
            }
            None => {
                if t.starts_with('+') {
                    force = Some(format!("`{t}`"));
                }
                if t.starts_with(':') && t.len() > 1 {
                    delete = Some(format!("`{t}`"));
                }
                positional.push(w);
            }
        }
    }
    if let Some(how) = &delete {
        site.say(catalogue::GIT_PUSH_DELETE, how);
    }
    match force {
        Some(how) => site.say(catalogue::GIT_PUSH_FORCE, &how),
        None if delete.is_some() => {}
        None => site.say(
            catalogue::GIT_PUSH,
            &describe(&positional, "the configured remote"),
        ),
    }
}

/// `filter-branch` and `filter-repo` rewrite every commit they select.
pub(super) fn filter_branch(args: &[Word], site: &mut Site, _: &super::Git) {
    report(site, catalogue::GIT_REWRITE, "filter-branch", args);
}

/// `--analyze` only writes a report.
pub(super) fn filter_repo(args: &[Word], site: &mut Site, _: &super::Git) {
    if !scan(args, &Spec::default()).has_long("analyze") {
        report(site, catalogue::GIT_REWRITE, "filter-repo", args);
    }
}
