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
//! `book` (the programs a policy describes, judged beside the index).

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
mod walk;
mod words;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_words;

use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;
use std::time::{Duration, Instant};

use assent_client::protocol::{self, Level};

use crate::places::{self, Added, Anchor, Kind, Path, Piece, Placed, Secret, Where};
use act::Carried;
pub use disk::{Disk, Got, Want};
use effects::Effect;
pub(crate) use grammar::{field, kind};

impl State<'_, '_> {
    /// Parses with what is left of the line's parse time; `None` when the parser gives up
    /// or runs out of it.
    pub(crate) fn parse(&mut self, text: &str) -> Option<tree_sitter::Tree> {
        let start = Instant::now();
        let left = self.parse_budget.saturating_sub(self.parse_spent);
        let tree = grammar::parse(text, start.checked_add(left));
        self.parse_spent += start.elapsed();
        tree
    }

    /// Parses an inline program in `grammar` with what is left of the line's parse time.
    pub(crate) fn parse_code(
        &mut self,
        grammar: grammar::Grammar,
        text: &str,
    ) -> Option<tree_sitter::Tree> {
        let start = Instant::now();
        let left = self.parse_budget.saturating_sub(self.parse_spent);
        let tree = grammar::parse_in(grammar, text, start.checked_add(left));
        self.parse_spent += start.elapsed();
        tree
    }

    /// The parser has used up the line's time.
    pub(crate) fn out_of_parse_time(&self) -> bool {
        self.parse_spent >= self.parse_budget
    }
}
use source::SpanMap;
use words::{Env, Var, Vars, Word};

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
    analyse_with(command, ctx, added, true, Some(disk))
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
    analyse_with(command, ctx, added, may_split, None)
}

fn analyse_with(
    command: &str,
    ctx: &Surroundings,
    added: Added,
    may_split: bool,
    disk: Option<&Disk>,
) -> Analysis {
    let mut st = State::new(ctx, added);
    st.disk = disk;
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

/// A text to parse: the input, or an inner command string found in it.
pub(crate) struct Source {
    pub text: String,
    pub map: Rc<SpanMap>,
    /// Path of the command that runs this text.
    pub path: Rc<str>,
    pub depth: u32,
    /// What the shell that runs this text knows when it starts.
    pub shell: Start,
    /// The file read from the disk this text comes from, as findings name it (`in x.sh`).
    pub from: Option<Rc<str>>,
}

/// Where a text's shell starts.
pub(crate) enum Start {
    /// A shell of its own (an inner command string), knowing this.
    Fresh(Shell),
    /// The next statements of a line cut in pieces, from where the piece before left off.
    /// `first` is the index of the first statement in the whole line; `many` says whether
    /// the line holds more than one (how the statements are named).
    Continue { first: usize, many: bool },
    /// Stages of a pipeline cut in pieces, from stage `first_stage` on: each in a subshell of
    /// the shell before the pipeline, the first reading what the stage before it printed.
    Stage { first_stage: usize },
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
    /// The bodies of the functions defined on the line, as text and where they are in the
    /// input, read again when a call gives them arguments (`f ~/.ssh/id_rsa`).
    pub bodies: Rc<Bodies>,
    /// Paths that hold what a move, copy or link on the line put there.
    pub carried: Rc<Carried>,
    /// The container the commands run in (`docker exec`, `kubectl exec`), if any: its paths
    /// are its own, except those below the host directories mounted into it.
    pub container: Option<Rc<Container>>,
    /// `shopt` options that change what globs match (`dotglob`, `nocaseglob`, `globstar`).
    pub globs: words::GlobOptions,
    /// A file of secrets (`.env`) was sourced: the variables it set hold secrets.
    pub sourced: bool,
}

/// A container's view of the host: which host paths are mounted where.
#[derive(Debug, Default)]
pub(crate) struct Container {
    /// A mount's target in the container, and the host paths its source could be.
    pub mounts: Vec<(Path, Vec<Path>)>,
}

/// Mounts followed per container; more make any path reach the host.
pub(crate) const MAX_MOUNTS: usize = 32;

impl Container {
    /// Whether `path` in the container could be at or below `target`, and the rest after it.
    fn below<'p>(path: &'p Path, target: &Path) -> Option<&'p [places::Comp]> {
        if path.anchor != target.anchor || path.comps.len() < target.comps.len() {
            return None;
        }
        let (head, rest) = path.comps.split_at(target.comps.len());
        (head == target.comps.as_slice()).then_some(rest)
    }

    /// Whether a whole tree at `path` could hold `target` (`rm -rf /` with a mount at
    /// `/data`): the path is above it, or a pattern or an unknown part could lead there.
    fn reaches(path: &Path, target: &Path) -> bool {
        if path.anchor != Anchor::Root {
            return true;
        }
        for (i, c) in path.comps.iter().enumerate() {
            match (c, target.comps.get(i)) {
                (_, None) => return false,
                (places::Comp::Name(g), Some(t)) if g.is_literal() => {
                    if Some(c) != Some(t) {
                        return false;
                    }
                }
                _ => return true,
            }
        }
        true
    }
}

