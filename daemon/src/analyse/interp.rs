//! Programs in other languages written on the command line: `python -c`, `perl -e`,
//! `ruby -e`, `node -e`, `php -r`, and the same programs fed by a heredoc or here-string.
//! `sed` and `awk` scripts are read in `interp/sed.rs`.
//!
//! A program is not parsed; it is scanned for the calls in its language's table. A call
//! whose argument is a string literal becomes shell text analysed like the input
//! (`shutil.rmtree('/h')` is `rm -rf -- '/h'`, `os.system("…")` is the string itself); a
//! call whose argument cannot be read is opaque; a program with none of them (printing,
//! arithmetic) is safe. Data piped into an interpreter runs code nobody can see: opaque.

mod eval;
mod loops;
mod node;
mod php;
mod python;
mod ruby;
pub mod sed;
mod tables;
pub(crate) mod text;

use std::ops::Range;

use eval::{Act, Eval, MAX_EVALS, Value};
use tables::DESTRUCTIVE_VERBS;
use tables::Does::{Copy, Delete, DeleteTree, Move, Opaque, Open, RunFile, Shell, SysOpen, Write};
pub use tables::{Lang, NODE, PERL, PHP, PYTHON, RUBY, Reader};

use super::State;
use super::act::Site;
use super::catalogue;
use super::effects::Effect::Use;
use super::getopt::Args;
use super::join_path;
use super::programs::unknown::place_word;
use super::recurse::{Ctx, Job, Stdin, queue_mapped};
use super::words::Word;

/// Judges the program of an interpreter; `true` when nothing else is to be judged (a
/// program on the line or on standard input), `false` when it runs a script file, which is
/// judged like any command.
pub fn run(lang: &Lang, name: &str, job: &Job, at: &Ctx, st: &mut State) -> bool {
    let args = &job.words[1..];
    let span = at.span_of(&job.words);
    // `python3 <(curl …)`: the program is a stream the line makes when it runs.
    if let Some(stream) = args
        .iter()
        .find(|w| !w.text.starts_with('-') || w.raw.starts_with("<("))
        .filter(|w| w.raw.starts_with("<(") || w.raw.starts_with(">("))
    {
        let what = format!("`{name} {}`", stream.raw);
        st.add(catalogue::SHELL_READS.at(span, &what));
        return true;
    }
    // `node --test [FILES]`, `node --run SCRIPT`: the project's tests or a script of its
    // `package.json`, the project's code as `npm test` runs it.
    if lang
        .reader
        .as_ref()
        .is_some_and(|r| r.grammar == super::grammar::Grammar::JavaScript)
        && args.iter().any(|w| {
            w.literal()
                .is_some_and(|t| t == "--test" || t == "--run" || t.starts_with("--test-"))
        })
        && !args.iter().any(|w| {
            w.literal()
                .is_some_and(|t| matches!(t, "-e" | "-p" | "--eval" | "--print"))
        })
    {
        st.add(catalogue::BUILDS.at(span, name));
        return true;
    }
    match program(lang, args) {
        Program::Code(words) => {
            let last = words
                .last()
                .and_then(|l| args.iter().position(|a| std::ptr::eq(a, *l)));
            let given: Vec<Option<String>> = last
                .map(|l| &args[l + 1..])
                .unwrap_or_default()
                .iter()
                .map(|w| w.literal().map(str::to_owned))
                .collect();
            // What it loads by name from the working directory is collected for the command's
            // reader (`command.rs`), which may read the disk.
            st.loading = true;
            for w in words {
                let code_span = at.src.map.span(w.span.clone());
                match w.literal() {
                    Some(code) => inspect(lang, name, code, code_span, &given, &job.path, at, st),
                    None => st.add(catalogue::INLINE_PROGRAM.at(code_span, &w.quoted())),
                }
            }
            st.loading = false;
            // What follows the program is its arguments, often files it reads (`perl -pe1
            // FILE`): places it may do anything with.
            if let Some(last) = last {
                let rest = &args[last + 1..];
                let span = at.span_of(&job.words);
                // `perl -pi -e CODE FILE`, `ruby -i`: each file is written over in place.
                let in_place = lang.attached.contains('i')
                    && args[..last].iter().filter_map(Word::literal).any(|t| {
                        t.strip_prefix('-')
                            .filter(|f| !f.starts_with('-'))
                            .is_some_and(|f| f.contains('i'))
                    });
                let mut site = Site::new(name, Args::default(), span, st);
                for w in rest.iter().filter(|w| w.literal() != Some("--")) {
                    if let Some(place) = place_word(w) {
                        if in_place {
                            site.on(super::effects::Effect::Overwrite, &place);
                        } else {
                            site.quiet(Use, &place);
                        }
                    }
                }
                site.report();
            }
            true
        }
        Program::Stdin => match &job.stdin {
            Stdin::Pipe(_) | Stdin::File(_) => {
                st.add(catalogue::STDIN_COMMANDS.at(span, name));
                true
            }
            Stdin::Text { dynamic: true, .. } => {
                st.add(catalogue::STDIN_COMMANDS.at(span, name));
                true
            }
            Stdin::Text {
                text,
                span: at_span,
                ..
            } => {
                let code_span = if at_span.is_empty() {
                    span.clone()
                } else {
                    at.src.map.span(at_span.clone())
                };
                st.loading = true;
                inspect(lang, name, text, code_span, &[], &job.path, at, st);
                st.loading = false;
                true
            }
            // An interpreter with no program runs whatever arrives next on its input.
            Stdin::Inherited => {
                st.add(catalogue::STDIN_COMMANDS.at(span, name));
                true
            }
        },
        Program::Named => false,
        Program::Nothing => true,
    }
}

