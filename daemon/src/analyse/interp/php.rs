//! PHP programs (`php -r`, a script on standard input), read with tree-sitter-php.
//!
//! PHP's functions are global and can be called by a name held in a string (`$f('id')`,
//! `call_user_func('system', …)`, `array_map('unlink', …)`): a callable string is resolved
//! like a name written in the program, and one that cannot be read is opaque.

use std::rc::Rc;

use tree_sitter::Node;

use super::super::effects::Effect::{Delete, Move, Perms, Read, Write};
use super::eval::Api::{self, *};
use super::eval::{Eval, Tables, Value, each_child};
use super::python::unescape;

pub static TABLES: Tables = Tables {
    apis: APIS,
    aliases: &[],
    modules: &[],
    capable: &[
        "proc_open",
        "pcntl_exec",
        "pcntl_fork",
        "posix_kill",
        "dl",
        "ffi",
        "FFI",
        "mail",
        "mb_send_mail",
        "putenv",
        "ini_set",
        "ReflectionFunction",
    ],
    environ: &["$_ENV", "$_SERVER"],
    reexports: &[],
    index: std::sync::OnceLock::new(),
    argv: &["$argv"],
};

const APIS: &[(&str, Api)] = &[
    // Processes.
    ("system", Shell(0)),
    ("exec", Shell(0)),
    ("shell_exec", Shell(0)),
    ("passthru", Shell(0)),
    ("popen", Shell(0)),
    ("proc_open", Shell(0)),
    ("`", Shell(0)),
    ("pcntl_exec", Spawn(0)),
    ("eval", Eval(0)),
    ("assert", Eval(0)),
    ("create_function", Eval(1)),
    ("include", Run(0, true)),
    ("include_once", Run(0, true)),
    ("require", Run(0, true)),
    ("require_once", Run(0, true)),
    // Functions called by name.
    ("call_user_func", Callback(0)),
    ("call_user_func_array", Callback(0)),
    ("forward_static_call", Callback(0)),
    ("array_map", Each(0, 1)),
    ("array_walk", Each(1, 0)),
    ("array_filter", Each(1, 0)),
    ("array_reduce", Callback(1)),
    ("usort", Callback(1)),
    ("uasort", Callback(1)),
    ("uksort", Callback(1)),
    ("register_shutdown_function", Callback(0)),
    ("register_tick_function", Callback(0)),
    ("set_error_handler", Callback(0)),
    ("set_exception_handler", Callback(0)),
    ("spl_autoload_register", Callback(0)),
    ("iterator_apply", Callback(1)),
    ("preg_replace_callback", Callback(1)),
    ("ReflectionFunction", Callback(0)),
    // Files.
    ("unlink", Path(Delete, false, 0)),
    ("rmdir", Path(Delete, false, 0)),
    ("file_put_contents", Path(Write, false, 0)),
    ("fopen", Open(0, 1)),
    ("file_get_contents", Path(Read, false, 0)),
    ("readfile", Path(Read, false, 0)),
    ("file", Path(Read, false, 0)),
    ("parse_ini_file", Path(Read, false, 0)),
    ("highlight_file", Path(Read, false, 0)),
    ("show_source", Path(Read, false, 0)),
    ("copy", Copy(0, 1, false)),
    ("rename", Path(Move, true, 0)),
    ("mkdir", Path(Write, false, 0)),
    ("touch", Path(Write, false, 0)),
    ("symlink", Path(Write, false, 1)),
    ("link", Path(Write, false, 1)),
    ("tempnam", Pure),
    ("chmod", Mode(0, 1)),
    ("chown", Path(Perms, false, 0)),
    ("chgrp", Path(Perms, false, 0)),
    ("move_uploaded_file", Path(Write, false, 1)),
    ("glob", List(0)),
    ("scandir", List(0)),
    ("opendir", List(0)),
    ("getenv", Env(0)),
    ("realpath", Same),
    ("strval", Same),
    // The network.
    ("curl_init", Net(0)),
    ("fsockopen", Net(0)),
    ("pfsockopen", Net(0)),
    ("stream_socket_client", Net(0)),
    ("socket_connect", Net(1)),
    ("mail", Net(0)),
    ("mb_send_mail", Net(0)),
    ("get_headers", Net(0)),
];

