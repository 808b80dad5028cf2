//! The tree walk: from a parsed text to every simple command and redirection in it.
//!
//! The walk uses an explicit stack, never recursion: `a && b && …` nests one node per
//! operator, and a recursive walker overflowed a 2 MiB thread stack at 16,384 of them.
//! Constructs that nest commands (subshells, groups, substitutions, compound commands,
//! functions) count towards [`MAX_DEPTH`](super::MAX_DEPTH); past it the walk reports
//! `opaque.too_deep` and does not descend. Subshells, pipeline stages and substitutions run
//! in a copy of the shell: a `Restore` step on the stack undoes their `cd` and assignments
//! when they end. Each command learns where its standard input comes from. What a command or
//! redirection *means* is `command` and `rules`' business, not this module's.

use std::rc::Rc;

use tree_sitter::Node;

use super::act;
use super::catalogue;
use super::command::{self, Cmd};
use super::effects::Effect;
use super::exhaust;
use super::flow;
use super::recurse::Stdin;
use super::scope;
use super::words::{self, text};
use super::{MAX_DEPTH, Shell, Source, Start, State, field, join_indexed, join_path, kind};

mod redirects;

use redirects::{here_string, redirected};

/// One node waiting to be visited.
struct Item<'t> {
    node: Node<'t>,
    path: Rc<str>,
    depth: u32,
    stdin: Stdin,
    /// Words the grammar hangs elsewhere (`sh <<EOF -x`: `-x` sits in the heredoc).
    extra: Vec<Node<'t>>,
}

enum Step<'t> {
    Visit(Item<'t>),
    /// A subshell or pipeline stage ended: the shell goes back to this.
    Restore(Shell),
    /// A pipeline whose stages start from the shell as it is when this step is reached
    /// (after statements the grammar hung inside it, which run first).
    Pipeline(Item<'t>, Vec<Node<'t>>),
}

type Stack<'t> = Vec<Step<'t>>;

fn item<'t>(node: Node<'t>, path: Rc<str>, depth: u32, stdin: Stdin) -> Step<'t> {
    Step::Visit(Item {
        node,
        path,
        depth,
        stdin,
        extra: Vec::new(),
    })
}

/// Node kinds that cannot contain a command: not worth a trip through the stack.
fn is_leaf(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "raw_string"
            | "number"
            | "ansi_c_string"
            | "comment"
            | "variable_name"
            | "string_content"
            | "heredoc_content"
            | "heredoc_start"
            | "heredoc_end"
            | "special_variable_name"
            | "test_operator"
            | "file_descriptor"
            | "regex"
            | "extglob_pattern"
    )
}

/// Parses one source and walks it, adding commands and findings to `st`.
pub fn walk(mut src: Source, st: &mut State) {
    let mut stdin = Stdin::Inherited;
    st.shell = match &src.shell {
        Start::Fresh(shell) => shell.clone(),
        Start::Continue { .. } => st.chain.clone(),
        Start::Stage { first_stage: 0 } => {
            st.stage_base = st.chain.clone();
            st.chain.clone()
        }
        Start::Stage { .. } => {
            let printed = st.stage_printed.take();
            stdin = match st.stage_exact.take() {
                Some(text) => Stdin::Text {
                    text,
                    base: None,
                    span: 0..0,
                    dynamic: false,
                    secret: None,
                },
                None => Stdin::Pipe(printed),
            };
            st.stage_base.clone()
        }
    };
    let Some(mut tree) = st.parse(&src.text) else {
        let span = src.map.span(0..src.text.len());
        let why = if st.out_of_parse_time() {
            "parsing it took longer than the line's time allows"
        } else {
            "the parser gave up"
        };
        st.add(catalogue::OPAQUE_PARSE_ERROR.at(span, why));
        return;
    };
    // tree-sitter-bash sometimes runs a simple command on across a newline (after a pipeline
    // of two stages or more: `a | b | c⏎d > f` comes as `c d > f`; before a line that starts
    // with a backslash: `cd src⏎\rm -rf ~` comes as `cd 'src⏎rm' -rf ~`, the newline inside
    // a word). Bash never does: such a newline ends the command, as `;` would. It is written
    // as `;` (same length, so spans hold) and the text parsed again.
    for _ in 0..4 {
        let glued = glued_newlines(&tree, &src.text);
        if glued.is_empty() {
            break;
        }
        let mut bytes = std::mem::take(&mut src.text).into_bytes();
        for at in glued {
            if let Some(b) = bytes.get_mut(at) {
                *b = b';';
            }
        }
        // An ASCII byte for an ASCII byte: still UTF-8.
        src.text = String::from_utf8(bytes).unwrap_or_default();
        match st.parse(&src.text) {
            Some(again) => tree = again,
            None => break,
        }
    }
    exhaust::runs_itself(tree.root_node(), &src, st);
    walk_tree(&tree, &src, stdin, st);
    match &src.shell {
        Start::Fresh(_) => {}
        Start::Continue { .. } => st.chain = st.shell.clone(),
        // A stage runs in a subshell: the line goes on from the shell before the pipeline.
        Start::Stage { .. } => st.chain = st.stage_base.clone(),
    }
}

