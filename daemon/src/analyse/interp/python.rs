//! Python programs, read with tree-sitter-python.

use std::rc::Rc;

use tree_sitter::Node;

use super::super::effects::Effect::{Delete, Perms, Read, Write};
use super::eval::Api::{self, *};
use super::eval::{Eval, Tables, Value, each_child, each_kept, values};
use super::text::Text::{Base64, Chr, Decode, FromHex, Reverse};

pub static TABLES: Tables = Tables {
    apis: APIS,
    aliases: &[
        ("posix", "os"),
        ("nt", "os"),
        ("commands", "subprocess"),
        ("__builtins__", "builtins"),
        ("builtins.__builtins__", "builtins"),
        ("builtins.__dict__", "builtins"),
        ("os.path.__dict__", "os.path"),
        ("os.__dict__", "os"),
        ("urllib2", "urllib.request"),
        ("posixpath", "os.path"),
    ],
    modules: &[
        "os",
        "os.path",
        "sys",
        "builtins",
        "subprocess",
        "shutil",
        "pathlib",
        "urllib",
        "urllib.request",
        "http",
        "http.client",
        "importlib",
        "asyncio",
        "socket",
        "requests",
        "httpx",
        "glob",
        "pty",
        "ctypes",
        "multiprocessing",
        "signal",
        "tarfile",
        "zipfile",
    ],
    capable: &[
        "<escape>",
        "os",
        "subprocess",
        "shutil",
        "socket",
        "ctypes",
        "pty",
        "importlib",
        "urllib.request",
        "http.client",
        "requests",
        "httpx",
        "ftplib",
        "smtplib",
        "telnetlib",
        "paramiko",
        "pexpect",
        "sh",
        "plumbum",
        "fabric",
        "invoke",
        "webbrowser",
        "marshal",
        "runpy",
        "code",
        "pickle",
        "signal",
        "cffi",
    ],
    environ: &["os.environ", "os.environb"],
    reexports: &[
        ("os", "os"),
        ("_os", "os"),
        ("posix", "os"),
        ("subprocess", "subprocess"),
        ("_subprocess", "subprocess"),
        ("shutil", "shutil"),
        ("sys", "sys"),
        ("builtins", "builtins"),
        ("__builtins__", "builtins"),
        ("importlib", "importlib"),
        ("socket", "socket"),
        ("ctypes", "ctypes"),
        ("pty", "pty"),
        ("__subclasses__", "<escape>"),
        ("__globals__", "<escape>"),
        ("__code__", "<escape>"),
        ("f_globals", "<escape>"),
        ("gi_frame", "<escape>"),
        ("__loader__", "<escape>"),
    ],
    index: std::sync::OnceLock::new(),
    argv: &["sys.argv"],
};

