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
//! `levels.md` (the level of each effect on each place), `catalogue` (the models' sentences),
//! `book` (the programs a policy describes, judged beside the index), `recurse` (what a
//! program hands back to be read: a command, a shell text), `state` (the `State` every layer
//! writes on). The layers these form, and the direction of their imports, are in `layers`.

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
pub use disk::{Disk, Got, Want};
use effects::Effect;
pub(crate) use grammar::{field, kind};
pub(crate) use state::{
    Container, MAX_FUNCTION_BODY, MAX_FUNCTION_RUNS, MAX_MOUNTS, Shell, Source, Start, State,
    join_indexed, join_path,
};
pub use state::{Finding, SimpleCommand};

use source::SpanMap;

/// What the analyser knows about where the command runs.
pub struct Surroundings<'a> {
    /// The caller's working directory, for relative paths.
    pub cwd: &'a str,
    /// The caller's home directory, if known.
    pub home: Option<&'a str>,
    /// The project the working directory lies in, as the daemon found it on the disk (the
    /// repository around it, or a directory the policy names; `crate::project`): `None` where
    /// the home's rules apply, as in `~/Documents`.
    pub project: Option<&'a str>,
    /// The client sent only the start of a longer command.
    pub truncated: bool,
}

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

/// The places a line changes (writes, overwrites, erases, deletes, moves, changes the
/// permissions or settings of, or gives to a program the gate does not know), as far as the
/// line says: what a run confined to its judgement may change.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Changes {
    /// Absolute paths the line changes, each named whole. At most [`MAX_CHANGED`].
    pub paths: Vec<String>,
    /// The directories above a part only known at run time (`rm build/*.o` changes within
    /// `/p/build`, `open(join(HOME, x), 'w')` within the home): wider than what the line
    /// names, so granted only to a line a person approved. At most [`MAX_CHANGED`].
    pub within: Vec<String>,
    /// A change somewhere no path says: a relative path after a `cd` to an unknown place, a
    /// word only known at run time, more than [`MAX_CHANGED`] places.
    pub anywhere: bool,
    /// It installs or removes software (what package managers change lies in their own
    /// directories, which no word names).
    pub packages: bool,
}

/// Changed places kept per analysis; past this many the line may change anywhere.
pub const MAX_CHANGED: usize = 32;

impl Changes {
    /// Records a change to what `path` names.
    pub(crate) fn add(&mut self, path: &Path) {
        let (list, text) = match path.literal_text() {
            Some(text) => (&mut self.paths, text),
            None => match path.literal_prefix() {
                Some(text) => (&mut self.within, text),
                None => {
                    self.anywhere = true;
                    return;
                }
            },
        };
        if list.contains(&text) {
        } else if list.len() < MAX_CHANGED {
            list.push(text);
        } else {
            self.anywhere = true;
        }
    }
}

/// How deep subshells, substitutions, compound commands and inner shells may nest before the
/// rest is reported as opaque instead of walked.
pub const MAX_DEPTH: u32 = 256;

/// Findings kept per analysis; a reply must fit in one message, and past this many a person
/// learns nothing more. The most severe are kept.
const MAX_FINDINGS: usize = 64;

/// How long the parser may work on one line in all (its pieces and inner command strings
/// included): 2 ms, and 0.75 µs a byte more. Ordinary lines take a fraction of this (a dense
/// 10 KiB line under 2 ms of 9.5, 8,000 pipeline stages about 9 ms of 14); some malformed
/// ones would take seconds. Past it the line is unreadable: opaque, never safe. Freeing what
/// a cancelled parse built takes about a third as long again, so a 16 KiB line the parser
/// gives up on is answered within 20 ms.
fn parse_time(len: usize) -> Duration {
    let per_byte = u64::try_from(len).unwrap_or(u64::MAX);
    let time =
        Duration::from_millis(2).saturating_add(Duration::from_nanos(per_byte.saturating_mul(750)));
    // A debug build compiles the parser without optimisation: several times slower.
    if cfg!(debug_assertions) {
        time.saturating_mul(8)
    } else {
        time
    }
}

/// Sources followed, at most, when placing a path that moves and copies on the line may have
/// filled.
const MAX_SOURCES: usize = 64;

/// Bytes of inner command strings (`bash -c`, `eval`) parsed per analysis, beyond the input:
/// `eval eval eval …` would otherwise reparse the line once per word.
const INNER_BUDGET: usize = 64 * 1024;

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

/// The shell texts one request parsed, and their trees, for its next round of analysis
/// (`shell_parsed`). The parser is deterministic, so a text's tree is the same each time;
/// one that ran out of time is not kept.
#[derive(Default)]
pub struct Parsed(std::cell::RefCell<std::collections::HashMap<String, tree_sitter::Tree>>);

impl Parsed {
    /// The tree of `text`, if it was parsed before (a copy of a tree shares its nodes).
    fn get(&self, text: &str) -> Option<tree_sitter::Tree> {
        self.0.borrow().get(text).cloned()
    }

    /// Keeps the tree of `text`.
    fn keep(&self, text: &str, tree: &tree_sitter::Tree) {
        self.0.borrow_mut().insert(text.to_owned(), tree.clone());
    }

    /// How many texts' trees are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.borrow().len()
    }
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
    let mut st = State::new(ctx, added);
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