/// A program file written on the line, run by `name`: its text read like an inline
/// program's, or opaque when it is not known.
pub fn run_text(
    lang: &Lang,
    name: &str,
    text: Option<&str>,
    span: Range<usize>,
    path: &str,
    at: &Ctx,
    st: &mut State,
) {
    match text {
        Some(code) => inspect(lang, name, code, span, &[], path, at, st),
        None => opaque(
            &span,
            &format!("a `{name}` program written on this line"),
            st,
        ),
    }
}

/// `python -m MODULE ARGS…`: the module's name, the index of the word that names it, and the
/// index of its first argument, whatever the name is; `None` when the program is not run as
/// a module.
pub fn module_of(lang: &Lang, args: &[Word]) -> Option<(String, usize, usize)> {
    if lang.runs_named.is_empty() {
        return None;
    }
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.literal()?;
        if t == "--" || !t.starts_with('-') {
            return None;
        }
        if let Some(attached) = t.strip_prefix('-').filter(|f| !f.starts_with('-')) {
            // `-m twine`, or `-mtwine`; any other short flags before it (`-Im`).
            if let Some(at) = attached.find(|c| lang.runs_named.contains(c)) {
                let rest = &attached[at + 1..];
                return if rest.is_empty() {
                    Some((args.get(i + 1)?.literal()?.to_string(), i + 1, i + 2))
                } else {
                    Some((rest.to_string(), i, i + 1))
                };
            }
            if attached.chars().any(|c| lang.code.contains(c)) {
                return None;
            }
            // An option that takes a value (`-X dev`, `-W ignore`) skips it; one whose value is
            // only ever attached (`-i.bak`) takes nothing more.
            if attached
                .find(|c| lang.attached.contains(c))
                .is_some_and(|a| {
                    attached
                        .find(|c| lang.valued.contains(c))
                        .is_none_or(|v| a < v)
                })
            {
                i += 1;
                continue;
            }
            if let Some(at) = attached.find(|c| lang.valued.contains(c))
                && attached[at + 1..].is_empty()
            {
                i += 1;
            }
        }
        i += 1;
    }
    None
}

/// `python -m MODULE ARGS…`: the module's name and its arguments as the words of the command
/// it also is, judged as that program would be (`pip`, `twine`, `pytest`): `python -m twine
/// upload` publishes as `twine upload` does. A dotted name (`http.server`) or a dynamic one is
/// a module inside a package, never a program's name: none.
pub fn module_command<'s>(lang: &Lang, args: &[Word<'s>]) -> Option<Vec<Word<'s>>> {
    let (module, named, from) = module_of(lang, args)?;
    if module.is_empty()
        || !module
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return None;
    }
    let first = Word::made(module, args[named].raw, args[named].span.clone());
    Some(
        std::iter::once(first)
            .chain(args[from.min(args.len())..].iter().cloned())
            .collect(),
    )
}

enum Program<'w, 's> {
    /// Programs given on the command line.
    Code(Vec<&'w Word<'s>>),
    /// Read from standard input.
    Stdin,
    /// A script file or module, judged by its name.
    Named,
    /// Only the version or the usage is asked for: nothing runs.
    Nothing,
}

fn program<'w, 's>(lang: &Lang, args: &'w [Word<'s>]) -> Program<'w, 's> {
    let mut code = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let Some(t) = w.literal() else {
            return if code.is_empty() {
                Program::Named
            } else {
                Program::Code(code)
            };
        };
        if t == "-" {
            return Program::Stdin.or_code(code);
        }
        // A script read from the input under a file's name.
        if code.is_empty()
            && (t == "/dev/stdin" || t.starts_with("/dev/fd/") || t.starts_with("/proc/self/fd/"))
        {
            return Program::Stdin;
        }
        if t == "--" || !t.starts_with('-') {
            return if code.is_empty() {
                Program::Named
            } else {
                Program::Code(code)
            };
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, ""));
            if lang.code_long.contains(&name) {
                if value.is_empty() {
                    code.extend(args.get(i));
                    i += 1;
                } else {
                    code.push(w);
                }
            }
            continue;
        }
        let mut skip_to = 0;
        for (at, c) in t.char_indices().skip(1) {
            if at < skip_to {
                continue;
            }
            let rest = &t[at + c.len_utf8()..];
            if lang.code.contains(c) {
                // `node -pe CODE`: the rest are options too, the program is the next word.
                if rest.is_empty() || rest.chars().all(|r| lang.code.contains(r)) {
                    code.extend(args.get(i));
                    i += 1;
                } else {
                    // `-e'code'` is rare; the whole word stands for it and is opaque-safe.
                    code.push(w);
                }
                break;
            }
            if lang.runs_named.contains(c) {
                return Program::Named;
            }
            if lang.attached.contains(c) {
                match attached_value(c, rest) {
                    // The rest of the word is the value (`-i.bak`, `-x/dir`).
                    None => break,
                    // Only so much of it (`-lne`: `-l`, then `-n`, then `-e`).
                    Some(len) => {
                        skip_to = at + c.len_utf8() + len;
                        continue;
                    }
                }
            }
            if lang.valued.contains(c) {
                if rest.is_empty() {
                    i += 1;
                }
                break;
            }
        }
    }
    let exits = args
        .iter()
        .any(|w| w.literal().is_some_and(|t| lang.exits.contains(&t)));
    if code.is_empty() && exits {
        Program::Nothing
    } else {
        Program::Stdin.or_code(code)
    }
}

