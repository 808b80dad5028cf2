//! Programs whose destructive forms no verb shows, or shows with a finer meaning: containers
//! (`docker rm`, `compose down -v`), workloads stopped (`kubectl drain`), infrastructure
//! applied without review (`terraform apply -auto-approve`), syncs that delete (`rclone
//! sync`), secrets overwritten or engines disabled (`aws secretsmanager put-secret-value`,
//! `vault secrets disable`).

use super::super::super::act::Site;
use super::super::super::catalogue::{self, Said};
use super::super::super::words::Word;
use super::{operands, shown};

type Special = fn(&[&str], &[Word]) -> Option<Said>;

const PROGRAMS: &[(&str, Special)] = &[
    ("docker", containers),
    ("podman", containers),
    ("nerdctl", containers),
    ("docker-compose", compose),
    ("podman-compose", compose),
    ("kubectl", kubectl),
    ("oc", kubectl),
    ("terraform", terraform),
    ("tofu", terraform),
    ("terragrunt", terraform),
    ("pulumi", pulumi),
    ("aws", aws),
    ("vault", vault),
    ("gsutil", gsutil),
    ("rclone", rclone),
    ("deck", deck),
    ("nginx", nginx),
];

/// Whether a special rule names the program.
pub(super) fn known(name: &str) -> bool {
    PROGRAMS.iter().any(|(n, _)| *n == name)
}

/// Reports what a known program's special rule finds; true if it did.
pub(super) fn special<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) -> bool {
    let Some((_, rule)) = PROGRAMS.iter().find(|(n, _)| *n == site.name) else {
        return false;
    };
    let ops: Vec<&str> = operands(args)
        .take(6)
        .map(|w| w.literal().unwrap_or(""))
        .collect();
    match rule(&ops, args) {
        Some(kind) => {
            site.say(kind, &shown(site.name, args));
            true
        }
        None => false,
    }
}

/// `args` has one of `options`, alone or as `--opt=value`.
fn has(args: &[Word], options: &[&str]) -> bool {
    args.iter().filter_map(Word::literal).any(|t| {
        let opt = t.split_once('=').map_or(t, |(o, _)| o);
        options.contains(&opt)
    })
}

const REMOVE: Option<Said> = Some(catalogue::CONTAINER_REMOVE);
const STOP: Option<Said> = Some(catalogue::CLOUD_STOP);

fn containers(ops: &[&str], args: &[Word]) -> Option<Said> {
    match ops {
        ["rm" | "rmi", ..] => REMOVE,
        [
            "container" | "image" | "volume" | "network",
            "rm" | "remove" | "prune",
            ..,
        ] => REMOVE,
        ["system" | "builder" | "buildx", "prune", ..] => REMOVE,
        // `podman system reset` deletes every container, image and volume.
        ["system", "reset", ..] => REMOVE,
        ["stop" | "kill", ..] | ["container", "stop" | "kill", ..] => STOP,
        ["compose", rest @ ..] => compose(rest, args),
        _ => None,
    }
}

fn compose(ops: &[&str], args: &[Word]) -> Option<Said> {
    match ops.first() {
        Some(&"down") if has(args, &["-v", "--volumes", "--rmi"]) => REMOVE,
        Some(&"rm") => REMOVE,
        Some(&("down" | "stop" | "kill")) => STOP,
        _ => None,
    }
}

fn kubectl(ops: &[&str], args: &[Word]) -> Option<Said> {
    let zero = args.iter().enumerate().any(|(i, w)| match w.literal() {
        Some("--replicas") => args.get(i + 1).and_then(Word::literal) == Some("0"),
        Some(t) => t == "--replicas=0",
        None => false,
    });
    match ops.first() {
        Some(&"drain") => STOP,
        Some(&"scale") if zero => STOP,
        _ => None,
    }
}

fn terraform(ops: &[&str], args: &[Word]) -> Option<Said> {
    let destroy = has(args, &["-destroy", "--destroy"]);
    match ops.first() {
        Some(&"apply") if destroy => Some(catalogue::CLOUD_DELETE),
        Some(&"apply") if has(args, &["-auto-approve", "--auto-approve"]) => {
            Some(catalogue::APPLY_UNREVIEWED)
        }
        _ => None,
    }
}

fn pulumi(ops: &[&str], args: &[Word]) -> Option<Said> {
    let unreviewed = has(args, &["--yes", "-y", "--skip-preview", "-f"]);
    match ops.first() {
        Some(&("up" | "update")) if unreviewed => Some(catalogue::APPLY_UNREVIEWED),
        _ => None,
    }
}

fn aws(ops: &[&str], args: &[Word]) -> Option<Said> {
    let op = |name: &str| ops.iter().take(4).any(|o| *o == name);
    if op("update-secret") || op("put-secret-value") {
        return Some(catalogue::CLOUD_OVERWRITE);
    }
    let deletes_records = args.iter().any(|w| w.text.contains("DELETE"));
    if op("change-resource-record-sets") && deletes_records {
        return Some(catalogue::CLOUD_DELETE);
    }
    None
}

/// `vault [--namespace NS] secrets|auth|audit disable PATH`.
fn vault(ops: &[&str], _: &[Word]) -> Option<Said> {
    let disables = ops
        .windows(2)
        .take(3)
        .any(|w| matches!(w, ["secrets" | "auth" | "audit", "disable"]));
    disables.then_some(catalogue::CLOUD_DISABLE)
}

fn gsutil(ops: &[&str], args: &[Word]) -> Option<Said> {
    let d = args
        .iter()
        .filter_map(Word::literal)
        .any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('d'));
    (ops.first() == Some(&"rsync") && d).then_some(catalogue::SYNC_DELETE)
}

/// Options that make a sync only show what it would do.
const DRY_RUN: &[&str] = &["--dry-run", "-n", "--interactive", "-i"];

fn rclone(ops: &[&str], args: &[Word]) -> Option<Said> {
    // `move` deletes the files it copied from the source.
    let syncs = matches!(ops.first(), Some(&("sync" | "bisync" | "move" | "moveto")));
    (syncs && !has(args, DRY_RUN)).then_some(catalogue::SYNC_DELETE)
}

fn deck(ops: &[&str], args: &[Word]) -> Option<Said> {
    let syncs = matches!(ops, ["sync", ..] | ["gateway", "sync", ..]);
    (syncs && !has(args, DRY_RUN)).then_some(catalogue::SYNC_DELETE)
}

fn nginx(_: &[&str], args: &[Word]) -> Option<Said> {
    let signals = args.iter().enumerate().any(|(i, w)| {
        w.literal() == Some("-s")
            && matches!(
                args.get(i + 1).and_then(Word::literal),
                Some("stop" | "quit")
            )
    });
    signals.then_some(catalogue::CLOUD_STOP)
}
