//! The system: power (`shutdown`, `systemctl reboot`), services (`systemctl stop`), processes
//! (`kill -9 -1`, `pkill`), scheduled jobs (`crontab -r`), firewalls (`iptables -F`, `nft
//! flush`, `ufw disable`) and accounts (`userdel`, `passwd -d`, `visudo`). Fork bombs are
//! found from the shape of the line, not here.

use std::ops::Range;

use super::super::State;
use super::super::act::Site;
use super::super::catalogue::{self, Said};
use super::super::words::Word;
use super::gate;
use crate::analyse::effects::Effect;
use crate::places::Kind;

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

fn report(site: &mut Site, kind: Said, args: &[Word]) {
    let mut out = vec![site.name];
    out.extend(args.iter().take(3).map(|w| w.raw));
    let detail = out.join(" ");
    site.say(kind, &detail);
}

pub fn power<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
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

pub fn init<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
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

/// `journalctl --vacuum-size=…|--vacuum-time=…|--vacuum-files=…` deletes archived journal
/// files, the system's record of what happened; `--rotate` only archives them.
pub fn journalctl<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if args
        .iter()
        .filter_map(Word::literal)
        .any(|t| t.starts_with("--vacuum-"))
    {
        let journal = Word::made("/var/log/journal".to_owned(), "/var/log/journal", 0..0);
        site.tree(super::super::effects::Effect::Delete, &journal);
    }
}

pub fn systemctl<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let Some(verb) = first_operand(args) else {
        return;
    };
    let gate = args
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .skip(1)
        .any(gate::names_unit);
    if gate && !SYSTEMCTL_READS.contains(&verb) {
        let stops = matches!(
            verb,
            "stop" | "disable" | "mask" | "kill" | "freeze" | "clean"
        );
        let said = if stops {
            catalogue::GATE_STOP
        } else {
            catalogue::GATE_CHANGE
        };
        report(site, said, args);
        return;
    }
    let kind = match verb {
        "reboot" | "poweroff" | "halt" | "kexec" | "soft-reboot" | "rescue" | "emergency"
        | "isolate" | "default" => catalogue::SYSTEM_POWER,
        "stop" | "disable" | "mask" | "kill" => catalogue::SERVICE_STOP,
        v if SYSTEMCTL_READS.contains(&v) => return,
        _ => catalogue::SYSTEM_CHANGE,
    };
    report(site, kind, args);
}

/// `loginctl terminate-user|kill-user|terminate-session|kill-session`: every process of a
/// user or a session, the agent's and the gate's approval agent among them.
pub fn loginctl<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    match first_operand(args) {
        Some(
            "terminate-user" | "kill-user" | "terminate-session" | "kill-session"
            | "terminate-seat",
        ) => report(site, catalogue::KILL_ALL, args),
        Some(
            "lock-session" | "lock-sessions" | "enable-linger" | "disable-linger" | "attach"
            | "flush-devices" | "activate" | "unlock-session" | "unlock-sessions",
        ) => report(site, catalogue::SYSTEM_CHANGE, args),
        _ => {}
    }
}

/// `service NAME stop`.
pub fn service<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let ops: Vec<&str> = texts(args).filter(|t| !t.starts_with('-')).collect();
    let gate = args
        .iter()
        .find(|w| !w.text.starts_with('-'))
        .is_some_and(gate::names_unit);
    if gate && !matches!(ops.get(1), Some(&"status") | None) {
        let said = if ops.get(1) == Some(&"stop") {
            catalogue::GATE_STOP
        } else {
            catalogue::GATE_CHANGE
        };
        report(site, said, args);
        return;
    }
    match ops.get(1) {
        Some(&"stop") => report(site, catalogue::SERVICE_STOP, args),
        Some(&("status" | "--status-all")) | None => {}
        Some(_) => report(site, catalogue::SYSTEM_CHANGE, args),
    }
}