const APIS: &[(&str, Api)] = &[
    // The language itself.
    ("builtins.open", Open(0, 1)),
    // Code in a string, run by the standard library's timers and debuggers.
    ("timeit.timeit", Eval(0)),
    ("timeit.repeat", Eval(0)),
    ("timeit.Timer", Eval(0)),
    ("pdb.run", Eval(0)),
    ("pdb.runeval", Eval(0)),
    ("cProfile.run", Eval(0)),
    ("profile.run", Eval(0)),
    ("trace.Trace.run", Eval(0)),
    ("builtins.eval", Eval(0)),
    ("builtins.exec", Eval(0)),
    ("builtins.compile", Eval(0)),
    ("builtins.__import__", Import(0)),
    ("builtins.getattr", GetAttr),
    ("builtins.setattr", Pure),
    ("builtins.str", Same),
    // Text made from text: computed (`interp/text.rs`).
    ("builtins.chr", Text(Chr)),
    ("builtins.reversed", Text(Reverse)),
    ("builtins.bytes.fromhex", Text(FromHex)),
    ("builtins.bytearray.fromhex", Text(FromHex)),
    ("binascii.unhexlify", Text(FromHex)),
    ("binascii.a2b_hex", Text(FromHex)),
    ("base64.b64decode", Text(Base64)),
    ("base64.urlsafe_b64decode", Text(Base64)),
    ("base64.decodebytes", Text(Base64)),
    ("codecs.decode", Text(Decode)),
    ("builtins.vars", Same),
    ("operator.attrgetter", Opaque),
    ("operator.methodcaller", Opaque),
    ("builtins.breakpoint", Opaque),
    ("importlib.import_module", Import(0)),
    ("importlib.__import__", Import(0)),
    ("importlib.reload", Pure),
    ("importlib.util.*", Opaque),
    // Processes.
    ("os.system", Shell(0)),
    ("os.popen", Shell(0)),
    ("subprocess.run", Shell(0)),
    ("subprocess.call", Shell(0)),
    ("subprocess.check_call", Shell(0)),
    ("subprocess.check_output", Shell(0)),
    ("subprocess.Popen", Shell(0)),
    ("subprocess.getoutput", Shell(0)),
    ("subprocess.getstatusoutput", Shell(0)),
    ("subprocess.PIPE", Pure),
    ("subprocess.DEVNULL", Pure),
    ("subprocess.STDOUT", Pure),
    ("subprocess.CalledProcessError", Pure),
    ("subprocess.TimeoutExpired", Pure),
    ("asyncio.create_subprocess_shell", Shell(0)),
    ("asyncio.create_subprocess_exec", Spawn(0)),
    ("os.execv", ExecV(1)),
    ("os.execve", ExecV(1)),
    ("os.execvp", ExecV(1)),
    ("os.execvpe", ExecV(1)),
    ("os.posix_spawn", ExecV(1)),
    ("os.posix_spawnp", ExecV(1)),
    ("pty.spawn", Shell(0)),
    // Files.
    ("os.remove", Path(Delete, false, 0)),
    ("os.unlink", Path(Delete, false, 0)),
    ("os.rmdir", Path(Delete, false, 0)),
    ("os.removedirs", Path(Delete, true, 0)),
    ("shutil.rmtree", Path(Delete, true, 0)),
    ("shutil.move", Rename(0, 1)),
    ("os.rename", Rename(0, 1)),
    ("os.renames", Rename(0, 1)),
    ("os.replace", Rename(0, 1)),
    ("os.chmod", Mode(0, 1)),
    ("os.chown", Path(Perms, false, 0)),
    ("os.lchown", Path(Perms, false, 0)),
    ("shutil.chown", Path(Perms, false, 0)),
    ("os.truncate", Path(Write, false, 0)),
    ("os.mkdir", Path(Write, false, 0)),
    ("os.makedirs", Path(Write, false, 0)),
    ("os.symlink", Path(Write, false, 1)),
    ("os.link", Path(Write, false, 1)),
    ("os.mkfifo", Path(Write, false, 0)),
    ("os.utime", Path(Write, false, 0)),
    ("shutil.copy", Copy(0, 1, false)),
    ("shutil.copy2", Copy(0, 1, false)),
    ("shutil.copyfile", Copy(0, 1, false)),
    ("shutil.copytree", Copy(0, 1, true)),
    ("shutil.copymode", Path(Perms, false, 1)),
    ("shutil.copystat", Path(Perms, false, 1)),
    ("shutil.make_archive", Path(Read, true, 2)),
    ("shutil.unpack_archive", Path(Write, true, 1)),
    ("os.open", Open(0, 1)),
    ("tarfile.open", Class("tarfile.TarFile")),
    ("tarfile.TarFile", Class("tarfile.TarFile")),
    ("tarfile.TarFile.add", Path(Read, true, 1)),
    ("tarfile.TarFile.extractall", Path(Write, true, 1)),
    ("tarfile.TarFile.extract", Path(Write, true, 2)),
    ("tarfile.TarFile.*", Pure),
    ("zipfile.ZipFile", Class("zipfile.ZipFile")),
    ("zipfile.ZipFile.write", Path(Read, false, 1)),
    ("zipfile.ZipFile.extractall", Path(Write, true, 1)),
    ("zipfile.ZipFile.extract", Path(Write, true, 2)),
    ("zipfile.ZipFile.*", Pure),
    ("io.open", Open(0, 1)),
    ("codecs.open", Open(0, 1)),
    ("os.listdir", List(0)),
    ("os.scandir", List(0)),
    ("os.walk", List(0)),
    ("os.fwalk", List(0)),
    ("glob.glob", List(0)),
    ("glob.iglob", List(0)),
    ("pathlib.Path", Class("pathlib.Path")),
    ("pathlib.PosixPath", Class("pathlib.Path")),
    ("pathlib.PurePath", Class("pathlib.Path")),
    ("pathlib.Path.home", Home),
    ("pathlib.Path.cwd", Pure),
    ("pathlib.Path.unlink", Path(Delete, false, 0)),
    ("pathlib.Path.rmdir", Path(Delete, false, 0)),
    ("pathlib.Path.write_text", Path(Write, false, 0)),
    ("pathlib.Path.write_bytes", Path(Write, false, 0)),
    ("pathlib.Path.touch", Path(Write, false, 0)),
    ("pathlib.Path.mkdir", Path(Write, false, 0)),
    ("pathlib.Path.symlink_to", Path(Write, false, 0)),
    ("pathlib.Path.hardlink_to", Path(Write, false, 0)),
    ("pathlib.Path.read_text", Path(Read, false, 0)),
    ("pathlib.Path.read_bytes", Path(Read, false, 0)),
    ("pathlib.Path.open", Open(0, 1)),
    ("pathlib.Path.rename", Rename(0, 1)),
    ("pathlib.Path.replace", Rename(0, 1)),
    ("pathlib.Path.chmod", Mode(0, 1)),
    ("pathlib.Path.lchmod", Path(Perms, false, 0)),
    ("pathlib.Path.expanduser", Same),
    ("pathlib.Path.resolve", Same),
    ("pathlib.Path.absolute", Same),
    ("pathlib.Path.joinpath", Join),
    ("pathlib.Path.glob", List(0)),
    ("pathlib.Path.rglob", List(0)),
    ("pathlib.Path.iterdir", List(0)),
    ("pathlib.Path.walk", List(0)),
    // Paths and the environment: computing.
    ("os.path.join", Join),
    ("os.path.expanduser", Same),
    ("os.path.abspath", Same),
    ("os.path.realpath", Same),
    ("os.path.normpath", Same),
    ("os.path.*", Pure),
    ("os.getenv", Env(0)),
    ("os.environ.*", Pure),
    ("os.getcwd", Pure),
    ("os.getcwdb", Pure),
    ("os.getpid", Pure),
    ("os.getppid", Pure),
    ("os.getuid", Pure),
    ("os.geteuid", Pure),
    ("os.getgid", Pure),
    ("os.getlogin", Pure),
    ("os.cpu_count", Pure),
    ("os.uname", Pure),
    ("os.stat", Pure),
    ("os.lstat", Pure),
    ("os.access", Pure),
    ("os.sep", Pure),
    ("os.linesep", Pure),
    ("os.pathsep", Pure),
    ("os.name", Pure),
    ("os.devnull", Pure),
    ("os.curdir", Pure),
    ("os.get_terminal_size", Pure),
    ("os.fspath", Same),
    ("os.fsencode", Same),
    ("os.fsdecode", Same),
    ("os.urandom", Pure),
    ("os.isatty", Pure),
    ("os.umask", Pure),
    ("os.times", Pure),
    ("os.getloadavg", Pure),
    ("os.sched_getaffinity", Pure),
    ("os.strerror", Pure),
    ("os.write", Pure),
    ("os.read", Pure),
    ("os.close", Pure),
    ("os.chdir", Pure),
    ("os.O_RDONLY", Pure),
    ("os.path", Pure),
    ("shutil.which", Pure),
    ("shutil.disk_usage", Pure),
    ("shutil.get_terminal_size", Pure),
    ("shutil.copyfileobj", Pure),
    ("socket.gethostname", Pure),
    ("socket.getfqdn", Pure),
    ("socket.gethostbyname", Pure),
    ("socket.getaddrinfo", Pure),
    ("socket.inet_aton", Pure),
    ("socket.inet_ntoa", Pure),
    ("socket.AF_INET", Pure),
    ("socket.AF_INET6", Pure),
    ("socket.AF_UNIX", Pure),
    ("socket.SOCK_STREAM", Pure),
    ("socket.SOCK_DGRAM", Pure),
    ("socket.SOCK_SEQPACKET", Pure),
    ("socket.SOCK_RAW", Pure),
    ("socket.socket", Class("socket.socket")),
    ("socket.create_connection", Net(0)),
    ("socket.socket.connect", Net(1)),
    ("socket.socket.sendto", Net(2)),
    ("socket.socket.bind", Opaque),
    ("socket.socket.*", Pure),
    ("signal.signal", Pure),
    ("signal.SIGINT", Pure),
    ("signal.SIGTERM", Pure),
    ("signal.SIGPIPE", Pure),
    ("signal.SIG_DFL", Pure),
    ("signal.SIG_IGN", Pure),
    ("signal.alarm", Pure),
    ("pickle.dumps", Pure),
    ("pickle.dump", Pure),
    // The network.
    ("urllib.request.urlopen", Net(0)),
    ("urllib.request.Request", Net(0)),
    ("urllib.request.urlretrieve", Net(0)),
    ("urllib.request.build_opener", Pure),
    ("urllib.request.install_opener", Pure),
    ("urllib.request.ProxyHandler", Pure),
    ("urllib.request.HTTPHandler", Pure),
    ("http.client.HTTPConnection", Net(0)),
    ("http.client.HTTPSConnection", Net(0)),
    ("requests.get", Net(0)),
    ("requests.head", Net(0)),
    ("requests.post", Net(0)),
    ("requests.put", Net(0)),
    ("requests.patch", Net(0)),
    ("requests.delete", Net(0)),
    ("requests.request", Net(1)),
    ("requests.Session", Pure),
    ("requests.exceptions.*", Pure),
    ("requests.RequestException", Pure),
    ("requests.HTTPError", Pure),
    ("httpx.get", Net(0)),
    ("httpx.head", Net(0)),
    ("httpx.post", Net(0)),
    ("httpx.put", Net(0)),
    ("httpx.patch", Net(0)),
    ("httpx.delete", Net(0)),
    ("httpx.request", Net(1)),
    ("httpx.stream", Net(1)),
    ("ftplib.FTP", Net(0)),
    ("smtplib.SMTP", Net(0)),
    ("smtplib.SMTP_SSL", Net(0)),
    ("webbrowser.open", Net(0)),
];

