//! What a command prints, when it is paths the line names: the words of `echo` and `printf`,
//! what `find DIR` and `ls DIR` list, `pwd`, `dirname X`, text a decoder makes of literal text
//! (`echo L2V0Yy9zaGFkb3c= | base64 -d`). A command substitution or a pipe into `xargs`
//! hands that on, so `cat $(echo ~/.ssh/id_rsa)` and `echo ~/.ssh/id_rsa | xargs cat` read
//! what they read; anything else prints something only known at run time.
//!
//! Secret data is followed the same way: what prints the environment or a stored credential
//! prints a [`Piece::Secret`], and what a command makes of secret data it reads (encoded,
//! compressed, filtered, cut) is secret data still. A group, a subshell or a loop prints what
//! any of its statements prints, so a secret printed anywhere in it counts.
//!
//! Looking into a substitution resolves its words, which may hold substitutions: the depth is
//! bounded, past it the output is unknown.

use tree_sitter::Node;

use super::kind;
use super::programs::unknown::{may_print_secret, prints_secret};
use super::secrets;
use super::words::{Alts, Env, Word, basename, fields, text};
use crate::places::{Piece, Secret};

mod computed;

/// How deep substitutions in substitutions are looked into.
const MAX_DEPTH: u32 = 4;
/// Alternatives kept for one output.
const MAX_ALTS: usize = 16;

/// What `$(…)` or `` `…` `` prints, as alternatives of a path.
pub fn substitution(node: Node, src: &str, env: &Env) -> Option<Alts> {
    let mut cursor = node.walk();
    let stmts: Vec<Node> = node
        .named_children(&mut cursor)
        .filter(|n| kind(*n) != "comment")
        .collect();
    statements_output(&stmts, src, env)
}

/// What the last of some statements prints, run where the `cd`s before it lead.
fn statements_output(stmts: &[Node], src: &str, env: &Env) -> Option<Alts> {
    let (last, before) = stmts.split_last()?;
    let mut cwd = env.cwd.map(str::to_owned);
    for stmt in before {
        if let Some(dir) = cd_target(*stmt, src, env) {
            cwd = match (dir.starts_with('/'), &cwd) {
                (true, _) => Some(dir),
                (false, Some(c)) => {
                    crate::places::Path::absolute(&format!("{c}/{dir}")).literal_text()
                }
                (false, None) => None,
            };
        }
    }
    let inner = Env {
        cwd: cwd.as_deref(),
        ..*env
    };
    output(*last, src, &inner)
}

/// Programs that print what they read when given no file: a pipe through them carries the
/// paths upstream printed.
const FILTERS: &[&str] = &[
    "head", "tail", "sort", "uniq", "grep", "egrep", "fgrep", "cat", "tee", "tac", "shuf",
];

/// What a statement prints.
pub fn output(node: Node, src: &str, env: &Env) -> Option<Alts> {
    if env.depth >= MAX_DEPTH {
        return None;
    }
    let env = Env {
        depth: env.depth + 1,
        ..*env
    };
    match kind(node) {
        "pipeline" => {
            let mut cursor = node.walk();
            let stages: Vec<Node> = node
                .named_children(&mut cursor)
                .filter(|n| kind(*n) != "comment")
                .collect();
            pipeline_output(&stages, src, &env)
        }
        "list" | "subshell" | "compound_statement" => {
            // `cd DIR; pwd`: a `cd` to a literal directory before the last statement moves
            // where it runs.
            let mut cursor = node.walk();
            let stmts: Vec<Node> = node
                .named_children(&mut cursor)
                .filter(|n| kind(*n) != "comment")
                .collect();
            if let Some(secret) = secret_among(&stmts, src, &env) {
                return Some(secret_alts(secret));
            }
            statements_output(&stmts, src, &env)
        }
        // Loops and branches: only whether some statement prints a secret is followed.
        "while_statement"
        | "for_statement"
        | "c_style_for_statement"
        | "if_statement"
        | "case_statement"
        | "do_group"
        | "else_clause"
        | "elif_clause"
        | "case_item" => {
            let mut cursor = node.walk();
            let stmts: Vec<Node> = node.named_children(&mut cursor).collect();
            secret_among(&stmts, src, &env).map(secret_alts)
        }
        "redirected_statement" => {
            let body = node.child_by_field_name("body")?;
            // `env > FILE` prints nothing where the statement's output goes.
            if stdout_to_file(node) {
                return None;
            }
            // `base64 -d <<< TEXT`: the input is on the line.
            let input = here_string(node, src, &env);
            match kind(body) {
                "command" => command_output(body, src, &env, input),
                _ => output(body, src, &env),
            }
        }
        "command" => {
            let input = here_string(node, src, &env);
            command_output(node, src, &env, input)
        }
        "declaration_command" => declaration_output(node, src),
        _ => None,
    }
}

