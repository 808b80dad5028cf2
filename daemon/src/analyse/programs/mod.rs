//! The models the index names: what a program's arguments do, for programs a [`Spec`] does not
//! describe; and what the book says of a program by its name whatever its entry
//! ([`code_taken`], [`by_name`]), so that the dispatcher names no module of it for those. Each model reads the words after the program's name (already sorted by the
//! program's grammar in `site.args`) and tells the [`Site`] which effects land on which words
//! or places; `act` places them and gives the levels. Models never touch the file system.

pub mod archive;
pub mod channel;
pub mod cloud;
pub mod code;
pub mod containers;
pub mod credentials;
pub mod data;
pub mod disk;
pub mod files;
pub mod gate;
pub mod git;
pub mod listen;
pub mod net;
pub mod packages;
pub mod runners;
pub mod search;
pub mod system;
pub mod toolchains;
pub mod unknown;

use std::ops::Range;

use super::State;
use super::act::Site;
use super::catalogue;
use super::effects::Effect;
use super::getopt::Args;
#[cfg(test)]
use super::getopt::Grammar;
use super::index::{self, Spec};
use super::recurse::{Ctx, Job};
use super::words::Word;
use crate::places::Kind;

/// What the book says of a program by its name, whatever its entry or with none, before the
/// entry's role runs: the code it keeps (`trap`, `alias`) or takes (its `[[code]]` row, which
/// may push commands on `jobs`), and the processes a tracer attaches to.
pub fn code_taken<'s>(
    name: &str,
    job: &Job<'s>,
    span: Range<usize>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) {
    code::stored(name, job, at, st);
    system::attach(name, &job.words[1..], span, st);
    code::read(index::code_of(name), name, job, at, st, jobs);
}

/// What a program the dispatcher did not hand on as a wrapper, `eval` or `source` does by its
/// name, whatever its role: stored credentials it prints and a toolchain it removes (when the
/// index `knows` it; the judgement of unknown programs asks both itself), and what listens
/// for connections from elsewhere.
pub fn by_name(name: &str, args: &[Word], knows: bool, span: Range<usize>, st: &mut State) {
    if knows && let Some(what) = unknown::prints_secret(name, args) {
        let mut site = Site::new(name, Args::default(), span.clone(), st);
        site.place(Effect::Read, Kind::Secret, what.to_owned());
        site.report();
    }
    let mut site = Site::new(name, Args::default(), span.clone(), st);
    listen::judge(name, args, &mut site);
    site.report();
    if knows && let Some(shown) = toolchains::removal(name, args) {
        let mut site = Site::new(name, Args::default(), span, st);
        site.say(catalogue::PACKAGES_REMOVE, &shown);
        site.report();
    }
}

/// Judges a command by a declarative spec.
pub fn spec(spec: &Spec, site: &mut Site) {
    let args = &site.args;
    if args.only_help() || args.has(spec.inert) {
        return;
    }
    let mut acts = Vec::new();
    let effect = spec
        .switch
        .iter()
        .find(|(option, _)| args.has(&[option]))
        .map(|(_, e)| *e)
        .or(spec.operands);
    let tree = args.has(spec.tree);
    if let Some(effect) = effect {
        let skip = if args.has(spec.given_by) {
            0
        } else {
            spec.skip
        };
        for w in args.operands.iter().skip(skip) {
            if w.literal() != Some("-") {
                acts.push((effect, (*w).clone(), tree));
            }
        }
    }
    for (option, effect) in spec.values {
        for v in args.values(&[option]) {
            acts.push((*effect, v.clone(), false));
        }
    }
    for (effect, word, tree) in acts {
        if tree {
            site.tree(effect, &word);
        } else {
            site.on(effect, &word);
        }
    }
}

/// At most three words as written, for a message.
pub fn describe(words: &[&Word], none: &str) -> String {
    if words.is_empty() {
        return none.to_owned();
    }
    let mut out = String::new();
    for (i, w) in words.iter().take(3).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('`');
        out.push_str(w.raw);
        out.push('`');
    }
    if words.len() > 3 {
        out.push_str(&format!(" and {} more", words.len() - 3));
    }
    out
}

/// Every grammar a model declares for itself, beside the index's: the property tests of
/// `getopt` read each of them as getopt_long would.
#[cfg(test)]
pub(crate) const GRAMMARS: &[(&str, &Grammar)] = &[
    ("tar", &archive::TAR),
    ("zip", &archive::ZIP),
    ("unzip", &archive::UNZIP),
    ("curl", &net::CURL),
    ("wget", &net::WGET),
    ("rsync", &net::RSYNC),
    ("scp", &net::SCP),
    ("ssh-keygen", &net::KEYGEN),
    ("tmux", &code::TMUX),
    ("parallel", &runners::PARALLEL),
    ("watch", &runners::WATCH),
    ("su", &runners::SU),
    ("http", &cloud::HTTPIE_METHODS.grammar),
    ("gh api", &cloud::GENERIC_METHODS.grammar),
];
