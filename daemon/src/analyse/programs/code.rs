//! Text that programs and the shell keep to run as code: option values that are command
//! lines (`rsync -e`, `tar --to-command`, `ssh -o ProxyCommand=…`, `git -c core.pager=…`),
//! subcommands that run commands (`git rebase --exec`, `tmux new-session CMD`), editor and
//! debugger commands with shell escapes (`vim -c '!CMD'`, `gdb -ex 'shell CMD'`), shell text
//! stored to run later (`trap`, `alias`, `mapfile -C`, array subscripts that the shell
//! evaluates), and variables whose value a program or the shell runs (`PAGER`, `EDITOR`,
//! `GIT_SSH_COMMAND`, `PROMPT_COMMAND`, `PS4`, `BASH_FUNC_f%%`).
//!
//! Shell text found there is queued and analysed like the line itself; text in a language not
//! read here (Emacs Lisp, make, Vim script) is opaque. Nothing is ever run.

use std::rc::Rc;

use super::super::act::Site;
use super::super::catalogue;
use super::super::effects::Effect;
use super::super::getopt::{self, Args, Grammar, Style};
use super::super::recurse::{Ctx, Job, Stdin, command_string, fed_to_shell, queue_text};
use super::super::words::Word;
use super::super::{State, join_path};

/// Where a program takes code, as its index entry says.
pub enum Code {
    /// Options whose value is a command line run by a shell (`rsync -e`, `script -c`).
    Shell(&'static [&'static str]),
    /// Options whose value is an editor or debugger command: its shell escapes (`!CMD`,
    /// `shell CMD`) are shell text, its scripting is opaque, its writes land on the files
    /// named (`vim -c`, `+CMD`, `gdb -ex`, `dc -e`).
    Escape(&'static [&'static str]),
    /// Options whose value is code in a language not read here (`emacs --eval`).
    Unread(&'static [&'static str]),
    /// `-o Key=Value` of ssh and its kin: command-valued keys are shell text.
    SshOption(&'static [&'static str]),
    /// Subcommands and addresses only a function can read (`git`, `tmux`, `socat`).
    With(super::runners::Runner),
}

/// Reads what `code` says `job`'s words hold.
pub fn read<'s>(
    code: &[Code],
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) {
    let args = &job.words[1..];
    for c in code {
        match c {
            Code::Shell(options) => {
                for value in values(args, options) {
                    command_string(&format!("{name} option"), Some(&value), &job.path, at, st);
                }
            }
            Code::Escape(options) => {
                let mut writes = false;
                for value in values(args, options) {
                    writes |= escape(name, &value, &job.path, at, st);
                }
                // `vim +CMD`: the command is the word after `+`.
                for w in args {
                    if let Some(t) = w.literal()
                        && t.len() > 1
                        && t.starts_with('+')
                        && options.contains(&"+")
                    {
                        writes |= escape(name, &w.tail(1), &job.path, at, st);
                    }
                }
                if writes {
                    let span = at.span_of(&job.words);
                    let mut site = Site::new(name, Args::default(), span, st);
                    for w in operands(args, options) {
                        site.on(Effect::Overwrite, w);
                    }
                    site.report();
                }
            }
            Code::Unread(options) => {
                for value in values(args, options) {
                    unread(&value, at, st);
                }
            }
            Code::SshOption(options) => {
                for value in values(args, options) {
                    ssh_option(name, &value, &job.path, at, st);
                }
            }
            Code::With(run) => {
                run(name, job, at, st, jobs);
            }
        }
    }
}

/// The values of `options` among `args`: `-e V`, `-eV`, `-xe V` (a cluster ending in it),
/// `--rsh=V`, `--rsh V`, and unique-looking prefixes of the long names (`--rs=V`). Options are
/// read up to `--`. A program's other options are not known here, so a short option is found
/// anywhere in a cluster: at worst a value is read as code when it is not, never the reverse.
pub fn values<'s>(args: &[Word<'s>], options: &[&str]) -> Vec<Word<'s>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let Some(t) = w.literal() else { continue };
        if t == "--" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (given, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let hit = options
                .iter()
                .map(|o| o.trim_start_matches('-'))
                .any(|o| o.len() > 1 && (o == given || (given.len() >= 3 && o.starts_with(given))));
            if !hit || given.is_empty() {
                continue;
            }
            match value {
                Some(_) => out.push(w.tail(long.find('=').map_or(t.len(), |e| e + 3))),
                None => {
                    if let Some(next) = args.get(i) {
                        out.push(next.clone());
                        i += 1;
                    }
                }
            }
            continue;
        }
        // Single-dash long options (`-ex`, `-eval`) as some programs spell them.
        if let Some(single) = t.strip_prefix('-').filter(|s| s.len() > 1)
            && let Some((given, _)) = single.split_once('=').or(Some((single, "")))
            && options
                .iter()
                .map(|o| o.trim_start_matches('-'))
                .any(|o| o.len() > 1 && o == given)
        {
            match single.find('=') {
                Some(e) => out.push(w.tail(e + 2)),
                None => {
                    if let Some(next) = args.get(i) {
                        out.push(next.clone());
                        i += 1;
                    }
                }
            }
            continue;
        }
        // Options written `-x` in the table are whole words only (gdb's `-x FILE` beside
        // `-ex CMD`): never found inside a cluster.
        if options.iter().any(|o| o.starts_with('-') && *o == t) {
            if let Some(next) = args.get(i) {
                out.push(next.clone());
                i += 1;
            }
            continue;
        }
        let Some(cluster) = t.strip_prefix('-').filter(|c| !c.is_empty()) else {
            continue;
        };
        for (at, c) in cluster.char_indices() {
            if !options
                .iter()
                .any(|o| !o.starts_with('-') && o.len() == c.len_utf8() && o.starts_with(c))
            {
                continue;
            }
            let rest = at + c.len_utf8();
            if rest < cluster.len() {
                out.push(w.tail(1 + rest));
            } else if let Some(next) = args.get(i) {
                out.push(next.clone());
                i += 1;
            }
            break;
        }
    }
    out
}

/// The words that are not options or their values: the files an editor is given.
fn operands<'a, 's>(args: &'a [Word<'s>], options: &[&str]) -> Vec<&'a Word<'s>> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut ended = false;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.literal().unwrap_or(w.raw);
        if ended {
            out.push(w);
            continue;
        }
        if t == "--" {
            ended = true;
            continue;
        }
        if t.starts_with('+') && t.len() > 1 {
            continue;
        }
        if let Some(opt) = t.strip_prefix('-').filter(|o| !o.is_empty()) {
            let name = opt.trim_start_matches('-');
            let last = name.chars().last().map(String::from).unwrap_or_default();
            if (options.contains(&name) || options.contains(&last.as_str())) && !name.contains('=')
            {
                i += 1;
            }
            continue;
        }
        out.push(w);
    }
    out
}

/// Code in a language not read here: opaque.
fn unread(value: &Word, at: &Ctx, st: &mut State) {
    let span = at.src.map.span(value.span.clone());
    st.add(catalogue::CODE_UNREAD.at(span, &value.quoted()));
}

