//! From what a command does to findings: a program's model says which effects it has on which
//! words or places (`Site::on`), and this module places each word in the vocabulary, looks
//! the level up in the table, and writes one finding per effect and place, naming the words.
//! Moves, copies and links made on the line are remembered here, so that what they carried
//! keeps its place at the destination. What a network sender is given of secret data is
//! collected here too, and told as one leak (`secrets` says what counts).

use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;

use assent_client::protocol::Level;

use super::catalogue::{self, Said};
use super::effects::{self, Effect};
use super::getopt::Args;
use super::secrets;
use super::words::Word;
use super::{Finding, State};
use crate::places::{Kind, Path, Placed, Secret};

mod changes;
mod lockfiles;

pub use changes::{Changes, MAX_CHANGED};

/// What an effect lands on.
enum Target<'s> {
    /// A word that names a path.
    Word(Word<'s>),
    /// A path the model made (a file copied into a directory, what `find` finds).
    Path(Vec<Path>, String),
    /// A place that is not a file, said in the model's words.
    Place(Kind, String),
}

struct Act<'s> {
    effect: Effect,
    target: Target<'s>,
    tree: bool,
    /// Reported only when it costs more than a moderate change.
    quiet: bool,
}

/// A command being judged: its program's name and arguments, and what the model says it does.
pub struct Site<'x, 's, 'c, 'a> {
    /// The program, as it is named in messages.
    pub name: &'x str,
    /// The words as the program's grammar reads them.
    pub args: Args<'x, 's>,
    /// The command's span in the original input.
    pub span: Range<usize>,
    pub st: &'x mut State<'c, 'a>,
    acts: Vec<Act<'s>>,
    /// What the command carries where, remembered once its own effects are judged.
    carried: Vec<(Path, Vec<Path>, Carry)>,
    fetched: Vec<String>,
    /// The secret it reads on its standard input, when it reads one.
    pub input: Option<Secret>,
    /// Secret data it sends, and the words that hold it.
    leaks: Vec<(Secret, String)>,
    /// The hosts the command sends to, as far as they are known: a credential of a known
    /// service in a login slot leaks when it goes elsewhere.
    hosts: Vec<Option<String>>,
    /// Every request it makes stays on this machine.
    local: bool,
    /// Files it writes secret data into.
    kept: Vec<(Word<'s>, Secret)>,
}

/// Where a network sender puts a value (see `secrets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Where a client takes credentials: a header, a login option, a URL's user part.
    Login,
    /// The host it connects to or looks up.
    Address,
    /// Anywhere else in what it sends.
    Request,
}

impl<'x, 's, 'c, 'a> Site<'x, 's, 'c, 'a> {
    pub fn new(
        name: &'x str,
        args: Args<'x, 's>,
        span: Range<usize>,
        st: &'x mut State<'c, 'a>,
    ) -> Self {
        Site {
            name,
            args,
            span,
            st,
            acts: Vec::new(),
            carried: Vec::new(),
            fetched: Vec::new(),
            input: None,
            leaks: Vec::new(),
            hosts: Vec::new(),
            local: false,
            kept: Vec::new(),
        }
    }

    /// After this command, the file `word` names holds `secret`.
    pub fn keeps(&mut self, word: &Word<'s>, secret: Secret) {
        self.kept.push((word.clone(), secret));
    }

    /// `word` goes over the network in `slot`: one credential may go where credentials go,
    /// a sourced setting where addresses go; any other secret is a leak.
    pub fn sends(&mut self, word: &Word<'s>, slot: Slot) {
        let Some(secret) = secrets::in_word(word) else {
            return;
        };
        let leaks = match slot {
            // A credential of a known service (`$GITHUB_TOKEN`) in a header or login sent
            // to a host that is not that service's.
            Slot::Login => {
                secret == Secret::Dump
                    || (!self.hosts.is_empty()
                        && secrets::foreign_credential(word.raw, &self.hosts))
            }
            Slot::Address => secret != Secret::Sourced,
            Slot::Request => true,
        };
        if leaks {
            self.leak(secret, word.quoted());
        }
    }

    /// The hosts the command sends to (`None`: one only known at run time).
    pub fn sends_to(&mut self, hosts: Vec<Option<String>>) {
        self.hosts = hosts;
    }

    /// A URL goes over the network: its user part is where it carries credentials.
    pub fn sends_url(&mut self, url: &Word<'s>) {
        let (login, rest) = secrets::url_secrets(url);
        let leaked = rest.max(login.filter(|s| *s == Secret::Dump));
        if let Some(secret) = leaked {
            self.leak(secret, url.quoted());
        }
    }

