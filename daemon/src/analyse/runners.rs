//! Programs that run commands handed to them as words or text: `xargs` (from `command` via
//! the wrappers table), `find -exec`, `parallel`, `watch`, `su -c` and `ssh HOST CMD`.
//!
//! A command they run is queued as a [`Job`] (words) or as shell text; an argument that comes
//! from their input (`xargs`, `{}` of `find`) is a dynamic word, so `echo / | xargs rm -rf`
//! is judged as `rm -rf` of an unknown target, never as safe.

use std::rc::Rc;

use super::State;
use super::catalogue;
use super::command::{Ctx, Job, Stdin, command_string, fed_to_shell, fresh, queue_text};
use super::join_path;
use super::words::Word;
use super::wrappers::Opt;

/// A word standing for what a program reads or finds at run time.
fn runtime<'s>(like: &Word<'s>, shown: &'static str) -> Word<'s> {
    Word {
        text: shown.to_owned(),
        raw: shown,
        dynamic: true,
        span: like.span.clone(),
    }
}

/// `xargs [opts] CMD ARGS`: CMD gets arguments from standard input, appended or in place of
/// the replace string (`-I {}`, `-J {}`, `-i`).
pub fn xargs(job: &mut Job, opts: &[Opt], start: usize) {
    let replace = opts.iter().find_map(|o| match o.name {
        "I" | "J" | "replace" => o.value.as_ref().and_then(|v| v.literal()),
        "i" => Some(o.value.as_ref().and_then(|v| v.literal()).unwrap_or("{}")),
        _ => None,
    });
    job.words.drain(..start);
    match replace.filter(|r| !r.is_empty()).map(str::to_owned) {
        Some(r) => {
            for w in job.words.iter_mut().skip(1) {
                if w.raw.contains(r.as_str()) || w.text.contains(r.as_str()) {
                    *w = runtime(w, "{stdin}");
                }
            }
        }
        None => {
            if let Some(last) = job.words.last() {
                let input = runtime(last, "{stdin}");
                job.words.push(input);
            }
        }
    }
    job.stdin = Stdin::Inherited;
    job.child = true;
}

/// Runs the program's commands if it is a runner; `true` when nothing else is to be judged.
pub fn run<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    match name {
        "find" => {
            find(words, &job.path, jobs);
            false
        }
        "parallel" | "sem" => {
            parallel(name, words, &job.path, at, st, jobs);
            true
        }
        "watch" => {
            watch(words, &job.path, at, st, jobs);
            true
        }
        "su" => {
            su(words, job, at, st);
            true
        }
        "ssh" => {
            ssh(words, job, at, st);
            true
        }
        _ => false,
    }
}

/// `find … -exec CMD {} ;` (and `-execdir`, `-ok`, `-okdir`, `+`): CMD runs per file found.
fn find<'s>(words: &[Word<'s>], path: &Rc<str>, jobs: &mut Vec<Job<'s>>) {
    let mut i = 1;
    while i < words.len() {
        let action = words[i].literal().unwrap_or("");
        i += 1;
        if !matches!(action, "-exec" | "-execdir" | "-ok" | "-okdir") {
            continue;
        }
        let mut cmd = Vec::new();
        while let Some(w) = words.get(i) {
            i += 1;
            if matches!(w.literal(), Some(";" | "+")) {
                break;
            }
            cmd.push(if w.raw.contains("{}") || w.text.contains("{}") {
                runtime(w, "{found}")
            } else {
                w.clone()
            });
        }
        if !cmd.is_empty() {
            jobs.push(Job {
                words: cmd,
                path: join_path(path, &format!("find {action}")),
                stdin: Stdin::Inherited,
                child: true,
            });
        }
    }
}

/// GNU parallel options that take a value as the next word.
const PARALLEL_ARGS: &[&str] = &[
    "-j",
    "--jobs",
    "-P",
    "--max-procs",
    "-S",
    "--sshlogin",
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-E",
    "--eof",
    "-I",
    "--colsep",
    "-C",
    "-n",
    "--max-args",
    "-N",
    "-L",
    "--max-lines",
    "--delay",
    "--timeout",
    "--joblog",
    "--results",
    "--res",
    "--tmpdir",
    "--workdir",
    "--wd",
    "--basefile",
    "--bf",
    "--env",
    "--sshloginfile",
    "--slf",
    "--tag-string",
    "--tagstring",
    "--memfree",
    "--load",
    "--nice",
    "--retries",
    "--halt",
    "--id",
    "--semaphorename",
    "--fg",
    "--block",
    "--block-size",
    "--recstart",
    "--recend",
    "--cat",
    "--fifo",
    "--termseq",
];

