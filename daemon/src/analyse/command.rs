//! One simple command: which program really runs, which text runs as commands, and what the
//! command changes in the shell for the commands after them (`cd`, `unset`, `read`).
//!
//! A command becomes a work list of [`Job`]s. [`one`] is the order in which a program is
//! tried, written once: a name only known at run time; a function defined on the line; the
//! shell's own `eval` and `source`; the program's entry in the index (a wrapper pushes the
//! command it runs, a runner the commands it hands on, a shell or an interpreter queues its
//! text; then its effects); else a program the gate does not know, judged by what it is given.

use std::ops::Range;
use std::rc::Rc;

use super::act::Site;
use super::book;
use super::catalogue;
use super::disk::{self, Runs};
use super::effects::Effect::{self, Read, Run, Use};
use super::getopt::{self, Args};
use super::index::{self, Entry, Judge, Role, Wrap, WrapKind};
use super::interp;
use super::programs;
use super::recurse::{
    Ctx, Job, Stdin, command_string, command_string_with_args, fed_to_shell, input_words,
    literal_lines, queue_mapped, queue_text, run_written, set_positional, verbatim,
};
use super::words::{Var, Word, basename};
use super::{SimpleCommand, Source, State, join_path};
use crate::places::{Kind, Secret};

/// A simple command's words as the walk found them.
pub struct Cmd<'s> {
    pub words: Vec<Word<'s>>,
    /// Values of prefix assignments (`KEY=VALUE cmd`): what the command is handed through
    /// its environment.
    pub assigned: Vec<Word<'s>>,
    /// The same assignments with their names, for the variables whose value runs.
    pub env: Vec<(String, Word<'s>)>,
    /// In the parsed text.
    pub span: Range<usize>,
    pub path: Rc<str>,
    pub stdin: Stdin,
    pub depth: u32,
}

/// Words of a command kept in its record, for `assent explain`; a longer command is cut.
const MAX_ARGV: usize = 64;

/// Records the command and every command it runs, and judges each program.
pub fn analyse(cmd: Cmd, src: &Source, st: &mut State) {
    let at = Ctx {
        src,
        end: cmd.span.end,
        depth: cmd.depth,
    };
    for (name, value) in &cmd.env {
        programs::code::variable(name, value, &cmd.path, &at, st);
    }
    programs::code::git_config_env(&cmd.env, &cmd.path, &at, st);
    if let Some(program) = cmd.words.first().and_then(Word::literal)
        && let Some(var) = programs::gate::agent_settings_moved(basename(program), &cmd.env)
    {
        let span = at.span_of(&cmd.words);
        let detail = format!("`{var}=… {}`", basename(program));
        st.add(catalogue::UNCHECKED_AGENT.at(span, &detail));
    }
    let jobs = vec![Job {
        words: cmd.words.into(),
        path: cmd.path,
        stdin: cmd.stdin,
        child: false,
        cwd: None,
        assigned: cmd.assigned,
        level: 0,
        container: None,
    }];
    // What git reads from the environment this command is given (`GIT_DIR=… git status`), as
    // the shell's variables while its jobs are judged.
    let saved: Vec<(String, Option<Var>)> = cmd
        .env
        .iter()
        .filter(|(name, _)| READ_ENV.contains(&name.as_str()))
        .map(|(name, value)| {
            let before = st.shell.vars.get(name).cloned();
            let now = value
                .literal()
                .map_or(Var::Unknown, |v| Var::Lit(v.to_owned()));
            st.shell.set_var(name, now);
            (name.clone(), before)
        })
        .collect();
    judge_jobs(jobs, &at, st);
    for (name, before) in saved.into_iter().rev() {
        match before {
            Some(value) => st.shell.set_var(&name, value),
            None => {
                Rc::make_mut(&mut st.shell.vars).remove(&name);
            }
        }
    }
}

/// Variables naming what a program reads besides its arguments, kept for its command: git's
/// repository and files of settings besides the one it finds (`disk::project_runs`), Python's
/// module path (`preloads`).
const READ_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "PYTHONPATH",
    "NODE_OPTIONS",
    "RUBYOPT",
];

/// Judges a command's jobs and every job they hand on.
fn judge_jobs<'s>(mut jobs: Vec<Job<'s>>, at: &Ctx, st: &mut State) {
    while let Some(job) = jobs.pop() {
        // `sudo sudo …`, `xargs xargs …`: each level runs the rest again. Past a depth no
        // real line reaches, what runs is not followed.
        if job.level > MAX_LEVELS {
            st.too_deep(at.span_of(&job.words));
            continue;
        }
        let before = jobs.len();
        let container = job.container.clone();
        let saved_container = container.clone().map(|c| st.shell.container.replace(c));
        match job.cwd.clone() {
            Some(cwd) => {
                let saved = std::mem::replace(&mut st.shell.cwd, cwd);
                one(job, at, st, &mut jobs);
                st.shell.cwd = saved;
            }
            None => one(job, at, st, &mut jobs),
        }
        if let Some(saved) = saved_container {
            st.shell.container = saved;
        }
        if let Some(c) = container {
            for inner in jobs.iter_mut().skip(before) {
                inner.container.get_or_insert_with(|| Rc::clone(&c));
            }
        }
    }
}

