//! What an inline program does, read from its syntax tree: the values its names hold (which
//! module `o` is after `import os as o`, which function `r` is after `from shutil import
//! rmtree as r`, what string `'sys' + 'tem'` makes) and the acts of the calls it makes.
//!
//! The walk is an abstract evaluation: every node is visited once, in order; names are bound
//! as the program binds them (imports, assignments, destructuring), function bodies and loop
//! bodies are read once where they are written, whether or not they run. A call is resolved
//! to a full name (`os.system`, `fs.rmSync`, `FileUtils.rm_rf`, `unlink`) and looked up in
//! the language's table of APIs. A name in a module that can run processes, delete, write or
//! reach the network, but that the table does not list, is opaque; so is a call whose target
//! is computed from what cannot be read (`getattr(os, name)`, `$f()`, `send(m)`). Values the
//! program cannot know here (its input, a loop's items) are unknown; paths built from them
//! are unknown places, or places below a directory when they come from its listing.
//!
//! The language walkers (`python.rs`, `node.rs`, `ruby.rs`, `php.rs`) turn their grammar's
//! nodes into calls on [`Eval`]; what the acts cost is decided by the shell analysis they are
//! handed to (`interp::report`).

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use tree_sitter::Node;

use super::super::effects::Effect;

/// A value as far as the program's text tells it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Only known when the program runs.
    Unknown,
    /// A string (or number) whose text is known.
    Str(String),
    /// A path below this directory, found by listing it (`glob`, `os.walk`, `readdir`).
    Below(String),
    /// A module or namespace, by its full name (`os`, `child_process`, `FileUtils`).
    Module(Rc<str>),
    /// A function or method by its full name (`os.system`), not yet called.
    Func(Rc<str>),
    /// An object of a known class, with the value it was made from (`Path('x')`).
    Obj(Rc<str>, Rc<Value>),
    /// A method of such an object: the method's full name and the object's value.
    Bound(Rc<str>, Rc<Value>),
    /// The process environment (`os.environ`, `process.env`, `ENV`).
    Environ,
    /// The program's arguments (`sys.argv`, `process.argv`, `ARGV`, `$argv`).
    Argv,
    /// A list or tuple.
    List(Vec<Value>),
    /// A function the program defines itself: its body is read where it is written.
    Closure,
    /// What text evaluated as code gives (`eval('req' + 'uire')`, `Function('return x')`):
    /// the text is read as a program of its own, but what its value is, is not followed.
    Evaluated,
}

impl Value {
    pub fn text(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// What a call does, as the language's table says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Api {
    /// Computes; what it returns is not followed.
    Pure,
    /// Runs the shell line (or argument list) in argument `n`.
    Shell(usize),
    /// Runs the shell line in argument `n`, or with more arguments after it the program
    /// and its arguments (Ruby's `system("rm", "-rf", p)`).
    Argv(usize),
    /// Runs the program in argument `n` with the argument list in `n + 1` (`spawn`).
    Spawn(usize),
    /// Runs the argument list in argument `n`, program first (`execvp(file, argv)`: `n` is
    /// `argv`, whose first item is the program's own name).
    ExecV(usize),
    /// Has an effect on the path in argument `n`; `true`: on the tree below it.
    Path(Effect, bool, usize),
    /// Changes the mode of the path in argument `path` to the mode in argument `mode`.
    Mode(usize, usize),
    /// Copies the path in argument `from` to the path in argument `to`; `true`: a tree.
    Copy(usize, usize, bool),
    /// Moves the path in argument `from` to the path in argument `to`, as `mv` does.
    Rename(usize, usize),
    /// Calls the function in argument `f` on each item of the list in argument `list`
    /// (`array_map`).
    Each(usize, usize),
    /// Opens the path in argument `path` with the mode in argument `mode`.
    Open(usize, usize),
    /// Talks to the network at the address in argument `n`.
    Net(usize),
    /// Returns the module named in argument `n`.
    Import(usize),
    /// Runs the file named in argument `n` as code in the program's own language (`load`,
    /// PHP's `include`); `true`: reading it is an effect on the path too.
    Run(usize, bool),
    /// Runs argument `n` as code in the program's own language.
    Eval(usize),
    /// `getattr(obj, name)`.
    GetAttr,
    /// Joins paths: returns them joined.
    Join,
    /// Returns the home directory.
    Home,
    /// Returns argument 0 (`str()`, `realpath`), with a leading `~` made the home.
    Same,
    /// Returns the environment variable named in argument `n`.
    Env(usize),
    /// Returns paths below the directory in argument `n`.
    List(usize),
    /// Returns an object of this class made from argument 0.
    Class(&'static str),
    /// Calls the function named or held in argument `n` (`call_user_func`, `send`).
    Callback(usize),
    /// Does what cannot be followed here (processes, native code, signals).
    Opaque,
    /// Makes text from the text or numbers it is given (`chr`, `bytes.fromhex`).
    Text(super::text::Text),
}

/// One language's tables.
pub struct Tables {
    /// Full names of functions and what they do. A name ending in `.*` covers everything
    /// below it.
    pub apis: &'static [(&'static str, Api)],
    /// Modules with other names (`posix` is `os`, `node:fs` is `fs`).
    pub aliases: &'static [(&'static str, &'static str)],
    /// Modules and namespaces: a name below one of these is a module too.
    pub modules: &'static [&'static str],
    /// Modules whose unlisted functions are opaque: they can run processes, change files or
    /// reach the network.
    pub capable: &'static [&'static str],
    /// Full names that are the process environment (`os.environ`, `process.env`).
    pub environ: &'static [&'static str],
    /// Full names that are the program's arguments (`sys.argv`).
    pub argv: &'static [&'static str],
    /// Attribute names that are a module whatever they are read from: Python modules hold
    /// the modules they import (`shutil.os`, `os.path.os`, `f.__globals__["os"]`); `<escape>`
    /// stands for the interpreter's internals (`__subclasses__`, `__globals__`), every call
    /// into which is opaque.
    pub reexports: &'static [(&'static str, &'static str)],
    /// `apis` by name, built on first use.
    pub index: OnceLock<HashMap<&'static str, Api>>,
}

