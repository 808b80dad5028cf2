//! JavaScript programs (`node -e`), read with tree-sitter-javascript.

use std::rc::Rc;

use tree_sitter::Node;

use super::super::effects::Effect::{Delete, Perms, Read, Write};
use super::eval::Api::{self, *};
use super::eval::{Eval, Tables, Value, each_child, each_kept, values};
use super::python::unescape;
use super::text::Text::{Base64, Chr, Decode};

pub static TABLES: Tables = Tables {
    apis: APIS,
    aliases: &[
        ("node:fs", "fs"),
        ("fs/promises", "fs"),
        ("node:fs/promises", "fs"),
        ("fs.promises", "fs"),
        ("node:child_process", "child_process"),
        ("node:path", "path"),
        ("node:os", "os"),
        ("node:http", "http"),
        ("node:https", "https"),
        ("node:net", "net"),
        ("node:vm", "vm"),
        ("node:process", "process"),
        ("node:dgram", "dgram"),
        ("node:tls", "tls"),
        ("node:http2", "http2"),
        ("node:worker_threads", "worker_threads"),
        ("node:module", "module"),
        ("global.process", "process"),
        ("global.globalThis", "global"),
        ("global.global", "global"),
        ("global.window", "global"),
        ("global.self", "global"),
        ("global.module", "module"),
        ("process.mainModule", "module"),
        ("global.Bun", "bun"),
        ("global.Deno", "deno"),
        ("path.posix", "path"),
    ],
    modules: &[
        "global",
        "fs",
        "child_process",
        "path",
        "os",
        "http",
        "https",
        "net",
        "vm",
        "process",
        "dgram",
        "tls",
        "http2",
        "worker_threads",
        "module",
        "bun",
        "deno",
        "cluster",
        "inspector",
    ],
    capable: &[
        "<escape>",
        "fs",
        "child_process",
        "http",
        "https",
        "net",
        "vm",
        "process",
        "dgram",
        "tls",
        "http2",
        "worker_threads",
        "module",
        "bun",
        "deno",
        "cluster",
        "inspector",
    ],
    environ: &["process.env"],
    // `x.constructor.constructor('return process')()`: the Function constructor.
    reexports: &[("constructor", "<escape>")],
    index: std::sync::OnceLock::new(),
    argv: &["process.argv"],
};