/// Whether `name` with `args` takes the names of files to act on from its standard input,
/// one a line, as `xargs` hands them on: `tar -T -`, `cpio -o`/`-p`, `zip -@`.
fn names_from_stdin(name: &str, args: &[Word]) -> bool {
    let words: Vec<&str> = args.iter().filter_map(Word::literal).collect();
    let stdin = |w: &str| matches!(w, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0");
    let short = |w: &&str, flag: char| {
        w.strip_prefix('-')
            .is_some_and(|f| !f.starts_with('-') && f.contains(flag))
    };
    // `--files-from=-` and the abbreviations GNU's getopt takes for it (`--files=-`).
    let long_value = |w: &str, long: &str, shortest: usize| {
        w.split_once('=').is_some_and(|(name, value)| {
            name.len() >= shortest && long.starts_with(name) && stdin(value)
        })
    };
    let long_word =
        |w: &str, long: &str, shortest: usize| w.len() >= shortest && long.starts_with(w);
    match name {
        "tar" | "bsdtar" | "gtar" => {
            let dashed = words.windows(2).any(|pair| {
                (pair[0] == "-T"
                    || long_word(pair[0], "--files-from", 7)
                    || pair[0].ends_with('T') && short(&pair[0], 'T'))
                    && stdin(pair[1])
            }) || words.iter().any(|w| {
                w.strip_prefix("-T").is_some_and(stdin) || long_value(w, "--files-from", 7)
            });
            // `tar czfT - -`: an old-style cluster takes its values from the words after it,
            // in the order of its letters that take one.
            let old_style = words
                .first()
                .filter(|w| !w.starts_with('-'))
                .is_some_and(|cluster| {
                    let valued: Vec<char> = cluster
                        .chars()
                        .filter(|c| "fTCXbgFHIKLNV".contains(*c))
                        .collect();
                    valued
                        .iter()
                        .position(|c| *c == 'T')
                        .and_then(|k| words.get(1 + k))
                        .is_some_and(|w| stdin(w))
                });
            dashed || old_style
        }
        "cpio" => words
            .iter()
            .any(|w| matches!(*w, "--create" | "--pass-through") || short(w, 'o') || short(w, 'p')),
        // `-@` (alone or ending a cluster: `-r@`); `-x@FILE` is a list of exclusions.
        "zip" => words.iter().any(|w| {
            *w == "--names-stdin"
                || (short(w, '@')
                    && w.ends_with('@')
                    && !w.starts_with("-x")
                    && !w.starts_with("-i"))
        }),
        // `xz --files`: the files to compress (each replaced by its `.xz`) on the input.
        "xz" | "unxz" | "lzma" | "unlzma" | "xzcat" => words.iter().any(|w| {
            matches!(*w, "--files" | "--files0")
                || long_value(w, "--files0", 8)
                || long_value(w, "--files", 7)
        }),
        "zstd" | "unzstd" => {
            words
                .windows(2)
                .any(|p| p[0] == "--filelist" && stdin(p[1]))
                || words.iter().any(|w| long_value(w, "--filelist", 10))
        }
        // `pax -w` and `afio -o` archive the names on their input.
        "pax" => words.iter().any(|w| short(w, 'w')),
        "afio" => words.iter().any(|w| short(w, 'o')),
        _ => false,
    }
}

/// One command, tried in the order the module doc gives.
fn one<'s>(mut job: Job<'s>, at: &Ctx, st: &mut State, jobs: &mut Vec<Job<'s>>) {
    let Some(first) = job.words.first().cloned() else {
        return;
    };
    let span = at
        .src
        .map
        .span(first.span.start..at.end.max(first.span.start));
    st.command(SimpleCommand {
        path: job.path.to_string(),
        argv: job
            .words
            .iter()
            .take(MAX_ARGV)
            .map(|w| w.text.clone())
            .chain((job.words.len() > MAX_ARGV).then(|| "…".to_owned()))
            .collect(),
        span: span.clone(),
    });
    let Some(full) = first.literal().map(str::to_owned) else {
        let span = at.src.map.span(first.span.clone());
        st.add(catalogue::DYNAMIC_COMMAND.at(span, &first.quoted()));
        return;
    };
    // `C:/Git/bin/git.exe` on a Windows shell is `git`.
    let name = basename(&full);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    // `find ~ | tar -czf x -T -`: the files it names are those the stage before printed,
    // as an operand of its own (`xargs` hands them on the same way).
    if names_from_stdin(name, &job.words[1..])
        && let Some(last) = job.words.last().cloned()
    {
        let read = input_words(&job.stdin);
        job.words
            .to_mut()
            .push(Word::runtime(&last, "{stdin}", read));
    }
    programs::channel::judge(name, &job.words[1..], span.clone(), st);
    let book = st.policy.programs.and_then(|b| b.entry(name));
    // `./cat`, `~/bin/sync`: a file named like a program the gate knows may be a copy of it
    // or something else entirely; `php8.2`, `lua5.4`, `node-20` may be a build of a program
    // the gate knows, or only named like one. Each is judged both ways.
    let family = index::family(name);
    let by_path = full.contains('/') && !system_program(&full);
    let versioned = family != name;
    if by_path || versioned {
        unknown(
            &first,
            name,
            &job.words[1..],
            &job.assigned,
            job.stdin.secret(),
            span.clone(),
            st,
        );
    }
    // `ln -s /usr/bin/assent /tmp/a; /tmp/a approve 1`: a file the line linked or copied
    // from a program the gate knows runs as that program, and is judged as it too.
    if by_path {
        for program in carried_programs(&first, st) {
            if program != full {
                let mut words = job.words.to_vec();
                words[0] = Word::made(program, first.raw, first.span.clone());
                jobs.push(job.runs(words.into(), "copy of"));
            }
        }
    }
    // The project's own files it runs: `package.json` scripts, make's recipes, git's hooks
    // and settings, `.envrc`.
    if !by_path {
        disk::project_runs(family, &job.words[1..], span.clone(), &job.path, at, st);
    }
    // `./x.sh`: the file runs as its `#!` line says; one this line wrote (`echo … > x.sh &&
    // chmod +x x.sh && ./x.sh`) with the text the line gave it.
    if by_path && let Some(text) = st.written_text(&first) {
        written_by_path(&job.words, text, &job.path, at, st);
    } else if by_path && let Some(file) = disk::file_path(st, &first) {
        let at_span = at.src.map.span(first.span.clone());
        let words = &job.words[..];
        disk::run_file(
            Runs::Shebang,
            &file,
            &first.shown(),
            Some(words),
            at_span,
            &job.path,
            at,
            st,
        );
    }
    let name = family;
    // The policy's book adds to what the gate knows; only for a program it knows nothing of
    // does an entry take the place of the guess (`unknown`, below).
    let replaces =
        !by_path && !versioned && index::lookup(name).is_none() && !programs::unknown::named(name);
    if let Some(entry) = book
        && !replaces
    {
        let mut site = Site::new(name, Args::default(), span.clone(), st);
        book::judge(entry, &job.words[1..], &mut site);
        site.report();
    }
    if by_path && index::lookup(name).is_none() {
        return;
    }
    // A function defined on the line: its body was analysed where it was defined; given
    // arguments, it is read again with them as its positional parameters.
    // Only a command run by the shell itself calls a function: `command f`, `sudo f`, `xargs
    // f` run the program named f.
    if first.raw == name && job.level == 0 && st.shell.functions.contains(name) {
        if job.words.len() > 1
            && st.function_runs < super::MAX_FUNCTION_RUNS
            && let Some((body, span)) = st.shell.bodies.get(name).cloned()
        {
            st.function_runs += 1;
            let mut shell = st.shell.clone();
            set_positional(&mut shell, &job.words);
            let at = Ctx {
                src: at.src,
                end: at.end,
                depth: at.depth + 1,
            };
            queue_mapped(
                body.to_string(),
                Err(span),
                join_path(&job.path, name),
                &at,
                shell,
                st,
            );
        }
        return;
    }
    if !job.child {
        builtin(name, &job.words[1..], &job.stdin, st);
    }
    // `tee FILE <<< TEXT`, `echo TEXT | tee FILE`: the files hold the text.
    if name == "tee"
        && let Stdin::Text {
            text,
            dynamic: false,
            ..
        } = &job.stdin
    {
        let append = job.words[1..]
            .iter()
            .any(|w| matches!(w.literal(), Some("-a" | "--append")));
        for w in job.words[1..].iter().filter(|w| !w.text.starts_with('-')) {
            st.remember_written(w, Some(text), append);
        }
    }
    // After a file of secrets was sourced, the environment holds them: printing it reads them.
    if st.shell.sourced
        && super::secrets::environment_printed(name, &job.words[1..], true) == Some(Secret::Dump)
    {
        let mut site = Site::new(name, Args::default(), span.clone(), st);
        let what = "the environment, with what a sourced file of secrets defined";
        site.place(Effect::Read, Kind::Secret, what.to_owned());
        site.report();
    }
    // Code it keeps or is handed: stored shell text, command-valued options, subcommands.
    programs::code_taken(name, &job, span.clone(), at, st, jobs);
    if let Some(Role::Wrapper(wrap)) = index::lookup(name).map(|e| &e.role) {
        let entry = index::lookup(name).expect("looked up just above");
        wrapper(entry, wrap, name, job, span, at, st, jobs);
        return;
    }
    let args = &job.words[1..];
    if name == "eval" {
        eval(args, &job.path, at, st);
        return;
    }
    if matches!(name, "source" | ".") {
        source(name, args, span, &job.path, at, st);
        return;
    }
    // Stored credentials it prints (`npm token list`), what it listens on, a toolchain it
    // removes (`rustup self uninstall`).
    programs::by_name(name, args, index::lookup(name).is_some(), span.clone(), st);
    if matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk") {
        awk_files(args, &job.path, at, st);
    }
    match index::lookup(name) {
        Some(entry) => match &entry.role {
            Role::Wrapper(_) => {}
            Role::Runner(run, also) => {
                if !run(name, &job, at, st, jobs)
                    && let Some(judge) = also
                {
                    tool(entry, judge, name, args, job.stdin.secret(), span, st);
                }
            }
            Role::Shell => shell(name, args, &job, span, at, st),
            Role::Interpreter(lang) => {
                let whole = interp::run(lang, name, &job, at, st);
                let mut loads = std::mem::take(&mut st.loads);
                loads.extend(preloads(lang, &job.words[1..], st));
                let over = std::mem::take(&mut st.loads_over);
                loaded_code(lang, name, &loads, over, &job.words, &job.path, at, st);
                if !whole {
                    if let Some(words) = interp::module_command(lang, args) {
                        jobs.push(job.runs(words.into(), &format!("{name} -m")));
                    }
                    if let Some((module, named, _)) = interp::module_of(lang, args)
                        && let Some(words) = runs_script(&module, &job.words[0], &args[named + 1..])
                    {
                        // `python3 -m pdb x.py`: the script runs under the module.
                        jobs.push(job.runs(words.into(), &format!("{name} -m {module}")));
                    } else if let Some((module, named, _)) = interp::module_of(lang, args) {
                        // Its name is a module's, not a file's: one of that name in the
                        // working directory runs first.
                        local_module(lang, name, &module, &args[named], &job.path, at, st);
                        if matches!(module.as_str(), "venv" | "virtualenv")
                            && let Some(dir) =
                                args[named + 1..].iter().find(|w| !w.text.starts_with('-'))
                            && let [path] = st.paths(dir).as_slice()
                            && let Some(dir) = path.literal_text()
                            && st.venvs.len() < 8
                        {
                            st.venvs.push(dir);
                        }
                    } else if let Some(file) = args.iter().find(|w| !w.text.starts_with('-'))
                        && let Some(text) = st.written_text(file)
                    {
                        let at_span = at.src.map.span(file.span.clone());
                        let text = text.filter(|_| st.written_runs < super::MAX_FUNCTION_RUNS);
                        st.written_runs += 1;
                        interp::run_text(lang, name, text.as_deref(), at_span, &job.path, at, st);
                    } else if let Some(file) = args.iter().find(|w| !w.text.starts_with('-'))
                        && let Some(read) = disk::file_path(st, file)
                    {
                        // A program file on the disk: its text is the program.
                        let at_span = at.src.map.span(file.span.clone());
                        let runs = Runs::Lang(lang, name);
                        disk::run_file(
                            runs,
                            &read,
                            &file.shown(),
                            None,
                            at_span,
                            &job.path,
                            at,
                            st,
                        );
                    }
                    script(name, args, &job.assigned, span, st);
                }
            }
            Role::Tool(judge) => tool(entry, judge, name, args, job.stdin.secret(), span, st),
        },
        None => {
            if !full.contains('/') || system_program(&full) {
                let described = book.filter(|_| replaces);
                unknown_or_described(
                    &first,
                    name,
                    args,
                    &job.assigned,
                    job.stdin.secret(),
                    span,
                    st,
                    described,
                );
            }
        }
    }
}

