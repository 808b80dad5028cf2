//! Ruby programs (`ruby -e`), read with tree-sitter-ruby.

use std::rc::Rc;

use tree_sitter::Node;

use super::super::effects::Effect::{Delete, Move, Perms, Read, Write};
use super::eval::Api::{self, *};
use super::eval::{Eval, Tables, Value, each_child, each_kept, values};
use super::python::unescape;
use super::text::Text::Base64;

pub static TABLES: Tables = Tables {
    apis: APIS,
    aliases: &[("Object.Kernel", "Kernel"), ("Pathname", "Pathname")],
    modules: &[
        "Kernel",
        "File",
        "FileUtils",
        "Dir",
        "IO",
        "Open3",
        "Process",
        "Net",
        "Net.HTTP",
        "URI",
        "TCPSocket",
        "UNIXSocket",
        "Socket",
        "PTY",
        "Object",
        "Pathname",
        "Fiddle",
    ],
    capable: &[
        "FileUtils",
        "IO",
        "Open3",
        "Process",
        "Net",
        "TCPSocket",
        "UDPSocket",
        "UNIXSocket",
        "Socket",
        "PTY",
        "Fiddle",
        "Kernel",
    ],
    environ: &["Object.ENV"],
    reexports: &[],
    index: std::sync::OnceLock::new(),
    argv: &["Object.ARGV"],
};