/// An editor's or debugger's command: `!CMD`, `r !CMD`, `w !CMD`, `shell CMD`, `pipe … | CMD`
/// are shell text; `call`, `py`, `lua`, `source`… are opaque. Returns whether it writes files
/// (`w`, `x`, `wq`, `sav`, `up`).
fn escape(name: &str, value: &Word, path: &Rc<str>, at: &Ctx, st: &mut State) -> bool {
    let Some(text) = value.literal() else {
        unread(value, at, st);
        return false;
    };
    let segment = format!("{name} command");
    if name == "dc" {
        // dc's `!` runs the rest of the line, except in `!<`, `!>`, `!=`.
        let mut rest = text;
        while let Some(bang) = rest.find('!') {
            let after = &rest[bang + 1..];
            if after.starts_with(['<', '>', '=']) {
                rest = &after[1..];
                continue;
            }
            let line = after.split('\n').next().unwrap_or("");
            shell_text(&segment, line, value, path, at, st);
            rest = &after[line.len()..];
        }
        return false;
    }
    let mut writes = false;
    // `|` separates editor commands, except after `!`, which takes the rest of the line.
    let mut rest = text;
    loop {
        let command = rest.trim_start_matches([' ', '\t', ':']);
        let command = strip_words(command, &["silent!", "silent", "sil!", "sil", "keepalt"]);
        let command = command.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, '%' | '.' | '$' | ',' | ';' | ' ' | '\'')
        });
        if let Some(cmd) = command.strip_prefix('!') {
            shell_text(&segment, cmd, value, path, at, st);
            return writes;
        }
        let word: String = command
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let after = command[word.len()..].trim_start_matches('!').trim_start();
        match word.as_str() {
            "shell" | "sh" if name.contains("gdb") => {
                shell_text(&segment, after, value, path, at, st);
                return writes;
            }
            "pipe" | "r" | "read" | "w" | "write" | "wq" | "x" | "xit" | "exit" | "up"
            | "update" | "sav" | "saveas" | "wa" | "wall" | "xa" | "xall" | "wqa" | "wqall"
            | "sp" | "split" | "vs" | "new" | "e" | "edit" => {
                if let Some(bang) = after.find('!').filter(|_| !word.starts_with('e')) {
                    shell_text(&segment, &after[bang + 1..], value, path, at, st);
                    return writes;
                }
                if name.contains("gdb") && word == "pipe" {
                    match after.split_once('|') {
                        Some((_, cmd)) => shell_text(&segment, cmd, value, path, at, st),
                        None => unread(value, at, st),
                    }
                    return writes;
                }
                // `w! FILE`, `sav FILE`, `w >> FILE`: the file named is written.
                let target = after
                    .trim_start_matches(">>")
                    .split(['|', ' '])
                    .find(|t| !t.is_empty())
                    .filter(|_| {
                        matches!(
                            word.as_str(),
                            "w" | "write" | "wq" | "x" | "xit" | "sav" | "saveas" | "up" | "update"
                        )
                    });
                if let Some(target) = target {
                    let file = Word::made(target.to_owned(), value.raw, value.span.clone());
                    let file = st.home_word(&file);
                    let span = at.src.map.span(value.span.clone());
                    let mut site = Site::new(name, Args::default(), span, st);
                    site.on(Effect::Overwrite, &file);
                    site.report();
                }
                writes |= matches!(
                    word.as_str(),
                    "w" | "write"
                        | "wq"
                        | "x"
                        | "xit"
                        | "exit"
                        | "up"
                        | "update"
                        | "sav"
                        | "saveas"
                        | "wa"
                        | "wall"
                        | "xa"
                        | "xall"
                        | "wqa"
                        | "wqall"
                );
            }
            "call" | "exe" | "exec" | "execute" | "py" | "py3" | "python" | "python3" | "pyx"
            | "lua" | "luado" | "luafile" | "perl" | "ruby" | "rubydo" | "so" | "source"
            | "ter" | "term" | "terminal" | "let" | "norm" | "normal" | "redir" | "mak"
            | "make" | "gr" | "grep" | "guile" | "define" | "document" | "eval" | "com"
            | "command" | "au" | "autocmd" | "argdo" | "bufdo" | "windo" | "cdo" | "cfdo"
            | "ldo" | "lfdo" | "tabdo" | "g" | "global" | "v" | "vglobal" => {
                unread(value, at, st);
            }
            _ => {}
        }
        match rest.find('|') {
            Some(bar) => rest = &rest[bar + 1..],
            None => return writes,
        }
    }
}

/// `text` without a leading word of `words` and the blanks after it.
fn strip_words<'t>(text: &'t str, words: &[&str]) -> &'t str {
    for w in words {
        if let Some(rest) = text.strip_prefix(w)
            && (rest.is_empty() || rest.starts_with([' ', '\t']))
        {
            return rest.trim_start();
        }
    }
    text
}

/// Queues `text`, a command line found inside `from`, as shell text.
pub fn shell_text(
    segment: &str,
    text: &str,
    from: &Word,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    if from.dynamic {
        let span = at.src.map.span(from.span.clone());
        st.add(catalogue::DYNAMIC_SHELL.at(span, &from.quoted()));
        return;
    }
    let shell = st.shell.clone();
    queue_text(
        text.to_owned(),
        Err(std::slice::from_ref(&from)),
        join_path(path, segment),
        at,
        shell,
        st,
    );
}

/// ssh's `-o Key=Value` (or `Key Value`): the keys whose value is a command line.
const SSH_COMMAND_KEYS: &[&str] = &[
    "proxycommand",
    "localcommand",
    "knownhostscommand",
    "remotecommand",
];

/// ssh's keys whose value is a library or program loaded into it.
const SSH_PROGRAM_KEYS: &[&str] = &[
    "pkcs11provider",
    "securitykeyprovider",
    "sshaskpass",
    "match",
    "include",
];

fn ssh_option(name: &str, value: &Word, path: &Rc<str>, at: &Ctx, st: &mut State) {
    let Some(text) = value.literal() else {
        // The key itself is unknown: it may name a command.
        unread(value, at, st);
        return;
    };
    let text = text.trim_start();
    let split = text.find(['=', ' ', '\t']).unwrap_or(text.len());
    let key = text[..split].to_ascii_lowercase();
    let rest = text[split..].trim_start_matches([' ', '\t']);
    let rest = rest
        .strip_prefix('=')
        .unwrap_or(rest)
        .trim_start_matches([' ', '\t']);
    if SSH_COMMAND_KEYS.contains(&key.as_str()) {
        shell_text(&format!("{name} -o {key}"), rest, value, path, at, st);
    } else if SSH_PROGRAM_KEYS.contains(&key.as_str()) {
        unread(value, at, st);
    }
}

// ---- Variables whose value runs ----

/// How the shell or a program uses a variable's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    /// A command line (`PAGER`, `GIT_SSH_COMMAND`, `PROMPT_COMMAND`).
    Shell,
    /// Prompt text: its `$(…)` and backquotes run each time it is shown.
    Prompt,
    /// A file that is run or loaded (`BASH_ENV`, `LD_PRELOAD`).
    File,
    /// `LESSOPEN`: a command line after `|`, with `%s` for the file.
    InputFilter,
    /// Code loaded into every program that starts (`LD_PRELOAD`, `PERL5OPT=-M…`,
    /// `NODE_OPTIONS=--require …`): not read here.
    Unread,
    /// Where the commands after it are found (`PATH`): a directory of programs the gate does
    /// not know puts whatever lies there under a name it does (`PATH=/tmp ls`).
    Search,
}

/// Variables whose value runs, by name.
const VARIABLES: &[(&str, Var)] = &[
    ("PROMPT_COMMAND", Var::Shell),
    ("PAGER", Var::Shell),
    ("GIT_PAGER", Var::Shell),
    ("MANPAGER", Var::Shell),
    ("SYSTEMD_PAGER", Var::Shell),
    ("BAT_PAGER", Var::Shell),
    ("DELTA_PAGER", Var::Shell),
    ("EDITOR", Var::Shell),
    ("VISUAL", Var::Shell),
    ("FCEDIT", Var::Shell),
    ("GIT_EDITOR", Var::Shell),
    ("GIT_SEQUENCE_EDITOR", Var::Shell),
    ("SUDO_EDITOR", Var::Shell),
    ("SVN_EDITOR", Var::Shell),
    ("GIT_EXTERNAL_DIFF", Var::Shell),
    ("GIT_SSH_COMMAND", Var::Shell),
    ("GIT_SSH", Var::Shell),
    ("GIT_PROXY_COMMAND", Var::Shell),
    ("GIT_ASKPASS", Var::Shell),
    ("SSH_ASKPASS", Var::Shell),
    ("SUDO_ASKPASS", Var::Shell),
    ("RSYNC_RSH", Var::Shell),
    ("RSYNC_CONNECT_PROG", Var::Shell),
    ("CVS_RSH", Var::Shell),
    ("BROWSER", Var::Shell),
    ("TAR_OPTIONS", Var::Shell),
    ("PS0", Var::Prompt),
    ("PS1", Var::Prompt),
    ("PS2", Var::Prompt),
    ("PS3", Var::Prompt),
    ("PS4", Var::Prompt),
    ("BASH_ENV", Var::File),
    ("ENV", Var::File),
    ("LD_PRELOAD", Var::Unread),
    ("PATH", Var::Search),
    ("LD_AUDIT", Var::Unread),
    ("RUSTC_WRAPPER", Var::Shell),
    ("RUSTC_WORKSPACE_WRAPPER", Var::Shell),
    ("CARGO_BUILD_RUSTC_WRAPPER", Var::Shell),
    ("CARGO_BUILD_RUSTC", Var::Shell),
    ("RUSTC", Var::Shell),
    ("RUSTDOC", Var::Shell),
    ("npm_config_script_shell", Var::Shell),
    ("NPM_CONFIG_SCRIPT_SHELL", Var::Shell),
    ("PERL5OPT", Var::Unread),
    ("RUBYOPT", Var::Unread),
    ("NODE_OPTIONS", Var::Unread),
    ("GIT_EXEC_PATH", Var::Unread),
    ("PYTHONSTARTUP", Var::File),
    ("LESSOPEN", Var::InputFilter),
    ("LESSCLOSE", Var::InputFilter),
];