/// Reads the program under `root` into `ev`.
pub fn walk(ev: &mut Eval, root: Node) {
    expr(ev, root);
}

fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
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
                None => ev.attr(&ev.module("builtins"), name),
            }
        }
        "string" => string(ev, node),
        "concatenated_string" => {
            let parts = children(ev, node);
            ev.concat(&parts)
        }
        "integer" | "float" => Value::Str(ev.text(node).to_owned()),
        // `-1`: a number, as a slice's step.
        "unary_operator" => {
            let operand = field(node, "argument").map_or(Value::Unknown, |a| expr(ev, a));
            match (field(node, "operator").map(|o| ev.text(o)), operand) {
                (Some("-"), Value::Str(n)) if n.parse::<i64>().is_ok() => {
                    Value::Str(format!("-{n}"))
                }
                _ => Value::Unknown,
            }
        }
        "attribute" => {
            let obj = field(node, "object").map_or(Value::Unknown, |o| expr(ev, o));
            match field(node, "attribute") {
                Some(a) => ev.attr(&obj, ev.text(a)),
                None => Value::Unknown,
            }
        }
        "subscript" => {
            let obj = field(node, "value").map_or(Value::Unknown, |o| expr(ev, o));
            let mut key = Value::Unknown;
            let mut sliced = None;
            let mut cursor = node.walk();
            for (i, k) in node
                .children_by_field_name("subscript", &mut cursor)
                .enumerate()
            {
                if i == 0 && k.kind() == "slice" {
                    sliced = Some(slice(ev, &obj, k));
                    continue;
                }
                let v = expr(ev, k);
                if i == 0 {
                    key = v;
                }
            }
            match sliced {
                Some(value) => value,
                None => ev.pick(&obj, &key),
            }
        }
        "call" => call(ev, node),
        "binary_operator" => {
            let left = field(node, "left").map_or(Value::Unknown, |o| expr(ev, o));
            let right = field(node, "right").map_or(Value::Unknown, |o| expr(ev, o));
            let op = field(node, "operator").map_or("", |o| ev.text(o));
            match (op, &left) {
                ("/", Value::Obj(class, _)) => {
                    Value::Obj(Rc::clone(class), Rc::new(ev.join(&[left.clone(), right])))
                }
                ("+", _) => ev.concat(&[left, right]),
                // `'s' * 2`, `'%c' % 46`: text made from literals.
                ("*", Value::Str(_)) | ("%", Value::Str(_)) => ev.text_op(op, &left, &right),
                _ => Value::Unknown,
            }
        }
        "list" | "tuple" | "expression_list" => Value::List(children(ev, node)),
        "parenthesized_expression" => node
            .named_child(0)
            .map_or(Value::Unknown, |inner| expr(ev, inner)),
        "assignment" => {
            let value = field(node, "right").map_or(Value::Unknown, |r| expr(ev, r));
            if let Some(left) = field(node, "left") {
                bind(ev, left, value);
            }
            Value::Unknown
        }
        "named_expression" => {
            let value = field(node, "value").map_or(Value::Unknown, |r| expr(ev, r));
            if let Some(name) = field(node, "name") {
                bind(ev, name, value.clone());
            }
            value
        }
        "import_statement" => {
            import(ev, node);
            Value::Unknown
        }
        "import_from_statement" => {
            import_from(ev, node);
            Value::Unknown
        }
        "for_statement" | "for_in_clause" => {
            let items = field(node, "right").map_or(Value::Unknown, |r| expr(ev, r));
            let item = match &items {
                Value::List(items) => ev.each_item(items),
                other => item_of(other),
            };
            if let Some(left) = field(node, "left") {
                bind(ev, left, item);
            }
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                if Some(child) != field(node, "left") && Some(child) != field(node, "right") {
                    expr(ev, child);
                }
            }
            Value::Unknown
        }
        "as_pattern" => {
            let value = node.named_child(0).map_or(Value::Unknown, |v| expr(ev, v));
            if let Some(alias) = field(node, "alias").and_then(|a| a.named_child(0)) {
                bind(ev, alias, value.clone());
            }
            value
        }
        "class_definition" => {
            if let Some(name) = field(node, "name") {
                ev.vars.insert(ev.text(name).to_owned(), Value::Closure);
            }
            // `class C: run = os.system`: what the body assigns is the class's attribute.
            let mut cursor = node.walk();
            for part in node.named_children(&mut cursor) {
                if field(node, "body") != Some(part) {
                    expr(ev, part);
                    continue;
                }
                let mut statements = part.walk();
                for statement in part.named_children(&mut statements) {
                    let value = match statement.named_child(0) {
                        Some(inner) if inner.kind() == "assignment" => {
                            let value =
                                field(inner, "right").map_or(Value::Unknown, |r| expr(ev, r));
                            if let Some(left) = field(inner, "left") {
                                bind(ev, left, value.clone());
                            }
                            value
                        }
                        _ => expr(ev, statement),
                    };
                    ev.kept(&value, "a class's attribute");
                }
            }
            Value::Closure
        }
        "function_definition" => {
            if let Some(name) = field(node, "name") {
                ev.vars.insert(ev.text(name).to_owned(), Value::Closure);
            }
            // Default values are computed where the function is written.
            if let Some(parameters) = field(node, "parameters") {
                expr(ev, parameters);
            }
            if let Some(body) = field(node, "body") {
                expr(ev, body);
            }
            Value::Closure
        }
        "lambda" => {
            if let Some(parameters) = field(node, "parameters") {
                expr(ev, parameters);
            }
            if let Some(body) = field(node, "body") {
                let value = expr(ev, body);
                ev.kept(&value, "what a lambda gives back");
            }
            Value::Closure
        }
        "dictionary" | "set" | "pair" => {
            each_kept(ev, node, expr, "a dictionary");
            Value::Unknown
        }
        "return_statement" | "yield" => {
            each_kept(ev, node, expr, "what a function gives back");
            Value::Unknown
        }
        "conditional_expression" | "boolean_operator" => {
            each_kept(ev, node, expr, "one side of a condition");
            Value::Unknown
        }
        "default_parameter" | "typed_default_parameter" => {
            if let Some(value) = field(node, "value") {
                let value = expr(ev, value);
                ev.kept(&value, "a parameter's default");
            }
            Value::Unknown
        }
        "list_comprehension"
        | "set_comprehension"
        | "dictionary_comprehension"
        | "generator_expression" => {
            // The clauses bind the names the body uses: they run first.
            let mut cursor = node.walk();
            let parts: Vec<Node> = node.named_children(&mut cursor).collect();
            for part in parts.iter().filter(|p| p.kind().ends_with("_clause")) {
                expr(ev, *part);
            }
            for part in parts.iter().filter(|p| !p.kind().ends_with("_clause")) {
                let value = expr(ev, *part);
                ev.kept(&value, "what a comprehension gives");
            }
            Value::Unknown
        }
        "comment" | "true" | "false" | "none" => Value::Unknown,
        _ => {
            each_child(ev, node, expr);
            Value::Unknown
        }
    };
    ev.leave();
    value
}

