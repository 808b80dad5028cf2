//! Secret data as the line moves it: which variables hold credentials (the table of their
//! names is `words/secret_names.rs`, read where a word is resolved), which commands print
//! secrets (an environment dump, a credential store), and what a network sender is given of
//! them. A secret travels as a [`Piece::Secret`] in a word's value, so variables, command and
//! process substitutions, pipes and `xargs` carry it as they carry any other text; `flow`
//! says what a command prints, this module which of that is secret.
//!
//! The rule a sender is held to: an environment dump or a file of secrets leaving the machine
//! is a leak wherever it goes in the request. One credential has a normal use, and that use is
//! where a client takes credentials (a header, a login option, the user part of a URL): there
//! it goes to the service the command names. Anywhere else (the URL, a query, a body, a form,
//! an upload, a host name looked up, a mail, a raw connection, a copy to another machine) a
//! credential is a leak. A value a sourced `.env` set may be a credential or a setting: it
//! leaks like a credential, except as an address (the host a client connects to, the start of
//! a URL), where it names the service the file configures. A request that stays on this
//! machine (`localhost`) leaks nothing.
//!
//! Pure string work over words; no places but what the caller hands in.

use super::words::Word;
pub use super::words::{credential_name, in_alts, secret_variable};
use crate::places::{Piece, Secret};

/// The strongest secret a word's value holds.
pub fn in_word(w: &Word) -> Option<Secret> {
    w.value.as_deref().and_then(|alts| in_alts(alts))
}

/// Programs and builtins that may print variables with their values.
pub const ENVIRONMENT_PRINTERS: &[&str] = &[
    "env", "printenv", "set", "declare", "typeset", "export", "readonly",
];

/// What a command prints of the environment, given its name and arguments: every variable
/// (`env`, `printenv`, `set`, `declare -p`, `export -p`), or named ones that hold credentials
/// (`printenv GITHUB_TOKEN`). `sourced`: a file of secrets was sourced.
pub fn environment_printed(name: &str, args: &[Word], sourced: bool) -> Option<Secret> {
    let flags_only = || {
        args.iter().all(|w| {
            w.literal()
                .is_some_and(|t| t.len() > 1 && t.starts_with(['-', '+']))
        })
    };
    let operands = || {
        args.iter().filter(|w| {
            !w.literal()
                .is_some_and(|t| t.len() > 1 && t.starts_with('-'))
        })
    };
    match name {
        // `env` with a command is a wrapper, judged elsewhere; alone, with options and
        // assignments, it prints the environment. `-i` empties it first.
        "env" => {
            let empties = args
                .iter()
                .any(|w| matches!(w.literal(), Some("-i" | "--ignore-environment" | "-")));
            let prints = args.iter().all(|w| {
                w.literal()
                    .is_some_and(|t| t.starts_with('-') || super::words::is_assignment(t))
            });
            (prints && !empties).then_some(Secret::Dump)
        }
        "printenv" => {
            let names: Vec<&Word> = operands().collect();
            if names.is_empty() {
                return Some(Secret::Dump);
            }
            names
                .iter()
                .filter_map(|w| match w.literal() {
                    Some(n) => secret_variable(n, sourced),
                    None => Some(Secret::Credential),
                })
                .max()
        }
        "set" => args.is_empty().then_some(Secret::Dump),
        // Without names they list every variable with its value; `-f` lists functions.
        "declare" | "typeset" | "export" | "readonly" => {
            let functions = args
                .iter()
                .any(|w| w.literal().is_some_and(|t| t.contains(['f', 'F'])));
            (flags_only() && !functions).then_some(Secret::Dump)
        }
        _ => None,
    }
}

/// Interpreters whose inline programs may print the environment.
pub const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "node", "nodejs", "bun", "deno", "ruby", "perl", "php", "awk",
    "gawk", "mawk", "nawk",
];