    /// What the file `word` names holds goes over the network (`tree`: all below it too).
    pub fn sends_file(&mut self, word: &Word<'s>, tree: bool) {
        self.sends(word, Slot::Request);
        if let Some(secret) = self.st.secret_file(word, tree) {
            self.leak(secret, word.quoted());
        }
    }

    /// What it reads on its standard input goes over the network.
    pub fn sends_input(&mut self) {
        if let Some(secret) = self.input {
            self.leak(secret, "what it reads on its input".to_owned());
        }
    }

    /// Every request the command makes goes to this machine (`localhost`): nothing leaks.
    pub fn stays_local(&mut self) {
        self.local = true;
    }

    fn leak(&mut self, secret: Secret, shown: String) {
        if !self.leaks.iter().any(|(_, s)| *s == shown) {
            self.leaks.push((secret, shown));
        }
    }

    /// The command has `effect` on the path `word` names.
    pub fn on(&mut self, effect: Effect, word: &Word<'s>) {
        self.acts.push(Act {
            effect,
            target: Target::Word(word.clone()),
            tree: false,
            quiet: false,
        });
    }

    /// [`Site::tree`], told only when it makes the command more than a moderate change (the
    /// arguments a build tool hands the project's code).
    pub fn quiet(&mut self, effect: Effect, word: &Word<'s>) {
        self.acts.push(Act {
            effect,
            target: Target::Word(word.clone()),
            tree: true,
            quiet: true,
        });
    }

    /// The command has `effect` on the directory `word` names and everything beneath it.
    pub fn tree(&mut self, effect: Effect, word: &Word<'s>) {
        self.acts.push(Act {
            effect,
            target: Target::Word(word.clone()),
            tree: true,
            quiet: false,
        });
    }

    /// The command has `effect` on paths the model made, shown as `shown`.
    pub fn on_paths(&mut self, effect: Effect, paths: Vec<Path>, tree: bool, shown: String) {
        self.acts.push(Act {
            effect,
            target: Target::Path(paths, shown),
            tree,
            quiet: false,
        });
    }

    /// The command has `effect` on a place that is not a file, described as `shown`.
    pub fn place(&mut self, effect: Effect, place: Kind, shown: String) {
        self.acts.push(Act {
            effect,
            target: Target::Place(place, shown),
            tree: false,
            quiet: false,
        });
    }

    /// A finding in the model's own words.
    pub fn say(&mut self, said: Said, detail: &str) {
        let finding = said.at(self.span.clone(), detail);
        self.st.add(finding);
    }

    /// The paths a word could name, for models that reason about them (`cp`'s destination).
    pub fn paths(&self, word: &Word) -> Vec<Path> {
        self.st.paths(word)
    }

    /// Where `word` is, and what moves, copies and links on the line put there.
    pub fn placed(&self, word: &Word, tree: bool) -> Placed {
        self.st.places(word, tree, true)
    }

    /// After this command, `dest` holds what `source` held: a move, copy or link.
    pub fn carries(&mut self, dest: &[Path], source: &Word, how: Carry) {
        let sources = self.st.paths(source);
        for d in dest {
            self.carried.push((d.clone(), sources.clone(), how));
        }
    }

    /// After this command, `dest` holds what was fetched from the network.
    pub fn fetched_into(&mut self, dest: &Word) {
        for path in self.st.paths(dest) {
            if let Some(text) = path.literal_text() {
                self.fetched.push(text);
            }
        }
    }

    /// Turns the acts into findings.
    pub fn report(self) {
        let Site {
            name,
            span,
            st,
            acts,
            carried,
            fetched,
            leaks,
            local,
            kept,
            ..
        } = self;
        for (word, secret) in &kept {
            st.remember_secret(word, *secret);
        }
        if !leaks.is_empty() && !local {
            st.add(catalogue::SECRET_SENT.at(span.clone(), &leak_detail(name, &leaks)));
        }
        report(name, true, acts, span, st);
        for (dest, sources, how) in carried {
            st.remember_alias(dest, sources, how);
        }
        for dest in fetched {
            st.remember_download(dest);
        }
    }
}

