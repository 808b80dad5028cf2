//! `sed` and `awk` programs: the parts of them that run commands or write files.
//!
//! sed: the `e` command and the `e` flag of `s///` run shell commands (opaque); `w FILE`
//! and the `w` flag write FILE, `r FILE` and `R FILE` read it, judged by its place. awk: `system("…")`, `print | "cmd"` and
//! `"cmd" | getline` run their literal string as a shell line (anything else opaque);
//! `print > "file"` writes and `getline < "file"` reads; so do a `print`'s redirection and a
//! `getline`'s input named by an expression that says where (`ENVIRON["HOME"] "/.bashrc"`, a
//! name given such a value in the program or by `-v`). Editing in place (`sed -i`) is the
//! `general` rule's.

use std::ops::Range;

use super::super::State;
use super::super::act::Site;
use super::super::catalogue;
use super::super::effects::Effect;
use super::super::getopt::{self, Args, Grammar, Style};
use super::super::join_path;
use super::super::recurse::{Ctx, queue_mapped};
use super::super::words::Word;
use super::read_string;

/// GNU sed's options, as getopt_long reads them (`-nl 5`, `--expr=…`, `-i[SUFFIX]`).
pub(crate) const SED: Grammar = Grammar {
    short: "e:f:l:i::",
    long: &[
        "debug",
        "expression=",
        "file=",
        "follow-symlinks",
        "help",
        "in-place=?",
        "line-length=",
        "null-data",
        "posix",
        "quiet",
        "regexp-extended",
        "sandbox",
        "separate",
        "silent",
        "unbuffered",
        "version",
    ],
    style: Style::Gnu,
};

pub fn sed(args: &[Word], path: &str, at: &Ctx, st: &mut State) {
    let a = getopt::parse(args, &SED);
    let mut scripts: Vec<&Word> = a.values(&["e", "expression"]).collect();
    let files: Vec<&Word> = a.values(&["f", "file"]).collect();
    for file in &files {
        if matches!(file.literal(), Some("-" | "/dev/stdin")) {
            let span = at.src.map.span(file.span.clone());
            st.add(catalogue::STDIN_COMMANDS.at(span, "sed -f"));
        }
    }
    // Without `-e` or `-f`, the first operand is the script.
    if scripts.is_empty() && files.is_empty() {
        scripts.extend(a.operands.first().copied());
    }
    for w in scripts {
        let span = at.src.map.span(w.span.clone());
        let Some(script) = w.literal() else {
            st.add(catalogue::INLINE_PROGRAM.at(span, &format!("`sed {}`", w.raw)));
            continue;
        };
        let script = sed_script(script);
        if script.runs {
            st.add(
                catalogue::INLINE_PROGRAM
                    .at(span.clone(), "`sed` (its `e` command runs shell commands)"),
            );
        }
        // `r FILE`, `R FILE` read FILE into the output; `w FILE`, `W FILE` and the `w` flag
        // of `s///` write it.
        let files: Vec<(Effect, Word)> = script
            .files
            .into_iter()
            .map(|(effect, name)| (effect, Word::made(name, w.raw, w.span.clone())))
            .collect();
        if !files.is_empty() {
            let mut site = Site::new("sed", Args::default(), span, st);
            for (effect, file) in &files {
                site.on(*effect, file);
            }
            site.report();
        }
        let _ = path;
    }
}

/// What a sed script does besides editing its input.
struct SedScript {
    /// It runs shell commands (`e`).
    runs: bool,
    /// Files it reads (`r`, `R`) and writes (`w`, `W`, the `w` flag).
    files: Vec<(Effect, String)>,
}

