//! What statements change in the shell for the commands after them: variables assigned
//! literal values (`c=rm`, `export X=/`), loop variables, functions defined on the line, and
//! the one function definition that is an attack by itself, the fork bomb.

use tree_sitter::Node;

use std::rc::Rc;

use super::catalogue;
use super::words::{Var, assigned_value, fields, text};
use super::{Source, State, kind};

/// `NAME=value` as a statement (not a command's prefix): records the value, or that it is
/// only known at run time.
pub fn assignment(node: Node, src: &Source, st: &mut State) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let name = text(name, &src.text);
    let value_node = node.child_by_field_name("value");
    // `x+=y` is not a plain value; `a=(x y)` holds each of its words.
    let appends = text(node, &src.text).starts_with(&format!("{name}+="));
    if let Some(decl) = node.parent().filter(|p| kind(*p) == "declaration_command")
        && declares_references(decl, src)
    {
        // `declare -n r=HOME`: `$r` is HOME's value. A target that is no plain name (or an
        // attribute only known at run time) leaves `$r` unknown.
        let target = value_node
            .map(|v| text(v, &src.text))
            .filter(|t| plain_name(t));
        let value = match target {
            Some(target) if !appends => {
                let alts = super::words::var_value(&st.env(), target);
                Var::Pattern(Rc::new(alts))
            }
            _ => Var::Unknown,
        };
        Rc::make_mut(&mut st.shell.namerefs).insert(name.to_owned());
        st.shell.set_var(name, value);
        return;
    }
    if st.shell.namerefs.contains(name) {
        // Assigning a reference assigns (or, unset, names) the variable it refers to.
        st.shell.set_var(name, Var::Unknown);
        return;
    }
    let value = match value_node {
        _ if appends => Var::Unknown,
        Some(v) if kind(v) == "array" => {
            let env = st.env();
            let mut words = Vec::new();
            let mut cursor = v.walk();
            for element in v.named_children(&mut cursor) {
                fields(element, &src.text, &env, &mut words);
            }
            let alts: Vec<_> = words
                .iter()
                .flat_map(|w| w.alternatives().into_owned())
                .collect();
            if alts.is_empty() || alts.len() > MAX_LOOP_VALUES {
                Var::Unknown
            } else {
                Var::Pattern(Rc::new(alts))
            }
        }
        _ => assigned_value(value_node, &src.text, &st.env()),
    };
    st.shell.set_var(name, value);
}

/// `declare -n NAME…` without values (also `typeset`, `local`): references to variables
/// named later; each is unknown until then, and what is assigned to it names another.
pub fn declaration(node: Node, src: &Source, st: &mut State) {
    if !declares_references(node, src) {
        return;
    }
    let mut cursor = node.walk();
    let names: Vec<String> = node
        .named_children(&mut cursor)
        .filter(|n| kind(*n) == "variable_name")
        .map(|n| text(n, &src.text).to_owned())
        .collect();
    for name in names {
        Rc::make_mut(&mut st.shell.namerefs).insert(name.clone());
        st.shell.set_var(&name, Var::Unknown);
    }
}

/// Whether a `declare`, `typeset` or `local` makes its names references (`-n`, also among
/// other flags, `-gn`), or may (a flag only known at run time, `declare $f r=HOME`).
fn declares_references(decl: Node, src: &Source) -> bool {
    let mut cursor = decl.walk();
    let mut children = decl.children(&mut cursor);
    let keyword = children.next().map(|k| text(k, &src.text));
    if !matches!(keyword, Some("declare" | "typeset" | "local")) {
        return false;
    }
    children
        .filter(|c| !matches!(kind(*c), "variable_assignment" | "variable_name"))
        .any(|c| {
            let flag = text(c, &src.text);
            match flag.strip_prefix('-') {
                Some(letters) => letters.contains('n'),
                // Not a plain word: what it expands to may be `-n`.
                None => !flag
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '+'),
            }
        })
}

/// A variable's name as bash accepts one: a letter or `_`, then letters, digits, `_`.
fn plain_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `unset NAME…`: the names are no longer known (an unset variable may still come from the
/// environment of a function's caller; unknown is the safe reading).
pub fn unset(node: Node, src: &Source, st: &mut State) {
    let mut cursor = node.walk();
    let names: Vec<String> = node
        .named_children(&mut cursor)
        .map(|n| text(n, &src.text).to_owned())
        .collect();
    for name in names {
        st.shell.set_var(&name, Var::Unknown);
    }
}

/// How many values of a `for` list are followed; more and the variable is unknown.
const MAX_LOOP_VALUES: usize = 16;

/// `for NAME in WORDS`: NAME takes each of the words' values in turn.
pub fn loop_variable(node: Node, src: &Source, st: &mut State) {
    let Some(var) = node.child_by_field_name("variable") else {
        return;
    };
    let mut words = Vec::new();
    {
        let env = st.env();
        let mut cursor = node.walk();
        for value in node.children_by_field_name("value", &mut cursor) {
            fields(value, &src.text, &env, &mut words);
        }
    }
    let mut alts = Vec::new();
    for w in &words {
        alts.extend(w.alternatives().iter().cloned());
    }
    // `for f; do`: the positional parameters, when the shell was given them.
    if node.child_by_field_name("value").is_none()
        && let Some(Var::Lit(_) | Var::Pattern(_)) = st.shell.vars.get("@")
    {
        let env = st.env();
        alts.extend(crate::analyse::words::var_value(&env, "@"));
    }
    let value = if alts.is_empty() || alts.len() > MAX_LOOP_VALUES {
        Var::Unknown
    } else {
        Var::Pattern(Rc::new(alts))
    };
    st.shell.set_var(text(var, &src.text), value);
}

/// `NAME() { … }`: remembers NAME, and reports a body that calls itself in a pipeline or in
/// the background (`:(){ :|:& };:`), which multiplies processes until the machine stalls.
pub fn function(node: Node, src: &Source, st: &mut State) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let name = text(name, &src.text);
    std::rc::Rc::make_mut(&mut st.shell.functions).insert(name.to_owned());
    let bodies = std::rc::Rc::make_mut(&mut st.shell.bodies);
    match node.child_by_field_name("body") {
        Some(body) if body.byte_range().len() <= super::MAX_FUNCTION_BODY => {
            let body_text = std::rc::Rc::from(text(body, &src.text));
            bodies.insert(
                name.to_owned(),
                (body_text, src.map.span(body.byte_range())),
            );
        }
        _ => {
            bodies.remove(name);
        }
    }
    if let Some(body) = node.child_by_field_name("body")
        && calls_itself_in_parallel(name, body, &src.text)
    {
        let span = src.map.span(node.byte_range());
        st.add(catalogue::FORK_BOMB.at(span, &format!("`{name}`")));
    }
}

/// A command named `name` under `body` that sits in a pipeline or is followed by `&`.
fn calls_itself_in_parallel(name: &str, body: Node, src: &str) -> bool {
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        if kind(node) == "command"
            && node
                .child_by_field_name("name")
                .is_some_and(|n| text(n, src) == name)
            && in_parallel(node, body)
        {
            return true;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    false
}

fn in_parallel(node: Node, body: Node) -> bool {
    let mut at = node;
    loop {
        if at.next_sibling().is_some_and(|s| kind(s) == "&") {
            return true;
        }
        let Some(parent) = at.parent() else {
            return false;
        };
        if kind(parent) == "pipeline" {
            return true;
        }
        if parent.id() == body.id() {
            return parent.next_sibling().is_some_and(|s| kind(s) == "&");
        }
        at = parent;
    }
}
