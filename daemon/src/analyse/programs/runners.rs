//! Programs that run commands handed to them as words or text: `find -exec`, `parallel`,
//! `watch`, `su -c`, `ssh HOST CMD`, and the scripts of `sed` and `awk`. `xargs` is a wrapper
//! (`command` peels it).
//!
//! A command they run is queued as a [`Job`] (words) or as shell text; an argument that comes
//! from their input (`xargs`, `{}` of `find`) is a word only known at run time, with what it
//! could be when that is known, so `echo / | xargs rm -rf` is `rm -rf` of whatever `echo`
//! printed, and `find . -name __pycache__ -exec rm -rf {} +` deletes build output.

use std::rc::Rc;

use super::super::State;
use super::super::act::{Site, Slot};
use super::super::catalogue;
use super::super::getopt::{self, Args, Grammar, Style};
use super::super::interp;
use super::super::join_path;
use super::super::recurse::{
    Ctx, Job, Stdin, command_string, fed_to_shell, fresh, input_words, queue_text,
};
use super::super::words::Word;
use super::files;

/// Runs what a program hands on; `true` when nothing else is to be judged.
pub type Runner =
    for<'s, 'x, 'c, 'a> fn(&str, &Job<'s>, &Ctx<'x>, &mut State<'c, 'a>, &mut Vec<Job<'s>>) -> bool;

/// `find … -exec CMD {} ;` (and `-execdir`, `-ok`, `-okdir`, `+`): CMD runs per file found.
pub fn find<'s>(_: &str, job: &Job<'s>, _: &Ctx, _: &mut State, jobs: &mut Vec<Job<'s>>) -> bool {
    let words = &job.words;
    let path = &job.path;
    let found = Rc::new(files::found(&words[1..]).found);
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
                Word::runtime(w, "{found}", Some(Rc::clone(&found)))
            } else {
                w.clone()
            });
        }
        if !cmd.is_empty() {
            jobs.push(Job {
                words: cmd.into(),
                path: join_path(path, &format!("find {action}")),
                stdin: Stdin::Inherited,
                child: true,
                cwd: None,
                assigned: Vec::new(),
                level: job.level + 1,
                container: None,
            });
        }
    }
    false
}

/// GNU parallel's options (Getopt::Long with bundling and `require_order`: clustered short
/// options, a unique prefix of a long one, options only before the command).
pub(crate) const PARALLEL: Grammar = Grammar {
    short: "j:P:S:a:d:E:I:C:n:N:L:s:i::e::l::",
    long: &[
        "jobs=",
        "max-procs=",
        "sshlogin=",
        "arg-file=",
        "delimiter=",
        "eof=?",
        "colsep=",
        "max-args=",
        "max-lines=",
        "max-chars=",
        "replace=?",
        "delay=",
        "timeout=",
        "joblog=",
        "results=",
        "res=",
        "tmpdir=",
        "workdir=",
        "wd=",
        "basefile=",
        "bf=",
        "env=",
        "sshloginfile=",
        "slf=",
        "tag-string=",
        "tagstring=",
        "memfree=",
        "load=",
        "nice=",
        "retries=",
        "halt=",
        "halt-on-error=",
        "id=",
        "semaphorename=",
        "block=",
        "block-size=",
        "recstart=",
        "recend=",
        "termseq=",
        "fg",
        "bg",
        "cat",
        "fifo",
        "pipe",
        "pipe-part",
        "keep-order",
        "group",
        "ungroup",
        "line-buffer",
        "null",
        "dry-run",
        "verbose",
        "xargs",
        "quote",
        "tag",
        "progress",
        "bar",
        "eta",
        "semaphore",
        "will-cite",
        "help",
        "version",
    ],
    style: Style::Posix,
};

/// Arguments given after `:::` are used when they are this few; more, or from elsewhere,
/// stand for a dynamic word.
const PARALLEL_INSTANCES: usize = 8;