/// `declare -p`, `export`, `typeset -x`: given options only, a declaration lists variables
/// with their values.
fn declaration_output(node: Node, src: &str) -> Option<Alts> {
    let keyword = text(node.child(0)?, src);
    if !secrets::ENVIRONMENT_PRINTERS.contains(&keyword) {
        return None;
    }
    let mut cursor = node.walk();
    let args: Vec<Word> = node
        .named_children(&mut cursor)
        .map(|c| Word::made(text(c, src).to_owned(), "", 0..0))
        .collect();
    secrets::environment_printed(keyword, &args, false).map(secret_alts)
}

/// The strongest secret any of some statements prints.
fn secret_among(stmts: &[Node], src: &str, env: &Env) -> Option<Secret> {
    stmts
        .iter()
        .filter(|n| kind(**n) != "comment")
        .filter_map(|n| output(*n, src, env).as_deref().and_then(secrets::in_alts))
        .max()
}

fn secret_alts(secret: Secret) -> Alts {
    vec![vec![Piece::Secret(secret)]]
}

/// A redirection of the statement's standard output to a file (`> f`, `>> f`, `&> f`).
fn stdout_to_file(node: Node) -> bool {
    let mut cursor = node.walk();
    node.children_by_field_name("redirect", &mut cursor)
        .any(|r| kind(r) == "file_redirect" && writes_stdout(r))
}

/// Whether a file redirection sends the standard output to its target: `>`, `>>`, `&>`,
/// `>|`; `2> f` moves another descriptor (and a rare `1> f` is taken for one too).
pub fn writes_stdout(redirect: Node) -> bool {
    let mut cursor = redirect.walk();
    let mut out = false;
    for child in redirect.children(&mut cursor) {
        match kind(child) {
            "file_descriptor" => return false,
            ">" | ">>" | "&>" | "&>>" | ">|" => out = true,
            _ => {}
        }
    }
    out
}

/// The directory of a `cd DIR` statement, when literal.
fn cd_target(node: Node, src: &str, env: &Env) -> Option<String> {
    if kind(node) != "command" {
        return None;
    }
    let words = words(node, src, env);
    match words.as_slice() {
        [cd, dir] if cd.literal() == Some("cd") => dir.literal().map(str::to_owned),
        [cd] if cd.literal() == Some("cd") => env.home.map(str::to_owned),
        _ => None,
    }
}

/// The output of the last stage, reading what the stages before it print.
fn pipeline_output(stages: &[Node], src: &str, env: &Env) -> Option<Alts> {
    let mut input = None;
    for stage in stages {
        input = stage_output(*stage, src, env, input);
    }
    input
}

/// What a pipeline stage prints, given what the stage before it printed. `node` may itself
/// be a run of stages (a long pipeline parsed in pieces).
pub fn stage_output(node: Node, src: &str, env: &Env, input: Option<Alts>) -> Option<Alts> {
    match kind(node) {
        "command" => {
            let input = input.or_else(|| here_string(node, src, env));
            command_output(node, src, env, input)
        }
        "pipeline" => {
            let mut input = input;
            let mut cursor = node.walk();
            for stage in node.named_children(&mut cursor) {
                if kind(stage) != "comment" {
                    input = stage_output(stage, src, env, input);
                }
            }
            input
        }
        _ => output(node, src, env),
    }
}