/// The longest value a variable keeps, in bytes; a longer one is unknown. `x=$x$x` doubles a
/// value at each step: kept whole, twenty steps would be a mebibyte for each.
const MAX_VALUE: usize = 4096;

impl Shell {
    pub fn set_var(&mut self, name: &str, value: Var) {
        let size = |alts: &words::Alts| -> usize {
            alts.iter()
                .flatten()
                .map(|p| match p {
                    Piece::Lit(t) | Piece::Glob(t) => t.len(),
                    _ => 1,
                })
                .sum()
        };
        let value = match value {
            Var::Lit(t) if t.len() > MAX_VALUE => Var::Unknown,
            Var::Pattern(alts) if size(&alts) > MAX_VALUE => Var::Unknown,
            other => other,
        };
        Rc::make_mut(&mut self.vars).insert(name.to_owned(), value);
    }
}

/// Where a literal word was placed from, whether as a whole tree and through its links, and
/// its places.
type WordPlaces = (Option<Rc<str>>, (bool, bool), Placed);

/// What the walk collects.
pub(crate) struct State<'c, 'a> {
    pub ctx: &'c Surroundings<'a>,
    findings: Vec<Finding>,
    commands: Vec<SimpleCommand>,
    queue: Vec<Source>,
    too_deep: bool,
    inner_bytes: usize,
    pub tmpdir_named: bool,
    pub cdpath_named: bool,
    /// The shell state at the point of the walk.
    pub shell: Shell,
    /// Where the last piece of a long line left the shell, for the next piece.
    pub chain: Shell,
    /// The shell before a long pipeline cut in pieces, and what its last stage printed.
    pub stage_base: Shell,
    pub stage_printed: Option<Rc<words::Alts>>,
    /// What it printed, when that is known exactly (`echo 'ls' |` cut before `| sh`).
    pub stage_exact: Option<String>,
    /// The request's project and home, for placing paths.
    where_: Where<'c>,
    /// Places of paths already placed on this line: a long line names the same paths often.
    placed: std::cell::RefCell<std::collections::HashMap<(Path, bool), Placed>>,
    /// Findings added, by level.
    added: [usize; 5],
    /// How long the parser may work on this line, and how long it has.
    pub parse_budget: Duration,
    pub parse_spent: Duration,
    /// Calls of functions defined on the line whose bodies were read again with their
    /// arguments; past [`MAX_FUNCTION_RUNS`] a call only runs the body read where it was
    /// defined.
    pub function_runs: usize,
    /// Files written on the line whose text was read again because the line runs them;
    /// past [`MAX_FUNCTION_RUNS`] a run of one is opaque (a file that runs itself).
    pub written_runs: usize,
    /// The current directory taken apart, for the directory it was taken from.
    cwd_path: std::cell::RefCell<Option<(Rc<str>, Path)>>,
    /// Places of literal words, from the directory they were placed in: the same words come
    /// back on a long line, and placing one builds a path first.
    placed_words: std::cell::RefCell<std::collections::HashMap<String, Vec<WordPlaces>>>,
    /// How many paths with globs or unknown parts were placed; past [`MAX_PATTERNS`] the
    /// rest are unknown, and the analysis says so.
    patterns: std::cell::Cell<usize>,
    /// Files written with secret data on the line (`env > /tmp/e`), and the secret.
    secret_files: Vec<(Path, Secret)>,
    /// Files written on the line by printing into them, with their text when it is known
    /// (`echo 'rm -rf ~' > /tmp/x.sh`): running or sourcing one later runs that text.
    written_files: Vec<(Path, Option<Rc<str>>)>,
    /// The line looks up the gate's processes by name (`pidof assentd`, `pgrep -f assent`,
    /// `ps aux | grep assent`), and where it signals pids only known when it runs: together,
    /// the line kills the gate, in whatever order the two were walked.
    pub gate_lookup: bool,
    pub runtime_kill: Option<(Range<usize>, String)>,
    /// Process patterns compiled on the line to try against the gate's processes.
    pub gate_patterns: usize,
    /// What the line changes, for the confinement of its run.
    pub changes: Changes,
    /// Lockfiles deleted on the line, judged at its end by what runs after them.
    lockfile_deletes: Vec<act::LockfileDelete>,
    /// What was read from the disk for this line, if anything was.
    pub disk: Option<&'c Disk>,
    /// What the analysis would like read (`disk`).
    wants: std::cell::RefCell<Vec<Want>>,
    /// The file read from the disk the text being walked comes from.
    pub from: Option<Rc<str>>,
    /// The programs the policy's book describes.
    pub programs: Option<&'c book::Book>,
    /// Files read from the disk whose text was queued: a script that runs itself is read a
    /// few times, then opaque.
    pub disk_runs: usize,
    /// Paths being placed are followed through their links: set for effects that change,
    /// remove or send what a path holds, not for reads and uses (a line that only reads its
    /// project is analysed once).
    pub follow_links: std::cell::Cell<bool>,
}