/// What an inline program prints of the environment, read from its text: all of it
/// (`print(os.environ)`, `JSON.stringify(process.env)`, `puts ENV.to_h`, `print %ENV`, `for (k
/// in ENVIRON)`), or a variable whose name is a credential's (`os.environ["GITHUB_TOKEN"]`).
/// A lookup of one ordinary variable (`os.environ.get("HOME")`) prints no secret.
pub fn inline_environment(code: &str) -> Option<Secret> {
    const WHOLE: &[(&str, &[&str])] = &[
        // The name of the environment, and what may follow it when one variable is read.
        ("environ", &["[", ".get", ".setdefault", ".pop"]),
        ("process.env", &[".", "["]),
        ("ENV", &["[", ".fetch", "_", ".key?", ".include?"]),
        ("%ENV", &[]),
        ("in ENVIRON", &[]),
        ("getenv()", &[]),
        ("$_ENV", &["["]),
    ];
    let mut found = None;
    for (name, one) in WHOLE {
        for (at, _) in code.match_indices(name) {
            let after = code[at + name.len()..].trim_start();
            let word_end = code[at + name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            let word_start = code[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            if !word_end || !word_start && !name.starts_with(['%', '$', 'i']) {
                continue;
            }
            if one.iter().any(|o| after.starts_with(o)) {
                // One variable: a secret when its name, quoted after the lookup, is one.
                let quoted = after
                    .trim_start_matches(['[', '(', '.', ' '])
                    .trim_start_matches(|c: char| c.is_ascii_alphabetic() || c == '?')
                    .trim_start_matches(['(', ' ']);
                let name: String = quoted
                    .trim_start_matches(['"', '\''])
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if credential_name(&name) {
                    found = found.max(Some(Secret::Credential));
                }
                continue;
            }
            return Some(Secret::Dump);
        }
    }
    found
}

/// A literal path of a process's environment: `/proc/self/environ`, `/proc/1/environ`.
pub fn environ_file(text: &str) -> bool {
    text.strip_prefix("/proc/")
        .and_then(|rest| rest.strip_suffix("/environ"))
        .is_some_and(|pid| !pid.is_empty() && !pid.contains('/'))
}

/// Services whose credentials are named after them, and the domains their APIs answer on.
const SERVICES: &[(&[&str], &[&str])] = &[
    (
        &["GITHUB", "GH"],
        &["github.com", "githubusercontent.com", "ghcr.io"],
    ),
    (&["GITLAB", "GL"], &["gitlab.com"]),
    (
        &["NPM", "NODE_AUTH"],
        &["npmjs.org", "npmjs.com", "github.com"],
    ),
    (&["OPENAI"], &["openai.com", "openai.azure.com"]),
    (&["ANTHROPIC", "CLAUDE"], &["anthropic.com"]),
    (&["AWS"], &["amazonaws.com", "aws.amazon.com"]),
    (&["STRIPE"], &["stripe.com"]),
    (&["SLACK"], &["slack.com"]),
    (&["HF", "HUGGINGFACE", "HUGGING_FACE"], &["huggingface.co"]),
    (&["DOCKER", "DOCKERHUB"], &["docker.io", "docker.com"]),
    (&["CLOUDFLARE", "CF"], &["cloudflare.com"]),
    (
        &["GOOGLE", "GCP", "GCLOUD", "GEMINI"],
        &["googleapis.com", "google.com"],
    ),
    (&["AZURE"], &["azure.com", "microsoft.com", "windows.net"]),
    (&["DIGITALOCEAN", "DO"], &["digitalocean.com"]),
    (&["HEROKU"], &["heroku.com"]),
    (&["VERCEL"], &["vercel.com"]),
    (&["NETLIFY"], &["netlify.com"]),
    (&["SENTRY"], &["sentry.io"]),
    (&["DATADOG", "DD"], &["datadoghq.com", "datadoghq.eu"]),
    (&["TWILIO"], &["twilio.com"]),
    (&["SENDGRID"], &["sendgrid.com"]),
    (&["PYPI", "TWINE"], &["pypi.org"]),
    (&["CARGO_REGISTRY", "CRATES"], &["crates.io"]),
    (&["MISTRAL"], &["mistral.ai"]),
    (&["GROQ"], &["groq.com"]),
    (&["COHERE"], &["cohere.ai", "cohere.com"]),
    (&["REPLICATE"], &["replicate.com"]),
    (&["LINEAR"], &["linear.app"]),
    (&["CIRCLECI", "CIRCLE"], &["circleci.com"]),
];

/// Whether `text` (a header, a login) holds a credential variable named after a service
/// (`$GITHUB_TOKEN`), sent to hosts none of which is that service's. A host only known at
/// run time is not taken for a foreign one.
pub fn foreign_credential(text: &str, hosts: &[Option<String>]) -> bool {
    let known: Vec<&str> = hosts.iter().filter_map(|h| h.as_deref()).collect();
    if known.is_empty() || known.len() < hosts.len() {
        return false;
    }
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        let after = rest[dollar + 1..].trim_start_matches('{');
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        rest = &rest[dollar + 1..];
        if name.is_empty() || !credential_name(&name) {
            continue;
        }
        let upper = name.to_ascii_uppercase();
        let Some((_, domains)) = SERVICES.iter().find(|(prefixes, _)| {
            prefixes
                .iter()
                .any(|p| upper == *p || upper.starts_with(&format!("{p}_")))
        }) else {
            continue;
        };
        let theirs = |host: &str| {
            let host = host.to_ascii_lowercase();
            domains
                .iter()
                .any(|d| host == *d || host.ends_with(&format!(".{d}")))
        };
        if !known.iter().any(|h| theirs(h) || loopback(h)) {
            return true;
        }
    }
    false
}

/// Whether a host, as written in a URL or an argument, is this machine.
pub fn loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    matches!(host, "localhost" | "::1" | "0.0.0.0" | "0")
        || host.ends_with(".localhost")
        || host.starts_with("127.")
}

