//! A shell's command line read as bash reads it, so that the line the gate checks is the line
//! bash then runs.
//!
//! bash takes its long options first (`--login`, also spelt `-login`; `--rcfile FILE`), then
//! clusters of one-letter options (`-lc`, `+e`), where `o` and `O` each take the next word
//! wherever they sit in the cluster (`-co pipefail CMD`), until `-`, `--` or a word that is
//! not an option. Only then does `-c` take its command: `bash -c -l CMD` runs CMD, as Claude
//! Code calls its shell. An option bash does not know is a usage error here, before anything
//! is checked, as it is to bash.

use std::ffi::OsString;

/// bash's long options (`bash --help`), and whether each takes the next word.
const LONG_OPTIONS: &[(&str, bool)] = &[
    ("debug", false),
    ("debugger", false),
    ("dump-po-strings", false),
    ("dump-strings", false),
    ("help", false),
    ("init-file", true),
    ("login", false),
    ("noediting", false),
    ("noprofile", false),
    ("norc", false),
    ("posix", false),
    ("pretty-print", false),
    ("rcfile", true),
    ("restricted", false),
    ("verbose", false),
    ("version", false),
];

/// bash's one-letter options (`-ilrsD`, `-c`, `-abefhkmnptuvxBCEHPT`; `o` and `O` apart).
const SHORT_OPTIONS: &str = "ilrsDcabefhkmnptuvxBCEHPT";

/// What a shell's arguments ask for.
#[derive(Debug, PartialEq, Eq)]
pub enum Invocation {
    /// `-c COMMAND`: the command string.
    Command(OsString),
    /// A script file, the first word that is not an option.
    Script,
    /// No command and no script: stdin (a terminal, or a script piped in).
    Stdin,
}

/// Reads `args` as bash would; `Err` says which word bash would refuse.
pub fn parse(args: &[OsString]) -> Result<Invocation, String> {
    let mut index = 0;
    // Long options come first; the first word that is not one ends them.
    while let Some(word) = args.get(index).and_then(|w| w.to_str()) {
        let Some(name) = word.strip_prefix("--").or_else(|| word.strip_prefix('-')) else {
            break;
        };
        match LONG_OPTIONS.iter().find(|(long, _)| *long == name) {
            Some((_, takes_word)) => {
                if *takes_word && args.get(index + 1).is_none() {
                    return Err(format!("{word}: option requires an argument"));
                }
                index += 1 + usize::from(*takes_word);
            }
            None if word.starts_with("--") && word.len() > 2 => {
                return Err(format!("{word}: invalid option"));
            }
            None => break,
        }
    }
    let mut wants_command = false;
    while let Some(word) = args.get(index) {
        let text = word.to_string_lossy();
        if !text.starts_with(['-', '+']) {
            break;
        }
        index += 1;
        if text == "-" || text == "--" {
            break;
        }
        let sign = &text[..1];
        for letter in text[1..].chars() {
            match letter {
                'c' => wants_command = true,
                // The option's name (or shopt's) is the next word not yet taken.
                'o' | 'O' if index < args.len() => index += 1,
                'o' | 'O' => {}
                letter if SHORT_OPTIONS.contains(letter) => {}
                letter => return Err(format!("{sign}{letter}: invalid option")),
            }
        }
    }
    if wants_command {
        return match args.get(index) {
            Some(command) => Ok(Invocation::Command(command.clone())),
            None => Err("-c: option requires an argument".to_string()),
        };
    }
    Ok(if index < args.len() {
        Invocation::Script
    } else {
        Invocation::Stdin
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(args: &[&str]) -> Result<Option<String>, String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args).map(|invocation| match invocation {
            Invocation::Command(command) => Some(command.to_string_lossy().into_owned()),
            Invocation::Script => Some("<script>".into()),
            Invocation::Stdin => None,
        })
    }

    /// Each form's command, as bash 5.2 runs it (checked by hand with `echo`).
    #[test]
    fn the_command_is_the_one_bash_runs() {
        for (args, command) in [
            (&["-c", "ls"][..], "ls"),
            // Claude Code calls its shell so; bash still runs the third word.
            (&["-c", "-l", "ls"], "ls"),
            (&["-lc", "ls -la"], "ls -la"),
            (&["-l", "-c", "ls"], "ls"),
            (&["--login", "-e", "-c", "x", "name"], "x"),
            (&["-login", "-c", "x"], "x"),
            (&["-o", "pipefail", "-c", "y"], "y"),
            // `o` takes the next word even inside a cluster.
            (&["-co", "pipefail", "y"], "y"),
            (&["-cO", "extglob", "-o", "errexit", "y"], "y"),
            (&["-ce", "--", "y"], "y"),
            (&["-c", "-", "y"], "y"),
            (&["+c", "y"], "y"),
            (&["--rcfile", "/dev/null", "-c", "y"], "y"),
            (&["-c", "y", "-l"], "y"),
            (&["script.sh"], "<script>"),
            (&["-e", "script.sh", "-c"], "<script>"),
            (&["--", "-c"], "<script>"),
        ] {
            assert_eq!(read(args), Ok(Some(command.to_string())), "{args:?}");
        }
        for args in [&[][..], &["-l"], &["-i"], &["--login", "-s"], &["-o"]] {
            assert_eq!(read(args), Ok(None), "{args:?}");
        }
    }

    #[test]
    fn what_bash_refuses_is_a_usage_error() {
        for args in [
            &["--frobnicate", "-c", "ls"][..],
            &["-Z", "-c", "ls"],
            &["-cZ", "ls"],
            &["+q", "x"],
            // Long options only come first, as bash reads them.
            &["-c", "--norc", "ls"],
            &["-c"],
            &["-c", "--"],
            &["--rcfile"],
        ] {
            assert!(read(args).is_err(), "{args:?}: {:?}", read(args));
        }
    }
}