impl Tables {
    fn lookup(&self, name: &str) -> Option<Api> {
        self.index
            .get_or_init(|| self.apis.iter().copied().collect())
            .get(name)
            .copied()
    }
}

/// What a program does.
#[derive(Debug, Clone, PartialEq)]
pub enum Act {
    /// Runs a shell line.
    Shell(String),
    /// Has an effect on a path: its text, or a place below a directory, or unknown.
    Path(Effect, bool, Value),
    /// Talks to the network at an address.
    Net(Value),
    /// Does something that cannot be followed; the text names it.
    Opaque(String),
    /// Makes processes in a loop without end; the text names the call.
    Exhaust(String),
    /// Gives a path a mode that lets the group or others read it (first), or sets its setuid
    /// or setgid bit (second).
    Grant(bool, bool, Value),
    /// Loads and runs code by a name the language looks up on the disk: a module (`import
    /// helper`), or a file named as written (`require('./x')`, `load 'x.rb'`).
    Load(String),
}

/// Nodes one program may cost before the rest of it is opaque.
const MAX_NODES: usize = 50_000;
/// How deep the walk follows nested expressions.
const MAX_DEPTH: usize = 200;
/// How many `eval`ed strings are read, in all.
pub const MAX_EVALS: usize = 16;

/// The state of one program's walk.
pub struct Eval<'t> {
    pub src: &'t str,
    pub tables: &'static Tables,
    /// Names the program has bound.
    pub vars: HashMap<String, Value>,
    pub acts: Vec<Act>,
    /// The home directory's text (`~` when unknown), for `expanduser` and `$HOME`.
    pub home: String,
    /// The program's arguments, as far as they are known (`sys.argv[1]` is `args[0]`).
    pub args: Vec<Option<String>>,
    /// Code the program runs with `eval`, read after the program.
    pub evals: Vec<String>,
    /// How many loops without end the walk is inside.
    pub loops: usize,
    /// Texts the program spelled another way (decoded, reversed, from character codes), or
    /// made with one: a module, attribute, command or code named so is hidden on purpose.
    spelled: std::cell::RefCell<Vec<String>>,
    nodes: usize,
    depth: usize,
}

impl<'t> Eval<'t> {
    pub fn new(
        src: &'t str,
        tables: &'static Tables,
        home: String,
        args: Vec<Option<String>>,
    ) -> Self {
        Eval {
            src,
            tables,
            vars: HashMap::new(),
            acts: Vec::new(),
            home,
            args,
            evals: Vec::new(),
            loops: 0,
            spelled: std::cell::RefCell::default(),
            nodes: 0,
            depth: 0,
        }
    }

