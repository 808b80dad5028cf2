//! The hot paths without clap: `assent [--socket S] check [FLAGS] -- COMMAND...` (the shell
//! hook and agents' shells), `assent [--socket S] hook ...` handed to the hook's own reader, and
//! `assent [--socket S] sh --grant ...` (the line an agent's hook rewrote, which runs right after
//! the hook) handed to the grant's own reader.
//!
//! Every gated line starts a client, and building clap's command tree is a measurable part of
//! that start. This reader accepts only the exact forms the shell hook and agents use; anything
//! else (help, a typo, an unknown flag, a missing `--`) returns `None` and clap parses the
//! arguments as usual, so errors and `--help` read the same either way.

use std::ffi::OsString;
use std::path::PathBuf;

use super::OriginArg;
use super::check::{CheckArgs, RequestArgs};

/// `Some((socket, args))` when `argv` (without the program name) is a plain check.
pub fn parse_check(argv: &[OsString]) -> Option<(Option<PathBuf>, CheckArgs)> {
    let mut words = argv.iter().map(|a| a.to_str());
    let mut socket = None;
    let mut word = words.next()??;
    if word == "--socket" {
        socket = Some(PathBuf::from(words.next()??));
        word = words.next()??;
    }
    if word != "check" {
        return None;
    }
    let mut request = RequestArgs {
        origin: OriginArg::Agent,
        session: None,
        cwd: None,
    };
    let (mut no_wait, mut json) = (false, false);
    loop {
        match words.next()?? {
            "--" => break,
            "--origin" => {
                request.origin = match words.next()?? {
                    "agent" => OriginArg::Agent,
                    "interactive" => OriginArg::Interactive,
                    _ => return None,
                }
            }
            "--session" => request.session = Some(words.next()??.to_string()),
            "--cwd" => request.cwd = Some(PathBuf::from(words.next()??)),
            "--socket" => socket = Some(PathBuf::from(words.next()??)),
            "--no-wait" => no_wait = true,
            "--json" => json = true,
            _ => return None,
        }
    }
    // The command's words as text: bytes that are not UTF-8 become U+FFFD rather than an error,
    // so such a line is still checked (an error here would let the shell hook run it unchecked).
    let index = argv.len() - words.count();
    let command: Vec<String> = argv[index..]
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    if command.is_empty() {
        return None;
    }
    Some((socket, CheckArgs::new(request, no_wait, json, command)))
}

/// `Some((socket, rest))` when `argv` is `[--socket S] hook REST...`: the hook parses REST
/// itself, and a usage error there must still block the call, so nothing here can fail.
pub fn split_hook(argv: &[OsString]) -> Option<(Option<PathBuf>, Vec<OsString>)> {
    let (socket, rest) = split_socket(argv)?;
    (rest.first()?.to_str()? == "hook").then(|| (socket, rest[1..].to_vec()))
}

/// `Some((socket, rest))` when `argv` is `[--socket S] sh --grant REST...`: the grant's reader
/// parses `--grant REST...` itself, and refuses to run anything on a usage error.
pub fn split_grant(argv: &[OsString]) -> Option<(Option<PathBuf>, Vec<OsString>)> {
    let (socket, rest) = split_socket(argv)?;
    (rest.first()?.to_str()? == "sh" && rest.get(1)?.to_str()? == "--grant")
        .then(|| (socket, rest[1..].to_vec()))
}

/// A leading `--socket S`, and the words after it.
fn split_socket(argv: &[OsString]) -> Option<(Option<PathBuf>, &[OsString])> {
    Some(match argv.first()?.to_str()? {
        "--socket" => (Some(PathBuf::from(argv.get(1)?)), argv.get(2..)?),
        _ => (None, argv),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Option<(Option<PathBuf>, CheckArgs)> {
        let argv: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse_check(&argv)
    }

    #[test]
    fn a_command_that_is_not_utf8_is_still_checked() {
        use std::os::unix::ffi::OsStringExt as _;
        let argv = vec![
            OsString::from("check"),
            OsString::from("--"),
            OsString::from_vec(b"rm -rf /\xff".to_vec()),
        ];
        let (_, args) = parse_check(&argv).expect("read without clap");
        assert!(
            format!("{args:?}").contains("rm -rf /\u{fffd}"),
            "the bad byte becomes U+FFFD: {args:?}"
        );
    }

    #[test]
    fn the_hooks_forms_are_read_without_clap() {
        let (socket, args) = parse(&[
            "--socket",
            "/s",
            "check",
            "--origin",
            "interactive",
            "--session",
            "bash-1",
            "--cwd",
            "/w",
            "--",
            "ls -la",
        ])
        .expect("the hook's form");
        assert_eq!(socket, Some(PathBuf::from("/s")));
        assert_eq!(
            format!("{args:?}"),
            format!(
                "{:?}",
                CheckArgs::new(
                    RequestArgs {
                        origin: OriginArg::Interactive,
                        session: Some("bash-1".into()),
                        cwd: Some(PathBuf::from("/w")),
                    },
                    false,
                    false,
                    vec!["ls -la".into()],
                )
            )
        );
        assert!(parse(&["check", "--no-wait", "--json", "--", "rm", "-rf", "x"]).is_some());
    }

    #[test]
    fn anything_else_goes_to_clap() {
        for args in [
            &["check", "ls"][..],
            &["check", "--help"],
            &["check", "--"],
            &["check", "--origin", "robot", "--", "ls"],
            &["check", "--bogus", "--", "ls"],
            &["explain", "--", "ls"],
            &["--socket"],
            &[],
        ] {
            assert!(parse(args).is_none(), "{args:?}");
        }
    }

    #[test]
    fn a_hook_is_handed_its_own_words() {
        let words = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            split_hook(&words(&["hook", "claude-code", "--timeout", "5"])),
            Some((None, words(&["claude-code", "--timeout", "5"])))
        );
        assert_eq!(
            split_hook(&words(&["--socket", "/s", "hook", "--help"])),
            Some((Some(PathBuf::from("/s")), words(&["--help"])))
        );
        assert_eq!(split_hook(&words(&["hook"])), Some((None, Vec::new())));
        for args in [
            &["check", "--", "hook"][..],
            &["--socket"],
            &["--socket", "/s"],
            &[],
        ] {
            assert_eq!(split_hook(&words(args)), None, "{args:?}");
        }
    }

    #[test]
    fn a_granted_line_is_handed_to_the_grants_reader() {
        let words = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            split_grant(&words(&[
                "--socket", "/s", "sh", "--grant", "pg_1", "--dir-fd", "3", "-c", "ls"
            ])),
            Some((
                Some(PathBuf::from("/s")),
                words(&["--grant", "pg_1", "--dir-fd", "3", "-c", "ls"])
            ))
        );
        assert_eq!(
            split_grant(&words(&["sh", "--grant"])),
            Some((None, words(&["--grant"])))
        );
        // Every other `sh` (and anything else) is clap's.
        for args in [
            &["sh", "-c", "ls"][..],
            &["sh", "--help"],
            &["sh"],
            &["check", "--", "sh", "--grant"],
            &["--socket", "/s"],
            &[],
        ] {
            assert_eq!(split_grant(&words(args)), None, "{args:?}");
        }
    }
}
