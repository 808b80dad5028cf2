//! Files and directories: deleting (`rm`, `rmdir`, `unlink`, `shred`, `truncate`,
//! `find -delete`), writing onto files (`copy`: `cp`, `mv`, `ln`, `install`, `tee`, `rsync`,
//! `scp`) and owners and permissions (`perms`). Where a path lands is `paths`' question.
//!
//! Deleting is judged by what is named: scratch space and build output are moderate, the whole
//! system, a home or a system directory forbidden, anything else destructive, a single file
//! too (its data is gone; `-r` and `-f` only widen what is named). A delete whose targets are
//! only known when it runs (`xargs rm`, `rm "$x"`) is destructive.

mod copy;
mod opts;
mod paths;
mod perms;

#[cfg(test)]
mod tests;

use super::super::Context;
use super::super::catalogue::{self, Kind};
use super::super::words::{Place, Word};
use super::disk::block_device;
use super::{Class, Site, describe};
use opts::{Spec, parse};
use paths::{Area, area, locate};

pub use paths::names_tmpdir;

/// Where `w` points and whether it is protected from being written over (for redirections).
pub(super) fn protected_place(w: &Word, ctx: &Context, tmpdir_named: bool) -> (Place, bool) {
    let at = locate(w, ctx, tmpdir_named);
    let protected = paths::protected(&at, ctx);
    (at, protected)
}

pub const COMMANDS: &[(&str, Class)] = &[
    ("rm", Class::Rule(rm)),
    ("rmdir", Class::Rule(rmdir)),
    ("unlink", Class::Rule(unlink)),
    ("shred", Class::Rule(shred)),
    ("truncate", Class::Rule(truncate)),
    ("find", Class::Rule(find)),
    ("cp", Class::Rule(copy::cp)),
    ("mv", Class::Rule(copy::mv)),
    ("ln", Class::Rule(copy::ln)),
    ("install", Class::Rule(copy::install)),
    ("tee", Class::Rule(copy::tee)),
    ("rsync", Class::Rule(copy::rsync)),
    ("scp", Class::Rule(copy::scp)),
    ("ssh-keygen", Class::Rule(copy::ssh_keygen)),
    ("chmod", Class::Rule(perms::chmod)),
    ("chown", Class::Rule(perms::chown)),
    ("chgrp", Class::Rule(perms::chown)),
];

const RM: Spec = Spec {
    short_values: "",
    long: &[
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
    ],
    long_values: &[],
};

/// Each word with the area it lands in.
fn sort<'a, 's>(words: &[&'a Word<'s>], site: &Site) -> Vec<(Area, &'a Word<'s>)> {
    let ctx = site.ctx();
    let named = site.st.tmpdir_named;
    words
        .iter()
        .map(|w| (area(&locate(w, ctx, named), ctx), *w))
        .collect()
}

fn only_help(long: &[String]) -> bool {
    long.iter().any(|l| l == "help" || l == "version")
}

/// Reports a delete of targets all in scratch space or build output; false if any is not.
fn scratch(sorted: &[(Area, &Word)], site: &mut Site) -> bool {
    if sorted.is_empty()
        || sorted
            .iter()
            .any(|(a, _)| !matches!(a, Area::Temp | Area::Build))
    {
        return false;
    }
    let pick = |want: Area| -> Vec<&Word> {
        sorted
            .iter()
            .filter(|(a, _)| *a == want)
            .map(|(_, w)| *w)
            .collect()
    };
    let (temp, build) = (pick(Area::Temp), pick(Area::Build));
    if !temp.is_empty() {
        site.report(catalogue::FS_DELETE_TEMP, &describe(&temp, ""));
    }
    if !build.is_empty() {
        site.report(catalogue::FS_DELETE_BUILD, &describe(&build, ""));
    }
    true
}

fn rm(args: &[Word], site: &mut Site) {
    let a = parse(args, &RM);
    if only_help(&a.long) {
        return;
    }
    if a.long.iter().any(|l| l == "no-preserve-root") {
        site.report(
            catalogue::FS_RM_ROOT_OR_HOME,
            "anything, `--no-preserve-root` given",
        );
        return;
    }
    let recursive = a.has('r', "recursive") || a.short.contains('R');
    let sorted = sort(&a.operands, site);
    // A directory itself needs `-r`; a glob (`rm ~/*`) deletes every file in it without.
    let wide = |want: Area| -> Vec<&Word> {
        sorted
            .iter()
            .filter(|(a, w)| *a == want && (recursive || w.raw.contains('*')))
            .map(|(_, w)| *w)
            .collect()
    };
    let (everything, system) = (wide(Area::Everything), wide(Area::System));
    if !everything.is_empty() {
        site.report(catalogue::FS_RM_ROOT_OR_HOME, &describe(&everything, ""));
    }
    if !system.is_empty() {
        site.report(catalogue::FS_RM_SYSTEM, &describe(&system, ""));
    }
    if !everything.is_empty() || !system.is_empty() || scratch(&sorted, site) {
        return;
    }
    let kind = if recursive {
        catalogue::FS_RM_RECURSIVE
    } else if a.has('f', "force") {
        catalogue::FS_RM_FORCE
    } else {
        catalogue::FS_RM
    };
    site.report(
        kind,
        &describe(&a.operands, "paths that are only known when it runs"),
    );
}

