//! The vocabulary's places as a run confined by the kernel sees them: where every confined
//! run may write (temp, the caches of the programs builds run, where package managers install
//! for a user) and what it may not read (the secret places of the vocabulary and the policy).
//!
//! Landlock grants access beneath directories that exist; it has no "except". So a secret is
//! hidden as the directory or file that holds it, never as its parent's whole tree: a pattern
//! whose first glob sits in a directory many programs share (`~/.config/**/Cookies`) cannot be
//! hidden without hiding `~/.config`, and is left readable (the README says so). Pure: the
//! door that runs the command expands a last-component glob (`~/.kube/config*`) as the
//! requester.

use super::lies::TEMP_DIRS;
use super::vocabulary::{ENTRIES, Says};
use super::{Added, Kind};

/// Caches the programs builds and tests run write to, below the home: written on every
/// build, recreated when lost.
pub const CACHES: &[&str] = &[
    ".cache/pip",
    ".cache/pypoetry",
    ".cache/uv",
    ".cache/go-build",
    ".cache/golangci-lint",
    ".cache/yarn",
    ".cache/pnpm",
    ".cache/node-gyp",
    ".cache/typescript",
    ".cache/ms-playwright",
    ".cache/deno",
    ".cache/bazel",
    ".cache/pre-commit",
    ".cache/sccache",
    ".cache/ccache",
    ".cache/mypy",
    ".cache/ruff",
    ".cache/black",
    ".cache/cargo",
    ".ccache",
    ".cargo/registry",
    ".cargo/git",
    ".cargo/.package-cache",
    ".cargo/.package-cache-mutate",
    ".cargo/.global-cache",
    ".npm/_cacache",
    ".npm/_logs",
    ".npm/_npx",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".gradle/daemon",
    ".gradle/native",
    "go/pkg/mod",
    ".local/share/pnpm",
    ".bun/install/cache",
    ".yarn/berry",
    ".nuget/packages",
    ".ivy2/cache",
    ".sbt/boot",
];

/// Where a user's package managers install, below the home: writable only for a line judged
/// to install or remove software.
pub const PACKAGE_DIRS: &[&str] = &[
    ".local/bin",
    ".local/lib",
    ".local/share/man",
    ".cargo/bin",
    ".cargo/.crates.toml",
    ".cargo/.crates2.json",
    ".npm-global",
    ".local/share/npm",
    "go/bin",
    ".gem",
    ".local/share/gem",
];

/// Directories below the home that many programs share: a secret inside one is hidden as its
/// own file or directory, never by hiding the whole.
const SHARED: &[&str] = &[
    ".config",
    ".local",
    ".local/share",
    ".local/state",
    ".cache",
];

/// The last answer of [`hidden`], with the home and the policy's secret places it was for.
type Last = (String, Vec<String>, Vec<String>);
static LAST: std::sync::Mutex<Option<Last>> = std::sync::Mutex::new(None);

/// The paths a confined run may not read, for a requester whose home is `home`: the
/// vocabulary's secret places below a home, and the policy's `sensitive_paths` below this
/// one. Each is absolute; a last component may be a glob for the door to expand. The same
/// home and policy ask again on every confined check, so the last answer is kept.
pub fn hidden(home: &str, added: &Added) -> Vec<String> {
    let written: &[String] = added.secret.map_or(&[], |p| p.written);
    if let Ok(last) = LAST.lock()
        && let Some((for_home, for_written, out)) = last.as_ref()
        && for_home == home
        && for_written.as_slice() == written
    {
        return out.clone();
    }
    let out = hidden_now(home, added);
    if let Ok(mut last) = LAST.lock() {
        *last = Some((home.to_owned(), written.to_vec(), out.clone()));
    }
    out
}

fn hidden_now(home: &str, added: &Added) -> Vec<String> {
    let home = home.trim_end_matches('/');
    let mut out: Vec<String> = secret_below_home()
        .iter()
        .map(|below| format!("{home}/{below}"))
        .collect();
    let mut add = |path: String| {
        if !out.contains(&path) {
            out.push(path);
        }
    };
    let written = added.secret.iter().flat_map(|p| p.written.iter());
    let below_home = written.clone().filter_map(|p| {
        p.strip_prefix("~/")
            .or_else(|| p.strip_prefix(home)?.strip_prefix('/'))
    });
    for below in below_home {
        if let Some(path) = hideable(below)
            && !path.is_empty()
        {
            add(format!("{home}/{path}"));
        }
    }
    // The policy's own places elsewhere: hidden as written, never as a directory right below
    // `/` (`/srv/**` would hide every service's files; name the directory that holds secrets).
    for absolute in written.filter(|p| p.starts_with('/') && !p.starts_with(&format!("{home}/"))) {
        if let Some(path) = hideable(absolute)
            && path.split('/').filter(|c| !c.is_empty()).count() >= 2
        {
            add(format!("/{path}"));
        }
    }
    out
}