/// What a sed script runs, reads and writes.
fn sed_script(script: &str) -> SedScript {
    let b: Vec<char> = script.chars().collect();
    let mut runs = false;
    let mut files = Vec::new();
    // The file name a command takes runs to the end of the line.
    let name = |from: usize, to: usize| -> String {
        b.get(from..to)
            .unwrap_or(&[])
            .iter()
            .collect::<String>()
            .trim()
            .to_owned()
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '$' | '~' | '+' => {}
            '0'..='9' => {}
            // An address: /re/ or \cREc.
            '/' | '\\' => {
                let delim = if c == '\\' {
                    let d = b.get(i).copied().unwrap_or('/');
                    i += 1;
                    d
                } else {
                    '/'
                };
                i = past(&b, i, delim);
            }
            's' | 'y' => {
                let Some(&delim) = b.get(i) else { break };
                i = past(&b, i + 1, delim);
                i = past(&b, i, delim);
                if c == 's' {
                    while let Some(&f) = b.get(i) {
                        if matches!(f, ';' | '\n' | '}') {
                            break;
                        }
                        i += 1;
                        match f {
                            'e' => runs = true,
                            'w' => {
                                let end = line_end(&b, i);
                                files.push((Effect::Write, name(i, end)));
                                i = end;
                            }
                            _ => {}
                        }
                    }
                }
            }
            'e' => {
                runs = true;
                i = line_end(&b, i);
            }
            'w' | 'W' | 'r' | 'R' => {
                let end = line_end(&b, i);
                let effect = if matches!(c, 'w' | 'W') {
                    Effect::Write
                } else {
                    Effect::Read
                };
                files.push((effect, name(i, end)));
                i = end;
            }
            'a' | 'i' | 'c' => i = line_end(&b, i),
            'b' | 't' | 'T' | ':' | 'q' | 'Q' | 'l' | 'L' | 'v' => {
                while b.get(i).is_some_and(|c| !matches!(c, ';' | '\n' | '}')) {
                    i += 1;
                }
            }
            _ => {}
        }
    }
    files.retain(|(_, name)| !name.is_empty());
    SedScript { runs, files }
}