impl<'w, 's> Program<'w, 's> {
    /// The programs given on the command line, if any, else `self`.
    fn or_code(self, code: Vec<&'w Word<'s>>) -> Self {
        if code.is_empty() {
            self
        } else {
            Program::Code(code)
        }
    }
}

/// Reads `code` and reports or queues what it does; `given` are the program's arguments.
#[allow(clippy::too_many_arguments)]
fn inspect(
    lang: &Lang,
    name: &str,
    code: &str,
    span: Range<usize>,
    given: &[Option<String>],
    path: &str,
    at: &Ctx,
    st: &mut State,
) {
    // A program that talks to the notification server on the bus itself (python's `dbus` or
    // `Gio`, node's `dbus-next`) can replace, close or click a held request's notification,
    // whatever its calls look like to the readers: the approval channel.
    if super::programs::channel::names_the_server(code) {
        st.add(catalogue::CHANNEL_DRIVE.at(span.clone(), name));
    }
    match &lang.reader {
        Some(reader) => read(reader, name, code, span, given, path, at, st),
        None => scan(lang, name, code, span, path, at, st),
    }
}

/// Reads `code` with the language's parser, follows what its names hold and what its calls
/// do (`eval`ed strings too), and hands the acts to the shell analysis.
#[allow(clippy::too_many_arguments)]
fn read(
    reader: &Reader,
    name: &str,
    code: &str,
    span: Range<usize>,
    given: &[Option<String>],
    path: &str,
    at: &Ctx,
    st: &mut State,
) {
    let grammar = match reader.grammar {
        super::grammar::Grammar::Php if code.contains("<?") => super::grammar::Grammar::PhpFile,
        g => g,
    };
    let home = st.ctx.home.unwrap_or("~").to_owned();
    let mut carry: Eval<'static> = Eval::new("", reader.tables, home, given.to_vec());
    let mut pending = vec![code.to_owned()];
    let mut read = 0;
    let mut broken = false;
    while let Some(text) = pending.pop() {
        read += 1;
        if read > MAX_EVALS + 1 {
            carry.opaque(format!(
                "`{name}` code that evaluates more code than the gate reads"
            ));
            break;
        }
        let grammar = if read == 1 { grammar } else { reader.grammar };
        let Some(tree) = st.parse_code(grammar, &text) else {
            carry.opaque(format!(
                "a `{name}` program that could not be parsed in time"
            ));
            break;
        };
        broken |= tree.root_node().has_error();
        let mut ev = carry.with_src(&text);
        (reader.walk)(&mut ev, tree.root_node());
        pending.append(&mut ev.evals);
        carry = ev.with_src("");
    }
    let segment = join_path(path, name);
    let acts = std::mem::take(&mut carry.acts);
    let none = acts.is_empty();
    let mut site = Site::new(name, Args::default(), span.clone(), st);
    let mut lines = Vec::new();
    for act in acts {
        match act {
            Act::Shell(line) => lines.push(line),
            Act::Path(effect, tree, value) => {
                let word = act_word(&site, value);
                if tree {
                    site.tree(effect, &word);
                } else {
                    site.on(effect, &word);
                }
            }
            // A path is a Unix socket: whatever serves it acts on what is sent.
            Act::Net(Value::Str(path))
                if path.starts_with(['/', '~', '.']) && !path.contains("://") =>
            {
                let word = site.st.home_word(&Word::made(path, "", 0..0));
                site.on(super::effects::Effect::Change, &word);
            }
            Act::Net(Value::Str(url)) => {
                site.place(
                    super::effects::Effect::Send,
                    crate::places::Kind::Remote,
                    format!("`{url}`"),
                );
            }
            Act::Net(_) => site.say(
                catalogue::INLINE_PROGRAM,
                "that talks to an address only known when it runs",
            ),
            Act::Opaque(what) => site.say(catalogue::INLINE_PROGRAM, &what),
            Act::Grant(read, setid, value) => {
                let word = act_word(&site, value);
                super::programs::files::grant_on(read, setid, &word, &mut site);
            }
            Act::Exhaust(what) => site.say(
                catalogue::FORK_BOMB,
                &format!("the inline program's {what} in a loop without end"),
            ),
            Act::Load(what) => {
                let st = &mut *site.st;
                if st.loading && !st.loads.contains(&what) {
                    // Counted by the name it starts with: `from typing import A, B` is one.
                    let first = |l: &str| l.split(['.', '/']).next().unwrap_or("").to_owned();
                    let named = first(&what);
                    let mut firsts: Vec<String> = st.loads.iter().map(|l| first(l)).collect();
                    firsts.sort();
                    firsts.dedup();
                    let known = firsts.contains(&named);
                    if st.loads.len() < 4 * MAX_LOADS && (known || firsts.len() < MAX_LOADS) {
                        st.loads.push(what);
                    } else {
                        st.loads_over = true;
                    }
                }
            }
        }
    }
    site.report();
    for line in lines {
        queue(line, &span, &segment, at, st);
    }
    if broken && none {
        opaque(
            &span,
            &format!("a `{name}` program the gate could not read in full"),
            st,
        );
    }
}

