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
    let home_rest = at.in_home(ctx).or_else(|| {
        let p = at.as_path()?;
        let rest = match p.strip_prefix("/root") {
            Some(r) => r,
            None => {
                let after = p.strip_prefix("/home/")?;
                &after[after.find('/')?..]
            }
        };
        (rest.is_empty() || rest.starts_with('/')).then(|| rest.to_owned())
    });
    if let Some(rest) = home_rest.as_deref()
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

/// The first word of `words` that names a secret, as written.
fn first_secret<'a, 's>(words: &[&'a Word<'s>], ctx: &Context) -> Option<&'a Word<'s>> {
    words.iter().copied().find(|w| {
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
    let mut words: Vec<&Word> = Vec::new();
    let mut skip = false;
    for w in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        skip = identity && w.literal() == Some("-i");
        words.push(w);
    }
    if let Some(w) = first_secret(&words, site.ctx()) {
        let detail = format!("`{}` (by `{}`)", w.raw, site.name);
        site.report(catalogue::SENSITIVE_READ, &detail);
    }
}

/// A redirection that reads `src` (`< ~/.ssh/id_rsa`).
pub fn redirect_source(src: &Word, span: Range<usize>, st: &mut State) {
    if first_secret(&[src], st.ctx).is_some() {
        let detail = format!("`{}`", src.raw);
        st.add(catalogue::REDIRECT_READ_SECRET.at(span, &detail));
    }
}
