//! The policy's program book: what a user or an administrator says their own programs do
//! (`[[program]]` in the policy file, read by `policy::book`), and the judging of a command
//! by such an entry. (The built-in book, the gate's own, is data in `index/*.toml`, compiled
//! into `index.rs`.) An entry speaks the analyser's vocabulary: effects (`delete`, `publish`)
//! and places (`remote`, `services`), so a finding it gives is a cell of `levels.md` like any
//! other, and a rule about `delete.home` holds whichever book said it.
//!
//! An entry only adds. For a program the built-in book knows (the index, and the programs the
//! judgement of unknown programs knows by name: credential printers, service CLIs, `docker
//! rm`'s kin), the built-in judgement runs as before and the entry's
//! findings are added beside it: a line's level is its highest finding, and a policy rule
//! that lowers must name every finding that needs more, so an added finding can never take
//! anything away (`rm` with `effect = "none"` leaves `rm -rf ~` where it was). Refusing
//! entries for known programs would refuse the useful ones too (a site's `git deploy`
//! alias); judging both and keeping every finding is the one rule that needs no list of
//! what may be raised. Only for a program the gate does not know at all does the entry take
//! the place of the guess made for unknown programs (a service verb such as `nuke` deletes on
//! a service; everything it is given is a place it may do anything with), and only for the
//! subcommands it names: `acmectl nuke build` is then the delete of build output it says,
//! at the level the places give. What is recognised in any program's words (a toolchain
//! removal, a schema reset, a credential printed) stays beside it.
//!
//! This module does no I/O and knows nothing of TOML; it must not decide levels (the
//! findings it gives get theirs from `levels.md` through `act`).

use std::collections::BTreeMap;
use std::ops::Range;

use assent_client::protocol::Level;

use super::Finding;
use super::act::Site;
use super::effects::{self, Effect};
use super::words::Word;
use crate::places::Kind;

/// The id of the note that says which entry of the policy's book judged a command: safe,
/// so it never raises or lowers a line, and shown by `assent explain` with the findings.
pub const BOOK_FINDING: &str = "book.policy";

/// The programs a policy describes, by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Book {
    entries: BTreeMap<String, Entry>,
}

/// One `[[program]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The program's base name (`acmectl`), as a command names it.
    pub name: String,
    /// Where the entry is written, `file:line`, for explanations.
    pub source: String,
    /// What the program does, and its subcommands.
    pub command: Command,
}

/// What a program, or one of its subcommands, does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Command {
    /// The effect on each operand (a place, acted on as a whole with what lies beneath it).
    pub operands: Option<Effect>,
    /// What it does beyond its operands: cells of the level table (`publish.remote`); empty
    /// for `effect = "none"`; `None` when the entry does not say.
    pub effect: Option<Vec<(Effect, Kind)>>,
    /// Options that take a value, and the effect on the value as a place (`None`: the value
    /// is not a place). Options not named take no value.
    pub options: BTreeMap<String, Option<Effect>>,
    /// Subcommands by name: the first operand names one.
    pub subcommands: BTreeMap<String, Command>,
}

impl Book {
    /// Adds an entry; `false` (and nothing added) when one of that name is there already.
    pub fn add(&mut self, entry: Entry) -> bool {
        if self.entries.contains_key(&entry.name) {
            return false;
        }
        self.entries.insert(entry.name.clone(), entry);
        true
    }

    /// The entry for a program's base name.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.get(name)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }
}

impl Entry {
    /// What the entry says, a line per command it describes, for `assentd --check-policy`.
    pub fn explain(&self) -> Vec<String> {
        let mut out = Vec::new();
        if super::index::lookup(&self.name).is_some() {
            out.push(format!(
                "{}: the built-in book knows it; this entry only adds to its judgement",
                self.name
            ));
        }
        explain(&self.name, &self.command, &mut out);
        out
    }
}

fn explain(shown: &str, command: &Command, out: &mut Vec<String>) {
    let mut says = Vec::new();
    if let Some(effect) = command.operands {
        says.push(format!(
            "each operand is a place it {} ({}.*), with what lies beneath it",
            effect.verb(),
            effect.name()
        ));
    }
    match &command.effect {
        Some(cells) if cells.is_empty() => says.push("it changes nothing (safe)".into()),
        Some(cells) => {
            for (effect, place) in cells {
                says.push(format!(
                    "it {} the {} ({}.{}: {})",
                    effect.verb(),
                    place.name(),
                    effect.name(),
                    place.name(),
                    effects::level(*effect, *place).as_str()
                ));
            }
        }
        None => {}
    }
    for (option, effect) in &command.options {
        says.push(match effect {
            Some(effect) => format!("{option} takes a place it {}", effect.verb()),
            None => format!("{option} takes a value that is not a place"),
        });
    }
    if !says.is_empty() {
        out.push(format!("{shown}: {}", says.join("; ")));
    }
    for (name, sub) in &command.subcommands {
        explain(&format!("{shown} {name}"), sub, out);
    }
    if !command.subcommands.is_empty() {
        out.push(format!(
            "{shown} with another subcommand, or none: judged as a program the gate does not know"
        ));
    }
}