/// A variable set to `value`, for the command after it, the line, or the shell: what in it
/// runs is analysed now, because it may run at any later time.
pub fn variable(name: &str, value: &Word, path: &Rc<str>, at: &Ctx, st: &mut State) {
    let segment = format!("${name}");
    // An exported function: `BASH_FUNC_f%%=() { BODY; }`.
    if name.starts_with("BASH_FUNC_") {
        function_value(&segment, value, path, at, st);
        return;
    }
    if name == "GIT_CONFIG_PARAMETERS" {
        match value.literal() {
            Some(text) => {
                for (key, v) in config_parameters(text) {
                    git_config(&key, Some(&v), value, path, at, st);
                }
            }
            None => unread(value, at, st),
        }
        return;
    }
    // `x='a[$(CMD)]'`, `x='$(CMD)'`: a command substitution kept as text runs CMD wherever the
    // value is evaluated again: as a number (`$((x))`, `[[ $x -eq 1 ]]`, `declare -i`, `let`
    // evaluate an array subscript in it), as a prompt (`${x@P}`), through `eval`. The line
    // does not follow every way there, so the text is judged where it is stored.
    if let Some(text) = value.literal()
        && (text.contains("$(") || text.contains('`'))
        && !matches!(
            VARIABLES.iter().find(|(n, _)| *n == name),
            Some((_, Var::Prompt | Var::Shell))
        )
    {
        let quoted = format!(": \"{}\"", escape_quotes(text));
        shell_text(&segment, &quoted, value, path, at, st);
    }
    // `CARGO_TARGET_<TRIPLE>_RUNNER`, `CARGO_TARGET_<TRIPLE>_LINKER`: programs cargo runs.
    let cargo_target = name.starts_with("CARGO_TARGET_")
        && (name.ends_with("_RUNNER") || name.ends_with("_LINKER"));
    let Some(how) = VARIABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, h)| *h)
        .or(cargo_target.then_some(Var::Shell))
    else {
        return;
    };
    if how == Var::Search {
        let vars = &st.shell.vars;
        if !super::search::known(value, st.ctx.home, |n| vars.contains_key(n)) {
            unread(value, at, st);
        }
        return;
    }
    let Some(text) = value.literal() else {
        let span = at.src.map.span(value.span.clone());
        st.add(catalogue::DYNAMIC_SHELL.at(span, &value.quoted()));
        return;
    };
    match how {
        Var::Shell => {
            if !text.trim().is_empty() {
                shell_text(&segment, text, value, path, at, st);
            }
        }
        Var::Prompt => {
            if text.contains("$(") || text.contains('`') {
                shell_text(
                    &segment,
                    &format!(": \"{}\"", escape_quotes(text)),
                    value,
                    path,
                    at,
                    st,
                );
            }
        }
        Var::Search => {}
        Var::Unread => {
            // `NODE_OPTIONS=--max-old-space-size=4096` loads nothing.
            let loads = name != "NODE_OPTIONS"
                || [
                    "--require",
                    "-r",
                    "--import",
                    "--loader",
                    "--experimental-loader",
                ]
                .iter()
                .any(|o| {
                    text.split_whitespace()
                        .any(|w| w == *o || w.starts_with(&format!("{o}=")))
                });
            if !text.trim().is_empty() && loads {
                unread(value, at, st);
            }
        }
        Var::InputFilter => {
            let cmd = text.trim_start_matches(['|', '-', ' ']);
            if !cmd.is_empty() {
                shell_text(&segment, cmd, value, path, at, st);
            }
        }
        Var::File => {
            if !text.is_empty() {
                super::super::recurse::run_written(&segment, value, path, at, st);
                let span = at.src.map.span(value.span.clone());
                let mut site = Site::new(name, Args::default(), span, st);
                site.on(Effect::Run, value);
                site.report();
            }
        }
    }
}

/// `text` inside double quotes: `"` and `\` escaped, `$` and backquotes left to expand.
fn escape_quotes(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// An exported function's value, `() { BODY; }`: the body is shell text.
fn function_value(segment: &str, value: &Word, path: &Rc<str>, at: &Ctx, st: &mut State) {
    let Some(text) = value.literal() else {
        unread(value, at, st);
        return;
    };
    let body = text.trim_start().strip_prefix("()").unwrap_or(text);
    shell_text(segment, body, value, path, at, st);
}

/// The `NAME=value` words of an assignment, split; `None` when it is not one.
pub fn split_assignment<'s>(w: &Word<'s>) -> Option<(String, Word<'s>)> {
    let t = w.literal().unwrap_or(w.raw);
    let eq = t.find('=')?;
    let name = &t[..eq];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
    {
        return None;
    }
    Some((name.trim_end_matches('+').to_owned(), w.tail(eq + 1)))
}

/// `GIT_CONFIG_COUNT=N GIT_CONFIG_KEY_i=K GIT_CONFIG_VALUE_i=V`: each pair is `git -c K=V`.
pub fn git_config_env(pairs: &[(String, Word)], path: &Rc<str>, at: &Ctx, st: &mut State) {
    for (name, key) in pairs {
        let Some(i) = name.strip_prefix("GIT_CONFIG_KEY_") else {
            continue;
        };
        let Some((_, value)) = pairs
            .iter()
            .find(|(n, _)| n.strip_prefix("GIT_CONFIG_VALUE_") == Some(i))
        else {
            continue;
        };
        match key.literal() {
            Some(k) => git_config(k, value.literal(), value, path, at, st),
            None => unread(key, at, st),
        }
    }
}

/// `GIT_CONFIG_PARAMETERS`: `'key'='value'` pairs, shell-quoted, separated by blanks.
fn config_parameters(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '\'' => {
                if quoted {
                    parts.push(std::mem::take(&mut cur));
                }
                quoted = !quoted;
            }
            _ if quoted => cur.push(c),
            '=' => parts.push(String::from("=")),
            _ => {}
        }
    }
    let mut i = 0;
    while i < parts.len() {
        if parts[i] == "=" {
            i += 1;
            continue;
        }
        let key = parts[i].clone();
        if parts.get(i + 1).map(String::as_str) == Some("=")
            && let Some(v) = parts.get(i + 2)
        {
            out.push((key, v.clone()));
            i += 3;
        } else {
            out.push((key, String::new()));
            i += 1;
        }
    }
    out
}

// ---- git ----

/// git configuration keys whose value is a command line, lower case; `*` stands for a
/// subsection (`diff.*.textconv`).
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "core.gitproxy",
    "sequence.editor",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "credential.helper",
    "credential.*.helper",
    "alias.*",
    "pager.*",
    "gpg.program",
    "gpg.*.program",
    "uploadpack.packobjectshook",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "mergetool.*.cmd",
    "difftool.*.cmd",
    "web.browser",
    "browser.*.cmd",
    "man.*.cmd",
    "sendemail.sendmailcmd",
    "sendemail.tocmd",
    "sendemail.cccmd",
    "instaweb.httpd",
];

/// Keys whose value names hooks, configuration or programs found elsewhere: what they run
/// cannot be read here.
const GIT_UNREAD_KEYS: &[&str] = &[
    "core.hookspath",
    "include.path",
    "includeif.*.path",
    "protocol.ext.allow",
    "protocol.allow",
    "core.sshcommand.*",
];

fn key_matches(pattern: &str, key: &str) -> bool {
    let Some((section, rest)) = pattern.split_once('.') else {
        return false;
    };
    let Some((ksection, krest)) = key.split_once('.') else {
        return false;
    };
    if section != ksection {
        return false;
    }
    match rest.split_once('.') {
        // `section.*.name`: the subsection may hold dots; the name is the last part.
        Some(("*", name)) => krest.rsplit_once('.').is_some_and(|(_, n)| n == name),
        _ if rest == "*" => true,
        _ => rest == krest,
    }
}

/// `git -c KEY=VALUE`: a command-valued key's value is shell text (`!` aliases and helpers
/// run through the shell; others name a program and its arguments, which the shell splits).
/// `text` is the value when known; `from` the word it came from.
pub fn git_config(
    key: &str,
    text: Option<&str>,
    from: &Word,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let key = lower_key(key);
    if GIT_UNREAD_KEYS.iter().any(|p| key_matches(p, &key)) {
        unread(from, at, st);
        return;
    }
    if !GIT_COMMAND_KEYS.iter().any(|p| key_matches(p, &key)) {
        return;
    }
    let Some(text) = text else {
        unread(from, at, st);
        return;
    };
    // `core.fsmonitor=true` names the built-in daemon.
    if key == "core.fsmonitor"
        && matches!(text.to_ascii_lowercase().as_str(), "true" | "false" | "")
    {
        return;
    }
    let segment = format!("git -c {key}");
    match text.strip_prefix('!') {
        Some(cmd) => shell_text(&segment, cmd, from, path, at, st),
        // An alias without `!` is a git command line; a helper's plain name is
        // `git credential-NAME`.
        None if key.starts_with("alias.") => {
            shell_text(&segment, &format!("git {text}"), from, path, at, st)
        }
        None if key.starts_with("credential.") && !text.contains(['/', ' ']) => {}
        None => shell_text(&segment, text, from, path, at, st),
    }
}

/// A key with its section and name lower-cased (they are case-insensitive; a subsection is
/// not, but nothing here depends on its case).
fn lower_key(key: &str) -> String {
    key.to_ascii_lowercase()
}

