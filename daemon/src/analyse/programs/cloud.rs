//! Containers, orchestration, infrastructure and the many service CLIs (`aws`, `gcloud`,
//! `vault`, `gh`, `rclone`, …), and HTTP clients asked to `DELETE`.
//!
//! There is no table of every service: [`service`] runs for each program no family knows and
//! looks for a destructive verb where CLIs put their subcommands (`verbs`), for an HTTP
//! `DELETE` (`http`), and first for the few programs whose destructive forms no verb shows
//! (`programs`: `docker rm`, `terraform apply -auto-approve`, `rclone sync`, …).
//! [`publishing`] finds the same way what publishes to a registry or service.

mod http;
mod programs;
mod verbs;

use super::super::act::Site;
use super::super::words::Word;

/// Judges a program no family knows by the service verbs it uses; true if it reported.
pub fn service<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) -> bool {
    let uploads = uploads(args, site);
    programs::special(args, site)
        || http::delete(args, http::for_program(site.name), site)
        || verbs::destructive(args, site)
        || uploads
}

/// The storage CLIs' copies to a bucket or a remote (`aws s3 sync ~/Documents s3://b`,
/// `gsutil cp -r`, `gcloud storage cp`, `rclone copy`, `azcopy copy`, `s3cmd put`, `mc cp`):
/// what they read here goes to another machine, as `scp`'s sources do. True if one did.
fn uploads<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) -> bool {
    let ops: Vec<&Word<'s>> = operands(args).collect();
    let verb = |at: usize| ops.get(at).and_then(|w| w.literal()).unwrap_or("");
    let flag = |names: &[&str]| {
        args.iter().filter_map(Word::literal).any(|t| {
            names.contains(&t)
                || (t.starts_with('-')
                    && !t.starts_with("--")
                    && names.iter().any(|n| n.len() == 2 && t.contains(&n[1..])))
        })
    };
    // Where the copy's operands start, and whether a directory goes whole.
    let (from, tree) = match (site.name, verb(0), verb(1)) {
        ("aws", "s3", "sync") => (2, true),
        ("aws", "s3", "cp" | "mv") => (2, flag(&["--recursive"])),
        ("gsutil", "rsync", _) => (1, true),
        ("gsutil", "cp" | "mv", _) => (1, flag(&["-r", "-R"])),
        ("gcloud", "storage", "rsync") => (2, true),
        ("gcloud", "storage", "cp" | "mv") => (2, flag(&["-r", "-R", "--recursive"])),
        ("rclone", "copy" | "sync" | "move" | "bisync", _) => (1, true),
        ("rclone", "copyto" | "moveto", _) => (1, false),
        ("azcopy", "copy" | "cp" | "sync", _) => (1, true),
        ("s3cmd", "put" | "sync", _) => (1, true),
        ("mc", "cp" | "mirror" | "mv", _) => {
            (1, verb(0) == "mirror" || flag(&["-r", "--recursive"]))
        }
        _ => return false,
    };
    let Some((dest, sources)) = ops.get(from..).and_then(<[_]>::split_last) else {
        return false;
    };
    let remote = |w: &Word| {
        w.literal().is_some_and(|t| {
            ["s3://", "gs://", "az://", "https://", "http://"]
                .iter()
                .any(|p| t.starts_with(p))
                || t.split_once(':').is_some_and(|(host, _)| {
                    !host.is_empty()
                        && !host.contains('/')
                        && !t.starts_with('.')
                        && !t.starts_with('~')
                })
        })
    };
    if sources.is_empty() || !remote(dest) {
        return false;
    }
    let mut sent = false;
    for s in sources.iter().filter(|s| !remote(s)) {
        site.sends_file(s, tree);
        if tree {
            site.tree(super::super::effects::Effect::Read, s);
        } else {
            site.on(super::super::effects::Effect::Read, s);
        }
        sent = true;
    }
    if sent {
        site.place(
            super::super::effects::Effect::Send,
            crate::places::Kind::Remote,
            dest.quoted(),
        );
    }
    sent
}

/// Whether a rule of this module knows the program by its name (`docker rm`, `http DELETE`),
/// rather than by the verbs any program may use.
pub fn by_name(name: &str) -> bool {
    programs::known(name) || http::method_first(name)
}

/// Reports publishing by a program no family knows (`docker push`, `twine upload`, `gh release
/// create`); its words are still judged for what they name (`twine upload ~/.ssh/id_rsa`).
pub fn publishing<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    verbs::publishes(args, site);
}

pub use http::Methods;

/// An HTTP `DELETE` for programs another family judges (`curl`, `wget`, httpie), their
/// method read by `how` (their own grammar); true if it reported.
pub fn http_delete<'s>(args: &[Word<'s>], how: &Methods, site: &mut Site<'_, 's, '_, '_>) -> bool {
    http::delete(args, how, site)
}

/// How httpie and xh take their method.
pub const HTTPIE_METHODS: &Methods = &http::HTTPIE;

/// How a client no family models takes its method (`gh api -X`).
#[cfg(test)]
pub const GENERIC_METHODS: &Methods = &http::GENERIC;

/// The operands among `args`: words that are not options (a dynamic word counts).
fn operands<'a, 'w>(args: &'a [Word<'w>]) -> impl Iterator<Item = &'a Word<'w>> {
    args.iter()
        .filter(|w| w.literal().is_none_or(|t| !t.starts_with('-') || t == "-"))
}

/// The program and up to four words after it, as written, for a message.
fn shown(name: &str, args: &[Word]) -> String {
    let mut out = vec![name];
    out.extend(args.iter().take(4).map(|w| w.raw));
    if args.len() > 4 {
        out.push("…");
    }
    out.join(" ")
}

#[cfg(test)]
pub(crate) mod tests;