fn rmdir(args: &[Word], site: &mut Site) {
    let a = parse(args, &RM);
    if !only_help(&a.long) {
        site.report(
            catalogue::FS_RMDIR,
            &describe(&a.operands, "the directories it is given"),
        );
    }
}

/// `unlink`, `shred` and `truncate`: destructive unless on scratch space or build output.
fn destroy(args: &[Word], site: &mut Site, spec: &Spec, kind: Kind) {
    let a = parse(args, spec);
    if only_help(&a.long) {
        return;
    }
    let sorted = sort(&a.operands, site);
    let ctx = site.ctx();
    let disk = a.operands.iter().find(|w| {
        locate(w, ctx, true)
            .as_path()
            .and_then(block_device)
            .is_some()
    });
    if let Some(disk) = disk {
        let detail = format!("`{}`", disk.raw);
        site.report(catalogue::DISK_ROOT_DEVICE, &detail);
    } else if !scratch(&sorted, site) {
        site.report(kind, &describe(&a.operands, "the files it is given"));
    }
}

fn unlink(args: &[Word], site: &mut Site) {
    destroy(args, site, &RM, catalogue::FS_UNLINK);
}

fn shred(args: &[Word], site: &mut Site) {
    const SHRED: Spec = Spec {
        short_values: "ns",
        long: &[
            "force",
            "iterations",
            "random-source",
            "size",
            "remove",
            "verbose",
            "exact",
            "zero",
            "help",
            "version",
        ],
        long_values: &["iterations", "random-source", "size"],
    };
    destroy(args, site, &SHRED, catalogue::FS_SHRED);
}

fn truncate(args: &[Word], site: &mut Site) {
    const TRUNCATE: Spec = Spec {
        short_values: "rs",
        long: &[
            "no-create",
            "io-blocks",
            "reference",
            "size",
            "help",
            "version",
        ],
        long_values: &["reference", "size"],
    };
    destroy(args, site, &TRUNCATE, catalogue::FS_TRUNCATE);
}

/// Tests of `find` that take one value, so that `-name -delete` is not an action.
const FIND_VALUE_TESTS: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-type",
    "-xtype",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-size",
    "-newer",
    "-anewer",
    "-cnewer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-used",
    "-links",
    "-inum",
    "-samefile",
    "-fstype",
    "-maxdepth",
    "-mindepth",
    "-printf",
    "-fprint",
    "-fls",
    "-context",
    "-regextype",
    "-files0-from",
];

/// `find … -delete`, judged by where the search starts. Commands run by `-exec` are
/// extracted and judged on their own by the walker.
fn find(args: &[Word], site: &mut Site) {
    let mut i = 0;
    // Leading options: -H -L -P, -O3, -D debugopts.
    while let Some(t) = args.get(i).and_then(Word::literal) {
        match t {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut starts: Vec<&Word> = Vec::new();
    while let Some(w) = args.get(i) {
        if w.literal()
            .is_some_and(|t| t.starts_with('-') || matches!(t, "(" | "!" | ")" | ","))
        {
            break;
        }
        starts.push(w);
        i += 1;
    }
    let mut deletes = false;
    let mut in_exec = false;
    let mut prev = "";
    for w in &args[i..] {
        let t = w.literal().unwrap_or("");
        if in_exec {
            in_exec = !(t == ";" || (t == "+" && prev == "{}"));
        } else if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
            in_exec = true;
        } else if t == "-delete" && !FIND_VALUE_TESTS.contains(&prev) {
            deletes = true;
        }
        prev = if FIND_VALUE_TESTS.contains(&prev) && !in_exec {
            ""
        } else {
            t
        };
    }
    if !deletes {
        return;
    }
    let dot = Word {
        text: ".".to_owned(),
        raw: ".",
        dynamic: false,
        span: 0..0,
    };
    if starts.is_empty() {
        starts.push(&dot);
    }
    let sorted = sort(&starts, site);
    // find recurses by nature: deleting from `/`, a home or a system tree is `rm -rf` of it.
    let wide = |want: Area| -> Vec<&Word> {
        sorted
            .iter()
            .filter(|(a, _)| *a == want)
            .map(|(_, w)| *w)
            .collect()
    };
    let (everything, system) = (wide(Area::Everything), wide(Area::System));
    if !everything.is_empty() {
        site.report(catalogue::FS_RM_ROOT_OR_HOME, &describe(&everything, ""));
    }
    if !system.is_empty() {
        site.report(catalogue::FS_RM_SYSTEM, &describe(&system, ""));
    }
    if everything.is_empty() && system.is_empty() && !scratch(&sorted, site) {
        site.report(catalogue::FS_FIND_DELETE, &describe(&starts, ""));
    }
}