/// Newlines that lie between two parts of one simple command in the tree: places where the
/// grammar ran a command on into the next line.
fn glued_newlines(tree: &tree_sitter::Tree, text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    // A line that starts with a backslash, after blanks: the other way the grammar glues.
    let backslash_led = text
        .split('\n')
        .skip(1)
        .any(|line| line.trim_start_matches([' ', '\t']).starts_with('\\'));
    if !text.contains('\n') || !(text.contains('|') || backslash_led) {
        return out;
    }
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        if matches!(
            kind(node),
            "command" | "declaration_command" | "unset_command"
        ) {
            for pair in children.windows(2) {
                // The newline that ends a comment is no separator to add: `;` would join
                // the next line to the comment.
                if kind(pair[0]) == "comment" {
                    continue;
                }
                let gap = pair[0].end_byte()..pair[1].start_byte();
                if let Some(between) = text.get(gap.clone()) {
                    out.extend(between.match_indices('\n').map(|(i, _)| gap.start + i));
                }
            }
        }
        // A plain word holds no newline but one a backslash escapes (`\⏎`, a line continued):
        // any other is the end of the command, glued into the word.
        for word in children.iter().filter(|c| kind(**c) == "word") {
            let range = word.start_byte()..word.end_byte();
            let Some(inside) = text.get(range.clone()) else {
                continue;
            };
            let bytes = inside.as_bytes();
            out.extend(
                inside
                    .match_indices('\n')
                    .map(|(i, _)| i)
                    .filter(|&i| i == 0 || bytes[i - 1] != b'\\')
                    .map(|i| range.start + i),
            );
        }
        stack.extend(children.into_iter().filter(|c| c.named_child_count() > 0));
    }
    out
}