/// What a person is told a command sends: secret data, or a credential where it does not
/// belong, and the first few words that hold it.
fn leak_detail(name: &str, leaks: &[(Secret, String)]) -> String {
    let what = if leaks.iter().any(|(s, _)| *s == Secret::Dump) {
        "secret data"
    } else {
        "a credential outside the header or login meant for it"
    };
    let shown: Vec<&str> = leaks.iter().take(SHOWN).map(|(_, s)| s.as_str()).collect();
    let mut detail = format!(
        "`{name}` sends {what} over the network ({}",
        shown.join(", ")
    );
    if leaks.len() > SHOWN {
        detail.push_str(&format!(" and {} more", leaks.len() - SHOWN));
    }
    detail.push(')');
    detail
}

/// Words a finding names; the rest are counted.
const SHOWN: usize = 3;

/// One cell of the table a command reaches, and the words that led to it.
struct Cell {
    effect: Effect,
    kind: Kind,
    /// What a person is told the place is.
    why: &'static str,
    /// The first few words, then the other distinct words, to count them.
    shown: Vec<String>,
    more: HashSet<String>,
    /// Every word names the place for certain.
    certain: bool,
}

/// One finding per effect and place, naming up to three of the words that led to it.
/// `name` is the program's (`program`: shown as code), or a description (`the redirection`).
fn report(name: &str, program: bool, acts: Vec<Act>, span: Range<usize>, st: &mut State) {
    let mut cells: Vec<Cell> = Vec::new();
    for act in acts {
        if changes(act.effect) {
            record_change(&act.target, st);
        }
        st.follow_links.set(act.effect.follows_links());
        let described = !matches!(act.target, Target::Place(..));
        let (placed, shown, certain) = match &act.target {
            Target::Word(w) => {
                let mut placed = st.places(w, act.tree, act.effect.reads_content());
                if act.effect == Effect::Run && st.downloaded(w) {
                    placed.add(Kind::Remote, "a file fetched from the network on this line");
                }
                (placed, w.quoted(), !w.dynamic)
            }
            Target::Path(paths, shown) => {
                let mut placed = Placed::default();
                for p in paths {
                    placed.union(&st.places_of(p, act.tree, act.effect.reads_content()));
                }
                let certain = paths.iter().all(Path::is_literal);
                (placed, shown.clone(), certain)
            }
            Target::Place(kind, shown) => (Placed::one(*kind, ""), shown.clone(), true),
        };
        st.follow_links.set(false);
        // Onto nothing: a file that is not there is made, not replaced (`cp .env.example .env`
        // in a fresh checkout). Asked of the disk only where replacing costs more than making.
        let mut act = act;
        if act.effect == Effect::Overwrite
            && placed
                .kinds()
                .any(|k| effects::level(Effect::Overwrite, k) > effects::level(Effect::Write, k))
            && let [one] = match &act.target {
                Target::Word(w) if !w.dynamic => st.paths(w),
                Target::Path(paths, _) => paths.clone(),
                _ => Vec::new(),
            }
            .as_slice()
            && let Some(path) = one.literal_text().and_then(crate::places::disk_file)
            && st.exists(&path) == Some(false)
        {
            act.effect = Effect::Write;
        }
        // A lockfile deleted in the project waits for the end of the line, which may write
        // it again (`rm package-lock.json && npm install`).
        if act.effect == Effect::Delete
            && let Target::Word(w) = &act.target
            && let Some(path) = w.literal()
            && lockfiles::is_lockfile(path)
            && placed.kinds().eq([Kind::Project])
        {
            st.lockfile_deletes.push(LockfileDelete {
                path: path.to_owned(),
                actor: if program {
                    format!("`{name}`")
                } else {
                    name.to_owned()
                },
                shown,
                why: placed.why(Kind::Project),
                span: span.clone(),
            });
            continue;
        }
        // A word's places below its highest level add nothing a person needs: `rm -rf ~`
        // deletes the home, which says more than that secrets lie below it.
        let top = top_level(act.effect, &placed);
        for kind in placed.kinds() {
            let level = effects::level(act.effect, kind);
            if level == Level::Safe
                || level < top
                || (act.quiet && level <= Level::Moderate)
                || !st.wants(level)
            {
                continue;
            }
            let why = if described { placed.why(kind) } else { "" };
            let cell = match cells
                .iter_mut()
                .position(|c| c.effect == act.effect && c.kind == kind)
            {
                Some(i) => &mut cells[i],
                None => {
                    cells.push(Cell {
                        effect: act.effect,
                        kind,
                        why,
                        shown: Vec::new(),
                        more: HashSet::new(),
                        certain: true,
                    });
                    let last = cells.len() - 1;
                    &mut cells[last]
                }
            };
            if !cell.shown.contains(&shown) {
                if cell.shown.len() < SHOWN {
                    cell.shown.push(shown.clone());
                } else {
                    cell.more.insert(shown.clone());
                }
            }
            cell.certain &= certain;
        }
    }
    if cells.is_empty() {
        return;
    }
    let actor = if program {
        format!("`{name}`")
    } else {
        name.to_owned()
    };
    for cell in cells {
        st.add(cell_finding(&actor, &cell, span.clone()));
    }
}