/// The word an inline program's act names: a path whose text is known, a place below a
/// directory it lists, or a path only known when it runs.
fn act_word<'s>(site: &Site<'_, 's, '_, '_>, value: Value) -> Word<'s> {
    match value {
        Value::Str(p) if !p.is_empty() => {
            let made = Word::made(p, "", 0..0);
            site.st.home_word(&made)
        }
        Value::Below(dir) => {
            let made = Word::made(format!("{}/", dir.trim_end_matches('/')), "", 0..0);
            let home = site.st.home_word(&made);
            let mut pieces = home.alternatives().first().cloned().unwrap_or_default();
            pieces.push(crate::places::Piece::Below);
            Word {
                text: format!("{}/…", dir.trim_end_matches('/')),
                dynamic: true,
                value: Some(std::rc::Rc::new(vec![pieces])),
                ..made
            }
        }
        _ => Word::runtime(
            &Word::made(String::new(), "", 0..0),
            "a path only known when it runs",
            None,
        ),
    }
}

/// Scans `code` for the language's calls and reports or queues what they do.
fn scan(
    lang: &Lang,
    name: &str,
    code: &str,
    span: Range<usize>,
    path: &str,
    at: &Ctx,
    st: &mut State,
) {
    let b: Vec<char> = code.chars().collect();
    let mut i = 0;
    let segment = join_path(path, name);
    // What a scan cannot follow: subroutines called through a variable (`&$c(…)`,
    // `$f->(…)`), string `eval`, sockets and web clients.
    const UNFOLLOWED: &[&str] = &[
        "&$",
        "&{",
        "->(",
        "eval ",
        "eval(",
        "eval\"",
        "IO::Socket",
        "Socket",
        "LWP",
        "HTTP::Tiny",
        "Net::",
        "syscall",
    ];
    if let Some(what) = UNFOLLOWED.iter().find(|u| code.contains(**u)) {
        opaque(&span, &format!("`{what}`"), st);
    }
    // `@ARGV = ("~/.netrc")` (or `local @ARGV`, `push @ARGV, …`): the files `<>` then reads.
    if code.contains("@ARGV") {
        for file in argv_files(&b) {
            queue(format!("cat -- {file}"), &span, &segment, at, st);
        }
    }
    if loops::perl_fork_loop(code) {
        let mut site = Site::new(name, Args::default(), span.clone(), st);
        site.say(
            catalogue::FORK_BOMB,
            "the inline program's `fork` in a loop without end",
        );
        site.report();
    }
    while i < b.len() {
        let c = b[i];
        if c == '\'' || c == '"' {
            i = read_string(&b, i).1;
            continue;
        }
        if c == '`' && lang.backticks {
            let (value, end) = read_string(&b, i);
            i = end;
            match value {
                Some(cmd) => queue(cmd, &span, &segment, at, st),
                None => opaque(&span, "a `…` command", st),
            }
            continue;
        }
        let comment = if lang.hash_comments {
            c == '#' && b.get(i + 1).is_none_or(|n| *n != '{')
        } else {
            c == '/' && b.get(i + 1) == Some(&'/')
        };
        if comment {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if !(c.is_alphabetic() || c == '_') || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let (chain, end) = read_chain(&b, i);
        i = end;
        let last = chain.last().map_or("", String::as_str);
        let before = chain.len().checked_sub(2).and_then(|p| chain.get(p));
        let entry = lang.calls.iter().find(|(n, qual, _)| {
            *n == last && (qual.is_empty() || before.is_none_or(|q| qual.contains(&q.as_str())))
        });
        let call = chain.join(".");
        let (args, after) = arguments(&b, end);
        let does = match entry {
            Some((_, _, does)) => *does,
            None => {
                let lower = last.to_ascii_lowercase();
                let opens = b.get(skip_blank(&b, end)) == Some(&'(');
                if opens && DESTRUCTIVE_VERBS.iter().any(|v| lower.starts_with(v)) {
                    Opaque
                } else {
                    continue;
                }
            }
        };
        let literal = args.as_ref().and_then(|a| a.first().cloned());
        match (does, literal) {
            (Shell, Some(text)) => {
                let line = match &args {
                    Some(a) if a.len() > 1 || b.get(skip_blank(&b, end) + 1) == Some(&'[') => {
                        a.iter().map(|w| list_word(w)).collect::<Vec<_>>().join(" ")
                    }
                    _ => text,
                };
                queue(line, &span, &segment, at, st);
            }
            (Delete, Some(p)) => queue(format!("rm -- {}", quote(&p)), &span, &segment, at, st),
            (DeleteTree, Some(p)) => {
                queue(format!("rm -rf -- {}", quote(&p)), &span, &segment, at, st);
            }
            (Write, _) => st.add(catalogue::INLINE_WRITES.at(span.clone(), &format!("`{call}`"))),
            // `open F, "$ENV{HOME}/…"`: a place only known when it runs.
            (Open, None) if args.is_none() && b.get(skip_blank(&b, end)) == Some(&'(') => {
                let modes = strings_in(&b[end..after.max(end)]);
                if modes.iter().any(|m| m.contains(['$', '@'])) || modes.is_empty() {
                    opaque(
                        &span,
                        &format!("`{call}` of a place only known when it runs"),
                        st,
                    );
                } else if modes.iter().any(|m| m.starts_with('|') || m.ends_with('|')) {
                    opaque(&span, &format!("`{call}`"), st);
                } else if modes.iter().any(|m| writes_mode(m)) {
                    st.add(catalogue::INLINE_WRITES.at(span.clone(), &format!("`{call}`")));
                }
            }
            (Open, _) => {
                let modes = strings_in(&b[end..after.max(end)]);
                if modes.iter().any(|m| m.starts_with('|') || m.ends_with('|')) {
                    opaque(&span, &format!("`{call}`"), st);
                } else if modes.iter().any(|m| writes_mode(m)) {
                    st.add(catalogue::INLINE_WRITES.at(span.clone(), &format!("`{call}`")));
                }
            }
            // Perl's `copy`, `move`, `do`, `sysopen`: read from the strings below.
            (Copy | Move | RunFile | SysOpen, _) => {}
            _ => opaque(&span, &format!("`{call}`"), st),
        }
        if matches!(does, Copy | Move | RunFile | SysOpen) {
            let until = statement_end(&b, end, after);
            // Each argument as a shell word, when it is one string literal (`None`: a value
            // only known when it runs, a concatenation, a variable).
            let args = perl_args(&b[end..until]);
            let word = |n: usize| args.get(n).cloned().flatten();
            let unknown = |what: &str, st: &mut State| {
                opaque(
                    &span,
                    &format!("`{call}` of {what} only known when it runs"),
                    st,
                );
            };
            match does {
                Copy | Move => match (word(0), word(1)) {
                    (Some(from), Some(to)) => {
                        let program = if does == Copy { "cp" } else { "mv" };
                        queue(format!("{program} -- {from} {to}"), &span, &segment, at, st);
                    }
                    _ => unknown("a place", st),
                },
                // `require Foo::Bar` names a module on Perl's path, not a file here, and
                // `do { … }` is a block: a string or a variable right after the name is a file.
                RunFile if !starts_with_value(&b, end) => {}
                RunFile => match word(0) {
                    Some(file) => queue(format!("perl -- {file}"), &span, &segment, at, st),
                    None => unknown("a file", st),
                },
                _ => match (
                    word(1),
                    args.get(2).and_then(|_| flags_text(&b[end..until])),
                ) {
                    (Some(file), Some(flags)) => match sysopen_writes(&flags) {
                        Some(writes) => {
                            let line = if writes {
                                format!(": >> {file}")
                            } else {
                                format!("cat -- {file}")
                            };
                            queue(line, &span, &segment, at, st);
                        }
                        None => unknown("a mode", st),
                    },
                    _ => unknown("a place", st),
                },
            }
        }
        if does == Open {
            // Perl's `open F, "<", PATH;` has no parentheses: its arguments end the statement.
            let until = statement_end(&b, end, after);
            let (read, written) = perl_opens(&b[end..until]);
            for (append, file) in written {
                let to = if append { ">>" } else { ">" };
                queue(format!(": {to} {file}"), &span, &segment, at, st);
            }
            for file in read {
                queue(format!("cat -- {file}"), &span, &segment, at, st);
            }
        }
    }
}

/// Whether the arguments at `end` start with a string literal or a variable, in parentheses
/// or not.
fn starts_with_value(b: &[char], end: usize) -> bool {
    let mut j = skip_blank(b, end);
    if b.get(j) == Some(&'(') {
        j = skip_blank(b, j + 1);
    }
    matches!(b.get(j), Some('\'' | '"' | '$'))
}

/// A call's arguments (the text after its name, in parentheses or not), split at commas
/// outside strings and brackets: each one string literal as a shell word, else `None`.
fn perl_args(b: &[char]) -> Vec<Option<String>> {
    let mut i = skip_blank(b, 0);
    let mut stop = b.len();
    if b.get(i) == Some(&'(') {
        stop = matching(b, i).saturating_sub(1).min(b.len());
        i += 1;
    }
    let mut args = Vec::new();
    let mut start = i;
    let mut depth = 0usize;
    while i <= stop {
        let c = b.get(i).copied();
        match c {
            Some('\'' | '"') => {
                i = perl_string(b, i).1;
                continue;
            }
            Some('(' | '[' | '{') => depth += 1,
            Some(')' | ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if i == stop || (c == Some(',') && depth == 0) {
            let part: Vec<char> = b[start..i.min(b.len())].to_vec();
            args.push(lone_string(&part));
            start = i + 1;
        }
        i += 1;
    }
    args
}

/// The text as one Perl string literal and nothing else, as a shell word.
fn lone_string(part: &[char]) -> Option<String> {
    let from = skip_blank(part, 0);
    if !matches!(part.get(from), Some('\'' | '"')) {
        return None;
    }
    let (text, end) = perl_string(part, from);
    part[end.min(part.len())..]
        .iter()
        .all(|c| c.is_whitespace())
        .then(|| shell_word(&text, part[from]))
        .flatten()
}

/// The third argument of a `sysopen` (its flags), as written.
fn flags_text(b: &[char]) -> Option<String> {
    let text: String = b.iter().collect();
    let inner = text.trim().trim_start_matches('(');
    let flags = inner.splitn(3, ',').nth(2)?;
    let flags = flags.split(',').next().unwrap_or(flags);
    Some(flags.trim().trim_end_matches([')', ';']).trim().to_owned())
}

/// Whether `sysopen` flags open for writing: constants or numbers joined by `|` or `+`;
/// `None` when they are not known (a variable, a call).
fn sysopen_writes(flags: &str) -> Option<bool> {
    let mut writes = false;
    for part in flags.split(['|', '+']) {
        let part = part.trim();
        let value = match part {
            "O_RDONLY" => 0,
            "O_WRONLY" | "O_RDWR" | "O_CREAT" | "O_TRUNC" | "O_APPEND" | "O_EXCL" => 1,
            "O_NONBLOCK" | "O_NOFOLLOW" | "O_CLOEXEC" | "O_BINARY" | "O_TEXT" | "O_NOCTTY" => 0,
            _ => {
                let (digits, radix) =
                    match part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
                        Some(hex) => (hex, 16),
                        None if part.len() > 1 && part.starts_with('0') => (&part[1..], 8),
                        None => (part, 10),
                    };
                let n = u32::from_str_radix(digits, radix).ok()?;
                // O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND.
                n & (1 | 2 | 0o100 | 0o1000 | 0o2000)
            }
        };
        writes |= value != 0;
    }
    Some(writes)
}

/// The files a Perl program gives `@ARGV` (assigned, or pushed or unshifted onto it), each as
/// a shell word: what `<>` reads after. A value only known when it runs is not one.
fn argv_files(b: &[char]) -> Vec<String> {
    let text: String = b.iter().collect();
    let mut files = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("@ARGV") {
        let start = from + at;
        let after = start + "@ARGV".len();
        from = after;
        let before = text[..start].trim_end();
        let rest = text[after..].trim_start();
        let given = if rest.starts_with('=') && !rest.starts_with("==") && !rest.starts_with("=~") {
            Some(&rest[1..])
        } else if before.ends_with("push")
            || before.ends_with("unshift")
            || before.ends_with("push(")
            || before.ends_with("unshift(")
        {
            rest.strip_prefix(',')
        } else {
            None
        };
        let Some(given) = given else { continue };
        let end = given.find(';').unwrap_or(given.len());
        let chars: Vec<char> = given[..end].chars().take(MAX_STATEMENT).collect();
        let list = chars
            .iter()
            .position(|c| *c == '(')
            .map_or(chars.as_slice(), |p| &chars[p..]);
        files.extend(perl_args(list).into_iter().flatten());
        if files.len() >= 16 {
            break;
        }
    }
    files
}

/// Where a call's arguments end: its closing parenthesis (`after`), or, without one, the end
/// of the statement (Perl's `do "x.pl";`).
fn statement_end(b: &[char], end: usize, after: usize) -> usize {
    if b.get(skip_blank(b, end)) == Some(&'(') {
        after.max(end)
    } else {
        // Bounded: a line of many calls without an end would be read again for each.
        let limit = b.len().min(end + MAX_STATEMENT);
        b[end..limit]
            .iter()
            .position(|c| matches!(c, ';' | '\n'))
            .map_or(limit, |p| end + p)
    }
}

/// The longest a call's arguments without parentheses are read for.
const MAX_STATEMENT: usize = 4096;

/// The files an `open`'s arguments read, and those it writes (and whether it appends), each as
/// a shell word that means the same place: Perl's three-argument `open(F, "<", PATH)` (a mode
/// of `<` or `+<`, layers after it too; `>`, `>>`, `+>` write), the two-argument
/// `open(F, "<PATH")`, `open(F, ">>PATH")` and `open(F, "PATH")`. A double-quoted string's
/// `$ENV{NAME}` is the environment's `$NAME`; any other variable is a value only known when it
/// runs. `~/` at the start is the home, as `glob("~/…")` makes it.
fn perl_opens(b: &[char]) -> (Vec<String>, Vec<(bool, String)>) {
    let mut strings: Vec<(String, char)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if matches!(b[i], '\'' | '"') {
            let (text, end) = perl_string(b, i);
            strings.push((text, b[i]));
            i = end;
        } else {
            i += 1;
        }
    }
    let reads = |t: &str| {
        let rest = t.strip_prefix("+<").or_else(|| t.strip_prefix('<'));
        rest.is_some_and(|r| r.trim().is_empty() || r.trim_start().starts_with(':'))
    };
    let (mut read, mut written) = (Vec::new(), Vec::new());
    let one = strings.len() == 1;
    for (i, (text, q)) in strings.iter().enumerate() {
        let t = text.trim_start();
        let next = || strings.get(i + 1).and_then(|(n, nq)| shell_word(n, *nq));
        if reads(t) {
            let file = next();
            // `+<` reads and writes, without truncating.
            if t.starts_with("+<") {
                written.extend(file.clone().map(|f| (true, f)));
            }
            read.extend(file);
            continue;
        }
        let writes = ["+>>", "+>", ">>", ">"].iter().find(|m| t.starts_with(**m));
        if let Some(mode) = writes {
            let append = mode.contains(">>");
            let rest = t[mode.len()..].trim_start();
            // `>&STDOUT`, `>&=2`: a descriptor, not a file.
            if rest.starts_with('&') {
                continue;
            }
            let file = if rest.is_empty() || rest.starts_with(':') {
                next()
            } else {
                shell_word(rest, *q)
            };
            written.extend(file.map(|f| (append, f)));
        } else if let Some(rest) = t.strip_prefix('<')
            && one
        {
            read.extend(shell_word(rest.trim_start(), *q));
        } else if one && !t.starts_with(['+', '|', '-']) && !t.ends_with('|') {
            read.extend(shell_word(t, *q));
        }
    }
    (read, written)
}

/// A Perl string literal opening at `i`, its escapes kept, and the index after it.
fn perl_string(b: &[char], i: usize) -> (String, usize) {
    let q = b[i];
    let mut j = i + 1;
    let mut text = String::new();
    while j < b.len() && b[j] != q {
        if b[j] == '\\' && j + 1 < b.len() {
            text.push(b[j]);
            j += 1;
        }
        text.push(b[j]);
        j += 1;
    }
    (text, (j + 1).min(b.len()))
}

/// A Perl string's text, quoted with `q`, as a shell word for the same place: a single-quoted
/// string is its text (nothing in it is a variable), a double-quoted one is read by
/// [`perl_path`].
fn shell_word(text: &str, q: char) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    Some(match text.strip_prefix("~/") {
        _ if q != '\'' => perl_path(text)?,
        Some(below) => format!("~/{}", quote(below)),
        None => quote(text),
    })
}