/// Reads the program under `root` into `ev`.
pub fn walk(ev: &mut Eval, root: Node) {
    expr(ev, root);
}

fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

/// A function's name as written: `\system` is `system`; PHP's names ignore case.
fn function_name(text: &str) -> Value {
    let name = text.rsplit('\\').next().unwrap_or(text);
    Value::Func(Rc::from(name.to_ascii_lowercase().as_str()))
}

fn expr(ev: &mut Eval, node: Node) -> Value {
    // Calls in a loop without end are counted as such (`while True: os.fork()`).
    let endless = super::loops::endless(node, ev.src);
    ev.loops += usize::from(endless);
    let value = expr_node(ev, node);
    ev.loops -= usize::from(endless);
    value
}

fn expr_node(ev: &mut Eval, node: Node) -> Value {
    if !ev.enter() {
        return Value::Unknown;
    }
    let value = match node.kind() {
        "variable_name" => {
            let name = ev.text(node);
            match ev.vars.get(name) {
                Some(v) => v.clone(),
                None if ev.tables.environ.contains(&name) => Value::Environ,
                None if ev.tables.argv.contains(&name) => Value::List(
                    std::iter::once(Value::Unknown)
                        .chain(
                            ev.args
                                .iter()
                                .map(|a| a.clone().map_or(Value::Unknown, Value::Str)),
                        )
                        .collect(),
                ),
                None => Value::Unknown,
            }
        }
        "string" | "encapsed_string" | "heredoc" | "nowdoc" => string(ev, node),
        "integer" | "float" => Value::Str(ev.text(node).to_owned()),
        // `php -r`'s code is in no file: its directory is the one it runs in.
        "name" if ev.text(node) == "__DIR__" => Value::Str(".".to_owned()),
        "shell_command_expression" => {
            let line = string(ev, node);
            ev.call(&Value::Func(Rc::from("`")), vec![line])
        }
        "function_call_expression" => {
            let f = match field(node, "function") {
                Some(f) if matches!(f.kind(), "name" | "qualified_name") => {
                    function_name(ev.text(f))
                }
                Some(f) => match expr(ev, f) {
                    Value::Str(name) => function_name(&name),
                    v @ (Value::Func(_) | Value::Closure) => v,
                    _ => {
                        ev.opaque(format!(
                            "`{}(…)`, a function only known when it runs",
                            ev.text(f)
                        ));
                        Value::Unknown
                    }
                },
                None => Value::Unknown,
            };
            let args = field(node, "arguments").map_or_else(Vec::new, |a| arguments(ev, a));
            let args = args
                .into_iter()
                .map(|a| match a {
                    // A callable string handed to a function that calls it.
                    Value::Str(s) if is_function_name(&s) => Value::Str(s),
                    a => a,
                })
                .collect();
            ev.call(&f, args)
        }
        "member_call_expression" | "nullsafe_member_call_expression" | "scoped_call_expression" => {
            each_child(ev, node, expr);
            // A client's method that destroys what it holds (`$es->deleteIndex(…)`).
            if let Some(name) = field(node, "name").map(|n| ev.text(n))
                && super::eval::destroys(name)
            {
                ev.opaque(format!("`{name}`"));
            }
            Value::Unknown
        }
        "object_creation_expression" => {
            let class = node.named_child(0).map(|c| ev.text(c).to_owned());
            let args = node
                .named_child(1)
                .map_or_else(Vec::new, |a| arguments(ev, a));
            match class {
                Some(class) => ev.call(&function_name(&class), args),
                None => Value::Unknown,
            }
        }
        "include_expression"
        | "include_once_expression"
        | "require_expression"
        | "require_once_expression" => {
            let path = node.named_child(0).map_or(Value::Unknown, |p| expr(ev, p));
            ev.apply("include", vec![path])
        }
        "subscript_expression" => {
            let obj = node.named_child(0).map_or(Value::Unknown, |o| expr(ev, o));
            let key = node.named_child(1).map_or(Value::Unknown, |k| expr(ev, k));
            ev.index(&obj, &key)
        }
        "binary_expression" => {
            let left = field(node, "left").map_or(Value::Unknown, |o| expr(ev, o));
            let right = field(node, "right").map_or(Value::Unknown, |o| expr(ev, o));
            match field(node, "operator").map_or("", |o| ev.text(o)) {
                "." => ev.concat(&[left, right]),
                "??" | "?:" | "||" | "or" => match left {
                    Value::Unknown => right,
                    left => left,
                },
                _ => Value::Unknown,
            }
        }
        "array_creation_expression" => {
            let mut items = Vec::new();
            let mut cursor = node.walk();
            let elements: Vec<Node> = node.named_children(&mut cursor).collect();
            for element in elements {
                let mut last = Value::Unknown;
                let mut inner = element.walk();
                for part in element.named_children(&mut inner) {
                    last = expr(ev, part);
                }
                items.push(last);
            }
            Value::List(items)
        }
        "parenthesized_expression" => node
            .named_child(0)
            .map_or(Value::Unknown, |inner| expr(ev, inner)),
        "assignment_expression" | "augmented_assignment_expression" => {
            let value = field(node, "right").map_or(Value::Unknown, |v| expr(ev, v));
            match field(node, "left") {
                Some(left) if left.kind() == "variable_name" => {
                    ev.vars.insert(ev.text(left).to_owned(), value.clone());
                }
                Some(left) => {
                    expr(ev, left);
                }
                None => {}
            }
            value
        }
        "anonymous_function" | "arrow_function" | "anonymous_function_creation_expression" => {
            each_child(ev, node, expr);
            Value::Closure
        }
        "function_definition" => {
            if let Some(name) = field(node, "name") {
                ev.vars
                    .insert(format!("fn:{}", ev.text(name)), Value::Closure);
            }
            if let Some(body) = field(node, "body") {
                expr(ev, body);
            }
            Value::Closure
        }
        "foreach_statement" => {
            let mut cursor = node.walk();
            let parts: Vec<Node> = node.named_children(&mut cursor).collect();
            let items = parts.first().map_or(Value::Unknown, |p| expr(ev, *p));
            for part in parts.iter().skip(1) {
                if part.kind() == "variable_name" {
                    let item = match &items {
                        Value::Below(d) => Value::Below(d.clone()),
                        _ => Value::Unknown,
                    };
                    ev.vars.insert(ev.text(*part).to_owned(), item);
                } else {
                    expr(ev, *part);
                }
            }
            Value::Unknown
        }
        "comment" | "boolean" | "null" | "text" | "php_tag" => Value::Unknown,
        _ => {
            each_child(ev, node, expr);
            Value::Unknown
        }
    };
    ev.leave();
    value
}