/// `kill [-SIGNAL | -s SIGNAL | -n NUM] PID…`: a PID of `-1` is every process the user may
/// signal.
pub fn kill<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
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
    // `-1`, however written (`-01`): every process.
    let everyone = |p: &&str| {
        p.strip_prefix('-')
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n == 1)
    };
    if pids.iter().any(everyone) {
        report(site, catalogue::KILL_ALL, args);
    } else if !pids.is_empty() {
        report(site, catalogue::SYSTEM_CHANGE, args);
    }
    // Pids only known when the line runs (`$(pidof assentd)`, `xargs kill`): if the line
    // looks the gate's processes up, this kills the gate (decided once the line is walked).
    let runtime = args.iter().any(|w| w.dynamic && !w.text.starts_with('-'));
    if runtime && site.st.runtime_kill.is_none() {
        let mut shown = vec![site.name];
        shown.extend(args.iter().take(3).map(|w| w.raw));
        site.st.runtime_kill = Some((site.span.clone(), shown.join(" ")));
    }
}

/// Tracers and debuggers attached to a running process (`strace -p PID`, `gdb --pid PID`,
/// `gcore PID`): they stop it and read or change its memory, as much a change to it as a
/// signal, and what they read is its memory: the tokens and keys it holds (an `ssh-agent`'s,
/// a browser's), as `/proc/PID/mem` is. A pid only known when the line runs is the gate's when
/// the line looks the gate's processes up, as for `kill`.
pub fn attach<'s>(name: &str, args: &[Word<'s>], span: Range<usize>, st: &mut State) {
    // Tracers of every process at once: what any of them reads or holds.
    if matches!(name, "bpftrace" | "sysdig" | "csysdig") {
        let mut site = Site::new(name, super::super::getopt::Args::default(), span, st);
        site.place(
            Effect::Read,
            Kind::Secret,
            format!("what every process reads and holds (`{name}`)"),
        );
        site.report();
        return;
    }
    if name == "procdump"
        || (name == "perf" && args.iter().any(|w| w.text == "-p" || w.text == "--pid"))
    {
        let pids: Vec<&Word> = args
            .windows(2)
            .filter(|w| matches!(w[0].text.as_str(), "-p" | "--pid"))
            .map(|w| &w[1])
            .collect();
        return attached(name, &pids, span, st);
    }
    if name == "gcore" {
        let mut pids = Vec::new();
        let mut i = 0;
        while let Some(w) = args.get(i) {
            match w.text.as_str() {
                "-o" => i += 1,
                t if !t.starts_with('-') => pids.push(w),
                _ => {}
            }
            i += 1;
        }
        return attached(name, &pids, span, st);
    }
    if !matches!(name, "strace" | "ltrace" | "gdb" | "gdb-multiarch" | "cgdb") {
        return;
    }
    let mut pids: Vec<&Word<'s>> = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        match t {
            "--" => break,
            "-p" | "--pid" | "--attach" => pids.extend(args.get(i + 1)),
            _ if t.starts_with("--pid=") || t.starts_with("--attach=") => pids.push(w),
            _ if t.starts_with("-p") && t.len() > 2 && !t.starts_with("--") => pids.push(w),
            // strace's and ltrace's options that take the next word (`-e trace=read`).
            "-e" | "-o" | "-s" | "-a" | "-b" | "-E" | "-I" | "-O" | "-P" | "-S" | "-U" | "-X"
            | "-u" | "-n" | "-x" | "-l" | "-L" | "-F"
                if name != "gdb" && !name.starts_with("gdb") && name != "cgdb" =>
            {
                i += 1;
            }
            // The traced command: its own options are not the tracer's.
            _ if !t.starts_with('-') && name != "gdb" => break,
            _ => {}
        }
        i += 1;
    }
    attached(name, &pids, span, st);
}

/// `name` attached to the processes `pids`: a change to them, and a read of their memory.
fn attached(name: &str, pids: &[&Word], span: Range<usize>, st: &mut State) {
    let Some(first) = pids.first() else {
        return;
    };
    let detail = format!("{name} -p {}", first.raw);
    if pids.iter().any(|w| w.dynamic) && st.runtime_kill.is_none() {
        st.runtime_kill = Some((span.clone(), detail.clone()));
    }
    st.add(catalogue::SYSTEM_CHANGE.at(span.clone(), &detail));
    let mut site = Site::new(name, super::super::getopt::Args::default(), span, st);
    site.place(
        Effect::Read,
        Kind::Secret,
        format!("the memory of process {} (`{detail}`)", first.quoted()),
    );
    site.report();
}