const APIS: &[(&str, Api)] = &[
    // Text made from text: computed (`interp/text.rs`).
    ("global.String.fromCharCode", Text(Chr)),
    ("global.String.fromCodePoint", Text(Chr)),
    ("global.atob", Text(Base64)),
    ("global.Buffer.from", Text(Decode)),
    ("buffer.Buffer.from", Text(Decode)),
    // The language and its globals.
    ("global.require", Import(0)),
    ("module.require", Import(0)),
    // A require of its own, for any module: what it loads is not followed.
    ("module.createRequire", Opaque),
    ("global.import", Import(0)),
    ("global.eval", Eval(0)),
    ("global.Function", Eval(0)),
    ("global.setTimeout", Eval(0)),
    ("global.setInterval", Eval(0)),
    ("global.fetch", Net(0)),
    ("global.WebSocket", Net(0)),
    ("global.EventSource", Net(0)),
    ("global.XMLHttpRequest", Opaque),
    ("vm.runInThisContext", Eval(0)),
    ("vm.runInNewContext", Eval(0)),
    ("vm.runInContext", Eval(0)),
    ("vm.Script", Eval(0)),
    ("vm.compileFunction", Eval(0)),
    // The process.
    ("process.env", Pure),
    ("process.argv", Pure),
    ("process.argv0", Pure),
    ("process.stdout.*", Pure),
    ("process.stderr.*", Pure),
    ("process.stdin.*", Pure),
    ("process.stdout", Pure),
    ("process.stderr", Pure),
    ("process.stdin", Pure),
    ("process.cwd", Pure),
    ("process.exit", Pure),
    ("process.exitCode", Pure),
    ("process.platform", Pure),
    ("process.arch", Pure),
    ("process.version", Pure),
    ("process.versions.*", Pure),
    ("process.versions", Pure),
    ("process.release.*", Pure),
    ("process.pid", Pure),
    ("process.ppid", Pure),
    ("process.hrtime.*", Pure),
    ("process.hrtime", Pure),
    ("process.uptime", Pure),
    ("process.memoryUsage", Pure),
    ("process.cpuUsage", Pure),
    ("process.nextTick", Pure),
    ("process.on", Pure),
    ("process.once", Pure),
    ("process.emitWarning", Pure),
    ("process.execPath", Pure),
    ("process.title", Pure),
    ("process.getuid", Pure),
    ("process.geteuid", Pure),
    ("process.chdir", Pure),
    ("process.umask", Pure),
    // Processes.
    ("child_process.exec", Shell(0)),
    ("child_process.execSync", Shell(0)),
    ("child_process.spawn", Spawn(0)),
    ("child_process.spawnSync", Spawn(0)),
    ("child_process.execFile", Spawn(0)),
    ("child_process.execFileSync", Spawn(0)),
    ("child_process.fork", Run(0, true)),
    ("bun.spawn", Shell(0)),
    ("bun.spawnSync", Shell(0)),
    ("bun.$", Shell(0)),
    ("bun.file", Pure),
    ("bun.write", Path(Write, false, 0)),
    // Files.
    ("fs.rm", Path(Delete, true, 0)),
    ("fs.rmSync", Path(Delete, true, 0)),
    ("fs.rmdir", Path(Delete, true, 0)),
    ("fs.rmdirSync", Path(Delete, true, 0)),
    ("fs.unlink", Path(Delete, false, 0)),
    ("fs.unlinkSync", Path(Delete, false, 0)),
    ("fs.writeFile", Path(Write, false, 0)),
    ("fs.writeFileSync", Path(Write, false, 0)),
    ("fs.appendFile", Path(Write, false, 0)),
    ("fs.appendFileSync", Path(Write, false, 0)),
    ("fs.createWriteStream", Path(Write, false, 0)),
    ("fs.mkdir", Path(Write, false, 0)),
    ("fs.mkdirSync", Path(Write, false, 0)),
    ("fs.mkdtemp", Pure),
    ("fs.mkdtempSync", Pure),
    ("fs.copyFile", Copy(0, 1, false)),
    ("fs.copyFileSync", Copy(0, 1, false)),
    ("fs.cp", Copy(0, 1, true)),
    ("fs.cpSync", Copy(0, 1, true)),
    ("fs.symlink", Path(Write, false, 1)),
    ("fs.symlinkSync", Path(Write, false, 1)),
    ("fs.link", Path(Write, false, 1)),
    ("fs.linkSync", Path(Write, false, 1)),
    ("fs.truncate", Path(Write, false, 0)),
    ("fs.truncateSync", Path(Write, false, 0)),
    ("fs.utimes", Path(Write, false, 0)),
    ("fs.utimesSync", Path(Write, false, 0)),
    ("fs.rename", Rename(0, 1)),
    ("fs.renameSync", Rename(0, 1)),
    ("fs.chmod", Mode(0, 1)),
    ("fs.chmodSync", Mode(0, 1)),
    ("fs.chown", Path(Perms, false, 0)),
    ("fs.chownSync", Path(Perms, false, 0)),
    ("fs.readFile", Path(Read, false, 0)),
    ("fs.readFileSync", Path(Read, false, 0)),
    ("fs.createReadStream", Path(Read, false, 0)),
    ("fs.open", Open(0, 1)),
    ("fs.openSync", Open(0, 1)),
    ("fs.readdir", List(0)),
    ("fs.readdirSync", List(0)),
    ("fs.opendir", List(0)),
    ("fs.opendirSync", List(0)),
    ("fs.glob", List(0)),
    ("fs.globSync", List(0)),
    ("fs.existsSync", Pure),
    ("fs.exists", Pure),
    ("fs.stat", Pure),
    ("fs.statSync", Pure),
    ("fs.lstat", Pure),
    ("fs.lstatSync", Pure),
    ("fs.access", Pure),
    ("fs.accessSync", Pure),
    ("fs.realpath", Same),
    ("fs.realpathSync", Same),
    ("fs.readlink", Pure),
    ("fs.readlinkSync", Pure),
    ("fs.watch", Pure),
    ("fs.watchFile", Pure),
    ("fs.constants.*", Pure),
    ("fs.constants", Pure),
    ("fs.readSync", Pure),
    ("fs.writeSync", Pure),
    ("fs.closeSync", Pure),
    ("fs.close", Pure),
    ("fs.fstatSync", Pure),
    // Paths and the machine: computing.
    ("path.join", Join),
    ("path.resolve", Join),
    ("path.normalize", Same),
    ("path.*", Pure),
    ("os.homedir", Home),
    ("os.*", Pure),
    // The network.
    ("http.request", Net(0)),
    ("http.get", Net(0)),
    ("https.request", Net(0)),
    ("https.get", Net(0)),
    ("http.createServer", Opaque),
    ("https.createServer", Opaque),
    ("http.STATUS_CODES", Pure),
    ("http.Agent", Pure),
    ("https.Agent", Pure),
    ("net.connect", Net(0)),
    ("net.createConnection", Net(0)),
    ("net.isIP", Pure),
    ("net.isIPv4", Pure),
    ("net.isIPv6", Pure),
    ("tls.connect", Net(0)),
    ("http2.connect", Net(0)),
    ("worker_threads.isMainThread", Pure),
    ("worker_threads.parentPort", Pure),
    ("worker_threads.workerData", Pure),
];