/// The index after the next unescaped `delim` from `i`.
fn past(b: &[char], mut i: usize, delim: char) -> usize {
    while i < b.len() {
        if b[i] == '\\' {
            i += 2;
            continue;
        }
        if b[i] == delim {
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

fn line_end(b: &[char], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| *c != '\n') {
        i += 1;
    }
    i
}

/// awk options that take a value as the next word.
/// awk's options (gawk's, which the others' are a part of): options end at the program.
pub(crate) const AWK: Grammar = Grammar {
    short: "F:v:f:i:l:E:",
    long: &[
        "field-separator=",
        "assign=",
        "file=",
        "include=",
        "load=",
        "exec=",
    ],
    style: Style::Posix,
};

pub fn awk(args: &[Word], path: &str, at: &Ctx, st: &mut State) {
    let a = getopt::parse(args, &AWK);
    // The program is in a file: the input (`-f -`) or a stream is not readable here.
    let files: Vec<&Word> = a.values(&["f", "file", "E", "exec"]).collect();
    if !files.is_empty() {
        for file in files {
            if let Some(text) = file.literal()
                && (text == "-" || text == "/dev/stdin" || text.starts_with("/dev/fd/"))
            {
                let span = at.src.map.span(file.span.clone());
                st.add(catalogue::STDIN_COMMANDS.at(span, "awk -f"));
            }
        }
        return;
    }
    let Some(w) = a.operands.first().copied() else {
        return;
    };
    let span = at.src.map.span(w.span.clone());
    let Some(program) = w.literal() else {
        st.add(catalogue::INLINE_PROGRAM.at(span, &format!("`awk {}`", w.raw)));
        return;
    };
    let assigned: Vec<&Word> = a.values(&["v", "assign"]).collect();
    awk_program(program, &assigned, span, path, at, st);
}

/// An awk program's text (on the line, or a file `awk -f` reads), with the `-v NAME=VALUE`
/// words it was given: what it runs, writes and reads.
pub fn awk_program(
    program: &str,
    assigned: &[&Word],
    span: Range<usize>,
    path: &str,
    at: &Ctx,
    st: &mut State,
) {
    let segment = join_path(path, "awk");
    let b: Vec<char> = program.chars().collect();
    let mut vars = Vars::default();
    // `-v f=$HOME/.ssh/id_rsa`: the value as the shell wrote it.
    for assign in assigned {
        if let Some((name, value)) = assign.raw.split_once('=') {
            vars.set(name, Some(value.to_owned()));
        }
    }
    let mut last_string: Option<(String, usize)> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '"' {
            let (value, end) = read_string(&b, i);
            last_string = value.map(|v| (v, end));
            i = end;
            continue;
        }
        if c == '|' && b.get(i + 1) == Some(&'|') {
            i += 2;
            continue;
        }
        if c == '|' {
            let j = skip(&b, i + 1);
            let getline = b[j..].iter().take(7).collect::<String>() == "getline";
            let command = if getline {
                last_string
                    .take()
                    .filter(|(_, end)| skip_back(&b, i) == *end)
                    .map(|(s, _)| s)
            } else if b.get(j) == Some(&'"') {
                read_string(&b, j).0
            } else {
                None
            };
            // The command reads what awk prints.
            match command {
                Some(cmd) if getline => queue(cmd, &span, &segment, at, st),
                Some(cmd) => queue(format!("cat | {cmd}"), &span, &segment, at, st),
                None => {
                    st.add(catalogue::INLINE_PROGRAM.at(span.clone(), "`awk` piping to a command"))
                }
            }
            i += 1;
            continue;
        }
        // `print > "file"`, `print >> "file"`: written as the shell would write it; a file
        // named by an expression is a write the gate cannot place.
        if c == '>' {
            let append = b.get(i + 1) == Some(&'>');
            let j = skip(&b, if append { i + 2 } else { i + 1 });
            if b.get(j) != Some(&'"')
                && in_print(&b, i)
                && let Some(file) = vars.placed(&b, j)
            {
                let to = if append { ">>" } else { ">" };
                queue(format!("cat {to} {file}"), &span, &segment, at, st);
            }
            if b.get(j) == Some(&'"') {
                match read_string(&b, j).0 {
                    Some(file) => {
                        let to = if append { ">>" } else { ">" };
                        queue(
                            format!("cat {to} {}", quoted(&file)),
                            &span,
                            &segment,
                            at,
                            st,
                        );
                    }
                    None => st.add(catalogue::INLINE_WRITES.at(span.clone(), "`awk` (`print >`)")),
                }
            }
            i += if append { 2 } else { 1 };
            continue;
        }
        // `getline < "file"` reads the file into the program, which prints what it likes; a
        // comparison with a string (`$1 < "m"`) is read as such a read too, of a harmless name.
        if c == '<' {
            let j = skip(&b, i + 1);
            if b.get(j) == Some(&'"')
                && let Some(file) = read_string(&b, j).0
            {
                queue(format!("cat {}", quoted(&file)), &span, &segment, at, st);
            } else if after_getline(&b, i)
                && let Some(file) = vars.placed(&b, j)
            {
                queue(format!("cat {file}"), &span, &segment, at, st);
            }
            i += 1;
            continue;
        }
        // `h = ENVIRON["HOME"]`: a name given a value the reader can say.
        if (c.is_ascii_alphabetic() || c == '_') && (i == 0 || !is_name(b[i - 1])) {
            let end = b[i..]
                .iter()
                .position(|c| !is_name(*c))
                .map_or(b.len(), |n| i + n);
            let eq = skip(&b, end);
            if b.get(eq) == Some(&'=') && b.get(eq + 1) != Some(&'=') {
                let name: String = b[i..end].iter().collect();
                let value = vars.placed(&b, skip(&b, eq + 1));
                vars.set(&name, value);
                i = eq + 1;
                continue;
            }
        }
        if b[i..].starts_with(&['s', 'y', 's', 't', 'e', 'm'])
            && (i == 0 || !b[i - 1].is_alphanumeric())
        {
            let j = skip(&b, i + 6);
            if b.get(j) == Some(&'(') {
                let k = skip(&b, j + 1);
                let command = (b.get(k) == Some(&'"'))
                    .then(|| read_string(&b, k))
                    .filter(|(_, end)| matches!(b.get(skip(&b, *end)), Some(')')))
                    .and_then(|(v, _)| v);
                match command {
                    Some(cmd) => queue(cmd, &span, &segment, at, st),
                    None => st.add(catalogue::INLINE_PROGRAM.at(span.clone(), "`awk` (`system`)")),
                }
            }
            i += 6;
            continue;
        }
        i += 1;
    }
}

/// The names an awk program (or its `-v`) gave a value the reader can say, as shell words.
#[derive(Default)]
struct Vars(Vec<(String, Option<String>)>);

impl Vars {
    fn set(&mut self, name: &str, value: Option<String>) {
        self.0.retain(|(n, _)| n != name);
        if self.0.len() < 64 {
            self.0.push((name.to_owned(), value));
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The expression at `i` (a concatenation of strings, `ENVIRON["NAME"]`, names with a
    /// value, in parentheses or not) as a shell word for the place it makes: `None` unless some
    /// part of it says where (the environment, a name given a value, a path from `/` or `~`),
    /// so that a file named by the data alone (`print > $1 ".txt"`) stays as it was. A part
    /// not known is a value only known when it runs.
    fn placed(&self, b: &[char], mut i: usize) -> Option<String> {
        let mut word = String::new();
        let mut says = false;
        let mut depth = 0usize;
        while i < b.len() {
            let c = b[i];
            match c {
                '(' => {
                    depth += 1;
                    i += 1;
                }
                ')' if depth > 0 => {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                ' ' | '\t' => i += 1,
                '"' => {
                    let (value, end) = read_string(b, i);
                    let value = value?;
                    if word.is_empty() && (value.starts_with('/') || value.starts_with('~')) {
                        says = true;
                    }
                    word.push_str(&quoted(&value));
                    i = end;
                }
                c if c.is_ascii_alphabetic() || c == '_' => {
                    let end = b[i..]
                        .iter()
                        .position(|c| !is_name(*c))
                        .map_or(b.len(), |n| i + n);
                    let name: String = b[i..end].iter().collect();
                    i = end;
                    if name == "ENVIRON" && b.get(i) == Some(&'[') {
                        let k = skip(b, i + 1);
                        let (key, end) = (b.get(k) == Some(&'"')).then(|| read_string(b, k))?;
                        let key = key
                            .filter(|k| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))?;
                        i = skip(b, end) + 1;
                        word.push_str(&format!("\"${{{key}}}\""));
                        says = true;
                    } else if let Some(value) = self.get(&name) {
                        word.push_str(value);
                        says = true;
                    } else {
                        word.push_str("\"$ASSENT_AWK_VALUE\"");
                    }
                }
                '$' | '0'..='9' => {
                    while i < b.len() && !matches!(b[i], ' ' | '\t' | '"' | ')' | ';' | '}' | '\n')
                    {
                        i += 1;
                    }
                    word.push_str("\"$ASSENT_AWK_VALUE\"");
                }
                _ => break,
            }
            if depth == 0
                && !matches!(b.get(skip(b, i)), Some('"' | '('))
                && !b.get(skip(b, i)).is_some_and(|c| c.is_ascii_alphabetic())
            {
                break;
            }
        }
        (says && !word.is_empty()).then_some(word)
    }
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether the `>` at `at` is a `print` or `printf` statement's redirection: the statement it
/// is in starts with one, and it is in no parentheses (`print (a > b)` compares).
fn in_print(b: &[char], at: usize) -> bool {
    let mut depth = 0i32;
    let mut i = at;
    while i > 0 {
        i -= 1;
        match b[i] {
            ')' => depth += 1,
            '(' => depth -= 1,
            ';' | '{' | '}' | '\n' => break,
            _ => continue,
        }
        if depth < 0 {
            return false;
        }
    }
    let start = if matches!(b[i], ';' | '{' | '}' | '\n') {
        i + 1
    } else {
        i
    };
    let statement: String = b[skip(b, start)..at].iter().collect();
    depth == 0
        && (statement.starts_with("print ")
            || statement.starts_with("printf ")
            || statement.starts_with("print("))
}

/// Whether the `<` at `at` follows `getline` or `getline VAR`.
fn after_getline(b: &[char], at: usize) -> bool {
    let before: String = b[..at].iter().collect();
    let words: Vec<&str> = before.split_whitespace().rev().take(2).collect();
    matches!(words.as_slice(), [w, ..] if w.ends_with("getline"))
        || matches!(words.as_slice(), [_, w] if w.ends_with("getline"))
}

/// `text` as one shell word.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

fn skip(b: &[char], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

fn skip_back(b: &[char], mut i: usize) -> usize {
    while i > 0 && b[i - 1].is_whitespace() {
        i -= 1;
    }
    i
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
