//! The general rule for service CLIs: a destructive verb where CLIs put their subcommands
//! (`aws s3 rb`, `gcloud compute instances delete`, `nats kv del`, `aws ec2
//! terminate-instances`), an option named for the action (`kafka-topics --delete`, `aws s3
//! sync --delete`), or a program named for it (`kafka-delete-records`). Publishing is found the
//! same way: a verb that puts something where others fetch it (`docker push`, `twine upload`,
//! `gh release create`, `fly deploy`), the `--push` of a build, or a program named for it
//! (`semantic-release`).

use super::super::super::act::Site;
use super::super::super::catalogue;
use super::super::super::words::Word;
use super::{operands, shown};

/// Verbs that lose what a service holds. A word counts when one of its `-`, `_` or `:`
/// separated parts is one (`delete-bucket`, `delete_vhost`, `kv:delete`).
const VERBS: &[&str] = &[
    "delete",
    "del",
    "deletefile",
    "destroy",
    "purge",
    "drop",
    "terminate",
    "remove",
    "rm",
    "rb",
    "wipe",
    "erase",
    "prune",
    "flush",
    "flushall",
    "flushdb",
    "truncate",
    "uninstall",
    "deregister",
    "unregister",
    "revoke",
    "forget",
    "nuke",
    "undeploy",
    "unsubscribe",
    "untag",
    "expunge",
    "obliterate",
];

/// Verbs that change what a service does for everyone, in a way that can be undone: held for
/// automation by policy, like a `git push`, but not destructive.
const REMOTE_CHANGE: &[&str] = &[
    "archive",
    "disable",
    "cancel",
    "rollback",
    "activate",
    "deactivate",
    "suspend",
    "unset",
];

/// Verbs that lose data only in one program's vocabulary (`rabbitmqctl reset`).
const PROGRAM_VERBS: &[(&str, &[&str])] = &[
    ("rabbitmqctl", &["reset"]),
    ("deck", &["reset"]),
    ("kubeadm", &["reset"]),
    ("borg", &["compact", "recreate", "break"]),
    ("rclone", &["cleanup", "dedupe"]),
    ("algolia", &["clear"]),
    ("splunk", &["clean"]),
    // Rolling a key revokes the old one; restoring a backup overwrites the live data.
    ("stripe", &["roll"]),
    ("gitlab-rake", &["restore"]),
    ("gitlab-backup", &["restore"]),
];

/// Verbs that publish: what they put on a registry or service others may fetch at once.
const PUBLISHES: &[&str] = &["publish", "push", "upload", "release", "deploy"];

/// Where a publishing verb means something local in one program's vocabulary: `adb push`
/// copies to a phone, `quilt push` applies a patch, `git stash push` stashes.
const NOT_PUBLISHING: &[(&str, &str)] = &[("adb", "push"), ("quilt", "push"), ("stg", "push")];

/// Verbs that publish only in one program's vocabulary: copying an image to a registry.
const PROGRAM_PUBLISHES: &[(&str, &[&str])] = &[
    ("skopeo", &["copy", "sync"]),
    ("crane", &["copy", "cp", "append", "mutate", "tag"]),
    ("regctl", &["copy"]),
];

/// Programs that publish when run with no subcommand (`goreleaser` is `goreleaser release`).
const PUBLISH_BY_DEFAULT: &[&str] = &["goreleaser"];

/// Subcommands after a publishing verb that only look (`gh release view`, `helm push --help`
/// is caught as a flag elsewhere).
const LOOKS: &[&str] = &[
    "list", "ls", "view", "show", "get", "describe", "info", "status", "download", "help",
    "version", "check", "search", "diff", "inspect", "watch", "history",
];

/// Options that say the publishing step is only rehearsed.
const REHEARSALS: &[&str] = &[
    "--dry-run",
    "--dryrun",
    "-n",
    "--snapshot",
    "--skip-publish",
];

/// A word whose first part says the command only reads or adds: what follows it are values
/// (`nats kv get KV delete` reads the key `delete`).
const ENDS_PATH: &[&str] = &[
    "list", "ls", "get", "describe", "show", "info", "view", "status", "search", "cat", "lookup",
    "read", "diff", "check", "inspect", "create", "add", "new", "put", "set", "run", "exec",
    "start", "tail", "cp", "copy", "help", "version", "whoami", "dump", "download", "find",
    "stats", "watch", "validate", "login", "query", "browse", "test", "plan", "preview", "mount",
    "extract", "apply", "up", "build", "push", "pull",
];

/// How many operands a CLI's subcommand path may take (`op connect token delete`).
const PATH_LEN: usize = 4;