/// Arguments given after `:::` are used when they are this few; more, or from elsewhere,
/// stand for a dynamic word.
const PARALLEL_INSTANCES: usize = 8;

/// `parallel CMD ::: ARGS` runs CMD once per argument, `{}` replaced or the argument
/// appended; without CMD the arguments are commands; without `:::` they come from input.
fn parallel<'s>(
    name: &str,
    words: &[Word<'s>],
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) {
    let mut i = 1;
    while let Some(t) = words.get(i).and_then(Word::literal) {
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t.starts_with(":::") {
            break;
        }
        i += if PARALLEL_ARGS.contains(&t) { 2 } else { 1 };
    }
    let rest = words.get(i..).unwrap_or(&[]);
    let sep = rest
        .iter()
        .position(|w| matches!(w.literal(), Some(":::" | "::::" | ":::+" | "::::+")));
    let (template, inputs) = match sep {
        Some(s) => (&rest[..s], Some(&rest[s..])),
        None => (rest, None),
    };
    // Literal arguments of a single `:::` group, when few; otherwise unknown.
    let literal: Option<Vec<&Word<'s>>> = inputs.and_then(|group| {
        let (head, args) = group.split_first()?;
        let single = head.literal() == Some(":::")
            && !args
                .iter()
                .any(|w| w.literal().is_some_and(|t| t.starts_with(":::")));
        (single && args.len() <= PARALLEL_INSTANCES && args.iter().all(|w| !w.dynamic))
            .then(|| args.iter().collect())
    });
    let segment = join_path(path, name);
    if template.is_empty() {
        match literal {
            Some(commands) => {
                for c in commands {
                    command_string(name, Some(c), path, at, st);
                }
            }
            None => {
                let span = at.span_of(words);
                st.add(catalogue::OPAQUE_STDIN_COMMANDS.at(span, name));
            }
        }
        return;
    }
    let placeholder = |t: &str| {
        t.contains("{}")
            || t.contains("{.}")
            || t.contains("{/}")
            || t.contains("{//}")
            || t.contains("{/.}")
            || t.contains("{#}")
            || t.contains("{%}")
            || (1..=9).any(|n| t.contains(&format!("{{{n}}}")))
    };
    let instances: Vec<Option<&Word<'s>>> = match literal {
        Some(args) if !args.is_empty() => args.into_iter().map(Some).collect(),
        _ => vec![None],
    };
    for input in instances {
        let mut cmd: Vec<Word<'s>> = Vec::with_capacity(template.len() + 1);
        let mut placed = false;
        for w in template {
            if placeholder(&w.text) || placeholder(w.raw) {
                placed = true;
                cmd.push(match input {
                    Some(arg) => Word {
                        text: w.text.replace("{}", &arg.text),
                        dynamic: w.dynamic || placeholder(&w.text.replace("{}", "")),
                        ..w.clone()
                    },
                    None => runtime(w, "{input}"),
                });
            } else {
                cmd.push(w.clone());
            }
        }
        if !placed && let Some(last) = template.last() {
            cmd.push(match input {
                Some(arg) => arg.clone(),
                None => runtime(last, "{input}"),
            });
        }
        jobs.push(Job {
            words: cmd,
            path: Rc::clone(&segment),
            stdin: Stdin::Inherited,
            child: true,
        });
    }
}

/// `watch [opts] CMD…`: the words are joined and run by `sh -c` again and again (`-x` runs
/// them as they are).
fn watch<'s>(
    words: &[Word<'s>],
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) {
    let mut i = 1;
    let mut exec = false;
    while let Some(t) = words.get(i).and_then(Word::literal) {
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        i += 1;
        if let Some(long) = t.strip_prefix("--") {
            exec |= long == "exec";
            if matches!(long, "interval" | "equexit") {
                i += 1;
            }
        } else {
            exec |= t.contains('x');
            // `-n SECS` and `-q CYCLES` take a value unless it is attached.
            if let Some(p) = t.find(['n', 'q'])
                && p + 1 == t.len()
            {
                i += 1;
            }
        }
    }
    let Some(cmd) = words.get(i..).filter(|c| !c.is_empty()) else {
        return;
    };
    let segment = join_path(path, "watch");
    if exec {
        jobs.push(Job {
            words: cmd.to_vec(),
            path: segment,
            stdin: Stdin::Inherited,
            child: true,
        });
        return;
    }
    if let Some(dynamic) = cmd.iter().find(|w| w.dynamic) {
        let span = at.src.map.span(dynamic.span.clone());
        st.add(catalogue::OPAQUE_DYNAMIC_SHELL.at(span, &format!("`{}`", dynamic.raw)));
        return;
    }
    let text = cmd
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let refs: Vec<&Word> = cmd.iter().collect();
    let shell = fresh(st.shell.cwd.clone());
    queue_or_verbatim(text, &refs, segment, at, shell, st);
}

