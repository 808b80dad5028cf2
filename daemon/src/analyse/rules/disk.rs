//! Disks and devices: `dd`, `mkfs`, erasing tools (`wipefs -a`, `blkdiscard`, `cryptsetup
//! luksFormat`), partition and volume tools (`fdisk`, `parted`, `sgdisk`, `mdadm`, LVM,
//! `btrfs`), and what counts as a block device. Whatever overwrites a whole disk is forbidden.

use super::super::catalogue;
use super::super::words::{Word, place};
use super::{Class, Site};

pub const COMMANDS: &[(&str, Class)] = &[
    ("dd", Class::Rule(dd)),
    ("mkfs", Class::Rule(mkfs)),
    ("mke2fs", Class::Rule(mkfs)),
    ("mkswap", Class::Rule(mkfs)),
    ("wipefs", Class::Rule(erase)),
    ("blkdiscard", Class::Rule(erase)),
    ("hdparm", Class::Rule(erase)),
    ("cryptsetup", Class::Rule(erase)),
    ("sgdisk", Class::Rule(erase)),
    ("fdisk", Class::Rule(layout)),
    ("gdisk", Class::Rule(layout)),
    ("cfdisk", Class::Rule(layout)),
    ("sfdisk", Class::Rule(layout)),
    ("parted", Class::Rule(layout)),
    ("mdadm", Class::Rule(layout)),
    ("pvremove", Class::Rule(layout)),
    ("vgremove", Class::Rule(layout)),
    ("lvremove", Class::Rule(layout)),
    ("lvreduce", Class::Rule(layout)),
    ("vgreduce", Class::Rule(layout)),
    ("btrfs", Class::Rule(layout)),
];

/// A disk device: `Some(true)` for a whole disk (`/dev/sda`, `/dev/nvme0n1`), `Some(false)`
/// for a partition (`/dev/sda1`), `None` for anything else.
pub(super) fn block_device(path: &str) -> Option<bool> {
    let dev = path.strip_prefix("/dev/")?;
    if let Some(rest) = dev.strip_prefix("disk/") {
        return Some(!rest.contains("-part"));
    }
    for prefix in ["sd", "hd", "vd", "xvd"] {
        if let Some(rest) = dev.strip_prefix(prefix)
            && rest.starts_with(|c: char| c.is_ascii_lowercase())
        {
            return Some(!rest.contains(|c: char| c.is_ascii_digit()));
        }
    }
    for prefix in ["nvme", "mmcblk"] {
        if let Some(rest) = dev.strip_prefix(prefix)
            && rest.starts_with(|c: char| c.is_ascii_digit())
        {
            return Some(!rest.contains('p'));
        }
    }
    None
}

/// Special files that a write does no harm to.
pub(super) fn harmless(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero"
    ) || path
        .strip_prefix("/dev/fd/")
        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

fn dd(args: &[Word], site: &mut Site) {
    let Some(of) = args.iter().find(|w| w.text.starts_with("of=")) else {
        return;
    };
    let target = Word {
        text: of.text[3..].to_owned(),
        raw: of.raw.get(3..).unwrap_or(of.raw),
        dynamic: of.dynamic,
        span: of.span.clone(),
    };
    let where_to = place(&target, site.ctx());
    let path = where_to.as_path();
    if path.is_some_and(harmless) {
        return;
    }
    if path.and_then(block_device).is_some() {
        site.report(catalogue::DISK_ROOT_DEVICE, &format!("`{}`", target.raw));
    } else {
        site.report(catalogue::DISK_DD_WRITE, &format!("`{}`", target.raw));
    }
}

fn mkfs(args: &[Word], site: &mut Site) {
    let ctx = site.ctx();
    let devices: Vec<(&Word, Option<bool>)> = args
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .map(|w| (w, place(w, ctx).as_path().and_then(block_device)))
        .collect();
    if let Some((disk, _)) = devices.iter().find(|(_, whole)| *whole == Some(true)) {
        let detail = format!("`{}`", disk.raw);
        site.report(catalogue::DISK_ROOT_DEVICE, &detail);
        return;
    }
    let target = devices
        .iter()
        .find(|(_, d)| d.is_some())
        .or(devices.last())
        .map_or("", |(w, _)| w.raw);
    let detail = format!("{} {target}", site.name);
    site.report(catalogue::DISK_MKFS, detail.trim_end());
}