fn is_function_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\\')
}

fn arguments(ev: &mut Eval, node: Node) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    let args: Vec<Node> = node.named_children(&mut cursor).collect();
    for arg in args {
        let value = match arg.kind() {
            "argument" => {
                let mut last = Value::Unknown;
                let mut inner = arg.walk();
                let parts: Vec<Node> = arg.named_children(&mut inner).collect();
                for part in parts {
                    // A named argument's name is not a value.
                    if part.kind() != "name" {
                        last = expr(ev, part);
                    }
                }
                last
            }
            "comment" => continue,
            _ => expr(ev, arg),
        };
        out.push(value);
    }
    out
}

fn string(ev: &mut Eval, node: Node) -> Value {
    let single = ev.text(node).starts_with('\'');
    let mut parts = Vec::new();
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    for child in children {
        match child.kind() {
            "heredoc_body" | "nowdoc_body" => parts.push(string(ev, child)),
            "heredoc_start" | "heredoc_end" | "nowdoc_start" | "nowdoc_end" => {}
            "string_content" | "string_value" => {
                let text = ev.text(child);
                parts.push(Value::Str(if single {
                    text.replace("\\'", "'").replace("\\\\", "\\")
                } else {
                    unescape(text)
                }));
            }
            "escape_sequence" => parts.push(Value::Str(unescape(ev.text(child)))),
            _ => parts.push(expr(ev, child)),
        }
    }
    ev.concat(&parts)
}
