//! Per-command rules and the redirection rule: what a known program does with its arguments.
//!
//! [`COMMANDS`] maps a program name to how it is judged: known read-only, or a rule that
//! reads its arguments and reports findings from the catalogue. A program not in the table
//! gets no finding yet. Rules see resolved words and the context only; they never touch the
//! file system.

use std::ops::Range;

use super::catalogue::{self, Kind};
use super::words::{Place, Word, place};
use super::{Context, State};

/// What a rule is given besides the arguments.
pub struct Site<'x, 'c, 'a> {
    pub name: &'x str,
    /// The command's span in the original input.
    pub span: Range<usize>,
    pub st: &'x mut State<'c, 'a>,
}

impl Site<'_, '_, '_> {
    fn report(&mut self, kind: Kind, detail: &str) {
        let finding = kind.at(self.span.clone(), detail);
        self.st.add(finding);
    }

    fn ctx(&self) -> &Context<'_> {
        self.st.ctx
    }
}

type Rule = fn(&[Word], &mut Site);

/// How a program is judged.
pub enum Class {
    /// Reads only (issue 3 gives unknown programs a level; these stay safe).
    ReadOnly,
    Rule(Rule),
}

pub const COMMANDS: &[(&str, Class)] = &[
    ("rm", Class::Rule(rm)),
    ("git", Class::Rule(git)),
    ("dd", Class::Rule(dd)),
    ("mkfs", Class::Rule(mkfs)),
    ("mke2fs", Class::Rule(mkfs)),
    ("ls", Class::ReadOnly),
    ("cat", Class::ReadOnly),
    ("echo", Class::ReadOnly),
    ("printf", Class::ReadOnly),
    ("pwd", Class::ReadOnly),
    ("true", Class::ReadOnly),
    ("false", Class::ReadOnly),
    (":", Class::ReadOnly),
    ("cd", Class::ReadOnly),
    ("head", Class::ReadOnly),
    ("tail", Class::ReadOnly),
    ("wc", Class::ReadOnly),
    ("grep", Class::ReadOnly),
    ("stat", Class::ReadOnly),
    ("file", Class::ReadOnly),
    ("which", Class::ReadOnly),
    ("whoami", Class::ReadOnly),
    ("id", Class::ReadOnly),
    ("date", Class::ReadOnly),
    ("uname", Class::ReadOnly),
    ("test", Class::ReadOnly),
    ("[", Class::ReadOnly),
];

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

/// Finds the class of a program by name; `mkfs.ext4` and friends are `mkfs`.
pub fn class(name: &str) -> Option<&'static Class> {
    let key = if name.starts_with("mkfs.") {
        "mkfs"
    } else {
        name
    };
    COMMANDS.iter().find(|(n, _)| *n == key).map(|(_, c)| c)
}

/// Applies the rule for `name`, if any.
pub fn command(name: &str, args: &[Word], span: Range<usize>, st: &mut State) {
    if let Some(Class::Rule(rule)) = class(name) {
        rule(args, &mut Site { name, span, st });
    }
}

/// `want` if `given` is it or an unambiguous abbreviation of it among `all`, as getopt_long
/// accepts (`--rec` is `--recursive`).
fn long_is(given: &str, want: &str, all: &[&str]) -> bool {
    if given == want {
        return true;
    }
    !given.is_empty()
        && want.starts_with(given)
        && all.iter().filter(|o| o.starts_with(given)).count() == 1
}

/// At most three words as written, for a message.
fn describe(words: &[&Word], none: &str) -> String {
    if words.is_empty() {
        return none.to_owned();
    }
    let mut out = words
        .iter()
        .take(3)
        .map(|w| format!("`{}`", w.raw))
        .collect::<Vec<_>>()
        .join(", ");
    if words.len() > 3 {
        out.push_str(&format!(" and {} more", words.len() - 3));
    }
    out
}

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

/// A disk device: `Some(true)` for a whole disk (`/dev/sda`, `/dev/nvme0n1`), `Some(false)`
/// for a partition (`/dev/sda1`), `None` for anything else.
fn block_device(path: &str) -> Option<bool> {
    let dev = path.strip_prefix("/dev/")?;
    if let Some(rest) = dev.strip_prefix("disk/") {
        return Some(!rest.contains("-part"));
    }
    for prefix in ["sd", "hd", "vd", "xvd"] {
        if let Some(rest) = dev.strip_prefix(prefix)
            && rest.starts_with(|c: char| c.is_ascii_lowercase())
        {
            return Some(!rest.contains(|c: char| c.is_ascii_digit()));
        }
    }
    for prefix in ["nvme", "mmcblk"] {
        if let Some(rest) = dev.strip_prefix(prefix)
            && rest.starts_with(|c: char| c.is_ascii_digit())
        {
            return Some(!rest.contains('p'));
        }
    }
    None
}

