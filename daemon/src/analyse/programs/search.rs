//! A search path (`PATH=…`): whether the programs a line runs by name after it are the ones
//! those names mean. A directory put before the search path the shell had shadows every program
//! in it (`PATH=/tmp ls` runs whatever was put at `/tmp/ls`); one put after it only adds names
//! (`PATH=$PATH:$(go env GOPATH)/bin`). The directories taken for what their names say are the
//! system's (root's to change), a toolchain's in the home (where the person's own installers put
//! programs), and those a toolchain's variable names from the person's environment
//! (`$VIRTUAL_ENV/bin`): a variable the line itself set, `HOME` included, says nothing.
//!
//! Pure: it reads the words as written.

use super::super::words::Word;

/// Directories below which only root installs programs.
const SYSTEM: &[&str] = &[
    "/usr/",
    "/opt/",
    "/snap/",
    "/nix/",
    "/run/current-system/",
    "/home/linuxbrew/.linuxbrew/",
];

/// Program directories right below `/`.
const SYSTEM_TOP: &[&str] = &["/bin", "/sbin"];

/// The toolchains' program directories in a home, a `*` standing for one component.
const HOME_BINS: &[&str] = &[
    ".cargo/bin",
    ".local/bin",
    "bin",
    "go/bin",
    ".go/bin",
    ".npm-global/bin",
    ".deno/bin",
    ".bun/bin",
    ".pyenv/shims",
    ".pyenv/bin",
    ".rbenv/shims",
    ".rbenv/bin",
    ".volta/bin",
    ".yarn/bin",
    ".config/yarn/global/node_modules/.bin",
    ".nix-profile/bin",
    ".nvm/versions/node/*/bin",
    ".rustup/toolchains/*/bin",
    "miniconda3/bin",
    "anaconda3/bin",
    "miniforge3/bin",
    "mambaforge/bin",
    ".local/share/pnpm",
    ".sdkman/candidates/*/current/bin",
    ".dotnet/tools",
    ".pub-cache/bin",
    ".poetry/bin",
    ".pulumi/bin",
    ".krew/bin",
    ".foundry/bin",
    ".ghcup/bin",
    ".cabal/bin",
    ".elan/bin",
    ".wasmtime/bin",
    ".fly/bin",
    ".linuxbrew/bin",
    ".dotnet",
    ".juliaup/bin",
    ".asdf/shims",
    ".asdf/bin",
    ".local/share/mise/shims",
];

/// Variables a toolchain sets in the person's environment to its own directories.
const TOOL_VARS: &[&str] = &[
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "GOPATH",
    "GOROOT",
    "GOBIN",
    "JAVA_HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "PYENV_ROOT",
    "NVM_BIN",
    "NVM_DIR",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_INSTALL",
    "VOLTA_HOME",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "FLUTTER_ROOT",
    "DOTNET_ROOT",
    "SDKMAN_DIR",
    "HOMEBREW_PREFIX",
];

/// Command substitutions that print a toolchain's own directory.
const TOOL_PRINTS: &[&str] = &[
    "$(go env GOPATH)",
    "$(go env GOROOT)",
    "$(go env GOBIN)",
    "$(npm bin)",
    "$(npm prefix -g)",
    "$(npm root -g)",
    "$(yarn global bin)",
    "$(pnpm bin)",
    "$(pnpm bin -g)",
    "$(python3 -m site --user-base)",
    "$(python -m site --user-base)",
    "$(pyenv root)",
    "$(rbenv root)",
    "$(brew --prefix)",
    "$(rustc --print sysroot)",
    "$(gem env gemdir)",
    "$(ruby -e 'puts Gem.user_dir')",
];

/// Whether every directory `value` puts before the search path the shell had is one whose
/// programs are what their names say. `home`: the requester's; `assigned`: whether the line
/// itself set a variable. An empty entry is the current directory; a directory only known when
/// the line runs, or in the project, or in temp, could hold anything.
pub fn known(value: &Word, home: Option<&str>, assigned: impl Fn(&str) -> bool) -> bool {
    let home = home.map(|h| h.trim_end_matches('/'));
    let home_set = assigned("HOME");
    // A literal value expands nothing: `PATH='$PATH'` names a directory called `$PATH`.
    let (text, expands) = match value.literal() {
        Some(text) => (text, false),
        None => (value.raw, true),
    };
    for dir in text.split(':') {
        if expands && old_path(dir) {
            // What follows only adds names the old search path does not find.
            return true;
        }
        if !known_dir(dir, expands, home, home_set, &assigned) {
            return false;
        }
    }
    true
}

/// `$PATH` or `${PATH}` as written, in double quotes or none.
fn old_path(dir: &str) -> bool {
    matches!(dir.trim_matches('"'), "$PATH" | "${PATH}")
}

