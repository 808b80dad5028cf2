//! The system: power (`shutdown`, `systemctl reboot`), services (`systemctl stop`), processes
//! (`kill -9 -1`, `pkill`), scheduled jobs (`crontab -r`), firewalls (`iptables -F`, `nft
//! flush`, `ufw disable`) and accounts (`userdel`, `passwd -d`, `visudo`). Fork bombs are
//! found from the shape of the line, not here.

use super::super::catalogue::{self, Kind};
use super::super::words::Word;
use super::{Class, Site};

pub const COMMANDS: &[(&str, Class)] = &[
    ("shutdown", Class::Rule(power)),
    ("reboot", Class::Rule(power)),
    ("halt", Class::Rule(power)),
    ("poweroff", Class::Rule(power)),
    ("init", Class::Rule(init)),
    ("telinit", Class::Rule(init)),
    ("systemctl", Class::Rule(systemctl)),
    ("service", Class::Rule(service)),
    ("kill", Class::Rule(kill)),
    ("killall", Class::Rule(kill_by_name)),
    ("pkill", Class::Rule(kill_by_name)),
    ("killall5", Class::Rule(kill_everything)),
    ("crontab", Class::Rule(crontab)),
    ("iptables", Class::Rule(iptables)),
    ("ip6tables", Class::Rule(iptables)),
    ("iptables-legacy", Class::Rule(iptables)),
    ("iptables-nft", Class::Rule(iptables)),
    ("ebtables", Class::Rule(iptables)),
    ("arptables", Class::Rule(iptables)),
    ("nft", Class::Rule(nft)),
    ("ufw", Class::Rule(ufw)),
    ("userdel", Class::Rule(account)),
    ("deluser", Class::Rule(account)),
    ("groupdel", Class::Rule(account)),
    ("delgroup", Class::Rule(account)),
    ("chpasswd", Class::Rule(account)),
    ("passwd", Class::Rule(passwd)),
    ("usermod", Class::Rule(usermod)),
    ("visudo", Class::Rule(visudo)),
];

/// Literal words, dynamic ones as written.
fn texts<'a>(args: &'a [Word]) -> impl Iterator<Item = &'a str> {
    args.iter().map(|w| w.text.as_str())
}

/// The first word that is not an option.
fn first_operand<'a>(args: &'a [Word]) -> Option<&'a str> {
    texts(args).find(|t| !t.starts_with('-'))
}

fn helps(args: &[Word]) -> bool {
    texts(args).any(|t| t == "--help" || t == "--version")
}

fn report(site: &mut Site, kind: Kind, args: &[Word]) {
    let mut out = vec![site.name];
    out.extend(args.iter().take(3).map(|w| w.raw));
    let detail = out.join(" ");
    site.report(kind, &detail);
}

fn power(args: &[Word], site: &mut Site) {
    if helps(args) {
        return;
    }
    // `shutdown -c` cancels a pending shutdown.
    if site.name == "shutdown" && texts(args).any(|t| t == "-c") {
        report(site, catalogue::SYSTEM_CHANGE, args);
    } else {
        report(site, catalogue::SYSTEM_POWER, args);
    }
}

fn init(args: &[Word], site: &mut Site) {
    match first_operand(args) {
        Some("0" | "6" | "1" | "s" | "S" | "halt" | "reboot") => {
            report(site, catalogue::SYSTEM_POWER, args)
        }
        Some(_) => report(site, catalogue::SYSTEM_CHANGE, args),
        None => {}
    }
}

/// `systemctl` verbs that only read.
const SYSTEMCTL_READS: &[&str] = &[
    "status",
    "show",
    "cat",
    "list-units",
    "list-unit-files",
    "list-sockets",
    "list-timers",
    "list-jobs",
    "list-dependencies",
    "list-machines",
    "is-active",
    "is-enabled",
    "is-failed",
    "is-system-running",
    "get-default",
    "help",
    "show-environment",
];

fn systemctl(args: &[Word], site: &mut Site) {
    let Some(verb) = first_operand(args) else {
        return;
    };
    let kind = match verb {
        "reboot" | "poweroff" | "halt" | "kexec" | "soft-reboot" | "rescue" | "emergency"
        | "isolate" | "default" => catalogue::SYSTEM_POWER,
        "stop" | "disable" | "mask" | "kill" => catalogue::SYSTEM_SERVICE_STOP,
        v if SYSTEMCTL_READS.contains(&v) => return,
        _ => catalogue::SYSTEM_CHANGE,
    };
    report(site, kind, args);
}