fn walk_tree(tree: &tree_sitter::Tree, src: &Source, stdin: Stdin, st: &mut State) {
    let root = tree.root_node();
    if root.has_error()
        && let Some(bad) = first_error(root, &src.text)
    {
        let near: String = text(bad, &src.text).chars().take(24).collect();
        let detail = if bad.is_missing() {
            format!("missing `{}`", kind(bad))
        } else if near.trim().is_empty() {
            "unexpected end".to_owned()
        } else {
            format!("near `{}`", near.trim())
        };
        // At least one character, on character boundaries (an empty error node before `é`
        // must not cut it).
        let mut end = bad.end_byte().max(bad.start_byte() + 1).min(src.text.len());
        while !src.text.is_char_boundary(end) {
            end += 1;
        }
        let mut start = bad.start_byte().min(end);
        while !src.text.is_char_boundary(start) {
            start -= 1;
        }
        st.add(catalogue::OPAQUE_PARSE_ERROR.at(src.map.span(start..end), &detail));
    }
    let mut stack = Vec::new();
    match src.shell {
        Start::Fresh(_) => stack.push(item(root, Rc::clone(&src.path), src.depth, stdin)),
        Start::Continue { first, many } => {
            push_sequence(
                &mut stack,
                named(root),
                &src.path,
                src.depth,
                &stdin,
                first,
                many,
            );
        }
        Start::Stage { first_stage } => {
            let whole = Item {
                node: root,
                path: Rc::clone(&src.path),
                depth: src.depth,
                stdin: Stdin::Inherited,
                extra: Vec::new(),
            };
            let stmts: Vec<Node> = named(root)
                .into_iter()
                .filter(|n| kind(*n) != "comment")
                .collect();
            // What the last of these stages prints goes to the next piece, as text when it
            // is known exactly.
            let last = match stmts.as_slice() {
                [one] if kind(*one) == "pipeline" => named(*one).last().copied(),
                [one] => Some(*one),
                _ => None,
            };
            st.stage_printed = match stmts.as_slice() {
                [one] if kind(*one) == "pipeline" => pipeline(
                    &whole,
                    named(*one),
                    first_stage,
                    stdin,
                    true,
                    src,
                    st,
                    &mut stack,
                ),
                [one] => pipeline(
                    &whole,
                    vec![*one],
                    first_stage,
                    stdin,
                    true,
                    src,
                    st,
                    &mut stack,
                ),
                // Not the shape the cut promised: walk it as it is.
                _ => {
                    stack.push(Step::Visit(Item { stdin, ..whole }));
                    None
                }
            };
            st.stage_exact =
                last.and_then(|l| exact_text(l, st.stage_printed.as_deref(), &src.text));
        }
    }
    while let Some(step) = stack.pop() {
        match step {
            Step::Visit(item) => visit(item, src, st, &mut stack),
            Step::Restore(shell) => st.shell = shell,
            Step::Pipeline(item, stages) => {
                let stdin = item.stdin.clone();
                pipeline(&item, stages, 0, stdin, false, src, st, &mut stack);
            }
        }
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
            if kind(node) == "file_redirect" && prev.is_some_and(|p| is_read_write(*p, *child, src))
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
    kind(prev) == "<"
        && node.is_error()
        && prev.end_byte() == node.start_byte()
        && text(node, src) == ">"
}

fn visit<'t>(item: Item<'t>, src: &Source, st: &mut State, stack: &mut Stack<'t>) {
    let node = item.node;
    match kind(node) {
        "command" => command_node(item, src, st, stack),
        "file_redirect" => {
            redirect_node(node, src, st);
            push_children(&item, stack);
        }
        "program" | "list" | "do_group" => {
            push_sequence(
                stack,
                named(node),
                &item.path,
                item.depth,
                &item.stdin,
                0,
                false,
            );
        }
        "pipeline" => {
            // tree-sitter-bash hangs `&&` and `||` inside a pipeline where bash binds the pipe
            // tighter: `a | b && c` comes as `a | (b && c)`, `a && b | c` as `(a && b) | c`.
            // The list's first (or last) statement is the stage; the rest runs after (or
            // before) the pipeline, in this shell.
            let mut stages = named(node);
            let mut before = Vec::new();
            let mut after = Vec::new();
            if stages.len() > 1 {
                // `a | b | c | d && e` nests as `a | (b | (c | d && e))`: unwind it, each
                // level's list adding to what runs after, innermost first.
                while let Some(last) = stages.last().copied()
                    && kind(last) == "list"
                {
                    let mut items = flatten_list(last);
                    if items.is_empty() {
                        break;
                    }
                    let first = items.remove(0);
                    items.append(&mut after);
                    after = items;
                    stages.pop();
                    if kind(first) == "pipeline" {
                        stages.extend(named(first));
                    } else {
                        stages.push(first);
                        break;
                    }
                }
                if let Some(first) = stages.first().copied() {
                    if kind(first) == "list" {
                        let mut items = flatten_list(first);
                        if let Some(last) = items.pop() {
                            stages[0] = last;
                            before = items;
                        }
                    } else if kind(first) == "redirected_statement"
                        && let Some(body) = first.child_by_field_name("body")
                        && kind(body) == "list"
                    {
                        // `a && b > f | c` comes as `(a && b) > f | c`: `a` runs first, in
                        // this shell; `b` is the stage, and the redirection is read where the
                        // stage starts.
                        let mut items = flatten_list(body);
                        if let Some(last) = items.pop() {
                            stages[0] = last;
                            let (_, redirects) = split_field(first, "body");
                            items.extend(redirects);
                            before = items;
                        }
                    }
                }
            }
            let list_item = |i: usize, n: Node<'t>| {
                self::item(
                    n,
                    join_indexed(&item.path, "list", i),
                    item.depth,
                    item.stdin.clone(),
                )
            };
            let count = before.len();
            for (i, n) in after.into_iter().enumerate().rev() {
                stack.push(list_item(count + 1 + i, n));
            }
            let path = if count > 0 {
                join_indexed(&item.path, "list", count)
            } else {
                Rc::clone(&item.path)
            };
            let piped = Item {
                path,
                ..item_clone(&item)
            };
            if before.is_empty() {
                let stdin = item.stdin.clone();
                pipeline(&piped, stages, 0, stdin, false, src, st, stack);
            } else {
                stack.push(Step::Pipeline(piped, stages));
                for (i, n) in before.into_iter().enumerate().rev() {
                    stack.push(list_item(i, n));
                }
            }
        }
        "redirected_statement" => redirected(item, src, st, stack),
        "negated_command" => {
            for child in named(node).into_iter().rev() {
                stack.push(item_like(&item, child));
            }
        }
        "variable_assignment" => {
            scope::assignment(node, src, st);
            command::assignment_runs(node, &item.path, item.depth, src, st);
            push_children(&item, stack);
        }
        "unset_command" => {
            scope::unset(node, src, st);
            command::declaration_evaluates(node, &item.path, item.depth, src, st);
            push_children(&item, stack);
        }
        "declaration_command" => {
            scope::declaration(node, src, st);
            command::declaration_evaluates(node, &item.path, item.depth, src, st);
            push_children(&item, stack);
        }
        "subshell" => nested(&item, "subshell", named(node), true, src, st, stack),
        "compound_statement" => nested(&item, "group", named(node), false, src, st, stack),
        "else_clause" => nested(&item, "else", named(node), false, src, st, stack),
        "elif_clause" => nested(&item, "elif", named(node), false, src, st, stack),
        "command_substitution" => {
            let seg = if text(node, &src.text).starts_with('`') {
                "`…`"
            } else {
                "$(…)"
            };
            nested(&item, seg, named(node), true, src, st, stack);
        }
        "process_substitution" => {
            let seg = if text(node, &src.text).starts_with('>') {
                ">(…)"
            } else {
                "<(…)"
            };
            nested(&item, seg, named(node), true, src, st, stack);
        }
        "function_definition" => {
            scope::function(node, src, st);
            let name = node
                .child_by_field_name("name")
                .map_or("", |n| text(n, &src.text));
            let body = node.child_by_field_name("body");
            let stmts = match body {
                Some(b) if kind(b) == "compound_statement" => named(b),
                Some(b) => vec![b],
                None => Vec::new(),
            };
            let seg = format!("function {name}");
            nested(&item, &seg, stmts, true, src, st, stack);
        }
        "if_statement" => {
            let (cond, rest) = split_field(node, "condition");
            let (clauses, then): (Vec<Node>, Vec<Node>) = rest
                .into_iter()
                .partition(|n| matches!(kind(*n), "elif_clause" | "else_clause"));
            for clause in clauses.into_iter().rev() {
                stack.push(item_like(&item, clause));
            }
            nested(&item, "then", then, false, src, st, stack);
            nested(&item, "if", cond, false, src, st, stack);
        }
        "while_statement" => {
            let seg = if text(node, &src.text).starts_with("until") {
                "until"
            } else {
                "while"
            };
            exhaust::loop_statement(node, src, st);
            let (cond, body) = split_field(node, "condition");
            nested(&item, "do", body, false, src, st, stack);
            nested(&item, seg, cond, false, src, st, stack);
        }
        "for_statement" | "c_style_for_statement" => {
            scope::loop_variable(node, src, st);
            exhaust::loop_statement(node, src, st);
            let (body, head) = split_field(node, "body");
            nested(&item, "for", body, false, src, st, stack);
            push_all(&item, head, stack);
        }
        "case_statement" => nested(&item, "case", named(node), false, src, st, stack),
        "case_item" => {
            let (patterns, stmts) = split_field(node, "value");
            push_sequence(stack, stmts, &item.path, item.depth, &item.stdin, 0, false);
            push_all(&item, patterns, stack);
        }
        kind if is_leaf(kind) => {}
        _ => push_children(&item, stack),
    }
}