/// `ps` with BSD's `e` (`ps eww`, `ps auxe`): after each command, the environment it was
/// started with, tokens included, every process's the user may read, as `/proc/PID/environ`
/// holds it. (`ps -e` is POSIX's "every process", no environment.)
pub fn ps<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    // BSD options are letters without a dash; these take the next word as their value.
    const VALUED: &[&str] = &[
        "-C",
        "-G",
        "-g",
        "-o",
        "-O",
        "-p",
        "-q",
        "-s",
        "-t",
        "-U",
        "-u",
        "-k",
        "o",
        "O",
        "p",
        "q",
        "t",
        "U",
        "k",
        "--pid",
        "--ppid",
        "--user",
        "--group",
        "--format",
        "--sort",
        "--sid",
        "--tty",
        "--cols",
        "--columns",
        "--rows",
        "--lines",
        "--width",
    ];
    let mut previous = "";
    for w in args {
        let Some(t) = w.literal() else {
            previous = "";
            continue;
        };
        let bsd =
            !t.starts_with('-') && !t.is_empty() && t.chars().all(|c| c.is_ascii_alphabetic());
        if bsd && t.contains('e') && !VALUED.contains(&previous) {
            site.place(
                Effect::Read,
                Kind::Secret,
                format!("every process's environment (`ps {t}`), tokens included"),
            );
            return;
        }
        previous = t;
    }
}

/// `pkill` and `killall` options that take a value as the next word.
const KILL_BY_NAME_VALUES: &[&str] = &[
    "-u",
    "-U",
    "-g",
    "-G",
    "-P",
    "-s",
    "-t",
    "-F",
    "-O",
    "-o",
    "-y",
    "-n",
    "-Z",
    "--signal",
    "--pidfile",
    "--older",
    "--older-than",
    "--younger-than",
    "--ns",
    "--nslist",
    "--context",
    "--euid",
    "--uid",
    "--pgroup",
    "--group",
    "--parent",
    "--session",
    "--terminal",
    "--user",
];

pub fn kill_by_name<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let lists = texts(args).any(|t| matches!(t, "-l" | "--list" | "-V" | "--version" | "--help"));
    if lists || args.is_empty() {
        return;
    }
    // `pkill` (and `killall -r`) patterns are regular expressions; `killall` names are exact.
    let regex = site.name == "pkill" || texts(args).any(|t| t == "-r" || t == "--regexp");
    let mut words = args.iter();
    let mut gate = false;
    while let Some(w) = words.next() {
        let t = w.text.as_str();
        if w.literal().is_some() && t.starts_with('-') && t.len() > 1 {
            if KILL_BY_NAME_VALUES.contains(&t) {
                words.next();
            }
            continue;
        }
        gate |= gate::names_process(w, regex, site.st);
    }
    let said = if gate {
        catalogue::GATE_STOP
    } else {
        catalogue::KILL_BY_NAME
    };
    report(site, said, args);
}

pub fn kill_everything<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    report(site, catalogue::KILL_ALL, args);
}

pub fn crontab<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let removes =
        texts(args).any(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('r'));
    if removes {
        report(site, catalogue::CRONTAB_REMOVE, args);
    } else if !texts(args).any(|t| t == "-l") {
        report(site, catalogue::CRONTAB_WRITE, args);
    }
}

pub fn iptables<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let mut kind = None;
    for t in texts(args) {
        let short = t.strip_prefix('-').filter(|s| !s.starts_with('-'));
        let k = match (t, short) {
            ("--flush" | "--delete-chain" | "--delete" | "--policy", _) => {
                Some(catalogue::FIREWALL)
            }
            (_, Some(s)) if s.starts_with(['F', 'X', 'D', 'P']) => Some(catalogue::FIREWALL),
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
            && kind.is_none_or(|old: Said| level(k) > level(old))
        {
            kind = Some(k);
        }
    }
    if let Some(k) = kind {
        report(site, k, args);
    }
}

pub fn nft<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    match first_operand(args) {
        Some("flush" | "delete" | "destroy") => report(site, catalogue::FIREWALL, args),
        Some("list" | "describe" | "monitor") | None => {
            if texts(args).any(|t| t == "-f" || t == "--file") {
                report(site, catalogue::SYSTEM_CHANGE, args);
            }
        }
        Some(_) => report(site, catalogue::SYSTEM_CHANGE, args),
    }
}

