//! One simple command: which program really runs, which text runs as commands, and what the
//! command changes in the shell for the commands after it (`cd`, `unset`, `read`).
//!
//! A command becomes a work list of [`Job`]s: wrappers (`sudo`, `env`, `xargs`, … in
//! `wrappers`) and runners (`find -exec`, `parallel`, … in `runners`) push the commands they
//! run instead of recursing. Shells given `-c STR`, `eval` of literal words and heredocs or
//! here-strings fed to a shell queue their text to be parsed like the input; programs in
//! other languages are `interp`'s. What a program does once found is `rules`' business.

use std::ops::Range;
use std::rc::Rc;

use super::catalogue;
use super::interp;
use super::rules;
use super::runners;
use super::source::{SpanMap, join_continuations};
use super::words::{Place, Word, basename, place};
use super::wrappers::{Then, WRAPPERS};
use super::{Context, Shell, SimpleCommand, Source, State, join_path};

/// Where a command's standard input comes from.
#[derive(Debug, Clone, Default)]
pub enum Stdin {
    /// The caller's: a terminal or whatever the whole line reads.
    #[default]
    Inherited,
    /// A pipe from the stage before.
    Pipe,
    /// A file (`< file`).
    File,
    /// A heredoc or here-string whose text is on the line.
    Text {
        text: String,
        /// Where the text starts in the parsed text, when it is there verbatim.
        base: Option<usize>,
        /// Its span in the parsed text.
        span: Range<usize>,
        /// Only known at run time (`<<< "$x"`).
        dynamic: bool,
    },
}

/// A simple command's words as the walk found them.
pub struct Cmd<'s> {
    pub words: Vec<Word<'s>>,
    /// In the parsed text.
    pub span: Range<usize>,
    pub path: Rc<str>,
    pub stdin: Stdin,
    pub depth: u32,
}

/// A command waiting to be judged: the walk's, or one a wrapper or runner runs.
pub struct Job<'s> {
    pub words: Vec<Word<'s>>,
    pub path: Rc<str>,
    pub stdin: Stdin,
    /// Runs in a child process: `cd` and the like change nothing for later commands.
    pub child: bool,
}

/// Where the command sits, for spans and inner texts.
pub struct Ctx<'a> {
    pub src: &'a Source,
    /// End of the walked command in the parsed text.
    pub end: usize,
    pub depth: u32,
}

impl Ctx<'_> {
    /// The span of `words` in the original input.
    pub fn span_of(&self, words: &[Word]) -> Range<usize> {
        match (words.first(), words.last()) {
            (Some(first), Some(last)) => self
                .src
                .map
                .span(first.span.start..last.span.end.max(first.span.start)),
            _ => self.src.map.span(self.end..self.end),
        }
    }
}

/// Shells that take `-c STR`.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
];

/// Records the command and every command it runs, and applies the rules to each program.
pub fn analyse(cmd: Cmd, src: &Source, st: &mut State) {
    let at = Ctx {
        src,
        end: cmd.span.end,
        depth: cmd.depth,
    };
    let mut jobs = vec![Job {
        words: cmd.words,
        path: cmd.path,
        stdin: cmd.stdin,
        child: false,
    }];
    while let Some(job) = jobs.pop() {
        one(job, &at, st, &mut jobs);
    }
}

fn one<'s>(job: Job<'s>, at: &Ctx, st: &mut State, jobs: &mut Vec<Job<'s>>) {
    let Some(first) = job.words.first() else {
        return;
    };
    let span = at
        .src
        .map
        .span(first.span.start..at.end.max(first.span.start));
    st.command(SimpleCommand {
        path: job.path.to_string(),
        argv: job.words.iter().map(|w| w.text.clone()).collect(),
        span: span.clone(),
    });
    let Some(name) = first.literal() else {
        let span = at.src.map.span(first.span.clone());
        st.add(catalogue::OPAQUE_DYNAMIC_COMMAND.at(span, &format!("`{}`", first.raw)));
        return;
    };
    // `C:/Git/bin/git.exe` on a Windows shell is `git`.
    let name = basename(name);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    // A function defined on the line: its body was analysed where it was defined.
    if first.raw == name && st.shell.functions.contains(name) {
        return;
    }
    if let Some(w) = WRAPPERS.iter().find(|w| w.name == name) {
        let scan = w.scan(&job.words);
        if w.then == Then::Env {
            let split = scan
                .opts
                .iter()
                .find(|o| matches!(o.name, "S" | "split-string"));
            if let Some(value) = split.and_then(|o| o.value.as_ref()) {
                let rest = scan.start.map_or(&[][..], |s| &job.words[s..]);
                env_split(value, rest, &join_path(&job.path, name), at, st);
                return;
            }
        }
        let Some(start) = scan.start else { return };
        let path = join_path(&job.path, name);
        let mut inner = Job {
            words: job.words.clone(),
            path: Rc::clone(&path),
            stdin: job.stdin.clone(),
            child: true,
        };
        match w.then {
            Then::Xargs => runners::xargs(&mut inner, &scan.opts, start),
            Then::Flock
                if matches!(
                    job.words.get(start).and_then(Word::literal),
                    Some("-c" | "--command")
                ) =>
            {
                command_string("flock -c", job.words.get(start + 1), &job.path, at, st);
                return;
            }
            _ => {
                inner.words.drain(..start);
            }
        }
        jobs.push(inner);
        return;
    }
    let args = &job.words[1..];
    if !job.child {
        builtin(name, args, st);
    }
    if SHELLS.contains(&name) {
        shell(name, args, &job, span, at, st);
    } else if name == "eval" {
        eval(args, &job.path, at, st);
    } else if matches!(name, "source" | ".") && args.first().is_some_and(|w| !is_plain_file(w)) {
        let word = args.first().map_or("", |w| w.raw);
        st.add(catalogue::OPAQUE_SHELL_READS.at(span, &format!("`{name} {word}`")));
    } else if runners::run(name, &job, at, st, jobs) || interp::run(name, &job, at, st) {
    } else {
        st.with_cwd(|st| rules::command(name, args, span, st));
    }
}