/// A path as Perl writes it, as a shell word: `~/` the home, `$ENV{NAME}` the environment's
/// variable, any other `$name` or `@name` a value only known when it runs; the rest quoted.
fn perl_path(text: &str) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    let mut out = String::new();
    let mut rest = text;
    if let Some(after) = rest.strip_prefix("~/") {
        out.push_str("~/");
        rest = after;
    }
    let mut quoted = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    quoted.push(n);
                }
            }
            '$' | '@' => {
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' || n == '{' || n == '}' {
                        name.push(n);
                        chars.next();
                        if n == '}' {
                            break;
                        }
                    } else {
                        break;
                    }
                }
                if !quoted.is_empty() {
                    out.push_str(&quote(&std::mem::take(&mut quoted)));
                }
                match name.strip_prefix("ENV{").and_then(|n| n.strip_suffix('}')) {
                    Some(var) if var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                        out.push_str(&format!("\"${{{var}}}\""));
                    }
                    _ => out.push_str("\"$ASSENT_PERL_VALUE\""),
                }
            }
            c => quoted.push(c),
        }
    }
    if !quoted.is_empty() || out.is_empty() {
        out.push_str(&quote(&quoted));
    }
    Some(out)
}

fn opaque(span: &Range<usize>, detail: &str, st: &mut State) {
    st.add(catalogue::INLINE_PROGRAM.at(span.clone(), detail));
}

