//! Shell analysis: from a command line to the simple commands it could run and the findings
//! that give it a level (DESIGN.md, "Analysis: from a command line to findings").
//!
//! This module owns the public types and the loop over texts to parse: the input itself and
//! the inner command strings found in it (`bash -c STR`, `eval …`). It does no I/O and never
//! fails: whatever cannot be read becomes an opaque finding. It does not decide allow or
//! deny; that is policy's job.
//!
//! Layout: `grammar` (the parser, node kind names), `source` (line continuations, span maps),
//! `walk` (the explicit-stack tree walk), `words` (expansions, quote removal, what a word
//! could be) with `flow` (what a substitution or a pipe carries), `command` (the order a
//! program is tried in), `index` (every program the gate knows: grammar and effects) with
//! `getopt` and `programs/`, `act` (effects to findings, through `places`), `effects` and
//! `levels.md` (the level of each effect on each place), `catalogue` (the models' sentences).

mod act;
mod catalogue;
mod command;
pub mod effects;
mod flow;
mod getopt;
mod grammar;
mod index;
mod interp;
mod programs;
mod scope;
mod source;
mod walk;
mod words;

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;

use assent_client::protocol::{self, Level};

use crate::places::{self, Kind, Path, Piece, Placed, Where};
use act::Carried;
use effects::Effect;
pub(crate) use grammar::{field, kind, parse};
use source::SpanMap;
use words::{Env, Var, Vars, Word};

/// What the analyser knows about where the command runs.
pub struct Context<'a> {
    /// The caller's working directory, for relative paths.
    pub cwd: &'a str,
    /// The caller's home directory, if known.
    pub home: Option<&'a str>,
    /// The client sent only the start of a longer command.
    pub truncated: bool,
}

/// One reason for a level.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Stable id from the catalogue, such as `fs.rm_recursive`.
    pub id: &'static str,
    pub level: Level,
    /// A sentence a person understands.
    pub message: String,
    /// Byte range in the original input.
    pub span: Range<usize>,
    /// The effect and place of the level table it comes from; `None` for input that cannot
    /// be read.
    pub cell: Option<(Effect, Kind)>,
}

/// A command that could run, wherever it is nested.
#[derive(Debug, Clone, PartialEq)]
pub struct SimpleCommand {
    /// Where it sits, such as `list[1] > pipeline[0]`; empty for a lone command.
    pub path: String,
    /// Its words as bash would resolve them; a dynamic word is shown as written.
    pub argv: Vec<String>,
    /// Byte range in the original input.
    pub span: Range<usize>,
}

/// The result of analysing one command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The highest level among the findings; `Safe` when there are none.
    pub level: Level,
    pub findings: Vec<Finding>,
    pub commands: Vec<SimpleCommand>,
}

/// How deep subshells, substitutions, compound commands and inner shells may nest before the
/// rest is reported as opaque instead of walked.
pub const MAX_DEPTH: u32 = 256;

/// Findings kept per analysis; a reply must fit in one message, and past this many a person
/// learns nothing more. The most severe are kept.
const MAX_FINDINGS: usize = 64;

/// Bytes of inner command strings (`bash -c`, `eval`) parsed per analysis, beyond the input:
/// `eval eval eval …` would otherwise reparse the line once per word.
const INNER_BUDGET: usize = 256 * 1024;

/// Every finding id the analyser can report: the cells of the level table, and the ids of
/// input that cannot be read.
pub fn finding_ids() -> impl Iterator<Item = &'static str> {
    effects::cell_ids().chain(catalogue::UNREADABLE.iter().map(|u| u.id))
}

/// Analyses a shell command line. Never fails and never panics: unparsable input is a verdict.
pub fn shell(command: &str, ctx: &Context) -> Analysis {
    let mut st = State::new(ctx);
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
    st.queue.push(Source {
        text,
        map: Rc::new(SpanMap::root(removed)),
        path: Rc::from(""),
        depth: 0,
        shell,
    });
    // Inner strings are queued rather than analysed where they are found, so nesting costs
    // heap, not stack.
    while let Some(src) = st.queue.pop() {
        walk::walk(&src, &mut st);
    }
    st.finish()
}