const APIS: &[(&str, Api)] = &[
    // Text made from text: computed (`interp/text.rs`).
    ("Base64.decode64", Text(Base64)),
    ("Base64.strict_decode64", Text(Base64)),
    ("Base64.urlsafe_decode64", Text(Base64)),
    // Kernel: what a call with no receiver reaches.
    ("Kernel.system", Argv(0)),
    ("Kernel.exec", Argv(0)),
    ("Kernel.spawn", Argv(0)),
    ("Kernel.`", Shell(0)),
    ("Kernel.open", Open(0, 1)),
    ("Kernel.eval", Eval(0)),
    ("Kernel.instance_eval", Eval(0)),
    ("Kernel.class_eval", Eval(0)),
    ("Kernel.module_eval", Eval(0)),
    ("Kernel.load", Run(0, true)),
    ("Kernel.require", Run(0, false)),
    ("Kernel.require_relative", Pure),
    ("Kernel.send", Callback(0)),
    ("Kernel.public_send", Callback(0)),
    ("Kernel.__send__", Callback(0)),
    ("Kernel.method", GetAttr),
    ("Kernel.syscall", Opaque),
    ("Kernel.fork", Opaque),
    ("Kernel.trap", Opaque),
    ("Kernel.URI", Same),
    ("Kernel.*", Pure),
    ("Object.const_get", Import(0)),
    // Processes.
    ("IO.popen", Shell(0)),
    ("IO.read", Path(Read, false, 0)),
    ("IO.readlines", Path(Read, false, 0)),
    ("IO.foreach", Path(Read, false, 0)),
    ("IO.write", Path(Write, false, 0)),
    ("IO.binwrite", Path(Write, false, 0)),
    ("IO.copy_stream", Pure),
    ("IO.pipe", Pure),
    ("IO.select", Pure),
    ("Open3.*", Shell(0)),
    ("Process.spawn", Argv(0)),
    ("Process.exec", Argv(0)),
    ("Process.pid", Pure),
    ("Process.clock_gettime", Pure),
    ("Process.wait", Pure),
    ("Process.CLOCK_MONOTONIC", Pure),
    ("PTY.spawn", Shell(0)),
    // Files.
    ("File.delete", Path(Delete, false, 0)),
    ("File.unlink", Path(Delete, false, 0)),
    ("File.write", Path(Write, false, 0)),
    ("File.binwrite", Path(Write, false, 0)),
    ("File.open", Open(0, 1)),
    ("File.new", Open(0, 1)),
    ("File.read", Path(Read, false, 0)),
    ("File.binread", Path(Read, false, 0)),
    ("File.readlines", Path(Read, false, 0)),
    ("File.foreach", Path(Read, false, 0)),
    ("File.rename", Rename(0, 1)),
    ("File.chmod", Mode(1, 0)),
    ("File.chown", Path(Perms, false, 2)),
    ("File.symlink", Path(Write, false, 1)),
    ("File.link", Path(Write, false, 1)),
    ("File.truncate", Path(Write, false, 0)),
    ("File.join", Join),
    ("File.expand_path", Same),
    ("File.absolute_path", Same),
    ("File.realpath", Same),
    ("File.*", Pure),
    ("FileUtils.rm", Path(Delete, false, 0)),
    ("FileUtils.rm_f", Path(Delete, false, 0)),
    ("FileUtils.remove", Path(Delete, false, 0)),
    ("FileUtils.remove_file", Path(Delete, false, 0)),
    ("FileUtils.rmdir", Path(Delete, false, 0)),
    ("FileUtils.rm_r", Path(Delete, true, 0)),
    ("FileUtils.rm_rf", Path(Delete, true, 0)),
    ("FileUtils.rmtree", Path(Delete, true, 0)),
    ("FileUtils.remove_dir", Path(Delete, true, 0)),
    ("FileUtils.remove_entry", Path(Delete, true, 0)),
    ("FileUtils.remove_entry_secure", Path(Delete, true, 0)),
    ("FileUtils.mv", Rename(0, 1)),
    ("FileUtils.move", Path(Move, true, 0)),
    ("FileUtils.cp", Copy(0, 1, false)),
    ("FileUtils.copy", Copy(0, 1, false)),
    ("FileUtils.cp_r", Copy(0, 1, true)),
    ("FileUtils.install", Copy(0, 1, false)),
    ("FileUtils.ln", Path(Write, false, 1)),
    ("FileUtils.ln_s", Path(Write, false, 1)),
    ("FileUtils.ln_sf", Path(Write, false, 1)),
    ("FileUtils.touch", Path(Write, false, 0)),
    ("FileUtils.mkdir", Path(Write, false, 0)),
    ("FileUtils.mkdir_p", Path(Write, false, 0)),
    ("FileUtils.makedirs", Path(Write, false, 0)),
    ("FileUtils.chmod", Mode(1, 0)),
    ("FileUtils.chmod_R", Path(Perms, true, 1)),
    ("FileUtils.chown", Path(Perms, false, 2)),
    ("FileUtils.chown_R", Path(Perms, true, 2)),
    ("FileUtils.pwd", Pure),
    ("FileUtils.cd", Pure),
    ("FileUtils.compare_file", Pure),
    ("FileUtils.uptodate?", Pure),
    ("Dir.rmdir", Path(Delete, false, 0)),
    ("Dir.delete", Path(Delete, false, 0)),
    ("Dir.unlink", Path(Delete, false, 0)),
    ("Dir.mkdir", Path(Write, false, 0)),
    ("Dir.home", Home),
    ("Dir.glob", List(0)),
    ("Dir.[]", List(0)),
    ("Dir.entries", List(0)),
    ("Dir.children", List(0)),
    ("Dir.each_child", List(0)),
    ("Dir.*", Pure),
    ("Pathname.new", Class("Pathname")),
    ("Pathname.delete", Path(Delete, false, 0)),
    ("Pathname.unlink", Path(Delete, false, 0)),
    ("Pathname.rmtree", Path(Delete, true, 0)),
    ("Pathname.write", Path(Write, false, 0)),
    ("Pathname.read", Path(Read, false, 0)),
    ("Pathname.*", Pure),
    // The network.
    ("Net.HTTP.get", Net(0)),
    ("Net.HTTP.get_response", Net(0)),
    ("Net.HTTP.post", Net(0)),
    ("Net.HTTP.post_form", Net(0)),
    ("Net.HTTP.start", Net(0)),
    ("Net.HTTP.new", Net(0)),
    ("URI.open", Net(0)),
    ("URI.parse", Same),
    ("URI.*", Pure),
    ("UNIXSocket.new", Net(0)),
    ("UNIXSocket.open", Net(0)),
    ("Socket.unix", Net(0)),
    ("TCPSocket.new", Net(0)),
    ("TCPSocket.open", Net(0)),
    ("UDPSocket.new", Opaque),
    ("Socket.gethostname", Pure),
];