/// Whether an erasing tool erases with these options: `wipefs` only lists without `-a` or
/// `-o`; `hdparm` and `cryptsetup` erase only with certain actions; `sgdisk` zaps or clears.
fn erases(name: &str, opts: &[&str], ops: &[&str]) -> bool {
    let short = |c: char| {
        opts.iter()
            .any(|o| !o.starts_with("--") && o.len() > 1 && o[1..].contains(c))
    };
    match name {
        "wipefs" => {
            !opts.iter().any(|o| matches!(*o, "-n" | "--no-act"))
                && (short('a')
                    || short('o')
                    || opts
                        .iter()
                        .any(|o| o.starts_with("--all") || o.starts_with("--offset")))
        }
        "hdparm" => opts.iter().any(|o| {
            o.starts_with("--security-erase")
                || o.starts_with("--trim-sector-ranges")
                || o.starts_with("--write-sector")
        }),
        "cryptsetup" => ops.first().is_some_and(|a| {
            matches!(
                a.to_ascii_lowercase().as_str(),
                "luksformat"
                    | "erase"
                    | "lukserase"
                    | "lukskillslot"
                    | "luksremovekey"
                    | "reencrypt"
            )
        }),
        "sgdisk" => {
            short('Z')
                || short('z')
                || short('o')
                || short('d')
                || short('n')
                || opts
                    .iter()
                    .any(|o| matches!(*o, "--zap-all" | "--zap" | "--clear" | "--delete" | "--new"))
        }
        _ => true,
    }
}

/// Options then operands, split at the first word that does not start with `-`.
fn split<'a>(args: &'a [Word]) -> (Vec<&'a str>, Vec<&'a Word<'a>>) {
    let opts = args
        .iter()
        .map(|w| w.text.as_str())
        .filter(|t| t.starts_with('-'))
        .collect();
    let ops = args.iter().filter(|w| !w.text.starts_with('-')).collect();
    (opts, ops)
}

fn erase(args: &[Word], site: &mut Site) {
    let (opts, ops) = split(args);
    let texts: Vec<&str> = ops.iter().map(|w| w.text.as_str()).collect();
    if !erases(site.name, &opts, &texts) {
        return;
    }
    let ctx = site.ctx();
    let disk = ops
        .iter()
        .find(|w| place(w, ctx).as_path().and_then(block_device) == Some(true));
    match disk {
        Some(d) => {
            let detail = format!("`{}`", d.raw);
            site.report(catalogue::DISK_ROOT_DEVICE, &detail);
        }
        None => {
            let mut words = vec![site.name];
            words.extend(args.iter().take(3).map(|w| w.raw));
            site.report(catalogue::DISK_ERASE, &words.join(" "));
        }
    }
}

