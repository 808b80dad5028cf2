//! The project's own files that a command runs: the `scripts` of `package.json` that `npm`,
//! `pnpm` and `yarn` run, the recipes of the targets `make` would build, a repository's git
//! hooks and command-valued git settings, `.envrc` for direnv, the services of a compose
//! file. Each is read from the disk
//! (`disk_file`) and its commands queued as the line's own, told as the file's.

use std::rc::Rc;

use super::{Read, Runs, absolute_file, run_file, run_shell_text};
use crate::analyse::State;
use crate::analyse::catalogue;
use crate::analyse::recurse::Ctx;
use crate::analyse::words::Word;

mod compose;
mod git;
mod make;

/// Judges what `name ARGS` runs from the project's files, if it runs any.
pub fn runs(
    name: &str,
    args: &[Word],
    span: std::ops::Range<usize>,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    if name == "git" {
        // Words only known at run time stand in as themselves: a commit message is one, and
        // the hooks still run.
        let words: Vec<Option<&str>> = args.iter().map(Word::literal).collect();
        return git::runs(&words, span, path, at, st);
    }
    let Some(words) = args
        .iter()
        .map(Word::literal)
        .collect::<Option<Vec<&str>>>()
    else {
        return;
    };
    match name {
        "npm" | "pnpm" | "yarn" => package_scripts(name, &words, span, path, at, st),
        // `node --run SCRIPT`: the script of `package.json`, as `npm run` runs it.
        "node" | "nodejs" => {
            if let Some(at_run) = words.iter().position(|w| *w == "--run")
                && let Some(script) = words.get(at_run + 1)
            {
                package_scripts("npm", &["run", script], span, path, at, st);
            }
        }
        "make" | "gmake" => make::recipes(&words, span, path, at, st),
        "docker-compose" | "podman-compose" => compose::services(&words, span, path, at, st),
        "docker" | "podman" | "nerdctl"
            if words.iter().find(|w| !w.starts_with('-')) == Some(&"compose") =>
        {
            compose::services(&words, span, path, at, st);
        }
        "direnv"
            if matches!(
                words.first(),
                Some(&("allow" | "exec" | "reload" | "permit"))
            ) =>
        {
            let dir = match words.as_slice() {
                ["exec", dir, ..] => Some(*dir),
                _ => None,
            };
            if let Some(file) = in_dir(st, dir, ".envrc") {
                run_file(Runs::Shell, &file, ".envrc", None, span, path, at, st);
            }
        }
        _ => {}
    }
}

/// `dir/name`, absolute, `dir` relative to the shell's directory (`None`: the directory itself).
fn in_dir(st: &State, dir: Option<&str>, name: &str) -> Option<String> {
    let cwd = st.shell.cwd.as_deref()?;
    let base = match dir {
        Some(d) if d.starts_with('/') => d.trim_end_matches('/').to_owned(),
        Some(d) => format!("{}/{}", cwd.trim_end_matches('/'), d.trim_end_matches('/')),
        None => cwd.trim_end_matches('/').to_owned(),
    };
    absolute_file(format!("{base}/{name}"))
}

/// The file's text, or `None` after saying why it could not be read; a missing file runs
/// nothing.
fn text_of(
    file: &str,
    shown: &str,
    span: &std::ops::Range<usize>,
    st: &mut State,
) -> Option<Rc<str>> {
    match st.disk_file(file) {
        Read::Text(t) => Some(Rc::from(&*t)),
        Read::Missing | Read::Asked => None,
        Read::Binary => {
            st.add(catalogue::CODE_UNREAD.at(span.clone(), &format!("`{shown}` (not text)")));
            None
        }
        Read::Unread(why) => {
            let what = format!("`{shown}` (not read: {why})");
            st.add(catalogue::CODE_UNREAD.at(span.clone(), &what));
            None
        }
    }
}

/// `npm test`, `npm run build`, `yarn start`, `pnpm lint`: the script and its `pre` and
/// `post` scripts from `package.json`, as shell.
fn package_scripts(
    name: &str,
    words: &[&str],
    span: std::ops::Range<usize>,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    let script = match (name, words.as_slice()) {
        (_, ["run" | "run-script" | "rum" | "urn", script, ..]) => *script,
        (_, ["test" | "t" | "tst", ..]) => "test",
        (_, ["start" | "stop" | "restart", ..]) => words[0],
        // `yarn build`, `pnpm lint`: a name that is not their own command is a script.
        ("yarn" | "pnpm", [script, ..]) if !manager_command(script) => *script,
        _ => return,
    };
    let Some(file) = in_dir(st, None, "package.json") else {
        return;
    };
    let Some(text) = text_of(&file, "package.json", &span, st) else {
        return;
    };
    let scripts = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => v.get("scripts").cloned(),
        Err(_) => {
            let what = "`package.json` (not valid JSON)";
            st.add(catalogue::CODE_UNREAD.at(span, what));
            return;
        }
    };
    let Some(scripts) = scripts else { return };
    for key in [
        format!("pre{script}"),
        script.to_owned(),
        format!("post{script}"),
    ] {
        if let Some(body) = scripts.get(&key) {
            let shown = format!("package.json scripts.{key}");
            match body.as_str() {
                Some(body) => {
                    let shell = st.shell.clone();
                    run_shell_text(body, &shown, shell, span.clone(), path, at, st);
                }
                None => st.add(catalogue::CODE_UNREAD.at(span.clone(), &format!("`{shown}`"))),
            }
        }
    }
}

/// The commands of yarn and pnpm themselves, which a script of the same name does not shadow.
fn manager_command(word: &str) -> bool {
    const OWN: &[&str] = &[
        "add",
        "audit",
        "bin",
        "cache",
        "config",
        "create",
        "dedupe",
        "dlx",
        "exec",
        "help",
        "import",
        "info",
        "init",
        "install",
        "i",
        "link",
        "list",
        "ls",
        "outdated",
        "pack",
        "publish",
        "remove",
        "rm",
        "unlink",
        "up",
        "update",
        "upgrade",
        "why",
        "workspace",
        "workspaces",
        "x",
        "env",
        "store",
        "fetch",
        "patch",
        "prune",
        "rebuild",
        "root",
        "version",
        "versions",
        "login",
        "logout",
        "owner",
        "tag",
        "team",
        "global",
        "node",
        "policies",
        "set",
        "plugin",
        "constraints",
        "explain",
        "npm",
        "search",
        "setup",
    ];
    OWN.contains(&word)
}

/// Shell text found in a file read for the line, queued with the name it is told by.
fn queue_text(
    text: &str,
    shown: &str,
    span: &std::ops::Range<usize>,
    path: &Rc<str>,
    at: &Ctx,
    st: &mut State,
) {
    let shell = st.shell.clone();
    run_shell_text(text, shown, shell, span.clone(), path, at, st);
}