/// A here-string's literal text.
fn here_string(node: Node, src: &str, env: &Env) -> Option<Alts> {
    // On a redirected statement, or among a command's own children (`cat <<< ~ | …`).
    let mut cursor = node.walk();
    let redirect = node
        .children(&mut cursor)
        .find(|r| kind(*r) == "herestring_redirect")?;
    let word = redirect.named_child(0)?;
    let mut words = Vec::new();
    fields(word, src, env, &mut words);
    if let Some(secret) = words.iter().filter_map(secrets::in_word).max() {
        return Some(secret_alts(secret));
    }
    literal_alts(&words)
}

/// Words of a command, resolved.
fn words<'s>(node: Node, src: &'s str, env: &Env) -> Vec<Word<'s>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            match cursor.field_name() {
                Some("name") => fields(child.named_child(0).unwrap_or(child), src, env, &mut out),
                Some("argument") => fields(child, src, env, &mut out),
                _ => {}
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

/// The alternatives of a few words: each word one alternative.
fn alts_of(words: &[&Word]) -> Option<Alts> {
    let mut out: Alts = Vec::new();
    for w in words {
        out.extend(w.alternatives().iter().cloned());
        if out.len() > MAX_ALTS {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Literal text only: what a decoder can work on.
fn literal_alts(words: &[Word]) -> Option<Alts> {
    let text: Vec<&str> = words.iter().map(Word::literal).collect::<Option<_>>()?;
    Some(vec![vec![Piece::Lit(text.join(" "))]])
}

/// The pattern every name `find` prints matches: that of its one `-name` test, when no
/// operator (`-o`, `!`, `,`) lets another name through. A `-name` with a `/` matches nothing.
fn only_name<'w>(args: &'w [Word]) -> Option<&'w str> {
    let mut names = Vec::new();
    for (i, w) in args.iter().enumerate() {
        match w.literal() {
            Some("-o" | "-or" | "!" | "-not" | "," | "-prune") => return None,
            Some("-name") => names.push(args.get(i + 1)?.literal()?),
            _ => {}
        }
    }
    match names.as_slice() {
        [one] if !one.is_empty() && !one.contains('/') && *one != "*" => Some(one),
        _ => None,
    }
}

/// A `find` or shell pattern as pieces: its glob syntax apart from its literal text.
fn pattern_pieces(pattern: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        let glob = match c {
            '*' | '?' => c.to_string(),
            '[' => {
                let mut class = String::from('[');
                for d in chars.by_ref() {
                    class.push(d);
                    if d == ']' && class.len() > 2 {
                        break;
                    }
                }
                class
            }
            '\\' => {
                lit.extend(chars.next());
                continue;
            }
            _ => {
                lit.push(c);
                continue;
            }
        };
        if !lit.is_empty() {
            out.push(Piece::Lit(std::mem::take(&mut lit)));
        }
        out.push(Piece::Glob(glob));
    }
    if !lit.is_empty() {
        out.push(Piece::Lit(lit));
    }
    out
}

/// `dir` followed by what a listing adds below it (`Piece::Below` for names it lists,
/// `Piece::Found` for every path a walk finds).
fn below(alts: Alts, listed: Piece) -> Alts {
    alts.into_iter()
        .map(|mut alt| {
            alt.push(Piece::Lit("/".to_owned()));
            alt.push(listed.clone());
            alt
        })
        .collect()
}

/// Programs that may take what the stage before prints as words or as code.
const CONSUMERS: &[&str] = &[
    "xargs",
    "parallel",
    // Archivers that take the files to act on from their input (`tar -T -`, `cpio -o`,
    // `zip -@`).
    "tar",
    "bsdtar",
    "gtar",
    "cpio",
    "zip",
    "xz",
    "unxz",
    "lzma",
    "zstd",
    "pax",
    "afio",
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "busybox",
    "sudo",
    "doas",
    "env",
    "nice",
    "nohup",
    "timeout",
    "stdbuf",
    "command",
    "exec",
    "su",
    "ssh",
    "python",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "lua",
    "source",
    ".",
    "eval",
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sqlite",
    "duckdb",
    "clickhouse-client",
    "usql",
    "cqlsh",
    "cockroach",
    "redis-cli",
    "valkey-cli",
    "mongo",
    "mongosh",
    "docker",
    "podman",
    "nerdctl",
    "kubectl",
];

