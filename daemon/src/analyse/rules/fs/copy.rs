//! Programs that write files from other files: `cp`, `mv`, `ln`, `install`, `tee`, `rsync`,
//! `scp`. Writing is moderate; writing over (or moving away) a protected file is destructive,
//! since `cp x ~/.bashrc` or `tee ~/.ssh/authorized_keys` plants what runs or logs in later.

use super::opts::{Args, Spec, parse};
use super::paths::{Area, area, into_dir, locate, protected};
use crate::analyse::Context;
use crate::analyse::catalogue;
use crate::analyse::rules::Site;
use crate::analyse::rules::disk::harmless;
use crate::analyse::words::{Place, Word, place};

const CP: Spec = Spec {
    short_values: "St",
    long: &[
        "archive",
        "backup",
        "force",
        "interactive",
        "link",
        "no-clobber",
        "no-target-directory",
        "recursive",
        "suffix",
        "symbolic-link",
        "target-directory",
        "update",
        "verbose",
        "help",
        "version",
    ],
    long_values: &["suffix", "target-directory"],
};

const INSTALL: Spec = Spec {
    short_values: "gmoStC",
    long: &[
        "directory",
        "group",
        "mode",
        "owner",
        "suffix",
        "target-directory",
        "no-target-directory",
        "help",
        "version",
    ],
    long_values: &["group", "mode", "owner", "suffix", "target-directory"],
};

/// Where a copy-like command writes: the target directory or last operand, and each source's
/// name inside it when that is a directory.
fn destinations(a: &Args, site: &Site) -> (Vec<Place>, Vec<Place>) {
    let ctx = site.ctx();
    let named = site.st.tmpdir_named;
    let (dest, sources): (Option<&Word>, Vec<&Word>) = match a.value("t", "target-directory") {
        Some(dir) => (Some(dir), a.operands.clone()),
        None => match a.operands.split_last() {
            Some((last, rest)) if !rest.is_empty() => (Some(*last), rest.to_vec()),
            // `ln -s TARGET` links into the working directory.
            Some((only, _)) => (None, vec![*only]),
            None => (None, Vec::new()),
        },
    };
    let mut out = Vec::new();
    let dir = match dest {
        Some(d) => locate(d, ctx, named),
        None => Place::Path(ctx.cwd.to_owned()),
    };
    if dest.is_some() {
        out.push(dir.clone());
    }
    out.extend(sources.iter().filter_map(|s| into_dir(&dir, s)));
    let from = sources.iter().map(|s| locate(s, ctx, named)).collect();
    (out, from)
}

/// Reports writing onto `dests`: destructive onto a protected file, else moderate.
fn judge(dests: &[Place], raw: &str, site: &mut Site) {
    let ctx = site.ctx();
    if let Some(hit) = dests.iter().find(|d| protected(d, ctx)) {
        let detail = format!("`{}` (by `{}`)", shown(hit, raw), site.name);
        site.report(catalogue::FS_WRITE_PROTECTED, &detail);
    } else {
        let name = site.name.to_owned();
        site.report(catalogue::FS_WRITE, &name);
    }
}

/// A place as a person reads it, or `fallback` when it is unknown.
fn shown(p: &Place, fallback: &str) -> String {
    match p {
        Place::Path(p) => p.clone(),
        Place::Home(rest) => format!("~{rest}"),
        Place::Unknown => fallback.to_owned(),
    }
}

fn copy_like(args: &[Word], site: &mut Site, spec: &Spec) {
    let a = parse(args, spec);
    if a.long.iter().any(|l| l == "help" || l == "version") {
        return;
    }
    let raw = a.operands.last().map_or("", |w| w.raw);
    let (dests, _) = destinations(&a, site);
    judge(&dests, raw, site);
}

pub fn cp(args: &[Word], site: &mut Site) {
    copy_like(args, site, &CP);
}

pub fn ln(args: &[Word], site: &mut Site) {
    copy_like(args, site, &CP);
}

pub fn install(args: &[Word], site: &mut Site) {
    let a = parse(args, &INSTALL);
    if a.has('d', "directory") {
        let ctx = site.ctx();
        let named = site.st.tmpdir_named;
        let dirs: Vec<Place> = a.operands.iter().map(|w| locate(w, ctx, named)).collect();
        judge(&dirs, a.operands.first().map_or("", |w| w.raw), site);
    } else {
        copy_like(args, site, &INSTALL);
    }
}

/// `mv` also takes its sources away: moving a protected file, a system directory or a home
/// is as bad as writing over one.
pub fn mv(args: &[Word], site: &mut Site) {
    let a = parse(args, &CP);
    if a.long.iter().any(|l| l == "help" || l == "version") {
        return;
    }
    let (mut dests, from) = destinations(&a, site);
    let ctx = site.ctx();
    let taken = from
        .into_iter()
        .filter(|p| protected(p, ctx) || matches!(area(p, ctx), Area::Everything | Area::System));
    dests.extend(taken);
    judge(&dests, a.operands.first().map_or("", |w| w.raw), site);
}