    /// Reads another text (`eval`ed code) with the same names.
    pub fn with_src<'u>(self, src: &'u str) -> Eval<'u> {
        Eval {
            src,
            tables: self.tables,
            vars: self.vars,
            acts: self.acts,
            home: self.home,
            args: self.args,
            evals: self.evals,
            loops: 0,
            spelled: self.spelled,
            nodes: self.nodes,
            depth: 0,
        }
    }

    pub fn text(&self, node: Node) -> &'t str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// Enters a node; `false` when the program is past what one walk may cost, which makes
    /// it opaque once.
    pub fn enter(&mut self) -> bool {
        self.nodes += 1;
        self.depth += 1;
        if self.nodes > MAX_NODES || self.depth > MAX_DEPTH {
            if !self
                .acts
                .iter()
                .any(|a| matches!(a, Act::Opaque(t) if t == TOO_LARGE))
            {
                self.acts.push(Act::Opaque(TOO_LARGE.to_owned()));
            }
            self.depth -= 1;
            return false;
        }
        true
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub fn opaque(&mut self, what: String) {
        self.acts.push(Act::Opaque(what));
    }

    /// Code loaded by `name` from the disk, as the language finds it there.
    pub fn load(&mut self, name: &str) {
        if !name.is_empty() {
            self.acts.push(Act::Load(name.to_owned()));
        }
    }

    /// A module by name, through the language's aliases.
    pub fn module(&self, name: &str) -> Value {
        let name = self
            .tables
            .aliases
            .iter()
            .find(|(a, _)| *a == name)
            .map_or(name, |(_, to)| to);
        Value::Module(Rc::from(name))
    }

    fn is_module(&self, name: &str) -> bool {
        self.tables.modules.contains(&name) || self.tables.aliases.iter().any(|(a, _)| *a == name)
    }

    /// `obj.name`.
    pub fn attr(&self, obj: &Value, name: &str) -> Value {
        // `socket.socket` is the module's class, not the module again.
        let own =
            matches!(obj, Value::Module(m) if self.tables.lookup(&format!("{m}.{name}")).is_some());
        if let Some((_, module)) = self.tables.reexports.iter().find(|(n, _)| *n == name)
            && !own
            && !matches!(obj, Value::Str(_) | Value::List(_))
        {
            return self.module(module);
        }
        match obj {
            Value::Module(m) | Value::Func(m) => {
                let full = format!("{m}.{name}");
                if self.tables.environ.contains(&full.as_str()) {
                    Value::Environ
                } else if self.tables.argv.contains(&full.as_str()) {
                    Value::Argv
                } else if self.is_module(&full) {
                    self.module(&full)
                } else {
                    Value::Func(Rc::from(full))
                }
            }
            Value::Obj(class, inner) => {
                Value::Bound(Rc::from(format!("{class}.{name}")), Rc::clone(inner))
            }
            Value::Environ if matches!(name, "get" | "fetch" | "getenv") => {
                Value::Func(Rc::from(ENV_GET))
            }
            Value::Environ => self.env_var(name),
            Value::Evaluated => Value::Evaluated,
            // `'hss.'.reverse`, `['.', 'ssh'].join`: text the program computes.
            Value::Str(_) | Value::List(_) => super::text::bound(obj, name),
            // A method of an object the program made: named, so its verb can be read.
            Value::Unknown => Value::Func(Rc::from(format!("?.{name}"))),
            _ => Value::Unknown,
        }
    }

    /// `obj[key]`.
    pub fn index(&self, obj: &Value, key: &Value) -> Value {
        // `globals()['__builtins__']`, `vars(m)['os']`: a name that is a module wherever it
        // is read from.
        if let Value::Str(k) = key
            && matches!(obj, Value::Unknown | Value::Func(_))
            && self.tables.reexports.iter().any(|(n, _)| n == k)
        {
            return self.attr(obj, k);
        }
        match (obj, key) {
            (Value::Environ, Value::Str(k)) => self.env_var(k),
            (Value::Func(m), Value::Str(k)) if &**m == "sys.modules" => self.module(k),
            (Value::Module(_) | Value::Func(_), Value::Str(k)) => self.attr(obj, k),
            // A name computed from what cannot be read, in a module: the call is unknown.
            (Value::Module(m), _) => Value::Func(Rc::from(format!("{m}.?"))),
            (Value::Argv, Value::Str(k)) => k
                .parse::<usize>()
                .ok()
                .and_then(|i| self.args.get(i.checked_sub(1)?).cloned().flatten())
                .map_or(Value::Unknown, Value::Str),
            (Value::List(items), Value::Str(k)) => k
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get(i).cloned())
                .unwrap_or(Value::Unknown),
            (Value::Evaluated, _) => Value::Evaluated,
            // An item picked by what cannot be read: any of them, one item when all are one.
            (Value::List(items), _) => sole(items).cloned().unwrap_or(Value::Unknown),
            _ => Value::Unknown,
        }
    }

    /// `obj[key]` where the program reads it: an item that acts, picked from a list by a key
    /// only known when the program runs, is opaque (which one is called is not known).
    pub fn pick(&mut self, obj: &Value, key: &Value) -> Value {
        if matches!(obj, Value::Module(_) | Value::Func(_) | Value::Environ) {
            self.hidden(key, "a name");
        }
        match obj {
            Value::List(items) if key.text().is_none() => {
                self.any_of(items, "picked from a list by a key known when it runs")
            }
            _ => self.index(obj, key),
        }
    }

    /// The items of a collection a loop binds one by one: the item when every item is the
    /// same; else unknown, and an item that acts among them is opaque (the loop's body calls
    /// each through the same name).
    pub fn each_item(&mut self, items: &[Value]) -> Value {
        self.any_of(items, "bound by a loop over mixed items")
    }

    /// One of `items`, which one known only when the program runs: the item when all are one;
    /// else unknown, and opaque (`how` it is chosen) when one of them acts.
    fn any_of(&mut self, items: &[Value], how: &str) -> Value {
        if let Some(one) = sole(items) {
            return one.clone();
        }
        if let Some(item) = items.iter().find(|i| self.capable(i)) {
            let what = self.named(item);
            self.opaque(format!("{what} {how}"));
        }
        Value::Unknown
    }

    /// Whether calling `v`, or a function in it, can act: a function that acts, a module
    /// whose functions can (`os`, `child_process`), or a list holding one.
    fn capable(&self, v: &Value) -> bool {
        match v {
            Value::Func(name) | Value::Bound(name, _) => self.acts_when_called(name),
            Value::Module(m) => self.in_capable(m),
            Value::List(items) => items.iter().any(|i| self.capable(i)),
            _ => false,
        }
    }

    /// A name for `v` in a reason.
    fn named(&self, v: &Value) -> String {
        match v {
            Value::Func(name) | Value::Bound(name, _) | Value::Module(name) => format!("`{name}`"),
            Value::List(items) => items
                .iter()
                .find(|i| self.capable(i))
                .map_or_else(|| "a function".to_owned(), |i| self.named(i)),
            _ => "a function".to_owned(),
        }
    }

    /// `v` kept where the reader does not follow it: a dictionary's value, an object's
    /// attribute, what a function or lambda gives back, one side of a conditional. A function
    /// (or module) that acts, kept there, is opaque: what is later called through that place is
    /// not seen.
    /// Marks `v`'s text (a list's items' too) as spelled another way.
    pub fn spell(&self, v: &Value) {
        let mut spelled = self.spelled.borrow_mut();
        let mut mark = |t: &str| {
            if !t.is_empty() && spelled.len() < 256 && !spelled.iter().any(|s| s == t) {
                spelled.push(t.to_owned());
            }
        };
        match v {
            Value::Str(t) => mark(t),
            Value::List(items) => items.iter().filter_map(Value::text).for_each(mark),
            _ => {}
        }
    }

    /// Whether `v` (or an item of it) is text the program spelled another way.
    pub fn is_spelled(&self, v: &Value) -> bool {
        match v {
            Value::Str(t) => self.spelled.borrow().iter().any(|s| s == t),
            Value::List(items) => items.iter().any(|i| self.is_spelled(i)),
            Value::Obj(_, inner) => self.is_spelled(inner),
            _ => false,
        }
    }

    /// A name or text a program spelled another way used where it names code: a module, an
    /// attribute, a command, code to run. Hidden on purpose: opaque, whatever it reads as.
    fn hidden(&mut self, v: &Value, what: &str) {
        if self.is_spelled(v) {
            self.opaque(format!(
                "{what} spelled another way (decoded, reversed, from codes)"
            ));
        }
    }

    /// `text * n` and `format % args` on text the program spells from its literals: a
    /// repetition or a character by its code (`%c`) spells it another way; `%s` only fills in.
    pub fn text_op(&self, op: &str, left: &Value, right: &Value) -> Value {
        let out = super::text::operator(op, left, right);
        let spells = op == "*" || left.text().is_some_and(|t| t.contains("%c"));
        if spells || self.is_spelled(left) || self.is_spelled(right) {
            self.spell(&out);
        }
        out
    }

    /// `obj[start:stop:step]`; a slice that steps backwards spells its text another way.
    pub fn slice(&self, obj: &Value, bounds: [Option<&Value>; 3]) -> Value {
        let backwards = bounds[2]
            .and_then(Value::text)
            .is_some_and(|t| t.trim_start().starts_with('-'));
        let out = super::text::slice(obj, bounds);
        if backwards || self.is_spelled(obj) {
            self.spell(&out);
        }
        out
    }

    pub fn kept(&mut self, v: &Value, place: &str) {
        if self.capable(v) {
            let what = self.named(v);
            self.opaque(format!("{what} kept in {place}, called from there unseen"));
        }
    }

    pub fn env_var(&self, name: &str) -> Value {
        if name == "HOME" {
            Value::Str(self.home.clone())
        } else {
            Value::Unknown
        }
    }

    /// What the table says of a full name: the entry itself, or a `.*` entry above it.
    fn api(&self, full: &str) -> Option<Api> {
        if let Some(api) = self.tables.lookup(full) {
            return Some(api);
        }
        let mut at = full.len();
        while let Some(dot) = full[..at].rfind('.') {
            if let Some(api) = self.tables.lookup(&format!("{}.*", &full[..dot])) {
                return Some(api);
            }
            at = dot;
        }
        None
    }

    /// Whether a full name is in a module that can do harm.
    fn in_capable(&self, full: &str) -> bool {
        self.tables.capable.iter().any(|m| {
            full.strip_prefix(m)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    }

    /// Calls `f` with `args`; returns what the call gives.
    pub fn call(&mut self, f: &Value, args: Vec<Value>) -> Value {
        // A function that acts, handed as a value to code that may call it (`map(os.system,
        // …)`, `partial(os.remove, p)`, `list.forEach(execSync)`, `Thread(target=…)`): what
        // it is called with is not known here. A table's own callers (`call_user_func`,
        // `send`) call it themselves.
        let calls_itself =
            matches!(f, Value::Func(n) if matches!(self.api(n), Some(Api::Callback(_))));
        if !calls_itself {
            for a in &args {
                self.handed(a);
            }
        }
        match f {
            Value::Func(name) => {
                let out = self.apply(name, args);
                // A class's own function that gives a path gives an object of the class
                // (`Path.home()`).
                let class = name.rsplit_once('.').map(|(c, _)| c);
                match (out, class.and_then(|c| self.api(c))) {
                    (out @ (Value::Str(_) | Value::Below(_)), Some(Api::Class(c))) => {
                        Value::Obj(Rc::from(c), Rc::new(out))
                    }
                    (out, _) => out,
                }
            }
            Value::Bound(name, this) if name.starts_with(super::text::METHOD) => {
                let method = &name[super::text::METHOD.len()..];
                // `[os.system].pop()`: a method of a list that holds a function that acts.
                self.kept(this, "a list whose method gives it back");
                let out = super::text::method(method, this, &args);
                let spells = matches!(method, "reverse" | "reversed" | "chr")
                    || (matches!(method, "decode" | "encode" | "toString")
                        && args.first().and_then(Value::text).is_some_and(|e| {
                            !matches!(
                                e.to_ascii_lowercase().replace(['-', '_'], "").as_str(),
                                "utf8" | "ascii" | "latin1" | "binary"
                            )
                        }));
                if spells || self.is_spelled(this) || args.iter().any(|a| self.is_spelled(a)) {
                    self.spell(&out);
                }
                out
            }
            Value::Bound(name, this) => {
                let mut all = Vec::with_capacity(args.len() + 1);
                all.push((**this).clone());
                all.extend(args);
                let class = name.rsplit_once('.').map_or("", |(c, _)| c);
                let out = self.apply(name, all);
                // Path methods that give a path give the same kind of object.
                match out {
                    Value::Str(_) | Value::Below(_) if !class.is_empty() => {
                        Value::Obj(Rc::from(class), Rc::new(out))
                    }
                    out => out,
                }
            }
            Value::Module(m) => {
                // A module called as a function (`require('x')()`): its default export.
                let name = Rc::clone(m);
                self.apply(&name, args)
            }
            Value::Evaluated => {
                self.opaque("a function that text evaluated as code gives, called".to_owned());
                Value::Unknown
            }
            _ => Value::Unknown,
        }
    }

    /// A value handed to a call: a function that acts is opaque there.
    pub fn handed(&mut self, v: &Value) {
        if let Value::Func(name) | Value::Bound(name, _) = v
            && self.acts_when_called(name)
        {
            self.opaque(format!("`{name}` handed to code that calls it"));
        } else if matches!(v, Value::List(_)) && self.capable(v) {
            // `next(iter([os.system]))`, `min([os.system], key=id)`: what comes out is one.
            let what = self.named(v);
            self.opaque(format!(
                "{what} in a list handed to code that may give it back"
            ));
        }
    }

    /// Whether calling the function with this full name does something the tables judge.
    fn acts_when_called(&self, name: &str) -> bool {
        match self.api(name) {
            None => self.in_capable(name) || destroys(name),
            Some(api) => !matches!(
                api,
                Api::Pure
                    | Api::Join
                    | Api::Home
                    | Api::Same
                    | Api::Env(_)
                    | Api::List(_)
                    | Api::Class(_)
                    | Api::GetAttr
                    | Api::Import(_)
                    | Api::Text(_)
            ),
        }
    }

    /// Whether a function is in a module the language's tables do not know (the program's
    /// own, a third party's): not a builtin, not a method of an unknown object.
    fn foreign(&self, name: &str) -> bool {
        let Some((module, _)) = name.rsplit_once('.') else {
            return false;
        };
        let known = |m: &str| {
            self.tables.modules.iter().any(|k| {
                m.strip_prefix(k)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            })
        };
        module != "?" && !known(module) && !self.in_capable(module) && !self.is_module(module)
    }

    /// A module's function no table knows (`cleaner.wipe(p)`, `require("./tools").purge(p)`)
    /// may do anything with what it is given, as an unknown program may: each argument that
    /// names a path (`/home/u/.ssh`, `~/x`, `./data`, a directory's listing) is a place it
    /// is given. A function named for reading (`pandas.read_csv`, `numpy.load`) reads it, one
    /// named for saving (`pyplot.savefig`, `json.dump`) writes it: a secret read is still a
    /// secret read, a file elsewhere in the home only read is not held. The language's
    /// builtins (`print`) and methods of an object whose class is not known (`s.split("/")`,
    /// strings' and lists' among them) give none.
    fn given_places(&mut self, name: &str, args: &[Value]) {
        const READS: &[&str] = &["read", "load", "open", "parse", "scan"];
        const WRITES: &[&str] = &["save", "write", "dump", "export", "to_"];
        let verb = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
        let (effect, tree) = if READS.iter().any(|r| verb.starts_with(r)) {
            (Effect::Read, false)
        } else if WRITES.iter().any(|w| verb.starts_with(w)) {
            (Effect::Write, false)
        } else {
            (Effect::Use, true)
        };
        for a in args {
            let path = self.path(a);
            let named = match &path {
                Value::Str(p) => {
                    p.starts_with(['/', '~', '.'])
                        && !p.contains("://")
                        && !p.contains(char::is_whitespace)
                }
                Value::Below(_) => true,
                _ => false,
            };
            if named {
                self.acts.push(Act::Path(effect, tree, path));
            }
        }
    }

    /// Calls the function with this full name.
    pub fn apply(&mut self, name: &str, args: Vec<Value>) -> Value {
        let api = if name == ENV_GET {
            Some(Api::Env(0))
        } else {
            self.api(name)
        };
        let runs = matches!(
            api,
            Some(Api::Shell(_) | Api::Argv(_) | Api::Spawn(_) | Api::ExecV(_))
        );
        if runs && args.iter().any(|a| self.is_spelled(a)) {
            self.opaque(format!(
                "`{name}` of a command spelled another way (decoded, reversed, from codes)"
            ));
        }
        if self.loops > 0 && super::loops::makes_process(name, runs) {
            let act = Act::Exhaust(format!("`{}`", name.trim_start_matches("?.")));
            if !self.acts.contains(&act) {
                self.acts.push(act);
            }
        }
        let Some(api) = api else {
            if self.in_capable(name) || destroys(name) {
                self.opaque(format!("`{}`", name.trim_start_matches("?.")));
            }
            if self.foreign(name) {
                self.given_places(name, &args);
            }
            return Value::Unknown;
        };
        let arg = |n: usize| args.get(n).cloned().unwrap_or(Value::Unknown);
        match api {
            Api::Pure => Value::Unknown,
            Api::Shell(n) => {
                let line = shell_line(&arg(n));
                match line {
                    Some(line) => self.acts.push(Act::Shell(line)),
                    None => self.opaque(format!("`{name}` of a command only known when it runs")),
                }
                Value::Unknown
            }
            Api::Argv(n) => {
                let words = args.get(n..).unwrap_or_default();
                let line = match words {
                    [one] => shell_line(one),
                    [_, _, ..] => shell_line(&Value::List(words.to_vec())),
                    [] => None,
                };
                match line {
                    Some(line) => self.acts.push(Act::Shell(line)),
                    None => self.opaque(format!("`{name}` of a command only known when it runs")),
                }
                Value::Unknown
            }
            Api::Spawn(n) => {
                let mut words = vec![arg(n)];
                if let Value::List(rest) = arg(n + 1) {
                    words.extend(rest);
                } else if args.len() > n + 1 {
                    words.push(arg(n + 1));
                }
                match shell_line(&Value::List(words)) {
                    Some(line) => self.acts.push(Act::Shell(line)),
                    None => self.opaque(format!("`{name}` of a command only known when it runs")),
                }
                Value::Unknown
            }
            Api::ExecV(n) => {
                let line = match arg(n) {
                    Value::List(mut items) if !items.is_empty() => {
                        if let Some(program) = args.get(n.wrapping_sub(1)).filter(|_| n > 0) {
                            items[0] = program.clone();
                        }
                        shell_line(&Value::List(items))
                    }
                    _ => None,
                };
                match line {
                    Some(line) => self.acts.push(Act::Shell(line)),
                    None => self.opaque(format!("`{name}` of a command only known when it runs")),
                }
                Value::Unknown
            }
            Api::Path(effect, tree, n) => {
                self.acts.push(Act::Path(effect, tree, self.path(&arg(n))));
                Value::Unknown
            }
            Api::Run(n, read) => {
                let path = self.path(&arg(n));
                if let Value::Str(file) = &path {
                    // A file named as a path (`load 'x.rb'`, `fork('x.js')`) is found from the
                    // working directory; a `require` names what the language looks up.
                    let relative = !file.starts_with(['/', '.', '~']);
                    if read && relative {
                        self.load(&format!("./{file}"));
                    } else {
                        self.load(file);
                    }
                }
                if read {
                    self.acts.push(Act::Path(Effect::Read, false, path));
                }
                Value::Unknown
            }
            Api::Open(p, m) => {
                let path = self.path(&arg(p));
                // Ruby's and Perl's `open("|command")`.
                if let Value::Str(line) = &path
                    && let Some(line) = line.strip_prefix('|')
                {
                    self.acts.push(Act::Shell(line.to_owned()));
                    return Value::Unknown;
                }
                match arg(m) {
                    Value::Str(mode) if mode.starts_with('|') || mode.ends_with('|') => {
                        self.opaque(format!("`{name}` of a pipe"));
                    }
                    Value::Str(mode) if writes(&mode) => {
                        self.acts.push(Act::Path(Effect::Write, false, path));
                    }
                    Value::Str(_) => self.acts.push(Act::Path(Effect::Read, false, path)),
                    // No mode: read; a mode that cannot be read: either.
                    Value::Unknown if args.len() <= m => {
                        self.acts.push(Act::Path(Effect::Read, false, path));
                    }
                    _ => {
                        self.acts.push(Act::Path(Effect::Read, false, path.clone()));
                        self.acts.push(Act::Path(Effect::Write, false, path));
                    }
                }
                Value::Unknown
            }
            Api::Copy(from, to, tree) => {
                self.acts
                    .push(Act::Path(Effect::Read, tree, self.path(&arg(from))));
                self.acts
                    .push(Act::Path(Effect::Write, tree, self.path(&arg(to))));
                Value::Unknown
            }
            Api::Rename(from, to) => {
                match (self.path(&arg(from)), self.path(&arg(to))) {
                    // Both known: `mv`, judged as the shell's (your files into temp too).
                    (Value::Str(a), Value::Str(b)) => {
                        let quote = |t: &str| format!("'{}'", t.replace('\'', "'\\''"));
                        let line = format!(
                            "mv -- {} {}",
                            quote(&self.expand_home(&a)),
                            quote(&self.expand_home(&b))
                        );
                        self.acts.push(Act::Shell(line));
                    }
                    (a, b) => {
                        self.acts.push(Act::Path(Effect::Move, true, a));
                        self.acts.push(Act::Path(Effect::Write, true, b));
                    }
                }
                Value::Unknown
            }
            Api::Each(f, list) => {
                let target = match arg(f) {
                    Value::Str(name) => Value::Func(Rc::from(name.as_str())),
                    other => other,
                };
                match (&target, arg(list)) {
                    (Value::Func(_) | Value::Bound(..), Value::List(items)) => {
                        for item in items.into_iter().take(MAX_EVALS) {
                            self.call(&target, vec![item]);
                        }
                    }
                    (Value::Func(_) | Value::Bound(..), _) => {
                        self.call(&target, vec![Value::Unknown]);
                    }
                    (Value::Closure, _) => {}
                    _ => self.opaque(format!("`{name}` of a function only known when it runs")),
                }
                Value::Unknown
            }
            Api::Mode(p, m) => {
                // A mode that lets everyone write (`0o777`, `0666`, 511).
                let mode = arg(m).text().and_then(|t| {
                    let t = t.trim_start_matches("0o").trim_start_matches("0O");
                    match t.strip_prefix('0') {
                        Some(octal) => u32::from_str_radix(octal, 8).ok(),
                        None if arg(m)
                            .text()
                            .is_some_and(|o| o.starts_with("0o") || o.starts_with("0O")) =>
                        {
                            u32::from_str_radix(t, 8).ok()
                        }
                        None => t.parse::<u32>().ok(),
                    }
                });
                let effect = if mode.is_some_and(|m| m & 0o002 != 0) {
                    Effect::Expose
                } else {
                    Effect::Perms
                };
                self.acts.push(Act::Path(effect, false, self.path(&arg(p))));
                // Read for the group or others, and setuid or setgid bits, are judged on the
                // place as `chmod`'s are.
                let read = mode.is_some_and(|m| m & 0o044 != 0);
                let setid = mode.is_some_and(|m| m & 0o6000 != 0);
                if read || setid {
                    self.acts.push(Act::Grant(read, setid, self.path(&arg(p))));
                }
                Value::Unknown
            }
            Api::Net(n) => {
                self.acts.push(Act::Net(arg(n)));
                Value::Unknown
            }
            Api::Import(n) => match arg(n) {
                Value::Str(m) => {
                    self.hidden(&arg(n), "a module's name");
                    self.load(&m);
                    self.module(&m)
                }
                _ => {
                    self.opaque(format!("`{name}` of a module only known when it runs"));
                    Value::Unknown
                }
            },
            Api::Eval(n) => match arg(n) {
                Value::Str(code) if self.evals.len() < MAX_EVALS => {
                    self.hidden(&arg(n), "code");
                    self.evals.push(code);
                    Value::Evaluated
                }
                // `setTimeout(() => …)`: a function, read where it is written.
                Value::Closure => Value::Unknown,
                _ => {
                    self.opaque(format!("`{name}` of code only known when it runs"));
                    Value::Unknown
                }
            },
            Api::GetAttr => match (arg(0), arg(1)) {
                (obj, Value::Str(attr)) => {
                    self.hidden(&arg(1), "an attribute's name");
                    self.attr(&obj, &attr)
                }
                (obj @ Value::Module(_), key) => self.index(&obj, &key),
                _ => Value::Unknown,
            },
            Api::Join => self.join(&args),
            Api::Home => Value::Str(self.home.clone()),
            Api::Same => match arg(0) {
                Value::Str(s) => Value::Str(self.expand_home(&s)),
                Value::Obj(_, inner) => (*inner).clone(),
                other => other,
            },
            Api::Env(n) => match arg(n) {
                Value::Str(k) => self.env_var(&k),
                _ => Value::Unknown,
            },
            Api::List(n) => match self.path(&arg(n)) {
                // A pattern's matches are below the directory before its first wildcard.
                Value::Str(dir) | Value::Below(dir) => {
                    let fixed = dir.find(['*', '?', '[', '{']).map_or(dir.as_str(), |at| {
                        dir[..at].rsplit_once('/').map_or(".", |(d, _)| d)
                    });
                    Value::Below(if fixed.is_empty() {
                        "/".to_owned()
                    } else {
                        fixed.to_owned()
                    })
                }
                _ => Value::Unknown,
            },
            Api::Class(class) => Value::Obj(Rc::from(class), Rc::new(self.join(&args))),
            Api::Callback(n) => {
                let target = match arg(n) {
                    Value::Str(f) => Value::Func(Rc::from(f.as_str())),
                    other => other,
                };
                match target {
                    Value::Func(_) | Value::Bound(..) => {
                        let rest = args.get(n + 1..).map(<[Value]>::to_vec).unwrap_or_default();
                        self.call(&target, rest)
                    }
                    Value::Closure => Value::Unknown,
                    _ => {
                        self.opaque(format!("`{name}` of a function only known when it runs"));
                        Value::Unknown
                    }
                }
            }
            Api::Opaque => {
                self.opaque(format!("`{name}`"));
                Value::Unknown
            }
            Api::Text(text) => {
                let out = super::text::function(text, &args);
                // `Decode` of plain text (`Buffer.from('x')`) is the text itself.
                let plain = text == super::text::Text::Decode
                    && args.get(1).and_then(Value::text).is_none_or(|e| {
                        matches!(
                            e.to_ascii_lowercase().replace(['-', '_'], "").as_str(),
                            "utf8" | "ascii" | "latin1" | "binary"
                        )
                    });
                if !plain || args.iter().any(|a| self.is_spelled(a)) {
                    self.spell(&out);
                }
                out
            }
        }
    }

    /// A value used as a path: objects give what they were made from.
    fn path(&self, v: &Value) -> Value {
        match v {
            Value::Obj(_, inner) => self.path(inner),
            Value::List(items) => items.first().map_or(Value::Unknown, |i| self.path(i)),
            other => other.clone(),
        }
    }

    /// Paths joined as `os.path.join` does: an absolute part starts afresh.
    pub fn join(&self, parts: &[Value]) -> Value {
        let mut out = String::new();
        let mut below = false;
        for part in parts {
            match self.path(part) {
                Value::Str(s) => {
                    if s.starts_with('/') || out.is_empty() {
                        out = s;
                    } else {
                        if !out.ends_with('/') {
                            out.push('/');
                        }
                        out.push_str(&s);
                    }
                }
                Value::Below(d) => {
                    out = d;
                    below = true;
                }
                _ if out.is_empty() => return Value::Unknown,
                // A part only known at run time: somewhere below what is known so far.
                _ => below = true,
            }
        }
        if parts.is_empty() {
            Value::Unknown
        } else if below {
            Value::Below(out)
        } else {
            Value::Str(out)
        }
    }

    /// Concatenation of strings (`+`, `.`, f-strings, templates).
    pub fn concat(&self, parts: &[Value]) -> Value {
        let joined = self.concat_of(parts);
        if parts.iter().any(|p| self.is_spelled(p)) {
            self.spell(&joined);
        }
        joined
    }

    fn concat_of(&self, parts: &[Value]) -> Value {
        let mut out = String::new();
        for (i, p) in parts.iter().enumerate() {
            match self.path(p) {
                Value::Str(s) => out.push_str(&s),
                // Text after a directory's known start: a path below it (`HOME + x`).
                Value::Below(d) if i == 0 => return Value::Below(d),
                _ if i > 0 && out.contains('/') => {
                    let dir = out.rsplit_once('/').map_or("", |(d, _)| d);
                    return Value::Below(if dir.is_empty() {
                        "/".to_owned()
                    } else {
                        dir.to_owned()
                    });
                }
                _ => return Value::Unknown,
            }
        }
        Value::Str(out)
    }

    pub fn expand_home(&self, s: &str) -> String {
        match s.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                format!("{}{rest}", self.home)
            }
            _ => s.to_owned(),
        }
    }
}