/// A tool: its words read by its grammar, judged by its spec or model.
fn tool(
    entry: &Entry,
    judge: &Judge,
    name: &str,
    args: &[Word],
    input: Option<Secret>,
    span: Range<usize>,
    st: &mut State,
) {
    programs::gate::looks_up(name, args, st);
    let parsed = getopt::parse(args, &entry.grammar);
    let mut site = Site::new(name, parsed, span, st);
    site.input = input;
    match judge {
        Judge::Nothing => {}
        Judge::Spec(spec) => programs::spec(spec, &mut site),
        Judge::Model(model) => model(args, &mut site),
    }
    site.report();
}

/// The programs the gate knows that a file `first` names may be a link to or a copy of, by
/// the moves, copies and links earlier on the line (a few hops: `cp` then `mv`).
fn carried_programs(first: &Word, st: &State) -> Vec<String> {
    if st.shell.carried.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut todo = st.paths(first);
    for _ in 0..4 {
        let mut next = Vec::new();
        for path in &todo {
            for source in st.shell.carried.sources(path, true) {
                if let Some(text) = source.literal_text()
                    && index::lookup(basename(&text)).is_some()
                    && !out.iter().any(|o| basename(o) == basename(&text))
                    && out.len() < 8
                {
                    out.push(text);
                }
                next.push(source);
            }
        }
        next.truncate(64);
        todo = next;
    }
    out
}

/// A program the gate does not know; one named by a path runs that file. What it is handed
/// through its environment it is given too.
fn unknown(
    first: &Word,
    name: &str,
    args: &[Word],
    assigned: &[Word],
    input: Option<Secret>,
    span: Range<usize>,
    st: &mut State,
) {
    unknown_or_described(first, name, args, assigned, input, span, st, None);
}

/// [`unknown`], or a program only the policy's book describes: what is known of it by name
/// stays, and the entry takes the place of the guess for the commands it names.
#[allow(clippy::too_many_arguments)]
fn unknown_or_described(
    first: &Word,
    name: &str,
    args: &[Word],
    assigned: &[Word],
    input: Option<Secret>,
    span: Range<usize>,
    st: &mut State,
    described: Option<&book::Entry>,
) {
    let mut site = Site::new(name, Args::default(), span, st);
    site.input = input;
    if first.text.contains('/') {
        site.on(Run, first);
    }
    given_through_env(assigned, &mut site);
    match described {
        Some(entry) => {
            let known = programs::unknown::by_name(args, &mut site);
            if !book::judge(entry, args, &mut site) && !known {
                programs::unknown::guess(args, &mut site);
            }
        }
        None => programs::unknown::judge(args, &mut site),
    }
    if programs::channel::types_input(name, args) {
        site.say(catalogue::TYPED_ELSEWHERE, &format!("`{name}`"));
    }
    if let Some(how) = programs::gate::unchecked_agent(name, args) {
        site.say(catalogue::UNCHECKED_AGENT, &format!("`{name} {how}`"));
    }
    site.report();
}