/// `service NAME stop`.
fn service(args: &[Word], site: &mut Site) {
    let ops: Vec<&str> = texts(args).filter(|t| !t.starts_with('-')).collect();
    match ops.get(1) {
        Some(&"stop") => report(site, catalogue::SYSTEM_SERVICE_STOP, args),
        Some(&("status" | "--status-all")) | None => {}
        Some(_) => report(site, catalogue::SYSTEM_CHANGE, args),
    }
}

/// `kill [-SIGNAL | -s SIGNAL | -n NUM] PID…`: a PID of `-1` is every process the user may
/// signal.
fn kill(args: &[Word], site: &mut Site) {
    let mut words = texts(args).peekable();
    let mut pids = Vec::new();
    let mut first = true;
    while let Some(t) = words.next() {
        match t {
            "-l" | "-L" | "--list" | "--table" if first => return,
            "-s" | "-n" | "--signal" if first => {
                words.next();
            }
            "--" => pids.extend(words.by_ref()),
            t if first && t.starts_with('-') && t.len() > 1 => {}
            t => pids.push(t),
        }
        first = false;
    }
    if pids.contains(&"-1") {
        report(site, catalogue::SYSTEM_KILL_ALL, args);
    } else if !pids.is_empty() {
        report(site, catalogue::SYSTEM_CHANGE, args);
    }
}

fn kill_by_name(args: &[Word], site: &mut Site) {
    let lists = texts(args).any(|t| matches!(t, "-l" | "--list" | "-V" | "--version" | "--help"));
    if !lists && !args.is_empty() {
        report(site, catalogue::SYSTEM_KILL_BY_NAME, args);
    }
}

fn kill_everything(args: &[Word], site: &mut Site) {
    report(site, catalogue::SYSTEM_KILL_ALL, args);
}

fn crontab(args: &[Word], site: &mut Site) {
    let removes =
        texts(args).any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('r'));
    if removes {
        report(site, catalogue::SYSTEM_CRONTAB_REMOVE, args);
    } else if !texts(args).any(|t| t == "-l") {
        report(site, catalogue::SYSTEM_CHANGE, args);
    }
}

fn iptables(args: &[Word], site: &mut Site) {
    let mut kind = None;
    for t in texts(args) {
        let short = t.strip_prefix('-').filter(|s| !s.starts_with('-'));
        let k = match (t, short) {
            ("--flush" | "--delete-chain" | "--delete" | "--policy", _) => {
                Some(catalogue::SYSTEM_FIREWALL)
            }
            (_, Some(s)) if s.starts_with(['F', 'X', 'D', 'P']) => Some(catalogue::SYSTEM_FIREWALL),
            ("--list" | "--list-rules" | "--check", _) => None,
            (_, Some(s)) if s.starts_with(['L', 'S', 'C']) => None,
            ("--append" | "--insert" | "--replace" | "--new-chain" | "--zero", _) => {
                Some(catalogue::SYSTEM_CHANGE)
            }
            (_, Some(s)) if s.starts_with(['A', 'I', 'R', 'N', 'Z', 'E']) => {
                Some(catalogue::SYSTEM_CHANGE)
            }
            _ => None,
        };
        if let Some(k) = k
            && kind.is_none_or(|old: Kind| k.level > old.level)
        {
            kind = Some(k);
        }
    }
    if let Some(k) = kind {
        report(site, k, args);
    }
}

fn nft(args: &[Word], site: &mut Site) {
    match first_operand(args) {
        Some("flush" | "delete" | "destroy") => report(site, catalogue::SYSTEM_FIREWALL, args),
        Some("list" | "describe" | "monitor") | None => {
            if texts(args).any(|t| t == "-f" || t == "--file") {
                report(site, catalogue::SYSTEM_CHANGE, args);
            }
        }
        Some(_) => report(site, catalogue::SYSTEM_CHANGE, args),
    }
}

fn ufw(args: &[Word], site: &mut Site) {
    match first_operand(args) {
        Some("disable" | "reset" | "delete") => report(site, catalogue::SYSTEM_FIREWALL, args),
        Some("status" | "show" | "version" | "app") | None => {}
        Some(_) => report(site, catalogue::SYSTEM_CHANGE, args),
    }
}

fn account(args: &[Word], site: &mut Site) {
    if !helps(args) {
        report(site, catalogue::SYSTEM_USER, args);
    }
}

fn passwd(args: &[Word], site: &mut Site) {
    // `-d` deletes the password, `-l` locks the account, `-e` expires it.
    let harms = texts(args).any(|t| {
        matches!(t, "--delete" | "--lock" | "--expire")
            || (t.starts_with('-') && !t.starts_with("--") && t.contains(['d', 'l', 'e']))
    });
    if texts(args).any(|t| t == "-S" || t == "--status") {
        return;
    }
    let kind = if harms {
        catalogue::SYSTEM_USER
    } else {
        catalogue::SYSTEM_CHANGE
    };
    report(site, kind, args);
}