/// `obj[start:stop:step]`: each bound is the expression between the colons, if any.
fn slice(ev: &mut Eval, obj: &Value, node: Node) -> Value {
    let mut bounds: [Option<Value>; 3] = [None, None, None];
    let mut at = 0;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.kind() == ":" {
            at += 1;
        } else if child.is_named() && at < 3 {
            bounds[at] = Some(expr(ev, child));
        }
    }
    ev.slice(
        obj,
        [bounds[0].as_ref(), bounds[1].as_ref(), bounds[2].as_ref()],
    )
}

fn children(ev: &mut Eval, node: Node) -> Vec<Value> {
    values(ev, node, "list_splat", expr)
}

fn call(ev: &mut Eval, node: Node) -> Value {
    let f = field(node, "function").map_or(Value::Unknown, |f| expr(ev, f));
    let mut args = Vec::new();
    let mut keywords = Vec::new();
    if let Some(list) = field(node, "arguments") {
        let mut cursor = list.walk();
        for arg in list.named_children(&mut cursor) {
            match arg.kind() {
                "keyword_argument" => {
                    let value = field(arg, "value").map_or(Value::Unknown, |v| expr(ev, v));
                    let name = field(arg, "name").map_or("", |n| ev.text(n));
                    keywords.push((name, value));
                }
                "comment" => {}
                // `f(*['rm', '-rf', p])`: the items are the arguments.
                "list_splat" => match arg.named_child(0).map(|v| expr(ev, v)) {
                    Some(Value::List(items)) => args.extend(items),
                    _ => args.push(Value::Unknown),
                },
                _ => args.push(expr(ev, arg)),
            }
        }
    }
    // Keyword forms of the arguments the tables read by position.
    let mut unmapped = Vec::new();
    for (name, value) in keywords {
        let at = match name {
            "args" | "file" | "path" | "src" | "url" | "source" | "name" => 0,
            "mode" | "dst" | "data" => 1,
            _ => {
                unmapped.push((name, value));
                continue;
            }
        };
        if args.len() <= at {
            args.resize(at, Value::Unknown);
            args.push(value);
        }
    }
    for (_, value) in &unmapped {
        ev.handed(value);
    }
    ev.call(&f, args)
}

