//! Shell analysis: from a command line to the simple commands it could run and the findings
//! that give it a level (DESIGN.md, "Analysis: from a command line to findings").
//!
//! This module owns the entry points, the [`Analysis`] they return (the other public types
//! live where the layers need them and are re-exported here) and the loop over texts to
//! parse: the input itself and the inner command strings found in it (`bash -c STR`,
//! `eval …`). It does no I/O and never
//! fails: whatever cannot be read becomes an opaque finding. It does not decide allow or
//! deny; that is policy's job.
//!
//! Layout: `grammar` (the parser, node kind names), `source` (line continuations, span maps),
//! `walk` (the explicit-stack tree walk), `words` (expansions, quote removal, what a word
//! could be) with `flow` (what a substitution or a pipe carries), `command` (the order a
//! program is tried in), `index` (every program the gate knows: grammar and effects) with
//! `getopt` and `programs/`, `act` (effects to findings, through `places`), `effects` and
//! `levels.md` (the level of each effect on each place), `catalogue` (the models' sentences),
//! `book` (the programs a policy describes, judged beside the index), `recurse` (what a
//! program hands back to be read: a command, a shell text), `state` (the `State` every layer
//! writes on), `limits` (the bounds of one analysis). The layers these form, and the direction of their imports, are in `layers`.

mod act;
pub mod book;
mod catalogue;
mod command;
mod disk;
#[cfg(test)]
mod doc;
pub mod effects;
mod exhaust;
mod flow;
mod getopt;
mod grammar;
mod index;
mod interp;
#[cfg(test)]
mod layers;
mod limits;
mod programs;
mod recurse;
mod scope;
mod secrets;
mod source;
mod split;
mod state;
mod walk;
mod words;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_words;

use std::ops::Range;
use std::rc::Rc;
use std::time::Duration;

use assent_client::protocol::Level;

use crate::places::{self, Added, Kind, Path, Piece, Where};
pub use act::{Changes, MAX_CHANGED};
pub use disk::snapshot::{Disk, Got, Want};
use effects::Effect;
pub use grammar::Parsed;
pub(crate) use grammar::{field, kind};
pub use limits::MAX_DEPTH;
use limits::{MAX_FINDINGS, parse_time};
pub(crate) use state::{
    Container, MAX_FUNCTION_BODY, MAX_FUNCTION_RUNS, MAX_MOUNTS, Shell, Source, Start, State,
    join_indexed, join_path,
};
pub use state::{Finding, SimpleCommand, Surroundings};

use source::SpanMap;

/// The result of analysing one command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The highest level among the findings; `Safe` when there are none.
    pub level: Level,
    pub findings: Vec<Finding>,
    pub commands: Vec<SimpleCommand>,
    /// The places the line changes, for the confinement its run gets.
    pub changes: Changes,
    /// Files and links the analysis would like read from the disk (`disk`); empty once the
    /// snapshot it was given holds them all.
    pub wants: Vec<Want>,
}

impl Analysis {
    /// Part of the line itself could not be read: it did not parse (or its parse ran out of
    /// the line's time), or it was cut, nested too deep or expanded too far. Unlike a program
    /// whose text the gate cannot read, such a line could say anything.
    pub fn unread(&self) -> bool {
        self.findings
            .iter()
            .any(|f| catalogue::UNREADABLE.iter().any(|u| u.id == f.id))
    }
}

/// Every finding id the analyser can report: the cells of the level table, and the ids of
/// input that cannot be read.
pub fn finding_ids() -> impl Iterator<Item = &'static str> {
    effects::cell_ids()
        .chain(catalogue::UNREADABLE.iter().map(|u| u.id))
        .chain([book::BOOK_FINDING])
}

/// Analyses a shell command line. Never fails and never panics: unparsable input is a verdict.
pub fn shell(command: &str, ctx: &Surroundings) -> Analysis {
    analyse(command, ctx, Added::default(), true)
}

/// [`shell`], with the places a policy adds to the vocabulary.
pub fn shell_in(command: &str, ctx: &Surroundings, added: Added) -> Analysis {
    analyse(command, ctx, added, true)
}

/// [`shell_in`] with what was read from the disk for this line: the scripts, Makefiles,
/// manifests and git files it runs are judged as their text, and the paths it places where
/// their links lead (`disk` module).
pub fn shell_read(command: &str, ctx: &Surroundings, added: Added, disk: &Disk) -> Analysis {
    analyse_with(command, ctx, added, true, Some(disk), None)
}

/// [`shell_in`], or [`shell_read`] with a `disk`, keeping the trees it parses in `parsed`
/// and taking those parsed before: a request judged again once its files are read parses the
/// same line (and what it read before) once.
pub fn shell_parsed(
    command: &str,
    ctx: &Surroundings,
    added: Added,
    disk: Option<&Disk>,
    parsed: &Parsed,
) -> Analysis {
    analyse_with(command, ctx, added, true, disk, Some(parsed))
}