/// Programs that may send what they read to the network, or keep it in a file that is sent
/// later: a pipe into one of them carries what the stage before printed, secrets included.
const SENDERS: &[&str] = &[
    "curl",
    "wget",
    "wget2",
    "http",
    "https",
    "xh",
    "xhs",
    "httpie",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "openssl",
    "ssh",
    "mail",
    "mailx",
    "s-nail",
    "bsd-mailx",
    "mutt",
    "neomutt",
    "sendmail",
    "msmtp",
    "ssmtp",
    "aws",
    "gsutil",
    "gcloud",
    "az",
    "gh",
    "glab",
    "rclone",
    "tee",
    "sudo",
    "doas",
    "env",
    "nice",
    "nohup",
    "timeout",
    "stdbuf",
    "command",
    "exec",
];

/// Whether a pipeline stage may send what the stage before it prints, or keep it to send
/// later: a program in `SENDERS`, or what [`may_consume`] says may use it.
pub fn may_send(stage: Node, src: &str) -> bool {
    may_consume(stage, src) || stage_program(stage, src).is_some_and(|p| SENDERS.contains(&p))
}

/// The program a simple-command stage names as written.
fn stage_program<'s>(stage: Node, src: &'s str) -> Option<&'s str> {
    let command = match kind(stage) {
        "command" => stage,
        "redirected_statement" => stage
            .child_by_field_name("body")
            .filter(|b| kind(*b) == "command")?,
        _ => return None,
    };
    let mut cursor = command.walk();
    let name = command
        .named_children(&mut cursor)
        .find(|c| kind(*c) == "command_name")?;
    Some(basename(text(name, src)))
}

/// Whether a pipeline stage may use what the stage before it prints as words or code: a
/// program in `CONSUMERS`, a name only known at run time, anything but a simple command.
pub fn may_consume(stage: Node, src: &str) -> bool {
    let command = match kind(stage) {
        "command" => stage,
        "redirected_statement" => match stage.child_by_field_name("body") {
            Some(body) if kind(body) == "command" => body,
            _ => return true,
        },
        _ => return true,
    };
    let mut cursor = command.walk();
    let Some(name) = command
        .named_children(&mut cursor)
        .find(|c| kind(*c) == "command_name")
    else {
        return true;
    };
    let written = text(name, src);
    let plain = written
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+'));
    !plain || CONSUMERS.contains(&basename(written))
}

/// Programs whose output `command_output` knows, besides `FILTERS`.
const PRINTERS: &[&str] = &[
    "echo", "printf", "mktemp", "compgen", "pwd", "realpath", "readlink", "dirname", "find", "ls",
    "git", "base64", "base32", "rev", "xargs", "rg", "which", "command", "type",
];

/// Where `which` and its kin find programs: the usual directories of `$PATH`.
const PROGRAM_DIRS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
];

/// Whether a command named as written cannot print anything `command_output` knows: a plain
/// word naming no program it knows. Saves resolving the words of every other command.
fn prints_nothing_known(node: Node, src: &str) -> bool {
    let mut cursor = node.walk();
    let Some(name) = node
        .named_children(&mut cursor)
        .find(|c| kind(*c) == "command_name")
    else {
        return false;
    };
    let written = text(name, src);
    let plain = written
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+'));
    let program = basename(written);
    plain
        && !PRINTERS.contains(&program)
        && !FILTERS.contains(&program)
        && !WRAPPERS.contains(&program)
        && !may_print_secret(program)
        && !secrets::ENVIRONMENT_PRINTERS.contains(&program)
        && !secrets::INTERPRETERS.contains(&program)
        && !computed::PROGRAMS.contains(&program)
}

/// Wrappers whose output is the command's they run: `sudo env` prints the environment.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "command", "builtin", "exec", "nice", "nohup",
];

