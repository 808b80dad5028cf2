//! The models the index names: what a program's arguments do, for programs a [`Spec`] does not
//! describe. Each model reads the words after the program's name (already sorted by the
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

use super::act::Site;
#[cfg(test)]
use super::getopt::Grammar;
use super::index::Spec;
use super::words::Word;

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