/// The item a loop over `items` binds.
fn item_of(items: &Value) -> Value {
    match items {
        Value::Below(d) => Value::Below(d.clone()),
        // A listing of paths as objects gives objects (`Path.home().glob('*')`).
        Value::Obj(class, inner) => match item_of(inner) {
            below @ Value::Below(_) => Value::Obj(Rc::clone(class), Rc::new(below)),
            other => other,
        },
        _ => Value::Unknown,
    }
}

/// Binds the names in the target `node` to `value`.
fn bind(ev: &mut Eval, node: Node, value: Value) {
    match node.kind() {
        "identifier" => {
            ev.vars.insert(ev.text(node).to_owned(), value);
        }
        "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => {
            let mut cursor = node.walk();
            let targets: Vec<Node> = node.named_children(&mut cursor).collect();
            for (i, t) in targets.into_iter().enumerate() {
                let item = match &value {
                    Value::List(items) => items.get(i).cloned().unwrap_or(Value::Unknown),
                    other => item_of(other),
                };
                bind(ev, t, item);
            }
        }
        _ => {
            // `a.b = …`, `a[i] = …`: what is assigned into is read for its calls.
            expr(ev, node);
            ev.kept(&value, "an object or collection");
        }
    }
}

fn import(ev: &mut Eval, node: Node) {
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        match name.kind() {
            "aliased_import" => {
                let module = field(name, "name").map_or("", |n| ev.text(n));
                ev.load(module);
                if let Some(alias) = field(name, "alias") {
                    let value = ev.module(module);
                    ev.vars.insert(ev.text(alias).to_owned(), value);
                }
            }
            _ => {
                let module = ev.text(name);
                ev.load(module);
                let first = module.split('.').next().unwrap_or(module);
                let value = ev.module(first);
                ev.vars.insert(first.to_owned(), value);
            }
        }
    }
}

