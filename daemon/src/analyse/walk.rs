//! The tree walk: from a parsed text to every simple command and redirection in it.
//!
//! The walk uses an explicit stack, never recursion: `a && b && …` nests one node per
//! operator, and a recursive walker overflowed a 2 MiB thread stack at 16,384 of them.
//! Constructs that nest commands (subshells, groups, substitutions, compound commands,
//! functions) count towards [`MAX_DEPTH`](super::MAX_DEPTH); past it the walk reports
//! `opaque.too_deep` and does not descend. What a command or redirection *means* is
//! `command` and `rules`' business, not this module's.

use std::rc::Rc;

use tree_sitter::Node;

use super::catalogue;
use super::command::{self, Cmd};
use super::rules;
use super::words::{self, text};
use super::{MAX_DEPTH, Source, State, join_path};

/// One node waiting to be visited.
struct Item<'t> {
    node: Node<'t>,
    path: Rc<str>,
    depth: u32,
    /// Standard input comes from a pipe (a pipeline stage after the first).
    piped: bool,
}

/// Node kinds that cannot contain a command: not worth a trip through the stack.
const LEAVES: &[&str] = &[
    "word",
    "raw_string",
    "number",
    "ansi_c_string",
    "comment",
    "variable_name",
    "string_content",
    "heredoc_content",
    "heredoc_start",
    "heredoc_end",
    "special_variable_name",
    "test_operator",
    "file_descriptor",
    "regex",
    "extglob_pattern",
];

/// Parses one source and walks it, adding commands and findings to `st`.
pub fn walk(src: &Source, st: &mut State) {
    let Some(tree) = super::parse(&src.text) else {
        let span = src.map.span(0..src.text.len());
        st.add(catalogue::OPAQUE_PARSE_ERROR.at(span, "the parser gave up"));
        return;
    };
    let root = tree.root_node();
    if root.has_error()
        && let Some(bad) = first_error(root, &src.text)
    {
        let near: String = text(bad, &src.text).chars().take(24).collect();
        let detail = if bad.is_missing() {
            format!("missing `{}`", bad.kind())
        } else if near.trim().is_empty() {
            "unexpected end".to_owned()
        } else {
            format!("near `{}`", near.trim())
        };
        let end = bad.end_byte().max(bad.start_byte() + 1).min(src.text.len());
        let start = bad.start_byte().min(end);
        st.add(catalogue::OPAQUE_PARSE_ERROR.at(src.map.span(start..end), &detail));
    }
    let mut stack = vec![Item {
        node: root,
        path: Rc::clone(&src.path),
        depth: src.depth,
        piped: false,
    }];
    while let Some(item) = stack.pop() {
        visit(item, src, st, &mut stack);
    }
}

/// The first ERROR or MISSING node, in source order. tree-sitter-bash does not know the
/// read-write redirection `<>` and parses it as `<` plus an error; that one is not an error.
fn first_error<'t>(root: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_missing() {
            return Some(node);
        }
        if node.is_error() {
            return Some(node);
        }
        if !node.has_error() {
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate().rev() {
            let prev = i.checked_sub(1).and_then(|p| children.get(p));
            if node.kind() == "file_redirect"
                && prev.is_some_and(|p| is_read_write(*p, *child, src))
            {
                continue;
            }
            stack.push(*child);
        }
    }
    None
}

/// `<` directly followed by an error holding only `>`: the `<>` operator.
fn is_read_write(prev: Node, node: Node, src: &str) -> bool {
    prev.kind() == "<"
        && node.is_error()
        && prev.end_byte() == node.start_byte()
        && text(node, src) == ">"
}

fn visit<'t>(item: Item<'t>, src: &Source, st: &mut State, stack: &mut Vec<Item<'t>>) {
    let node = item.node;
    match node.kind() {
        "command" => command_node(&item, src, st, stack),
        "file_redirect" => {
            redirect_node(node, src, st);
            push_children(&item, stack);
        }
        "program" | "list" | "do_group" => {
            let stmts = named(node);
            push_sequence(stack, stmts, &item.path, item.depth);
        }
        "pipeline" => {
            let stages = named(node);
            for (i, stage) in stages.into_iter().enumerate().rev() {
                let path = join_path(&item.path, &format!("pipeline[{i}]"));
                stack.push(Item {
                    node: stage,
                    path,
                    depth: item.depth,
                    piped: i > 0,
                });
            }
        }
        "redirected_statement" | "negated_command" => {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            for child in children.into_iter().rev() {
                let piped = item.piped && child.kind() != "file_redirect";
                stack.push(Item {
                    node: child,
                    path: Rc::clone(&item.path),
                    depth: item.depth,
                    piped,
                });
            }
        }
        "subshell" => nested(&item, "subshell", named(node), src, st, stack),
        "compound_statement" => nested(&item, "group", named(node), src, st, stack),
        "else_clause" => nested(&item, "else", named(node), src, st, stack),
        "elif_clause" => nested(&item, "elif", named(node), src, st, stack),
        "command_substitution" => {
            let seg = if text(node, &src.text).starts_with('`') {
                "`…`"
            } else {
                "$(…)"
            };
            nested(&item, seg, named(node), src, st, stack);
        }
        "process_substitution" => {
            let seg = if text(node, &src.text).starts_with('>') {
                ">(…)"
            } else {
                "<(…)"
            };
            nested(&item, seg, named(node), src, st, stack);
        }
        "function_definition" => {
            let name = node
                .child_by_field_name("name")
                .map_or("", |n| text(n, &src.text));
            let body = node.child_by_field_name("body");
            let stmts = match body {
                Some(b) if b.kind() == "compound_statement" => named(b),
                Some(b) => vec![b],
                None => Vec::new(),
            };
            nested(&item, &format!("function {name}"), stmts, src, st, stack);
        }
        "if_statement" => {
            let (cond, rest) = split_field(node, "condition");
            let (clauses, then): (Vec<Node>, Vec<Node>) = rest
                .into_iter()
                .partition(|n| matches!(n.kind(), "elif_clause" | "else_clause"));
            for clause in clauses.into_iter().rev() {
                stack.push(Item {
                    node: clause,
                    path: Rc::clone(&item.path),
                    depth: item.depth,
                    piped: false,
                });
            }
            nested(&item, "then", then, src, st, stack);
            nested(&item, "if", cond, src, st, stack);
        }
        "while_statement" => {
            let seg = if text(node, &src.text).starts_with("until") {
                "until"
            } else {
                "while"
            };
            let (cond, body) = split_field(node, "condition");
            nested(&item, "do", body, src, st, stack);
            nested(&item, seg, cond, src, st, stack);
        }
        "for_statement" | "c_style_for_statement" => {
            let (body, head) = split_field(node, "body");
            nested(&item, "for", body, src, st, stack);
            push_all(&item, head, stack);
        }
        "case_statement" => nested(&item, "case", named(node), src, st, stack),
        "case_item" => {
            let (patterns, stmts) = split_field(node, "value");
            push_sequence(stack, stmts, &item.path, item.depth);
            push_all(&item, patterns, stack);
        }
        kind if LEAVES.contains(&kind) => {}
        _ => push_children(&item, stack),
    }
}

