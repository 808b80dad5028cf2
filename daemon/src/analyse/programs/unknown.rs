//! A program the gate does not model is judged by the places it is given: it works in the
//! current directory, and every operand and option value that could be a path is a place it
//! may do anything with (`use`): a secret makes it a secret read, a protected place at least
//! destructive, a word only known at run time opaque; project, build output and temp paths
//! leave it moderate. Service CLIs (`aws`, `kubectl`, `docker`) are first looked at for the
//! verbs that delete what a service holds (`cloud`).

use super::super::act::{Site, Slot};
use super::super::catalogue;
use super::super::effects::Effect::{self, Read, Use};
use super::super::words::Word;
use super::{cloud, credentials};
use crate::places::Kind;

/// Commands that print stored credentials: the program, the words that must follow it, and
/// what they print.
const PRINTS_SECRETS: &[(&str, &[&str], &str)] = &[
    ("gh", &["auth", "token"], "the GitHub CLI's token"),
    ("glab", &["auth", "token"], "the GitLab CLI's token"),
    (
        "aws",
        &["configure", "export-credentials"],
        "AWS credentials",
    ),
    ("aws", &["ecr", "get-login-password"], "a registry password"),
    (
        "aws",
        &["sts", "get-session-token"],
        "AWS session credentials",
    ),
    (
        "gcloud",
        &["auth", "print-access-token"],
        "a Google Cloud token",
    ),
    (
        "gcloud",
        &["auth", "print-identity-token"],
        "a Google Cloud token",
    ),
    (
        "gcloud",
        &["auth", "application-default", "print-access-token"],
        "a Google Cloud token",
    ),
    ("az", &["account", "get-access-token"], "an Azure token"),
    (
        "kubectl",
        &["config", "view", "--raw"],
        "Kubernetes credentials",
    ),
    ("kubectl", &["create", "token"], "a Kubernetes token"),
    ("pass", &["show"], "a stored password"),
    ("gopass", &["show"], "a stored password"),
    ("op", &["read"], "a 1Password secret"),
    ("bw", &["get"], "a Bitwarden item"),
    ("secret-tool", &["lookup"], "a keyring secret"),
    ("vault", &["kv", "get"], "a Vault secret"),
    ("vault", &["read"], "a Vault secret"),
    ("vault", &["print", "token"], "a Vault token"),
    ("doppler", &["secrets"], "Doppler secrets"),
    ("heroku", &["auth:token"], "a Heroku token"),
    ("kubectl", &["get", "secret"], "Kubernetes secrets"),
    (
        "kubectl",
        &["config", "view", "--flatten"],
        "Kubernetes credentials",
    ),
    ("secret-tool", &["search"], "keyring secrets"),
    ("op", &["item", "get"], "a 1Password item"),
    ("bw", &["list", "items"], "Bitwarden items"),
    ("lpass", &["show"], "a LastPass item"),
    (
        "aws",
        &["ssm", "get-parameter", "--with-decryption"],
        "an AWS parameter",
    ),
    (
        "aws",
        &["ssm", "get-parameters", "--with-decryption"],
        "AWS parameters",
    ),
    (
        "gcloud",
        &["config", "config-helper"],
        "a Google Cloud token",
    ),
    (
        "glab",
        &["auth", "status", "--show-token"],
        "the GitLab CLI's token",
    ),
    (
        "terraform",
        &["state", "pull"],
        "Terraform state (holds the secrets it manages)",
    ),
    (
        "tofu",
        &["state", "pull"],
        "Terraform state (holds the secrets it manages)",
    ),
    (
        "pulumi",
        &["stack", "output", "--show-secrets"],
        "Pulumi secrets",
    ),
    ("ansible-vault", &["view"], "a vault's secrets"),
    ("ansible-vault", &["decrypt"], "a vault's secrets"),
    ("getent", &["shadow"], "the system's password hashes"),
    ("getent", &["gshadow"], "the system's group passwords"),
    (
        "docker",
        &["compose", "config"],
        "a project's configuration with its secrets filled in",
    ),
    ("kubectl", &["get", "secrets"], "Kubernetes secrets"),
    ("kubectl", &["describe", "secret"], "Kubernetes secrets"),
    ("bw", &["export"], "the whole Bitwarden vault"),
    (
        "terraform",
        &["output"],
        "Terraform outputs (often secrets)",
    ),
    ("tofu", &["output"], "Terraform outputs (often secrets)"),
    ("sops", &["-d"], "secrets decrypted by sops"),
    ("sops", &["--decrypt"], "secrets decrypted by sops"),
    ("sops", &["decrypt"], "secrets decrypted by sops"),
    ("gh", &["auth", "status", "-t"], "the GitHub CLI's token"),
    (
        "gh",
        &["auth", "status", "--show-token"],
        "the GitHub CLI's token",
    ),
    (
        "heroku",
        &["config"],
        "an app's configuration (its secrets)",
    ),
    ("vercel", &["env", "pull"], "a project's secrets"),
    ("netlify", &["env:list"], "a site's secrets"),
    ("doctl", &["auth", "token"], "a DigitalOcean token"),
    ("flyctl", &["auth", "token"], "a Fly.io token"),
    ("fly", &["auth", "token"], "a Fly.io token"),
    ("keyctl", &["print"], "a kernel keyring secret"),
    ("keyctl", &["pipe"], "a kernel keyring secret"),
    ("age", &["-d"], "a file decrypted with age"),
    ("age", &["--decrypt"], "a file decrypted with age"),
    ("npm", &["token", "list"], "npm tokens"),
    ("az", &["keyvault", "secret", "show"], "a Key Vault secret"),
    (
        "gcloud",
        &["secrets", "versions", "access"],
        "a Secret Manager secret",
    ),
    (
        "aws",
        &["secretsmanager", "get-secret-value"],
        "an AWS secret",
    ),
    (
        "git",
        &["credential", "fill"],
        "a password git's credential helper stores",
    ),
    (
        "security",
        &["find-generic-password", "-w"],
        "a keychain password",
    ),
    (
        "security",
        &["find-generic-password", "-g"],
        "a keychain password",
    ),
    (
        "security",
        &["find-internet-password", "-w"],
        "a keychain password",
    ),
    (
        "security",
        &["find-internet-password", "-g"],
        "a keychain password",
    ),
    (
        "security",
        &["dump-keychain", "-d"],
        "the keychain's secrets",
    ),
    ("keyring", &["get"], "a password from the system keyring"),
    ("rbw", &["get"], "a Bitwarden password"),
    ("kwallet-query", &["-r"], "a KWallet password"),
    ("kwallet-query", &["--read-password"], "a KWallet password"),
    ("glab", &["auth", "status", "-t"], "the GitLab CLI's token"),
    ("infisical", &["secrets"], "Infisical secrets"),
    ("infisical", &["export"], "Infisical secrets"),
    ("chamber", &["read"], "a secret from chamber"),
    ("chamber", &["export"], "secrets from chamber"),
    ("vault", &["token", "create"], "a new Vault token"),
    (
        "aws",
        &["ecr", "get-authorization-token"],
        "a registry token",
    ),
    (
        "az",
        &["acr", "login", "--expose-token"],
        "a registry token",
    ),
];