/// A file the line wrote, run by its path (`words`: the command, `$0` first): its text read as
/// a file on the disk is (`disk::run_text`, by its `#!` line), or opaque when the line's text
/// for it is not known for certain; read a few times, then opaque (a file that runs itself).
fn written_by_path(
    words: &[Word],
    text: Option<Rc<str>>,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let first = &words[0];
    let span = at.src.map.span(first.span.clone());
    match text.filter(|_| st.written_runs < super::MAX_FUNCTION_RUNS) {
        Some(text) => {
            st.written_runs += 1;
            let runs = Runs::Shebang;
            disk::run_text(runs, &text, &first.shown(), Some(words), span, path, at, st);
        }
        None => st.add(catalogue::SHELL_READS.at(
            span,
            &format!("`{}`, a file written on this line", first.raw),
        )),
    }
}

/// `python -m MODULE`: Python looks for the module in the working directory first
/// (`sys.path[0]`), so a `MODULE.py` (or a package's `MODULE/__main__.py`; dots are packages)
/// there is the program, read from the disk and judged; none there, the installed module
/// runs, judged as the command it also is (`module_command`). A name that is no plain module
/// path, or a local file that cannot be read, is opaque.
fn local_module(
    lang: &interp::Lang,
    name: &str,
    module: &str,
    named: &Word,
    job_path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let span = at.src.map.span(named.span.clone());
    let plain = !module.is_empty()
        && module
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'));
    if !plain {
        let what = format!("`{name} -m {}`", named.shown());
        st.add(catalogue::CODE_UNREAD.at(span, &what));
        return;
    }
    let path = module.replace('.', "/");
    let candidates = [format!("{path}.py"), format!("{path}/__main__.py")];
    if let Some((file, word)) = first_on_disk(st, &candidates, named) {
        let runs = Runs::Lang(lang, name);
        disk::run_file(runs, &file, &word.shown(), None, span, job_path, at, st);
    }
}

/// The first of `candidates` (paths as words written where `at` is) that the disk holds, as
/// its absolute path and its word: one that is missing, or not known yet, is passed over.
fn first_on_disk<'s>(
    st: &State,
    candidates: &[String],
    at: &Word<'s>,
) -> Option<(String, Word<'s>)> {
    candidates.iter().find_map(|candidate| {
        let word = Word::made(candidate.clone(), at.raw, at.span.clone());
        let file = disk::file_path(st, &word)?;
        (!matches!(st.disk_file(&file), disk::Read::Missing | disk::Read::Asked))
            .then_some((file, word))
    })
}

/// Modules a Python program has before it runs a line of its own: the interpreter's start
/// imports them, so a file of the same name in the working directory is not loaded. With `-S`
/// (no `site`) fewer.
const PYTHON_STARTED: &[&str] = &[
    "abc",
    "builtins",
    "codecs",
    "encodings",
    "genericpath",
    "io",
    "marshal",
    "os",
    "posix",
    "posixpath",
    "site",
    "stat",
    "sys",
    "time",
    "zipimport",
];
const PYTHON_STARTED_NO_SITE: &[&str] = &[
    "abc",
    "builtins",
    "codecs",
    "encodings",
    "io",
    "marshal",
    "posix",
    "sys",
    "time",
    "zipimport",
];

/// Python modules that run a script file they are given (`python3 -m pdb x.py`).
const PYTHON_RUNNERS: &[&str] = &["pdb", "cProfile", "profile", "trace"];

