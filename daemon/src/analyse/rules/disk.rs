//! Disks and devices: `dd`, `mkfs`, and what counts as a block device.

use super::super::catalogue;
use super::super::words::{Word, place};
use super::{Class, Site};

pub const COMMANDS: &[(&str, Class)] = &[
    ("dd", Class::Rule(dd)),
    ("mkfs", Class::Rule(mkfs)),
    ("mke2fs", Class::Rule(mkfs)),
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
}