pub fn ufw<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    match first_operand(args) {
        Some("disable" | "reset" | "delete") => report(site, catalogue::FIREWALL, args),
        Some("status" | "show" | "version" | "app") | None => {}
        Some(_) => report(site, catalogue::SYSTEM_CHANGE, args),
    }
}

pub fn account<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if !helps(args) {
        report(site, catalogue::USER, args);
    }
}

pub fn passwd<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    // `-d` deletes the password, `-l` locks the account, `-e` expires it.
    let harms = texts(args).any(|t| {
        matches!(t, "--delete" | "--lock" | "--expire")
            || (t.starts_with('-') && !t.starts_with("--") && t.contains(['d', 'l', 'e']))
    });
    if texts(args).any(|t| t == "-S" || t == "--status") {
        return;
    }
    let kind = if harms {
        catalogue::USER
    } else {
        catalogue::SYSTEM_CHANGE
    };
    report(site, kind, args);
}

pub fn usermod<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let harms = texts(args).any(|t| {
        matches!(
            t,
            "-L" | "--lock" | "-e" | "--expiredate" | "-p" | "--password"
        )
    });
    let kind = if harms {
        catalogue::USER
    } else {
        catalogue::SYSTEM_CHANGE
    };
    report(site, kind, args);
}

/// Mounting, kernel settings, accounts added: changes to the machine that can be undone.
pub fn change<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if !helps(args) && !args.is_empty() {
        report(site, catalogue::SYSTEM_CHANGE, args);
    }
}

/// `mount` and `umount` change the system, and what lies at the mount point: a mount covers
/// it (`mount -t tmpfs none /run/assent` hides the gate's socket), an unmount takes away what
/// was mounted there. A mount point among the places that matter (the gate, secrets, protected
/// or system files, a home, the root) is overwritten as a whole; elsewhere (`/mnt/usb`) the
/// change to the system says enough.
pub fn mount<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    change(args, site);
    const VALUED: &[&str] = &[
        "-t",
        "-o",
        "-O",
        "-L",
        "-U",
        "-T",
        "-N",
        "--types",
        "--options",
        "--source",
        "--test-opts",
        "--fstab",
        "--namespace",
        "--label",
        "--uuid",
    ];
    let mut targets: Vec<&Word<'s>> = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "--target" {
            targets.extend(args.get(i + 1));
            i += 2;
            continue;
        }
        if VALUED.contains(&t) {
            i += 2;
            continue;
        }
        if !t.starts_with('-') || w.dynamic {
            targets.push(w);
        }
        i += 1;
    }
    // `mount SOURCE TARGET`: the last operand is where it mounts; `umount` takes targets only.
    let at: Vec<&Word<'s>> = if site.name == "mount" {
        targets.last().copied().into_iter().collect()
    } else {
        targets
    };
    for w in at {
        let placed = site.placed(w, true);
        let matters = [
            Kind::Gate,
            Kind::Secret,
            Kind::Protected,
            Kind::System,
            Kind::Home,
            Kind::Root,
            Kind::Unknown,
        ]
        .iter()
        .any(|k| placed.has(*k));
        if matters {
            site.tree(Effect::Overwrite, w);
        }
    }
}

fn level(said: Said) -> assent_client::protocol::Level {
    super::super::effects::level(said.effect, said.place)
}