/// A script named by a literal path, not a stream (`<(…)`, `/dev/stdin`) or a dynamic word.
fn is_plain_file(w: &Word) -> bool {
    w.literal()
        .is_some_and(|t| !t.starts_with("/dev/") && !t.starts_with("/proc/"))
}

/// Builtins that change the shell for the commands after them.
fn builtin(name: &str, args: &[Word], st: &mut State) {
    let operands = || {
        args.iter().filter(|w| {
            !w.literal()
                .is_some_and(|t| t.starts_with('-') && t.len() > 1)
        })
    };
    match name {
        "cd" | "pushd" => {
            let cwd = match operands().next() {
                None => st.ctx.home.filter(|h| h.starts_with('/')).map(Rc::from),
                Some(w) if w.literal() == Some("-") => None,
                Some(w) => {
                    let cwd = st.shell.cwd.clone();
                    let ctx = Context {
                        cwd: cwd.as_deref().unwrap_or(""),
                        home: st.ctx.home,
                        truncated: false,
                    };
                    match place(w, &ctx) {
                        Place::Path(p) if !p.contains('*') => Some(Rc::from(p)),
                        _ => None,
                    }
                }
            };
            st.shell.cwd = cwd;
        }
        "popd" => st.shell.cwd = None,
        "unset" | "read" | "readarray" | "mapfile" | "getopts" => {
            let names: Vec<String> = operands()
                .filter_map(Word::literal)
                .map(str::to_owned)
                .collect();
            for n in names {
                st.shell.set_var(&n, None);
            }
        }
        _ => {}
    }
}

/// `env -S STR CMD…`: STR is split into words like a shell line, then the rest follows.
fn env_split(
    value: &super::wrappers::Value,
    rest: &[Word],
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let Some(text) = value.literal() else {
        let span = at.span_of(rest);
        st.add(catalogue::OPAQUE_DYNAMIC_SHELL.at(span, "`env -S`"));
        return;
    };
    let mut line = text.to_owned();
    for w in rest {
        line.push(' ');
        line.push_str(w.raw);
    }
    let refs: Vec<&Word> = rest.iter().collect();
    let shell = st.shell.clone();
    let from = if refs.is_empty() {
        Err(&[][..])
    } else {
        Err(&refs[..])
    };
    queue_text(line, from, join_path(path, "env -S"), at, shell, st);
}

