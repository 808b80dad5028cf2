//! Where a path argument lands, for the rules that delete, write or change permissions: the
//! whole system or a home, a system directory, scratch space, regenerable build output, a
//! protected file, or anywhere else. Pure string work on resolved places; no file system.

use crate::analyse::Context;
use crate::analyse::rules::disk::harmless;
use crate::analyse::rules::sensitive::secret;
use crate::analyse::words::{Place, Word, place};

/// What deleting or changing a place would cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// `/`, `/*`, a home directory or everything in it.
    Everything,
    /// A directory the system needs (`/usr`, `/etc`, …) or everything in it.
    System,
    /// Scratch space: `/tmp`, `/var/tmp`, `/dev/shm`, `$TMPDIR`.
    Temp,
    /// Output a build recreates, inside the working directory (`target/`, `node_modules/`).
    Build,
    Other,
}

/// Directories the system needs to run; deleting one (or all it holds) is never automation's
/// call. Deeper paths are ordinary files to delete, with their own level.
const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/media",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/snap",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/local",
    "/usr/share",
    "/usr/include",
    "/usr/src",
    "/usr/local/bin",
    "/usr/local/lib",
    "/var/lib",
    "/var/log",
    "/var/spool",
    "/var/mail",
    "/var/www",
    "/etc/ssh",
    "/etc/systemd",
];

/// Trees whose files configure or make up the system: writing over one, or changing its
/// owner, can break booting, logins or services.
const SYSTEM_TREES: &[&str] = &[
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/boot",
    "/sys",
    "/proc",
    "/root",
    "/var/lib",
    "/var/spool/cron",
    "/dev",
];

/// Scratch directories: what is deleted there was put there to be thrown away.
const TEMP_DIRS: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

/// Directories that builds, package managers and test runners recreate from the sources.
/// `out/`, `.cache/` and `venv/` are left out: hand-made data lives there too often.
const BUILD_DIRS: &[&str] = &[
    "target",
    "node_modules",
    "build",
    "dist",
    "_build",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    ".gradle",
    "coverage",
    "htmlcov",
    ".eggs",
];

/// The spellings of `$TMPDIR` that a temp path may start with, after an optional `"`.
const TMPDIR_FORMS: &[&str] = &[
    "${TMPDIR:-/tmp}",
    "${TMPDIR:-/var/tmp}",
    "${TMPDIR}",
    "$TMPDIR",
];

/// Whether `line` names `TMPDIR` other than by expanding it (`TMPDIR=/x`, `export TMPDIR`,
/// `read TMPDIR`): then `$TMPDIR` on that line may not be the caller's temporary directory.
pub fn names_tmpdir(line: &str) -> bool {
    line.match_indices("TMPDIR").any(|(i, _)| {
        let before = &line[..i];
        !(before.ends_with('$') || before.ends_with("${"))
    })
}

/// Resolves a word like [`place`], reading a leading `$TMPDIR` as `/tmp` unless `tmpdir_named`.
pub fn locate(w: &Word, ctx: &Context, tmpdir_named: bool) -> Place {
    if w.dynamic
        && !tmpdir_named
        && let Some(rest) = tmpdir_rest(w.raw)
    {
        let text = format!("/tmp{rest}");
        let glob = rest.contains(['*', '?']);
        let inner = Word {
            text: text.clone(),
            raw: &text,
            dynamic: glob,
            span: w.span.clone(),
        };
        return place(&inner, ctx);
    }
    place(w, ctx)
}

/// What follows `$TMPDIR` in `raw`, quotes removed, if the rest is literal.
fn tmpdir_rest(raw: &str) -> Option<String> {
    let unquoted = raw.strip_prefix('"').unwrap_or(raw);
    let after = TMPDIR_FORMS.iter().find_map(|f| unquoted.strip_prefix(f))?;
    let rest: String = after.chars().filter(|&c| c != '"' && c != '\'').collect();
    let literal = !rest.contains(['$', '`', '\\', '[', '{']);
    (literal && (rest.is_empty() || rest.starts_with('/'))).then_some(rest)
}

/// `p` is `dir` or below it.
pub fn under(p: &str, dir: &str) -> bool {
    p.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Classifies a place for deleting or changing it wholesale.
pub fn area(at: &Place, ctx: &Context) -> Area {
    if at.is_root_or_home(ctx) {
        return Area::Everything;
    }
    let Some(p) = at.as_path() else {
        return Area::Other;
    };
    let whole = p.strip_suffix("/*").unwrap_or(p);
    if other_home(whole) {
        return Area::Everything;
    }
    if SYSTEM_DIRS.contains(&whole) {
        return Area::System;
    }
    if TEMP_DIRS.iter().any(|t| under(p, t)) {
        return Area::Temp;
    }
    if build_output(p, ctx.cwd) {
        return Area::Build;
    }
    Area::Other
}

/// A home directory the context does not name: `/root` or `/home/NAME`.
fn other_home(p: &str) -> bool {
    p == "/root"
        || p.strip_prefix("/home/")
            .is_some_and(|name| !name.is_empty() && !name.contains('/'))
}

/// Inside the working directory, at or below a build directory (`target`, `target/debug`).
fn build_output(p: &str, cwd: &str) -> bool {
    let cwd = cwd.trim_end_matches('/');
    if cwd.is_empty() {
        // Every path is below `/`; the root is no project.
        return false;
    }
    let Some(rest) = p.strip_prefix(cwd).filter(|r| r.starts_with('/')) else {
        return false;
    };
    rest.split('/')
        .any(|part| BUILD_DIRS.contains(&part) || part.ends_with(".egg-info"))
}

/// A file that must not be written over by automation: system files, dotfiles and
/// dot-directories in a home (`~/.bashrc`, `~/.ssh/…`), a repository's `.git/`, and secrets.
pub fn protected(at: &Place, ctx: &Context) -> bool {
    if let Some(p) = at.as_path() {
        if harmless(p) {
            return false;
        }
        if SYSTEM_TREES.iter().any(|t| under(p, t)) {
            return true;
        }
        if p.strip_prefix("/home/")
            .and_then(|r| r.split('/').nth(1))
            .is_some_and(|part| part.starts_with('.'))
        {
            return true;
        }
        if p.split('/').any(|part| part == ".git") {
            return true;
        }
    }
    at.in_home(ctx).is_some_and(|rest| rest.starts_with("/."))
        || matches!(at, Place::Home(rest) if rest.split('/').any(|part| part == ".git"))
        || secret(at, ctx)
}

/// A system file or directory (for owner and permission changes): below a system tree.
pub fn system_file(at: &Place) -> bool {
    at.as_path()
        .is_some_and(|p| SYSTEM_TREES.iter().any(|t| under(p, t)) || SYSTEM_DIRS.contains(&p))
}

/// `dir/NAME` for a copy or move of `src` into the directory `dir`.
pub fn into_dir(dir: &Place, src: &Word) -> Option<Place> {
    let name = src.literal()?.trim_end_matches('/').rsplit('/').next()?;
    if name.is_empty() || name == "." || name == ".." {
        return None;
    }
    match dir {
        Place::Path(d) => Some(Place::Path(format!("{}/{name}", d.trim_end_matches('/')))),
        Place::Home(d) => Some(Place::Home(format!("{}/{name}", d.trim_end_matches('/')))),
        Place::Unknown => None,
    }
}