/// The effect changes what it acts on (or may: a program the gate does not know is given it).
fn changes(effect: Effect) -> bool {
    !matches!(
        effect,
        Effect::Read | Effect::Run | Effect::Send | Effect::Publish | Effect::Stop
    )
}

/// Remembers where an act changes things, for the confinement of the line's run.
fn record_change(target: &Target, st: &mut State) {
    match target {
        Target::Word(w) => {
            for path in st.paths(w) {
                st.changes.add(&path);
            }
        }
        Target::Path(paths, _) => {
            for path in paths {
                st.changes.add(path);
            }
        }
        Target::Place(Kind::Packages, _) => st.changes.packages = true,
        Target::Place(Kind::Unknown, _) => st.changes.anywhere = true,
        // Services, remotes, databases, containers: changed through their own daemons or the
        // network, not by writing files here.
        Target::Place(..) => {}
    }
}

/// A lockfile in the project a command deletes, judged once the line is read.
pub(crate) struct LockfileDelete {
    path: String,
    actor: String,
    shown: String,
    why: &'static str,
    span: Range<usize>,
}

impl LockfileDelete {
    /// Its finding: the deletion of build output when a command after it on the line writes
    /// it again (`npm install`), else the deletion of a project file.
    pub(crate) fn finding(&self, commands: &[super::SimpleCommand]) -> Finding {
        let again = commands
            .iter()
            .filter(|c| c.span.start >= self.span.end)
            .find(|c| lockfiles::regenerates(&self.path, &c.argv));
        let mut cell = Cell {
            effect: Effect::Delete,
            kind: Kind::Project,
            why: self.why,
            shown: vec![self.shown.clone()],
            more: HashSet::new(),
            certain: true,
        };
        let Some(by) = again else {
            return cell_finding(&self.actor, &cell, self.span.clone());
        };
        cell.kind = Kind::Build;
        cell.why = "";
        let mut finding = cell_finding(&self.actor, &cell, self.span.clone());
        let by: Vec<&str> = by.argv.iter().take(3).map(String::as_str).collect();
        finding.message.push_str(&format!(
            ", a lockfile `{}` writes again on this line",
            by.join(" ")
        ));
        finding
    }
}

/// The highest level `effect` has on any of the places.
fn top_level(effect: Effect, placed: &Placed) -> Level {
    placed
        .kinds()
        .map(|kind| effects::level(effect, kind))
        .max()
        .unwrap_or(Level::Safe)
}

/// The finding for one cell.
fn cell_finding(actor: &str, cell: &Cell, span: Range<usize>) -> Finding {
    let Cell {
        effect,
        kind,
        why,
        certain,
        ..
    } = *cell;
    let level = effects::level(effect, kind);
    let mut words = cell.shown.join(", ");
    if !cell.more.is_empty() {
        words.push_str(&format!(" and {} more", cell.more.len()));
    }
    let what = match (why, certain) {
        ("", _) => String::new(),
        (why, true) => format!(" ({why})"),
        (why, false) => format!(" (which could be {why})"),
    };
    let mut message = if effect == Effect::Use {
        format!("{actor} is not a program the gate knows, and it is given {words}{what}")
    } else {
        format!("{actor} {} {words}{what}", effect.verb())
    };
    if kind == Kind::Gate && level >= Level::Destructive {
        message.push_str(": an agent may not answer or switch off its own gate");
    } else if level >= Level::Destructive {
        message.push_str(": ");
        message.push_str(effect.cost());
    }
    Finding {
        id: effects::cell_id(effect, kind),
        level,
        message,
        span,
        cell: Some((effect, kind)),
    }
}