/// What a tool call does to a place named by one of its path arguments, judged like a shell
/// command doing it: `Read` of `~/.ssh/id_rsa` is `read.secret` as `cat ~/.ssh/id_rsa` is.
/// `path` is placed as a shell word would be (`~`, relative to `cwd`, `*`, `?` and `[…]` as
/// patterns); `tree`: the tool acts on everything below a directory. `tool` names the actor;
/// `at` is where the call is made (its working directory, home and project).
pub fn tool_path(
    tool: &str,
    effect: Effect,
    path: &str,
    tree: bool,
    at: &Surroundings,
    added: Added,
    span: Range<usize>,
) -> Vec<Finding> {
    let (cwd, home) = (Some(at.cwd).filter(|c| !c.is_empty()), at.home);
    let w = Where::at(cwd, home, at.project).with_added(added);
    let pieces: Vec<Piece> = places::text_pieces(path, home)
        .into_iter()
        .map(|p| match p {
            Piece::Lit(t) if t.contains(['*', '?', '[']) => Piece::Glob(t),
            other => other,
        })
        .collect();
    let certain = pieces.iter().all(|p| matches!(p, Piece::Lit(_)));
    let mut placed = places::classify(&Path::from_pieces(&pieces, w.cwd()), tree, &w);
    // A relative path of a call that names no directory lies below the agent's own working
    // directory: its project, unless `..` climbs out. The vocabulary's places still count.
    let below_cwd =
        cwd.is_none() && !path.starts_with(['/', '~']) && !path.split('/').any(|c| c == "..");
    if below_cwd && placed.has(Kind::Unknown) {
        placed.remove(Kind::Unknown);
        placed.add(Kind::Project, "");
    }
    act::tool_findings(tool, effect, path, &placed, certain, span)
}

/// The same analysis with the line always parsed whole, never cut in pieces: what `shell`
/// must agree with. For tests; slow on long pipelines.
#[doc(hidden)]
pub fn shell_unsplit(command: &str, ctx: &Surroundings) -> Analysis {
    analyse(command, ctx, Added::default(), false)
}

fn analyse(command: &str, ctx: &Surroundings, added: Added, may_split: bool) -> Analysis {
    analyse_with(command, ctx, added, may_split, None, None)
}

fn analyse_with(
    command: &str,
    ctx: &Surroundings,
    added: Added,
    may_split: bool,
    disk: Option<&Disk>,
    parsed: Option<&Parsed>,
) -> Analysis {
    let mut st = State::new(ctx, added, flow::substitution);
    st.disk = disk;
    st.parsed = parsed;
    // Parsed whole, a long pipeline takes the parser far longer than cut: the comparison
    // is about meaning, not time.
    st.parse_budget = if may_split {
        parse_time(command.len())
    } else {
        Duration::MAX
    };
    st.tmpdir_named = names(command, "TMPDIR");
    st.cdpath_named = names(command, "CDPATH");
    if ctx.truncated {
        st.add(catalogue::OPAQUE_TRUNCATED.at(0..command.len(), ""));
    }
    let (text, removed) = source::join_continuations(command);
    let shell = Shell {
        cwd: Some(ctx.cwd).filter(|c| c.starts_with('/')).map(Rc::from),
        ..Shell::default()
    };
    let map = Rc::new(SpanMap::root(removed));
    let chunks = if may_split {
        split_long(&text, &map)
    } else {
        None
    };
    match chunks {
        Some(chunks) => {
            st.chain = shell;
            st.queue.extend(chunks.into_iter().rev());
        }
        None => st.queue.push(Source {
            text,
            map,
            path: Rc::from(""),
            depth: 0,
            shell: Start::Fresh(shell),
            from: None,
        }),
    }
    // Inner strings are queued rather than analysed where they are found, so nesting costs
    // heap, not stack.
    while let Some(src) = st.queue.pop() {
        // What a file read from the disk runs is told as the file's: "in cleanup.sh: …".
        st.from = src.from.clone();
        let before = st.findings.len();
        let from = src.from.clone();
        walk::walk(src, &mut st);
        if let Some(from) = from {
            for f in &mut st.findings[before..] {
                if !f.message.starts_with(&*from) {
                    f.message = format!("{from}: {}", f.message);
                }
            }
        }
    }
    st.finish()
}

impl State<'_, '_> {
    /// The line's findings made its analysis, once every text is walked: what only the whole
    /// line says (too many patterns, the gate looked up and then killed, lockfiles deleted
    /// before what needs them), each finding once, the most severe kept.
    fn finish(mut self) -> Analysis {
        if self.patterns.get() > state::MAX_PATTERNS {
            let detail = format!("more than {} patterns of paths", state::MAX_PATTERNS);
            self.findings
                .push(catalogue::OPAQUE_TOO_LARGE.at(0..0, &detail));
        }
        if self.gate_lookup
            && let Some((span, detail)) = self.runtime_kill.take()
        {
            self.findings.push(catalogue::GATE_STOP.at(span, &detail));
        }
        for deleted in std::mem::take(&mut self.lockfile_deletes) {
            let finding = deleted.finding(&self.commands);
            self.add(finding);
        }
        let mut findings = self.findings;
        findings.sort_by_key(|f| (f.span.start, f.span.end));
        findings.dedup_by(|a, b| a.id == b.id && a.span == b.span);
        if findings.len() > MAX_FINDINGS {
            findings.sort_by_key(|f| std::cmp::Reverse(f.level));
            findings.truncate(MAX_FINDINGS);
            findings.sort_by_key(|f| (f.span.start, f.span.end));
        }
        self.commands.sort_by_key(|c| c.span.start);
        Analysis {
            level: findings
                .iter()
                .map(|f| f.level)
                .max()
                .unwrap_or(Level::Safe),
            findings,
            commands: self.commands,
            changes: self.changes,
            wants: self.wants.into_inner(),
        }
    }
}

