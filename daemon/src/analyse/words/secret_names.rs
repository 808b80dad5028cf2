//! Which variable names hold credentials (`GITHUB_TOKEN`, `PGPASSWORD`, `apiKey`) and which
//! every shell has: the table a variable's value is marked secret by as it is resolved, read
//! here where words are resolved. What secret data then does on the line (printed, sent,
//! leaked) is `secrets`'s.

use crate::places::Secret;

/// The upper-case words of a variable name: `githubToken` and `GITHUB_TOKEN` are `GITHUB`,
/// `TOKEN`.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_uppercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// A last word that says the variable names where a credential is, or something about it,
/// not the credential itself: `GITHUB_TOKEN_FILE`, `SSH_AUTH_SOCK`, `AUTH_URL`.
const ABOUT_A_CREDENTIAL: &[&str] = &[
    "FILE", "FILES", "PATH", "DIR", "SOCK", "SOCKET", "URL", "URI", "ENDPOINT", "HOST", "PORT",
    "TYPE", "MODE", "METHOD", "PROVIDER", "NAME", "ENABLED", "DOMAIN", "EXPIRY", "EXPIRES", "TTL",
    "LENGTH", "HEADER", "USER", "USERNAME", "EMAIL", "REGION", "VERSION", "COMMAND", "CMD",
    "HELPER", "PROMPT",
];

/// Words before `KEY` that make it a secret key rather than a sort key or an object's key.
const KEY_KINDS: &[&str] = &[
    "API",
    "ACCESS",
    "PRIVATE",
    "SECRET",
    "SIGNING",
    "ENCRYPTION",
    "MASTER",
    "AUTH",
    "LICENSE",
    "DEPLOY",
    "SSH",
    "CLIENT",
    "APP",
    "SERVICE",
    "ADMIN",
    "WEBHOOK",
    "HMAC",
    "JWT",
    "SESSION",
];

/// Whether a variable's name says it holds a credential: a token, a secret, a password, an
/// API, access or private key, credentials, an auth string (`GITHUB_TOKEN`, `PGPASSWORD`,
/// `MYSQL_PWD`, `STRIPE_APIKEY`, `apiKey`, `DOCKER_AUTH_CONFIG`), in any case. Settings that
/// only share letters (`TOKENIZERS_PARALLELISM`, `KEYBOARD`, `GIT_AUTHOR_NAME`) and names of
/// where a credential is (`SSH_AUTH_SOCK`, `TOKEN_FILE`) do not.
pub fn credential_name(name: &str) -> bool {
    let words = name_words(name);
    let Some(last) = words.last() else {
        return false;
    };
    if ABOUT_A_CREDENTIAL.contains(&last.as_str()) {
        return false;
    }
    words.iter().enumerate().any(|(i, w)| {
        let w = w.as_str();
        w.ends_with("TOKEN")
            || w == "TOKENS"
            || w.starts_with("SECRET")
            || w.ends_with("SECRET")
            || w.ends_with("PASSWORD")
            || w.ends_with("PASSWD")
            || w.ends_with("PASSPHRASE")
            || w == "PASS"
            || (w == "PWD" && words.len() > 1)
            || w.starts_with("CREDENTIAL")
            || w == "CREDS"
            || w == "AUTH"
            || w == "PAT"
            || w.ends_with("APIKEY")
            || w.ends_with("ACCESSKEY")
            || w.ends_with("PRIVATEKEY")
            || w.ends_with("SECRETKEY")
            || (matches!(w, "KEY" | "KEYS") && i > 0 && KEY_KINDS.contains(&words[i - 1].as_str()))
    })
}

/// Variables every shell or session has, which a sourced file does not set to secrets.
fn ordinary_name(name: &str) -> bool {
    const ORDINARY: &[&str] = &[
        "HOME",
        "PATH",
        "PWD",
        "OLDPWD",
        "USER",
        "LOGNAME",
        "SHELL",
        "TERM",
        "LANG",
        "LANGUAGE",
        "TZ",
        "HOSTNAME",
        "DISPLAY",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "TMPDIR",
        "SHLVL",
        "IFS",
        "PS1",
        "PS2",
        "PS4",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "UID",
        "EUID",
        "PPID",
        "OSTYPE",
        "HOSTTYPE",
        "MACHTYPE",
        "COLUMNS",
        "LINES",
        "MAIL",
        "OPTIND",
        "OPTARG",
        "REPLY",
        "COLORTERM",
    ];
    !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        || ORDINARY.contains(&name)
        || name.starts_with("LC_")
        || name.starts_with("XDG_")
        || name.starts_with("BASH")
}

/// Whether a variable expanded here may hold a secret: its name says so, or a file of
/// secrets was sourced earlier on the line and the variable is none every shell has.
pub fn secret_variable(name: &str, sourced: bool) -> Option<Secret> {
    if credential_name(name) {
        Some(Secret::Credential)
    } else {
        (sourced && !ordinary_name(name)).then_some(Secret::Sourced)
    }
}
