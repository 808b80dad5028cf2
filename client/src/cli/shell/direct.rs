//! A line bash would only start one program for, started without bash.
//!
//! `bash -c 'cargo test --lib'` parses the line, finds `cargo` on `PATH` and executes it with
//! those words: bash's own start-up (a dynamically linked program, its locale, its
//! environment) is about a millisecond on every run a door makes, more than all the gate's
//! own work. For a line that is one simple command of literal words, the door runs the program
//! itself with exactly the words bash would have given it; anything bash would do more with
//! (an expansion, a glob, a redirection, an operator, an assignment, a keyword or builtin, a
//! comment, a program that is not found or is no executable file) goes to bash as before, so
//! the run is what the gate judged either way.

use std::io::Read;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A line's program, ready to start: `command` runs the file found, `name` is the program as
/// the line names it (its `argv[0]`, and the name a message about it uses).
#[derive(Debug)]
pub struct Direct {
    pub command: Command,
    pub name: String,
}

/// The command that runs `line` as `bash -c LINE` would, without bash, when the line is one
/// simple command of literal words whose program is an executable file on `PATH` (or named
/// with a `/`); `None` otherwise.
pub fn command(line: &str) -> Option<Direct> {
    let words = program_words(line)?;
    let (first, rest) = words.split_first()?;
    // Started as bash starts it: the file its `PATH` search found, with the name as typed for
    // `argv[0]` (what the program and its messages call itself). Searching again to start it
    // would cost a failed `execve` per `PATH` entry before the one found.
    let path = find(first)?;
    let mut command = Command::new(path);
    command.arg0(first).args(rest);
    // bash sets `PWD` to the working directory when the one it was given names another (or
    // none): a program that trusts `PWD` over `getcwd` sees what it would have under bash.
    if !pwd_is_here()
        && let Ok(here) = std::env::current_dir()
    {
        command.env("PWD", here);
    }
    Some(Direct {
        command,
        name: first.clone(),
    })
}

/// Whether `line` only runs a program, whatever `PATH` finds: one simple command of literal
/// words whose first is no assignment, reserved word or builtin. Such a line cannot change
/// the directory of the shell that runs it (only `cd`, `pushd`, `popd` and the builtins that
/// run shell code can), whether it is started without bash or by it.
pub fn only_a_program(line: &str) -> bool {
    program_words(line).is_some()
}

/// The words of a line that is one program with literal words (see [`only_a_program`]).
fn program_words(line: &str) -> Option<Vec<String>> {
    let words = literal_words(line)?;
    let first = words.first()?;
    // An assignment, a keyword or builtin; `%…` is a job to bash (`fg %…`), never a program.
    if first.contains('=') || first.starts_with('%') || SHELL_WORDS.contains(&first.as_str()) {
        return None;
    }
    Some(words)
}

/// Whether `PWD` names the working directory (the same file, by device and inode), as bash
/// checks before it keeps it.
fn pwd_is_here() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let Some(pwd) = std::env::var_os("PWD").filter(|pwd| Path::new(pwd).is_absolute()) else {
        return false;
    };
    match (std::fs::metadata(pwd), std::fs::metadata(".")) {
        (Ok(named), Ok(here)) => named.dev() == here.dev() && named.ino() == here.ino(),
        _ => false,
    }
}

/// The words of `line` if every character is literal to bash: unquoted, only letters, digits
/// and `_ . / : = @ % + , -`; in single quotes anything; in double quotes anything but the
/// four bash acts on there (`$`, `` ` ``, `\`, `!`). Words are separated by spaces and tabs; an
/// empty quoted word is a word.
fn literal_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' | '!' => return None,
                        c => word.push(c),
                    }
                }
            }
            c if c.is_ascii_alphanumeric() || "_./:=@%+,-".contains(c) => {
                in_word = true;
                word.push(c);
            }
            _ => return None,
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// bash's reserved words and builtins (bash 5.2, `compgen -k -b`): a line starting with one is
/// bash's to run, even where a program of that name exists (`echo`, `test`, `kill`).
const SHELL_WORDS: &[&str] = &[
    // Reserved words.
    "!",
    "[[",
    "]]",
    "case",
    "coproc",
    "do",
    "done",
    "elif",
    "else",
    "esac",
    "fi",
    "for",
    "function",
    "if",
    "in",
    "select",
    "then",
    "time",
    "until",
    "while",
    "{",
    "}",
    // Builtins.
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// The file bash would execute for `name`: `name` itself when it holds a `/`, else the first
/// executable file of that name along `PATH` (an empty entry is the working directory; with
/// no `PATH`, bash's default and the C library's differ, and an entry starting with `~` bash
/// expands: bash runs those). Only a file that looks like one the kernel runs itself, an ELF
/// binary or a `#!` script: bash runs any other file as a bash script, which is bash's to do;
/// one the kernel refuses after all goes to bash too (the callers' `or_bash`).
fn find(name: &str) -> Option<PathBuf> {
    let found = if name.contains('/') {
        Some(PathBuf::from(name)).filter(|path| executable(path))
    } else {
        let path = std::env::var_os("PATH")?;
        // bash expands a `~` that starts a `PATH` entry (`PATH="~/bin:$PATH"`, quoted by
        // mistake): such a search is bash's to make.
        if std::env::split_paths(&path)
            .any(|dir| dir.as_os_str().as_encoded_bytes().starts_with(b"~"))
        {
            return None;
        }
        std::env::split_paths(&path)
            .map(|dir| {
                if dir.as_os_str().is_empty() {
                    PathBuf::from(".").join(name)
                } else {
                    dir.join(name)
                }
            })
            .find(|candidate| executable(candidate))
    }?;
    runs_itself(&found).then_some(found)
}

/// A regular file (through links) this process may execute.
fn executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file())
        && nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_ok()
}