/// Function bodies by name: their text, and where they are in the input.
pub(crate) type Bodies = std::collections::HashMap<String, (Rc<str>, Range<usize>)>;

/// Function calls per line whose bodies are read again with their arguments.
pub(crate) const MAX_FUNCTION_RUNS: usize = 8;

/// The longest function body read again for a call.
pub(crate) const MAX_FUNCTION_BODY: usize = 4096;

/// Paths with globs or unknown parts placed per analysis; each costs a walk through the
/// vocabulary.
const MAX_PATTERNS: usize = 512;

impl<'c, 'a> State<'c, 'a> {
    fn new(ctx: &'c Surroundings<'a>, added: Added<'c>) -> Self {
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
            chain: Shell::default(),
            stage_base: Shell::default(),
            stage_printed: None,
            stage_exact: None,
            where_: Where::at(Some(ctx.cwd), ctx.home, ctx.project).with_added(added),
            placed: Default::default(),
            added: [0; 5],
            parse_budget: parse_time(0),
            function_runs: 0,
            written_runs: 0,
            parse_spent: Duration::ZERO,
            cwd_path: Default::default(),
            placed_words: Default::default(),
            patterns: Default::default(),
            secret_files: Vec::new(),
            changes: Changes::default(),
            written_files: Vec::new(),
            gate_lookup: false,
            runtime_kill: None,
            lockfile_deletes: Vec::new(),
            gate_patterns: 0,
            disk: None,
            wants: Default::default(),
            from: None,
            disk_runs: 0,
            follow_links: Default::default(),
            programs: added.programs,
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
            globs: self.shell.globs,
            sourced: self.shell.sourced,
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
        Path::from_pieces_in(pieces, || self.cwd_path()).through_proc(cwd)
    }

    /// The current directory as a path, taken apart once per directory.
    fn cwd_path(&self) -> Option<Path> {
        let cwd = self.shell.cwd.as_ref().filter(|c| c.starts_with('/'))?;
        let mut cached = self.cwd_path.borrow_mut();
        match &*cached {
            Some((text, path)) if Rc::ptr_eq(text, cwd) || **text == **cwd => Some(path.clone()),
            _ => {
                let path = Path::absolute(cwd);
                *cached = Some((Rc::clone(cwd), path.clone()));
                Some(path)
            }
        }
    }

    /// A path on another machine (`host:path`): its home is not this one's.
    pub fn remote_path_of(&self, pieces: &[Piece]) -> Path {
        Path::from_pieces(pieces, None)
    }

