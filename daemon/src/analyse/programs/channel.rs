//! The approval channel: where a person is shown a held request and answers it. The
//! notification server that shows it (whatever owns `org.freedesktop.Notifications`), its
//! control tools and settings, notifications that replace or close another's by id, messages
//! onto other terminals, and keys typed into other panes and windows. An agent that drives
//! any of it answers its own gate, so each is one of the level table's `gate` cells.
//!
//! Which files are the channel's is the vocabulary's (`places/vocabulary.rs`: other terminals,
//! the servers' configuration, D-Bus activation files); which programs, processes and units,
//! and which of their words change something, is here, one table entry per program. Status
//! queries (`dunstctl count`, `makoctl list`, `gsettings get`) stay what they were. This
//! module reads the words a command was given; it never reads shell.

use std::ops::Range;

use super::super::State;
use super::super::catalogue::{self, Said};
use super::super::words::Word;

/// The notification servers: the names they run under, which `pkill`, `killall`, `pidof`
/// and starting one are judged by. GNOME's and KDE's are their shells.
pub const SERVERS: &[&str] = &[
    "dunst",
    "mako",
    "notification-daemon",
    "xfce4-notifyd",
    "swaync",
    "fnott",
    "deadd-notification-center",
    "notify-osd",
    "lxqt-notificationd",
    "mate-notification-daemon",
    "twmnd",
    "tiramisu",
    "wired",
    "linux_notification_center",
    "gnome-shell",
    "plasmashell",
    "/usr/bin/dunst",
    "/usr/bin/mako",
    "/usr/lib/notification-daemon/notification-daemon",
];

/// Units that run a notification server, besides units named as one of [`SERVERS`].
const UNITS: &[&str] = &["dbus-org.freedesktop.Notifications"];

/// Whether a unit stem (`dunst` of `dunst.service`) runs a notification server.
pub fn serves_unit(stem: &str) -> bool {
    SERVERS.contains(&stem) || UNITS.contains(&stem)
}

/// Every unit name a glob over units is tried against.
pub fn unit_names() -> impl Iterator<Item = &'static str> {
    SERVERS
        .iter()
        .chain(UNITS)
        .copied()
        .filter(|s| !s.contains('/'))
}

/// What a program does to the channel, from its name and words.
type Model = fn(&str, &[Word]) -> Option<Said>;

/// The channel's programs, each with its model.
const PROGRAMS: &[(&[&str], Model)] = &[
    (SERVERS, server),
    (&["dunstctl"], dunstctl),
    (&["makoctl"], makoctl),
    (&["fnottctl"], fnottctl),
    (&["swaync-client"], swaync_client),
    (&["notify-send", "dunstify"], notify_send),
    (
        &[
            "gdbus",
            "dbus-send",
            "busctl",
            "qdbus",
            "qdbus6",
            "qdbus-qt5",
        ],
        dbus,
    ),
    (&["gsettings"], gsettings),
    (&["dconf"], dconf),
    (&["xfconf-query"], xfconf_query),
    (
        &["kwriteconfig", "kwriteconfig5", "kwriteconfig6"],
        kwriteconfig,
    ),
    (&["write", "wall"], terminal),
    (
        &[
            "xdotool", "ydotool", "dotool", "dotoolc", "wtype", "xte", "xvkbd", "ttyecho",
        ],
        typer,
    ),
];

/// Judges one simple command against the channel's table: `name` is the program's base name
/// (a versioned name, `kwriteconfig6`, is listed as it is).
pub fn judge(name: &str, args: &[Word], span: Range<usize>, st: &mut State) {
    let Some((_, model)) = PROGRAMS.iter().find(|(names, _)| names.contains(&name)) else {
        return;
    };
    if let Some(said) = model(name, args) {
        let mut shown = vec![name];
        shown.extend(args.iter().take(3).map(|w| w.raw));
        st.add(said.at(span, &shown.join(" ")));
    }
}

/// Only options that print help or a version, and at least one: a server given anything else
/// as well (`-v` is verbose to some) may start.
fn inert(args: &[Word]) -> bool {
    !args.is_empty()
        && args.iter().all(|w| {
            matches!(
                w.literal(),
                Some("-h" | "--help" | "-help" | "-v" | "-V" | "--version" | "-version")
            )
        })
}

/// The first word that is not an option (`-` alone is one: stdin); a dynamic one as written.
fn operand<'a>(args: &'a [Word]) -> Option<&'a Word<'a>> {
    args.iter()
        .find(|w| w.dynamic || !w.text.starts_with('-') || w.text == "-")
}