/// Partition, RAID and volume tools: everything but listing and inspecting changes a layout.
fn layout(args: &[Word], site: &mut Site) {
    let (opts, ops) = split(args);
    let first = ops.first().map(|w| w.text.as_str());
    let has = |names: &[&str]| opts.iter().any(|o| names.contains(o));
    let reads = match site.name {
        "fdisk" | "gdisk" | "sfdisk" => has(&[
            "-l",
            "--list",
            "-d",
            "--dump",
            "-J",
            "--json",
            "-s",
            "--show-size",
            "-V",
            "--verify",
            "--help",
            "--version",
        ]),
        "parted" => {
            has(&["-l", "--list", "--help", "-v", "--version"])
                || ops.get(1).is_some_and(|w| w.text == "print")
        }
        "mdadm" => {
            has(&[
                "--detail",
                "-D",
                "--examine",
                "-E",
                "--query",
                "-Q",
                "--help",
                "--version",
            ]) || !has(&[
                "--create",
                "-C",
                "--zero-superblock",
                "--stop",
                "-S",
                "--remove",
                "-r",
                "--fail",
                "-f",
                "--grow",
                "-G",
            ])
        }
        "btrfs" => {
            let repair = has(&["--repair"]);
            let loses = ops
                .iter()
                .take(2)
                .any(|w| matches!(w.text.as_str(), "delete" | "remove" | "resize"));
            !(repair || loses)
        }
        _ => has(&["--help", "--version"]) || (site.name.ends_with("remove") && first.is_none()),
    };
    if !reads {
        let mut words = vec![site.name];
        words.extend(args.iter().take(3).map(|w| w.raw));
        site.report(catalogue::DISK_LAYOUT, &words.join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_devices() {
        let cases: &[(&str, Option<bool>)] = &[
            ("/dev/sda", Some(true)),
            ("/dev/sdb1", Some(false)),
            ("/dev/nvme0n1", Some(true)),
            ("/dev/nvme0n1p2", Some(false)),
            ("/dev/vda", Some(true)),
            ("/dev/mmcblk0", Some(true)),
            ("/dev/mmcblk0p1", Some(false)),
            ("/dev/null", None),
            ("/dev/stdout", None),
            ("/dev/sd", None),
        ];
        for (path, want) in cases {
            assert_eq!(block_device(path), *want, "{path}");
        }
    }

    use assent_client::protocol::Level::{self, Destructive, Forbidden, Safe};

    use super::super::git::tests::check;

    const ROOT: &[&str] = &["disk.root_device"];
    const ERASE: &[&str] = &["disk.erase"];
    const LAYOUT: &[&str] = &["disk.layout"];

    #[rustfmt::skip]
    const CASES: &[(&str, Level, &[&str])] = &[
        ("mkfs.ext4 /dev/sdb1", Destructive, &["disk.mkfs"]),
        ("mkfs.ext4 /dev/sdb", Forbidden, ROOT),
        ("mkswap /dev/sdb2", Destructive, &["disk.mkfs"]),
        ("dd if=/dev/zero of=/dev/sda", Forbidden, ROOT),
        ("dd if=x.iso of=disk.img", Destructive, &["disk.dd_write"]),
        ("dd if=zero.dat of=/dev/null bs=1M count=1", Safe, &[]),
        ("wipefs -a /dev/sdb", Forbidden, ROOT),
        ("wipefs --all somefile.img", Destructive, ERASE),
        ("wipefs /dev/sdb", Safe, &[]),
        ("wipefs -a -n /dev/sdb1", Safe, &[]),
        ("blkdiscard /dev/nvme0n1", Forbidden, ROOT),
        ("blkdiscard /dev/nvme0n1p3", Destructive, ERASE),
        ("hdparm --security-erase pw /dev/sdb", Forbidden, ROOT),
        ("hdparm -I /dev/sda", Safe, &[]),
        ("cryptsetup luksFormat /dev/sdb1", Destructive, ERASE),
        ("cryptsetup open /dev/sdb1 c", Safe, &[]),
        ("sgdisk -Z /dev/sda", Forbidden, ROOT),
        ("sgdisk -p /dev/sda", Safe, &[]),
        ("fdisk -l", Safe, &[]),
        ("fdisk /dev/sda", Destructive, LAYOUT),
        ("sfdisk -d /dev/sda", Safe, &[]),
        ("sfdisk /dev/sda", Destructive, LAYOUT),
        ("parted -l", Safe, &[]),
        ("parted /dev/sda print", Safe, &[]),
        ("parted /dev/sda rm 1", Destructive, LAYOUT),
        ("mdadm --zero-superblock /dev/sda1", Destructive, LAYOUT),
        ("mdadm --stop /dev/md0", Destructive, LAYOUT),
        ("mdadm --detail /dev/md0", Safe, &[]),
        ("lvremove /dev/vg/lv", Destructive, LAYOUT),
        ("vgremove my_vg", Destructive, LAYOUT),
        ("btrfs subvolume delete /mnt/s", Destructive, LAYOUT),
        ("btrfs check --repair /dev/sda1", Destructive, LAYOUT),
        ("btrfs filesystem show", Safe, &[]),
    ];

    #[test]
    fn disk_table() {
        check(CASES);
    }
}