/// Special files that a write does no harm to.
fn harmless(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero"
    ) || path
        .strip_prefix("/dev/fd/")
        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

fn dd(args: &[Word], site: &mut Site) {
    let Some(of) = args.iter().find(|w| w.text.starts_with("of=")) else {
        return;
    };
    let target = Word {
        text: of.text[3..].to_owned(),
        raw: of.raw.get(3..).unwrap_or(of.raw),
        dynamic: of.dynamic,
        span: of.span.clone(),
    };
    let where_to = place(&target, site.ctx());
    let path = where_to.as_path();
    if path.is_some_and(harmless) {
        return;
    }
    if path.and_then(block_device).is_some() {
        site.report(catalogue::DISK_ROOT_DEVICE, &format!("`{}`", target.raw));
    } else {
        site.report(catalogue::DISK_DD_WRITE, &format!("`{}`", target.raw));
    }
}

fn mkfs(args: &[Word], site: &mut Site) {
    let ctx = site.ctx();
    let devices: Vec<(&Word, Option<bool>)> = args
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .map(|w| (w, place(w, ctx).as_path().and_then(block_device)))
        .collect();
    if let Some((disk, _)) = devices.iter().find(|(_, whole)| *whole == Some(true)) {
        let detail = format!("`{}`", disk.raw);
        site.report(catalogue::DISK_ROOT_DEVICE, &detail);
        return;
    }
    let target = devices
        .iter()
        .find(|(_, d)| d.is_some())
        .or(devices.last())
        .map_or("", |(w, _)| w.raw);
    let detail = format!("{} {target}", site.name);
    site.report(catalogue::DISK_MKFS, detail.trim_end());
}

/// A redirection `op` onto `dest`; `span` is the redirection's, in the original input.
pub fn redirect(op: &str, dest: &Word, span: Range<usize>, st: &mut State) {
    let overwrites = match op {
        ">" | ">|" | "&>" | "<>" => true,
        // `>&2` duplicates a descriptor; `>& file` is `&> file`.
        ">&" => !(dest.text == "-" || dest.text.bytes().all(|b| b.is_ascii_digit())),
        _ => false,
    };
    if !overwrites {
        return;
    }
    let ctx = st.ctx;
    let where_to = place(dest, ctx);
    let path = where_to.as_path();
    if path.is_some_and(harmless) {
        return;
    }
    let shown = format!("`{}`", dest.raw);
    let kind = if path.and_then(block_device).is_some() {
        catalogue::REDIRECT_BLOCK_DEVICE
    } else if sensitive(&where_to, ctx) {
        catalogue::REDIRECT_OVERWRITE_SENSITIVE
    } else {
        catalogue::REDIRECT_OVERWRITE
    };
    st.add(kind.at(span, &shown));
}

/// System configuration, or a dotfile or dot-directory in home (`~/.bashrc`, `~/.ssh/…`).
fn sensitive(where_to: &Place, ctx: &Context) -> bool {
    if let Some(p) = where_to.as_path()
        && (p == "/etc" || p.starts_with("/etc/"))
    {
        return true;
    }
    where_to
        .in_home(ctx)
        .is_some_and(|rest| rest.starts_with("/."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_devices() {
        let cases: &[(&str, Option<bool>)] = &[
            ("/dev/sda", Some(true)),
            ("/dev/sdb1", Some(false)),
            ("/dev/nvme0n1", Some(true)),
            ("/dev/nvme0n1p2", Some(false)),
            ("/dev/vda", Some(true)),
            ("/dev/mmcblk0", Some(true)),
            ("/dev/mmcblk0p1", Some(false)),
            ("/dev/null", None),
            ("/dev/stdout", None),
            ("/dev/sd", None),
        ];
        for (path, want) in cases {
            assert_eq!(block_device(path), *want, "{path}");
        }
    }

    #[test]
    fn long_option_abbreviations() {
        assert!(long_is("recursive", "recursive", RM_LONG));
        assert!(long_is("rec", "recursive", RM_LONG));
        assert!(long_is("no-p", "no-preserve-root", RM_LONG));
        assert!(!long_is("", "recursive", RM_LONG));
        assert!(!long_is("pre", "recursive", RM_LONG));
    }
}