/// Whether the first operand is one of `reads` (no operand at all prints usage).
fn reads(args: &[Word], reads: &[&str]) -> bool {
    match operand(args) {
        None => true,
        Some(w) => w.literal().is_some_and(|t| reads.contains(&t)),
    }
}

/// A notification server started: it decides what a held request shows and what a click
/// answers (dunst's configuration can run a script that picks an action).
fn server(_: &str, args: &[Word]) -> Option<Said> {
    (!inert(args)).then_some(catalogue::CHANNEL_SERVER)
}

fn drives(read_only: bool) -> Option<Said> {
    (!read_only).then_some(catalogue::CHANNEL_DRIVE)
}

fn dunstctl(_: &str, args: &[Word]) -> Option<Said> {
    const READS: &[&str] = &[
        "count",
        "history",
        "is-paused",
        "get-pause-level",
        "rules",
        "debug",
        "help",
    ];
    drives(inert(args) || reads(args, READS))
}

fn makoctl(_: &str, args: &[Word]) -> Option<Said> {
    const READS: &[&str] = &["list", "history", "help"];
    // `makoctl mode` alone prints the modes; with `-a`, `-r`, `-s` or `-t` it changes them.
    let mode_shown = operand(args).and_then(Word::literal) == Some("mode")
        && args.iter().filter(|w| w.text != "mode").count() == 0;
    drives(inert(args) || mode_shown || reads(args, READS))
}

fn fnottctl(_: &str, args: &[Word]) -> Option<Said> {
    drives(inert(args) || reads(args, &["list"]))
}

fn swaync_client(_: &str, args: &[Word]) -> Option<Said> {
    const READS: &[&str] = &[
        "-D",
        "--get-dnd",
        "-c",
        "--count",
        "-s",
        "--subscribe",
        "-swb",
        "--subscribe-waybar",
        "-I",
        "--get-inhibited",
        "-sw",
        "--skip-wait",
        "-h",
        "--help",
        "-v",
        "--version",
    ];
    let read_only = args
        .iter()
        .all(|w| w.literal().is_some_and(|t| READS.contains(&t)));
    drives(read_only)
}

/// `notify-send -r ID` (`--replace-id`, dunstify's `--replaceId`) shows the caller's text in
/// place of notification ID, which may be a held request's; dunstify's `-C ID` closes one. An
/// id of 0 asks for a new notification.
fn notify_send(_: &str, args: &[Word]) -> Option<Said> {
    // Short options that take a value (libnotify's and dunstify's).
    const VALUED: &str = "uthiacrAIC";
    const REPLACE: &[&str] = &["--replace-id", "--replaceId", "--close"];
    let replaces = |value: Option<&Word>| match value {
        None => false,
        Some(w) if w.dynamic => true,
        Some(w) => w.text.trim().parse::<u32>() != Ok(0),
    };
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        // A word only partly known is read as written (`--replace-id="$(cat id)"`): its
        // value after the option is then unknown, which replaces.
        let t = w.text.as_str();
        if w.dynamic && !t.starts_with('-') {
            continue;
        }
        if t == "--" {
            break;
        }
        if t.starts_with("--") {
            let (option, joined) = match t.split_once('=') {
                Some((o, v)) => (o, Some(v)),
                None => (t, None),
            };
            if REPLACE.contains(&option) {
                let apart = joined.is_none().then(|| args.get(i)).flatten();
                let value = joined.map(|v| Word {
                    dynamic: w.dynamic,
                    ..Word::made(v.to_owned(), w.raw, w.span.clone())
                });
                if replaces(value.as_ref().or(apart)) {
                    return Some(catalogue::CHANNEL_REPLACE);
                }
            }
            continue;
        }
        let Some(cluster) = t.strip_prefix('-').filter(|c| !c.is_empty()) else {
            continue;
        };
        for (at, c) in cluster.char_indices() {
            if !VALUED.contains(c) {
                continue;
            }
            let rest = &cluster[at + c.len_utf8()..];
            if matches!(c, 'r' | 'C') {
                let joined = (!rest.is_empty()).then(|| Word {
                    dynamic: w.dynamic,
                    ..Word::made(rest.to_owned(), w.raw, w.span.clone())
                });
                let value = joined.as_ref().or_else(|| args.get(i));
                if replaces(value) {
                    return Some(catalogue::CHANNEL_REPLACE);
                }
            }
            if rest.is_empty() {
                i += 1;
            }
            break;
        }
    }
    None
}

/// D-Bus names of notification servers' own control interfaces and of the gate's approval
/// agent: any message to them drives the channel (`dunstctl action` is one such call).
const CONTROLS: &[&str] = &[
    "org.dunstproject.",
    "fr.emersion.mako",
    "org.emersion.mako",
    "org.erikreider.swaync",
    "org.xfce.notifyd",
    "org.kde.notificationmanager",
    "org.assent.",
];