fn queue(text: String, span: &Range<usize>, segment: &std::rc::Rc<str>, at: &Ctx, st: &mut State) {
    let shell = st.shell.clone();
    queue_mapped(
        text,
        Err(span.clone()),
        std::rc::Rc::clone(segment),
        at,
        shell,
        st,
    );
}

/// A mode string that writes: `w`, `a+`, `>file`, `>>`.
fn writes_mode(m: &str) -> bool {
    m.starts_with('>')
        || (m.len() <= 4
            && !m.is_empty()
            && m.chars().all(|c| "rwabxtU+".contains(c))
            && m.contains(['w', 'a', 'x', '+']))
}

/// `text` in single quotes for the shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn skip_blank(b: &[char], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    i
}

/// `a.b.c`, `A::B`, `$x->m`: the names and the index after them.
fn read_chain(b: &[char], mut i: usize) -> (Vec<String>, usize) {
    let mut chain = Vec::new();
    loop {
        let start = i;
        while b.get(i).is_some_and(|c| is_ident(*c)) {
            i += 1;
        }
        chain.push(b[start..i].iter().collect());
        let sep = match (b.get(i), b.get(i + 1)) {
            (Some('.'), _) => 1,
            (Some(':'), Some(':')) | (Some('-'), Some('>')) => 2,
            _ => break,
        };
        if !b
            .get(i + sep)
            .is_some_and(|c| c.is_alphabetic() || *c == '_')
        {
            break;
        }
        i += sep;
    }
    (chain, i)
}