/// `bash -c STR`: STR is parsed like the input. A shell reading commands from its input runs
/// what the heredoc or here-string holds, or text nobody can see here.
fn shell(name: &str, args: &[Word], job: &Job, span: Range<usize>, at: &Ctx, st: &mut State) {
    let mut i = 0;
    let mut command_string_flag = false;
    let mut stdin_flag = false;
    while let Some(t) = args.get(i).and_then(Word::literal) {
        if t == "--" || t == "-" {
            i += 1;
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        let Some(flags) = t
            .strip_prefix('-')
            .or_else(|| t.strip_prefix('+'))
            .filter(|f| !f.is_empty())
        else {
            break;
        };
        if t.starts_with('-') {
            command_string_flag |= flags.contains('c');
            stdin_flag |= flags.contains('s');
        }
        // `-o NAME` / `-O NAME` take the next word.
        i += if flags.contains(['o', 'O']) { 2 } else { 1 };
    }
    let operand = args.get(i);
    if command_string_flag {
        // Without a string (`xargs bash -c`), the string comes from input: `xargs` appended a
        // dynamic word for it.
        command_string(&format!("{name} -c"), operand, &job.path, at, st);
    } else if operand.is_none() || stdin_flag {
        fed_to_shell(name, &job.stdin, &job.path, span, at, st);
    } else if let Some(script) = operand
        && !is_plain_file(script)
    {
        st.add(catalogue::OPAQUE_SHELL_READS.at(span, &format!("`{name} {}`", script.raw)));
    }
}

/// A shell (or `su`, `ssh HOST`) reading commands from its standard input.
pub fn fed_to_shell(
    name: &str,
    stdin: &Stdin,
    path: &Rc<str>,
    span: Range<usize>,
    at: &Ctx,
    st: &mut State,
) {
    match stdin {
        Stdin::Inherited => {}
        Stdin::Pipe => st.add(catalogue::OPAQUE_PIPE_TO_SHELL.at(span, name)),
        Stdin::File => {
            st.add(catalogue::OPAQUE_SHELL_READS.at(span, &format!("`{name}` reading a file")));
        }
        Stdin::Text { dynamic: true, .. } => {
            st.add(catalogue::OPAQUE_DYNAMIC_SHELL.at(span, &format!("fed to `{name}`")));
        }
        Stdin::Text {
            text,
            base,
            span: at_span,
            ..
        } => {
            let from = match base {
                Some(b) => Ok(*b),
                None => Err(at.src.map.span(at_span.clone())),
            };
            let shell = st.shell.clone();
            queue_mapped(
                text.clone(),
                from,
                join_path(path, &format!("{name} <<")),
                at,
                shell,
                st,
            );
        }
    }
}

/// Queues the text of `word` as a shell line, or reports it opaque when only known at run
/// time. `segment` names the runner in the path.
pub fn command_string(
    segment: &str,
    word: Option<&Word>,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let Some(word) = word else { return };
    let Some(text) = word.literal() else {
        let span = at.src.map.span(word.span.clone());
        st.add(catalogue::OPAQUE_DYNAMIC_SHELL.at(span, &format!("`{}`", word.raw)));
        return;
    };
    let shell = st.shell.clone();
    let from = verbatim(text, word).ok_or(std::slice::from_ref(&word));
    match from {
        Ok(base) => queue_text(
            text.to_owned(),
            Ok(base),
            join_path(path, segment),
            at,
            shell,
            st,
        ),
        Err(words) => queue_text(
            text.to_owned(),
            Err(words),
            join_path(path, segment),
            at,
            shell,
            st,
        ),
    }
}

/// Where `text` starts in the parsed text if it is `word` as written or inside its quotes.
pub fn verbatim(text: &str, word: &Word) -> Option<usize> {
    if word.raw == text {
        return Some(word.span.start);
    }
    let inner = word.raw.get(1..word.raw.len().saturating_sub(1))?;
    (word.raw.len() >= 2 && inner == text).then_some(word.span.start + 1)
}

/// A shell in a new process: it inherits nothing but the directory.
pub fn fresh(cwd: Option<Rc<str>>) -> Shell {
    Shell {
        cwd,
        ..Shell::default()
    }
}

/// Queues `text` to be parsed: `Ok(base)` when it sits verbatim at `base` in the parsed
/// text, else `Err(words)` it came from (its spans then point at the whole of them).
pub fn queue_text(
    text: String,
    from: Result<usize, &[&Word]>,
    path: Rc<str>,
    at: &Ctx,
    shell: Shell,
    st: &mut State,
) {
    let from = match from {
        Ok(base) => Ok(base),
        Err(words) => Err(match (words.first(), words.last()) {
            (Some(f), Some(l)) => at.src.map.span(f.span.start..l.span.end.max(f.span.start)),
            _ => at.src.map.span(at.end..at.end),
        }),
    };
    queue_mapped(text, from, path, at, shell, st);
}

/// Queues `text`: `Ok(base)` in the parsed text, or `Err(span)` in the original input.
pub fn queue_mapped(
    text: String,
    from: Result<usize, Range<usize>>,
    path: Rc<str>,
    at: &Ctx,
    shell: Shell,
    st: &mut State,
) {
    let (joined, removed) = join_continuations(&text);
    let (map, span) = match from {
        Ok(base) => (
            SpanMap::inner(&at.src.map, base, removed),
            at.src.map.span(base..base + text.len()),
        ),
        Err(span) => (SpanMap::whole(span.clone()), span),
    };
    let inner = Source {
        text: joined,
        map: Rc::new(map),
        path,
        depth: at.depth + 1,
        shell,
    };
    st.inner(inner, span);
}

/// `eval WORDS`: literal words are joined with spaces and parsed, as bash does.
fn eval(args: &[Word], path: &Rc<str>, at: &Ctx, st: &mut State) {
    let (Some(first), Some(last)) = (args.first(), args.last()) else {
        return;
    };
    if let Some(dynamic) = args.iter().find(|w| w.dynamic) {
        let span = at.src.map.span(first.span.start..last.span.end);
        st.add(catalogue::OPAQUE_EVAL_DYNAMIC.at(span, &format!("`{}`", dynamic.raw)));
        return;
    }
    let text = args
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let shell = st.shell.clone();
    match args {
        [w] if verbatim(&text, w).is_some() => {
            let base = verbatim(&text, w).unwrap_or(w.span.start);
            queue_text(text, Ok(base), join_path(path, "eval"), at, shell, st);
        }
        _ => {
            let refs: Vec<&Word> = args.iter().collect();
            queue_text(text, Err(&refs), join_path(path, "eval"), at, shell, st);
        }
    }
}