/// Methods and signals of `org.freedesktop.Notifications` that act on a notification already
/// shown: closing one, or forging the server's signals an approval agent reads as a click.
const ACTS_ON_SHOWN: &[&str] = &[
    "CloseNotification",
    "ActionInvoked",
    "NotificationClosed",
    "ActivationToken",
    "NotificationReplied",
];

/// `gdbus call|emit`, `dbus-send`, `busctl call|emit`, `qdbus`: a `Notify` whose second
/// argument (`replaces_id`) is not 0, a call or signal in [`ACTS_ON_SHOWN`], or any message to
/// a server's control interface in [`CONTROLS`]. Listing and introspecting stay reads.
fn dbus(name: &str, args: &[Word]) -> Option<Said> {
    const LOOKS: &[&str] = &[
        "introspect",
        "monitor",
        "wait",
        "list",
        "status",
        "tree",
        "capture",
        "get-property",
        "help",
    ];
    let texts: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    // A method or signal written as `--method=X` is the word X.
    let member = |t: &str| -> String {
        let t = t
            .strip_prefix("--method=")
            .or_else(|| t.strip_prefix("--signal="))
            .unwrap_or(t);
        t.rsplit('.').next().unwrap_or(t).to_owned()
    };
    if texts
        .iter()
        .any(|t| ACTS_ON_SHOWN.contains(&member(t).as_str()))
    {
        return Some(catalogue::CHANNEL_REPLACE);
    }
    let looks = name != "dbus-send" && reads(args, LOOKS);
    let controls = texts.iter().any(|t| {
        let t = t.to_ascii_lowercase();
        CONTROLS.iter().any(|c| t.contains(c))
    });
    if controls && !looks {
        return Some(catalogue::CHANNEL_DRIVE);
    }
    let notifications = texts
        .iter()
        .any(|t| t.contains("org.freedesktop.Notifications"));
    if !notifications {
        return None;
    }
    // KDE's `Inhibit` hides every notification while it holds.
    if texts.iter().any(|t| member(t) == "Inhibit") {
        return Some(catalogue::CHANNEL_DRIVE);
    }
    let at = texts.iter().position(|t| member(t) == "Notify")?;
    // busctl writes the signature before the arguments.
    let skip = usize::from(name == "busctl");
    let replaces = args[at + 1..]
        .iter()
        .filter(|w| !w.text.starts_with("--"))
        .nth(1 + skip)?;
    if replaces.dynamic {
        return Some(catalogue::CHANNEL_REPLACE);
    }
    // `uint32:7` (dbus-send), `uint32 7` or `@u 7` (GVariant text), `7`.
    let id = replaces.text.rsplit([':', ' ']).next().unwrap_or("").trim();
    match id.parse::<u32>() {
        Ok(0) => None,
        _ => Some(catalogue::CHANNEL_REPLACE),
    }
}

/// Whether a program's text names the notification server's bus name or object path: it talks
/// to the server itself.
pub fn names_the_server(code: &str) -> bool {
    code.contains("org.freedesktop.Notifications")
        || code.contains("/org/freedesktop/Notifications")
}

/// Whether a settings name (a schema, a dconf path, a file) is the notifications'.
fn about_notifications(text: &str) -> bool {
    text.to_ascii_lowercase().contains("notif")
}

/// `gsettings set|reset|reset-recursively SCHEMA KEY`, on a notifications schema
/// (`org.gnome.desktop.notifications`, per application too).
fn gsettings(_: &str, args: &[Word]) -> Option<Said> {
    let mut operands = args
        .iter()
        .filter(|w| w.dynamic || !w.text.starts_with('-'));
    // `--schemadir DIR` comes before the verb.
    let verb = operands.find(|w| w.dynamic || !w.text.starts_with('/'))?;
    let changes =
        verb.dynamic || matches!(verb.text.as_str(), "set" | "reset" | "reset-recursively");
    let schema = operands.next()?;
    drives(!(changes && (schema.dynamic || about_notifications(&schema.text))))
}

/// `dconf write|reset|load KEY`, on the notifications' settings or a directory above them.
fn dconf(_: &str, args: &[Word]) -> Option<Said> {
    const ABOVE: &str = "/org/gnome/desktop/notifications/";
    let mut operands = args
        .iter()
        .filter(|w| w.dynamic || !w.text.starts_with('-'));
    let verb = operands.next()?;
    let changes = verb.dynamic || matches!(verb.text.as_str(), "write" | "reset" | "load");
    let key = operands.next()?;
    let ours = key.dynamic || about_notifications(&key.text) || ABOVE.starts_with(&key.text);
    drives(!(changes && ours))
}