/// The vocabulary's secret places below a home, as the door can hide them, each once: the
/// same for every request, so worked out once (every confined check used to spend tens of
/// microseconds on it).
fn secret_below_home() -> &'static [String] {
    static BELOW: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    BELOW.get_or_init(|| {
        let mut out: Vec<String> = Vec::new();
        let secret = ENTRIES.iter().filter_map(|(pattern, says, _)| match says {
            Says::Is(Kind::Secret) | Says::Both(Kind::Secret, _) | Says::Both(_, Kind::Secret) => {
                pattern
                    .strip_prefix("~*/")
                    .or_else(|| pattern.strip_prefix("~/"))
            }
            _ => None,
        });
        for below in secret {
            if let Some(path) = hideable(below)
                && !path.is_empty()
                && !out.contains(&path)
            {
                out.push(path);
            }
        }
        out
    })
}

/// What of a pattern below the home a door can hide: the pattern itself when it is literal or
/// only its last component is a glob; else the literal directory above its first glob, unless
/// that is the home or a directory many programs share.
fn hideable(below: &str) -> Option<String> {
    let comps: Vec<&str> = below.split('/').filter(|c| !c.is_empty()).collect();
    let is_glob = |c: &str| c.contains(['*', '?', '[']) || c == "**";
    let first_glob = comps.iter().position(|c| is_glob(c));
    match first_glob {
        None => Some(comps.join("/")),
        Some(i) if i + 1 == comps.len() && comps[i] != "**" => Some(comps.join("/")),
        Some(i) => {
            let prefix = comps[..i].join("/");
            (!prefix.is_empty() && !SHARED.contains(&prefix.as_str())).then_some(prefix)
        }
    }
}

/// Where every confined run may write: temp, and the caches below `home`.
pub fn scratch(home: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = TEMP_DIRS.iter().map(|t| (*t).to_owned()).collect();
    if let Some(home) = home.filter(|h| h.starts_with('/')) {
        let home = home.trim_end_matches('/');
        out.extend(CACHES.iter().map(|c| format!("{home}/{c}")));
    }
    out
}

/// Where a line that installs software may also write, below `home`.
pub fn package_dirs(home: &str) -> Vec<String> {
    let home = home.trim_end_matches('/');
    PACKAGE_DIRS.iter().map(|c| format!("{home}/{c}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::places::{Path, Where, classify};

    #[test]
    fn secrets_are_hidden_as_their_own_place_never_a_shared_parent() {
        let hidden = hidden("/home/u", &Added::default());
        for want in [
            "/home/u/.ssh",
            "/home/u/.aws",
            "/home/u/.config/gh/hosts.yml",
            "/home/u/.kube/config*",
            "/home/u/.cargo/credentials*",
            "/home/u/.mozilla/firefox",
            "/home/u/.netrc",
        ] {
            assert!(hidden.iter().any(|h| h == want), "{want} in {hidden:?}");
        }
        for never in [
            "/home/u",
            "/home/u/.config",
            "/home/u/.local/share",
            "/home/u/.cache",
        ] {
            assert!(!hidden.iter().any(|h| h == never), "{never} hidden");
        }
    }

    /// The answer kept from the last call is only for its home and the policy's own secret
    /// places: another of either is worked out again.
    #[test]
    fn the_kept_answer_is_for_its_home_and_policy_only() {
        let written = vec!["~/vault/**".to_owned()];
        let set = globset::GlobSet::empty();
        let policy = Added {
            secret: Some(crate::places::Patterns {
                written: &written,
                set: &set,
            }),
            ..Added::default()
        };
        for _ in 0..2 {
            let plain = hidden("/home/a", &Added::default());
            assert!(plain.iter().all(|h| h.starts_with("/home/a/")), "{plain:?}");
            assert!(!plain.iter().any(|h| h.ends_with("/vault")), "{plain:?}");
            let with = hidden("/home/a", &policy);
            assert!(with.iter().any(|h| h == "/home/a/vault"), "{with:?}");
            assert_eq!(hidden("/home/a", &policy), with);
            let other = hidden("/home/b", &policy);
            assert!(other.iter().all(|h| h.starts_with("/home/b/")), "{other:?}");
        }
    }

    #[test]
    fn no_cache_is_a_place_the_gate_keeps() {
        // A writable cache that the vocabulary calls secret, protected or the gate's would let
        // every confined run change what its line could not. (Package directories hold
        // commands on PATH, protected places: they are granted only to a line judged to
        // install software, which was let through knowing that.)
        let w = Where::new(Some("/work/p"), Some("/home/u"));
        for dir in scratch(Some("/home/u")) {
            let placed = classify(&Path::absolute(&dir), false, &w);
            for kind in [Kind::Secret, Kind::Protected, Kind::Gate, Kind::System] {
                assert!(!placed.has(kind), "{dir} is {kind:?}");
            }
        }
    }

    #[test]
    fn hideable_takes_the_pattern_or_its_own_directory() {
        let cases = [
            (".ssh/**", Some(".ssh")),
            (".netrc", Some(".netrc")),
            (".kube/config*", Some(".kube/config*")),
            (".mozilla/firefox/**/logins.json", Some(".mozilla/firefox")),
            (".config/**/Cookies", None),
            ("**/.npmrc", None),
        ];
        for (pattern, want) in cases {
            assert_eq!(hideable(pattern).as_deref(), want, "{pattern}");
        }
    }
}