/// A construct that nests commands: one more level, and a path segment.
fn nested<'t>(
    item: &Item<'t>,
    segment: &str,
    stmts: Vec<Node<'t>>,
    src: &Source,
    st: &mut State,
    stack: &mut Vec<Item<'t>>,
) {
    if stmts.is_empty() {
        return;
    }
    let depth = item.depth + 1;
    if depth > MAX_DEPTH {
        st.too_deep(src.map.span(item.node.byte_range()));
        return;
    }
    let path = join_path(&item.path, segment);
    push_sequence(stack, stmts, &path, depth);
}

/// Statements in order; `a && b || c` flattens into the same `list[i]` numbering as `a; b`.
fn push_sequence<'t>(stack: &mut Vec<Item<'t>>, stmts: Vec<Node<'t>>, path: &Rc<str>, depth: u32) {
    let mut flat = Vec::with_capacity(stmts.len());
    // Lists nest leftwards, one node per operator: flatten with a stack of our own.
    let mut pending: Vec<Node<'t>> = stmts.into_iter().rev().collect();
    while let Some(n) = pending.pop() {
        if n.kind() == "list" {
            pending.extend(named(n).into_iter().rev());
        } else if n.kind() != "comment" {
            flat.push(n);
        }
    }
    let many = flat.len() > 1;
    for (i, node) in flat.into_iter().enumerate().rev() {
        let path = if many {
            join_path(path, &format!("list[{i}]"))
        } else {
            Rc::clone(path)
        };
        stack.push(Item {
            node,
            path,
            depth,
            piped: false,
        });
    }
}

fn push_all<'t>(item: &Item<'t>, nodes: Vec<Node<'t>>, stack: &mut Vec<Item<'t>>) {
    for node in nodes.into_iter().rev() {
        if !LEAVES.contains(&node.kind()) {
            stack.push(Item {
                node,
                path: Rc::clone(&item.path),
                depth: item.depth,
                piped: false,
            });
        }
    }
}

fn push_children<'t>(item: &Item<'t>, stack: &mut Vec<Item<'t>>) {
    push_all(item, named(item.node), stack);
}

fn named(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Named children with field `field`, and the other named children.
fn split_field<'t>(node: Node<'t>, field: &str) -> (Vec<Node<'t>>, Vec<Node<'t>>) {
    let mut with = Vec::new();
    let mut without = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if child.is_named() {
                if cursor.field_name() == Some(field) {
                    with.push(child);
                } else {
                    without.push(child);
                }
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    (with, without)
}

/// Resolves a command's words, queues what may hide more commands (substitutions in words,
/// assignments, redirections), and hands the words to `command`.
fn command_node<'t>(item: &Item<'t>, src: &Source, st: &mut State, stack: &mut Vec<Item<'t>>) {
    let node = item.node;
    let mut words = Vec::new();
    let mut nested = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            match cursor.field_name() {
                Some("name") => {
                    let inner = child.named_child(0).unwrap_or(child);
                    words.push(words::resolve(inner, &src.text));
                    nested.push(inner);
                }
                Some("argument") => {
                    words.push(words::resolve(child, &src.text));
                    nested.push(child);
                }
                _ if child.is_named() => nested.push(child),
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    push_all(item, nested, stack);
    if !words.is_empty() {
        let cmd = Cmd {
            words,
            span: node.byte_range(),
            path: Rc::clone(&item.path),
            piped: item.piped,
            depth: item.depth,
        };
        command::analyse(&cmd, src, st);
    }
}

/// Reads a redirection's operator and target and hands them to `rules::redirect`.
fn redirect_node(node: Node, src: &Source, st: &mut State) {
    let mut op = String::new();
    let mut dest = None;
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if cursor.field_name() == Some("destination") {
                // `> a b` is not valid bash, but take the first target if the grammar allows it.
                dest.get_or_insert(child);
            } else if !child.is_named() {
                op.push_str(child.kind());
            } else if child.is_error() && dest.is_none() {
                // `<>` arrives as `<` plus an error holding `>`.
                op.push_str(text(child, &src.text).trim());
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    if let Some(dest) = dest {
        let word = words::resolve(dest, &src.text);
        let span = src.map.span(node.byte_range());
        rules::redirect(&op, &word, span, st);
    }
}