fn command_output(node: Node, src: &str, env: &Env, input: Option<Alts>) -> Option<Alts> {
    // What a command makes of secret data it reads is secret data still.
    if let Some(secret) = input.as_deref().and_then(secrets::in_alts) {
        return Some(secret_alts(secret));
    }
    if prints_nothing_known(node, src) {
        return None;
    }
    let words = words(node, src, env);
    words_output(&words, env, input)
}

/// What a command of these words prints.
fn words_output(words: &[Word], env: &Env, input: Option<Alts>) -> Option<Alts> {
    let (mut name, mut args) = words.split_first()?;
    // `sudo env`: a wrapper's options, then the command whose output it is.
    while let Some(program) = name.literal().map(basename)
        && WRAPPERS.contains(&program)
        // `command -v NAME` runs nothing: it prints where NAME is.
        && !(program == "command" && args.iter().any(|w| matches!(w.literal(), Some("-v" | "-V"))))
    {
        let at = args
            .iter()
            .position(|w| !w.literal().is_some_and(|t| t.starts_with('-')))?;
        (name, args) = args[at..].split_first()?;
    }
    let name = basename(name.literal()?);
    if let Some(secret) = secrets::environment_printed(name, args, env.sourced)
        .or_else(|| prints_secret(name, args).map(|_| Secret::Credential))
    {
        return Some(secret_alts(secret));
    }
    // `python3 -c 'print(os.environ)'`: an inline program that prints the environment.
    if secrets::INTERPRETERS.contains(&name)
        && let Some(secret) = args
            .iter()
            .filter_map(Word::literal)
            .filter_map(secrets::inline_environment)
            .max()
    {
        return Some(secret_alts(secret));
    }
    // `cat /proc/self/environ`: a process's environment, every variable of it.
    if FILTERS.contains(&name)
        && args
            .iter()
            .filter_map(Word::literal)
            .any(secrets::environ_file)
    {
        return Some(secret_alts(Secret::Dump));
    }
    let operands: Vec<&Word> = args
        .iter()
        .filter(|w| {
            !w.literal()
                .is_some_and(|t| t.starts_with('-') && t.len() > 1)
        })
        .collect();
    match name {
        "echo" => {
            let printed: Vec<&Word> = args
                .iter()
                .skip_while(|w| matches!(w.literal(), Some("-n" | "-e" | "-E" | "-ne" | "-en")))
                .collect();
            alts_of(&printed)
        }
        "printf" => {
            let args = match args.first().and_then(Word::literal) {
                Some("-v") => return None,
                Some("--") => &args[1..],
                _ => args,
            };
            let (format, rest) = args.split_first()?;
            printf(format.literal()?, rest)
        }
        // `mktemp` makes a name in the temporary directory (`-p DIR`/`--tmpdir=DIR` elsewhere).
        "mktemp" => {
            let dir = args.windows(2).find_map(|w| {
                (w[0].literal() == Some("-p"))
                    .then(|| w[1].literal())
                    .flatten()
            });
            let dir = dir.unwrap_or("/tmp");
            Some(vec![vec![Piece::Lit(format!("{dir}/")), Piece::Name]])
        }
        // `compgen -G PATTERN` prints what the pattern matches.
        "compgen" => {
            let pattern = args
                .windows(2)
                .find(|w| w[0].literal() == Some("-G"))
                .map(|w| &w[1])?;
            alts_of(&[pattern])
        }
        // `which NAME`, `command -v NAME`, `type -P NAME`: where the program is installed, in
        // one of the usual directories of `$PATH` (`cp /bin/true "$(which assent)"`).
        "which" | "command" | "type" => {
            let asks = match name {
                "command" => args
                    .iter()
                    .any(|w| matches!(w.literal(), Some("-v" | "-V"))),
                "type" => args
                    .iter()
                    .any(|w| matches!(w.literal(), Some("-p" | "-P" | "-fp" | "-fP"))),
                _ => true,
            };
            let program = operands.first()?.literal()?;
            if !asks || program.contains('/') {
                return None;
            }
            Some(
                PROGRAM_DIRS
                    .iter()
                    .map(|dir| vec![Piece::Lit(format!("{dir}/{program}"))])
                    .collect(),
            )
        }
        "pwd" => Some(vec![vec![match env.cwd {
            Some(cwd) => Piece::Lit(cwd.to_owned()),
            None => Piece::Opaque,
        }]]),
        "realpath" | "readlink" => alts_of(&operands),
        "dirname" => {
            let mut alts = alts_of(&operands)?;
            for alt in &mut alts {
                alt.push(Piece::Lit("/..".to_owned()));
            }
            Some(alts)
        }
        "find" => {
            let starts: Vec<&Word> = args
                .iter()
                .take_while(|w| {
                    !w.literal()
                        .is_some_and(|t| t.starts_with('-') || matches!(t, "(" | "!"))
                })
                .collect();
            let shallow = args
                .windows(2)
                .any(|w| w[0].literal() == Some("-maxdepth") && w[1].literal() == Some("0"));
            let starts = if starts.is_empty() {
                vec![vec![Piece::Lit(".".to_owned())]]
            } else {
                alts_of(&starts)?
            };
            if shallow {
                return Some(starts);
            }
            let mut found = below(starts, Piece::Found);
            // `find . -name '*.o'`: each name printed matches the pattern.
            if let Some(pattern) = only_name(args) {
                for alt in &mut found {
                    alt.push(Piece::Lit("/".to_owned()));
                    alt.extend(pattern_pieces(pattern));
                }
            }
            Some(found)
        }
        "ls" => {
            // `ls DIR` prints names, which a reader then finds relative to its own
            // directory; `ls -d DIR/*` prints the operands themselves.
            let only_dirs = args.iter().any(|w| {
                w.literal()
                    .is_some_and(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('d'))
            });
            if only_dirs {
                return alts_of(&operands);
            }
            let mut alts = vec![vec![Piece::Name]];
            if let Some(listed) = alts_of(&operands) {
                alts.extend(below(listed, Piece::Below));
            }
            Some(alts)
        }
        "git" => {
            let sub = operands.first().and_then(|w| w.literal())?;
            match sub {
                "ls-files" | "diff" | "status" | "grep" => Some(vec![vec![Piece::Name]]),
                "rev-parse" => {
                    computed::output(name, args, env).or(Some(vec![vec![match env.cwd {
                        Some(cwd) => Piece::Lit(cwd.to_owned()),
                        None => Piece::Opaque,
                    }]]))
                }
                _ => None,
            }
        }
        "base64" | "base32"
            if args
                .iter()
                .any(|w| matches!(w.literal(), Some("-d" | "--decode" | "-D"))) =>
        {
            decode(name, input?)
        }
        "rev" if operands.is_empty() => {
            let alts = input?;
            Some(
                alts.into_iter()
                    .map(|alt| match alt.as_slice() {
                        [Piece::Lit(t)] => vec![Piece::Lit(t.chars().rev().collect())],
                        _ => vec![Piece::Opaque],
                    })
                    .collect(),
            )
        }
        "xargs" => {
            // `… | xargs echo` prints what it read.
            let cmd = operands.first().and_then(|w| w.literal())?;
            matches!(cmd, "echo" | "printf").then_some(input?)
        }
        // `grep PATTERN` with no file filters its input.
        "grep" | "egrep" | "fgrep" | "rg"
            if operands.len()
                <= usize::from(
                    !args
                        .iter()
                        .any(|w| matches!(w.literal(), Some("-e" | "-f"))),
                ) =>
        {
            input
        }
        f if FILTERS.contains(&f) && operands.is_empty() => input,
        // Where a toolchain keeps itself (`npm root -g`, `go env GOPATH`).
        n if computed::PROGRAMS.contains(&n) || secrets::INTERPRETERS.contains(&n) => {
            computed::output(n, args, env)
        }
        _ => None,
    }
}

