//! `assent setup`: put the gate's hook into an agent's settings or a shell's start-up file,
//! take it out again, or check that it is there and the gate answers.
//!
//! It merges into what is there ([`edit`]): nothing else in the file changes, running it twice
//! changes nothing, and before its first change to a file it keeps the original beside it as
//! `FILE.assent-backup` (an existing backup is never overwritten). Files are replaced whole:
//! written to a temporary file in the same directory, synced, renamed over the original with its
//! mode. A file that does not parse is left alone, with the reason.

mod check;
mod codex_trust;
mod edit;
mod grade;

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::{exit, messages};
use edit::Hook;

/// Where Claude Code's managed settings live on Linux: the agent cannot edit them.
const CLAUDE_MANAGED: &str = "/etc/claude-code/managed-settings.json";
/// Gemini CLI's system settings on Linux, which override the user's.
const GEMINI_SYSTEM: &str = "/etc/gemini-cli/settings.json";

/// `assent setup`.
#[derive(Debug, Args)]
pub struct SetupArgs {
    /// What to set up: an agent's hook, or the shell hook in your start-up file. With --check
    /// and no target, every one is checked.
    #[arg(value_enum, required_unless_present = "check")]
    target: Option<Target>,
    /// The project's settings in DIR (`DIR/.claude/settings.json`, `DIR/.codex/`,
    /// `DIR/.gemini/settings.json`) instead of your own.
    #[arg(long, value_name = "DIR", conflicts_with = "managed")]
    project: Option<PathBuf>,
    /// The machine's settings, which the agent cannot edit (Claude Code's
    /// /etc/claude-code/managed-settings.json, Gemini CLI's /etc/gemini-cli/settings.json;
    /// needs root).
    #[arg(long)]
    managed: bool,
    /// Take the hook out again (the rest of the file stays as it is).
    #[arg(long, conflicts_with = "check")]
    uninstall: bool,
    /// Say whether each hook is installed and will gate (its matcher takes the shell and file
    /// tools, the agent waits longer than a hold, its program is not a build product, Codex
    /// trusts it) and the gate answers; change nothing. Exit 0 when all is well, 1 when not.
    /// Without a target, what is installed is graded and the rest listed.
    #[arg(long)]
    check: bool,
    /// Claude Code only: the hook says nothing when the gate allows, so Claude's own
    /// permission rules still ask before a call they would ask about; denied and held calls
    /// are answered as without it.
    #[arg(long, conflicts_with_all = ["check", "uninstall"])]
    defer: bool,
    /// The `assent` the hook runs (default: this one, by its absolute path).
    #[arg(long, value_name = "PATH")]
    assent: Option<PathBuf>,
}

/// What `assent setup` knows how to set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// Claude Code's PreToolUse hook.
    ClaudeCode,
    /// Codex's PreToolUse hook (hooks.json) and its hooks switch (config.toml).
    Codex,
    /// Gemini CLI's BeforeTool hook.
    Gemini,
    /// The bash hook, in ~/.bashrc.
    Bash,
    /// The zsh hook, in ~/.zshrc (or $ZDOTDIR/.zshrc).
    Zsh,
}

impl Target {
    const ALL: [Target; 5] = [
        Target::ClaudeCode,
        Target::Codex,
        Target::Gemini,
        Target::Bash,
        Target::Zsh,
    ];