/// The literal arguments of a call starting at `i` (after its name): `("a")`, `('a', …)`,
/// `(["a", "b"])`, or without parentheses `'a'`. `None` when the first is not a literal.
/// Also returns where the call's parentheses end.
fn arguments(b: &[char], i: usize) -> (Option<Vec<String>>, usize) {
    let mut j = skip_blank(b, i);
    let paren = b.get(j) == Some(&'(');
    let close = if paren { matching(b, j) } else { j };
    if paren {
        j = skip_blank(b, j + 1);
    }
    let list = b.get(j) == Some(&'[');
    if list {
        j += 1;
    }
    let mut out = Vec::new();
    loop {
        j = skip_blank(b, j);
        // Python string prefixes: r'', b'', u''; f'' is dynamic.
        if b.get(j)
            .is_some_and(|c| matches!(c, 'r' | 'b' | 'u' | 'R' | 'B'))
            && b.get(j + 1).is_some_and(|c| *c == '\'' || *c == '"')
        {
            j += 1;
        }
        if !b.get(j).is_some_and(|c| *c == '\'' || *c == '"') {
            break;
        }
        let (value, end) = read_string(b, j);
        let Some(value) = value else {
            return (None, close);
        };
        out.push(value);
        j = skip_blank(b, end);
        if b.get(j) != Some(&',') {
            break;
        }
        // Perl's `system "a", "b"` is a list too: its words are what runs; a word after a
        // comma that is not a string is only known when it runs ([`perl_value`]).
        j = skip_blank(b, j + 1);
        while !list && b.get(j).is_some_and(|c| *c != '\'' && *c != '"') {
            let (word, end) = perl_value(b, j);
            out.push(word);
            j = skip_blank(b, end);
            if b.get(j) != Some(&',') {
                return ((!out.is_empty()).then_some(out), close);
            }
            j = skip_blank(b, j + 1);
        }
    }
    ((!out.is_empty()).then_some(out), close)
}

