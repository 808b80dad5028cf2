//! The vocabulary compiled once: its entries, a key search over their literal parts, and the
//! directories of temp and build output.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use super::beneath::Start;
use super::lies::{BUILD_DIRS, TEMP_DIRS};
use super::vocabulary::{self, RComp, Rule, Says};
use super::{Glob, Kind};

/// The compiled vocabulary.
pub(super) struct Compiled {
    pub(super) rules: Vec<Rule>,
    /// Finds the rules whose key a literal path holds.
    pub(super) keys: AhoCorasick,
    /// For each key, the rules that have it.
    pub(super) by_key: Vec<Vec<usize>>,
    pub(super) temp: Vec<Vec<RComp>>,
    pub(super) build: Vec<Glob>,
    /// Whole-tree entries that name one literal directory from the root, by its text.
    pub(super) tree_literal: std::collections::HashMap<String, usize>,
    /// The other whole-tree entries (a home, `/home/*`).
    pub(super) tree_other: Vec<usize>,
    /// Where each entry starts, by index.
    pub(super) starts: Vec<Start>,
    /// The entries for the null device and its kin (`/dev/null`, `/dev/stdout`).
    pub(super) nulls: Vec<usize>,
    /// What a person is told a place near an entry's is, by index ([`super::said`]).
    pub(super) near: Vec<Near>,
}

/// The words for a place near what an entry names, made once from its `why`.
pub(super) struct Near {
    /// A secret directory's entry (`~*/.ssh/**`): the directory alone, to tell it from a
    /// file in it.
    pub(super) dir: Option<Rule>,
    /// A file in that directory: "in the directory of SSH private keys".
    pub(super) inside: String,
    /// A directory the entry's place may lie beneath: "a directory that may hold the
    /// browser's saved passwords".
    pub(super) above: String,
}

pub(super) fn compiled() -> &'static Compiled {
    static V: OnceLock<Compiled> = OnceLock::new();
    V.get_or_init(|| {
        let rules: Vec<Rule> = vocabulary::ENTRIES
            .iter()
            .map(|(pattern, says, why)| Rule::compile(pattern, *says, why))
            .collect();
        let mut key_texts: Vec<String> = Vec::new();
        let mut by_key: Vec<Vec<usize>> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            match key_texts.iter().position(|k| *k == rule.key) {
                Some(k) => by_key[k].push(i),
                None => {
                    key_texts.push(rule.key.clone());
                    by_key.push(vec![i]);
                }
            }
        }
        let keys =
            AhoCorasick::new(&key_texts).expect("the vocabulary's keys are a few short strings");
        let temp = TEMP_DIRS
            .iter()
            .map(|t| Rule::compile(&format!("{t}/**"), Says::Ordinary, "").comps)
            .collect();
        let build = BUILD_DIRS.iter().map(|b| Glob::literal(b)).collect();
        let mut tree_literal = std::collections::HashMap::new();
        let mut tree_other = Vec::new();
        for (i, (pattern, _, _)) in vocabulary::ENTRIES.iter().enumerate() {
            if !rules[i].tree {
                continue;
            }
            let literal = pattern.starts_with('/') && !pattern.contains(['*', '?', '[']);
            if literal {
                let text = pattern.trim_end_matches('/');
                tree_literal.insert(
                    if text.is_empty() {
                        "/".to_owned()
                    } else {
                        text.to_owned()
                    },
                    i,
                );
            } else {
                tree_other.push(i);
            }
        }
        let starts = vocabulary::ENTRIES
            .iter()
            .map(|(pattern, _, _)| Start::new(pattern))
            .collect();
        let nulls = (0..rules.len())
            .filter(|&i| rules[i].says == Says::Is(Kind::Null) && !rules[i].tree)
            .collect();
        let near = vocabulary::ENTRIES
            .iter()
            .map(|(pattern, says, why)| super::said::near(pattern, *says, why))
            .collect();
        Compiled {
            near,
            nulls,
            rules,
            keys,
            by_key,
            temp,
            build,
            tree_literal,
            tree_other,
            starts,
        }
    })
}
