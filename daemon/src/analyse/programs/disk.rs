//! Disks and devices: making file systems (`mkfs`), erasing tools (`wipefs -a`,
//! `blkdiscard`, `cryptsetup luksFormat`), partition and volume tools (`fdisk`, `parted`,
//! `sgdisk`, `mdadm`, LVM, `btrfs`). They erase what they are given: a disk or partition
//! (forbidden: the vocabulary says it is a device), or a disk image in the project.

use super::super::act::Site;
use super::super::catalogue;
use super::super::effects::Effect::Erase;
use super::super::words::Word;

/// `mkfs` and kin: the device operand is erased.
pub fn mkfs<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let (opts, ops) = split(args);
    if opts
        .iter()
        .any(|o| matches!(*o, "--help" | "-V" | "--version"))
    {
        return;
    }
    // The device is the operand that looks like one, else the last (a block count may follow).
    let target = ops
        .iter()
        .find(|w| w.text.starts_with("/dev/"))
        .or(ops
            .iter()
            .find(|w| !w.text.chars().all(|c| c.is_ascii_digit())))
        .copied();
    match target {
        Some(t) => site.on(Erase, t),
        None => site.say(catalogue::DISK_LAYOUT, site.name),
    }
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
fn split<'a, 's>(args: &'a [Word<'s>]) -> (Vec<&'a str>, Vec<&'a Word<'s>>) {
    let opts = args
        .iter()
        .map(|w| w.text.as_str())
        .filter(|t| t.starts_with('-'))
        .collect();
    let ops = args.iter().filter(|w| !w.text.starts_with('-')).collect();
    (opts, ops)
}

pub fn erase<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let (opts, ops) = split(args);
    let texts: Vec<&str> = ops.iter().map(|w| w.text.as_str()).collect();
    if !erases(site.name, &opts, &texts) {
        return;
    }
    let paths: Vec<&Word> = ops
        .iter()
        .filter(|w| w.text.contains('/'))
        .copied()
        .collect();
    if paths.is_empty() {
        let mut words = vec![site.name];
        words.extend(args.iter().take(3).map(|w| w.raw));
        site.say(catalogue::DISK_LAYOUT, &words.join(" "));
    }
    for p in paths {
        site.on(Erase, p);
    }
}

/// Partition, RAID and volume tools: everything but listing and inspecting changes a layout.
pub fn layout<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
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
        "nbd-client" => has(&["-l", "--list", "-c", "--check", "--help", "--version"]),
        _ => has(&["--help", "--version"]) || (site.name.ends_with("remove") && first.is_none()),
    };
    if !reads {
        let devices: Vec<&Word> = ops
            .iter()
            .filter(|w| w.text.starts_with("/dev/"))
            .copied()
            .collect();
        if devices.is_empty() {
            let mut words = vec![site.name];
            words.extend(args.iter().take(3).map(|w| w.raw));
            site.say(catalogue::DISK_LAYOUT, &words.join(" "));
        }
        for d in devices {
            site.on(Erase, d);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use assent_client::protocol::Level::{self, Destructive, Forbidden, Safe};

    use super::super::git::tests::check;

    #[rustfmt::skip]
    pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
        ("mkfs.ext4 /dev/sdb1", Forbidden, &["erase.device"]),
        ("mkfs.ext4 /dev/sdb", Forbidden, &["erase.device"]),
        ("mkswap /dev/sdb2", Forbidden, &["erase.device"]),
        ("dd if=/dev/zero of=/dev/sda", Forbidden, &["erase.device"]),
        ("dd if=x.iso of=disk.img", Destructive, &["erase.project"]),
        ("dd if=zero.dat of=/dev/null bs=1M count=1", Safe, &[]),
        ("wipefs -a /dev/sdb", Forbidden, &["erase.device"]),
        ("wipefs --all somefile.img", Destructive, &["erase.unknown"]),
        ("wipefs /dev/sdb", Safe, &[]),
        ("wipefs -a -n /dev/sdb1", Safe, &[]),
        ("blkdiscard /dev/nvme0n1", Forbidden, &["erase.device"]),
        ("blkdiscard /dev/nvme0n1p3", Forbidden, &["erase.device"]),
        ("hdparm --security-erase pw /dev/sdb", Forbidden, &["erase.device"]),
        ("hdparm -I /dev/sda", Safe, &[]),
        ("cryptsetup luksFormat /dev/sdb1", Forbidden, &["erase.device"]),
        ("cryptsetup open /dev/sdb1 c", Safe, &[]),
        ("sgdisk -Z /dev/sda", Forbidden, &["erase.device"]),
        ("sgdisk -p /dev/sda", Safe, &[]),
        ("fdisk -l", Safe, &[]),
        ("fdisk /dev/sda", Forbidden, &["erase.device"]),
        ("sfdisk -d /dev/sda", Safe, &[]),
        ("sfdisk /dev/sda", Forbidden, &["erase.device"]),
        ("parted -l", Safe, &[]),
        ("parted /dev/sda print", Safe, &[]),
        ("parted /dev/sda rm 1", Forbidden, &["erase.device"]),
        ("mdadm --zero-superblock /dev/sda1", Forbidden, &["erase.device"]),
        ("mdadm --stop /dev/md0", Forbidden, &["erase.device"]),
        ("mdadm --detail /dev/md0", Safe, &[]),
        ("lvremove /dev/vg/lv", Forbidden, &["erase.device"]),
        ("vgremove my_vg", Destructive, &["erase.unknown"]),
        ("btrfs subvolume delete /mnt/s", Destructive, &["erase.unknown"]),
        ("btrfs check --repair /dev/sda1", Forbidden, &["erase.device"]),
        ("btrfs filesystem show", Safe, &[]),
    ];

    #[test]
    fn disk_table() {
        check(CASES);
    }
}