/// How much of the rest of an option cluster an option whose value is only attached takes:
/// Perl's and Ruby's `-l` and `-0` an octal number (`-0x` a hexadecimal one), Perl's `-C` its
/// flags; `None`: all of it (`-i.bak`, `-x/dir`). `perl -lne CODE` is `-l -n -e CODE`.
fn attached_value(option: char, rest: &str) -> Option<usize> {
    let run = |ok: &dyn Fn(char) -> bool| rest.chars().take_while(|c| ok(*c)).count();
    match option {
        'l' => Some(run(&|c| c.is_digit(8))),
        '0' if rest.starts_with(['x', 'X']) => Some(
            1 + rest[1..]
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .count(),
        ),
        '0' => Some(run(&|c| c.is_digit(8))),
        'C' => Some(run(&|c| c.is_ascii_digit() || "IOESioDALa".contains(c))),
        _ => None,
    }
}

/// Names one inline program may load code by that are looked for on the disk; with more,
/// what the rest load is not known and the program is opaque.
pub const MAX_LOADS: usize = 16;

/// Marks a list word only known when the program runs: `RUNTIME` then the environment
/// variable it reads, if it is `$ENV{NAME}`.
const RUNTIME: char = '\0';

/// The expression at `i` in a list (up to a `,`, `)` or `;` outside brackets) as a
/// [`RUNTIME`] word, and the index after it.
fn perl_value(b: &[char], i: usize) -> (String, usize) {
    let mut depth = 0usize;
    let mut j = i;
    while let Some(&c) = b.get(j) {
        match c {
            '\'' | '"' => {
                j = read_string(b, j).1;
                continue;
            }
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' if depth > 0 => depth -= 1,
            ',' | ')' | ';' if depth == 0 => break,
            _ => {}
        }
        j += 1;
    }
    let text: String = b[i..j].iter().collect();
    let env = text
        .trim()
        .strip_prefix("$ENV{")
        .and_then(|t| t.strip_suffix('}'))
        .map(|n| n.trim_matches(['\'', '"']))
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or("");
    (format!("{RUNTIME}{env}"), j.max(i + 1))
}

/// A list word for the shell: a [`RUNTIME`] word as a variable only known when the line
/// runs, anything else quoted.
fn list_word(w: &str) -> String {
    match w.strip_prefix(RUNTIME) {
        Some("") => "\"$PERL_VALUE\"".to_owned(),
        Some(env) => format!("\"${{{env}}}\""),
        None => quote(w),
    }
}

/// The index after the parenthesis matching the one at `open`, or the end.
fn matching(b: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            '\'' | '"' => {
                i = read_string(b, i).1;
                continue;
            }
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Every string literal in `b`.
fn strings_in(b: &[char]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if matches!(b[i], '\'' | '"') {
            let (v, end) = read_string(b, i);
            out.extend(v);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// The string literal opening at `i`: its value (`None` when it interpolates: `${`, `#{`,
/// `$x` in double quotes or backticks) and the index after it.
fn read_string(b: &[char], i: usize) -> (Option<String>, usize) {
    let q = b[i];
    let mut out = String::new();
    let mut dynamic = false;
    let mut j = i + 1;
    while j < b.len() && b[j] != q {
        let c = b[j];
        if c == '\\' && j + 1 < b.len() {
            let n = b[j + 1];
            out.push(match n {
                'n' if q != '\'' => '\n',
                't' if q != '\'' => '\t',
                n => n,
            });
            j += 2;
            continue;
        }
        if q != '\'' && (c == '$' || (c == '#' && b.get(j + 1) == Some(&'{'))) {
            dynamic = true;
        }
        out.push(c);
        j += 1;
    }
    ((!dynamic).then_some(out), (j + 1).min(b.len()))
}