/// git's options and subcommands that run commands: `-c KEY=VALUE`, `--config-env`,
/// `--upload-pack`, `--receive-pack`, `--exec`, `rebase --exec`, `submodule foreach`,
/// `bisect run`, `difftool -x`, `grep -O`, `filter-branch --*-filter`, and `ext::` URLs.
pub fn git<'s>(_: &str, job: &Job<'s>, at: &Ctx, st: &mut State, jobs: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    let path = &job.path;
    // Global options, up to the subcommand.
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let Some(t) = w.literal() else { break };
        if !t.starts_with('-') {
            break;
        }
        i += 1;
        let pair = if t == "-c" {
            i += 1;
            args.get(i - 1).cloned()
        } else if t.starts_with("-c") {
            Some(w.tail(2))
        } else if let Some(rest) = t.strip_prefix("--config-env=") {
            // The value is in an environment variable named here: not known.
            if let Some((key, _)) = rest.split_once('=') {
                let key = lower_key(key);
                if GIT_COMMAND_KEYS
                    .iter()
                    .chain(GIT_UNREAD_KEYS)
                    .any(|p| key_matches(p, &key))
                {
                    unread(w, at, st);
                }
            }
            None
        } else {
            // `--exec-path=DIR`: git runs its subcommands from DIR.
            if t == "--exec-path" {
                if let Some(dir) = args.get(i) {
                    unread(dir, at, st);
                }
            } else if t.starts_with("--exec-path=") {
                unread(w, at, st);
            }
            if matches!(
                t,
                "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
            ) {
                i += 1;
            }
            None
        };
        if let Some(pair) = pair {
            match pair.literal() {
                Some(text) => {
                    let (key, value) = text.split_once('=').unwrap_or((text, "true"));
                    let eq = text.find('=').map_or(text.len(), |e| e + 1);
                    let from = pair.tail(eq.min(text.len()));
                    git_config(key, Some(value), &from, path, at, st);
                }
                None => unread(&pair, at, st),
            }
        }
    }
    let Some(sub) = args.get(i).and_then(Word::literal) else {
        return false;
    };
    let rest = &args[i + 1..];
    let segment = format!("git {sub}");
    // Options that run a command line, any subcommand.
    for value in values(
        rest,
        &[
            "upload-pack",
            "receive-pack",
            "exec",
            "extcmd",
            "open-files-in-pager",
        ],
    ) {
        command_string(&segment, Some(&value), path, at, st);
    }
    match sub {
        "rebase" => {
            for value in values(rest, &["x"]) {
                command_string(&segment, Some(&value), path, at, st);
            }
        }
        "clone" => {
            for value in values(rest, &["u"]) {
                command_string(&segment, Some(&value), path, at, st);
            }
        }
        "difftool" | "mergetool" => {
            for value in values(rest, &["x"]) {
                command_string(&segment, Some(&value), path, at, st);
            }
        }
        "grep" => {
            for w in rest {
                if let Some(t) = w.literal()
                    && t.len() > 2
                    && t.starts_with("-O")
                {
                    command_string(&segment, Some(&w.tail(2)), path, at, st);
                }
            }
        }
        "filter-branch" => {
            for value in values(
                rest,
                &[
                    "env-filter",
                    "tree-filter",
                    "index-filter",
                    "parent-filter",
                    "msg-filter",
                    "commit-filter",
                    "tag-name-filter",
                ],
            ) {
                command_string(&segment, Some(&value), path, at, st);
            }
        }
        "submodule" => {
            let mut j = 0;
            while rest
                .get(j)
                .and_then(Word::literal)
                .is_some_and(|t| t.starts_with('-'))
            {
                j += 1;
            }
            if rest.get(j).and_then(Word::literal) == Some("foreach") {
                let mut k = j + 1;
                while rest
                    .get(k)
                    .and_then(Word::literal)
                    .is_some_and(|t| t.starts_with('-'))
                {
                    k += 1;
                }
                let words = &rest[k.min(rest.len())..];
                joined(&segment, words, path, at, st);
            }
        }
        "bisect" if rest.first().and_then(Word::literal) == Some("run") && rest.len() > 1 => {
            push_words(&rest[1..], "git bisect run", job, jobs);
        }
        _ => {}
    }
    // `ext::CMD ARGS` URLs run CMD; `% ` is a space inside an argument.
    for w in rest {
        if let Some(t) = w.literal()
            && let Some(cmd) = t.strip_prefix("ext::")
        {
            let decoded = cmd.replace("% ", "\u{0}").replace("%%", "%");
            let line = decoded
                .split(' ')
                .filter(|s| !s.is_empty())
                .map(|s| shell_quote(&s.replace('\u{0}', " ")))
                .collect::<Vec<_>>()
                .join(" ");
            shell_text(&format!("{segment} ext::"), &line, w, path, at, st);
        }
    }
    false
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Words a program joins with spaces and hands to a shell (`git submodule foreach CMD…`,
/// `tmux new-session CMD…`).
fn joined(segment: &str, words: &[Word], path: &Rc<str>, at: &Ctx, st: &mut State) {
    match words {
        [] => {}
        [one] => command_string(segment, Some(one), path, at, st),
        _ => {
            if let Some(dynamic) = words.iter().find(|w| w.dynamic) {
                let span = at.src.map.span(dynamic.span.clone());
                st.add(catalogue::DYNAMIC_SHELL.at(span, &dynamic.quoted()));
                return;
            }
            let text = words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let refs: Vec<&Word> = words.iter().collect();
            let shell = st.shell.clone();
            queue_text(text, Err(&refs), join_path(path, segment), at, shell, st);
        }
    }
}

// ---- terminal multiplexers ----

/// tmux subcommands whose operands are a shell command, and their options as tmux's own
/// getopt template says (a letter then `:` takes a value, joined or the next word).
const TMUX_SHELL: &[(&[&str], &str)] = &[
    (&["new-session", "new"], "Ac:dDe:EF:f:n:Ps:t:x:Xy:"),
    (&["new-window", "neww"], "abc:de:F:kn:PSt:"),
    (&["split-window", "splitw"], "bc:de:fF:hIl:p:Pt:vZ"),
    (&["respawn-pane", "respawnp"], "c:e:kt:"),
    (&["respawn-window", "respawnw"], "c:e:kt:"),
    (&["run-shell", "run"], "bc:Cd:t:"),
    (&["pipe-pane", "pipep"], "IOot:"),
    (&["display-popup", "popup"], "Bb:Cc:d:e:Eh:s:S:t:T:w:x:y:"),
    (&["if-shell", "if"], "bFt:"),
];

/// tmux's own options (`tmux [-2CDlNuVv] [-c cmd] [-f file] [-L name] [-S path] [-T feats]`),
/// read by getopt: a value may be joined (`-f/etc/tmux.conf`), and the first word that is not
/// an option is the command.
pub(crate) const TMUX: Grammar = Grammar {
    short: "2CDlNuVvc:f:L:S:T:",
    long: &[],
    style: Style::Posix,
};

/// `tmux [opts] CMD [args] [; CMD …]`: commands that take a shell command have it analysed;
/// typing keys into a pane (`send-keys`) or sourcing a file runs what cannot be read here.
pub fn tmux<'s>(_: &str, job: &Job<'s>, at: &Ctx, st: &mut State, _: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    let parsed = getopt::parse(args, &TMUX);
    if let Some(command) = parsed.value(&["c"]) {
        command_string("tmux -c", Some(command), &job.path, at, st);
        return true;
    }
    let words = tmux_commands(&args[parsed.rest.min(args.len())..]);
    for command in words.split(Option::is_none) {
        let command: Vec<Word> = command.iter().flatten().cloned().collect();
        tmux_command(&command, job, at, st);
    }
    false
}

/// tmux's command words with each separator as `None`: as tmux reads its arguments, a word
/// ending in `;` ends a command (`ls;` is `ls` then a separator) unless the `;` follows a
/// backslash (`a\;` is the word `a;`).
fn tmux_commands<'s>(words: &[Word<'s>]) -> Vec<Option<Word<'s>>> {
    let mut out = Vec::new();
    for w in words {
        let Some(t) = w.literal() else {
            out.push(Some(w.clone()));
            continue;
        };
        let Some(head) = t.strip_suffix(';') else {
            out.push(Some(w.clone()));
            continue;
        };
        if let Some(kept) = head.strip_suffix('\\') {
            out.push(Some(Word::made(format!("{kept};"), w.raw, w.span.clone())));
            continue;
        }
        if !head.is_empty() {
            out.push(Some(Word::made(head.to_owned(), w.raw, w.span.clone())));
        }
        out.push(None);
    }
    out
}

