//! Reading secrets: private keys, credentials, `.env` files (the list of seed 003, widened to
//! the usual token files). Any program that is handed such a path is taken to read it (`cat`,
//! `grep`, `cp`, `tar c`, `curl -d @.env`, `dd if=`), except those known only to look at names,
//! modes or hashes (`ls`, `chmod`, `sha256sum`) or to use a key without showing it (`ssh`).
//! A secret once read cannot be unread, so reading one is destructive (DESIGN.md).
//!
//! `/etc/passwd` and `~/.gitconfig` from seed 003 are left out: the first is world-readable
//! and holds no passwords since shadow files, the second holds a name and an e-mail address.

use super::super::catalogue;
use super::super::words::{Place, Word, place};
use super::super::{Context, State};
use super::Site;
use std::ops::Range;

/// Programs that take paths without revealing what the files hold.
const NOT_READERS: &[&str] = &[
    "ls",
    "exa",
    "eza",
    "lsd",
    "tree",
    "stat",
    "file",
    "du",
    "test",
    "[",
    "[[",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "echo",
    "printf",
    "touch",
    "mkdir",
    "chmod",
    "chown",
    "chgrp",
    "rm",
    "unlink",
    "shred",
    "rmdir",
    "mv",
    "ln",
    "cd",
    "pushd",
    "ssh",
    "ssh-add",
    "ssh-keygen",
    "ssh-copy-id",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "wc",
    "which",
    "type",
    "source",
    ".",
];

/// Programs whose `-i FILE` is an identity key that is used, not shown.
const IDENTITY_USERS: &[&str] = &["scp", "sftp", "rsync"];

/// Files in a home that hold credentials, below the home directory.
const HOME_SECRETS: &[&str] = &[
    "/.aws",
    "/.gnupg",
    "/.pki",
    "/.npmrc",
    "/.git-credentials",
    "/.netrc",
    "/.pypirc",
    "/.pgpass",
    "/.docker/config.json",
    "/.kube/config",
    "/.config/gh/hosts.yml",
    "/.config/gcloud",
    "/.azure",
    "/.cargo/credentials",
    "/.cargo/credentials.toml",
    "/.vault-token",
];

/// Files in `~/.ssh` that are not secret: public keys, host keys of others, client settings.
const SSH_PUBLIC: &[&str] = &[
    "known_hosts",
    "known_hosts.old",
    "config",
    "authorized_keys",
    "authorized_keys2",
];

/// Files named like private keys, wherever they are.
const KEY_NAMES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
];
const KEY_EXTENSIONS: &[&str] = &[".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"];
const ENV_TEMPLATES: &[&str] = &[".example", ".sample", ".template", ".default"];

/// Whether the file at `at` holds secrets.
pub(super) fn secret(at: &Place, ctx: &Context) -> bool {
    // What `holds_secret` tests is all in the path (see `may_name_secret`).
    match at {
        Place::Path(p) | Place::Home(p) => may_name_secret(p) && holds_secret(at, ctx),
        Place::Unknown => false,
    }
}

fn holds_secret(at: &Place, ctx: &Context) -> bool {
    let home_rest = at.in_home(ctx).or_else(|| {
        let p = at.as_path()?;
        let rest = match p.strip_prefix("/root") {
            Some(r) => r,
            None => {
                let after = p.strip_prefix("/home/")?;
                &after[after.find('/')?..]
            }
        };
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    });
    if let Some(rest) = home_rest
        && home_secret(rest)
    {
        return true;
    }
    let path = match at {
        Place::Path(p) | Place::Home(p) => p.as_str(),
        Place::Unknown => return false,
    };
    if matches!(
        path,
        "/etc/shadow" | "/etc/shadow-" | "/etc/gshadow" | "/etc/gshadow-"
    ) {
        return true;
    }
    let name = path.rsplit('/').next().unwrap_or("");
    if path.starts_with("/etc/ssh/") && name.starts_with("ssh_host_") && name.ends_with("_key") {
        return true;
    }
    secret_name(name)
}

fn home_secret(rest: &str) -> bool {
    let under = |dir: &str| {
        rest.strip_prefix(dir)
            .is_some_and(|r| r.is_empty() || r.starts_with('/'))
    };
    if HOME_SECRETS.iter().any(|d| under(d)) {
        return true;
    }
    match rest.strip_prefix("/.ssh") {
        Some("") | Some("/") => true,
        Some(r) => {
            let name = r.trim_start_matches('/');
            !(name.ends_with(".pub") || SSH_PUBLIC.contains(&name))
        }
        None => false,
    }
}

/// `.env`, `.env.local`, `.envrc` (not `.env.example`), and names of private keys.
fn secret_name(name: &str) -> bool {
    if let Some(rest) = name.strip_prefix(".env") {
        return !ENV_TEMPLATES.contains(&rest);
    }
    KEY_NAMES.contains(&name)
        || KEY_EXTENSIONS
            .iter()
            .any(|e| name.len() > e.len() && name.ends_with(e))
}