    fn name(self) -> &'static str {
        match self {
            Target::ClaudeCode => "claude-code",
            Target::Codex => "codex",
            Target::Gemini => "gemini",
            Target::Bash => "bash",
            Target::Zsh => "zsh",
        }
    }

    /// The hook entry for an agent, with the timeouts the README explains: the agent's own
    /// above assent's hold TTL (300 s), the hook's own wait in between; `socket` is written
    /// into Gemini CLI's command (see [`hook_socket`]).
    fn hook(self, assent: &str, defer: bool, socket: Option<&str>) -> Option<Hook> {
        let quoted = shell_words::quote(assent).into_owned();
        let defer = if defer { " --defer" } else { "" };
        let socket = socket.map_or_else(String::new, |path| {
            format!(" --socket {}", shell_words::quote(path))
        });
        let (event, matcher, entry, marker, lenient) = match self {
            Target::ClaudeCode => (
                "PreToolUse",
                "*",
                serde_json::json!({"type": "command", "command": format!("{quoted} hook claude-code{defer}"), "timeout": 600}),
                "hook claude-code",
                false,
            ),
            Target::Codex => (
                "PreToolUse",
                "*",
                serde_json::json!({"type": "command", "command": format!("{quoted} hook codex"), "timeout": 600}),
                "hook codex",
                false,
            ),
            Target::Gemini => (
                "BeforeTool",
                ".*",
                serde_json::json!({"name": "assent", "type": "command", "command": format!("{quoted} hook gemini --timeout 590{socket}"), "timeout": 600_000}),
                "hook gemini",
                true,
            ),
            Target::Bash | Target::Zsh => return None,
        };
        Some(Hook {
            event,
            matcher,
            entry,
            marker,
            lenient,
        })
    }
}

/// The files a target lives in.
struct Place {
    /// The settings or start-up file the hook goes in.
    file: PathBuf,
    /// Codex only: the `config.toml` whose `[features] hooks` must be on.
    codex_config: Option<PathBuf>,
}

fn home() -> Result<PathBuf, String> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| "$HOME is not set, so your settings cannot be found".to_string())
}

fn place(target: Target, args: &SetupArgs) -> Result<Place, String> {
    let project = args.project.as_deref();
    let shell = matches!(target, Target::Bash | Target::Zsh);
    if shell && (project.is_some() || args.managed) {
        return Err(format!(
            "--project and --managed are for agents; the {} hook goes in your own start-up file",
            target.name()
        ));
    }
    let place = |file: PathBuf| Place {
        file,
        codex_config: None,
    };
    Ok(match target {
        Target::ClaudeCode if args.managed => place(PathBuf::from(CLAUDE_MANAGED)),
        Target::ClaudeCode => place(match project {
            Some(dir) => dir.join(".claude/settings.json"),
            None => home()?.join(".claude/settings.json"),
        }),
        Target::Gemini if args.managed => place(PathBuf::from(GEMINI_SYSTEM)),
        Target::Gemini => place(match project {
            Some(dir) => dir.join(".gemini/settings.json"),
            None => home()?.join(".gemini/settings.json"),
        }),
        Target::Codex if args.managed => {
            return Err(
                "Codex has no managed settings assent knows of; set it up per user or with --project"
                    .into(),
            );
        }
        Target::Codex => {
            let dir = match project {
                Some(dir) => dir.join(".codex"),
                None => match std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
                    Some(dir) => PathBuf::from(dir),
                    None => home()?.join(".codex"),
                },
            };
            Place {
                file: dir.join("hooks.json"),
                codex_config: Some(dir.join("config.toml")),
            }
        }
        Target::Bash => place(home()?.join(".bashrc")),
        Target::Zsh => place(
            std::env::var_os("ZDOTDIR")
                .filter(|d| !d.is_empty())
                .map_or_else(home, |d| Ok(PathBuf::from(d)))?
                .join(".zshrc"),
        ),
    })
}

/// The absolute path of the `assent` the hook runs.
fn assent_path(args: &SetupArgs) -> Result<String, String> {
    let path = match &args.assent {
        Some(path) => path.clone(),
        None => std::env::current_exe().map_err(|e| {
            format!("could not find this program's own path ({e}); pass --assent PATH")
        })?,
    };
    let path = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    path.to_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{} is not valid UTF-8", path.display()))
}