    /// Every place a word could name. `copies`: what copies made on the line put there counts
    /// too (for an effect on the contents, not on the file).
    pub fn places(&self, w: &Word, tree: bool, copies: bool) -> Placed {
        // A literal word's places depend only on the directory, while nothing on the line
        // has carried a place elsewhere.
        let literal =
            w.value.is_none() && self.shell.carried.is_empty() && self.shell.container.is_none();
        if literal {
            let key = (tree, self.follow_links.get());
            let here =
                |(cwd, t, _): &WordPlaces| *t == key && cwd.as_deref() == self.shell.cwd.as_deref();
            if let Some(found) = self.placed_words.borrow().get(w.text.as_str())
                && let Some((_, _, p)) = found.iter().find(|e| here(e))
            {
                return p.clone();
            }
            let placed = self.places_of(&self.path_of(&[Piece::Lit(w.text.clone())]), tree, copies);
            self.placed_words
                .borrow_mut()
                .entry(w.text.clone())
                .or_default()
                .push((self.shell.cwd.clone(), key, placed.clone()));
            return placed;
        }
        let mut placed = Placed::default();
        for path in self.paths(w) {
            placed.union(&self.places_of(&path, tree, copies));
        }
        // `..` after a link made on this line climbs out of where the link leads, not out
        // of where the link is: `ln -s ~ /tmp/l; rm -rf /tmp/l/..` deletes `/home`.
        if w.text.contains("..") {
            for path in self.through_links(&w.text) {
                placed.union(&self.places_of(&path, tree, copies));
            }
        }
        placed
    }

    /// `text` read again where a `..` follows a link made on the line: the link's target,
    /// then the rest of the text.
    fn through_links(&self, text: &str) -> Vec<Path> {
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(i) = text[at..].find("/..").map(|i| at + i) {
            at = i + 3;
            let after_ok = text.as_bytes().get(at).is_none_or(|&b| b == b'/');
            if !after_ok {
                continue;
            }
            let link = self.path_of(&[Piece::Lit(text[..i].to_owned())]);
            for target in self.shell.carried.links(&link) {
                let mut joined = target.literal_text().unwrap_or_default();
                joined.push_str(&text[i..]);
                if target.is_literal() {
                    out.push(self.path_of(&[Piece::Lit(joined)]));
                } else {
                    out.push(Path::from_pieces(&[Piece::Opaque], None));
                }
                if out.len() >= MAX_SOURCES {
                    return out;
                }
            }
        }
        out
    }

