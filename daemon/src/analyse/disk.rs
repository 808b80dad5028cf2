//! What the line runs that is not on the line: the files the analyser would like read from
//! the disk (a script the line runs, a Makefile, `package.json`, a repository's git
//! configuration and hooks, `.envrc`) and the symbolic links among the paths it places, and
//! the snapshot of them the daemon hands back.
//!
//! Analysis stays pure: it never reads. A first analysis without a snapshot reports what it
//! wants ([`Want`]); the daemon reads that as the requester, bounded, and analyses again with
//! the [`Disk`] it read. A line that wants nothing is analysed once. A snapshot marked
//! `complete` is the last round: whatever is wanted and not in it could not be read, and the
//! caller makes that an opaque finding, never safe.

use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use snapshot::{Got, Want};

use super::catalogue;
use super::index::{self, Role};
use super::interp::{self, Lang};
use super::recurse::{Ctx, queue_mapped, set_positional};
use super::words::{Word, basename};
use super::{State, join_path};
use crate::places::Kind;

/// What a file the analyser asked for is, in this analysis.
pub enum Read {
    /// Its text.
    Text(Arc<str>),
    /// A regular file that is not text.
    Binary,
    /// Nothing there.
    Missing,
    /// Not read, and why.
    Unread(String),
    /// Asked for: a later round has it.
    Asked,
}

/// Places behind which a symbolic link may hide a worse one: a project's `build` may lead to
/// the home. Paths placed elsewhere are judged by where they are named already.
const FOLLOWED: &[Kind] = &[Kind::Project, Kind::Build, Kind::Temp];

/// Links resolved per request, at most.
pub const MAX_LINKS: usize = 32;

impl State<'_, '_> {
    /// The file at `path` (absolute), as read from the disk, or asked for.
    pub fn disk_file(&self, path: &str) -> Read {
        let Some(disk) = self.disk else {
            self.want(Want::File(path.to_owned()));
            return Read::Asked;
        };
        match disk.files.get(path) {
            Some(Got::Text(t)) => Read::Text(Arc::clone(t)),
            Some(Got::Binary) => Read::Binary,
            Some(Got::Missing) => Read::Missing,
            Some(Got::Unread(why)) => Read::Unread(why.clone()),
            None if disk.complete => Read::Unread("past what one request may read".to_owned()),
            None => {
                self.want(Want::File(path.to_owned()));
                Read::Asked
            }
        }
    }

    /// Where the literal absolute path `text` leads through symbolic links, when that is
    /// elsewhere; asks for it when `placed` is somewhere a link could hide.
    pub fn link_target(&self, text: &str, placed: &[Kind]) -> Option<String> {
        if !placed.iter().any(|k| FOLLOWED.contains(k)) {
            return None;
        }
        match self.disk {
            Some(disk) if disk.complete || disk.links.contains_key(text) => {
                disk.links.get(text).cloned().flatten()
            }
            _ => {
                if self.wants.borrow().len() < 4 * MAX_LINKS {
                    self.want(Want::Link(text.to_owned()));
                }
                None
            }
        }
    }

    /// Whether anything is at the absolute path `path` (a dangling link counts); `None` while
    /// asked for, or when it could not be asked: then it is taken to be there.
    pub fn exists(&self, path: &str) -> Option<bool> {
        match self.disk {
            Some(disk) if disk.complete || disk.exists.contains_key(path) => {
                disk.exists.get(path).copied()
            }
            _ => {
                if self.wants.borrow().len() < 4 * MAX_LINKS {
                    self.want(Want::Exists(path.to_owned()));
                }
                None
            }
        }
    }

    fn want(&self, want: Want) {
        let mut wants = self.wants.borrow_mut();
        if !wants.contains(&want) {
            wants.push(want);
        }
    }
}

/// Files read from the disk and run per line; past this a file that runs itself is opaque.
pub const MAX_DISK_RUNS: usize = 16;

/// How a file read from the disk runs.
#[derive(Clone, Copy)]
pub enum Runs<'l> {
    /// As shell text (`bash x.sh`, `source x.sh`, a Makefile's recipe, a hook without a
    /// `#!` line).
    Shell,
    /// In another language (`python3 x.py`).
    Lang(&'l Lang, &'l str),
    /// As its `#!` line says (`./x.sh`): a compiled program is judged as a program file.
    Shebang,
    /// As an awk program (`awk -f FILE`).
    Awk,
}

/// The absolute path a word names, when it names exactly one file the disk may hold: never
/// `/proc`, `/sys` or a device, which are not read.
pub fn file_path(st: &State, w: &Word) -> Option<String> {
    let paths = st.paths(w);
    let [path] = paths.as_slice() else {
        return None;
    };
    absolute_file(path.literal_text()?)
}

/// `text` when it is an absolute path the daemon may read.
pub fn absolute_file(text: String) -> Option<String> {
    crate::places::disk_file(text)
}