/// Lines longer than this are parsed in pieces where they can be cut (`split`).
const SPLIT_AT: usize = 2048;

/// Statements parsed together, at most, when a long line is cut.
const STATEMENTS_PER_CHUNK: usize = 32;

/// Pipeline stages parsed together. tree-sitter-bash parses two stages in about the time of
/// one but a third costs ten times more (its pipeline rule is ambiguous and the parser forks),
/// so a pipeline of three stages or more is parsed two stages at a time, at any length.
const STAGES_PER_CHUNK: usize = 2;

/// A line cut into texts the parser takes in turn, or `None` to parse it whole: long lines,
/// and lines holding a pipeline of more than `STAGES_PER_CHUNK` stages.
fn split_long(text: &str, map: &Rc<SpanMap>) -> Option<Vec<Source>> {
    let long = text.len() > SPLIT_AT;
    // A cheap test first: without two pipes there is no pipeline to cut.
    if !long && text.bytes().filter(|&b| b == b'|').count() < STAGES_PER_CHUNK {
        return None;
    }
    let parts = split::parts(text)?;
    // Statements: runs of parts joined by pipes.
    let mut statements: Vec<Vec<Range<usize>>> = Vec::new();
    for p in parts {
        match (p.joint, statements.last_mut()) {
            (split::Joint::Pipe, Some(last)) => last.push(p.range),
            _ => statements.push(vec![p.range]),
        }
    }
    if !long && statements.iter().all(|s| s.len() <= STAGES_PER_CHUNK) {
        return None;
    }
    let many = statements.len() > 1;
    let chunk = |range: Range<usize>, path: Rc<str>, shell: Start| Source {
        text: text[range.clone()].to_owned(),
        map: Rc::new(SpanMap::inner(map, range.start, Vec::new())),
        path,
        depth: 0,
        shell,
        from: None,
    };
    let mut out = Vec::new();
    // Statements waiting to be parsed together: their range and the index of the first.
    let mut batch: Option<(Range<usize>, usize)> = None;
    let mut in_batch = 0;
    let flush = |batch: &mut Option<(Range<usize>, usize)>, out: &mut Vec<Source>| {
        if let Some((range, first)) = batch.take() {
            out.push(chunk(range, Rc::from(""), Start::Continue { first, many }));
        }
    };
    for (index, stages) in statements.into_iter().enumerate() {
        let (Some(first), Some(last)) = (stages.first(), stages.last()) else {
            continue;
        };
        if stages.len() <= STAGES_PER_CHUNK {
            let range = first.start..last.end;
            batch = Some(match batch.take() {
                Some((b, at)) => (b.start..range.end, at),
                None => (range, index),
            });
            in_batch += 1;
            if in_batch >= STATEMENTS_PER_CHUNK {
                flush(&mut batch, &mut out);
                in_batch = 0;
            }
            continue;
        }
        flush(&mut batch, &mut out);
        in_batch = 0;
        let path: Rc<str> = if many {
            join_indexed("", "list", index)
        } else {
            Rc::from("")
        };
        // tree-sitter-bash hangs a redirection after a pipeline on the whole pipeline, so a
        // stage with one is parsed alone, where the redirection can only be its own.
        let redirects = |r: &Range<usize>| text[r.clone()].contains(['<', '>']);
        let mut at = 0;
        while let Some(first) = stages.get(at) {
            let mut end = at + 1;
            while end < stages.len()
                && end - at < STAGES_PER_CHUNK
                && !redirects(first)
                && !redirects(&stages[end])
            {
                end += 1;
            }
            let last = &stages[end - 1];
            out.push(chunk(
                first.start..last.end,
                Rc::clone(&path),
                Start::Stage { first_stage: at },
            ));
            at = end;
        }
    }
    flush(&mut batch, &mut out);
    Some(out)
}

#[cfg(test)]
#[test]
fn naming_a_variable() {
    assert!(!names("rm -rf $TMPDIR/x ${TMPDIR}/y", "TMPDIR"));
    assert!(names("TMPDIR=/x rm -rf $TMPDIR/y", "TMPDIR"));
    assert!(names("read TMPDIR; rm -rf $TMPDIR", "TMPDIR"));
}

/// Whether `line` names the variable other than by expanding it (`TMPDIR=/x`, `export
/// TMPDIR`, `read TMPDIR`): then what the caller's environment holds may not be what it is on
/// that line.
fn names(line: &str, var: &str) -> bool {
    line.match_indices(var).any(|(i, _)| {
        let before = &line[..i];
        !(before.ends_with('$') || before.ends_with("${"))
    })
}