/// The interpreter running the script a runner module is given: `python3 -m cProfile -o out
/// x.py A` is `python3 x.py A` (the first word ending in `.py` is the script).
fn runs_script<'s>(module: &str, program: &Word<'s>, rest: &[Word<'s>]) -> Option<Vec<Word<'s>>> {
    if !PYTHON_RUNNERS.contains(&module) {
        return None;
    }
    let at = rest
        .iter()
        .position(|w| w.literal().is_some_and(|t| t.ends_with(".py")))?;
    Some(
        std::iter::once(program.clone())
            .chain(rest[at..].iter().cloned())
            .collect(),
    )
}

/// What an interpreter loads before its program by its options or environment: Node's
/// `-r`/`--require`/`--import`/`--loader`, Ruby's `-r` (from the directory with `-I.`, or a
/// path), PHP's `auto_prepend_file`/`auto_append_file`, Python's `sitecustomize` and
/// `usercustomize` when `PYTHONPATH` puts the directory on its path.
fn preloads(lang: &interp::Lang, args: &[Word], st: &State) -> Vec<String> {
    use crate::analyse::grammar::Grammar;
    let Some(reader) = &lang.reader else {
        return Vec::new();
    };
    // Options the environment adds (`NODE_OPTIONS='-r ./x.js'`, `RUBYOPT=-r./x`) come first,
    // as the interpreter reads them.
    let from_env = match reader.grammar {
        Grammar::JavaScript => Some("NODE_OPTIONS"),
        Grammar::Ruby => Some("RUBYOPT"),
        _ => None,
    };
    let mut env_words: Vec<String> = Vec::new();
    if let Some(var) = from_env
        && let Some(Var::Lit(v)) = st.shell.vars.get(var)
    {
        env_words.extend(v.split_whitespace().map(str::to_owned));
    }
    let words: Vec<&str> = env_words
        .iter()
        .map(String::as_str)
        .chain(
            args.iter()
                .map_while(Word::literal)
                .take_while(|w| *w != "--"),
        )
        .collect();
    let mut out = Vec::new();
    let next = |i: usize| words.get(i + 1).map(|w| (*w).to_owned());
    match reader.grammar {
        Grammar::JavaScript => {
            for (i, w) in words.iter().enumerate() {
                match *w {
                    "-r" | "--require" | "--import" | "--loader" | "--experimental-loader" => {
                        out.extend(next(i));
                    }
                    _ => {
                        for prefix in [
                            "--require=",
                            "--import=",
                            "--loader=",
                            "--experimental-loader=",
                        ] {
                            if let Some(v) = w.strip_prefix(prefix) {
                                out.push(v.to_owned());
                            }
                        }
                    }
                }
            }
        }
        Grammar::Ruby => {
            let here = words
                .windows(2)
                .any(|p| p[0] == "-I" && matches!(p[1], "." | "./"))
                || words.iter().any(|w| matches!(*w, "-I." | "-I./"));
            for (i, w) in words.iter().enumerate() {
                let lib = match *w {
                    "-r" => next(i),
                    w if w.starts_with("-r") && w.len() > 2 => Some(w[2..].to_owned()),
                    _ => None,
                };
                if let Some(lib) = lib {
                    let relative = lib.starts_with("./") || lib.starts_with("../");
                    out.push(if here && !relative {
                        format!("./{lib}")
                    } else {
                        lib
                    });
                }
            }
        }
        Grammar::Php | Grammar::PhpFile => {
            for (i, w) in words.iter().enumerate() {
                let setting = match *w {
                    "-d" => next(i),
                    w if w.starts_with("-d") && w.len() > 2 => Some(w[2..].to_owned()),
                    _ => None,
                };
                if let Some((key, file)) = setting.as_deref().and_then(|s| s.split_once('='))
                    && matches!(key.trim(), "auto_prepend_file" | "auto_append_file")
                {
                    out.push(file.trim().to_owned());
                }
            }
        }
        Grammar::Python => {
            // Unknown (`PYTHONPATH=$X`) may be the directory.
            let here = match st.shell.vars.get("PYTHONPATH") {
                Some(Var::Lit(p)) => p.split(':').any(|d| matches!(d, "" | "." | "./")),
                Some(_) => true,
                None => false,
            };
            if here {
                out.extend(["sitecustomize".to_owned(), "usercustomize".to_owned()]);
            }
        }
        Grammar::Bash => {}
    }
    out
}

/// How a Python command line's options change where modules are found: `-I`/`-P` leave the
/// working directory off the path, `-S` imports no `site` (and so fewer modules at start).
fn python_flags(words: &[Word]) -> (bool, bool) {
    let (mut isolated, mut no_site) = (false, false);
    let mut i = 0;
    while let Some(t) = words.get(i).and_then(Word::literal) {
        i += 1;
        if t == "--" || !t.starts_with('-') || t.starts_with("--") {
            if t.starts_with("--") && t != "--" {
                continue;
            }
            break;
        }
        for (at, c) in t.char_indices().skip(1) {
            match c {
                'I' | 'P' => isolated = true,
                'S' => no_site = true,
                // The program, a module, or an option's value: the rest of the word or the next.
                'c' | 'm' => return (isolated, no_site),
                'W' | 'X' => {
                    if at + 1 == t.len() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    (isolated, no_site)
}

/// The files a language would run for `load`, level by level, each level's candidates in the
/// order it tries them (the first that is there is the one): Python's `a.b` runs `a`'s package
/// (`a/__init__.py`, else `a.py`) and then `a/b`'s; Node's `./x` tries `x.js`, `x.cjs`,
/// `x.mjs`, `x.json` (and `x` itself when it has one of those endings), then `x/index.js`;
/// Ruby's `./x` is `x.rb`; PHP's file is itself. Empty: the language looks elsewhere first.
/// With each level, for Python, the directory that is a package even without its
/// `__init__.py`.
fn load_candidates(
    grammar: crate::analyse::grammar::Grammar,
    load: &str,
    started: &[&str],
) -> Vec<(Option<String>, Vec<String>)> {
    use crate::analyse::grammar::Grammar;
    let relative = load.starts_with("./") || load.starts_with("../");
    match grammar {
        Grammar::Python => {
            let plain = load.split('.').all(|part| {
                !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
            let first = load.split('.').next().unwrap_or(load);
            if !plain || first.starts_with('_') || started.contains(&first) {
                return Vec::new();
            }
            let parts: Vec<&str> = load.split('.').collect();
            (1..=parts.len())
                .map(|n| {
                    let p = parts[..n].join("/");
                    let files = vec![format!("{p}/__init__.py"), format!("{p}.py")];
                    (Some(p), files)
                })
                .collect()
        }
        Grammar::JavaScript if relative => {
            let ends = [".js", ".cjs", ".mjs", ".json", ".node"];
            let mut level = Vec::new();
            if ends.iter().any(|e| load.ends_with(e)) {
                level.push(load.to_owned());
            }
            level.extend(ends.iter().map(|e| format!("{load}{e}")));
            level.push(format!("{load}/index.js"));
            vec![(None, level)]
        }
        Grammar::Ruby if relative || load.ends_with(".rb") => {
            if load.ends_with(".rb") {
                vec![(None, vec![load.to_owned()])]
            } else {
                vec![(None, vec![format!("{load}.rb")])]
            }
        }
        Grammar::Php | Grammar::PhpFile if !load.contains("://") => {
            vec![(None, vec![load.to_owned()])]
        }
        _ => Vec::new(),
    }
}

/// Code an inline program loads by name (`loads`, collected by its reader), found where the
/// language finds it relative to the working directory, is read and judged as the program's
/// own: `python3 -c 'import helper'` runs `./helper.py`, `node -e "require('./x')"` runs
/// `./x.js`. A file the line itself wrote is read with the text it was given; one on the disk
/// is read from there; the first candidate that is there is the one, as the language takes it.
/// Not followed further: what a loaded file loads in turn. More names than are looked for
/// make the program opaque.
#[allow(clippy::too_many_arguments)]
fn loaded_code(
    lang: &interp::Lang,
    name: &str,
    loads: &[String],
    over: bool,
    words: &[Word],
    job_path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let (Some(reader), Some(at_word)) = (&lang.reader, words.first()) else {
        return;
    };
    let span = at.src.map.span(at_word.span.clone());
    if over {
        let what = format!("`{name}` code that loads more modules by name than the gate looks for");
        st.add(catalogue::CODE_UNREAD.at(span.clone(), &what));
    }
    let (isolated, no_site) = python_flags(&words[1..]);
    let started = if no_site {
        PYTHON_STARTED_NO_SITE
    } else {
        PYTHON_STARTED
    };
    let python = matches!(reader.grammar, crate::analyse::grammar::Grammar::Python);
    for load in loads {
        if python && isolated {
            continue;
        }
        // A level below one that is not here (an installed package, or not known yet) is not
        // looked for: the language would not find it here either.
        for (dir, level) in load_candidates(reader.grammar, load, started) {
            let mut here = false;
            for candidate in level {
                let word = Word::made(candidate, at_word.raw, at_word.span.clone());
                if let Some(text) = st.written_text(&word) {
                    let text = text.filter(|_| st.written_runs < super::MAX_FUNCTION_RUNS);
                    st.written_runs += 1;
                    interp::run_text(lang, name, text.as_deref(), span.clone(), job_path, at, st);
                    here = true;
                    break;
                }
                let Some(file) = disk::file_path(st, &word) else {
                    continue;
                };
                if !matches!(st.disk_file(&file), disk::Read::Missing | disk::Read::Asked) {
                    let runs = Runs::Lang(lang, name);
                    disk::run_file(
                        runs,
                        &file,
                        &word.shown(),
                        None,
                        span.clone(),
                        job_path,
                        at,
                        st,
                    );
                    here = true;
                    break;
                }
            }
            // Python: a directory without `__init__.py` is a package too (a namespace one).
            if !here
                && let Some(dir) = dir
                && let Some(dir) =
                    disk::file_path(st, &Word::made(dir, at_word.raw, at_word.span.clone()))
            {
                // Only once known: the next round looks further.
                here = st.exists(&dir) == Some(true);
            }
            if !here {
                break;
            }
        }
    }
}

/// `awk -f FILE` (`--file`, gawk's `-i`/`--include` and `-E`): the program is FILE's text, read
/// from the disk and judged as awk's, or opaque when it cannot be read. The input (`-f -`) is
/// `interp::sed::awk`'s.
fn awk_files(args: &[Word], job_path: &Rc<str>, at: &Ctx, st: &mut State) {
    let a = getopt::parse(args, &interp::sed::AWK);
    // gawk's `-i NAME` is looked for along AWKPATH, the working directory first (NAME, then
    // NAME.awk), then its own library (`-i inplace`): one here is read, a library's is not.
    let libraries: Vec<Word> = a.values(&["i", "include"]).cloned().collect();
    for lib in &libraries {
        let Some(name) = lib.literal().filter(|n| !n.contains('/')) else {
            continue;
        };
        let candidates = [name.to_owned(), format!("{name}.awk")];
        if let Some((path, word)) = first_on_disk(st, &candidates, lib) {
            let span = at.src.map.span(lib.span.clone());
            disk::run_file(
                Runs::Awk,
                &path,
                &word.shown(),
                None,
                span,
                job_path,
                at,
                st,
            );
        }
    }
    let files: Vec<Word> = a
        .values(&["f", "file", "i", "include", "E", "exec"])
        .filter(|w| {
            !libraries
                .iter()
                .any(|l| std::ptr::eq(*w, l) || l.span == w.span)
                || w.literal().is_none_or(|n| n.contains('/'))
        })
        .cloned()
        .collect();
    for file in files {
        let span = at.src.map.span(file.span.clone());
        if file
            .literal()
            .is_some_and(|t| t == "-" || t == "/dev/stdin" || t.starts_with("/dev/fd/"))
        {
            continue;
        }
        match disk::file_path(st, &file) {
            Some(path) => {
                disk::run_file(
                    Runs::Awk,
                    &path,
                    &file.shown(),
                    None,
                    span,
                    job_path,
                    at,
                    st,
                );
            }
            None => st.add(catalogue::SHELL_READS.at(span, &format!("`awk -f {}`", file.shown()))),
        }
    }
}

/// Values handed through the environment that name places: a program may do anything with
/// them, quietly where they are ordinary.
fn given_through_env<'s>(assigned: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    for w in assigned {
        if let Some(place) = programs::unknown::place_word(w) {
            site.quiet(Use, &place);
        }
    }
}

/// An interpreter running a script file (`python3 tool.py ARGS`): the file runs, and its
/// arguments are places its code may use.
fn script(name: &str, args: &[Word], assigned: &[Word], span: Range<usize>, st: &mut State) {
    let mut site = Site::new(name, Args::default(), span, st);
    given_through_env(assigned, &mut site);
    let file = args
        .iter()
        .position(|w| !w.literal().is_some_and(|t| t.starts_with('-')));
    if let Some(at) = file {
        site.on(Run, &args[at]);
        // An interpreter reads the file and, where it is not code, prints its lines in its
        // errors (`bash ~/.aws/credentials`, `php key`): a secret run is a secret read.
        site.quiet(Read, &args[at]);
        // `python manage.py flush`, `php artisan migrate:fresh`: the script's own commands.
        if let Some(script) = args[at].literal()
            && let Some(shown) = programs::data::schema_reset(basename(script), &args[at + 1..])
        {
            site.say(catalogue::DATA_RESET, &shown);
        }
        if let Some(script) = args[at].literal()
            && let Some(shown) = programs::data::app_console(basename(script), &args[at + 1..])
        {
            site.say(catalogue::CODE_UNREAD, &shown);
        }
    }
    for w in &args[file.map_or(0, |f| f + 1)..] {
        if let Some(place) = programs::unknown::place_word(w) {
            site.quiet(Use, &place);
        }
    }
    site.report();
}

/// `NAME=value` as a statement: a variable whose value the shell or a program runs later.
pub fn assignment_runs(
    node: tree_sitter::Node,
    path: &Rc<str>,
    depth: u32,
    src: &Source,
    st: &mut State,
) {
    let Some(name) = node.child_by_field_name("name") else {
        return;
    };
    let name = super::words::text(name, &src.text);
    let env = st.env();
    // `PATH= ls`: an empty value is a value too (an empty search path is the current
    // directory).
    let word = match node.child_by_field_name("value") {
        Some(value) => super::words::resolve(value, &src.text, &env),
        None => Word::made(String::new(), "", node.end_byte()..node.end_byte()),
    };
    let at = Ctx {
        src,
        end: node.end_byte(),
        depth,
    };
    programs::code::variable(name, &word, path, &at, st);
}

/// `declare 'a[$(…)]=1'`, `unset 'a[$(…)]'`: the names and values a declaration is given as
/// quoted words are evaluated by it, substitutions in subscripts included.
pub fn declaration_evaluates(
    node: tree_sitter::Node,
    path: &Rc<str>,
    depth: u32,
    src: &Source,
    st: &mut State,
) {
    let env = st.env();
    let mut cursor = node.walk();
    let words: Vec<Word> = node
        .named_children(&mut cursor)
        .filter(|c| {
            matches!(
                super::kind(*c),
                "string" | "raw_string" | "word" | "concatenation" | "variable_name"
            )
        })
        .map(|c| super::words::resolve(c, &src.text, &env))
        .collect();
    let name = node
        .child(0)
        .map_or("declare", |c| super::words::text(c, &src.text));
    let at = Ctx {
        src,
        end: node.end_byte(),
        depth,
    };
    programs::code::evaluated(name, &words, path, &at, st);
}

fn source(name: &str, args: &[Word], span: Range<usize>, path: &Rc<str>, at: &Ctx, st: &mut State) {
    let Some(file) = args.first() else { return };
    if !run_written(name, file, path, at, st)
        && let Some(read) = disk::file_path(st, file)
    {
        let at_span = at.src.map.span(file.span.clone());
        // Without arguments a sourced file sees the shell's own.
        let given = (args.len() > 1).then_some(args);
        disk::run_file(
            Runs::Shell,
            &read,
            &file.shown(),
            given,
            at_span,
            path,
            at,
            st,
        );
    }
    if !is_plain_file(file) {
        st.add(catalogue::SHELL_READS.at(span, &format!("`{name} {}`", file.raw)));
        return;
    }
    let secrets = st.places(file, false, true).has(Kind::Secret);
    let mut site = Site::new(name, Args::default(), span, st);
    site.on(Run, file);
    site.report();
    // What it defines is secret for the rest of the line (`secrets::secret_variable`).
    if secrets {
        st.shell.sourced = true;
    }
}

/// A wrapper: the command after its options runs, maybe in another directory, with more
/// arguments (`xargs`), or as a string (`env -S`, `flock -c`).
#[allow(clippy::too_many_arguments)]
fn wrapper<'s>(
    entry: &Entry,
    wrap: &Wrap,
    name: &str,
    job: Job<'s>,
    span: Range<usize>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) {
    let args = &job.words[1..];
    let parsed = getopt::parse(args, &entry.grammar);
    if let Some(judge) = &wrap.also {
        tool(
            entry,
            judge,
            name,
            args,
            job.stdin.secret(),
            span.clone(),
            st,
        );
    }
    if parsed.has(wrap.inert) {
        return;
    }
    let mut start = parsed.rest;
    let mut env_assigned = job.assigned.clone();
    if matches!(wrap.kind, WrapKind::Env | WrapKind::Sudo) {
        let first = start;
        while args
            .get(start)
            .map(|w| w.literal().unwrap_or(w.raw))
            .is_some_and(|t| {
                super::words::is_assignment(t) || t == "-" || t.starts_with("BASH_FUNC_")
            })
        {
            start += 1;
        }
        let pairs: Vec<(String, Word)> = args[first..start]
            .iter()
            .filter_map(programs::code::split_assignment)
            .collect();
        for (var, value) in &pairs {
            programs::code::variable(var, value, &job.path, at, st);
        }
        programs::code::git_config_env(&pairs, &job.path, at, st);
        // `env KEY=~/.aws/credentials ./run.sh` hands the place to the command.
        for w in &args[first..start] {
            if env_assigned.len() >= MAX_ASSIGNED {
                // More than are followed: what the rest hand on is not known.
                if !env_assigned.last().is_some_and(|l| l.dynamic) {
                    env_assigned.push(Word::runtime(w, "{environment}", None));
                }
                break;
            }
            if !env_assigned.iter().any(|a| a.text == w.text) {
                env_assigned.push(w.clone());
            }
        }
    }
    let path = join_path(&job.path, name);
    match wrap.kind {
        WrapKind::Env => {
            if let Some(value) = parsed.value(&["S", "split-string"]) {
                env_split(value, &args[start.min(args.len())..], &path, at, st);
                return;
            }
        }
        // `sudo -s`, `sudo -i` alone start a shell that reads what comes next.
        WrapKind::Sudo if start >= args.len() && parsed.has(&["s", "i", "shell", "login"]) => {
            fed_to_shell("sudo -s", &job.stdin, &job.path, span, at, st);
            return;
        }
        WrapKind::Flock => {
            let command = args.get(start + wrap.skip);
            if matches!(command.and_then(Word::literal), Some("-c" | "--command")) {
                command_string(
                    "flock -c",
                    args.get(start + wrap.skip + 1),
                    &job.path,
                    at,
                    st,
                );
                return;
            }
        }
        _ => {}
    }
    let start = start + wrap.skip;
    if start >= args.len() {
        return;
    }
    let dir = parsed
        .value(&["C", "chdir", "D"])
        .filter(|_| matches!(wrap.kind, WrapKind::Env | WrapKind::Sudo));
    let cwd = dir.map(|d| {
        st.paths(d)
            .first()
            .and_then(|p| p.literal_text())
            .map(|t| Rc::from(t.as_str()))
    });
    let mut inner = Job {
        words: job.words.starting_at(1 + start),
        path,
        stdin: job.stdin.clone(),
        child: true,
        cwd,
        assigned: env_assigned,
        level: job.level + 1,
        container: None,
    };
    if wrap.kind == WrapKind::Xargs {
        if parsed
            .value(&["P", "max-procs"])
            .and_then(Word::literal)
            .is_some_and(programs::runners::unbounded)
        {
            st.add(catalogue::PROCESS_FLOOD.at(span.clone(), "`xargs -P 0`"));
        }
        // `xargs -a FILE` reads its arguments from FILE, not its input: a file written on the
        // line holds the text written into it.
        let input = if parsed.has(&["a", "arg-file"]) {
            parsed
                .value(&["a", "arg-file"])
                .and_then(|f| st.written_text(f))
                .flatten()
                .map_or(Stdin::Inherited, |text| Stdin::Text {
                    text: text.to_string(),
                    base: None,
                    span: 0..0,
                    dynamic: false,
                    secret: None,
                })
        } else {
            job.stdin.clone()
        };
        xargs(&mut inner, &parsed, &input);
    }
    jobs.push(inner);
}

/// Words of input known exactly that `xargs` hands on one by one; more are one word that
/// could be any of them.
const MAX_EXACT_INPUT: usize = 16;

/// `xargs [opts] CMD ARGS`: CMD gets arguments from standard input, appended or in place of
/// the replace string (`-I {}`, `-J {}`, `-i`); they are what the stage before printed, when
/// that is known.
fn xargs(job: &mut Job, opts: &Args, stdin: &Stdin) {
    let read = input_words(stdin);
    let replace = opts
        .value(&["I", "J", "replace"])
        .and_then(Word::literal)
        .map(str::to_owned)
        .or_else(|| {
            opts.has(&["i"]).then(|| {
                opts.value(&["i"])
                    .and_then(Word::literal)
                    .unwrap_or("{}")
                    .to_owned()
            })
        });
    match replace.filter(|r| !r.is_empty()) {
        Some(r) => {
            for w in job.words.to_mut().iter_mut().skip(1) {
                if w.raw.contains(r.as_str()) || w.text.contains(r.as_str()) {
                    *w = Word::runtime(w, "{stdin}", read.clone());
                }
            }
        }
        None => {
            // Text known exactly (`printf '%s\n' 777 ~ | xargs chmod`) is that many words
            // on one command line, unless the options cut it into several runs.
            // xargs reads quotes and backslashes its own way, and a shell or interpreter
            // takes its words as code: there the input stays a word only known at run time.
            let runs_code = job
                .words
                .first()
                .and_then(Word::literal)
                .and_then(|name| index::lookup(basename(name)))
                .is_some_and(|e| matches!(e.role, Role::Shell | Role::Interpreter(_)));
            let one_run =
                !runs_code && !opts.has(&["n", "max-args", "L", "max-lines", "l", "a", "arg-file"]);
            let exact: Option<Vec<String>> = match stdin {
                Stdin::Text {
                    text,
                    dynamic: false,
                    ..
                } if one_run && !text.contains(['"', '\'', '\\']) => {
                    Some(text.split_whitespace().map(str::to_owned).collect())
                }
                // Lines printed of literal text (`printf '%s\n' 777 ~`): each its words.
                Stdin::Pipe(Some(alts)) if one_run => literal_lines(alts),
                _ => None,
            };
            if let Some(last) = job.words.last().cloned() {
                match exact.filter(|w| !w.is_empty() && w.len() <= MAX_EXACT_INPUT) {
                    Some(words) => job.words.to_mut().extend(
                        words
                            .into_iter()
                            .map(|t| Word::made(t, "{stdin}", last.span.clone())),
                    ),
                    None => job
                        .words
                        .to_mut()
                        .push(Word::runtime(&last, "{stdin}", read)),
                }
            }
        }
    }
    // `xargs -a FILE` reads its arguments from FILE.
    job.stdin = Stdin::Inherited;
    job.child = true;
}

/// A program in a directory where the system's programs are installed, or a Windows path
/// (`C:/Git/bin/git.exe`), which names the program the gate knows by that name.
fn system_program(path: &str) -> bool {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    const DIRS: &[&str] = &[
        "/bin",
        "/sbin",
        "/usr/bin",
        "/usr/sbin",
        "/usr/local/bin",
        "/usr/local/sbin",
        "/snap/bin",
        "/usr/libexec",
        "/usr/lib/git-core",
        "/opt/homebrew/bin",
        "/run/current-system/sw/bin",
    ];
    let windows = path.as_bytes().get(1) == Some(&b':');
    DIRS.contains(&dir) || windows
}

/// A script named by a literal path, not a stream (`<(…)`, `/dev/stdin`) or a dynamic word.
fn is_plain_file(w: &Word) -> bool {
    w.literal()
        .is_some_and(|t| !t.starts_with("/dev/") && !t.starts_with("/proc/"))
}

/// Whether `text` is a relative path of plain names: no `.`, `..`, empty or patterned
/// component, nothing a shell would expand.
fn is_plain_relative(text: &str) -> bool {
    !text.starts_with('/')
        && text.trim_end_matches('/').split('/').all(|c| {
            !c.is_empty()
                && c != "."
                && c != ".."
                && c.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+' | b'@')
                })
        })
}

/// Wrappers and runners followed around one command.
const MAX_LEVELS: u32 = 32;

/// Environment assignments followed through wrappers to the command they run.
const MAX_ASSIGNED: usize = 32;

/// The deepest current directory followed, in components.
const MAX_CWD_DEPTH: usize = 64;

/// The longest current directory followed, in bytes; past it the directory is unknown, and
/// relative paths are unknown places.
const MAX_CWD: usize = 1024;

/// Builtins that change the shell for the commands after them.
fn builtin(name: &str, args: &[Word], stdin: &Stdin, st: &mut State) {
    let operands = || {
        args.iter().filter(|w| {
            !w.literal()
                .is_some_and(|t| t.starts_with('-') && t.len() > 1)
        })
    };
    match name {
        "cd" | "pushd" => {
            let target = operands().next().cloned();
            let cwd = match target {
                None => st.ctx.home.filter(|h| h.starts_with('/')).map(Rc::from),
                Some(w) if w.literal() == Some("-") => st.shell.oldpwd.clone().or_else(|| match st
                    .shell
                    .vars
                    .get("OLDPWD")
                {
                    Some(Var::Lit(v)) if v.starts_with('/') => Some(Rc::from(v.as_str())),
                    _ => None,
                }),
                // With `CDPATH` a relative directory may be found elsewhere.
                Some(w) if st.cdpath_named && !w.text.starts_with(['/', '.']) => None,
                // `cd dir/sub`: plain names below a known directory are joined as text.
                Some(w) if w.value.is_none() && is_plain_relative(&w.text) => {
                    st.shell.cwd.as_ref().map(|cwd| {
                        let cwd = cwd.trim_end_matches('/');
                        Rc::from(format!("{cwd}/{}", w.text.trim_end_matches('/')))
                    })
                }
                Some(w) => match st.paths(&w).as_slice() {
                    [one] => one.literal_text().map(|t| Rc::from(t.as_str())),
                    _ => None,
                },
            };
            // A directory deeper than any real one is not followed: every path placed
            // after it would cost its depth.
            let cwd = cwd.filter(|c| c.len() <= MAX_CWD && c.matches('/').count() <= MAX_CWD_DEPTH);
            let old = std::mem::replace(&mut st.shell.cwd, cwd);
            st.shell.oldpwd = old;
        }
        "popd" => {
            let old = st.shell.cwd.take();
            st.shell.oldpwd = old;
        }
        "shopt" => {
            // `shopt -s dotglob nocaseglob`, `shopt -u globstar`.
            let set = match args.first().and_then(Word::literal) {
                Some("-s") => true,
                Some("-u") => false,
                _ => return,
            };
            for w in &args[1..] {
                let globs = &mut st.shell.globs;
                match w.literal() {
                    Some("dotglob") => globs.dotglob = set,
                    Some("nocaseglob") => globs.nocaseglob = set,
                    Some("globstar") => globs.globstar = set,
                    // A name only known at run time may be any of them.
                    None if set => {
                        globs.dotglob = true;
                        globs.nocaseglob = true;
                        globs.globstar = true;
                    }
                    _ => {}
                }
            }
        }
        "unset" | "read" | "readarray" | "mapfile" | "getopts" => {
            let names: Vec<String> = operands()
                .filter_map(Word::literal)
                .map(str::to_owned)
                .collect();
            // `read p <<< TEXT`: one name takes the whole line.
            let line = match (name, stdin) {
                (
                    "read",
                    Stdin::Text {
                        text,
                        dynamic: false,
                        ..
                    },
                ) if names.len() == 1 => Some(text.trim_end_matches('\n').to_owned()),
                _ => None,
            };
            // What it reads of a secret is a secret.
            let unknown = match stdin.secret() {
                Some(secret) => {
                    Var::Pattern(Rc::new(vec![vec![crate::places::Piece::Secret(secret)]]))
                }
                None => Var::Unknown,
            };
            for n in names {
                let value = line.clone().map_or_else(|| unknown.clone(), Var::Lit);
                st.shell.set_var(&n, value);
            }
        }
        // `printf -v NAME FORMAT ARGS…` stores what it would print.
        "printf" if args.first().and_then(Word::literal) == Some("-v") => {
            let Some(var) = args.get(1).and_then(Word::literal).map(str::to_owned) else {
                return;
            };
            let value = args
                .get(2)
                .and_then(Word::literal)
                .and_then(|format| super::flow::printf(format, &args[3..]));
            let value = match value {
                Some(alts) => match alts.as_slice() {
                    [one] => match one.as_slice() {
                        [crate::places::Piece::Lit(t)] => Var::Lit(t.clone()),
                        _ => Var::Pattern(Rc::new(alts)),
                    },
                    _ => Var::Pattern(Rc::new(alts)),
                },
                None => Var::Unknown,
            };
            st.shell.set_var(&var, value);
        }
        // `set -- A B` (or `set A B`) sets `$1`, `$2`, ….
        "set" => {
            let values: Vec<&Word> = match args.first().and_then(Word::literal) {
                Some("--") => args[1..].iter().collect(),
                Some(t) if !t.starts_with(['-', '+']) => args.iter().collect(),
                _ => return,
            };
            for (i, w) in values.iter().enumerate().take(9) {
                let value = match w.literal() {
                    Some(t) => Var::Lit(t.to_owned()),
                    None => Var::Pattern(Rc::new(w.alternatives().into_owned())),
                };
                st.shell.set_var(&(i + 1).to_string(), value);
            }
        }
        _ => {}
    }
}

/// `env -S STR CMD…`: STR is split into words like a shell line, then the rest follows.
fn env_split(value: &Word, rest: &[Word], path: &Rc<str>, at: &Ctx, st: &mut State) {
    let Some(text) = value.literal() else {
        let span = at.span_of(rest);
        st.add(catalogue::DYNAMIC_SHELL.at(span, "`env -S`"));
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
        let positional = args.get(i + 1..).unwrap_or_default();
        command_string_with_args(
            &format!("{name} -c"),
            operand,
            positional,
            &job.path,
            at,
            st,
        );
    } else if operand.is_none() || stdin_flag {
        fed_to_shell(name, &job.stdin, &job.path, span, at, st);
    } else if let Some(script) = operand {
        if !run_written(name, script, &job.path, at, st)
            && let Some(file) = disk::file_path(st, script)
        {
            let shown = script.shown();
            let at_span = at.src.map.span(script.span.clone());
            let args = &args[i..];
            disk::run_file(
                Runs::Shell,
                &file,
                &shown,
                Some(args),
                at_span,
                &job.path,
                at,
                st,
            );
        }
        if is_plain_file(script) {
            let mut site = Site::new(name, Args::default(), span, st);
            site.on(Run, script);
            // A file that is not shell text comes back in the shell's errors line by line.
            site.quiet(Read, script);
            for w in &args[i + 1..] {
                if let Some(place) = programs::unknown::place_word(w) {
                    site.quiet(Use, &place);
                }
            }
            site.report();
        } else {
            st.add(catalogue::SHELL_READS.at(span, &format!("`{name} {}`", script.raw)));
        }
    }
}

/// `eval WORDS`: literal words are joined with spaces and parsed, as bash does.
fn eval(args: &[Word], path: &Rc<str>, at: &Ctx, st: &mut State) {
    let (Some(first), Some(last)) = (args.first(), args.last()) else {
        return;
    };
    if let Some(dynamic) = args.iter().find(|w| w.dynamic) {
        let span = at.src.map.span(first.span.start..last.span.end);
        st.add(catalogue::EVAL_DYNAMIC.at(span, &dynamic.quoted()));
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