/// The paths a word may name: itself, the value after `=` (`--file=.env`, `if=key`), and
/// after `@` (`curl -d @.env`, `-F f=@key.pem`).
fn candidates<'w>(w: &'w Word) -> Vec<&'w str> {
    let t = w.text.as_str();
    let mut out = vec![t];
    if let Some((_, v)) = t.split_once('=') {
        out.push(v);
    }
    for c in out.clone() {
        if let Some(v) = c.strip_prefix('@') {
            out.push(v);
        }
    }
    out
}

/// Whether a path built from `part` may hold secrets. Every test in [`secret`] needs a `.`
/// (dotfiles, `.env`, key extensions), `etc` (`/etc/shadow`, host keys) or `id_` (key names)
/// in the path, and a resolved path's components all come from the word, the working
/// directory or the home: a word without them in a context without them names no secret.
/// Most words are like that, and this spares them resolving and cleaning a path.
fn may_name_secret(part: &str) -> bool {
    let bytes = part.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| match b {
        b'.' => true,
        b'e' => bytes.get(i + 1..i + 3) == Some(b"tc"),
        b'i' => bytes.get(i + 1..i + 3) == Some(b"d_"),
        _ => false,
    })
}

/// The first word of `words` that names a secret, as written.
fn first_secret<'a, 's>(
    words: impl IntoIterator<Item = &'a Word<'s>>,
    ctx: &Context,
) -> Option<&'a Word<'s>>
where
    's: 'a,
{
    let context_may = may_name_secret(ctx.cwd) || ctx.home.is_some_and(may_name_secret);
    words.into_iter().find(|w| {
        if !context_may && !may_name_secret(&w.text) && !may_name_secret(w.raw) {
            return false;
        }
        // A word with spaces is a command or a message (`rsync -e 'ssh -i key'`), not a path.
        if w.text.contains(char::is_whitespace) && !w.dynamic {
            return false;
        }
        if w.dynamic {
            return secret(&place(w, ctx), ctx);
        }
        candidates(w).into_iter().any(|c| {
            let sub = Word {
                text: c.to_owned(),
                raw: if c.len() == w.text.len() { w.raw } else { c },
                dynamic: false,
                span: w.span.clone(),
            };
            secret(&place(&sub, ctx), ctx)
        })
    })
}

/// Reports secrets that `args` hand to the program, whatever the program.
pub fn scan(args: &[Word], site: &mut Site) {
    if NOT_READERS.contains(&site.name) {
        return;
    }
    let identity = IDENTITY_USERS.contains(&site.name);
    let mut skip = false;
    let words = args.iter().filter(|w| {
        if std::mem::take(&mut skip) {
            return false;
        }
        skip = identity && w.literal() == Some("-i");
        true
    });
    if let Some(w) = first_secret(words, site.ctx()) {
        let detail = format!("`{}` (by `{}`)", w.raw, site.name);
        site.report(catalogue::SENSITIVE_READ, &detail);
    }
}

/// A redirection that reads `src` (`< ~/.ssh/id_rsa`).
pub fn redirect_source(src: &Word, span: Range<usize>, st: &mut State) {
    if first_secret([src], st.ctx).is_some() {
        let detail = format!("`{}`", src.raw);
        st.add(catalogue::REDIRECT_READ_SECRET.at(span, &detail));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Paths and words made of the pieces the secret tests look for, and of others.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "/",
            "/",
            "/",
            "~",
            "$HOME",
            "\"$HOME\"",
            "root",
            "home",
            "u",
            "e",
            "tc",
            "etc",
            "id",
            "_",
            "id_rsa",
            "ssh",
            ".ssh",
            ".",
            "..",
            ".env",
            "env",
            "shadow",
            "key",
            ".pem",
            "ssh_host_a_key",
            "=",
            "@",
            "*",
            "aws",
            ".aws",
            "config",
            "x",
        ])
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..8).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The pre-filter in `secret` never hides one: a path that holds secrets has a marker.
        #[test]
        fn secrets_have_markers(path in text(), home in text(), in_home: bool) {
            let at = if in_home { Place::Home(path.clone()) } else { Place::Path(path.clone()) };
            let ctx = Context { cwd: "/", home: Some(&home), truncated: false };
            if holds_secret(&at, &ctx) {
                prop_assert!(may_name_secret(&path), "{at:?} with home {home:?}");
            }
        }

        /// The pre-filter in `first_secret` never hides one: wherever a word resolves to, a
        /// secret there has its marker in the word, the working directory or the home.
        #[test]
        fn words_naming_secrets_have_markers(
            word in text(),
            cwd in text(),
            home in text(),
            dynamic: bool,
            has_home: bool,
        ) {
            let ctx = Context { cwd: &cwd, home: has_home.then_some(home.as_str()), truncated: false };
            let w = Word { text: word.clone(), raw: &word, dynamic, span: 0..word.len() };
            let named = candidates(&w).into_iter().any(|c| {
                let sub = Word { text: c.to_owned(), raw: c, dynamic, span: 0..c.len() };
                holds_secret(&place(&sub, &ctx), &ctx)
            });
            if named {
                prop_assert!(
                    may_name_secret(&word)
                        || may_name_secret(&cwd)
                        || ctx.home.is_some_and(may_name_secret),
                    "{word:?} in {cwd:?}, home {:?}", ctx.home
                );
            }
        }
    }
}
