//! What git runs from the repository itself: the command-valued keys of its own
//! configuration (`.git/config`: `core.pager`, `core.fsmonitor`, `alias.x = !…`, filters,
//! diff drivers, helpers, …) for any git command, and its hooks (`.git/hooks/`, or
//! `core.hooksPath`) for the commands that run them. The repository is the nearest directory
//! up from the shell's that holds `.git/config`.

use std::ops::Range;
use std::rc::Rc;

use super::{queue_text, text_of};
use crate::analyse::State;
use crate::analyse::catalogue;
use crate::analyse::disk::Read;
use crate::analyse::disk::{Runs, absolute_file, run_file};
use crate::analyse::recurse::Ctx;
use crate::analyse::words::Var;

/// Directories looked at, up from the shell's, for a repository.
const MAX_UP: usize = 16;

/// `git [GLOBAL OPTIONS] COMMAND …` (`None`: a word only known at run time). The variables
/// git reads (`GIT_DIR`, …) are the shell's, a command's own assignments among them.
pub fn runs(words: &[Option<&str>], span: Range<usize>, path: &Rc<str>, at: &Ctx, st: &mut State) {
    let mut dir = st.shell.cwd.as_deref().map(str::to_owned);
    // The repository's own directory and further configuration files, where the line names
    // them: `--git-dir`, `GIT_DIR`, `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`.
    let mut git_dir = variable(st, "GIT_DIR");
    let mut files = Vec::new();
    for name in ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"] {
        files.extend(variable(st, name));
    }
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let Some(w) = *w else {
            // An option only known at run time may name any repository or configuration.
            return unreadable("git's options", &span, st);
        };
        let value = || words.get(i + 1).copied().map(|v| v.map(str::to_owned));
        match w {
            "-C" => {
                let Some(d) = value().flatten() else {
                    return unreadable("git -C", &span, st);
                };
                dir = dir.map(|c| join(&c, &d));
                i += 2;
            }
            "--git-dir" => {
                git_dir = Some(value().flatten());
                i += 2;
            }
            _ if w.starts_with("--git-dir=") => {
                git_dir = Some(Some(w["--git-dir=".len()..].to_owned()));
                i += 1;
            }
            "-c" | "--work-tree" | "--namespace" | "--exec-path" => i += 2,
            w if w.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let (Some(Some(command)), Some(dir)) = (words.get(i).copied(), dir) else {
        return;
    };
    if matches!(command, "version" | "help") {
        return;
    }
    for file in files {
        let Some(file) = file.map(|f| join(&dir, &f)).and_then(absolute_file) else {
            return unreadable("a git configuration file", &span, st);
        };
        if let Some(text) = text_of(&file, &file, &span, st) {
            for (key, value) in Settings::parse(&text).commands(command) {
                queue_text(&value, &format!("{file} {key}"), &span, path, at, st);
            }
        }
    }
    let found = match git_dir {
        Some(Some(git_dir)) => {
            let git_dir = join(&dir, &git_dir);
            let Some(file) = absolute_file(format!("{git_dir}/config")) else {
                return unreadable("git's repository", &span, st);
            };
            text_of(&file, &file, &span, st).map(|t| (dir.clone(), git_dir, t))
        }
        Some(None) => return unreadable("git's repository", &span, st),
        None => repository(&dir, &span, st).map(|(root, config)| {
            let git_dir = format!("{root}/.git");
            (root, git_dir, config)
        }),
    };
    let Some((root, git_dir, config)) = found else {
        return;
    };
    let settings = Settings::parse(&config);
    for (key, value) in settings.commands(command) {
        queue_text(&value, &format!(".git/config {key}"), &span, path, at, st);
    }
    let hooks = match settings.get("core.hookspath") {
        Some(p) => join(&root, &p),
        None => format!("{git_dir}/hooks"),
    };
    for hook in hooks_of(command) {
        if let Some(file) = absolute_file(format!("{hooks}/{hook}")) {
            let shown = format!("the git hook {hook}");
            // A missing hook is the usual case: nothing runs.
            if !matches!(st.disk_file(&file), Read::Missing) {
                run_file(
                    Runs::Shebang,
                    &file,
                    &shown,
                    None,
                    span.clone(),
                    path,
                    at,
                    st,
                );
            }
        }
    }
}

/// A variable git reads, as the shell has it (exported or not: the more read, the safer):
/// `Some(None)` when its value is only known at run time.
fn variable(st: &State, name: &str) -> Option<Option<String>> {
    match st.shell.vars.get(name)? {
        Var::Lit(value) => Some(Some(value.clone())),
        _ => Some(None),
    }
}

/// What git reads is only known at run time: opaque.
fn unreadable(what: &str, span: &Range<usize>, st: &mut State) {
    st.add(catalogue::SHELL_READS.at(span.clone(), &format!("{what}, only known when it runs")));
}