fn queue_or_verbatim(
    text: String,
    words: &[&Word],
    path: Rc<str>,
    at: &Ctx,
    shell: super::Shell,
    st: &mut State,
) {
    let verbatim = match words {
        [w] if w.raw == text => Some(w.span.start),
        [w] if w.raw.len() >= 2 && w.raw.get(1..w.raw.len() - 1) == Some(text.as_str()) => {
            Some(w.span.start + 1)
        }
        _ => None,
    };
    match verbatim {
        Some(base) => queue_text(text, Ok(base), path, at, shell, st),
        None => queue_text(text, Err(words), path, at, shell, st),
    }
}

/// `su [opts] [-] [USER] -c STR`: STR runs through the user's shell; without `-c` a shell
/// reads standard input.
fn su(words: &[Word], job: &Job, at: &Ctx, st: &mut State) {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        i += 1;
        let Some(t) = w.literal() else { continue };
        let value = if matches!(t, "-c" | "--command" | "--session-command") {
            words.get(i)
        } else if t.starts_with("--command=") || t.starts_with("--session-command=") {
            let text = t.split_once('=').map_or("", |(_, v)| v);
            let word = Word {
                text: text.to_owned(),
                ..w.clone()
            };
            command_string("su -c", Some(&word), &job.path, at, st);
            return;
        } else if t.starts_with('-') && !t.starts_with("--") && t.ends_with('c') {
            words.get(i)
        } else {
            continue;
        };
        command_string("su -c", value, &job.path, at, st);
        return;
    }
    let span = at.span_of(words);
    fed_to_shell("su", &job.stdin, &job.path, span, at, st);
}

/// ssh options that take a value.
const SSH_ARGS: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// `ssh [opts] HOST [CMD…]`: CMD's words are joined and run by the remote user's shell, in
/// their home; the path marks it remote. Without CMD a remote shell reads standard input.
fn ssh(words: &[Word], job: &Job, at: &Ctx, st: &mut State) {
    let mut i = 1;
    let mut no_command = false;
    while let Some(t) = words.get(i).and_then(Word::literal) {
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t.len() < 2 {
            break;
        }
        i += 1;
        for (at, c) in t.char_indices().skip(1) {
            no_command |= c == 'N';
            if SSH_ARGS.contains(c) {
                if at + 1 == t.len() {
                    i += 1;
                }
                break;
            }
        }
    }
    let Some(host) = words.get(i) else { return };
    if no_command {
        return;
    }
    let segment = join_path(&job.path, &format!("ssh {}", host.raw));
    let cmd = &words[i + 1..];
    let span = at.span_of(words);
    if cmd.is_empty() {
        fed_to_shell(
            &format!("ssh {}", host.raw),
            &job.stdin,
            &job.path,
            span,
            at,
            st,
        );
        return;
    }
    // The local shell expands the words, the remote one parses the result: dynamic words
    // are kept as written, without their outer double quotes, so their parts stay dynamic.
    let text = cmd
        .iter()
        .map(|w| match w.literal() {
            Some(t) => t.to_owned(),
            None => w
                .raw
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .unwrap_or(w.raw)
                .to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ");
    let home = st.ctx.home.filter(|h| h.starts_with('/')).map(Rc::from);
    let shell = fresh(Some(home.unwrap_or_else(|| Rc::from(""))));
    let refs: Vec<&Word> = cmd.iter().collect();
    if cmd.iter().all(|w| !w.dynamic) {
        queue_or_verbatim(text, &refs, segment, at, shell, st);
    } else {
        queue_text(text, Err(&refs), segment, at, shell, st);
    }
}