/// A text to parse: the input, or an inner command string found in it.
pub(crate) struct Source {
    pub text: String,
    pub map: Rc<SpanMap>,
    /// Path of the command that runs this text.
    pub path: Rc<str>,
    pub depth: u32,
    /// What the shell that runs this text knows when it starts.
    pub shell: Shell,
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

/// What the shell knows as the line runs: where it is, the variables assigned on the line, the
/// functions defined on it, what moves and copies carried where. Subshells, pipeline stages
/// and substitutions work on a copy that is dropped when they end.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shell {
    /// The current directory; `None` once a `cd` went somewhere only known at run time.
    pub cwd: Option<Rc<str>>,
    /// The directory before the last `cd` on the line (`cd -`, `~-`).
    pub oldpwd: Option<Rc<str>>,
    /// Variables assigned on the line. A variable not here comes from the environment.
    pub vars: Rc<Vars>,
    /// Functions defined on the line: calling one runs a body already analysed.
    pub functions: Rc<HashSet<String>>,
    /// Paths that hold what a move, copy or link on the line put there.
    pub carried: Rc<Carried>,
}

impl Shell {
    pub fn set_var(&mut self, name: &str, value: Var) {
        Rc::make_mut(&mut self.vars).insert(name.to_owned(), value);
    }
}

/// What the walk collects.
pub(crate) struct State<'c, 'a> {
    pub ctx: &'c Context<'a>,
    findings: Vec<Finding>,
    commands: Vec<SimpleCommand>,
    queue: Vec<Source>,
    too_deep: bool,
    inner_bytes: usize,
    pub tmpdir_named: bool,
    pub cdpath_named: bool,
    /// The shell state at the point of the walk.
    pub shell: Shell,
    /// The request's project and home, for placing paths.
    where_: Where,
}

impl<'c, 'a> State<'c, 'a> {
    fn new(ctx: &'c Context<'a>) -> Self {
        State {
            ctx,
            findings: Vec::new(),
            commands: Vec::new(),
            queue: Vec::new(),
            too_deep: false,
            inner_bytes: 0,
            tmpdir_named: false,
            cdpath_named: false,
            shell: Shell::default(),
            where_: Where::new(Some(ctx.cwd), ctx.home),
        }
    }