/// `xfconf-query -c xfce4-notifyd … -s|-r|-n|-T`: xfce4-notifyd's settings changed.
fn xfconf_query(_: &str, args: &[Word]) -> Option<Said> {
    let mut channel: Option<&Word> = None;
    let mut changes = false;
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        match t {
            "-c" | "--channel" => channel = args.get(i + 1),
            "-s" | "--set" | "-r" | "--reset" | "-n" | "--create" | "-T" | "--toggle" => {
                changes = true
            }
            _ if t.starts_with("--channel=") || (t.starts_with("-c") && !t.starts_with("--")) => {
                channel = Some(w)
            }
            _ => {}
        }
    }
    let ours = channel.is_some_and(|w| w.dynamic || w.text.contains("xfce4-notifyd"));
    drives(!(changes && ours))
}

/// `kwriteconfig6 --file plasmanotifyrc …`: KDE's notification settings.
fn kwriteconfig(_: &str, args: &[Word]) -> Option<Said> {
    let file = args
        .iter()
        .enumerate()
        .find_map(|(i, w)| match w.text.as_str() {
            "--file" => args.get(i + 1),
            t if t.starts_with("--file=") => Some(w),
            _ => None,
        })?;
    drives(!(file.dynamic || about_notifications(&file.text)))
}

/// `write USER [TTY]`, `wall [MESSAGE]`: text onto other terminals.
fn terminal(name: &str, args: &[Word]) -> Option<Said> {
    let writes = !inert(args) && (name == "wall" || operand(args).is_some());
    writes.then_some(catalogue::CHANNEL_TERMINAL)
}

/// Input synthesis: what it types lands in whatever window or terminal has the focus.
fn typer(name: &str, args: &[Word]) -> Option<Said> {
    (types_input(name, args) && !inert(args)).then_some(catalogue::CHANNEL_TYPED)
}

/// Programs that type keys, text or clicks into whatever window or terminal has the focus,
/// and the verbs of theirs that do (none listed: any use does).
const INPUT_TYPERS: &[(&str, &[&str])] = &[
    (
        "xdotool",
        &[
            "key",
            "keydown",
            "keyup",
            "type",
            "click",
            "mousedown",
            "mouseup",
            "mousemove",
            "mousemove_relative",
            "windowactivate",
            "windowfocus",
            "exec",
        ],
    ),
    (
        "ydotool",
        &["key", "type", "click", "mousemove", "mousedown", "mouseup"],
    ),
    ("dotool", &[]),
    ("dotoolc", &[]),
    ("wtype", &[]),
    ("xte", &[]),
    ("xvkbd", &[]),
    ("ttyecho", &[]),
];

/// xdotool commands that only ask; a first word that is none of them (a script file, `-`
/// for one on standard input, or a command that acts) types.
const XDOTOOL_ASKS: &[&str] = &[
    "getactivewindow",
    "getwindowfocus",
    "getwindowname",
    "getwindowpid",
    "getwindowgeometry",
    "getwindowclassname",
    "getdisplaygeometry",
    "getmouselocation",
    "search",
    "selectwindow",
    "get_desktop",
    "get_num_desktops",
    "get_desktop_for_window",
    "get_desktop_viewport",
    "version",
    "help",
];

/// Whether `name ARGS` types into another window or terminal: what it types runs there
/// unchecked, a held request's prompt or notification included.
pub fn types_input(name: &str, args: &[Word]) -> bool {
    let Some((_, verbs)) = INPUT_TYPERS.iter().find(|(n, _)| *n == name) else {
        return false;
    };
    if name == "xdotool" && !reads(args, XDOTOOL_ASKS) {
        return true;
    }
    verbs.is_empty()
        || args
            .iter()
            .any(|w| w.dynamic || w.literal().is_some_and(|t| verbs.contains(&t)))
}

/// tmux commands that type into a pane: keys, a paste buffer, or a command's output
/// (`pipe-pane -I`); tmux takes any unique prefix of a command's name too.
const TMUX_TYPES: &[&str] = &["send-keys", "send-prefix", "paste-buffer", "pipe-pane"];

/// Whether tmux command `name` (full, alias or prefix) types into a pane.
pub fn tmux_types(name: &str) -> bool {
    matches!(name, "send" | "pasteb" | "pipep")
        || (name.len() >= 4 && TMUX_TYPES.iter().any(|full| full.starts_with(name)))
}

/// `screen -X` commands that type into a window (`eval` runs any of them, `at` runs one in
/// other windows).
pub const SCREEN_TYPES: &[&str] = &["stuff", "paste", "eval", "process", "at"];

#[cfg(test)]
mod tests;