fn tmux_command(words: &[Word], job: &Job, at: &Ctx, st: &mut State) {
    let Some(first) = words.first() else {
        return;
    };
    let span = at.span_of(words);
    let Some(name) = first.literal() else {
        // A command named at run time may be `send-keys`.
        st.add(catalogue::CHANNEL_TYPED.at(span.clone(), &format!("tmux {}", first.raw)));
        st.add(catalogue::TYPED_ELSEWHERE.at(span, &format!("`tmux {}`", first.raw)));
        return;
    };
    let segment = format!("tmux {name}");
    // Keys, a buffer or a command's output typed into a pane: another pane may be where a
    // person answers the gate. What is typed, and a file sourced, run unread.
    let types = super::channel::tmux_types(name);
    if types {
        st.add(catalogue::CHANNEL_TYPED.at(span.clone(), &format!("tmux {name}")));
    }
    let pipes = name.len() >= 4 && ("pipe-pane".starts_with(name) || name == "pipep");
    if (types && !pipes) || matches!(name, "source-file" | "source" | "load-buffer" | "loadb") {
        st.add(catalogue::TYPED_ELSEWHERE.at(span, &format!("`tmux {name}`")));
        return;
    }
    // An alias or full name, else a prefix of a full name (tmux takes a unique one).
    let found = TMUX_SHELL
        .iter()
        .find(|(names, _)| names.contains(&name))
        .or_else(|| {
            TMUX_SHELL
                .iter()
                .find(|(names, _)| name.len() >= 3 && names[0].starts_with(name))
        });
    let Some((_, template)) = found else {
        return;
    };
    let grammar = Grammar {
        short: template,
        long: &[],
        style: Style::Posix,
    };
    let rest = &words[1..];
    let parsed = getopt::parse(rest, &grammar);
    let operands = &rest[parsed.rest.min(rest.len())..];
    if matches!(name, "if-shell" | "if") {
        // The condition is shell text; the commands after it are tmux commands.
        if let Some(first) = operands.first() {
            command_string(&segment, Some(first), &job.path, at, st);
        }
        for cmd in operands.iter().skip(1) {
            let span = at.src.map.span(cmd.span.clone());
            let first = cmd.text.split_whitespace().next().unwrap_or("");
            if cmd.dynamic || super::channel::tmux_types(first) {
                st.add(catalogue::CHANNEL_TYPED.at(span.clone(), &format!("tmux {first}")));
            }
            st.add(catalogue::TYPED_ELSEWHERE.at(span, &cmd.quoted()));
        }
        return;
    }
    joined(&segment, operands, &job.path, at, st);
}

/// How screen reads its options (its own loop, not getopt): letters in a cluster; `c e h p s
/// S t T` take the rest of the cluster or the next word; `r R x` take the next word as the
/// session when it does not start with `-`, and options go on after it; `-X`/`-Q` are flags
/// that make the words after the options a command sent to a session; `--` or the first word
/// that is not an option ends them.
struct ScreenArgs {
    /// Where the words after the options start.
    rest: usize,
    /// `-X` or `-Q` was given.
    sends: bool,
}

fn screen_args(args: &[Word]) -> ScreenArgs {
    let mut out = ScreenArgs {
        rest: args.len(),
        sends: false,
    };
    let mut session = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let Some(t) = w.literal().filter(|t| t.starts_with('-') && t.len() > 1) else {
            out.rest = i;
            return out;
        };
        i += 1;
        match t {
            "--" => {
                out.rest = i;
                return out;
            }
            "-ls" | "-list" | "-wipe" | "-ln" | "-fn" | "-fa" | "-L" => continue,
            "-Logfile" => {
                i += 1;
                continue;
            }
            _ => {}
        }
        for (at, c) in t.char_indices().skip(1) {
            match c {
                'X' | 'Q' => out.sends = true,
                'c' | 'e' | 'h' | 'p' | 's' | 'S' | 't' | 'T' => {
                    if at + 1 == t.len() {
                        i += 1;
                    }
                    break;
                }
                'r' | 'R' | 'x' if !session => {
                    let next = args.get(i).and_then(Word::literal);
                    if next.is_some_and(|n| !n.starts_with('-')) {
                        session = true;
                        i += 1;
                    }
                }
                _ => {}
            }
        }
    }
    out.rest = i.min(args.len());
    out
}

/// `screen [opts] [CMD args]`: CMD runs in a new window; `-X stuff TEXT` types TEXT into one.
pub fn screen<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let parsed = screen_args(args);
    let rest = &args[parsed.rest..];
    if !parsed.sends {
        if !rest.is_empty() {
            push_words(rest, "screen", job, jobs);
        }
        return true;
    }
    let span = at.span_of(args);
    let command = rest.first().and_then(Word::literal);
    if command.is_none_or(|c| super::channel::SCREEN_TYPES.contains(&c)) {
        st.add(catalogue::CHANNEL_TYPED.at(span.clone(), "screen -X"));
    }
    match command {
        Some("exec" | "screen") => {
            let mut run = &rest[1..];
            // `exec [fdpat] CMD`: a `!` in the pattern types CMD's output into the window.
            if command == Some("exec")
                && let Some(pattern) = run.first().and_then(Word::literal)
                && !pattern.is_empty()
                && pattern.chars().all(|c| ".!|:".contains(c))
            {
                if pattern.contains('!') {
                    st.add(catalogue::CHANNEL_TYPED.at(span.clone(), "screen -X exec !"));
                    st.add(catalogue::TYPED_ELSEWHERE.at(span, "`screen -X exec`"));
                }
                run = &run[1..];
            }
            if !run.is_empty() {
                push_words(run, "screen -X", job, jobs);
            }
        }
        Some(
            "stuff" | "source" | "eval" | "paste" | "readbuf" | "register" | "process" | "bindkey"
            | "bind",
        )
        | None => {
            st.add(catalogue::TYPED_ELSEWHERE.at(span, "`screen -X`"));
        }
        Some(_) => {}
    }
    true
}

fn push_words<'s>(words: &[Word<'s>], segment: &str, job: &Job<'s>, jobs: &mut Vec<Job<'s>>) {
    jobs.push(Job {
        words: words.to_vec().into(),
        path: join_path(&job.path, segment),
        stdin: Stdin::Inherited,
        child: true,
        cwd: None,
        assigned: Vec::new(),
        level: job.level + 1,
        container: None,
    });
}

/// socat's options that take the next word as their value.
const SOCAT_VALUED: &[&str] = &["-b", "-t", "-T", "-lf", "-lp", "-L", "-W", "-r", "-R"];

/// `socat ADDRESS ADDRESS`: `EXEC:`/`SYSTEM:` addresses run a command line.
pub fn socat<'s>(_: &str, job: &Job<'s>, at: &Ctx, st: &mut State, _: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    // Data flows both ways unless `-u` (first to second) or `-U` (second to first): an
    // address is written when data flows into it.
    let forward = args.iter().any(|w| w.literal() == Some("-u"));
    let backward = args.iter().any(|w| w.literal() == Some("-U"));
    let mut index = 0;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        if let Some(t) = w.literal()
            && t.starts_with('-')
            && t != "-"
        {
            i += usize::from(SOCAT_VALUED.contains(&t));
            continue;
        }
        let written = !((forward && index == 0) || (backward && index == 1));
        index += 1;
        // `FILE:PATH`, `OPEN:`, `GOPEN:` read a file, and write it when data flows into it;
        // `CREATE:` writes one.
        let upper = w.text.get(..7).unwrap_or(&w.text).to_ascii_uppercase();
        let (skip, effect) = if upper.starts_with("FILE:") || upper.starts_with("OPEN:") {
            (5, Effect::Read)
        } else if upper.starts_with("GOPEN:") {
            (6, Effect::Read)
        } else if upper.starts_with("CREATE:") {
            (7, Effect::Overwrite)
        } else if let Some(skip) = unix_client(&w.text) {
            // A client of a Unix socket: whatever serves it acts on what is sent.
            (skip, Effect::Change)
        } else if w
            .text
            .split('/')
            .next()
            .is_some_and(|head| !head.contains(':'))
            && w.text.contains('/')
        {
            // A bare path is `GOPEN:`, opened for reading and writing: what arrives from the
            // other address is written into it (another terminal, a device).
            let span = at.src.map.span(w.span.clone());
            let mut site = Site::new("socat", Args::default(), span, st);
            site.on(Effect::Write, w);
            site.report();
            (0, Effect::Read)
        } else {
            continue;
        };
        let file = w.tail(skip);
        let file = match file.text.split_once(',') {
            Some((path, _)) if !file.dynamic => Word::made(path.to_owned(), w.raw, w.span.clone()),
            _ => file,
        };
        let span = at.src.map.span(w.span.clone());
        let mut site = Site::new("socat", Args::default(), span, st);
        site.on(effect, &file);
        if effect == Effect::Read && written && skip > 0 {
            site.on(Effect::Write, &file);
        }
        site.report();
    }
    for w in &job.words[1..] {
        let Some(t) = w.literal() else { continue };
        let upper = t.get(..7).unwrap_or(t).to_ascii_uppercase();
        let skip = if upper.starts_with("EXEC:") {
            5
        } else if upper.starts_with("SYSTEM:") {
            7
        } else {
            continue;
        };
        // Address options follow a `,`.
        let cmd = t[skip..].split(',').next().unwrap_or("");
        shell_text("socat", cmd, w, &job.path, at, st);
    }
    false
}

