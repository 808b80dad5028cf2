//! Files and directories: `rm` by its flags and targets.

use super::super::catalogue;
use super::super::words::{Word, place};
use super::{Class, Site, describe, long_is};

pub const COMMANDS: &[(&str, Class)] = &[("rm", Class::Rule(rm))];

const RM_LONG: &[&str] = &[
    "force",
    "interactive",
    "one-file-system",
    "no-preserve-root",
    "preserve-root",
    "recursive",
    "dir",
    "verbose",
    "help",
    "version",
];

fn rm(args: &[Word], site: &mut Site) {
    let (mut recursive, mut force, mut no_preserve) = (false, false, false);
    let mut targets: Vec<&Word> = Vec::new();
    let mut options_done = false;
    for w in args {
        match w.literal() {
            Some("--") if !options_done => options_done = true,
            // GNU rm takes options after operands too (`rm x -rf`).
            Some(t) if !options_done && t.starts_with("--") => {
                let long = t[2..].split('=').next().unwrap_or("");
                recursive |= long_is(long, "recursive", RM_LONG);
                force |= long_is(long, "force", RM_LONG);
                no_preserve |= long_is(long, "no-preserve-root", RM_LONG);
            }
            Some(t) if !options_done && t.len() > 1 && t.starts_with('-') => {
                recursive |= t.contains(['r', 'R']);
                force |= t.contains('f');
            }
            _ => targets.push(w),
        }
    }
    let ctx = site.ctx();
    let everything: Vec<&Word> = targets
        .iter()
        .copied()
        .filter(|w| place(w, ctx).is_root_or_home(ctx))
        .collect();
    if no_preserve {
        site.report(
            catalogue::FS_RM_ROOT_OR_HOME,
            "anything, `--no-preserve-root` given",
        );
    } else if recursive && !everything.is_empty() {
        site.report(catalogue::FS_RM_ROOT_OR_HOME, &describe(&everything, ""));
    } else if recursive {
        site.report(
            catalogue::FS_RM_RECURSIVE,
            &describe(&targets, "the paths it is given"),
        );
    } else if force {
        site.report(
            catalogue::FS_RM_FORCE,
            &describe(&targets, "the files it is given"),
        );
    } else {
        site.report(
            catalogue::FS_RM,
            &describe(&targets, "the files it is given"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_option_abbreviations() {
        assert!(long_is("recursive", "recursive", RM_LONG));
        assert!(long_is("rec", "recursive", RM_LONG));
        assert!(long_is("no-p", "no-preserve-root", RM_LONG));
        assert!(!long_is("", "recursive", RM_LONG));
        assert!(!long_is("pre", "recursive", RM_LONG));
    }
}