    /// Where a path is, and where what a move or copy on the line carried to it came from.
    pub fn places_of(&self, path: &Path, tree: bool, copies: bool) -> Placed {
        let mut placed = self.classify(path, tree);
        if self.shell.carried.is_empty() {
            return placed;
        }
        if self.shell.carried.overflowed() {
            placed.add(
                Kind::Unknown,
                "what many moves and copies on the line put there",
            );
        }
        // A destination may hold what another destination held: follow a few hops, each
        // source once, and at most `MAX_SOURCES` of them.
        let mut seen: Vec<Path> = vec![path.clone()];
        let mut todo: Vec<Path> = vec![path.clone()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for p in &todo {
                for source in self.shell.carried.sources(p, copies) {
                    if seen.len() >= MAX_SOURCES {
                        // More than can be followed: what the path holds is not known.
                        placed.add(Kind::Unknown, "what moves and copies on the line put there");
                        return placed;
                    }
                    if seen.contains(&source) {
                        continue;
                    }
                    placed.union(&self.classify(&source, tree));
                    seen.push(source.clone());
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

    /// Where a path is: the host's place, or for a command in a container the container's
    /// own files, save for what is mounted from the host.
    fn classify(&self, path: &Path, tree: bool) -> Placed {
        match self.shell.container.clone() {
            Some(c) => self.inside(&c, path, tree),
            None => self.classify_host(path, tree),
        }
    }

    /// A path in a container. Below a mount it is the host's path below the mount's source;
    /// a tree above a mount reaches into it. Elsewhere it is the container's own file:
    /// deleting `/` there deletes the container's data, not the host's root, so host places
    /// become the containers' place, except those that cost the same wherever they are (a
    /// secret is read all the same, temporary files are temporary, a device is the host's).
    fn inside(&self, c: &Container, path: &Path, tree: bool) -> Placed {
        let mut placed = Placed::default();
        for (target, sources) in &c.mounts {
            if let Some(rest) = Container::below(path, target) {
                for source in sources {
                    let mut host = source.clone();
                    host.comps.extend(rest.iter().cloned());
                    placed.union(&self.classify_host(&host, tree));
                }
                return placed;
            }
        }
        if tree {
            for (target, sources) in &c.mounts {
                if Container::reaches(path, target) {
                    for source in sources {
                        placed.union(&self.classify_host(source, true));
                    }
                }
            }
        }
        let own = self.classify_host(path, tree);
        for kind in own.kinds() {
            match kind {
                Kind::Secret
                | Kind::Device
                | Kind::Temp
                | Kind::Build
                | Kind::Null
                | Kind::Unknown
                | Kind::Remote
                | Kind::Database
                | Kind::Containers => placed.add(kind, own.why(kind)),
                _ => placed.add(Kind::Containers, "a file in the container"),
            }
        }
        placed
    }

    /// [`places::classify`], remembered for the line, within the budget for patterns; for an
    /// effect that changes or sends what is there, where the path's links lead too.
    fn classify_host(&self, path: &Path, tree: bool) -> Placed {
        let mut placed = self.classify_named(path, tree);
        // A path is where its symbolic links lead too: `rm -rf build/` where `build` is a
        // link to the home deletes the home.
        if self.follow_links.get()
            && let Some(text) = path.literal_text()
        {
            let kinds: Vec<Kind> = placed.kinds().collect();
            if let Some(target) = self.link_target(&text, &kinds) {
                placed.union(&self.classify_named(&Path::absolute(&target), tree));
            }
        }
        placed
    }

    /// [`places::classify`] of the path as named, remembered for the line.
    fn classify_named(&self, path: &Path, tree: bool) -> Placed {
        let key = (path.clone(), tree);
        if let Some(p) = self.placed.borrow().get(&key) {
            return p.clone();
        }
        if !path.is_literal() {
            let n = self.patterns.get() + 1;
            self.patterns.set(n);
            if n > MAX_PATTERNS {
                return Placed::one(Kind::Unknown, "");
            }
        }
        let placed = places::classify(path, tree, &self.where_);
        self.placed.borrow_mut().insert(key, placed.clone());
        placed
    }

    pub fn remember_alias(&mut self, dest: Path, sources: Vec<Path>, how: act::Carry) {
        Rc::make_mut(&mut self.shell.carried).alias(dest, sources, how);
    }

    /// After this, the files `w` names hold secret data. A file outlives the subshell or
    /// pipeline stage that wrote it, so this is the line's, not the shell's. Past
    /// [`MAX_SOURCES`] files nothing more is remembered.
    pub fn remember_secret(&mut self, w: &Word, secret: Secret) {
        for path in self.paths(w) {
            if let Some(entry) = self.secret_files.iter_mut().find(|(p, _)| *p == path) {
                entry.1 = entry.1.max(secret);
            } else if self.secret_files.len() < MAX_SOURCES {
                self.secret_files.push((path, secret));
            }
        }
    }

    /// After this, the files `w` names hold `text` (`None`: text not known here); `append`:
    /// added after what they held. Past [`MAX_SOURCES`] files nothing more is remembered.
    pub fn remember_written(&mut self, w: &Word, text: Option<&str>, append: bool) {
        for path in self.paths(w) {
            let room = self.written_files.len() < MAX_SOURCES;
            match self.written_files.iter_mut().find(|(p, _)| *p == path) {
                Some(entry) => {
                    entry.1 = match (&entry.1, text, append) {
                        (Some(old), Some(new), true) => Some(Rc::from(format!("{old}{new}"))),
                        (_, Some(new), false) => Some(Rc::from(new)),
                        _ => None,
                    };
                }
                None if room => {
                    // Appending to a file the line did not write: what it held is not known.
                    let text = text.filter(|_| !append).map(Rc::from);
                    self.written_files.push((path, text));
                }
                None => {}
            }
        }
    }

    /// What a file `w` names was written with on this line: `None` when the line did not
    /// write it, `Some(None)` when it did with text not known here.
    pub fn written_text(&self, w: &Word) -> Option<Option<Rc<str>>> {
        if self.written_files.is_empty() {
            return None;
        }
        let paths = self.paths(w);
        let mut found = None;
        for path in &paths {
            let sources = self.shell.carried.sources(path, true);
            for p in std::iter::once(path).chain(sources.iter()) {
                if let Some((_, text)) = self.written_files.iter().find(|(w, _)| w == p) {
                    // Two files it could be: neither text is certain.
                    found = match found {
                        None => Some(text.clone()),
                        Some(_) => Some(None),
                    };
                }
            }
        }
        found
    }

    /// The secret data written on the line to `path`, or to what was copied or moved there.
    fn secret_written(&self, path: &Path) -> Option<Secret> {
        let held = |p: &Path| {
            self.secret_files
                .iter()
                .filter(|(s, _)| s == p)
                .map(|(_, secret)| *secret)
                .max()
        };
        let copied = self.shell.carried.sources(path, true);
        held(path).max(copied.iter().filter_map(held).max())
    }

    /// The secret data a file `w` names holds: written there on the line, or a place the
    /// vocabulary calls secret (then all of it: a dump). `tree`: everything below it too.
    pub fn secret_file(&self, w: &Word, tree: bool) -> Option<Secret> {
        let written = if self.secret_files.is_empty() {
            None
        } else {
            self.paths(w)
                .iter()
                .filter_map(|p| self.secret_written(p))
                .max()
        };
        let placed = self
            .places(w, tree, true)
            .has(Kind::Secret)
            .then_some(Secret::Dump);
        written.max(placed)
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
        if let Some(n) = self.added.get_mut(finding.level as usize) {
            *n += 1;
        }
        self.findings.push(finding);
    }

    /// Whether a finding of `level` could still be among those kept: false once twice
    /// [`MAX_FINDINGS`] at least as severe are held, so a line of thousands of commands does
    /// not spell out a sentence for each. (Findings are made unique only at the end: the
    /// margin is for repeats.)
    pub fn wants(&self, level: Level) -> bool {
        let at_least: usize = self.added.iter().skip(level as usize).sum();
        at_least < 2 * MAX_FINDINGS
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
    pub fn inner(&mut self, mut src: Source, span: Range<usize>) {
        if src.depth > MAX_DEPTH {
            self.too_deep(span);
            return;
        }
        if src.from.is_none() {
            src.from = self.from.clone();
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
        if self.patterns.get() > MAX_PATTERNS {
            let detail = format!("more than {MAX_PATTERNS} patterns of paths");
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

/// How much of a deep path is kept before its middle is left out: `sudo sudo sudo …` nests
/// once per word, and a path spelled out in full at every level would cost the square of
/// the line.
const MAX_PATH_HEAD: usize = 120;

/// `path` with its middle left out when it is long: its first [`MAX_PATH_HEAD`] bytes, then
/// `… > `. Only the head is kept, so a path shortened once stays that short.
fn path_head(path: &str) -> (&str, &str) {
    if path.len() <= 2 * MAX_PATH_HEAD {
        return (path, " > ");
    }
    let mut end = MAX_PATH_HEAD;
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    // Cut after a whole segment when there is one.
    let end = path[..end].rfind(" > ").unwrap_or(end);
    (&path[..end], " > … > ")
}

/// `a > b`, or `b` when `a` is empty.
pub(crate) fn join_path(path: &str, segment: &str) -> Rc<str> {
    if path.is_empty() {
        return Rc::from(segment);
    }
    let (head, joint) = path_head(path);
    let mut out = String::with_capacity(head.len() + joint.len() + segment.len());
    out.push_str(head);
    out.push_str(joint);
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
    let (head, joint) = path_head(path);
    let mut out = String::with_capacity(head.len() + joint.len() + name.len() + digits.len() + 2);
    if !path.is_empty() {
        out.push_str(head);
        out.push_str(joint);
    }
    out.push_str(name);
    out.push('[');
    out.push_str(digits);
    out.push(']');
    Rc::from(out)
}