/// Options that are the destructive action itself. `false` as their value turns them off.
const ACTION_OPTIONS: &[&str] = &[
    "--delete",
    "--delete-config",
    "--delete-excluded",
    "--delete-before",
    "--delete-during",
    "--delete-after",
    "--delete-destination",
    "--delete-records",
    "--remove",
    "--remove-all",
    "--purge",
    "--drop",
    "--destroy",
    "--wipe",
    "--reset-offsets",
];

/// Subcommands after which a deleting option deletes at a sync's destination.
const SYNCS: &[&str] = &["sync", "mirror", "rsync"];

/// The parts of a word if it can be a subcommand: letters, digits, `-`, `_`, `:`.
fn parts(t: &str) -> Option<Vec<String>> {
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
    ok.then(|| {
        t.to_ascii_lowercase()
            .split(['-', '_', ':'])
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect()
    })
}

/// Reports a destructive verb, action option or program name; true if it did.
pub(super) fn destructive<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) -> bool {
    let name = site.name;
    let extra: &[&str] = PROGRAM_VERBS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, v)| v);
    let is_verb = |p: &String| VERBS.contains(&p.as_str()) || extra.contains(&p.as_str());
    let named = parts(name).is_some_and(|ps| ps.len() > 1 && ps.iter().any(is_verb));
    let mut path = Vec::new();
    let mut verb = false;
    let mut change = false;
    for w in operands(args).take(PATH_LEN) {
        let Some(ps) = w.literal().and_then(parts) else {
            continue;
        };
        if ps.first().is_some_and(|p| ENDS_PATH.contains(&p.as_str())) {
            break;
        }
        path.push(ps.join("-"));
        if ps.iter().any(is_verb) {
            verb = true;
            break;
        }
        change |= ps.iter().any(|p| REMOTE_CHANGE.contains(&p.as_str()));
    }
    if verb || named {
        site.say(catalogue::CLOUD_DELETE, &shown(name, args));
        return true;
    }
    let dry_run = args.iter().filter_map(Word::literal).any(|t| {
        matches!(t, "--dry-run" | "--dryrun" | "-n")
            || (name == "rsync" && t.starts_with('-') && !t.starts_with("--") && t.contains('n'))
    });
    if change {
        site.say(catalogue::REMOTE_CHANGE, &shown(name, args));
        return true;
    }
    if name != "wget" && !dry_run && action_option(args, name == "rsync") {
        let sync = name == "rsync" || path.iter().any(|p| SYNCS.contains(&p.as_str()));
        let kind = if sync {
            catalogue::SYNC_DELETE
        } else {
            catalogue::CLOUD_DELETE
        };
        site.say(kind, &shown(name, args));
        return true;
    }
    false
}

/// Reports a publishing verb, `--push`, or a program named for publishing; true if it did.
pub(super) fn publishes<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) -> bool {
    let name = site.name;
    let literals: Vec<&str> = args.iter().filter_map(Word::literal).collect();
    if literals.iter().any(|t| REHEARSALS.contains(t)) {
        return false;
    }
    let extra: &[&str] = PROGRAM_PUBLISHES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, v)| v);
    let is_verb = |p: &str| {
        (PUBLISHES.contains(&p) && !NOT_PUBLISHING.contains(&(name, p))) || extra.contains(&p)
    };
    let named = parts(name).is_some_and(|ps| ps.len() > 1 && ps.iter().any(|p| is_verb(p)));
    let path: Vec<Vec<String>> = operands(args)
        .take(PATH_LEN)
        .filter_map(|w| w.literal().and_then(parts))
        .collect();
    let mut verb = false;
    for (i, ps) in path.iter().enumerate() {
        if ps.iter().any(|p| is_verb(p)) {
            let looks = path
                .get(i + 1)
                .and_then(|next| next.first())
                .is_some_and(|p| LOOKS.contains(&p.as_str()));
            verb = !looks;
            break;
        }
        if ps.first().is_some_and(|p| ENDS_PATH.contains(&p.as_str())) {
            break;
        }
    }
    let by_default = PUBLISH_BY_DEFAULT.contains(&name) && path.is_empty();
    let push_option = literals
        .iter()
        .any(|t| *t == "--push" || *t == "--push=true" || t.starts_with("--output=type=registry"));
    if verb || named || by_default || push_option {
        site.say(catalogue::PUBLISH, &shown(name, args));
        return true;
    }
    false
}

/// An action option, unless its value is `false` (`--delete-destination=false`).
fn action_option(args: &[Word], rsync: bool) -> bool {
    args.iter().enumerate().any(|(i, w)| {
        let Some(t) = w.literal() else { return false };
        let (opt, inline) = match t.split_once('=') {
            Some((o, v)) => (o, Some(v)),
            None => (t, None),
        };
        let named = ACTION_OPTIONS.contains(&opt) || (rsync && opt == "--del");
        let value = inline.or_else(|| args.get(i + 1).and_then(Word::literal));
        named && !value.is_some_and(|v| v.eq_ignore_ascii_case("false"))
    })
}