/// `parallel CMD ::: ARGS` runs CMD once per argument, `{}` replaced or the argument
/// appended; without CMD the arguments are commands; without `:::` they come from input.
pub fn parallel<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let path = &job.path;
    let opts = getopt::parse(words.get(1..).unwrap_or(&[]), &PARALLEL);
    if opts.only_help() {
        return true;
    }
    if opts
        .value(&["j", "jobs", "P", "max-procs"])
        .and_then(Word::literal)
        .is_some_and(unbounded)
    {
        st.add(catalogue::PROCESS_FLOOD.at(at.span_of(words), "`parallel -j 0`"));
    }
    let rest = words.get(1 + opts.rest..).unwrap_or(&[]);

    let sep = rest
        .iter()
        .position(|w| matches!(w.literal(), Some(":::" | "::::" | ":::+" | "::::+")));
    let (template, inputs) = match sep {
        Some(s) => (&rest[..s], Some(&rest[s..])),
        None => (rest, None),
    };
    // Without `:::`, the arguments are the lines of its input: what the stage before
    // printed, when that is known (`echo ~ | parallel rm -rf`).
    let read = inputs.is_none().then(|| input_words(&job.stdin)).flatten();
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
                st.add(catalogue::STDIN_COMMANDS.at(span, name));
            }
        }
        return true;
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
                    None => Word::runtime(w, "{input}", read.clone()),
                });
            } else {
                cmd.push(w.clone());
            }
        }
        if !placed && let Some(last) = template.last() {
            cmd.push(match input {
                Some(arg) => arg.clone(),
                None => Word::runtime(last, "{input}", read.clone()),
            });
        }
        jobs.push(Job {
            words: cmd.into(),
            path: Rc::clone(&segment),
            stdin: Stdin::Inherited,
            child: true,
            cwd: None,
            assigned: Vec::new(),
            level: job.level + 1,
            container: None,
        });
    }
    true
}

/// procps `watch`'s options (getopt_long, options only before the command).
pub(crate) const WATCH: Grammar = Grammar {
    short: "n:q:d::",
    long: &[
        "interval=",
        "equexit=",
        "differences=?",
        "beep",
        "color",
        "no-color",
        "errexit",
        "chgexit",
        "precise",
        "no-rerun",
        "no-title",
        "no-wrap",
        "no-linewrap",
        "exec",
        "help",
        "version",
    ],
    style: Style::Posix,
};

/// util-linux `su`'s options.
pub(crate) const SU: Grammar = Grammar {
    short: "c:g:G:s:w:",
    long: &[
        "command=",
        "session-command=",
        "group=",
        "supp-group=",
        "shell=",
        "whitelist-environment=",
        "fast",
        "login",
        "preserve-environment",
        "pty",
        "help",
        "version",
    ],
    style: Style::Gnu,
};

/// util-linux `runuser`'s options: `su`'s, and `-u USER`.
const RUNUSER: Grammar = Grammar {
    short: "c:g:G:s:u:w:",
    long: &[
        "command=",
        "session-command=",
        "group=",
        "supp-group=",
        "shell=",
        "user=",
        "whitelist-environment=",
        "fast",
        "login",
        "preserve-environment",
        "pty",
        "help",
        "version",
    ],
    style: Style::Gnu,
};

/// `runuser -u USER [--] CMD ARGS…` runs CMD, or with `-s SHELL` runs SHELL with ARGS; without
/// `-u`, or with `-c STRING`, it is `su` (the string is shell text, else a shell reads its
/// input).
pub fn runuser<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let opts = getopt::parse(words.get(1..).unwrap_or(&[]), &RUNUSER);
    if opts.only_help() {
        return true;
    }
    let string = opts.value(&["c", "command", "session-command"]).cloned();
    if let Some(command) = &string {
        command_string("runuser -c", Some(command), &job.path, at, st);
        return true;
    }
    if opts.value(&["u", "user"]).is_none() {
        return su(name, job, at, st, jobs);
    }
    // The command after the options (each of those that take a value, with it).
    let mut i = 1;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if w.dynamic || !t.starts_with('-') || t == "-" {
            break;
        }
        i += 1;
        if t == "--" {
            break;
        }
        let short = t.len() == 2 && "gGsuw".contains(&t[1..]);
        let long = [
            "--group",
            "--supp-group",
            "--shell",
            "--user",
            "--whitelist-environment",
        ]
        .contains(&t);
        if short || long {
            i += 1;
        }
    }
    let mut run = words.starting_at(i);
    if let Some(shell) = opts.value(&["s", "shell"]).cloned() {
        run.to_mut().insert(0, shell);
    }
    if !run.to_mut().is_empty() {
        jobs.push(job.runs(run, "runuser"));
    }
    true
}