    /// What resolving a word knows here.
    pub fn env(&self) -> Env<'_> {
        Env {
            vars: &self.shell.vars,
            home: self.ctx.home,
            cwd: self.shell.cwd.as_deref(),
            oldpwd: self.shell.oldpwd.as_deref(),
            tmpdir_named: self.tmpdir_named,
            depth: 0,
        }
    }

    /// The paths a word could name, relative paths from the shell's current directory.
    pub fn paths(&self, w: &Word) -> Vec<Path> {
        w.alternatives()
            .iter()
            .map(|alt| self.path_of(alt))
            .collect()
    }

    pub fn path_of(&self, pieces: &[Piece]) -> Path {
        let cwd = self.shell.cwd.as_deref();
        Path::from_pieces(pieces, cwd).through_proc(cwd)
    }

    /// A path on another machine (`host:path`): its home is not this one's.
    pub fn remote_path_of(&self, pieces: &[Piece]) -> Path {
        Path::from_pieces(pieces, None)
    }

    /// Every place a word could name.
    pub fn places(&self, w: &Word, tree: bool) -> Placed {
        let mut placed = Placed::default();
        for path in self.paths(w) {
            placed.union(&self.places_of(&path, tree));
        }
        placed
    }

    /// Where a path is, and where what a move or copy on the line carried to it came from.
    pub fn places_of(&self, path: &Path, tree: bool) -> Placed {
        let mut placed = places::classify(path, tree, &self.where_);
        if self.shell.carried.is_empty() {
            return placed;
        }
        // A destination may hold what another destination held: follow a few hops.
        let mut todo: Vec<Path> = vec![path.clone()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for p in &todo {
                for source in self.shell.carried.sources(p) {
                    placed.union(&places::classify(&source, tree, &self.where_));
                    next.push(source);
                }
            }
            if next.is_empty() {
                break;
            }
            todo = next;
        }
        placed
    }

    pub fn remember_alias(&mut self, dest: Path, sources: Vec<Path>) {
        Rc::make_mut(&mut self.shell.carried).alias(dest, sources);
    }

    pub fn remember_download(&mut self, dest: String) {
        Rc::make_mut(&mut self.shell.carried).download(dest);
    }

    /// Whether a word names a file fetched from the network on this line.
    pub fn downloaded(&self, w: &Word) -> bool {
        self.paths(w).iter().any(|p| {
            p.literal_text()
                .is_some_and(|t| self.shell.carried.downloaded(&t))
        })
    }

    /// A word the analyser wrote with `~` (`~/.ssh/known_hosts`), with the home put in.
    pub fn home_word<'s>(&self, w: &Word<'s>) -> Word<'s> {
        let pieces = places::text_pieces(&w.text, self.ctx.home);
        match pieces.as_slice() {
            [Piece::Lit(t)] => Word::made(t.clone(), w.raw, w.span.clone()),
            _ => Word {
                value: Some(Rc::new(vec![pieces])),
                dynamic: true,
                ..w.clone()
            },
        }
    }

    pub fn add(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    pub fn command(&mut self, command: SimpleCommand) {
        self.commands.push(command);
    }

    /// Reports nesting past [`MAX_DEPTH`] once per analysis.
    pub fn too_deep(&mut self, span: Range<usize>) {
        if !self.too_deep {
            self.too_deep = true;
            self.add(catalogue::OPAQUE_TOO_DEEP.at(span, &MAX_DEPTH.to_string()));
        }
    }

    /// Queues an inner command string, unless nesting or the byte budget says no.
    pub fn inner(&mut self, src: Source, span: Range<usize>) {
        if src.depth > MAX_DEPTH {
            self.too_deep(span);
            return;
        }
        self.inner_bytes = self.inner_bytes.saturating_add(src.text.len());
        if self.inner_bytes > INNER_BUDGET {
            let detail = format!("over {} KiB", INNER_BUDGET / 1024);
            if !self
                .findings
                .iter()
                .any(|f| f.id == catalogue::OPAQUE_TOO_LARGE.id)
            {
                self.add(catalogue::OPAQUE_TOO_LARGE.at(span, &detail));
            }
            return;
        }
        self.queue.push(src);
    }

    fn finish(mut self) -> Analysis {
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
        }
    }
}

fn wire_span(span: &Range<usize>) -> protocol::Span {
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    protocol::Span {
        start: clamp(span.start),
        end: clamp(span.end),
    }
}

impl Finding {
    pub fn to_wire(&self) -> protocol::Finding {
        protocol::Finding {
            id: self.id.to_owned(),
            level: self.level,
            message: shorten(&self.message),
            span: wire_span(&self.span),
        }
    }
}

impl SimpleCommand {
    pub fn to_wire(&self) -> protocol::CommandInfo {
        protocol::CommandInfo {
            path: self.path.clone(),
            argv: self.argv.iter().map(|word| shorten(word)).collect(),
            span: wire_span(&self.span),
        }
    }
}

/// Text on the wire is cut to this many bytes, so that a reply quoting a huge word still fits
/// one packet; the span still points at the whole of it in the input.
pub const MAX_WIRE_TEXT: usize = 1024;

/// `text`, cut at a character boundary to [`MAX_WIRE_TEXT`] bytes with an ellipsis.
fn shorten(text: &str) -> String {
    if text.len() <= MAX_WIRE_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_WIRE_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// `a > b`, or `b` when `a` is empty.
pub(crate) fn join_path(path: &str, segment: &str) -> Rc<str> {
    if path.is_empty() {
        return Rc::from(segment);
    }
    let mut out = String::with_capacity(path.len() + 3 + segment.len());
    out.push_str(path);
    out.push_str(" > ");
    out.push_str(segment);
    Rc::from(out)
}

/// `a > name[index]`: [`join_path`] for list items and pipeline stages, one per command on a
/// long line, without formatting the segment apart.
pub(crate) fn join_indexed(path: &str, name: &str, index: usize) -> Rc<str> {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = std::str::from_utf8(&digits[at..]).unwrap_or("0");
    let mut out = String::with_capacity(path.len() + 3 + name.len() + digits.len() + 2);
    if !path.is_empty() {
        out.push_str(path);
        out.push_str(" > ");
    }
    out.push_str(name);
    out.push('[');
    out.push_str(digits);
    out.push(']');
    Rc::from(out)
}