/// The length of socat's Unix client address keyword (`UNIX-CONNECT:`, `UNIX:`…), if `text`
/// starts with one.
fn unix_client(text: &str) -> Option<usize> {
    const KEYWORDS: &[&str] = &[
        "UNIX-CONNECT:",
        "UNIX-CLIENT:",
        "UNIX-SENDTO:",
        "UNIX:",
        "LOCAL:",
    ];
    let head = text.get(..13).unwrap_or(text).to_ascii_uppercase();
    KEYWORDS
        .iter()
        .find(|k| head.starts_with(**k))
        .map(|k| k.len())
}

// ---- the shell's own stores ----

/// Builtins that keep shell text to run later, or evaluate what they are given:
/// `trap CMD SIG…`, `alias NAME=CMD`, `mapfile -C CMD`, array subscripts in the names that
/// `let`, `declare`, `printf -v`, `read`, `unset`… evaluate, and variables set by `export`,
/// `declare`, `local`, `readonly`.
pub fn stored(name: &str, job: &Job, at: &Ctx, st: &mut State) {
    let args = &job.words[1..];
    let path = &job.path;
    match name {
        "trap" => {
            let mut i = 0;
            while let Some(t) = args.get(i).and_then(Word::literal) {
                if t == "--" {
                    i += 1;
                    break;
                }
                if !t.starts_with('-') || t == "-" {
                    break;
                }
                i += 1;
            }
            // `trap SIG` alone resets SIG; `trap - SIG` and `trap '' SIG` run nothing.
            if args.len() > i + 1
                && let Some(cmd) = args.get(i)
                && cmd.literal() != Some("-")
            {
                command_string("trap", Some(cmd), path, at, st);
            }
        }
        // `hash -p /bin/rm ls`: the name `ls` runs `/bin/rm` from now on.
        "hash" if args.iter().any(|w| w.literal() == Some("-p")) => {
            if let Some(w) = args.iter().find(|w| w.literal() == Some("-p")) {
                unread(w, at, st);
            }
        }
        // `enable -f lib.so NAME`: bash loads the library as a builtin, and runs its code.
        "enable" => {
            let loads = args.iter().find(|w| {
                w.literal()
                    .is_some_and(|t| t.starts_with('-') && t != "--" && t.contains('f'))
            });
            if let Some(w) = loads {
                unread(w, at, st);
            }
        }
        "alias" => {
            for w in args {
                if let Some((_, value)) = split_assignment(w)
                    && !w.literal().is_some_and(|t| t.starts_with('-'))
                {
                    command_string("alias", Some(&value), path, at, st);
                }
            }
        }
        "mapfile" | "readarray" => {
            for value in values(args, &["C"]) {
                command_string(&format!("{name} -C"), Some(&value), path, at, st);
            }
        }
        _ => {}
    }
    if EVALUATES_NAMES.contains(&name) {
        // `printf -v NAME`: only the name is evaluated, not what is printed.
        let names = match name {
            "printf" => args
                .get(1..2)
                .filter(|_| args.first().and_then(Word::literal) == Some("-v"))
                .unwrap_or(&[]),
            _ => args,
        };
        evaluated(name, names, path, at, st);
    }
    if matches!(
        name,
        "export" | "declare" | "typeset" | "local" | "readonly"
    ) {
        let pairs: Vec<(String, Word)> = args.iter().filter_map(split_assignment).collect();
        for (var, value) in &pairs {
            variable(var, value, path, at, st);
        }
        git_config_env(&pairs, path, at, st);
    }
}

/// Names and expressions `name` evaluates: a quoted `$(…)` or backquote in them runs.
pub fn evaluated(name: &str, words: &[Word], path: &Rc<str>, at: &Ctx, st: &mut State) {
    // `unset PATH`: bash then runs a name from the current directory. A name only known when
    // the line runs may be PATH.
    if name == "unset"
        && let Some(w) = words
            .iter()
            .find(|w| w.text == "PATH" || (w.dynamic && w.raw.contains('$')))
    {
        unread(w, at, st);
    }
    for w in words {
        if let Some(text) = w.literal()
            && (text.contains("$(") || text.contains('`'))
        {
            shell_text(name, text, w, path, at, st);
        }
    }
}

/// Builtins that evaluate a name or expression they are given, array subscripts included:
/// a `$(…)` in them runs even when it was quoted on the line.
const EVALUATES_NAMES: &[&str] = &[
    "let",
    "declare",
    "typeset",
    "local",
    "readonly",
    "export",
    "printf",
    "read",
    "unset",
    "mapfile",
    "readarray",
    "getopts",
    "wait",
    "test",
    "[",
];

// ---- programs that run a command they are given ----

/// The words after a program's options, skipping `valued` options' values (short letters
/// and long names), up to the first operand.
fn after_options(args: &[Word], short: &str, long: &[&str]) -> usize {
    let mut i = 0;
    while let Some(t) = args.get(i).and_then(Word::literal) {
        if t == "--" {
            return i + 1;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        i += 1;
        if let Some(l) = t.strip_prefix("--") {
            if !l.contains('=') && long.contains(&l) {
                i += 1;
            }
        } else if t.len() == 2 && t.chars().last().is_some_and(|c| short.contains(c)) {
            i += 1;
        }
    }
    i
}

/// `systemd-run [opts] CMD…`: CMD runs as a transient unit.
pub fn systemd_run<'s>(
    _: &str,
    job: &Job<'s>,
    _: &Ctx,
    _: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let i = after_options(
        args,
        "MpEHuGrs",
        &[
            "unit",
            "property",
            "description",
            "slice",
            "setenv",
            "uid",
            "gid",
            "nice",
            "working-directory",
            "host",
            "machine",
            "timer-property",
            "on-active",
            "on-boot",
            "on-startup",
            "on-unit-active",
            "on-unit-inactive",
            "on-calendar",
            "on-timezone-change",
            "on-clock-change",
            "path-property",
            "socket-property",
            "service-type",
            "expand-environment",
        ],
    );
    if args.len() > i {
        push_words(&args[i..], "systemd-run", job, jobs);
    }
    false
}

/// `ip [opts] netns exec NAME CMD…`.
pub fn ip<'s>(_: &str, job: &Job<'s>, _: &Ctx, _: &mut State, jobs: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    let at = args
        .windows(2)
        .position(|w| w[0].literal() == Some("netns") && w[1].literal() == Some("exec"));
    if let Some(p) = at
        && args.len() > p + 3
    {
        push_words(&args[p + 3..], "ip netns exec", job, jobs);
    }
    false
}

/// `sg GROUP [-c] CMD`: CMD runs through the shell with another group.
pub fn sg<'s>(_: &str, job: &Job<'s>, at: &Ctx, st: &mut State, _: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    let mut i = 0;
    while args
        .get(i)
        .and_then(Word::literal)
        .is_some_and(|t| t.starts_with('-') && t != "-c")
    {
        i += 1;
    }
    // The group, then `-c CMD` or CMD.
    i += 1;
    if args.get(i).and_then(Word::literal) == Some("-c") {
        i += 1;
    }
    match args.get(i) {
        Some(cmd) => command_string("sg", Some(cmd), &job.path, at, st),
        None => fed_to_shell("sg", &job.stdin, &job.path, at.span_of(&job.words), at, st),
    }
    true
}

/// `hyperfine CMD…`: each operand and each `--prepare`/`--setup`/`--cleanup`/`--conclude`
/// value is a command line run by a shell.
pub fn hyperfine<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    const SHELL: &[&str] = &["p", "prepare", "s", "setup", "c", "cleanup", "conclude"];
    const VALUED: &[&str] = &[
        "w",
        "warmup",
        "m",
        "min-runs",
        "M",
        "max-runs",
        "r",
        "runs",
        "S",
        "shell",
        "L",
        "parameter-scan",
        "parameter-step-size",
        "D",
        "parameter-list",
        "style",
        "sort",
        "u",
        "time-unit",
        "export-asciidoc",
        "export-csv",
        "export-json",
        "export-markdown",
        "export-orgmode",
        "output",
        "input",
        "n",
        "command-name",
        "reference",
        "i",
    ];
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.literal().unwrap_or(w.raw);
        let name = t.trim_start_matches('-');
        if t.starts_with('-') && t.len() > 1 {
            if name.contains('=') {
                let (n, _) = name.split_once('=').unwrap_or((name, ""));
                if SHELL.contains(&n) || n == "reference" {
                    command_string(
                        "hyperfine",
                        Some(&w.tail(t.find('=').map_or(0, |e| e + 1))),
                        &job.path,
                        at,
                        st,
                    );
                }
                continue;
            }
            if SHELL.contains(&name) || name == "reference" {
                command_string("hyperfine", args.get(i), &job.path, at, st);
                i += 1;
            } else if VALUED.contains(&name) {
                i += if name == "L" || name == "parameter-scan" {
                    3
                } else {
                    1
                };
            }
            continue;
        }
        command_string("hyperfine", Some(w), &job.path, at, st);
    }
    true
}