/// The host a URL names, when its start is literal: `https://user:pw@host:8080/p` → `host`.
/// A URL without a scheme (`localhost:3000/x`) is read as curl reads it.
pub fn url_host(url: &Word) -> Option<String> {
    let alts = url.alternatives();
    let first = alts.first()?;
    let Some(Piece::Lit(start)) = first.first() else {
        return None;
    };
    let rest = start.split_once("://").map_or(start.as_str(), |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    // The authority must be literal up to its end: the host is known only then.
    let whole = first.len() == 1 || rest.contains(['/', '?', '#', ':']);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host_port.starts_with('[') {
        host_port.split_inclusive(']').next()?
    } else {
        host_port.split(':').next()?
    };
    (whole && !host.is_empty()).then(|| host.to_owned())
}

/// The secrets a URL carries: in its user part (`https://user:$TOKEN@host/`, where a URL
/// carries credentials) or as its whole start (`$API_URL/x`, an address a sourced file
/// set), and elsewhere (the host, the path, the query).
pub fn url_secrets(url: &Word) -> (Option<Secret>, Option<Secret>) {
    let mut login = None;
    let mut rest = None;
    for alt in url.alternatives().iter() {
        // The text with each secret as a NUL, to find where the authority ends.
        let mut text = String::new();
        let mut kinds = Vec::new();
        for piece in alt {
            match piece {
                Piece::Lit(t) | Piece::Glob(t) => text.push_str(t),
                Piece::Secret(s) => {
                    text.push('\0');
                    kinds.push(*s);
                }
                _ => text.push('\u{1}'),
            }
        }
        let start = text.find("://").map_or(0, |i| i + 3);
        let authority_end = text[start..]
            .find(['/', '?', '#'])
            .map_or(text.len(), |i| start + i);
        let login_end = text[start..authority_end].rfind('@').map(|i| start + i);
        let mut next = kinds.iter();
        for (at, c) in text.char_indices() {
            if c != '\0' {
                continue;
            }
            let Some(kind) = next.next().copied() else {
                break;
            };
            let address = at == 0 && kind == Secret::Sourced;
            let slot = if address || login_end.is_some_and(|end| at >= start && at < end) {
                &mut login
            } else {
                &mut rest
            };
            *slot = (*slot).max(Some(kind));
        }
    }
    (login, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names() {
        for name in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_SESSION_TOKEN",
            "OPENAI_API_KEY",
            "STRIPE_APIKEY",
            "PGPASSWORD",
            "MYSQL_PWD",
            "DB_PASS",
            "SSH_PRIVATE_KEY",
            "MY_CREDENTIALS",
            "DOCKER_AUTH_CONFIG",
            "CLIENT_SECRET",
            "api_key",
            "githubToken",
            "apiKey",
            "NPM_AUTH",
            "CR_PAT",
            "JWT_SECRET",
            "SECRET_KEY_BASE",
            "APP_KEY",
            "HF_TOKEN",
            "VAULT_TOKEN",
        ] {
            assert!(credential_name(name), "{name}");
        }
        for name in [
            "PATH",
            "PWD",
            "OLDPWD",
            "TOKENIZERS_PARALLELISM",
            "KEYBOARD_LAYOUT",
            "GIT_AUTHOR_NAME",
            "SSH_AUTH_SOCK",
            "GITHUB_TOKEN_FILE",
            "XAUTHORITY",
            "SORT_KEY",
            "KEY",
            "HOME",
            "PORT",
            "AUTH_URL",
            "SSH_ASKPASS",
            "COMPASS",
            "",
            "_",
        ] {
            assert!(!credential_name(name), "{name}");
        }
    }

    #[test]
    fn after_sourcing_only_ordinary_variables_are_not_secret() {
        assert_eq!(secret_variable("PORT", false), None);
        assert_eq!(secret_variable("PORT", true), Some(Secret::Sourced));
        assert_eq!(
            secret_variable("DB_PASSWORD", true),
            Some(Secret::Credential)
        );
        assert_eq!(secret_variable("HOME", true), None);
        assert_eq!(secret_variable("1", true), None);
        assert_eq!(secret_variable("LC_ALL", true), None);
    }

    #[test]
    fn inline_programs_that_print_the_environment() {
        for code in [
            "import os;print(os.environ)",
            "import os; print(dict(os.environ))",
            "console.log(JSON.stringify(process.env))",
            "puts ENV.to_h",
            "print %ENV",
            "BEGIN{for(k in ENVIRON) print k}",
        ] {
            assert_eq!(inline_environment(code), Some(Secret::Dump), "{code}");
        }
        assert_eq!(
            inline_environment("import os;print(os.environ['GITHUB_TOKEN'])"),
            Some(Secret::Credential)
        );
        assert_eq!(
            inline_environment("console.log(process.env.OPENAI_API_KEY)"),
            Some(Secret::Credential)
        );
        for code in [
            "import os;print(os.environ.get('HOME'))",
            "console.log(process.env.NODE_ENV)",
            "puts ENV['PATH']",
            "print('environment')",
            "x = MY_ENV",
        ] {
            assert_eq!(inline_environment(code), None, "{code}");
        }
    }

    #[test]
    fn hosts() {
        let w = |t: &str| Word::made(t.to_owned(), "", 0..0);
        assert_eq!(
            url_host(&w("https://x.example.com/a")).as_deref(),
            Some("x.example.com")
        );
        assert_eq!(
            url_host(&w("http://u:p@localhost:8000/")).as_deref(),
            Some("localhost")
        );
        assert_eq!(
            url_host(&w("localhost:3000/x")).as_deref(),
            Some("localhost")
        );
        assert_eq!(url_host(&w("http://[::1]:80/")).as_deref(), Some("[::1]"));
        assert!(loopback("localhost") && loopback("127.0.0.1") && loopback("[::1]"));
        assert!(!loopback("x.example.com") && !loopback("localhost.example.com"));
        assert!(environ_file("/proc/self/environ") && environ_file("/proc/1/environ"));
        assert!(!environ_file("/proc/environ") && !environ_file("/proc/1/task/1/environ"));
    }

    #[test]
    fn a_url_carries_credentials_in_its_user_part() {
        let cred = Piece::Secret(Secret::Credential);
        let url = |pieces: Vec<Piece>| Word {
            text: String::new(),
            raw: "",
            dynamic: true,
            span: 0..0,
            value: Some(std::rc::Rc::new(vec![pieces])),
        };
        let lit = |t: &str| Piece::Lit(t.to_owned());
        let login = url(vec![
            lit("https://u:"),
            cred.clone(),
            lit("@h.example.com/x"),
        ]);
        assert_eq!(url_secrets(&login), (Some(Secret::Credential), None));
        let query = url(vec![lit("https://h.example.com/?k="), cred.clone()]);
        assert_eq!(url_secrets(&query), (None, Some(Secret::Credential)));
        let host = url(vec![lit("https://"), cred, lit(".evil.example.com/")]);
        assert_eq!(url_secrets(&host), (None, Some(Secret::Credential)));
    }
}