/// `watch [opts] CMD…`: the words are joined and run by `sh -c` again and again (`-x` runs
/// them as they are).
pub fn watch<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let path = &job.path;
    let opts = getopt::parse(words.get(1..).unwrap_or(&[]), &WATCH);
    if opts.only_help() {
        return true;
    }
    let exec = opts.has(&["x", "exec"]);
    let i = 1 + opts.rest;
    let Some(cmd) = words.get(i..).filter(|c| !c.is_empty()) else {
        return true;
    };
    let segment = join_path(path, "watch");
    if exec {
        jobs.push(Job {
            words: cmd.to_vec().into(),
            path: segment,
            stdin: Stdin::Inherited,
            child: true,
            cwd: None,
            assigned: Vec::new(),
            level: job.level + 1,
            container: None,
        });
        return true;
    }
    if let Some(dynamic) = cmd.iter().find(|w| w.dynamic) {
        let span = at.src.map.span(dynamic.span.clone());
        st.add(catalogue::DYNAMIC_SHELL.at(span, &dynamic.quoted()));
        return true;
    }
    let text = cmd
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let refs: Vec<&Word> = cmd.iter().collect();
    let shell = super::super::recurse::fresh_like(&st.shell);
    queue_or_verbatim(text, &refs, segment, at, shell, st);
    true
}