/// `entr [-s] CMD…`: CMD runs when a file changes; with `-s` it is a shell command line.
pub fn entr<'s>(_: &str, job: &Job<'s>, at: &Ctx, st: &mut State, jobs: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    let mut i = 0;
    let mut shell = false;
    while let Some(t) = args.get(i).and_then(Word::literal) {
        if !t.starts_with('-') || t == "-" {
            break;
        }
        shell |= t.contains('s');
        i += 1;
    }
    if shell {
        command_string("entr -s", args.get(i), &job.path, at, st);
    } else if args.len() > i {
        push_words(&args[i..], "entr", job, jobs);
    }
    true
}

/// `at`, `batch`: the commands to run later are read from input, or from `-f FILE`.
pub fn at_queue<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let span = at.span_of(&job.words);
    // Listing, removing, showing: nothing is queued.
    if args
        .iter()
        .any(|w| matches!(w.literal(), Some("-l" | "-d" | "-r" | "-c" | "-V")))
    {
        return true;
    }
    if let Some(file) = values(args, &["f"]).first() {
        st.add(catalogue::SHELL_READS.at(span, &format!("`{name} -f {}`", file.raw)));
        return true;
    }
    fed_to_shell(name, &job.stdin, &job.path, span, at, st);
    true
}

/// `make -f -` reads the makefile, recipes and all, from its input.
pub fn make<'s>(name: &str, job: &Job<'s>, at: &Ctx, st: &mut State, _: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    // `make SHELL='sh -c …'`: every recipe line runs through that command.
    for w in args {
        if let Some((var, value)) = split_assignment(w)
            && matches!(var.as_str(), "SHELL" | "MAKESHELL" | ".SHELLFLAGS")
        {
            match value.literal() {
                Some(text) if var == ".SHELLFLAGS" => {
                    if text.contains(['$', '`', ';', '|', '&']) {
                        unread(&value, at, st);
                    }
                }
                Some(text) => shell_text(&format!("{name} {var}"), text, &value, &job.path, at, st),
                None => unread(&value, at, st),
            }
        }
    }
    for file in values(args, &["f", "file", "makefile"]) {
        if matches!(file.literal(), Some("-" | "/dev/stdin")) || file.literal().is_none() {
            let span = at.span_of(&job.words);
            st.add(catalogue::STDIN_COMMANDS.at(span, name));
        }
    }
    false
}

/// `ssh -F FILE`: a configuration file can hold `ProxyCommand`, `LocalCommand` and `Match
/// exec`, which run commands; one the gate does not read is opaque, except the user's own
/// (which every `ssh` reads anyway) and none at all.
pub fn ssh_config<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    for file in values(&job.words[1..], &["F"]) {
        let own = st
            .ctx
            .home
            .map(|h| format!("{}/.ssh/config", h.trim_end_matches('/')));
        let known = match file.literal() {
            Some("none" | "/dev/null" | "~/.ssh/config") => true,
            Some(t) => own.as_deref() == Some(t),
            None => false,
        };
        if !known {
            unread(&file, at, st);
        }
    }
    false
}

/// Vim's files of commands: `-s FILE` types its keys as Normal-mode commands (outside Ex
/// mode, where `-s` means silent), `-u FILE` reads it as the vimrc. Either can run `:!`.
pub fn vim_files<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let ex = name == "ex"
        || args.iter().any(|w| {
            w.literal()
                .is_some_and(|t| t == "-e" || t == "-E" || t == "-es" || t == "-Es")
        });
    let scripts = if ex {
        values(args, &["u"])
    } else {
        values(args, &["s", "u", "W"])
    };
    for file in scripts {
        let harmless = matches!(file.literal(), Some("NONE" | "NORC" | "DEFAULTS"));
        if !harmless {
            unread(&file, at, st);
        }
    }
    false
}

/// `less +CMD`: the command runs when less starts; `!` in it runs the rest as a shell line
/// (`+!rm …`, `+g!…` are not less's, but `!` anywhere begins a shell escape).
pub fn less_commands<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    for w in &job.words[1..] {
        let Some(t) = w.literal() else { continue };
        if t == "--" {
            break;
        }
        let Some(command) = t.strip_prefix('+') else {
            continue;
        };
        if let Some(bang) = command.find(['!', '|']) {
            let line = command[bang + 1..].trim_start_matches(['!', '|']);
            shell_text(&format!("{name} +"), line, w, &job.path, at, st);
        }
    }
    false
}

/// `rpm --eval '%(CMD)'`, `rpmbuild --define 'x %(CMD)'`: a `%(…)` macro runs CMD; a
/// `%{lua:…}` one runs Lua.
pub fn rpm_macros<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    for value in values(&job.words[1..], &["eval", "E", "define", "D"]) {
        let Some(text) = value.literal() else {
            unread(&value, at, st);
            continue;
        };
        if text.contains("%{lua:") {
            unread(&value, at, st);
        }
        let mut rest = text;
        while let Some(open) = rest.find("%(") {
            let inner = &rest[open + 2..];
            let end = inner.rfind(')').unwrap_or(inner.len());
            shell_text(
                &format!("{name} %(…)"),
                &inner[..end],
                &value,
                &job.path,
                at,
                st,
            );
            rest = &inner[end..];
            if rest.is_empty() {
                break;
            }
            rest = &rest[1..];
        }
    }
    false
}

/// npm's commands that run or store shell text: `npm exec -c CMD`, `npm pkg set
/// scripts.NAME=CMD` and `npm set-script NAME CMD` (a later `npm run NAME` runs it), and
/// `npm config set script-shell PROGRAM`.
pub fn npm<'s>(name: &str, job: &Job<'s>, at: &Ctx, st: &mut State, _: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    let words: Vec<&str> = args.iter().map(|w| w.literal().unwrap_or("")).collect();
    let sub = words.iter().position(|w| !w.starts_with('-'));
    let segment = format!("{name} script");
    match sub.map(|i| (words[i], i)) {
        Some(("exec" | "x", _)) => {
            for value in values(args, &["c", "call"]) {
                command_string(&segment, Some(&value), &job.path, at, st);
            }
        }
        Some(("pkg", i)) if words.get(i + 1) == Some(&"set") => {
            for w in &args[i + 2..] {
                if let Some((key, value)) = w.literal().and_then(|t| t.split_once('='))
                    && key.starts_with("scripts.")
                {
                    shell_text(&segment, value, w, &job.path, at, st);
                }
            }
        }
        Some(("set-script", i)) => {
            if let Some(value) = args.get(i + 2) {
                command_string(&segment, Some(value), &job.path, at, st);
            }
        }
        Some(("config" | "c", i)) if words.get(i + 1) == Some(&"set") => {
            npm_settings(&args[i + 2..], at, st);
        }
        Some(("set", i)) => npm_settings(&args[i + 1..], at, st),
        _ => {}
    }
    false
}

/// npm settings whose value is a program npm (or what it starts) runs, code it loads, or
/// another file of settings: set, a command runs later that the gate does not read.
const NPM_RUNS: &[&str] = &[
    "script-shell",
    "shell",
    "node-options",
    "git",
    "editor",
    "browser",
    "viewer",
    "init-module",
    "onload-script",
    "userconfig",
    "globalconfig",
    "node-gyp",
    // pnpm's: hooks loaded on every install, the npm it calls, the package manager it fetches.
    "global-pnpmfile",
    "pnpmfile",
    "npm-path",
    "manage-package-manager-versions",
    // What packages are trusted to be: TLS and its authorities, proxies in the middle.
    "strict-ssl",
    "cafile",
    "ca",
    "proxy",
    "https-proxy",
];

/// npm's and pnpm's options before a key that take the next word (`--location project`).
const NPM_VALUED: &[&str] = &[
    "--location",
    "-L",
    "--workspace",
    "-w",
    "--filter",
    "-F",
    "--dir",
    "-C",
];