/// The repository `dir` is in: its root and its configuration's text. Every directory up
/// is asked for at once, so one round has them all.
fn repository(dir: &str, span: &Range<usize>, st: &mut State) -> Option<(String, Rc<str>)> {
    let mut at = dir.trim_end_matches('/').to_owned();
    let mut asked = false;
    for _ in 0..MAX_UP {
        if at.is_empty() {
            break;
        }
        let file = absolute_file(format!("{at}/.git/config"))?;
        match st.disk_file(&file) {
            Read::Text(t) if !asked => return Some((at, Rc::from(&*t))),
            Read::Missing => {}
            Read::Asked | Read::Text(_) => asked = true,
            Read::Binary | Read::Unread(_) => {
                text_of(&file, ".git/config", span, st);
                return None;
            }
        }
        match at.rfind('/') {
            Some(i) => at.truncate(i),
            None => break,
        }
    }
    None
}

fn join(dir: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        rel.trim_end_matches('/').to_owned()
    } else {
        format!(
            "{}/{}",
            dir.trim_end_matches('/'),
            rel.trim_end_matches('/')
        )
    }
}

/// The hooks a git command runs.
fn hooks_of(command: &str) -> &'static [&'static str] {
    match command {
        "commit" => &[
            "pre-commit",
            "prepare-commit-msg",
            "commit-msg",
            "post-commit",
            "post-rewrite",
        ],
        "merge" | "pull" => &[
            "pre-merge-commit",
            "prepare-commit-msg",
            "commit-msg",
            "post-merge",
        ],
        "push" => &["pre-push", "reference-transaction"],
        "checkout" | "switch" | "clone" | "worktree" => &["post-checkout"],
        "rebase" => &["pre-rebase", "post-rewrite", "post-checkout"],
        "am" => &["applypatch-msg", "pre-applypatch", "post-applypatch"],
        "gc" => &["pre-auto-gc"],
        "cherry-pick" | "revert" => &["prepare-commit-msg", "commit-msg", "post-commit"],
        _ => &[],
    }
}

/// A git configuration file's keys, lower-cased as git compares them (`section.sub.key`,
/// the subsection kept as written).
struct Settings(Vec<(String, String)>);

impl Settings {
    fn parse(text: &str) -> Settings {
        let mut out = Vec::new();
        let mut section = String::new();
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with(['#', ';']) || line.is_empty() {
                continue;
            }
            if let Some(head) = line.strip_prefix('[') {
                let head = head.split(']').next().unwrap_or("");
                section = match head.split_once(' ') {
                    Some((s, sub)) => {
                        format!("{}.{}", s.to_lowercase(), sub.trim().trim_matches('"'))
                    }
                    None => head.to_lowercase(),
                };
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((k, v)) => (k.trim(), v.trim()),
                None => (line, "true"),
            };
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(value);
            out.push((
                format!("{section}.{}", key.to_lowercase()),
                value.to_owned(),
            ));
        }
        Settings(out)
    }

    fn get(&self, key: &str) -> Option<String> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    /// The keys whose values git runs as shell commands, and those values: every one of them,
    /// whatever `command` is (a pager, a filter or a helper runs behind most commands).
    fn commands(&self, command: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (key, value) in &self.0 {
            let last = key.rsplit('.').next().unwrap_or("");
            let first = key.split('.').next().unwrap_or("");
            let runs = match first {
                "core" => {
                    matches!(
                        last,
                        "pager" | "editor" | "sshcommand" | "askpass" | "gitproxy"
                    ) || (last == "fsmonitor" && !matches!(value.as_str(), "true" | "false"))
                }
                "alias" => {
                    value.starts_with('!') && key == &format!("alias.{}", command.to_lowercase())
                }
                "diff" | "merge" => matches!(last, "textconv" | "command" | "driver" | "external"),
                "filter" => matches!(last, "clean" | "smudge" | "process"),
                "credential" => last == "helper" && value.starts_with('!'),
                "pager" | "sequence" => true,
                "gpg" | "interactive" | "uploadpack" | "sendemail" => {
                    matches!(
                        last,
                        "program"
                            | "difffilter"
                            | "packobjectshook"
                            | "sendmailcmd"
                            | "tocmd"
                            | "cccmd"
                    )
                }
                _ => false,
            };
            if runs {
                let text = value.trim_start_matches('!').to_owned();
                out.push((key.clone(), text));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_valued_keys() {
        let s = Settings::parse(
            "[core]\n\tpager = sh -c 'rm -rf ~'\n\tfsmonitor = true\n[alias]\n\tst = !rm -rf ~\n\tco = checkout\n[filter \"lfs\"]\n\tsmudge = git-lfs smudge %f\n",
        );
        let keys: Vec<String> = s.commands("st").into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["core.pager", "alias.st", "filter.lfs.smudge"]);
        let keys: Vec<String> = s.commands("status").into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["core.pager", "filter.lfs.smudge"]);
    }
}