/// Whether a program may print a stored credential, with the right arguments.
pub fn may_print_secret(name: &str) -> bool {
    credentials::may_print(name)
        || PRINTS_SECRETS
            .iter()
            .any(|(program, _, _)| *program == name)
}

/// A command that prints a stored credential: the words that must appear, in order, among
/// the operands (options may sit between them).
pub fn prints_secret(name: &str, words: &[Word]) -> Option<&'static str> {
    if let Some(what) = credentials::printed(name, words) {
        return Some(what);
    }
    // `kubectl get secrets` lists names and types; their data shows only in an output format
    // (`-o yaml`, `-o jsonpath=…`).
    if name == "kubectl" && words.iter().any(|w| w.literal() == Some("get")) {
        let secrets = words.iter().filter_map(Word::literal).any(|t| {
            matches!(t, "secret" | "secrets")
                || t.starts_with("secret/")
                || t.starts_with("secrets/")
        });
        let shows_data = words
            .iter()
            .filter_map(Word::literal)
            .any(|t| t.starts_with("-o") || t.starts_with("--output"));
        return (secrets && shows_data).then_some("Kubernetes secrets");
    }
    PRINTS_SECRETS.iter().find_map(|(program, needs, what)| {
        if *program != name {
            return None;
        }
        let mut given = words.iter().filter_map(Word::literal);
        let all = needs.iter().all(|n| given.any(|g| g == *n));
        // `pass NAME` shows NAME too.
        let pass_name = name == "pass"
            && words.first().and_then(Word::literal).is_some_and(|t| {
                !t.starts_with('-')
                    && !matches!(
                        t,
                        "ls" | "list"
                            | "insert"
                            | "generate"
                            | "edit"
                            | "rm"
                            | "mv"
                            | "cp"
                            | "git"
                            | "init"
                            | "find"
                            | "grep"
                            | "help"
                            | "version"
                    )
            });
        (all || pass_name).then_some(*what)
    })
}

/// Options that, given alone, ask any program only to describe itself.
const SELF_DESCRIBING: &[&str] = &["--version", "-V", "--help", "-h", "version", "help"];

/// Whether the gate knows something of a program by its name alone (a service CLI, a
/// credential printer): an entry of the policy's book then adds to the guess for it, never
/// takes its place.
pub fn named(name: &str) -> bool {
    SERVICE_CLIS.contains(&name) || may_print_secret(name) || cloud::by_name(name)
}

/// Judges a program no entry of the index names.
pub fn judge<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if !by_name(words, site) {
        guess(words, site);
    }
}