/// The findings of a tool call that does `effect` to what a path argument names: the same
/// cells and levels as a shell command doing it. `tool` is the tool's name.
pub fn tool_findings(
    tool: &str,
    effect: Effect,
    shown: &str,
    placed: &Placed,
    certain: bool,
    span: Range<usize>,
) -> Vec<Finding> {
    let actor = format!("`{tool}`");
    let mut out = Vec::new();
    let top = top_level(effect, placed);
    for kind in placed.kinds() {
        let level = effects::level(effect, kind);
        if level == Level::Safe || level < top {
            continue;
        }
        let cell = Cell {
            effect,
            kind,
            why: placed.why(kind),
            shown: vec![format!("`{shown}`")],
            more: HashSet::new(),
            certain,
        };
        let mut finding = cell_finding(&actor, &cell, span.clone());
        if effect == Effect::Use {
            finding.message = finding.message.replacen(
                "is not a program the gate knows",
                "is not a tool the gate knows",
                1,
            );
        }
        out.push(finding);
    }
    out
}

/// The acts of a redirection, reported as the redirection's.
pub fn redirection(effect: Effect, word: &Word, span: Range<usize>, st: &mut State) {
    let act = Act {
        effect,
        target: Target::Word(word.clone()),
        tree: false,
        quiet: false,
    };
    report("the redirection", false, vec![act], span, st);
}

/// Line state: paths that hold what another place held, and files fetched on the line.
#[derive(Debug, Clone, Default)]
pub struct Carried {
    /// A destination (a path, or a pattern a variable named) → the paths it could hold the
    /// contents of, and how they got there.
    aliases: Vec<(Path, Rc<Vec<Path>>, Carry)>,
    /// Sources remembered, over all destinations.
    sources: usize,
    /// More were carried than are remembered: any path may hold what they put there.
    overflowed: bool,
    downloads: Vec<String>,
}

/// How a destination came to hold what a source held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carry {
    /// Moved or linked: the destination is the source, and what is done to it is done to the
    /// source.
    Same,
    /// Copied: the destination holds the source's contents, so reading or sending it reads
    /// or sends them; deleting or changing the copy leaves the source as it was.
    Copy,
}

/// How many sources of moves, copies and links a line is followed through, in all; and
/// how many downloads.
const MAX_CARRIED: usize = 64;

impl Carried {
    /// Remembers that `dest` may hold what `sources` held. The same destination again adds
    /// the sources it did not have yet, so a line that repeats a move costs nothing more.
    /// Past [`MAX_CARRIED`] sources nothing more is remembered, and every path is taken to
    /// hold something unknown ([`Carried::overflowed`]).
    pub fn alias(&mut self, dest: Path, sources: Vec<Path>, how: Carry) {
        let index = self
            .aliases
            .iter()
            .position(|(d, _, h)| *d == dest && *h == how);
        let known: &[Path] = index.map_or(&[], |i| &self.aliases[i].1);
        let fresh: Vec<Path> = sources.into_iter().filter(|s| !known.contains(s)).collect();
        if fresh.is_empty() {
            return;
        }
        if self.sources + fresh.len() > MAX_CARRIED {
            self.overflowed = true;
            return;
        }
        self.sources += fresh.len();
        match index {
            Some(i) => Rc::make_mut(&mut self.aliases[i].1).extend(fresh),
            None => self.aliases.push((dest, Rc::new(fresh), how)),
        }
    }

    /// More moves, copies and links than are followed were made on the line.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    pub fn download(&mut self, dest: String) {
        if self.downloads.len() < MAX_CARRIED {
            self.downloads.push(dest);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.aliases.is_empty() && !self.overflowed
    }

    pub fn downloaded(&self, text: &str) -> bool {
        self.downloads.iter().any(|d| d == text)
    }

    /// The sources a path may stand for: for each remembered destination at or above it (the
    /// same components, patterns compared as written), the source with the rest appended.
    /// What `path` leads to when it is exactly a destination moved or linked on the line.
    pub fn links(&self, path: &Path) -> Vec<Path> {
        self.aliases
            .iter()
            .filter(|(dest, _, how)| *how == Carry::Same && dest == path)
            .flat_map(|(_, sources, _)| sources.iter().cloned())
            .collect()
    }

    /// Copies count only when `copies`: for what reads the contents.
    pub fn sources(&self, path: &Path, copies: bool) -> Vec<Path> {
        let mut out = Vec::new();
        for (dest, sources, how) in &self.aliases {
            if (*how == Carry::Copy && !copies)
                || dest.anchor != path.anchor
                || !path.comps.starts_with(&dest.comps)
            {
                continue;
            }
            let rest = &path.comps[dest.comps.len()..];
            for source in sources.iter() {
                let mut mapped = source.clone();
                mapped.comps.extend(rest.iter().cloned());
                out.push(mapped);
            }
        }
        out
    }
}