/// The name of `os.environ.get` and its kin.
const ENV_GET: &str = "environ.get";

/// A language walker's evaluation of one node.
pub type Walk = fn(&mut Eval, Node) -> Value;

/// The values of `node`'s children, comments left out; a child of kind `spread`
/// (`f(...xs)`, `f(*xs)`) stands for the items of the list it holds.
pub fn values(ev: &mut Eval, node: Node, spread: &str, expr: Walk) -> Vec<Value> {
    let mut cursor = node.walk();
    let nodes: Vec<Node> = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect();
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        if n.kind() == spread {
            match n.named_child(0).map(|v| expr(ev, v)) {
                Some(Value::List(items)) => out.extend(items),
                _ => out.push(Value::Unknown),
            }
        } else {
            out.push(expr(ev, n));
        }
    }
    out
}

/// Evaluates each named child of `node` for what its calls do; gives the last one's value.
pub fn each_child(ev: &mut Eval, node: Node, expr: Walk) -> Value {
    let mut last = Value::Unknown;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        last = expr(ev, child);
    }
    last
}

/// The one value every item of `items` is, when they are all one.
fn sole(items: &[Value]) -> Option<&Value> {
    let (first, rest) = items.split_first()?;
    rest.iter().all(|i| i == first).then_some(first)
}