/// What is known of a program the index does not name, by its name and words (credential
/// printers, service CLIs, toolchain removals, schema resets); `true` when that is the whole
/// judgement and nothing is to be guessed. Programs `cloud` knows by name are [`named`], so an
/// entry never takes the place of their rules in [`guess`]. The policy's program book adds to this, never
/// instead of it.
pub fn by_name<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) -> bool {
    if let [only] = words
        && only.literal().is_some_and(|t| SELF_DESCRIBING.contains(&t))
    {
        return true;
    }
    if !words.is_empty()
        && let Some(what) = prints_secret(site.name, words)
    {
        site.place(Read, Kind::Secret, what.to_owned());
    }
    // `aws s3 cp - s3://…`, `gh gist create -`: a service's client given `-` takes its input
    // to the service.
    // Its other words are how it is told what to do with the service, credentials included
    // (`gh secret set --body "$TOKEN"`): only secret data that no request needs leaks there.
    if SERVICE_CLIS.contains(&site.name) {
        if words.iter().any(|w| w.literal() == Some("-")) {
            site.sends_input();
        }
        for w in words {
            site.sends(w, Slot::Login);
        }
    }
    if let Some(shown) = super::toolchains::removal(site.name, words) {
        site.say(catalogue::PACKAGES_REMOVE, &shown);
        return true;
    }
    if let Some(shown) = super::data::schema_reset(site.name, words) {
        site.say(catalogue::DATA_RESET, &shown);
        return true;
    }
    if let Some(shown) = super::data::app_console(site.name, words) {
        site.say(catalogue::CODE_UNREAD, &shown);
        return true;
    }
    false
}

/// The guess for a program nothing describes: the service verbs it uses (`nuke`, `drop`,
/// `publish`); else it works in the current directory, and every word that could name a place
/// is one it may do anything with.
pub fn guess<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if cloud::service(words, site) {
        return;
    }
    cloud::publishing(words, site);
    let here = Word::made(".".to_owned(), ".", 0..0);
    site.on(Use, &here);
    // A service CLI's arguments name things on the service, not files: only the secrets a
    // word names count (`aws ssm get-parameters --names /app/one`, `kong check /etc/kong.conf`).
    let effect = if SERVICE_CLIS.contains(&site.name) {
        Read
    } else {
        Use
    };
    given(words, site, effect);
}

/// Command-line clients of services, whose arguments are mostly names on the service.
const SERVICE_CLIS: &[&str] = &[
    "aws",
    "gcloud",
    "gsutil",
    "bq",
    "az",
    "azcopy",
    "kubectl",
    "oc",
    "helm",
    "k9s",
    "kubectx",
    "kustomize",
    "docker",
    "podman",
    "nerdctl",
    "docker-compose",
    "podman-compose",
    "terraform",
    "tofu",
    "terragrunt",
    "pulumi",
    "gh",
    "glab",
    "hub",
    "vault",
    "consul",
    "nomad",
    "doppler",
    "op",
    "bw",
    "fly",
    "flyctl",
    "heroku",
    "vercel",
    "netlify",
    "wrangler",
    "firebase",
    "supabase",
    "stripe",
    "rclone",
    "restic",
    "borg",
    "kong",
    "deck",
    "haproxy",
    "nginx",
    "promtool",
    "amtool",
    "kafka-topics",
    "rabbitmqctl",
    "nats",
    "redis-server",
    "etcdctl",
    "ansible",
    "ansible-playbook",
    "packer",
    "vagrant",
    "minikube",
    "kind",
    "k3d",
    "skaffold",
    "argocd",
    "flux",
    "istioctl",
    "linkerd",
    "eksctl",
    "doctl",
    "hcloud",
    "linode-cli",
    "gitlab-rake",
    "jenkins-cli",
    "sentry-cli",
    "datadog-ci",
    "newrelic",
    "mc",
    "s3cmd",
];

/// Every word that could name a place gets `effect`: operands, the values of `--opt=value`
/// and `KEY=value`, and `@file` (curl's and many tools' way to name a file to read).
pub fn given<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>, effect: Effect) {
    for w in words {
        if let Some(place) = place_word(w) {
            site.tree(effect, &place);
        }
    }
}

/// The part of a word that could name a place: the word, what follows `=` in an option or
/// assignment, what follows `@`. Flags (`-la`) and addresses (`https://…`) name none.
pub fn place_word<'s>(w: &Word<'s>) -> Option<Word<'s>> {
    let mut w = w.clone();
    // Each step takes a prefix off the text (a dynamic word's text is as written); a step
    // that takes nothing off ends the walk.
    loop {
        let text = w.text.as_str();
        // A word with blanks is a message or a command (`-m "fix it"`), not a path.
        if text.is_empty()
            || text.contains("://")
            || (!w.dynamic && text.contains(char::is_whitespace))
        {
            return None;
        }
        let cut = if text.starts_with('-') {
            Some(text.find('=')? + 1)
        } else if text.len() > 1 && text.starts_with('@') {
            return Some(w.tail(1));
        } else {
            text.split_once('=')
                .filter(|(key, _)| {
                    !key.is_empty()
                        && key
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
                })
                .map(|(key, _)| key.len() + 1)
        };
        let Some(cut) = cut else {
            return Some(w);
        };
        let next = w.tail(cut);
        if next.text.len() >= w.text.len() {
            return Some(next);
        }
        w = next;
    }
}