/// `file` (absolute; `shown` as the line names it), read from the disk and judged as what it
/// runs, with `args` its positional parameters (`$0` first); or opaque when it cannot be
/// read. `span`: where its findings point in the input.
#[allow(clippy::too_many_arguments)]
pub fn run_file(
    runs: Runs,
    file: &str,
    shown: &str,
    args: Option<&[Word]>,
    span: Range<usize>,
    job_path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let detail = || format!("`{shown}`");
    let text = match st.disk_file(file) {
        Read::Asked => return,
        Read::Text(text) => text,
        Read::Binary => {
            if !matches!(runs, Runs::Shebang) {
                st.add(catalogue::SHELL_READS.at(span, &format!("{} (not text)", detail())));
            }
            return;
        }
        // A program in build output not built yet (`cargo build && ./target/debug/app`): the
        // build makes it, a compiled program the gate would not read either.
        Read::Missing
            if matches!(runs, Runs::Shebang)
                && st
                    .classify_host(&crate::places::Path::absolute(file), false)
                    .has(Kind::Build) =>
        {
            return;
        }
        // The activation script of a virtual environment the line makes before it (`python3
        // -m venv .venv && . .venv/bin/activate`): the module writes it, and it sets variables.
        Read::Missing
            if matches!(runs, Runs::Shell)
                && file.rsplit_once("/bin/").is_some_and(|(dir, script)| {
                    let bin = format!("{dir}/bin");
                    // Nothing else on the line wrote there (`curl -o .venv/bin/activate`).
                    let untouched = !st.changes.anywhere
                        && !st
                            .changes
                            .paths
                            .iter()
                            .chain(&st.changes.within)
                            .any(|p| p.starts_with(&bin));
                    matches!(script, "activate" | "activate.fish" | "activate.csh")
                        && st.venvs.iter().any(|v| v.trim_end_matches('/') == dir)
                        && untouched
                }) =>
        {
            return;
        }
        Read::Missing => {
            st.add(catalogue::SHELL_READS.at(span, &format!("{} (not found)", detail())));
            return;
        }
        Read::Unread(why) => {
            st.add(catalogue::SHELL_READS.at(span, &format!("{} (not read: {why})", detail())));
            return;
        }
    };
    if st.disk_runs >= MAX_DISK_RUNS {
        st.add(catalogue::SHELL_READS.at(span, &format!("{} (read too many times)", detail())));
        return;
    }
    st.disk_runs += 1;
    run_text(runs, &text, shown, args, span, job_path, at, st);
}

/// `text` (the file `shown`) run as `runs` says, with `args` its positional parameters: by a
/// `#!` line, as shell text, in a language the gate reads, or opaque for another program.
/// Also the text of a file the line itself wrote and runs by its path.
#[allow(clippy::too_many_arguments)]
pub fn run_text(
    runs: Runs,
    text: &str,
    shown: &str,
    args: Option<&[Word]>,
    span: Range<usize>,
    job_path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let runs = match runs {
        Runs::Shebang => match shebang(text) {
            None => Runs::Shell,
            Some(program) => match index::lookup(index::family(basename(&program))) {
                Some(entry) => match &entry.role {
                    Role::Shell => Runs::Shell,
                    Role::Interpreter(lang) => {
                        let lang: &Lang = lang;
                        return in_lang(lang, &program, text, shown, span, job_path, at, st);
                    }
                    _ => {
                        let what = format!("`{shown}`, run by `{program}`");
                        st.add(catalogue::CODE_UNREAD.at(span, &what));
                        return;
                    }
                },
                None => {
                    let what = format!("`{shown}`, run by `{program}`");
                    st.add(catalogue::CODE_UNREAD.at(span, &what));
                    return;
                }
            },
        },
        other => other,
    };
    match runs {
        Runs::Lang(lang, name) => in_lang(lang, name, text, shown, span, job_path, at, st),
        Runs::Awk => interp::sed::awk_program(text, &[], span, job_path, at, st),
        _ => {
            let mut shell = st.shell.clone();
            if let Some(args) = args {
                set_positional(&mut shell, args);
            }
            run_shell_text(text, shown, shell, span, job_path, at, st);
        }
    }
}

/// Shell text read from `shown`, queued as the line's own, its findings told as the file's.
pub fn run_shell_text(
    text: &str,
    shown: &str,
    shell: super::Shell,
    span: Range<usize>,
    job_path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let from = told_from(st, shown);
    // A file read is parsed in the line's time, with time for its own length.
    st.parse_budget = st
        .parse_budget
        .saturating_add(super::limits::parse_time(text.len()));
    let saved = st.from.replace(from);
    let segment = join_path(job_path, &format!("in {shown}"));
    queue_mapped(text.to_owned(), Err(span), segment, at, shell, st);
    st.from = saved;
}

/// A program in another language read from `shown`.
#[allow(clippy::too_many_arguments)]
fn in_lang(
    lang: &Lang,
    name: &str,
    text: &str,
    shown: &str,
    span: Range<usize>,
    job_path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let from = told_from(st, shown);
    let before = st.findings.len();
    st.parse_budget = st
        .parse_budget
        .saturating_add(super::limits::parse_time(text.len()));
    let saved = st.from.replace(Rc::clone(&from));
    let segment = join_path(job_path, &format!("in {shown}"));
    interp::run_text(lang, basename(name), Some(text), span, &segment, at, st);
    st.from = saved;
    for f in &mut st.findings[before..] {
        if !f.message.starts_with(&*from) {
            f.message = format!("{from}: {}", f.message);
        }
    }
}

/// How findings from `shown` are told: "in cleanup.sh", after the file that ran it if any.
fn told_from(st: &State, shown: &str) -> Rc<str> {
    match &st.from {
        Some(outer) => Rc::from(format!("{outer}: in {shown}")),
        None => Rc::from(format!("in {shown}")),
    }
}

/// The program a `#!` line names: `#!/bin/sh` is `/bin/sh`, `#!/usr/bin/env -S python3 -u`
/// is `python3`.
pub fn shebang(text: &str) -> Option<String> {
    let line = text.strip_prefix("#!")?.lines().next()?;
    let mut words = line.split_whitespace();
    let program = words.next()?;
    if basename(program) != "env" {
        return Some(program.to_owned());
    }
    words
        .find(|w| !w.starts_with('-') && !w.contains('='))
        .map(str::to_owned)
}

mod project;
pub(super) mod snapshot;
#[cfg(test)]
mod tests;

pub use project::runs as project_runs;