/// `tee FILE…`: every operand is written (appended with `-a`, which still plants text).
pub fn tee(args: &[Word], site: &mut Site) {
    const TEE: Spec = Spec {
        short_values: "",
        long: &[
            "append",
            "ignore-interrupts",
            "output-error",
            "help",
            "version",
        ],
        long_values: &[],
    };
    let a = parse(args, &TEE);
    let ctx = site.ctx();
    let named = site.st.tmpdir_named;
    let dests: Vec<Place> = a
        .operands
        .iter()
        .map(|w| locate(w, ctx, named))
        .filter(|p| !p.as_path().is_some_and(harmless))
        .collect();
    if !dests.is_empty() {
        judge(&dests, a.operands.first().map_or("", |w| w.raw), site);
    }
}

/// rsync options that delete in the destination (`--del` is `--delete-during`).
const RSYNC_DELETES: &[&str] = &[
    "del",
    "delete",
    "delete-before",
    "delete-during",
    "delete-delay",
    "delete-after",
    "delete-excluded",
    "delete-missing-args",
    "remove-source-files",
];

pub fn rsync(args: &[Word], site: &mut Site) {
    const RSYNC: Spec = Spec {
        short_values: "efBTM",
        long: &[],
        long_values: &[
            "rsh",
            "filter",
            "exclude",
            "include",
            "rsync-path",
            "out-format",
        ],
    };
    let a = parse(args, &RSYNC);
    if a.short.contains('n')
        || a.long
            .iter()
            .any(|l| matches!(l.as_str(), "dry-run" | "list-only" | "help" | "version"))
    {
        return;
    }
    let deleting: Vec<&String> = a
        .long
        .iter()
        .filter(|l| RSYNC_DELETES.contains(&l.as_str()))
        .collect();
    if let Some(first) = deleting.first() {
        site.report(catalogue::FS_RSYNC_DELETE, &format!("--{first}"));
        return;
    }
    let Some(last) = a.operands.last().filter(|_| a.operands.len() > 1) else {
        return;
    };
    let dest = locate(last, site.ctx(), site.st.tmpdir_named);
    judge(&[dest], last.raw, site);
}

pub fn scp(args: &[Word], site: &mut Site) {
    const SCP: Spec = Spec {
        short_values: "cFiJlLoPSX",
        long: &[],
        long_values: &[],
    };
    let a = parse(args, &SCP);
    let Some(last) = a.operands.last().filter(|_| a.operands.len() > 1) else {
        return;
    };
    // `host:path` is written on another machine, whose home and working directory are not
    // known: a relative path is taken as home-relative, where `scp` puts it.
    let remote = last.literal().and_then(|t| {
        t.split_once(':')
            .filter(|(host, _)| !host.is_empty() && !host.contains('/'))
            .map(|(_, path)| path)
    });
    if let Some(path) = remote {
        let path = match path {
            "" => "~".to_owned(),
            p if p.starts_with(['/', '~']) => p.to_owned(),
            p => format!("~/{p}"),
        };
        let word = Word {
            text: path.clone(),
            raw: &path,
            dynamic: false,
            span: last.span.clone(),
        };
        let away = Context {
            cwd: "/",
            home: None,
            truncated: false,
        };
        let dest = place(&word, &away);
        if dest.as_path() == Some("/") || protected(&dest, &away) {
            let detail = format!("`{}` (by `{}`)", last.raw, site.name);
            site.report(catalogue::FS_WRITE_PROTECTED, &detail);
        } else {
            let name = site.name.to_owned();
            site.report(catalogue::FS_WRITE, &name);
        }
        return;
    }
    let dest = locate(last, site.ctx(), site.st.tmpdir_named);
    let sources: Vec<&Word> = a.operands[..a.operands.len() - 1].to_vec();
    let mut dests = vec![dest.clone()];
    dests.extend(sources.iter().filter_map(|s| into_dir(&dest, s)));
    judge(&dests, last.raw, site);
}

/// `ssh-keygen -R HOST` rewrites `known_hosts` and `-p` rewrites a private key; listing and
/// printing (`-l`, `-y`, `-F`) only read; anything else writes a new key (moderate).
pub fn ssh_keygen(args: &[Word], site: &mut Site) {
    let a = parse(
        args,
        &Spec {
            short_values: "abCEfFIJmNnOrRstVwz",
            long: &[],
            long_values: &[],
        },
    );
    if a.short.contains(['R', 'p']) {
        let file = a.value("f", "").map_or("~/.ssh/known_hosts", |w| w.raw);
        let detail = format!("`{file}` (by `{}`)", site.name);
        site.report(catalogue::FS_WRITE_PROTECTED, &detail);
    } else if !a.short.contains(['l', 'y', 'F', 'L', 'B', 'Q']) {
        let name = site.name.to_owned();
        site.report(catalogue::FS_WRITE, &name);
    }
}