/// The text a pipeline stage prints, when it is `echo` or `printf` of literal text whose
/// output the analyser knows exactly (no escapes it does not read: `echo -e`, `%b`).
fn exact_text(stage: Node, printed: Option<&words::Alts>, src: &str) -> Option<String> {
    if kind(stage) != "command" {
        return None;
    }
    let name = stage.child_by_field_name("name")?;
    let raw = stage.utf8_text(src.as_bytes()).ok()?;
    let exact = match text(name, src) {
        "echo" => {
            !raw.contains('\\')
                && !raw.contains(" -e")
                && !raw.contains(" -ne")
                && !raw.contains(" -en")
        }
        "printf" => {
            let escapes = raw
                .match_indices('\\')
                .all(|(at, _)| matches!(raw.get(at + 1..at + 2), Some("n" | "t")));
            escapes && !raw.contains("%b") && !raw.contains("%q") && !raw.contains(" -v")
        }
        _ => false,
    };
    if !exact {
        return None;
    }
    match printed?.as_slice() {
        [alt] => alt
            .iter()
            .map(|p| match p {
                crate::places::Piece::Lit(t) => Some(t.as_str()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn item_like<'t>(item: &Item<'t>, node: Node<'t>) -> Step<'t> {
    self::item(node, Rc::clone(&item.path), item.depth, item.stdin.clone())
}

/// Pipeline stages from `first_index` on: each runs in a subshell of its own, reading the
/// stage before it (the first reads `first_stdin`), and knowing what that prints when the
/// line says it. Returns what the last stage prints, when known.
#[allow(clippy::too_many_arguments)]
fn pipeline<'t>(
    item: &Item<'t>,
    stages: Vec<Node<'t>>,
    first_index: usize,
    first_stdin: Stdin,
    want_last: bool,
    src: &Source,
    st: &State,
    stack: &mut Stack<'t>,
) -> Option<Rc<words::Alts>> {
    let env = st.env();
    let mut input = match &first_stdin {
        Stdin::Pipe(Some(alts)) => Some(alts.as_ref().clone()),
        _ => None,
    };
    // What a stage prints matters only to a later stage that may take it as words or code
    // (`xargs`, a shell) or send it (`nc`, `curl`: a secret it carries leaks), or to the
    // next piece of a pipeline cut in pieces.
    let needed = want_last || stages.iter().skip(1).any(|s| flow::may_send(*s, &src.text));
    let printed: Vec<Option<std::rc::Rc<words::Alts>>> = stages
        .iter()
        .map(|s| {
            if !needed {
                return None;
            }
            input = flow::stage_output(*s, &src.text, &env, input.take());
            input.clone().map(std::rc::Rc::new)
        })
        .collect();
    // `echo 'ls -la' | bash`: a stage that prints exactly known text feeds it to the next
    // as a here-string would.
    let exact: Vec<Option<String>> = stages
        .iter()
        .zip(&printed)
        .map(|(s, p)| exact_text(*s, p.as_deref(), &src.text))
        .collect();
    for (i, stage) in stages.into_iter().enumerate().rev() {
        stack.push(Step::Restore(st.shell.clone()));
        let stdin = match i.checked_sub(1) {
            None => first_stdin.clone(),
            Some(b) => match &exact[b] {
                // An empty span: the text is shown at the command that reads it.
                Some(text) => Stdin::Text {
                    text: text.clone(),
                    base: None,
                    span: 0..0,
                    dynamic: false,
                    secret: None,
                },
                None => Stdin::Pipe(printed[b].clone()),
            },
        };
        let path = join_indexed(&item.path, "pipeline", i + first_index);
        stack.push(self::item(stage, path, item.depth, stdin));
    }
    printed.last().cloned().flatten()
}

/// A construct that nests commands: one more level, and a path segment. A `scoped` one runs
/// in a copy of the shell.
fn nested<'t>(
    item: &Item<'t>,
    segment: &str,
    stmts: Vec<Node<'t>>,
    scoped: bool,
    src: &Source,
    st: &mut State,
    stack: &mut Stack<'t>,
) {
    if stmts.is_empty() {
        return;
    }
    let depth = item.depth + 1;
    if depth > MAX_DEPTH {
        st.too_deep(src.map.span(item.node.byte_range()));
        return;
    }
    if scoped {
        stack.push(Step::Restore(st.shell.clone()));
    }
    let path = join_path(&item.path, segment);
    push_sequence(stack, stmts, &path, depth, &item.stdin, 0, false);
}

/// Statements in order; `a && b || c` flattens into the same `list[i]` numbering as `a; b`.
/// The statements of a `list` node in order: tree-sitter-bash nests lists leftwards, one
/// node per operator.
fn flatten_list(list: Node) -> Vec<Node> {
    let mut flat = Vec::new();
    let mut pending = vec![list];
    while let Some(n) = pending.pop() {
        if kind(n) == "list" {
            pending.extend(named(n).into_iter().rev());
        } else if kind(n) != "comment" {
            flat.push(n);
        }
    }
    flat
}

fn item_clone<'t>(item: &Item<'t>) -> Item<'t> {
    Item {
        node: item.node,
        path: Rc::clone(&item.path),
        depth: item.depth,
        stdin: item.stdin.clone(),
        extra: item.extra.clone(),
    }
}

fn push_sequence<'t>(
    stack: &mut Stack<'t>,
    stmts: Vec<Node<'t>>,
    path: &Rc<str>,
    depth: u32,
    stdin: &Stdin,
    first: usize,
    many: bool,
) {
    let mut flat = Vec::with_capacity(stmts.len());
    // Lists nest leftwards, one node per operator: flatten with a stack of our own.
    let mut pending: Vec<Node<'t>> = stmts.into_iter().rev().collect();
    while let Some(n) = pending.pop() {
        if kind(n) == "list" {
            pending.extend(named(n).into_iter().rev());
        } else if kind(n) != "comment" {
            flat.push(n);
        }
    }
    let many = many || flat.len() > 1;
    for (i, node) in flat.into_iter().enumerate().rev() {
        let path = if many {
            join_indexed(path, "list", first + i)
        } else {
            Rc::clone(path)
        };
        stack.push(item(node, path, depth, stdin.clone()));
    }
}