/// What `printf FORMAT ARGS…` prints: `%s` and its kin take the arguments in turn, the format
/// repeats while arguments are left, each line a path.
pub fn printf(format: &str, args: &[Word]) -> Option<Alts> {
    let mut out: Alts = vec![Vec::new()];
    let mut next = 0;
    let mut rounds = 0;
    loop {
        let mut chars = format.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '%' => {
                    // Flags and widths come before the conversion (`%-10s`, `%05d`).
                    while chars.peek().is_some_and(|c| {
                        c.is_ascii_digit() || matches!(c, '-' | '.' | '#' | '+' | ' ')
                    }) {
                        chars.next();
                    }
                    match chars.next() {
                        Some('%') => push_lit(&mut out, "%"),
                        // Conversions other than `%s` change the text (`%x`, `%q`, `%b`):
                        // what is printed is not known exactly.
                        Some('s') => {
                            if let Some(w) = args.get(next) {
                                out = product(out, w.alternatives().as_ref())?;
                                next += 1;
                            }
                        }
                        Some(_) => {
                            if let Some(w) = args.get(next) {
                                let mut alts = w.alternatives().into_owned();
                                for alt in &mut alts {
                                    alt.push(Piece::Name);
                                }
                                out = product(out, &alts)?;
                                next += 1;
                            } else {
                                out = product(out, &[vec![Piece::Name]])?;
                            }
                        }
                        None => push_lit(&mut out, "%"),
                    }
                }
                '\\' => match chars.next() {
                    Some('n') => push_lit(&mut out, "\n"),
                    Some('t') => push_lit(&mut out, "\t"),
                    Some(o) => push_lit(&mut out, &o.to_string()),
                    None => push_lit(&mut out, "\\"),
                },
                c => push_lit(&mut out, &c.to_string()),
            }
        }
        rounds += 1;
        if next >= args.len() || next == 0 || rounds > MAX_ALTS {
            break;
        }
    }
    // Each line is a path on its own.
    let mut lines = Vec::new();
    for alt in out {
        let mut line = Vec::new();
        for piece in alt {
            match piece {
                Piece::Lit(t) if t.contains('\n') => {
                    let mut parts = t.split('\n').peekable();
                    while let Some(part) = parts.next() {
                        if !part.is_empty() {
                            line.push(Piece::Lit(part.to_owned()));
                        }
                        if parts.peek().is_some() && !line.is_empty() {
                            lines.push(std::mem::take(&mut line));
                        }
                    }
                }
                p => line.push(p),
            }
        }
        if !line.is_empty() {
            lines.push(line);
        }
    }
    (!lines.is_empty() && lines.len() <= MAX_ALTS).then_some(lines)
}

