//! The recursion interface the reading layer hands down to the program book: what a program
//! gives back to be read when it runs a command or a program text, so that no module of the
//! book imports the walk or the dispatcher (ARCHITECTURE.md, "The analyser's layers").
//!
//! Nothing here reads or judges what runs; it is queued, and the reading layer reads it later:
//!
//! - **run these words as a command**: a [`Job`] (made with [`Job::runs`]) pushed on the
//!   dispatcher's list of jobs, which `command` judges after the program that runs it;
//! - **run this text as shell**: [`queue_text`], [`queue_mapped`], [`command_string`],
//!   [`fed_to_shell`], [`run_written`] queue a [`Source`] on the [`State`], which the driver
//!   parses and walks after the current text;
//! - **run this text in language L**: `interp::run_text`, in the book, which hands shell it
//!   finds back through the same queue.
//!
//! [`Ctx`] says where the running command sits (for spans), [`Stdin`] what it reads.

use std::ops::Range;
use std::rc::Rc;

use super::catalogue;
use super::source::{SpanMap, join_continuations};
use super::words::{Alts, Var, Word};
use super::{Container, Shell, Source, State, join_path};
use crate::places::Secret;

/// Where a command's standard input comes from.
#[derive(Debug, Clone, Default)]
pub enum Stdin {
    /// The caller's: a terminal or whatever the whole line reads.
    #[default]
    Inherited,
    /// A pipe from the stage before, with what it prints when that is known.
    Pipe(Option<Rc<Alts>>),
    /// A file (`< file`), and the secret it holds, when it holds one.
    File(Option<Secret>),
    /// A heredoc or here-string whose text is on the line.
    Text {
        text: String,
        /// Where the text starts in the parsed text, when it is there verbatim.
        base: Option<usize>,
        /// Its span in the parsed text.
        span: Range<usize>,
        /// Only known at run time (`<<< "$x"`).
        dynamic: bool,
        /// The secret its expansions hold (`<<< "$TOKEN"`).
        secret: Option<Secret>,
    },
}

impl Stdin {
    /// The secret the command reads on its standard input, when it reads one.
    pub fn secret(&self) -> Option<Secret> {
        match self {
            Stdin::Inherited => None,
            Stdin::Pipe(alts) => alts.as_deref().and_then(|a| super::secrets::in_alts(a)),
            Stdin::File(secret) | Stdin::Text { secret, .. } => *secret,
        }
    }
}

/// A command's words, shared with the command that wraps it: peeling `sudo sudo … rm`
/// moves a start, it copies nothing.
#[derive(Clone)]
pub struct Words<'s> {
    all: Rc<Vec<Word<'s>>>,
    start: usize,
}

impl<'s> Words<'s> {
    /// The words from `n` on, sharing these.
    pub fn starting_at(&self, n: usize) -> Words<'s> {
        Words {
            all: Rc::clone(&self.all),
            start: (self.start + n).min(self.all.len()),
        }
    }

    /// The words to change (`xargs` appends one): copied once if shared.
    pub fn to_mut(&mut self) -> &mut Vec<Word<'s>> {
        if self.start > 0 {
            self.all = Rc::new(self.all[self.start..].to_vec());
            self.start = 0;
        }
        Rc::make_mut(&mut self.all)
    }
}

impl<'s> From<Vec<Word<'s>>> for Words<'s> {
    fn from(words: Vec<Word<'s>>) -> Self {
        Words {
            all: Rc::new(words),
            start: 0,
        }
    }
}

impl<'s> std::ops::Deref for Words<'s> {
    type Target = [Word<'s>];
    fn deref(&self) -> &[Word<'s>] {
        &self.all[self.start..]
    }
}

/// A command waiting to be judged: the walk's, or one a wrapper or runner runs.
pub struct Job<'s> {
    pub words: Words<'s>,
    pub path: Rc<str>,
    pub stdin: Stdin,
    /// Runs in a child process: `cd` and the like change nothing for later commands.
    pub child: bool,
    /// Runs in this directory instead of the shell's (`env -C DIR`, `sudo -D DIR`).
    pub cwd: Option<Option<Rc<str>>>,
    /// Values it is handed through its environment (`KEY=~/.ssh/id_rsa ./run`, `env KEY=…`).
    pub assigned: Vec<Word<'s>>,
    /// How many wrappers and runners it is inside.
    pub level: u32,
    /// The container it runs in, when a container engine runs it; the commands it runs in
    /// turn run there too.
    pub container: Option<Rc<Container>>,
}