/// Walks each named child of `node`, as [`each_child`], each child's value kept in `place`
/// ([`Eval::kept`]): a dictionary's or object's entries, a return's value.
pub fn each_kept(ev: &mut Eval, node: Node, expr: Walk, place: &str) -> Value {
    let mut last = Value::Unknown;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        last = expr(ev, child);
        ev.kept(&last, place);
    }
    last
}

const TOO_LARGE: &str = "a program larger or more deeply nested than the gate reads";

/// A method whose name says it destroys what a client holds (`deleteIndex`, `drop_table`,
/// `flushall`): on an object the tables do not know (a database or cloud client), its call
/// is opaque. Bare verbs are left alone: `list.remove`, `dict.clear`, `df.drop` are
/// collections'.
pub fn destroys(name: &str) -> bool {
    const VERBS: &[&str] = &[
        "delete", "destroy", "drop", "purge", "truncate", "wipe", "flush", "clear",
    ];
    const COLLECTIONS: &[&str] = &[
        "drop_duplicates",
        "delete_item",
        "clearTimeout",
        "clearInterval",
        "clearImmediate",
        "clearLine",
        "clearScreenDown",
        "clear_output",
    ];
    let last = name.rsplit('.').next().unwrap_or(name);
    if COLLECTIONS.contains(&last) {
        return false;
    }
    matches!(last, "flushall" | "flushdb" | "destroy" | "purge" | "wipe")
        || VERBS.iter().any(|v| {
            last.strip_prefix(v)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase() || c == '_'))
        })
}

