//! Sensitive and protected paths for tool arguments, and the forms a path is matched in.
//!
//! Sensitive: files that hold secrets (seed 003's list: `.env` but not its examples, SSH and
//! cloud keys, token files). Reading one cannot be undone, so touching one is destructive.
//! Protected: places the system or a login needs (`/etc`, `/usr`, shell start-up files, a
//! repository's `.git`); writing there is destructive. A policy's `sensitive_paths` and
//! `protected_paths` add globs to these lists, never remove from them. Pure, no I/O: a path is
//! judged by its text, as the analyser does.

use super::Globs;

/// `.env` variants that are templates, not secrets (seed 003).
const ENV_TEMPLATES: &[&str] = &[
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.default",
    ".env.dist",
];

/// Directories anywhere whose contents are secrets.
const SECRET_DIRS: &[&str] = &[".ssh", ".aws", ".gnupg", ".pki", ".kube", ".password-store"];

/// File names that are secrets wherever they are.
const SECRET_FILES: &[&str] = &[
    ".npmrc",
    ".git-credentials",
    ".netrc",
    ".pypirc",
    ".pgpass",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials.json",
];

/// Absolute secret files.
const SECRET_ABSOLUTE: &[&str] = &["/etc/shadow", "/etc/gshadow", "/etc/sudoers"];

/// System directories: writing below one is destructive.
const PROTECTED_DIRS: &[&str] = &[
    "/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/var/lib", "/root",
    "/sys", "/proc", "/dev", "/opt",
];

/// Files in a home that run at login or configure authority.
const PROTECTED_HOME_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".bash_login",
    ".config/autostart",
    ".config/systemd",
];

/// The forms a path is matched in: as written, made absolute against `cwd`, normalised, and
/// with the home directory written as `~` (so `~/…` globs match), de-duplicated.
pub fn forms(path: &str, cwd: Option<&str>, home: Option<&str>) -> Vec<String> {
    let mut out = vec![path.to_string()];
    let expanded = match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => Some(format!("{}/{rest}", home.trim_end_matches('/'))),
        _ if path == "~" => home.map(str::to_string),
        _ => None,
    };
    let absolute = match (&expanded, cwd) {
        (Some(p), _) => Some(p.clone()),
        (None, _) if path.starts_with('/') => Some(path.to_string()),
        (None, Some(cwd)) if !path.starts_with('~') => {
            Some(format!("{}/{path}", cwd.trim_end_matches('/')))
        }
        _ => None,
    };
    if let Some(abs) = absolute {
        let abs = normalise(&abs);
        if let Some(home) = home.map(|h| h.trim_end_matches('/'))
            && !home.is_empty()
            && let Some(rest) = abs.strip_prefix(home)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            out.push(format!("~{rest}"));
        }
        out.push(abs);
    }
    out.dedup();
    out
}

/// `.` and `..` removed, repeated slashes collapsed.
fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether `path` names a secret, built-in or by `extra`.
pub fn is_sensitive(
    path: &str,
    cwd: Option<&str>,
    home: Option<&str>,
    extra: Option<&Globs>,
) -> bool {
    let forms = forms(path, cwd, home);
    if extra.is_some_and(|g| forms.iter().any(|f| g.is_match(f))) {
        return true;
    }
    forms.iter().any(|form| {
        let parts: Vec<&str> = form.split('/').filter(|p| !p.is_empty()).collect();
        let name = parts.last().copied().unwrap_or("");
        let env = name == ".env" || (name.starts_with(".env.") && !ENV_TEMPLATES.contains(&name));
        env || SECRET_FILES.contains(&name)
            || parts[..parts.len().saturating_sub(1)]
                .iter()
                .any(|p| SECRET_DIRS.contains(p))
            || SECRET_ABSOLUTE.contains(&form.as_str())
    })
}

/// Whether writing `path` touches a protected place, built-in or by `extra`.
pub fn is_protected(
    path: &str,
    cwd: Option<&str>,
    home: Option<&str>,
    extra: Option<&Globs>,
) -> bool {
    let forms = forms(path, cwd, home);
    if extra.is_some_and(|g| forms.iter().any(|f| g.is_match(f))) {
        return true;
    }
    forms.iter().any(|form| {
        let under = |dir: &str| form == dir || form.starts_with(&format!("{dir}/"));
        PROTECTED_DIRS.iter().any(|d| under(d))
            || PROTECTED_HOME_FILES
                .iter()
                .any(|f| under(&format!("~/{f}")))
            || form.split('/').any(|p| p == ".git")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_their_templates() {
        let home = Some("/home/a");
        let cases = [
            (".env", true),
            ("app/.env.production", true),
            (".env.example", false),
            ("~/.ssh/id_ed25519", true),
            ("/home/a/.aws/credentials", true),
            ("/etc/shadow", true),
            ("/etc/passwd", false),
            ("src/main.rs", false),
            ("~/.npmrc", true),
        ];
        for (path, want) in cases {
            assert_eq!(is_sensitive(path, Some("/w"), home, None), want, "{path}");
        }
    }

    #[test]
    fn protected_places() {
        let home = Some("/home/a");
        let cases = [
            ("/etc/hosts", true),
            ("/usr/bin/ls", true),
            ("/home/a/.bashrc", true),
            ("~/.bashrc", true),
            (".git/hooks/pre-commit", true),
            ("src/lib.rs", false),
            ("/tmp/x", false),
            ("../../etc/passwd", true),
        ];
        for (path, want) in cases {
            assert_eq!(is_protected(path, Some("/w/x"), home, None), want, "{path}");
        }
    }

    #[test]
    fn forms_include_tilde_and_absolute() {
        let f = forms("notes/../.env", Some("/home/a/p"), Some("/home/a"));
        assert!(f.contains(&"/home/a/p/.env".to_string()), "{f:?}");
        assert!(f.contains(&"~/p/.env".to_string()), "{f:?}");
    }
}
