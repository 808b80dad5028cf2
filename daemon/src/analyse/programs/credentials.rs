//! Commands that print a stored credential, told by protocol and by key rather than verb by
//! verb: the credential-helper protocol (`git credential fill`, `git-credential-store get`,
//! `docker-credential-* get`), configuration getters asked for a key whose name says it holds
//! a credential (`git config --get github.token`, `npm config get //host/:_authToken`,
//! `pip config get global.password`, `aws configure get aws_secret_access_key`), and service
//! verbs whose name says they print a token, a password or credentials (`gcloud auth
//! print-access-token`, `aws ecr get-login-password`, `aws sts assume-role`). The list of
//! other printers stays in `unknown` (`PRINTS_SECRETS`); this module must not judge anything
//! but what a command prints.

use super::super::secrets;
use super::super::words::Word;

/// What a credential printer of these kinds prints, if the command is one.
pub fn printed(name: &str, words: &[Word]) -> Option<&'static str> {
    helper(name, words)
        .or_else(|| config_getter(name, words))
        .or_else(|| token_verb(name, words))
}

/// The credential-helper protocol: a helper asked to `get` prints the password it keeps for
/// what it reads (`git-credential-store get`, `git credential-cache get`,
/// `docker-credential-pass get`); `git credential fill` asks every configured helper.
fn helper(name: &str, words: &[Word]) -> Option<&'static str> {
    let operands: Vec<&str> = words
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with('-'))
        .collect();
    let named_helper =
        name.starts_with("docker-credential-") || name.starts_with("git-credential-");
    let git_helper = name == "git"
        && git_subcommand(words).is_some_and(|(sub, _)| sub.starts_with("credential-"));
    if (named_helper || git_helper) && operands.contains(&"get") {
        return Some("a password a credential helper stores");
    }
    if name == "git"
        && let Some(("credential", rest)) = git_subcommand(words)
        && rest
            .iter()
            .filter_map(Word::literal)
            .any(|t| matches!(t, "fill" | "get"))
    {
        return Some("a password git's credential helpers store");
    }
    None
}

/// `git`'s global options that take the next word.
const GIT_VALUED: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--exec-path",
];

/// git's subcommand after its global options, and the words after it.
fn git_subcommand<'a, 's>(words: &'a [Word<'s>]) -> Option<(&'a str, &'a [Word<'s>])> {
    let mut i = 0;
    while let Some(t) = words.get(i).and_then(Word::literal) {
        if !t.starts_with('-') {
            return Some((t, &words[i + 1..]));
        }
        i += if GIT_VALUED.contains(&t) { 2 } else { 1 };
    }
    None
}

/// Whether a configuration key names a credential: its last part, after the section and any
/// URL (`github.token`, `//registry.npmjs.org/:_authToken`, `http-basic.pypi.password`,
/// `aws_secret_access_key`), is credential-named as a variable would be.
pub fn credential_key(key: &str) -> bool {
    let last = key.rsplit(['.', ':', '/']).next().unwrap_or(key);
    // git's `http.<url>.extraHeader` carries an `Authorization:` header (CI checkouts).
    secrets::credential_name(last) || last.eq_ignore_ascii_case("extraheader")
}

/// A pattern that asks for credential-named keys (`git config --get-regexp 'token|password'`).
fn credential_pattern(pattern: &str) -> bool {
    pattern
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|part| !part.is_empty() && secrets::credential_name(part))
}

/// The getters of configuration keys: the program and the words that lead to the getter,
/// whose operand is the key.
const GETTERS: &[(&str, &[&str])] = &[
    ("npm", &["config", "get"]),
    ("npm", &["get"]),
    ("pnpm", &["config", "get"]),
    ("pnpm", &["get"]),
    ("yarn", &["config", "get"]),
    ("bun", &["pm", "config", "get"]),
    ("pip", &["config", "get"]),
    ("pip3", &["config", "get"]),
    ("aws", &["configure", "get"]),
    ("gh", &["config", "get"]),
    ("glab", &["config", "get"]),
    ("cargo", &["config", "get"]),
    ("gcloud", &["config", "get-value"]),
    ("gcloud", &["config", "get"]),
    ("conda", &["config", "--show"]),
    ("heroku", &["config:get"]),
];

/// Whether a program may print a credential by one of these ways, given the right words.
pub fn may_print(name: &str) -> bool {
    name.starts_with("docker-credential-")
        || name.starts_with("git-credential-")
        || matches!(name, "git" | "poetry" | "composer" | "dotnet")
        || GETTERS.iter().any(|(program, _)| *program == name)
}

