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
    programs::special(args, site)
        || http::delete(args, http::for_program(site.name), site)
        || verbs::destructive(args, site)
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
