//! One simple command: which program really runs, and which text runs as commands.
//!
//! Wrappers (`sudo`, `env`, `timeout 5`, `xargs`, …) are peeled off with the table
//! [`WRAPPERS`] so the wrapped command is judged; shells given `-c STR` and `eval` of literal
//! words queue their text to be parsed like the input; a shell reading a pipe is opaque.
//! What a program does once found is `rules`' business.

use std::ops::Range;
use std::rc::Rc;

use super::catalogue;
use super::rules;
use super::source::{SpanMap, join_continuations};
use super::words::{Word, basename};
use super::{SimpleCommand, Source, State, join_path};

/// A simple command's words as the walk found them.
pub struct Cmd<'s> {
    pub words: Vec<Word<'s>>,
    /// In the parsed text.
    pub span: Range<usize>,
    pub path: Rc<str>,
    /// Standard input is a pipe.
    pub piped: bool,
    pub depth: u32,
}

/// A program that runs another program given on its command line.
pub struct Wrapper {
    pub name: &'static str,
    /// Short options that take a value (`-u NAME` or `-uNAME`).
    pub short_args: &'static str,
    /// Long options that take a value as the next word (`--user NAME`); `--user=NAME` needs
    /// no entry.
    pub long_args: &'static [&'static str],
    /// Short options after which nothing is run (`command -v`, `sudo -l`).
    pub no_command: &'static str,
    /// `NAME=value` words before the command set its environment (`env`, `sudo`).
    pub assignments: bool,
    /// Words after the options and before the command (`timeout DURATION`).
    pub operands: usize,
}

const fn wrapper(
    name: &'static str,
    short_args: &'static str,
    long_args: &'static [&'static str],
) -> Wrapper {
    Wrapper {
        name,
        short_args,
        long_args,
        no_command: "",
        assignments: false,
        operands: 0,
    }
}

pub const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        no_command: "elvVK",
        assignments: true,
        ..wrapper(
            "sudo",
            "ugpChDrtUT",
            &[
                "user",
                "group",
                "prompt",
                "close-from",
                "host",
                "chdir",
                "role",
                "type",
                "other-user",
                "command-timeout",
                "chroot",
            ],
        )
    },
    wrapper("doas", "uC", &[]),
    // `env -S STR` splits STR into words; it is not peeled here (issue 3), so its value is
    // taken as an option value and the command after it is still judged.
    Wrapper {
        assignments: true,
        ..wrapper("env", "uCS", &["unset", "chdir", "split-string"])
    },
    wrapper("nice", "n", &["adjustment"]),
    wrapper("nohup", "", &[]),
    Wrapper {
        operands: 1,
        ..wrapper("timeout", "sk", &["signal", "kill-after"])
    },
    wrapper("time", "", &[]),
    Wrapper {
        no_command: "vV",
        ..wrapper("command", "", &[])
    },
    wrapper("builtin", "", &[]),
    wrapper("exec", "a", &[]),
    wrapper(
        "xargs",
        "aEdILnPs",
        &[
            "arg-file",
            "delimiter",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
        ],
    ),
];

/// Shells that take `-c STR`.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh",
];

impl Wrapper {
    /// Index of the wrapped command's name in `words` (whose first word is the wrapper), or
    /// `None` if nothing is run.
    fn command_start(&self, words: &[Word]) -> Option<usize> {
        let mut i = 1;
        while let Some(w) = words.get(i) {
            // A dynamic word here could be an option or the command: let the caller see it as
            // the command name, which makes it opaque.
            let Some(t) = w.literal() else { break };
            if self.assignments && is_assignment(t) {
                i += 1;
            } else if t == "--" {
                i += 1;
                break;
            } else if let Some(long) = t.strip_prefix("--") {
                i += if !long.contains('=') && self.long_args.contains(&long) {
                    2
                } else {
                    1
                };
            } else if t.len() > 1 && t.starts_with('-') {
                i += 1;
                for (at, c) in t.char_indices().skip(1) {
                    if self.no_command.contains(c) {
                        return None;
                    }
                    if self.short_args.contains(c) {
                        // The value is the rest of this word, or the next word.
                        if at + c.len_utf8() == t.len() {
                            i += 1;
                        }
                        break;
                    }
                }
            } else if t == "-" {
                i += 1;
            } else {
                break;
            }
        }
        let start = i + self.operands;
        (start < words.len()).then_some(start)
    }
}