fn queue_or_verbatim(
    text: String,
    words: &[&Word],
    path: Rc<str>,
    at: &Ctx,
    shell: super::super::Shell,
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
pub fn su(_: &str, job: &Job, at: &Ctx, st: &mut State, _: &mut Vec<Job>) -> bool {
    let words = &job.words;
    let opts = getopt::parse(words.get(1..).unwrap_or(&[]), &SU);
    if opts.only_help() {
        return true;
    }
    if let Some(command) = opts.value(&["c", "command", "session-command"]) {
        command_string("su -c", Some(command), &job.path, at, st);
        return true;
    }
    let span = at.span_of(words);
    fed_to_shell("su", &job.stdin, &job.path, span, at, st);
    true
}

/// ssh options that take a value.
const SSH_ARGS: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// `ssh [opts] HOST [CMD…]`: CMD's words are joined and run by the remote user's shell, in
/// their home; the path marks it remote. Without CMD a remote shell reads standard input.
/// What `ssh` sends of secrets: its words (options, the host at `host`, the command the
/// local shell expanded) and, unless `-n` or `-N`, what it reads on its input.
fn sends(job: &Job, host: usize, no_command: bool, at: &Ctx, st: &mut State) {
    let span = at.span_of(&job.words);
    let mut site = Site::new("ssh", Args::default(), span, st);
    site.input = job.stdin.secret();
    for (i, w) in job.words.iter().enumerate().skip(1) {
        let slot = if i == host {
            Slot::Address
        } else {
            Slot::Request
        };
        site.sends(w, slot);
    }
    let no_input = job.words[1..].iter().any(|w| {
        w.literal()
            .is_some_and(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('n'))
    });
    if !no_input && !no_command {
        site.sends_input();
    }
    site.report();
}

pub fn ssh(_: &str, job: &Job, at: &Ctx, st: &mut State, _: &mut Vec<Job>) -> bool {
    let words = &job.words;
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
    let Some(host) = words.get(i) else {
        return true;
    };
    sends(job, i, no_command, at, st);
    if no_command {
        return true;
    }
    let segment = join_path(&job.path, &format!("ssh {}", host.raw));
    let cmd = &words[i + 1..];
    let span = at.span_of(words);
    // A login on the remote host with the terminal's input is a person's session there,
    // not text run on this machine.
    if cmd.is_empty() && matches!(job.stdin, Stdin::Inherited) {
        return true;
    }
    if cmd.is_empty() {
        fed_to_shell(
            &format!("ssh {}", host.raw),
            &job.stdin,
            &job.path,
            span,
            at,
            st,
        );
        return true;
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
    true
}

/// `sed`'s script: the `e` command runs shell commands, `w` writes files.
pub fn sed(_: &str, job: &Job, at: &Ctx, st: &mut State, _: &mut Vec<Job>) -> bool {
    interp::sed::sed(&job.words[1..], &job.path, at, st);
    false
}

/// `awk`'s program: `system()`, `print | "cmd"` and `"cmd" | getline` run shell commands.
pub fn awk(_: &str, job: &Job, at: &Ctx, st: &mut State, _: &mut Vec<Job>) -> bool {
    interp::sed::awk(&job.words[1..], &job.path, at, st);
    false
}

/// A package manager's options before its subcommand, and those of its `run`/`exec`: a
/// value (`npm --prefix DIR exec`, `conda run -n ENV CMD`, `uv run --with PKG CMD`) is not the
/// subcommand or the command. Options end at the first operand, as their parsers stop there.
fn manager_grammars(name: &str) -> (Grammar, Grammar) {
    const fn posix(short: &'static str, long: &'static [&'static str]) -> Grammar {
        Grammar {
            short,
            long,
            style: Style::Posix,
        }
    }
    const JS_GLOBAL: Grammar = posix(
        "C:w:F:",
        &[
            "prefix=",
            "dir=",
            "cwd=",
            "workspace=",
            "filter=",
            "userconfig=",
            "cache=",
            "registry=",
            "loglevel=",
        ],
    );
    const JS_RUN: Grammar = posix("c:p:", &["package=", "call=", "shell="]);
    match name {
        "npm" | "pnpm" | "yarn" => (JS_GLOBAL, JS_RUN),
        "npx" | "pnpx" | "bunx" => (JS_RUN, JS_RUN),
        "poetry" | "rye" | "hatch" | "pdm" | "pipenv" => (
            posix("C:P:e:p:", &["directory=", "project=", "env=", "python="]),
            posix("e:", &["env="]),
        ),
        "uv" => (
            posix(
                "p:",
                &[
                    "directory=",
                    "project=",
                    "python=",
                    "config-file=",
                    "cache-dir=",
                ],
            ),
            posix(
                "p:w:",
                &[
                    "with=",
                    "with-requirements=",
                    "python=",
                    "from=",
                    "package=",
                    "env-file=",
                    "extra=",
                    "group=",
                    "index=",
                    "directory=",
                    "project=",
                ],
            ),
        ),
        "conda" | "mamba" | "micromamba" => {
            (Grammar::NONE, posix("n:p:", &["name=", "prefix=", "cwd="]))
        }
        "bundle" => (Grammar::NONE, posix("", &["gemfile="])),
        "pipx" => (Grammar::NONE, posix("", &["spec=", "python=", "pip-args="])),
        _ => (Grammar::NONE, Grammar::NONE),
    }
}

/// `poetry run CMD`, `bundle exec CMD`, `npm exec -- CMD`, `npx CMD`: CMD runs, as any
/// command does; `npm exec -c STR` runs STR as a shell line. Returns `false`: the manager is
/// judged as a builder too.
pub fn package_run<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let (global, run) = manager_grammars(name);
    let direct = matches!(name, "npx" | "pnpx" | "bunx");
    let mut i = 1;
    if !direct {
        let g = getopt::parse(words.get(1..).unwrap_or(&[]), &posix_of(global));
        i += g.rest;
        let sub = words.get(i).and_then(Word::literal).unwrap_or("");
        let runs = match name {
            "bundle" => sub == "exec",
            "npm" | "pnpm" | "yarn" => matches!(sub, "exec" | "x" | "dlx"),
            "pipx" => sub == "run",
            _ => sub == "run",
        };
        if !runs {
            return false;
        }
        i += 1;
    }
    // Options of `run`/`exec` itself, then `--`: the command follows.
    let r = getopt::parse(words.get(i..).unwrap_or(&[]), &posix_of(run));
    if let Some(line) = r.value(&["c", "call"]) {
        command_string(name, Some(line), &job.path, at, st);
    }
    i += r.rest;
    if i < words.len() {
        jobs.push(job.runs(words.starting_at(i), &format!("{name} run")));
    }
    false
}

/// `grammar`, its options ending at the first operand.
fn posix_of(grammar: Grammar) -> Grammar {
    Grammar {
        style: Style::Posix,
        ..grammar
    }
}

/// Whether a parallelism option's value is unbounded: `0` runs as many at once as there
/// are inputs (`xargs -P 0`, `parallel -j0`).
pub fn unbounded(value: &str) -> bool {
    matches!(value.trim(), "0" | "0%")
}