/// A mode string that writes: `w`, `a+`, `>file`, `>>`, `O_WRONLY`-style flags.
pub fn writes(m: &str) -> bool {
    m.starts_with('>')
        || (m.len() <= 4
            && !m.is_empty()
            && m.chars().all(|c| "rwabxtsU+".contains(c))
            && m.contains(['w', 'a', 'x', '+']))
}

/// A shell line from a string, or from a list of words (each quoted).
pub fn shell_line(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.clone()),
        Value::List(items) if !items.is_empty() => {
            let words: Option<Vec<String>> = items
                .iter()
                .map(|i| i.text().map(|t| format!("'{}'", t.replace('\'', "'\\''"))))
                .collect();
            words.map(|w| w.join(" "))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_that_write() {
        for m in ["w", "wb", "a+", "r+", "x", ">out", ">>log"] {
            assert!(writes(m), "{m}");
        }
        for m in ["r", "rb", "rt", "", "read"] {
            assert!(!writes(m), "{m}");
        }
    }

    #[test]
    fn lists_become_quoted_lines() {
        let v = Value::List(vec![
            Value::Str("rm".into()),
            Value::Str("-rf".into()),
            Value::Str("it's".into()),
        ]);
        assert_eq!(shell_line(&v).as_deref(), Some("'rm' '-rf' 'it'\\''s'"));
        assert_eq!(shell_line(&Value::List(vec![Value::Unknown])), None);
    }
}