/// `NAME=value` with a valid shell name.
fn is_assignment(t: &str) -> bool {
    match t.split_once('=') {
        Some((name, _)) => {
            name.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Records the command (and each command it wraps) and applies the rules to the program
/// that really runs.
pub fn analyse(cmd: &Cmd, src: &Source, st: &mut State) {
    let mut words: &[Word] = &cmd.words;
    let mut path = Rc::clone(&cmd.path);
    // A loop: `sudo env nice timeout 5 rm …` peels one wrapper per turn.
    while let Some(first) = words.first() {
        let span = src.map.span(first.span.start..cmd.span.end);
        st.command(SimpleCommand {
            path: path.to_string(),
            argv: words.iter().map(|w| w.text.clone()).collect(),
            span: span.clone(),
        });
        let Some(name) = first.literal() else {
            let span = src.map.span(first.span.clone());
            st.add(catalogue::OPAQUE_DYNAMIC_COMMAND.at(span, &format!("`{}`", first.raw)));
            return;
        };
        let name = basename(name);
        if let Some(w) = WRAPPERS.iter().find(|w| w.name == name) {
            match w.command_start(words) {
                Some(start) => {
                    path = join_path(&path, name);
                    words = &words[start..];
                    continue;
                }
                None => return,
            }
        }
        let args = &words[1..];
        if SHELLS.contains(&name) {
            shell(name, args, cmd, &path, span, src, st);
        } else if name == "eval" {
            eval(args, cmd, &path, span, src, st);
        } else {
            rules::command(name, args, span, st);
        }
        return;
    }
}

/// `bash -c STR`: STR is parsed like the input. A shell reading commands from a pipe runs
/// text nobody can see here.
fn shell(
    name: &str,
    args: &[Word],
    cmd: &Cmd,
    path: &str,
    span: Range<usize>,
    src: &Source,
    st: &mut State,
) {
    let mut i = 0;
    let mut command_string = false;
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
            command_string |= flags.contains('c');
            stdin_flag |= flags.contains('s');
        }
        // `-o NAME` / `-O NAME` take the next word.
        i += if flags.contains(['o', 'O']) { 2 } else { 1 };
    }
    let operand = args.get(i);
    if command_string {
        let Some(word) = operand else { return };
        match word.literal() {
            Some(text) => {
                let segment = format!("{name} -c");
                queue_inner(
                    text.to_owned(),
                    std::slice::from_ref(word),
                    &segment,
                    cmd,
                    path,
                    src,
                    st,
                );
            }
            None => {
                let span = src.map.span(word.span.clone());
                st.add(catalogue::OPAQUE_DYNAMIC_SHELL.at(span, &format!("`{}`", word.raw)));
            }
        }
    } else if cmd.piped && (operand.is_none() || stdin_flag) {
        st.add(catalogue::OPAQUE_PIPE_TO_SHELL.at(span, name));
    }
}

/// `eval WORDS`: literal words are joined with spaces and parsed, as bash does.
fn eval(args: &[Word], cmd: &Cmd, path: &str, _span: Range<usize>, src: &Source, st: &mut State) {
    let (Some(first), Some(last)) = (args.first(), args.last()) else {
        return;
    };
    if let Some(dynamic) = args.iter().find(|w| w.dynamic) {
        let span = src.map.span(first.span.start..last.span.end);
        st.add(catalogue::OPAQUE_EVAL_DYNAMIC.at(span, &format!("`{}`", dynamic.raw)));
        return;
    }
    let text = args
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    queue_inner(text, args, "eval", cmd, path, src, st);
}

/// Queues `text`, which came from `words`, to be parsed. Spans inside it point into the
/// original input when it is a verbatim slice of one word, else at the whole of `words`.
fn queue_inner(
    text: String,
    words: &[Word],
    segment: &str,
    cmd: &Cmd,
    path: &str,
    src: &Source,
    st: &mut State,
) {
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return;
    };
    let (joined, removed) = join_continuations(&text);
    let verbatim_at = match words {
        [w] if w.raw == text => Some(w.span.start),
        [w] if w.raw.len() >= 2 && w.raw.get(1..w.raw.len() - 1) == Some(text.as_str()) => {
            Some(w.span.start + 1)
        }
        _ => None,
    };
    let map = match verbatim_at {
        Some(base) => SpanMap::inner(&src.map, base, removed),
        None => SpanMap::whole(src.map.span(first.span.start..last.span.end)),
    };
    let inner = Source {
        text: joined,
        map: Rc::new(map),
        path: join_path(path, segment),
        depth: cmd.depth + 1,
    };
    st.inner(inner, src.map.span(first.span.start..last.span.end));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(t: &str) -> Word<'_> {
        Word {
            text: t.to_owned(),
            raw: t,
            dynamic: false,
            span: 0..0,
        }
    }

    #[test]
    fn wrappers_find_the_wrapped_command() {
        let cases: &[(&str, Option<usize>)] = &[
            ("sudo rm x", Some(1)),
            ("sudo -u root -E rm", Some(4)),
            ("sudo -uroot rm", Some(2)),
            ("sudo --user root rm", Some(3)),
            ("sudo --user=root FOO=1 rm", Some(3)),
            ("sudo -l", None),
            ("env -i FOO=1 -u BAR rm", Some(5)),
            ("env - rm", Some(2)),
            ("timeout -s KILL 5 rm", Some(4)),
            ("timeout 5", None),
            ("nice -n 10 rm", Some(3)),
            ("nice -10 rm", Some(2)),
            ("command -v rm", None),
            ("command -- rm", Some(2)),
            ("xargs -0 -n 1 rm -rf", Some(4)),
        ];
        for (line, want) in cases {
            let words: Vec<Word> = line.split(' ').map(lit).collect();
            let w = WRAPPERS
                .iter()
                .find(|w| w.name == line.split(' ').next().unwrap_or(""));
            let got = w.and_then(|w| w.command_start(&words));
            assert_eq!(got, *want, "{line}");
        }
    }
}
