//! The parsers and the shell grammar's names: one tree-sitter parser per grammar and thread,
//! node kind and field names read once from tree-sitter-bash, and the trees one request
//! parsed ([`Parsed`]).
//!
//! `Node::kind` and `TreeCursor::field_name` look the name up in the grammar and check its
//! UTF-8 on every call; the walk asks for a kind several times per node, and on a dense line
//! that was a tenth of our share of the time. The tables here answer the same names by id.
//! This module must not interpret the tree: that is `walk`'s job.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::OnceLock;
use std::time::Instant;

use tree_sitter::{Language, Node, TreeCursor};

thread_local! {
    /// One parser per grammar and thread: building one costs more than parsing a short line.
    static PARSERS: RefCell<[Option<tree_sitter::Parser>; GRAMMARS]> =
        const { RefCell::new([const { None }; GRAMMARS]) };
}

/// Texts up to this many bytes are parsed without watching the clock.
const CHECKED_FROM: usize = 256;

/// The languages the analyser parses: the shell, and the languages of inline programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    Bash,
    Python,
    JavaScript,
    Ruby,
    /// PHP code without `<?php` tags (`php -r`).
    Php,
    /// A PHP file: text with `<?php … ?>` sections.
    PhpFile,
}

const GRAMMARS: usize = 6;

impl Grammar {
    fn language(self) -> Language {
        match self {
            Grammar::Bash => language().clone(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Grammar::Php => tree_sitter_php::LANGUAGE_PHP_ONLY.into(),
            Grammar::PhpFile => tree_sitter_php::LANGUAGE_PHP.into(),
        }
    }
}

/// Parses shell `text`; see [`parse_in`].
pub(crate) fn parse(text: &str, deadline: Option<Instant>) -> Option<tree_sitter::Tree> {
    parse_in(Grammar::Bash, text, deadline)
}

/// Parses `text` with this thread's parser for `grammar`; `None` if the grammar cannot be
/// loaded, or the parser gives up or is still at work at `deadline` (if any).
/// tree-sitter-bash recovers from some malformed text in time that grows much faster than
/// the text (`` `2>&1 `` repeated to 16 KiB: seconds), and one request must not hold a
/// worker that long.
pub(crate) fn parse_in(
    grammar: Grammar,
    text: &str,
    deadline: Option<Instant>,
) -> Option<tree_sitter::Tree> {
    PARSERS.with(|cell| {
        let mut slots = cell.try_borrow_mut().ok()?;
        let slot = slots.get_mut(grammar as usize)?;
        if slot.is_none() {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&grammar.language()).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        let bytes = text.as_bytes();
        let mut read = |at: usize, _: tree_sitter::Point| bytes.get(at..).unwrap_or(&[]);
        let mut late = |_: &tree_sitter::ParseState| {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        // A short text parses in microseconds whatever it holds: the check is for long ones.
        let options = (text.len() > CHECKED_FROM && deadline.is_some())
            .then(|| tree_sitter::ParseOptions::new().progress_callback(&mut late));
        let tree = parser.parse_with_options(&mut read, None, options);
        if tree.is_none() {
            // A cancelled parse leaves the parser mid-way: start the next one afresh.
            parser.reset();
        }
        tree
    })
}

/// The shell's grammar, loaded once: the names it hands out then live as long as the program.
fn language() -> &'static Language {
    static LANGUAGE: OnceLock<Language> = OnceLock::new();
    LANGUAGE.get_or_init(|| tree_sitter_bash::LANGUAGE.into())
}

/// Kind and field names, indexed by id.
struct Names {
    kinds: Vec<&'static str>,
    fields: Vec<&'static str>,
}

fn names() -> &'static Names {
    static NAMES: OnceLock<Names> = OnceLock::new();
    NAMES.get_or_init(|| {
        let lang = language();
        let kinds = (0..lang.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| lang.node_kind_for_id(id))
                    .unwrap_or("")
            })
            .collect();
        // Field ids start at 1; index 0 stays empty.
        let fields = (0..=lang.field_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| lang.field_name_for_id(id))
                    .unwrap_or("")
            })
            .collect();
        Names { kinds, fields }
    })
}

/// `node.kind()`, without the per-call lookup. Ids outside the table (`ERROR`) ask the node.
pub(crate) fn kind<'t>(node: Node<'t>) -> &'t str {
    match names().kinds.get(usize::from(node.kind_id())) {
        Some(name) if !name.is_empty() => name,
        _ => node.kind(),
    }
}

/// `cursor.field_name()`, without the per-call lookup.
pub(crate) fn field<'t>(cursor: &TreeCursor<'t>) -> Option<&'t str> {
    let id = cursor.field_id()?;
    match names().fields.get(usize::from(id.get())) {
        Some(name) if !name.is_empty() => Some(name),
        _ => cursor.field_name(),
    }
}

/// The shell texts one request parsed, and their trees, for its next round of analysis
/// (`shell_parsed`). The parser is deterministic, so a text's tree is the same each time;
/// one that ran out of time is not kept.
#[derive(Default)]
pub struct Parsed(std::cell::RefCell<std::collections::HashMap<String, tree_sitter::Tree>>);

impl Parsed {
    /// The tree of `text`, if it was parsed before (a copy of a tree shares its nodes).
    pub(super) fn get(&self, text: &str) -> Option<tree_sitter::Tree> {
        self.0.borrow().get(text).cloned()
    }

    /// Keeps the tree of `text`.
    pub(super) fn keep(&self, text: &str, tree: &tree_sitter::Tree) {
        self.0.borrow_mut().insert(text.to_owned(), tree.clone());
    }

    /// How many texts' trees are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.borrow().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables answer what tree-sitter answers, for every node and field of a line that
    /// uses most of the grammar, errors included.
    #[test]
    fn names_match_tree_sitter() {
        let line = "a=1 b <<EOF x | c 2>&1 >> f; if [[ $x == y ]]; then (d \"$(e)\" 'f' $'g'); \
                    elif f; then :; else for i in *; do g <(h) ${i:-j}; done; fi; case $k in \
                    l) m;; esac; function n() { o & }; while p; do q=(r s) t; done; ! u `v` \
                    && w || { x; }; ((y++)); z <<< w; echo ${a[1]} $((1+2)) ) ( ; <> >";
        let tree = parse(line, None).expect("no time limit");
        let mut cursor = tree.walk();
        let mut seen = 0;
        loop {
            let node = cursor.node();
            assert_eq!(kind(node), node.kind(), "kind of {node:?}");
            assert_eq!(field(&cursor), cursor.field_name(), "field of {node:?}");
            seen += 1;
            if cursor.goto_first_child() || cursor.goto_next_sibling() {
                continue;
            }
            let mut done = true;
            while cursor.goto_parent() {
                if cursor.goto_next_sibling() {
                    done = false;
                    break;
                }
            }
            if done {
                break;
            }
        }
        assert!(seen > 200, "walked {seen} nodes");
        assert!(
            tree.root_node().has_error(),
            "the line ends in errors on purpose"
        );
    }
}
