//! `assent setup --check`: whether each installed hook will gate, one line and one verdict a
//! target, and whether the gate answers.
//!
//! "Installed" is not enough: a hook the agent calls for some tools only, one it kills before
//! a held call is answered (it then runs the command), one whose program `cargo clean` removes,
//! or a Codex hook Codex does not trust yet (it then skips it without a word) each leave the
//! agent ungated while the settings look right. Each of those is a failed check with what to
//! do. A bare `--check` grades what is installed and says which targets are not; it fails
//! only when something installed will not gate, the gate does not answer, or nothing is
//! installed at all.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assent_client::protocol::{Request, Response};

use super::{SetupArgs, Target, codex_trust, edit, grade, place, read};
use crate::cli::exit;

/// One target's grade.
enum Graded {
    /// Not installed there.
    Absent(String),
    /// Installed and will gate.
    Good(String),
    /// Installed (or meant to be) and will not gate, with why and what to do.
    Bad(String),
}

/// `assent setup --check [TARGET]`.
pub fn check(socket: Option<PathBuf>, args: &SetupArgs) -> u8 {
    let named = args.target;
    let targets: Vec<Target> = named.map_or_else(|| Target::ALL.to_vec(), |t| vec![t]);
    let mut all_ok = true;
    let mut installed = 0;
    // The gate first: its hold TTL is what each agent's timeout must exceed.
    let (gate_ok, gate_line, hold_secs) = gate(socket);
    let mut out = std::io::stdout().lock();
    for target in targets {
        let line = match check_one(target, args, hold_secs) {
            Graded::Good(line) => {
                installed += 1;
                line
            }
            Graded::Bad(line) => {
                installed += 1;
                all_ok = false;
                line
            }
            // A target the user named must be there; the others are only reported.
            Graded::Absent(line) => {
                all_ok &= named.is_none();
                line
            }
        };
        let _ = writeln!(out, "{:<12} {line}", target.name());
    }
    if named.is_none() && installed == 0 {
        all_ok = false;
        let _ = writeln!(
            out,
            "{:<12} no hook is installed: run `assent setup AGENT`",
            "setup"
        );
    }
    all_ok &= gate_ok;
    let _ = writeln!(out, "{:<12} {gate_line}", "gate");
    if all_ok { exit::ALLOW } else { exit::DENY }
}

/// Whether one target's hook is installed and will gate, against a hold of `hold_secs`.
fn check_one(target: Target, args: &SetupArgs, hold_secs: u64) -> Graded {
    let place = match place(target, args) {
        Ok(place) => place,
        Err(why) => return Graded::Bad(why),
    };
    let file = &place.file;
    let text = match read(file) {
        Ok(text) => text,
        Err(why) => return Graded::Bad(why),
    };
    let fix = format!("run `assent setup {}`", target.name());
    let Some(hook) = target.hook("assent", false, None) else {
        return match rc_program(&text) {
            None => Graded::Absent(format!("not installed in {}: {fix}", file.display())),
            Some(program) => grade_program(&program, file, &fix).map_or_else(Graded::Bad, |()| {
                Graded::Good(format!("installed in {} ({program})", file.display()))
            }),
        };
    };
    let entry = match edit::installed_entry(&text, &hook) {
        Ok(Some(entry)) => entry,
        Ok(None) => {
            return Graded::Absent(format!("not installed in {}: {fix}", file.display()));
        }
        Err(why) => return Graded::Bad(format!("{} does not parse: {why}", file.display())),
    };
    let at = file.display();
    if let Some(config) = &place.codex_config
        && !read(config).is_ok_and(|t| edit::codex_hooks_on(&t))
    {
        return Graded::Bad(format!(
            "installed in {at}, but hooks are not switched on in {}: {fix}",
            config.display()
        ));
    }
    let program = shell_words::split(&entry.command)
        .ok()
        .and_then(|words| words.into_iter().next())
        .unwrap_or_default();
    if let Err(why) = grade_program(&program, file, &fix) {
        return Graded::Bad(why);
    }
    let missing = grade::missing_tools(entry.matcher.as_deref(), grade::gated_tools(target.name()));
    if !missing.is_empty() {
        return Graded::Bad(format!(
            "installed in {at}, but its matcher {:?} does not send {} to the hook (they run ungated): {fix}",
            entry.matcher.as_deref().unwrap_or(""),
            missing.join(", ")
        ));
    }
    let secs = grade::timeout_secs(target.name(), entry.timeout);
    if secs <= hold_secs {
        return Graded::Bad(format!(
            "installed in {at}, but the agent kills the hook after {secs} s, before a held call's {hold_secs} s are up, and then runs the call: {fix}"
        ));
    }
    if let Some(config) = &place.codex_config {
        let trusted = codex_trust_key(file).ok().is_some_and(|path| {
            let key = codex_trust::key(&path, entry.group, entry.entry);
            let hash = codex_trust::hash(entry.matcher.as_deref(), &entry.command, entry.timeout);
            read(config).is_ok_and(|t| codex_trust::trusted_hash(&t, &key) == Some(hash))
        });
        if !trusted {
            return Graded::Bad(format!(
                "installed in {at}, not trusted yet: open /hooks in Codex (or {fix}, which records the trust as /hooks does); until then Codex skips it"
            ));
        }
    }
    Graded::Good(format!("installed in {at} ({})", entry.command))
}

