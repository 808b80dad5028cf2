//! The analysis's state, the blackboard every layer writes on: the findings and commands found
//! so far, the texts queued to read, the shell as the walk goes ([`Shell`]), and the places of
//! paths (the request's project and home, links, what the line wrote or moved where). It
//! judges nothing and reads no shell: the driver in `mod.rs` reads, the book and `act` write.

mod placing;
mod shell;

use std::ops::Range;
use std::rc::Rc;
use std::time::{Duration, Instant};

use assent_client::protocol::{self, Level};

use super::act::{self, Changes};
use super::catalogue;
use super::disk::snapshot::{Disk, Want};
use super::effects::Effect;
use super::grammar::{self, Parsed};
use super::limits::{INNER_BUDGET, MAX_DEPTH, MAX_FINDINGS, MAX_SOURCES, parse_time};
use super::words::{self, Env, Printed, Word};
use crate::places::{self, Added, Kind, Path, Piece, Placed, Secret, Where};
pub(crate) use shell::{Container, MAX_MOUNTS, Shell, Source, Start, join_indexed, join_path};

impl State<'_, '_> {
    /// Parses with what is left of the line's parse time; `None` when the parser gives up
    /// or runs out of it.
    pub(crate) fn parse(&mut self, text: &str) -> Option<tree_sitter::Tree> {
        if let Some(tree) = self.parsed.and_then(|p| p.get(text)) {
            return Some(tree);
        }
        let start = Instant::now();
        let left = self.parse_budget.saturating_sub(self.parse_spent);
        let tree = grammar::parse(text, start.checked_add(left));
        self.parse_spent += start.elapsed();
        if let (Some(parsed), Some(tree)) = (self.parsed, &tree) {
            parsed.keep(text, tree);
        }
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

/// Where a literal word was placed from, whether as a whole tree and through its links, and
/// its places.
pub(super) type WordPlaces = (Option<Rc<str>>, (bool, bool), Placed);

/// What the walk collects.
pub(crate) struct State<'c, 'a> {
    pub ctx: &'c Surroundings<'a>,
    pub(super) findings: Vec<Finding>,
    pub(super) commands: Vec<SimpleCommand>,
    pub(super) queue: Vec<Source>,
    pub(super) too_deep: bool,
    pub(super) inner_bytes: usize,
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
    pub(super) where_: Where<'c>,
    /// Places of paths already placed on this line: a long line names the same paths often.
    pub(super) placed: std::cell::RefCell<std::collections::HashMap<(Path, bool), Placed>>,
    /// Whether `~/TAIL` is a secret, for the tails of paths read (`placing.rs`
    /// `secret_below_a_link`): the same few tails come back for every path below a directory.
    pub(super) secret_tails: std::cell::RefCell<std::collections::HashMap<String, bool>>,
    /// Findings added, by level.
    pub(super) added: [usize; 5],
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
    /// Virtual environments the line makes (`python3 -m venv .venv`), absolute: their
    /// `bin/activate`, sourced later on the line, is the one the module writes.
    pub venvs: Vec<String>,
    /// Code an inline program loads by name from the working directory (`import helper`,
    /// `require('./x')`), collected while `loading` is set (the program given on the command
    /// line), for the command's reader to find on the disk and read as the program's own.
    pub loads: Vec<String>,
    pub loading: bool,
    /// More were loaded than are looked for.
    pub loads_over: bool,
    /// The current directory taken apart, for the directory it was taken from.
    pub(super) cwd_path: std::cell::RefCell<Option<(Rc<str>, Path)>>,
    /// Places of literal words, from the directory they were placed in: the same words come
    /// back on a long line, and placing one builds a path first.
    pub(super) placed_words: std::cell::RefCell<std::collections::HashMap<String, Vec<WordPlaces>>>,
    /// How many paths with globs or unknown parts were placed; past [`MAX_PATTERNS`] the
    /// rest are unknown, and the analysis says so.
    pub(super) patterns: std::cell::Cell<usize>,
    /// Files written with secret data on the line (`env > /tmp/e`), and the secret.
    pub(super) secret_files: Vec<(Path, Secret)>,
    /// Files written on the line by printing into them, with their text when it is known
    /// (`echo 'rm -rf ~' > /tmp/x.sh`): running or sourcing one later runs that text.
    pub(super) written_files: Vec<(Path, Option<Rc<str>>)>,
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
    pub(super) lockfile_deletes: Vec<act::LockfileDelete>,
    /// What was read from the disk for this line, if anything was.
    pub disk: Option<&'c Disk>,
    /// The texts this request's analyses parsed before, and their trees.
    pub parsed: Option<&'c Parsed>,
    /// What the analysis would like read (`disk`).
    pub(super) wants: std::cell::RefCell<Vec<Want>>,
    /// The file read from the disk the text being walked comes from.
    pub from: Option<Rc<str>>,
    /// What the request's policy adds: its places (placed through `where_`) and its program
    /// book, which the dispatcher asks for the programs it describes.
    pub policy: Added<'c>,
    /// What a command substitution prints (`Env::printed`), handed down by the driver.
    printed: Printed,
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
pub(super) const MAX_PATTERNS: usize = 512;

impl<'c, 'a> State<'c, 'a> {
    pub(super) fn new(ctx: &'c Surroundings<'a>, added: Added<'c>, printed: Printed) -> Self {
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
            secret_tails: Default::default(),
            added: [0; 5],
            parse_budget: parse_time(0),
            function_runs: 0,
            written_runs: 0,
            venvs: Vec::new(),
            loads: Vec::new(),
            loading: false,
            loads_over: false,
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
            parsed: None,
            wants: Default::default(),
            from: None,
            disk_runs: 0,
            follow_links: Default::default(),
            policy: added,
            printed,
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
            printed: self.printed,
        }
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
    pub(super) fn secret_written(&self, path: &Path) -> Option<Secret> {
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
}

pub(super) fn wire_span(span: &Range<usize>) -> protocol::Span {
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
pub(super) fn shorten(text: &str) -> String {
    if text.len() <= MAX_WIRE_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_WIRE_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