/// Judges the words after the program's name by `entry`. Returns whether the entry named what
/// the command does (`false`: a subcommand it does not name, or none given), and says which
/// entry judged it.
pub(super) fn judge<'s>(
    entry: &Entry,
    words: &[Word<'s>],
    site: &mut Site<'_, 's, '_, '_>,
) -> bool {
    let mut shown = entry.name.clone();
    let mut command = &entry.command;
    let mut options: Vec<&BTreeMap<String, Option<Effect>>> = vec![&command.options];
    let mut operands = Vec::new();
    let mut acts: Vec<(Effect, Word<'s>)> = Vec::new();
    let mut ended = false;
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        let text = w.text.as_str();
        if !ended && text == "--" {
            ended = true;
            continue;
        }
        if !ended && text.len() > 1 && text.starts_with('-') && !w.dynamic {
            // `--out FILE`, `-o FILE`, `--out=FILE`, `-oFILE`.
            let find = |key: &str| options.iter().rev().find_map(|o| o.get(key)).copied();
            let joined = match text.split_once('=') {
                Some((key, _)) if key.starts_with("--") => Some((key, key.len() + 1)),
                _ if !text.starts_with("--") && text.is_char_boundary(2) => {
                    text.get(..2).map(|key| (key, 2))
                }
                _ => None,
            };
            let value = match (find(text), joined) {
                (Some(effect), _) => {
                    i += 1;
                    words.get(i - 1).cloned().map(|v| (effect, v))
                }
                (None, Some((key, at))) => find(key).map(|effect| (effect, w.tail(at))),
                (None, None) => None,
            };
            if let Some((Some(effect), value)) = value {
                acts.push((effect, value));
            }
            continue;
        }
        if operands.is_empty() && !command.subcommands.is_empty() {
            let Some(sub) = w.literal().and_then(|t| command.subcommands.get(t)) else {
                return false;
            };
            shown = format!("{shown} {}", w.text);
            command = sub;
            options.push(&command.options);
            continue;
        }
        operands.push(w.clone());
    }
    if !command.subcommands.is_empty() {
        // `acmectl` alone, or only options: no subcommand the entry names.
        return false;
    }
    for (effect, value) in acts {
        site.tree(effect, &value);
    }
    if let Some(effect) = command.operands {
        for w in operands.iter().filter(|w| w.literal() != Some("-")) {
            site.tree(effect, w);
        }
    }
    for (effect, place) in command.effect.iter().flatten() {
        site.place(*effect, *place, format!("`{shown}`"));
    }
    // Beside the built-in judgement of a known program this would only say again what it says.
    if super::index::lookup(site.name).is_none() && !super::programs::unknown::named(site.name) {
        kept_places(words, site);
    }
    let span = site.span.clone();
    site.st.add(note(&shown, &entry.source, span));
    true
}

/// Places no entry may say a program leaves alone: what the gate itself is, what the system
/// or the policy protects, secrets, disks.
const KEPT: &[Kind] = &[
    Kind::Gate,
    Kind::Protected,
    Kind::Secret,
    Kind::System,
    Kind::Root,
    Kind::Device,
];

/// A word handed to the program that names one of the [`KEPT`] places is one it may do
/// anything with, as the guess for an unknown program says, whatever the entry says: an
/// entry describes what a program does, not which places the line hands it (a careless
/// `effect = "none"` on a program that writes its operand would let it write `~/.bashrc`).
fn kept_places<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    for w in words {
        let Some(place) = super::programs::unknown::place_word(w) else {
            continue;
        };
        let placed = site.st.places(&place, true, false);
        if KEPT.iter().any(|k| placed.has(*k)) {
            site.tree(Effect::Use, &place);
        }
    }
}

/// The note naming the entry that judged a command.
fn note(shown: &str, source: &str, span: Range<usize>) -> Finding {
    Finding {
        id: BOOK_FINDING,
        level: Level::Safe,
        message: format!("`{shown}` is judged by the policy's program book ({source})"),
        span,
        cell: None,
    }
}