pub fn visudo<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    // `visudo -c` only checks the file.
    if !texts(args).any(|t| t == "-c" || t == "--check" || t == "--help") {
        report(site, catalogue::SUDOERS, args);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use assent_client::protocol::Level::{self, Destructive, Forbidden, Moderate, Safe};

    use super::super::git::tests::check;

    #[rustfmt::skip]
    pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
        ("shutdown -h now", Destructive, &["stop.machine"]),
        ("reboot", Destructive, &["stop.machine"]),
        ("poweroff", Destructive, &["stop.machine"]),
        ("shutdown -c", Moderate, &["change.services"]),
        ("systemctl reboot", Destructive, &["stop.machine"]),
        ("systemctl --user stop app", Destructive, &["stop.services"]),
        ("systemctl disable --now nginx", Destructive, &["stop.services"]),
        ("systemctl mask sshd", Destructive, &["stop.services"]),
        ("systemctl restart nginx", Moderate, &["change.services"]),
        ("systemctl status nginx", Safe, &[]),
        ("init 0", Destructive, &["stop.machine"]),
        ("telinit 6", Destructive, &["stop.machine"]),
        ("service nginx stop", Destructive, &["stop.services"]),
        ("service nginx status", Safe, &[]),
        ("service nginx restart", Moderate, &["change.services"]),
        ("kill -9 -1", Forbidden, &["stop.root"]),
        ("kill -KILL -1", Forbidden, &["stop.root"]),
        ("kill -s KILL -1", Forbidden, &["stop.root"]),
        ("kill -- -1", Forbidden, &["stop.root"]),
        ("killall5 -9", Forbidden, &["stop.root"]),
        ("kill 1234", Moderate, &["change.services"]),
        ("kill -9 1234", Moderate, &["change.services"]),
        ("kill -l", Safe, &[]),
        ("ps eww -p 1234", Destructive, &["read.secret"]),
        ("ps auxe", Destructive, &["read.secret"]),
        ("ps axe -o pid,cmd", Destructive, &["read.secret"]),
        ("ps aux", Safe, &[]),
        ("ps ewwp 1", Destructive, &["read.secret"]),
        ("ps p 1 o comm", Safe, &[]),
        ("bpftrace -e 'uprobe:/bin/bash:readline{printf(\"%s\",str(arg0))}'", Destructive, &["read.secret", "use.project"]),
        ("procdump -p 1234", Destructive, &["change.services", "read.secret", "use.project"]),
        ("ps -ef", Safe, &[]),
        ("ps -e -o pid,comm", Safe, &[]),
        ("ps -C sleep", Safe, &[]),
        ("ps -u steve", Safe, &[]),
        ("gcore -o /tmp/core 1234", Destructive, &["change.services", "read.secret", "use.project", "use.temp"]),
        ("strace -f -e trace=read -p 1234", Destructive, &["change.services", "read.secret"]),
        ("gdb -p 1234 -batch -ex 'gcore /tmp/c'", Destructive, &["change.services", "read.secret", "use.project"]),
        ("strace -f cargo build", Moderate, &["run.project"]),
        ("pkill -f 'npm run dev'", Destructive, &["stop.services"]),
        ("killall node", Destructive, &["stop.services"]),
        ("crontab -r", Destructive, &["delete.protected"]),
        ("crontab -ir", Destructive, &["delete.protected"]),
        ("crontab -l", Safe, &[]),
        ("crontab jobs.txt", Destructive, &["write.protected"]),
        ("iptables -F", Destructive, &["delete.machine"]),
        ("iptables --flush INPUT", Destructive, &["delete.machine"]),
        ("ip6tables -X", Destructive, &["delete.machine"]),
        ("iptables -P INPUT DROP", Destructive, &["delete.machine"]),
        ("iptables -A INPUT -p tcp --dport 22 -j ACCEPT", Moderate, &["change.services"]),
        ("iptables -L -n", Safe, &[]),
        ("nft flush ruleset", Destructive, &["delete.machine"]),
        ("nft delete table inet filter", Destructive, &["delete.machine"]),
        ("nft list ruleset", Safe, &[]),
        ("ufw disable", Destructive, &["delete.machine"]),
        ("ufw reset", Destructive, &["delete.machine"]),
        ("ufw allow 22", Moderate, &["change.services"]),
        ("ufw status", Safe, &[]),
        ("userdel -r bob", Destructive, &["delete.machine"]),
        ("deluser bob", Destructive, &["delete.machine"]),
        ("passwd -d bob", Destructive, &["delete.machine"]),
        ("passwd -l bob", Destructive, &["delete.machine"]),
        ("passwd -S bob", Safe, &[]),
        ("usermod -L bob", Destructive, &["delete.machine"]),
        ("usermod -aG docker bob", Moderate, &["change.services"]),
        ("echo 'bob:x' | chpasswd", Destructive, &["delete.machine"]),
        ("visudo", Destructive, &["overwrite.protected"]),
        ("visudo -c", Safe, &[]),
    ];

    #[test]
    fn system_table() {
        check(CASES);
    }
}