impl<'s> Job<'s> {
    /// The command this one runs as it is (`assent run CMD`, `python -m pip …`): a child of
    /// it with `words`, its input and environment, `how` naming the step in the path.
    pub fn runs(&self, words: Words<'s>, how: &str) -> Job<'s> {
        Job {
            words,
            path: super::join_path(&self.path, how),
            stdin: self.stdin.clone(),
            child: true,
            cwd: None,
            assigned: self.assigned.clone(),
            level: self.level + 1,
            container: None,
        }
    }
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

/// `source FILE` runs FILE in this shell; a stream or a dynamic name cannot be read here.
/// A file written on this line is run (`echo 'rm -rf ~' > x.sh; bash x.sh`): its text, when
/// known, is analysed as shell; when not, what runs cannot be read. `false`: the line did not
/// write it.
pub fn run_written(name: &str, file: &Word, path: &Rc<str>, at: &Ctx, st: &mut State) -> bool {
    let Some(text) = st.written_text(file) else {
        return false;
    };
    let span = at.src.map.span(file.span.clone());
    // A file that runs itself, or is run many times: read a few times, then opaque.
    let text = text.filter(|_| st.written_runs < super::MAX_FUNCTION_RUNS);
    match text {
        Some(text) => {
            st.written_runs += 1;
            let shell = st.shell.clone();
            let segment = join_path(path, &format!("{name} {}", file.raw));
            queue_mapped(text.to_string(), Err(span), segment, at, shell, st);
        }
        None => st.add(catalogue::SHELL_READS.at(
            span,
            &format!("`{name} {}`, a file written on this line", file.raw),
        )),
    }
    true
}

/// The words a program that takes its arguments from its input reads (`xargs`,
/// `parallel`): what the stage before printed, or a here-string's words, when known.
pub fn input_words(stdin: &Stdin) -> Option<Rc<Alts>> {
    match stdin {
        Stdin::Pipe(value) => value.clone(),
        // `xargs CMD <<< WORDS`.
        Stdin::Text {
            text,
            dynamic: false,
            ..
        } => {
            let alts: Alts = text
                .split_whitespace()
                .take(16)
                .map(|t| vec![crate::places::Piece::Lit(t.to_owned())])
                .collect();
            (!alts.is_empty()).then(|| Rc::new(alts))
        }
        other => other
            .secret()
            .map(|secret| Rc::new(vec![vec![crate::places::Piece::Secret(secret)]])),
    }
}

/// The words of lines whose text is all literal; `None` if any is not.
pub fn literal_lines(alts: &Alts) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for alt in alts {
        let mut line = String::new();
        for piece in alt {
            match piece {
                crate::places::Piece::Lit(t) => line.push_str(t),
                _ => return None,
            }
        }
        if line.contains(['"', '\'', '\\']) {
            return None;
        }
        out.extend(line.split_whitespace().map(str::to_owned));
    }
    Some(out)
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
        // Whatever arrives next on the input runs: nothing here can see it.
        Stdin::Inherited => st.add(catalogue::STDIN_COMMANDS.at(span, name)),
        Stdin::Pipe(_) => st.add(catalogue::PIPE_TO_SHELL.at(span, name)),
        Stdin::File(_) => {
            st.add(catalogue::SHELL_READS.at(span, &format!("`{name}` reading a file")));
        }
        Stdin::Text { dynamic: true, .. } => {
            st.add(catalogue::DYNAMIC_SHELL.at(span, &format!("fed to `{name}`")));
        }
        Stdin::Text {
            text,
            base,
            span: at_span,
            ..
        } => {
            let from = match base {
                Some(b) => Ok(*b),
                // Text a stage before printed: at the command that reads it.
                None if at_span.is_empty() => Err(span.clone()),
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
    let shell = st.shell.clone();
    command_string_in(segment, word, shell, path, at, st);
}

/// [`command_string`] for a shell given its positional parameters (`sh -c TEXT NAME ARGS…`):
/// `$0` is the first word after the text, `$1`… the rest.
pub fn command_string_with_args(
    segment: &str,
    word: Option<&Word>,
    positional: &[Word],
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let mut shell = st.shell.clone();
    set_positional(&mut shell, positional);
    command_string_in(segment, word, shell, path, at, st);
}

/// Sets `$0`, `$1`… from `words`, `$#`, and `$@`, `$*` as any one of the arguments.
pub fn set_positional(shell: &mut Shell, words: &[Word]) {
    let vars = Rc::make_mut(&mut shell.vars);
    for n in 0..10 {
        vars.remove(&n.to_string());
    }
    for name in ["@", "*", "#"] {
        vars.remove(name);
    }
    for (n, w) in words.iter().take(10).enumerate() {
        vars.insert(n.to_string(), var_of(w));
    }
    let args = words.len().saturating_sub(1);
    vars.insert("#".to_owned(), Var::Lit(args.to_string()));
    // `"$@"` is several words; as one it is any of them (`for f in "$@"`, `rm "$@"`).
    let all = match words.get(1..) {
        // No arguments (a script run without any): `"$@"` is nothing.
        Some([]) => Var::Lit(String::new()),
        Some([only]) => var_of(only),
        Some(rest) if !rest.is_empty() && rest.len() <= 16 => {
            let alts: Vec<Vec<crate::places::Piece>> = rest
                .iter()
                .flat_map(|w| w.alternatives().into_owned())
                .collect();
            Var::Pattern(Rc::new(alts))
        }
        _ => Var::Unknown,
    };
    vars.insert("@".to_owned(), all.clone());
    vars.insert("*".to_owned(), all);
}

/// What a variable holds when it is set to a word.
fn var_of(w: &Word) -> Var {
    match (w.literal(), &w.value) {
        (Some(t), _) => Var::Lit(t.to_owned()),
        (None, Some(alts)) => Var::Pattern(Rc::clone(alts)),
        (None, None) => Var::Unknown,
    }
}

fn command_string_in(
    segment: &str,
    word: Option<&Word>,
    shell: Shell,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let Some(word) = word else { return };
    let Some(text) = word.literal() else {
        let span = at.src.map.span(word.span.clone());
        st.add(catalogue::DYNAMIC_SHELL.at(span, &word.quoted()));
        return;
    };
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

/// A shell a program of this one starts (`psql`'s `\!`): it inherits the directory, and the
/// container it runs in.
pub fn fresh_like(shell: &Shell) -> Shell {
    Shell {
        container: shell.container.clone(),
        ..fresh(shell.cwd.clone())
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
        shell: super::Start::Fresh(shell),
        from: None,
    };
    st.inner(inner, span);
}