/// Reads the program under `root` into `ev`.
pub fn walk(ev: &mut Eval, root: Node) {
    expr(ev, root);
}

fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

fn global(ev: &Eval, name: &str) -> Value {
    match ev.vars.get(name) {
        Some(v) => v.clone(),
        None if name == "require" => Value::Func(Rc::from("global.require")),
        None => ev.attr(&Value::Module(Rc::from("global")), name),
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
        "identifier" | "shorthand_property_identifier" => global(ev, ev.text(node)),
        "this" => Value::Module(Rc::from("global")),
        "string" => string(ev, node),
        "template_string" => {
            let mut parts = Vec::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "string_fragment" => parts.push(Value::Str(ev.text(child).to_owned())),
                    "escape_sequence" => parts.push(Value::Str(unescape(ev.text(child)))),
                    "template_substitution" => {
                        let v = child.named_child(0).map_or(Value::Unknown, |e| expr(ev, e));
                        parts.push(v);
                    }
                    _ => {}
                }
            }
            ev.concat(&parts)
        }
        "number" => Value::Str(ev.text(node).to_owned()),
        "member_expression" => {
            let obj = field(node, "object").map_or(Value::Unknown, |o| expr(ev, o));
            match field(node, "property") {
                Some(p) => ev.attr(&obj, ev.text(p)),
                None => Value::Unknown,
            }
        }
        "subscript_expression" => {
            let obj = field(node, "object").map_or(Value::Unknown, |o| expr(ev, o));
            let key = field(node, "index").map_or(Value::Unknown, |k| expr(ev, k));
            ev.pick(&obj, &key)
        }
        "call_expression" => {
            let function = field(node, "function");
            let f = match function {
                Some(f) if f.kind() == "import" => Value::Func(Rc::from("global.import")),
                Some(f) => expr(ev, f),
                None => Value::Unknown,
            };
            let args = field(node, "arguments").map_or_else(Vec::new, |a| children(ev, a));
            ev.call(&f, args)
        }
        "new_expression" => {
            let f = field(node, "constructor").map_or(Value::Unknown, |f| expr(ev, f));
            let args = field(node, "arguments").map_or_else(Vec::new, |a| children(ev, a));
            ev.call(&f, args)
        }
        "binary_expression" => {
            let left = field(node, "left").map_or(Value::Unknown, |o| expr(ev, o));
            let right = field(node, "right").map_or(Value::Unknown, |o| expr(ev, o));
            match field(node, "operator").map_or("", |o| ev.text(o)) {
                "+" => ev.concat(&[left, right]),
                // `a || b`, `a ?? b`: either.
                "||" | "??" => match left {
                    Value::Unknown => right,
                    left => left,
                },
                _ => Value::Unknown,
            }
        }
        "array" => Value::List(children(ev, node)),
        "parenthesized_expression" | "await_expression" | "non_null_expression" => {
            each_child(ev, node, expr)
        }
        "sequence_expression" => each_child(ev, node, expr),
        "variable_declarator" => {
            let value = field(node, "value").map_or(Value::Unknown, |v| expr(ev, v));
            if let Some(name) = field(node, "name") {
                bind(ev, name, value);
            }
            Value::Unknown
        }
        "assignment_expression" | "augmented_assignment_expression" => {
            let value = field(node, "right").map_or(Value::Unknown, |v| expr(ev, v));
            if let Some(left) = field(node, "left") {
                bind(ev, left, value.clone());
            }
            value
        }
        "import_statement" => {
            import(ev, node);
            Value::Unknown
        }
        "for_in_statement" => {
            let items = field(node, "right").map_or(Value::Unknown, |r| expr(ev, r));
            if let Some(left) = field(node, "left") {
                let item = match items {
                    Value::Below(d) => Value::Below(d),
                    _ => Value::Unknown,
                };
                bind(ev, left, item);
            }
            if let Some(body) = field(node, "body") {
                expr(ev, body);
            }
            Value::Unknown
        }
        "function_declaration" | "generator_function_declaration" => {
            if let Some(name) = field(node, "name") {
                ev.vars.insert(ev.text(name).to_owned(), Value::Closure);
            }
            if let Some(body) = field(node, "body") {
                expr(ev, body);
            }
            Value::Closure
        }
        "arrow_function" | "function_expression" | "function" | "generator_function" => {
            if let Some(body) = field(node, "body") {
                let value = expr(ev, body);
                // `() => cp.execSync`: an arrow's expression is what it gives back.
                if body.kind() != "statement_block" {
                    ev.kept(&value, "what a function gives back");
                }
            }
            Value::Closure
        }
        "object" | "pair" => {
            each_kept(ev, node, expr, "an object");
            Value::Unknown
        }
        "return_statement" | "yield_expression" => {
            each_kept(ev, node, expr, "what a function gives back");
            Value::Unknown
        }
        "ternary_expression" => {
            each_kept(ev, node, expr, "one side of a condition");
            Value::Unknown
        }
        "comment" | "true" | "false" | "null" | "undefined" | "regex" => Value::Unknown,
        _ => {
            each_child(ev, node, expr);
            Value::Unknown
        }
    };
    ev.leave();
    value
}