fn import_from(ev: &mut Eval, node: Node) {
    let module = field(node, "module_name").map_or("", |m| ev.text(m));
    // `from . import x` names a package the program is in; an inline program is in none.
    if !module.starts_with('.') {
        ev.load(module);
    }
    let from = ev.module(module);
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "wildcard_import" {
            // Every name of the module: calls to names the program never binds are the
            // module's.
            ev.opaque(format!("`from {module} import *`"));
        }
    }
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        let (member, alias) = match name.kind() {
            "aliased_import" => (
                field(name, "name").map_or("", |n| ev.text(n)),
                field(name, "alias").map_or("", |n| ev.text(n)),
            ),
            _ => (ev.text(name), ev.text(name)),
        };
        // `from pkg import evil` runs `pkg/evil.py` when `pkg` is a package here.
        if !module.starts_with('.') && !module.is_empty() {
            ev.load(&format!("{module}.{member}"));
        }
        let value = ev.attr(&from, member);
        ev.vars.insert(alias.to_owned(), value);
    }
}

/// The value of a string literal: its text, with escapes read unless it is raw, and the
/// values of an f-string's expressions.
fn string(ev: &mut Eval, node: Node) -> Value {
    let start = node.named_child(0).map_or("", |s| ev.text(s));
    let prefix = start.trim_end_matches(['\'', '"']).to_ascii_lowercase();
    let raw = prefix.contains('r');
    let mut parts = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "string_content" => parts.push(Value::Str(if raw {
                ev.text(child).to_owned()
            } else {
                unescape(ev.text(child))
            })),
            "interpolation" => {
                let v = child.named_child(0).map_or(Value::Unknown, |e| expr(ev, e));
                parts.push(v);
            }
            _ => {}
        }
    }
    ev.concat(&parts)
}

/// Backslash escapes of a non-raw string.
pub fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => out.push_str(&hex),
                }
            }
            // `\u0063`, `\u{63}` (JavaScript), `\U00000063` (Python).
            Some(u @ ('u' | 'U')) => {
                let rest = chars.as_str();
                let (hex, used) = match rest.strip_prefix('{') {
                    Some(inner) => match inner.find('}') {
                        Some(end) => (&inner[..end], end + 2),
                        None => ("", 0),
                    },
                    None => {
                        let n = if u == 'U' { 8 } else { 4 };
                        (rest.get(..n).unwrap_or(""), n)
                    }
                };
                match u32::from_str_radix(hex, 16).ok().and_then(char::from_u32) {
                    Some(c) if !hex.is_empty() => {
                        out.push(c);
                        for _ in 0..used {
                            chars.next();
                        }
                    }
                    _ => out.push(u),
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