/// Whether the kernel executes `path` itself: an ELF binary, or a script with a `#!` line.
fn runs_itself(path: &Path) -> bool {
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut head))
        .is_ok_and(|()| head == *b"\x7fELF" || head.starts_with(b"#!"))
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    fn words(line: &str) -> Option<Vec<String>> {
        literal_words(line)
    }

    #[test]
    fn literal_words_are_read_as_bash_reads_them() {
        let cases: &[(&str, &[&str])] = &[
            ("ls -la", &["ls", "-la"]),
            ("  cargo\ttest  --lib ", &["cargo", "test", "--lib"]),
            ("grep -rn 'a b' src/", &["grep", "-rn", "a b", "src/"]),
            (
                "grep -n \"fn main\" src/main.rs",
                &["grep", "-n", "fn main", "src/main.rs"],
            ),
            (
                "git log --format=%h,%an -3",
                &["git", "log", "--format=%h,%an", "-3"],
            ),
            ("echo ''", &["echo", ""]),
            ("a'b'\"c\"d", &["abcd"]),
            ("printf '$HOME *'", &["printf", "$HOME *"]),
            ("", &[]),
        ];
        for (line, expected) in cases {
            assert_eq!(
                words(line).as_deref(),
                Some(*expected)
                    .map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                    .as_deref(),
                "{line:?}"
            );
        }
    }

    #[test]
    fn anything_bash_would_act_on_is_left_to_bash() {
        for line in [
            "ls *.rs",
            "ls ~",
            "ls src/{a,b}",
            "cat a > b",
            "cat < a",
            "a && b",
            "a; b",
            "a | b",
            "a &",
            "echo $HOME",
            "echo \"$HOME\"",
            "echo \"`id`\"",
            "echo \"a\\\"b\"",
            "echo $(id)",
            "ls # comment",
            "ls\nrm x",
            "echo 'unterminated",
            "echo \"unterminated",
            "ls [ab]",
            "ls a?",
            "echo a\\ b",
            "(ls)",
            "ls é",
        ] {
            assert_eq!(words(line), None, "{line:?}");
        }
    }

    #[test]
    fn only_a_program_found_on_the_path_runs_without_bash() {
        assert!(command("ls -la").is_some(), "ls is an ELF binary on PATH");
        for line in [
            "cd /tmp",
            "echo hi",
            "test -f x",
            "FOO=1 ls",
            "time ls",
            "if",
            "no-such-program-anywhere -x",
            "./no-such-file",
            "",
            "/etc/passwd",
            "%ls",
            "%1",
        ] {
            assert!(command(line).is_none(), "{line:?}");
        }
    }

    #[test]
    fn a_line_that_only_runs_a_program_is_told_from_one_that_may_move_the_shell() {
        for line in [
            "ls -la",
            "cargo test --lib",
            "no-such-program-anywhere 'a b'",
        ] {
            assert!(only_a_program(line), "{line:?}");
        }
        for line in [
            "%1",
            "cd /tmp",
            "pushd /tmp",
            "popd",
            "source x",
            ". x",
            "eval cd",
            "exec ls",
            "builtin cd /",
            "command cd /",
            "cd /tmp && ls",
            "X=1 ls",
            "ls; cd /",
            "",
        ] {
            assert!(!only_a_program(line), "{line:?}");
        }
    }

    #[test]
    fn the_program_gets_the_words_as_typed() {
        let Direct { command, name } = command("ls -la 'a b'").expect("ls is on PATH");
        assert_eq!(name, "ls", "argv[0] as typed");
        let program = Path::new(command.get_program());
        assert!(
            program.is_absolute() && program.ends_with("ls"),
            "started by the file the search found: {program:?}"
        );
        let args: Vec<&OsStr> = command.get_args().collect();
        assert_eq!(args, [OsStr::new("-la"), OsStr::new("a b")]);
    }
}