fn push_all<'t>(item: &Item<'t>, nodes: Vec<Node<'t>>, stack: &mut Stack<'t>) {
    for node in nodes.into_iter().rev() {
        if !is_leaf(kind(node)) {
            stack.push(self::item(
                node,
                Rc::clone(&item.path),
                item.depth,
                Stdin::Inherited,
            ));
        }
    }
}

/// [`push_all`] of the node's named children, read straight off the tree.
fn push_children<'t>(item: &Item<'t>, stack: &mut Stack<'t>) {
    let first = stack.len();
    let mut cursor = item.node.walk();
    for node in item.node.named_children(&mut cursor) {
        if !is_leaf(kind(node)) {
            stack.push(self::item(
                node,
                Rc::clone(&item.path),
                item.depth,
                Stdin::Inherited,
            ));
        }
    }
    // The stack pops the last first: reverse to visit in source order.
    stack[first..].reverse();
}

fn named(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Named children with field `name`, and the other named children.
fn split_field<'t>(node: Node<'t>, name: &str) -> (Vec<Node<'t>>, Vec<Node<'t>>) {
    let mut with = Vec::new();
    let mut without = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if child.is_named() {
                if field(&cursor) == Some(name) {
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
fn command_node<'t>(item: Item<'t>, src: &Source, st: &mut State, stack: &mut Stack<'t>) {
    let node = item.node;
    // Sized once: most children are words, and most words are worth walking into.
    let children = usize::try_from(node.child_count()).unwrap_or(0) + item.extra.len();
    let mut words = Vec::with_capacity(children);
    let mut nested = Vec::with_capacity(children);
    let mut assigned = Vec::new();
    let mut named_env = Vec::new();
    let mut stdin = item.stdin.clone();
    let env = st.env();
    // Word nodes in a row, to be read as one word when they touch.
    let mut run: Vec<Node> = Vec::new();
    let text = src.text.as_str();
    fn flush<'s>(
        run: &mut Vec<Node>,
        text: &'s str,
        env: &words::Env,
        out: &mut Vec<words::Word<'s>>,
    ) {
        if !run.is_empty() {
            words::fields_of(run, text, env, out);
            run.clear();
        }
    }
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            let word_node = match field(&cursor) {
                Some("name") => Some(child.named_child(0).unwrap_or(child)),
                Some("argument") => Some(child),
                _ => None,
            };
            if let Some(w) = word_node {
                if run.last().is_some_and(|l| l.end_byte() != w.start_byte()) {
                    flush(&mut run, text, &env, &mut words);
                }
                run.push(w);
                nested.push(w);
            } else {
                flush(&mut run, text, &env, &mut words);
            }
            match field(&cursor) {
                Some("name") | Some("argument") => {}
                _ if kind(child) == "herestring_redirect" => {
                    if let Some(s) = here_string(child, src, &env) {
                        stdin = s;
                    }
                    nested.push(child);
                }
                // A prefix assignment (`FOO=1 cmd`) is for this command only: walk its value
                // for substitutions, and hand the value to the command, not to the shell.
                _ if kind(child) == "variable_assignment" => {
                    let name = child
                        .child_by_field_name("name")
                        .map(|n| words::text(n, text).to_owned());
                    let value: Vec<Node> = named(child).into_iter().skip(1).collect();
                    // `PATH= cmd`: an empty value is handed to the command too.
                    if value.is_empty()
                        && let Some(name) = &name
                    {
                        let end = child.end_byte();
                        named_env
                            .push((name.clone(), words::Word::made(String::new(), "", end..end)));
                    }
                    for v in value {
                        let word = words::resolve(v, text, &env);
                        if let Some(name) = &name {
                            named_env.push((name.clone(), word.clone()));
                        }
                        assigned.push(word);
                        nested.push(v);
                    }
                }
                _ if child.is_named() => nested.push(child),
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    flush(&mut run, text, &env, &mut words);
    for extra in &item.extra {
        words::fields(*extra, &src.text, &env, &mut words);
        nested.push(*extra);
    }
    push_all(&item, nested, stack);
    if !words.is_empty() {
        let end = item
            .extra
            .last()
            .map_or(node.end_byte(), |e| e.end_byte().max(node.end_byte()));
        let cmd = Cmd {
            words,
            assigned,
            env: named_env,
            span: node.start_byte()..end,
            path: Rc::clone(&item.path),
            stdin,
            depth: item.depth,
        };
        command::analyse(cmd, src, st);
    }
}

/// Reads a redirection's operator and target: what it does to the place the target names.
fn redirect_node(node: Node, src: &Source, st: &mut State) {
    let mut op = String::new();
    let mut dest = None;
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            if field(&cursor) == Some("destination") {
                // `> a b` is not valid bash, but take the first target if the grammar allows it.
                dest.get_or_insert(child);
            } else if !child.is_named() {
                op.push_str(kind(child));
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
        let word = words::resolve(dest, &src.text, &st.env());
        let span = src.map.span(node.byte_range());
        for effect in redirect_effects(&op, &word) {
            act::redirection(*effect, &word, span.clone(), st);
        }
    }
}

/// What a redirection operator does to its target. Overwriting (`>`, `>|`, `&>`, `<>`)
/// replaces what the file held, appending (`>>`, `&>>`) adds to it, `<` reads it; `>&2` and
/// `<&-` only duplicate or close descriptors.
fn redirect_effects(op: &str, dest: &words::Word) -> &'static [Effect] {
    match op {
        ">" | ">|" | "&>" => &[Effect::Overwrite],
        "<>" => &[Effect::Read, Effect::Overwrite],
        ">>" | "&>>" => &[Effect::Write],
        "<" => &[Effect::Read],
        ">&" | "<&" | "&>&" => {
            if dest.text == "-" || dest.text.bytes().all(|b| b.is_ascii_digit()) {
                &[]
            } else if op == "<&" {
                &[Effect::Read]
            } else {
                &[Effect::Overwrite]
            }
        }
        _ => &[Effect::Write],
    }
}