fn usermod(args: &[Word], site: &mut Site) {
    let harms = texts(args).any(|t| {
        matches!(
            t,
            "-L" | "--lock" | "-e" | "--expiredate" | "-p" | "--password"
        )
    });
    let kind = if harms {
        catalogue::SYSTEM_USER
    } else {
        catalogue::SYSTEM_CHANGE
    };
    report(site, kind, args);
}

fn visudo(args: &[Word], site: &mut Site) {
    // `visudo -c` only checks the file.
    if !texts(args).any(|t| t == "-c" || t == "--check" || t == "--help") {
        report(site, catalogue::SYSTEM_SUDOERS, args);
    }
}

#[cfg(test)]
mod tests {
    use assent_client::protocol::Level::{self, Destructive, Forbidden, Moderate, Safe};

    use super::super::git::tests::check;

    const POWER: &[&str] = &["system.power"];
    const STOP: &[&str] = &["system.service_stop"];
    const CHANGE: &[&str] = &["system.change"];
    const FIREWALL: &[&str] = &["system.firewall"];
    const USER: &[&str] = &["system.user"];

    #[rustfmt::skip]
    const CASES: &[(&str, Level, &[&str])] = &[
        ("shutdown -h now", Destructive, POWER),
        ("reboot", Destructive, POWER),
        ("poweroff", Destructive, POWER),
        ("shutdown -c", Moderate, CHANGE),
        ("systemctl reboot", Destructive, POWER),
        ("systemctl --user stop app", Destructive, STOP),
        ("systemctl disable --now nginx", Destructive, STOP),
        ("systemctl mask sshd", Destructive, STOP),
        ("systemctl restart nginx", Moderate, CHANGE),
        ("systemctl status nginx", Safe, &[]),
        ("init 0", Destructive, POWER),
        ("telinit 6", Destructive, POWER),
        ("service nginx stop", Destructive, STOP),
        ("service nginx status", Safe, &[]),
        ("service nginx restart", Moderate, CHANGE),
        ("kill -9 -1", Forbidden, &["system.kill_all"]),
        ("kill -KILL -1", Forbidden, &["system.kill_all"]),
        ("kill -s KILL -1", Forbidden, &["system.kill_all"]),
        ("kill -- -1", Forbidden, &["system.kill_all"]),
        ("killall5 -9", Forbidden, &["system.kill_all"]),
        ("kill 1234", Moderate, CHANGE),
        ("kill -9 1234", Moderate, CHANGE),
        ("kill -l", Safe, &[]),
        ("pkill -f 'npm run dev'", Destructive, &["system.kill_by_name"]),
        ("killall node", Destructive, &["system.kill_by_name"]),
        ("crontab -r", Destructive, &["system.crontab_remove"]),
        ("crontab -ir", Destructive, &["system.crontab_remove"]),
        ("crontab -l", Safe, &[]),
        ("crontab jobs.txt", Moderate, CHANGE),
        ("iptables -F", Destructive, FIREWALL),
        ("iptables --flush INPUT", Destructive, FIREWALL),
        ("ip6tables -X", Destructive, FIREWALL),
        ("iptables -P INPUT DROP", Destructive, FIREWALL),
        ("iptables -A INPUT -p tcp --dport 22 -j ACCEPT", Moderate, CHANGE),
        ("iptables -L -n", Safe, &[]),
        ("nft flush ruleset", Destructive, FIREWALL),
        ("nft delete table inet filter", Destructive, FIREWALL),
        ("nft list ruleset", Safe, &[]),
        ("ufw disable", Destructive, FIREWALL),
        ("ufw reset", Destructive, FIREWALL),
        ("ufw allow 22", Moderate, CHANGE),
        ("ufw status", Safe, &[]),
        ("userdel -r bob", Destructive, USER),
        ("deluser bob", Destructive, USER),
        ("passwd -d bob", Destructive, USER),
        ("passwd -l bob", Destructive, USER),
        ("passwd -S bob", Safe, &[]),
        ("usermod -L bob", Destructive, USER),
        ("usermod -aG docker bob", Moderate, CHANGE),
        ("echo 'bob:x' | chpasswd", Destructive, USER),
        ("visudo", Destructive, &["system.sudoers"]),
        ("visudo -c", Safe, &[]),
    ];

    #[test]
    fn system_table() {
        check(CASES);
    }
}