/// Whether the program a hook runs is there and will stay: absolute, executable, and not a
/// build product.
fn grade_program(program: &str, file: &Path, fix: &str) -> Result<(), String> {
    let at = file.display();
    if !program.starts_with('/') {
        return Err(format!(
            "installed in {at}, but runs {program:?}, not an absolute path: {fix}"
        ));
    }
    if !is_executable(Path::new(program)) {
        return Err(format!(
            "installed in {at}, but {program} is not an executable: {fix}"
        ));
    }
    if grade::in_build_tree(program) {
        return Err(format!(
            "installed in {at}, but {program} is a build product (`cargo clean` removes it, and the hook with it): {}",
            better_assent(fix)
        ));
    }
    Ok(())
}

/// What to do instead of a build product: the installed `assent` to name, or installing one.
pub fn better_assent(fix: &str) -> String {
    match installed_assent() {
        Some(path) => format!("{fix} --assent {}", path.display()),
        None => format!("install assent (`cargo install --path client`), then {fix} with it"),
    }
}

/// An `assent` on `PATH` (or in the usual places) that is not a build product.
pub fn installed_assent() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/local/bin", "/usr/bin"].map(PathBuf::from))
        .map(|dir| dir.join("assent"))
        .filter(|p| is_executable(p))
        .filter_map(|p| p.canonicalize().ok())
        .find(|p| p.to_str().is_some_and(|s| !grade::in_build_tree(s)))
}

/// The program our block in a shell's start-up file runs, if the block is there.
fn rc_program(text: &str) -> Option<String> {
    if !edit::installed_rc(text) {
        return None;
    }
    let line = text
        .lines()
        .find(|l| l.contains(" init ") && l.contains("eval"))?;
    let inner = line.split("$(").nth(1)?;
    let words = shell_words::split(inner.split(" init ").next()?).ok()?;
    words.into_iter().next()
}

/// The path Codex keys its trust in `hooks_json` by: its own absolute path, with `CODEX_HOME`
/// resolved as Codex resolves it (canonicalised; `~/.codex` is taken as it is).
pub fn codex_trust_key(hooks_json: &Path) -> Result<String, String> {
    let absolute = std::path::absolute(hooks_json).map_err(|e| e.to_string())?;
    let resolved = match (absolute.parent(), std::env::var_os("CODEX_HOME")) {
        (Some(dir), Some(home)) if !home.is_empty() && Path::new(&home) == dir => dir
            .canonicalize()
            .map(|d| d.join("hooks.json"))
            .unwrap_or(absolute),
        _ => absolute,
    };
    resolved
        .to_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{} is not valid UTF-8", resolved.display()))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether the gate answers, what to say of it, and how long it holds a call (its own hold
/// TTL; the default one when it does not answer).
fn gate(socket: Option<PathBuf>) -> (bool, String, u64) {
    let default = grade::HOLD_SECS;
    let path = match assent_client::paths::resolve_socket(socket.as_deref()) {
        Ok(path) => path,
        Err(error) => return (false, error.to_string(), default),
    };
    let answered =
        assent_client::Connection::connect(&path).and_then(|mut c| c.request(&Request::Status));
    match answered {
        Ok(Response::Status(status)) => (
            true,
            format!(
                "reachable at {} (assentd {}, {} mode, holds {} s)",
                path.display(),
                status.version,
                status.mode,
                status.hold_ttl_secs
            ),
            status.hold_ttl_secs,
        ),
        Ok(other) => (
            false,
            format!("unexpected reply from {}: {other:?}", path.display()),
            default,
        ),
        Err(error) => (false, format!("not reachable: {error}"), default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rc_block_names_its_program() {
        let block = edit::rc_block("/usr/bin/assent", "bash");
        assert_eq!(
            rc_program(&format!("alias ll='ls -l'\n{block}")).as_deref(),
            Some("/usr/bin/assent")
        );
        assert_eq!(rc_program("alias ll='ls -l'\n"), None);
    }
}