/// `assent setup`.
pub fn setup(socket: Option<PathBuf>, args: SetupArgs) -> u8 {
    if args.check {
        return check::check(socket, &args);
    }
    let Some(target) = args.target else {
        messages::say("name what to set up: claude-code, codex, gemini, bash or zsh");
        return exit::USAGE;
    };
    if args.defer && target != Target::ClaudeCode {
        messages::say("--defer is for claude-code only: the other agents' hooks cannot defer");
        return exit::USAGE;
    }
    let result = place(target, &args).and_then(|place| {
        let assent = assent_path(&args)?;
        if args.uninstall {
            uninstall(target, &place, &assent)
        } else {
            if grade::in_build_tree(&assent) {
                messages::say(&format!(
                    "warning: {assent} is a build product: `cargo clean` removes it, and the hook then fails; {}",
                    check::better_assent(&format!("run `assent setup {}`", target.name()))
                ));
            }
            let socket = hook_socket(target, &args, socket.as_deref());
            install(target, &place, &assent, args.defer, socket.as_deref())
        }
    });
    match result {
        Ok(lines) => {
            let mut out = std::io::stdout().lock();
            for line in lines {
                let _ = writeln!(out, "{line}");
            }
            exit::ALLOW
        }
        Err(why) => {
            messages::say(&why);
            exit::DENY
        }
    }
}

/// The socket to write into the hook's command: Gemini CLI filters the environment of its
/// hooks (under GitHub Actions, or with its variable redaction on), so its hook would lose
/// `ASSENT_SOCKET` and `XDG_RUNTIME_DIR` and find no gate. The socket this setup resolves, for
/// the user's own settings only (a project's or the machine's settings serve other users, whose
/// sockets differ), and not the system gate's, which the hook finds without them.
fn hook_socket(target: Target, args: &SetupArgs, flag: Option<&Path>) -> Option<String> {
    if target != Target::Gemini || args.managed || args.project.is_some() {
        return None;
    }
    let socket = assent_client::paths::resolve_door_socket(flag).ok()?;
    if socket == Path::new(assent_client::paths::SYSTEM_SOCKET) {
        return None;
    }
    socket.to_str().map(str::to_string)
}

/// A file's text, empty if it does not exist.
fn read(path: &Path) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("could not read {}: {e}", path.display())),
    }
}

fn install(
    target: Target,
    place: &Place,
    assent: &str,
    defer: bool,
    socket: Option<&str>,
) -> Result<Vec<String>, String> {
    let file = &place.file;
    let text = read(file)?;
    let bad = |why: String| format!("{} was left as it is: {why}", file.display());
    let changed = match target.hook(assent, defer, socket) {
        Some(hook) => edit::install_json(&text, &hook).map_err(bad)?,
        None => edit::install_rc(&text, &edit::rc_block(assent, target.name())),
    };
    let mut said = Vec::new();
    match changed {
        Some(new) => {
            if let Some(backup) = write(file, &text, &new)? {
                said.push(format!("kept the original as {}", backup.display()));
            }
            said.push(format!(
                "installed the {} hook in {}",
                target.name(),
                file.display()
            ));
        }
        None => said.push(format!(
            "the {} hook is already installed in {}",
            target.name(),
            file.display()
        )),
    }
    if let Some(config) = &place.codex_config {
        let text = read(config)?;
        let on = edit::codex_features(&text)
            .map_err(|why| format!("{} was left as it is: {why}", config.display()))?;
        if let Some(new) = on {
            if let Some(backup) = write(config, &text, &new)? {
                said.push(format!("kept the original as {}", backup.display()));
            }
            said.push(format!("switched hooks on in {}", config.display()));
        }
        said.push(trust_codex(file, config, assent)?);
    }
    match target {
        Target::Bash | Target::Zsh => said.push(format!("open a new {} to load it", target.name())),
        _ => said.push(format!(
            "check it with `assent setup --check {}`",
            target.name()
        )),
    }
    Ok(said)
}