/// Reads the program under `root` into `ev`.
pub fn walk(ev: &mut Eval, root: Node) {
    expr(ev, root);
}

fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

fn constant(ev: &Eval, name: &str) -> Value {
    match ev.vars.get(name) {
        Some(v) => v.clone(),
        None => ev
            .attr(&Value::Module(Rc::from("Object")), name)
            .into_module(ev),
    }
}

trait IntoModule {
    fn into_module(self, ev: &Eval) -> Value;
}

impl IntoModule for Value {
    /// A constant is a module or class, whether or not the tables know it.
    fn into_module(self, ev: &Eval) -> Value {
        match self {
            Value::Func(name) => {
                let short = name.strip_prefix("Object.").unwrap_or(&name);
                ev.module(short)
            }
            other => other,
        }
    }
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
        "identifier" => {
            let name = ev.text(node);
            match ev.vars.get(name) {
                Some(v) => v.clone(),
                // A name never assigned is a call of a method with no arguments.
                None => ev.call(&Value::Func(Rc::from(format!("Kernel.{name}"))), Vec::new()),
            }
        }
        "constant" => constant(ev, ev.text(node)),
        "scope_resolution" => {
            let scope =
                field(node, "scope").map_or(Value::Module(Rc::from("Object")), |s| expr(ev, s));
            match field(node, "name") {
                Some(n) => ev.attr(&scope, ev.text(n)).into_module(ev),
                None => Value::Unknown,
            }
        }
        "string" | "bare_string" | "bare_symbol" => string(ev, node),
        "simple_symbol" => Value::Str(ev.text(node).trim_start_matches(':').to_owned()),
        "delimited_symbol" => match string(ev, node) {
            Value::Str(s) => Value::Str(s),
            other => other,
        },
        "integer" | "float" => Value::Str(ev.text(node).to_owned()),
        "subshell" => {
            let line = string(ev, node);
            ev.call(&Value::Func(Rc::from("Kernel.`")), vec![line])
        }
        "call" => call(ev, node),
        "element_reference" => {
            let obj = field(node, "object").map_or(Value::Unknown, |o| expr(ev, o));
            let key = node.named_child(1).map_or(Value::Unknown, |k| expr(ev, k));
            match obj {
                Value::Func(f) | Value::Bound(f, _) => {
                    // `m[args]` on a method object calls it.
                    let f = Value::Func(f);
                    ev.call(&f, vec![key])
                }
                Value::Module(m) if &*m == "Dir" => ev.apply("Dir.[]", vec![key]),
                obj => ev.pick(&obj, &key),
            }
        }
        "binary" => {
            let left = field(node, "left").map_or(Value::Unknown, |o| expr(ev, o));
            let right = field(node, "right").map_or(Value::Unknown, |o| expr(ev, o));
            match field(node, "operator").map_or("", |o| ev.text(o)) {
                "+" => ev.concat(&[left, right]),
                "||" | "or" => match left {
                    Value::Unknown => right,
                    left => left,
                },
                _ => Value::Unknown,
            }
        }
        "array" | "string_array" | "symbol_array" => Value::List(children(ev, node)),
        "parenthesized_statements" => each_child(ev, node, expr),
        "assignment" | "operator_assignment" => {
            let value = field(node, "right").map_or(Value::Unknown, |v| expr(ev, v));
            if let Some(left) = field(node, "left") {
                if left.kind() == "identifier" || left.kind() == "constant" {
                    ev.vars.insert(ev.text(left).to_owned(), value.clone());
                } else {
                    expr(ev, left);
                }
            }
            value
        }
        "method" | "singleton_method" => {
            if let Some(name) = field(node, "name") {
                ev.vars.insert(ev.text(name).to_owned(), Value::Closure);
            }
            each_child(ev, node, expr);
            Value::Closure
        }
        "lambda" | "block" | "do_block" => {
            each_child(ev, node, expr);
            Value::Closure
        }
        "hash" | "pair" => {
            each_kept(ev, node, expr, "a hash");
            Value::Unknown
        }
        "return" | "next" | "break" | "conditional" => {
            each_kept(ev, node, expr, "what a block or method gives back");
            Value::Unknown
        }
        // A block's or method's last statement is what it gives back.
        "block_body" | "body_statement" => {
            let last = each_child(ev, node, expr);
            ev.kept(&last, "what a block or method gives back");
            Value::Unknown
        }
        "comment" | "true" | "false" | "nil" | "self" | "regex" => Value::Unknown,
        _ => {
            each_child(ev, node, expr);
            Value::Unknown
        }
    };
    ev.leave();
    value
}