fn known_dir(
    dir: &str,
    expands: bool,
    home: Option<&str>,
    home_set: bool,
    assigned: &impl Fn(&str) -> bool,
) -> bool {
    if expands && dir.contains(['\'', '\\', '`']) {
        return false;
    }
    // Double quotes keep `$` working but take `~` literally.
    let tilde = expands && dir.starts_with("~/");
    let dir = if expands { dir.trim_matches('"') } else { dir };
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        return false;
    }
    if !dir.contains('$') && !tilde {
        if dir.contains(['*', '?', '[']) {
            return false;
        }
        if SYSTEM_TOP.contains(&dir) || SYSTEM.iter().any(|s| dir.starts_with(s)) {
            return !dir.contains("/../") && !dir.ends_with("/..");
        }
        return home
            .and_then(|h| dir.strip_prefix(h))
            .and_then(|r| r.strip_prefix('/'))
            .is_some_and(home_bin);
    }
    if !expands {
        return false;
    }
    let below_home = if tilde {
        dir.strip_prefix("~/")
    } else {
        dir.strip_prefix("$HOME/")
            .or_else(|| dir.strip_prefix("${HOME}/"))
    };
    if let Some(below) = below_home {
        return !home_set && home_bin(below);
    }
    if let Some(rest) = TOOL_PRINTS.iter().find_map(|p| dir.strip_prefix(p)) {
        return rest.is_empty() || clean_below(rest);
    }
    let (name, rest) = match dir.strip_prefix("${") {
        Some(inner) => match inner.split_once('}') {
            Some((name, rest)) => (name, rest),
            None => return false,
        },
        None => match dir.strip_prefix('$') {
            Some(inner) => {
                let end = inner
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(inner.len());
                (&inner[..end], &inner[end..])
            }
            None => return false,
        },
    };
    TOOL_VARS.contains(&name) && !assigned(name) && (rest.is_empty() || clean_below(rest))
}

/// `/bin`, `/shims`: a plain path below a toolchain's directory, no expansion, no `..`.
fn clean_below(rest: &str) -> bool {
    rest.starts_with('/')
        && !rest.contains(['$', '*', '?', '['])
        && !rest.split('/').any(|c| c == "..")
}

/// Whether `below` (a path in the home) is one of [`HOME_BINS`].
fn home_bin(below: &str) -> bool {
    let parts: Vec<&str> = below.split('/').collect();
    HOME_BINS.iter().any(|pattern| {
        let want: Vec<&str> = pattern.split('/').collect();
        want.len() == parts.len()
            && want
                .iter()
                .zip(&parts)
                .all(|(w, p)| (*w == "*" && !p.is_empty() && *p != "..") || w == p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(raw: &'static str, literal: Option<&str>) -> Word<'static> {
        let mut w = Word::made(literal.unwrap_or(raw).to_owned(), raw, 0..raw.len());
        w.dynamic = literal.is_none();
        w
    }

    #[test]
    fn a_search_path_is_known_only_before_the_old_one_and_only_in_known_places() {
        let none = |_: &str| false;
        let home = Some("/home/u");
        let cases: &[(&'static str, Option<&str>, bool)] = &[
            // Known.
            ("$PATH:/tmp", None, true),
            ("\"$HOME/.local/bin:$PATH\"", None, true),
            (
                "/usr/local/bin:/usr/bin:/bin",
                Some("/usr/local/bin:/usr/bin:/bin"),
                true,
            ),
            ("~/.cargo/bin:$PATH", None, true),
            ("/home/u/.cargo/bin:$PATH", None, true),
            ("$VIRTUAL_ENV/bin:$PATH", None, true),
            ("$(go env GOPATH)/bin:$PATH", None, true),
            ("/usr/local/go/bin:$PATH", None, true),
            ("$HOME/.nvm/versions/node/v20.1.0/bin:$PATH", None, true),
            ("/usr/lib/jvm/java-17/bin:$PATH", None, true),
            // Not known.
            ("/tmp/x", Some("/tmp/x"), false),
            ("/tmp:$PATH", None, false),
            (".:$PATH", None, false),
            (":/usr/bin", Some(":/usr/bin"), false),
            ("$d:$PATH", None, false),
            ("'$PATH'", Some("$PATH"), false),
            ("\"~/bin\"", Some("~/bin"), false),
            ("\"~/bin\":$PATH", None, false),
            ("./node_modules/.bin:$PATH", None, false),
            ("/usr/../tmp:$PATH", None, false),
            ("$VIRTUAL_ENV/../../tmp:$PATH", None, false),
            ("$HOME/Downloads:$PATH", None, false),
            ("$TMPDIR:$PATH", None, false),
        ];
        for (raw, literal, want) in cases {
            assert_eq!(known(&word(raw, *literal), home, none), *want, "{raw}");
        }
        // A variable the line set says nothing.
        let home_set = |n: &str| n == "HOME";
        assert!(!known(&word("~/.cargo/bin:$PATH", None), home, home_set));
        let venv_set = |n: &str| n == "VIRTUAL_ENV";
        assert!(!known(
            &word("$VIRTUAL_ENV/bin:$PATH", None),
            home,
            venv_set
        ));
    }
}