/// A key as the settings file keeps it: pnpm takes `scriptShell` for `script-shell`.
fn npm_key(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `npm config set KEY VALUE…` (or `KEY=VALUE`): each key that names something npm runs.
fn npm_settings(args: &[Word], at: &Ctx, st: &mut State) {
    let mut words = args.iter();
    while let Some(w) = words.next() {
        let Some(text) = w.literal() else {
            // A key only known at run time may be any of them.
            unread(w, at, st);
            continue;
        };
        if text.starts_with('-') {
            if NPM_VALUED.contains(&text) {
                words.next();
            }
            continue;
        }
        let key = match text.split_once('=') {
            Some((key, _)) => key,
            None => {
                // `KEY VALUE`: the next word is the value.
                words.next();
                text
            }
        };
        if NPM_RUNS.contains(&npm_key(key).as_str()) {
            unread(w, at, st);
        }
    }
}

/// Go's settings that name a program the go command runs (compilers, `GOFLAGS`' `-toolexec`),
/// flags handed to them, or where modules and toolchains come from and whether they are
/// checked: `go env -w` keeps them for every later `go build`.
const GO_RUNS: &[&str] = &[
    "GOFLAGS",
    "CC",
    "CXX",
    "FC",
    "AR",
    "PKG_CONFIG",
    "GCCGO",
    "CGO_CFLAGS",
    "CGO_CPPFLAGS",
    "CGO_CXXFLAGS",
    "CGO_FFLAGS",
    "CGO_LDFLAGS",
    "GOPROXY",
    "GONOSUMDB",
    "GONOSUMCHECK",
    "GOINSECURE",
    "GOSUMDB",
    "GOTOOLCHAIN",
    "GOROOT",
    "GOENV",
    "GOTOOLDIR",
    "GOVCS",
    "GOAUTH",
];

/// Go's own values of those settings: nothing new. (`GOPRIVATE` and `GONOPROXY` only name where
/// one's own modules live, fetched from their origin as always, and are not among them.)
fn go_default(key: &str, value: &str) -> bool {
    matches!(
        (key, value),
        (
            "GOPROXY",
            "https://proxy.golang.org,direct" | "https://proxy.golang.org" | "direct"
        ) | ("GOSUMDB", "sum.golang.org")
            | ("GOTOOLCHAIN", "auto" | "local")
            | (
                "GOFLAGS",
                "" | "-mod=mod" | "-mod=readonly" | "-mod=vendor" | "-buildvcs=false"
            )
    )
}

/// `go env -w KEY=VALUE…`: a key that names what later builds run or fetch.
pub fn go_env<'s>(_: &str, job: &Job<'s>, at: &Ctx, st: &mut State, _: &mut Vec<Job<'s>>) -> bool {
    let args = &job.words[1..];
    let words: Vec<&str> = args.iter().map(|w| w.literal().unwrap_or("")).collect();
    let Some(env) = words.iter().position(|w| *w == "env") else {
        return false;
    };
    if !words[env + 1..].contains(&"-w") {
        return false;
    }
    for w in &args[env + 1..] {
        match w.literal() {
            Some(t) if t.starts_with('-') => {}
            Some(t) => {
                let (key, value) = t.split_once('=').unwrap_or((t, ""));
                if GO_RUNS.contains(&key) && !go_default(key, value) {
                    unread(w, at, st);
                }
            }
            // `GOPRIVATE=github.com/org/*`: a pattern in the value, under a key written out.
            None if w.raw.split_once('=').is_some_and(|(key, _)| {
                key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !GO_RUNS.contains(&key)
            }) => {}
            None => unread(w, at, st),
        }
    }
    false
}

/// `gh config set editor|pager|browser PROGRAM` (gh runs it later), and `gh alias set NAME
/// EXPANSION` where the expansion is shell text (`--shell`, or a leading `!`), run by a later
/// `gh NAME`.
pub fn gh_settings<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    // `-h HOST` (`gh config set -h github.com editor vim`) takes a value.
    let ops = operands(args, &["h", "hostname"]);
    let verb = |i: usize| ops.get(i).and_then(|w| w.literal()).unwrap_or("");
    match (verb(0), verb(1)) {
        ("config", "set") => {
            if let Some(key) = ops.get(2) {
                match key.literal() {
                    // The program gh starts, judged as the command line it is.
                    Some("editor" | "pager" | "browser") => {
                        if let Some(value) = ops.get(3) {
                            let segment = format!("{name} config");
                            match value.literal() {
                                Some(text) => {
                                    shell_text(&segment, text, value, &job.path, at, st);
                                }
                                None => unread(value, at, st),
                            }
                        }
                    }
                    Some(_) => {}
                    None => unread(key, at, st),
                }
            }
        }
        ("alias", "set") => {
            let shell = args
                .iter()
                .any(|w| matches!(w.literal(), Some("--shell" | "-s")));
            if let Some(expansion) = ops.get(3) {
                match expansion.literal() {
                    Some(text) if shell || text.starts_with('!') => {
                        let segment = format!("{name} alias");
                        shell_text(
                            &segment,
                            text.trim_start_matches('!'),
                            expansion,
                            &job.path,
                            at,
                            st,
                        );
                    }
                    Some(_) => {}
                    None => unread(expansion, at, st),
                }
            }
        }
        _ => {}
    }
    false
}

/// `yarn config set KEY VALUE`: Yarn's own settings that name code it runs (`yarnPath`, the
/// release it hands every command to; `plugins`; the shell and Node options of scripts).
pub fn yarn_settings<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let words: Vec<&str> = args.iter().map(|w| w.literal().unwrap_or("")).collect();
    let Some(at_set) = words
        .windows(2)
        .position(|w| w[0] == "config" && w[1] == "set")
    else {
        return false;
    };
    // The key: the first word after `set` that is no option (`-H`, `--home`, `--json`).
    let key_at = (at_set + 2..args.len()).find(|&i| !words[i].starts_with('-'));
    if let Some(i) = key_at {
        let key = &args[i];
        let runs = key.literal().is_none_or(|k| {
            let k = k.split_once('=').map_or(k, |(k, _)| k).to_ascii_lowercase();
            matches!(
                k.as_str(),
                "yarnpath"
                    | "yarn-path"
                    | "plugins"
                    | "script-shell"
                    | "shell"
                    | "node-options"
                    | "nodeoptions"
                    | "injectenvironmentfiles"
                    | "packageextensions"
                    | "enablescripts"
                    | "unsafehttpwhitelist"
                    | "httpsproxy"
                    | "httpproxy"
                    | "cafilepath"
                    | "enablestrictssl"
            ) || (k.starts_with("initfields") && k.contains("scripts"))
        });
        if runs {
            unread(args.get(i + 1).unwrap_or(key), at, st);
        }
    }
    false
}

/// `rustup toolchain link NAME DIR`: the compiler in DIR, unread, becomes a toolchain cargo and
/// rustc run as NAME (as the default, or in a directory that names it).
pub fn rustup_link<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let ops = operands(args, &[]);
    let is = |i: usize, t: &str| ops.get(i).and_then(|w| w.literal()) == Some(t);
    if is(0, "toolchain")
        && is(1, "link")
        && let Some(dir) = ops.get(3)
    {
        unread(dir, at, st);
    }
    false
}

/// `cargo --config KEY=VALUE`: a runner, a linker or a compiler wrapper is a program cargo
/// runs; a `--config FILE` can name them too.
pub fn cargo_config<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    for value in values(&job.words[1..], &["config"]) {
        let runs = match value.literal() {
            Some(t) if t.contains('=') => {
                let key = t.split('=').next().unwrap_or("").to_ascii_lowercase();
                ["runner", "wrapper", "linker", "rustc", "rustdoc"]
                    .iter()
                    .any(|k| key.contains(k))
            }
            // A file of settings the gate does not read.
            Some(_) | None => true,
        };
        if runs {
            unread(&value, at, st);
        }
    }
    false
}

/// `deno eval CODE`, `bun -e CODE`, `bun eval CODE`: JavaScript the gate does not read as a
/// runtime other than node sees it (Deno's and Bun's own APIs).
pub fn js_runtime<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    for value in values(args, &["e", "eval", "p", "print"]) {
        unread(&value, at, st);
    }
    if let Some(i) = args.iter().position(|w| w.literal() == Some("eval"))
        && let Some(code) = args[i + 1..].iter().find(|w| !w.text.starts_with('-'))
    {
        unread(code, at, st);
    }
    false
}

/// An interpreter the gate does not read, with no program file: it runs what arrives on its
/// input (`tclsh <<< 'exec rm …'`, `R --vanilla < x.R`, `lua -`).
pub fn stdin_program<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let program = args
        .iter()
        .any(|w| !w.text.starts_with('-') || w.literal() == Some("-"))
        && !args.iter().any(|w| w.literal() == Some("-"));
    let evaluates = args.iter().any(|w| {
        matches!(
            w.literal(),
            Some("-e" | "-c" | "--eval" | "-E" | "--version" | "-v" | "--help" | "-h" | "-Command")
        )
    });
    if !program && !evaluates {
        let span = at.span_of(&job.words);
        st.add(catalogue::STDIN_COMMANDS.at(span, name));
    }
    false
}

/// `run-parts DIR`: runs every program in DIR, which the gate cannot read.
pub fn run_parts<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let listing = args.iter().any(|w| {
        matches!(
            w.literal(),
            Some("--test" | "--list" | "--help" | "--version")
        )
    });
    if !listing && let Some(dir) = args.iter().rev().find(|w| !w.text.starts_with('-')) {
        let span = at.src.map.span(dir.span.clone());
        st.add(catalogue::SHELL_READS.at(span, &format!("`{name} {}`", dir.raw)));
    }
    false
}

/// `tar --checkpoint-action=exec=CMD`: CMD runs at each checkpoint.
pub fn tar_checkpoint<'s>(
    _: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    for value in values(&job.words[1..], &["checkpoint-action"]) {
        if let Some(t) = value.literal()
            && let Some(cmd) = t.strip_prefix("exec=")
        {
            shell_text("tar --checkpoint-action", cmd, &value, &job.path, at, st);
        } else if value.literal().is_none() {
            unread(&value, at, st);
        }
    }
    false
}