fn uninstall(target: Target, place: &Place, assent: &str) -> Result<Vec<String>, String> {
    let file = &place.file;
    let text = read(file)?;
    let bad = |why: String| format!("{} was left as it is: {why}", file.display());
    let changed = match target.hook(assent, false, None) {
        Some(hook) => edit::uninstall_json(&text, &hook).map_err(bad)?,
        None => edit::uninstall_rc(&text),
    };
    let mut said = Vec::new();
    match changed {
        // A start-up file that held nothing but our block, with no backup beside it, is one
        // setup made (a backup is kept of every file that existed): it goes, as it came.
        Some(new) if target.hook(assent, false, None).is_none() && made_by_setup(file, &new) => {
            std::fs::remove_file(file)
                .map_err(|e| format!("could not remove {}: {e}", file.display()))?;
            said.push(format!(
                "removed {}, which `assent setup {}` had made for the hook alone",
                file.display(),
                target.name()
            ));
        }
        Some(new) => {
            write(file, &text, &new)?;
            said.push(format!(
                "removed the {} hook from {}",
                target.name(),
                file.display()
            ));
        }
        None => said.push(format!(
            "the {} hook is not installed in {}; nothing to remove",
            target.name(),
            file.display()
        )),
    }
    if let Some(config) = &place.codex_config {
        said.push(format!(
            "left [features] hooks as it is in {} (other hooks may need it)",
            config.display()
        ));
    }
    Ok(said)
}

/// Whether `file`, left with `rest` once the hook is out, is a file setup made: nothing is
/// left, and there is no backup of an original beside it.
fn made_by_setup(file: &Path, rest: &str) -> bool {
    rest.trim().is_empty() && !Path::new(&format!("{}.assent-backup", file.display())).exists()
}

/// Record in Codex's `config.toml` that the hook in `hooks_json` is trusted, as a person's
/// "trust" in Codex's `/hooks` records it: Codex skips a hook it does not trust, silently.
fn trust_codex(hooks_json: &Path, config: &Path, assent: &str) -> Result<String, String> {
    let text = read(hooks_json)?;
    let hook = Target::Codex
        .hook(assent, false, None)
        .ok_or("no Codex hook")?;
    let entry = edit::installed_entry(&text, &hook)
        .map_err(|why| format!("{} does not parse: {why}", hooks_json.display()))?
        .ok_or_else(|| format!("the hook is not in {}", hooks_json.display()))?;
    let key = codex_trust::key(
        &check::codex_trust_key(hooks_json)?,
        entry.group,
        entry.entry,
    );
    let hash = codex_trust::hash(entry.matcher.as_deref(), &entry.command, entry.timeout);
    let old = read(config)?;
    let new = codex_trust::trust(&old, &key, &hash)
        .map_err(|why| format!("{} was left as it is: {why}", config.display()))?;
    if let Some(new) = new {
        write(config, &old, &new)?;
    }
    Ok(format!(
        "recorded Codex's trust in the hook in {} (what trusting it in /hooks records)",
        config.display()
    ))
}

/// Replace `path` (whose text was `old`) with `new`: a backup of the original first if there is
/// none yet, then a synced temporary file renamed over it, with the original's mode. Returns
/// the backup made, if one was.
fn write(path: &Path, old: &str, new: &str) -> Result<Option<PathBuf>, String> {
    let fail = |what: &str, e: std::io::Error| format!("could not {what} {}: {e}", path.display());
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| fail("create the directory of", e))?;
    let existing = std::fs::metadata(path).ok();
    let mut backup = None;
    if existing.is_some() {
        let copy = PathBuf::from(format!("{}.assent-backup", path.display()));
        if !copy.exists() {
            std::fs::write(&copy, old).map_err(|e| fail("back up", e))?;
            backup = Some(copy);
        }
    }
    let mode = existing.map_or(0o644, |m| m.permissions().mode() & 0o7777);
    let tmp = dir.join(format!(
        ".{}.assent-{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("settings"),
        std::process::id()
    ));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(new.as_bytes())?;
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail("write", e));
    }
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(backup)
}