fn children(ev: &mut Eval, node: Node) -> Vec<Value> {
    values(ev, node, "splat_argument", expr)
}

fn call(ev: &mut Eval, node: Node) -> Value {
    let receiver = field(node, "receiver").map(|r| expr(ev, r));
    let method = field(node, "method").map(|m| ev.text(m));
    let args = field(node, "arguments").map_or_else(Vec::new, |a| children(ev, a));
    if let Some(block) = field(node, "block") {
        expr(ev, block);
    }
    let this = receiver
        .clone()
        .unwrap_or_else(|| Value::Module(Rc::from("Kernel")));
    let Some(method) = method else {
        // `m.(args)`, `m.call(args)`.
        return ev.call(&this, args);
    };
    match method {
        "call" | "()" | "yield" if matches!(this, Value::Func(_) | Value::Bound(..)) => {
            ev.call(&this, args)
        }
        "send" | "public_send" | "__send__" => match args.first() {
            Some(Value::Str(name)) => {
                let target = method_of(ev, &this, name);
                ev.call(&target, args[1..].to_vec())
            }
            _ => {
                ev.opaque(format!("`{method}` of a method only known when it runs"));
                Value::Unknown
            }
        },
        "method" | "public_method" | "instance_method" => match args.first() {
            Some(Value::Str(name)) => method_of(ev, &this, name),
            _ => {
                ev.opaque(format!("`{method}` of a method only known when it runs"));
                Value::Unknown
            }
        },
        "instance_eval" | "class_eval" | "module_eval" | "instance_exec" | "eval"
            if !args.is_empty() =>
        {
            ev.call(&Value::Func(Rc::from("Kernel.eval")), args)
        }
        _ => {
            let target = method_of(ev, &this, method);
            if receiver.is_some() && matches!(target, Value::Unknown) {
                return Value::Unknown;
            }
            ev.call(&target, args)
        }
    }
}

/// The method `name` of `this`: a module's function, or Kernel's when there is no receiver.
fn method_of(ev: &Eval, this: &Value, name: &str) -> Value {
    match this {
        Value::Module(_) | Value::Obj(..) => ev.attr(this, name),
        Value::Environ if matches!(name, "fetch" | "[]") => ev.attr(this, "fetch"),
        Value::Evaluated => Value::Evaluated,
        // `"hss".reverse`, `[".", "ssh"].join`: text the program computes.
        Value::Str(_) | Value::List(_) => super::text::bound(this, name),
        _ => Value::Unknown,
    }
}

fn string(ev: &mut Eval, node: Node) -> Value {
    let mut parts = Vec::new();
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    for child in children {
        match child.kind() {
            "string_content" => parts.push(Value::Str(ev.text(child).to_owned())),
            "escape_sequence" => parts.push(Value::Str(unescape(ev.text(child)))),
            "interpolation" => {
                let v = child.named_child(0).map_or(Value::Unknown, |e| expr(ev, e));
                parts.push(v);
            }
            _ => {}
        }
    }
    ev.concat(&parts)
}