/// A configuration getter asked for a credential-named key.
fn config_getter(name: &str, words: &[Word]) -> Option<&'static str> {
    const WHAT: &str = "a credential kept in a program's configuration";
    let literal: Vec<&str> = words.iter().filter_map(Word::literal).collect();
    if name == "git" {
        let (sub, rest) = git_subcommand(words)?;
        return (sub == "config" && git_config_reads_credential(rest)).then_some(WHAT);
    }
    // `poetry config KEY` and `composer config KEY` read one key; with a value they set it.
    if matches!(name, "poetry" | "composer") {
        let operands: Vec<&str> = literal
            .iter()
            .copied()
            .filter(|t| !t.starts_with('-'))
            .collect();
        return match operands.as_slice() {
            ["config", key] if credential_key(key) => Some(WHAT),
            _ => None,
        };
    }
    // `dotnet user-secrets list` prints every secret of the project.
    if name == "dotnet" && literal.starts_with(&["user-secrets", "list"]) {
        return Some("a project's user secrets");
    }
    for (program, path) in GETTERS {
        if *program != name {
            continue;
        }
        let operands: Vec<&str> = literal
            .iter()
            .copied()
            .filter(|t| !t.starts_with('-') || path.contains(t))
            .collect();
        if operands.starts_with(path) && operands[path.len()..].iter().any(|k| credential_key(k)) {
            return Some(WHAT);
        }
    }
    None
}

/// `git config` reading: `--get`/`--get-all`/`get KEY`, a lone key, or `--get-regexp`
/// with a pattern that names credentials.
fn git_config_reads_credential(rest: &[Word]) -> bool {
    // Options whose value is the next word.
    const VALUED: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment"];
    let mut operands = Vec::new();
    let mut regexp = false;
    let mut getter = false;
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        i += 1;
        let Some(t) = w.literal() else {
            operands.push("");
            continue;
        };
        match t {
            "--get-regexp" => regexp = true,
            "--get" | "--get-all" | "--get-urlmatch" => getter = true,
            _ if VALUED.contains(&t) => i += 1,
            _ if t.starts_with('-') => {}
            _ => operands.push(t),
        }
    }
    match operands.as_slice() {
        ["get-regexp", pattern, ..] => credential_pattern(pattern),
        [pattern, ..] if regexp => credential_pattern(pattern),
        ["get", key, ..] => credential_key(key),
        [key, ..] if getter => credential_key(key),
        [key] => credential_key(key),
        _ => false,
    }
}

/// Cloud and service CLIs whose verbs are read for a credential they print.
const CLOUD_CLIS: &[&str] = &[
    "aws", "gcloud", "az", "oci", "doctl", "ibmcloud", "aliyun", "kubectl", "vault", "gh", "glab",
    "heroku", "fly", "flyctl",
];

/// A cloud verb whose name says it prints a credential: `print-…`, `get-…`, `export-…` or
/// `create-…` of a token, a password or credentials (`print-access-token`,
/// `get-login-password`, `get-session-token`, `export-credentials`), and the STS verbs that
/// hand out a role's credentials (`assume-role`, `assume-role-with-web-identity`). A password
/// made up on the spot (`get-random-password`) is none yet. Only the first few operands are
/// verbs.
fn token_verb(name: &str, words: &[Word]) -> Option<&'static str> {
    const VERBS: &[&str] = &["print-", "get-", "export-", "create-"];
    const PRINTED: &[&str] = &["TOKEN", "PASSWORD", "CREDENTIALS", "CREDENTIAL"];
    if !CLOUD_CLIS.contains(&name) {
        return None;
    }
    let names_credential = |thing: &str| {
        let words: Vec<String> = thing.split('-').map(|w| w.to_ascii_uppercase()).collect();
        words.last().is_some_and(|w| PRINTED.contains(&w.as_str()))
            && !words.iter().any(|w| w == "RANDOM")
    };
    words
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with('-'))
        .take(4)
        .find(|t| {
            t.starts_with("assume-role")
                || VERBS
                    .iter()
                    .any(|v| t.strip_prefix(v).is_some_and(names_credential))
        })
        .map(|_| "a token, a password or credentials the command prints")
}

#[cfg(test)]
mod tests {
    use super::{credential_key, credential_pattern};

    #[test]
    fn keys_by_name() {
        let cases: &[(&str, bool)] = &[
            ("github.token", true),
            ("hub.oauthtoken", true),
            ("//registry.npmjs.org/:_authToken", true),
            ("_auth", true),
            ("npmAuthToken", true),
            ("global.password", true),
            ("http-basic.pypi.password", true),
            ("aws_secret_access_key", true),
            ("http.https://github.com/.extraheader", true),
            ("region", false),
            ("remote.origin.url", false),
            ("credential.helper", false),
            ("user.signingkey", false),
            ("registry", false),
            ("global.index-url", false),
            ("npmRegistryServer", false),
        ];
        for (key, want) in cases {
            assert_eq!(credential_key(key), *want, "{key}");
        }
        assert!(credential_pattern("token|password"));
        assert!(credential_pattern("^github\\.token$"));
        assert!(!credential_pattern("^remote\\..*\\.url$"));
    }
}
