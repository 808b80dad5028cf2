//! What statements change in the shell for the commands after them: variables assigned
//! literal values (`c=rm`, `export X=/`), loop variables, functions defined on the line, and
//! the one function definition that is an attack by itself, the fork bomb.

use tree_sitter::Node;

use super::catalogue;
use super::words::{assigned_value, text};
use super::{Source, State, kind};

/// `NAME=value` as a statement (not a command's prefix): records the value, or that it is
/// only known at run time.
pub fn assignment(node: Node, src: &Source, st: &mut State) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let name = text(name, &src.text);
    let value_node = node.child_by_field_name("value");
    // `x+=y` and `a[i]=y` are not plain values.
    let plain = !text(node, &src.text).starts_with(&format!("{name}+="))
        && value_node.is_none_or(|v| kind(v) != "array");
    let value = if plain {
        assigned_value(value_node, &src.text, &st.shell.vars, st.ctx.home)
    } else {
        None
    };
    st.shell.set_var(name, value);
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
        st.shell.set_var(&name, None);
    }
}

/// `for NAME in …`: NAME takes values only known as the loop runs.
pub fn loop_variable(node: Node, src: &Source, st: &mut State) {
    if let Some(var) = node.child_by_field_name("variable") {
        st.shell.set_var(text(var, &src.text), None);
    }
}

/// `NAME() { … }`: remembers NAME, and reports a body that calls itself in a pipeline or in
/// the background (`:(){ :|:& };:`), which multiplies processes until the machine stalls.
pub fn function(node: Node, src: &Source, st: &mut State) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let name = text(name, &src.text);
    std::rc::Rc::make_mut(&mut st.shell.functions).insert(name.to_owned());
    if let Some(body) = node.child_by_field_name("body")
        && calls_itself_in_parallel(name, body, &src.text)
    {
        let span = src.map.span(node.byte_range());
        st.add(catalogue::SYSTEM_FORK_BOMB.at(span, &format!("`{name}`")));
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