fn push_lit(alts: &mut Alts, text: &str) {
    for alt in alts.iter_mut() {
        match alt.last_mut() {
            Some(Piece::Lit(t)) => t.push_str(text),
            _ => alt.push(Piece::Lit(text.to_owned())),
        }
    }
}

/// Every head followed by every tail, unless there would be too many.
fn product(heads: Alts, tails: &[Vec<Piece>]) -> Option<Alts> {
    if heads.len() * tails.len() > MAX_ALTS {
        return None;
    }
    let mut out = Vec::with_capacity(heads.len() * tails.len());
    for h in &heads {
        for t in tails {
            let mut alt = h.clone();
            for p in t {
                match (alt.last_mut(), p) {
                    (Some(Piece::Lit(a)), Piece::Lit(b)) => a.push_str(b),
                    _ => alt.push(p.clone()),
                }
            }
            out.push(alt);
        }
    }
    Some(out)
}

/// Decodes literal base64 or base32 text.
fn decode(name: &str, input: Alts) -> Option<Alts> {
    let mut out = Vec::new();
    for alt in input {
        let [Piece::Lit(text)] = alt.as_slice() else {
            return None;
        };
        let bytes = if name == "base64" {
            super::interp::text::base64(text.trim())?
        } else {
            return None;
        };
        let decoded = String::from_utf8(bytes).ok()?;
        out.push(vec![Piece::Lit(decoded.trim_end_matches('\n').to_owned())]);
    }
    Some(out)
}