fn children(ev: &mut Eval, node: Node) -> Vec<Value> {
    values(ev, node, "spread_element", expr)
}

/// Binds the names in the pattern `node` to `value`: `x`, `{execSync: e, rmSync}`, `[a, b]`.
fn bind(ev: &mut Eval, node: Node, value: Value) {
    match node.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            ev.vars.insert(ev.text(node).to_owned(), value);
        }
        "object_pattern" => {
            let mut cursor = node.walk();
            let members: Vec<Node> = node.named_children(&mut cursor).collect();
            for member in members {
                match member.kind() {
                    "shorthand_property_identifier_pattern" => {
                        let v = ev.attr(&value, ev.text(member));
                        bind(ev, member, v);
                    }
                    "pair_pattern" => {
                        let key = match field(member, "key") {
                            Some(k) if k.kind() == "computed_property_name" => {
                                k.named_child(0).map_or(Value::Unknown, |e| expr(ev, e))
                            }
                            Some(k) if k.kind() == "string" => string(ev, k),
                            Some(k) => Value::Str(ev.text(k).to_owned()),
                            None => Value::Unknown,
                        };
                        let v = ev.index(&value, &key);
                        if let Some(target) = field(member, "value") {
                            bind(ev, target, v);
                        }
                    }
                    "object_assignment_pattern" => {
                        if let Some(left) = field(member, "left") {
                            let v = ev.attr(&value, ev.text(left));
                            bind(ev, left, v);
                        }
                    }
                    _ => bind(ev, member, Value::Unknown),
                }
            }
        }
        "array_pattern" => {
            let mut cursor = node.walk();
            let items: Vec<Node> = node.named_children(&mut cursor).collect();
            for (i, item) in items.into_iter().enumerate() {
                let v = match &value {
                    Value::List(list) => list.get(i).cloned().unwrap_or(Value::Unknown),
                    _ => Value::Unknown,
                };
                bind(ev, item, v);
            }
        }
        "assignment_pattern" => {
            if let Some(left) = field(node, "left") {
                bind(ev, left, value);
            }
        }
        _ => {
            // `o.f = …`, `a[i] = …`: what is assigned into is read for its calls.
            expr(ev, node);
            ev.kept(&value, "an object or collection");
        }
    }
}

/// `import x from 'm'`, `import * as x from 'm'`, `import {a as b} from 'm'`.
fn import(ev: &mut Eval, node: Node) {
    let Some(source) = field(node, "source") else {
        return;
    };
    let module = match string(ev, source) {
        Value::Str(m) => {
            ev.load(&m);
            ev.module(&m)
        }
        _ => return,
    };
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "import_clause" | "named_imports" => stack.push(child),
                "identifier" => {
                    ev.vars.insert(ev.text(child).to_owned(), module.clone());
                }
                "namespace_import" => {
                    if let Some(name) = child.named_child(0) {
                        ev.vars.insert(ev.text(name).to_owned(), module.clone());
                    }
                }
                "import_specifier" => {
                    let name = field(child, "name").map_or("", |n| ev.text(n));
                    let alias = field(child, "alias").map_or(name, |n| ev.text(n));
                    let v = ev.attr(&module, name.trim_matches(['\'', '"']));
                    ev.vars.insert(alias.to_owned(), v);
                }
                _ => {}
            }
        }
    }
}

fn string(ev: &Eval, node: Node) -> Value {
    let mut out = String::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "string_fragment" => out.push_str(ev.text(child)),
            "escape_sequence" => out.push_str(&unescape(ev.text(child))),
            _ => {}
        }
    }
    Value::Str(out)
}
