//! Table tests for the approval channel: command in, level and finding ids out.

use assent_client::protocol::Level::{self, Forbidden, Moderate, Safe};

use super::super::git::tests::check;

#[rustfmt::skip]
pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
    // The notification server: stopped, started, driven, reconfigured.
    ("pkill dunst", Forbidden, &["stop.gate"]),
    ("killall -9 mako", Forbidden, &["stop.gate"]),
    ("systemctl --user stop dunst.service", Forbidden, &["stop.gate"]),
    ("systemctl --user restart dunst", Forbidden, &["change.gate"]),
    ("systemctl --user status dunst", Safe, &[]),
    ("dunst -conf /tmp/x", Forbidden, &["change.gate", "use.project", "use.temp"]),
    ("dunst --version", Safe, &[]),
    ("dunstctl action 0", Forbidden, &["change.gate", "use.project"]),
    ("dunstctl set-paused toggle", Forbidden, &["change.gate", "use.project"]),
    ("dunstctl is-paused", Moderate, &["use.project"]),
    ("dunstctl count displayed", Moderate, &["use.project"]),
    ("makoctl invoke -n 3 allow", Forbidden, &["change.gate", "use.project"]),
    ("makoctl mode -a do-not-disturb", Forbidden, &["change.gate", "use.project"]),
    ("makoctl mode", Moderate, &["use.project"]),
    ("makoctl list", Moderate, &["use.project"]),
    ("swaync-client -C", Forbidden, &["change.gate", "use.project"]),
    ("swaync-client --get-dnd", Moderate, &["use.project"]),
    ("gsettings set org.gnome.desktop.notifications show-banners false", Forbidden, &["change.gate", "use.project"]),
    ("gsettings get org.gnome.desktop.notifications show-banners", Moderate, &["use.project"]),
    ("gsettings set org.gnome.desktop.interface gtk-theme Adwaita", Moderate, &["use.project"]),
    ("xfconf-query -c xfce4-notifyd -p /do-not-disturb -s true", Forbidden, &["change.gate", "use.project", "use.data"]),
    ("kwriteconfig6 --file plasmanotifyrc --group DoNotDisturb --key Until 1", Forbidden, &["change.gate", "use.project"]),
    ("kwriteconfig6 --file kdeglobals --group General --key x 1", Moderate, &["use.project"]),
    ("vim ~/.config/dunst/dunstrc", Forbidden, &["write.gate"]),
    // Notifications by id.
    ("notify-send done", Safe, &[]),
    ("notify-send -r 7 t", Forbidden, &["change.gate"]),
    ("notify-send -r0 t", Safe, &[]),
    ("notify-send -pr9 t", Forbidden, &["change.gate"]),
    ("notify-send -ur t", Safe, &[]),
    ("notify-send --replace-id=3 t", Forbidden, &["change.gate"]),
    ("notify-send -- -r 3", Safe, &[]),
    ("notify-send --replace-id=\"$(cat id)\" t", Forbidden, &["change.gate"]),
    ("notify-send -r\"$n\" t", Forbidden, &["change.gate"]),
    ("notify-send -u \"$level\" t", Safe, &[]),
    ("qdbus org.freedesktop.Notifications /org/freedesktop/Notifications Inhibit a b {}", Forbidden, &["change.gate", "use.project", "use.data"]),
    ("busctl --user emit /org/freedesktop/Notifications org.freedesktop.Notifications ActionInvoked us 5 allow", Forbidden, &["change.gate", "use.project", "use.data"]),
    ("kill -STOP $(pidof dunst)", Forbidden, &["change.services", "stop.gate"]),
    ("pkill -f 'notification-d(aemon)?'", Forbidden, &["stop.gate"]),
    ("systemctl --user stop dbus-org.freedesktop.Notifications", Forbidden, &["stop.gate"]),
    ("dunstify -C 4", Forbidden, &["change.gate", "use.project"]),
    // Other terminals.
    ("echo y > /dev/pts/3", Forbidden, &["overwrite.gate"]),
    ("echo y > /dev/tty", Safe, &[]),
    ("socat - /dev/pts/3", Forbidden, &["send.remote", "write.gate"]),
    ("wall hello", Forbidden, &["write.gate", "use.project"]),
    ("write --help", Safe, &[]),
    // Typed input.
    ("tmux send-keys -t 1 y", Forbidden, &["change.gate", "run.unknown"]),
    ("tmux paste-b -t 1", Forbidden, &["change.gate", "run.unknown"]),
    ("tmux capture-pane -p", Safe, &[]),
    ("screen -X stuff y", Forbidden, &["change.gate", "run.unknown"]),
    ("screen -X title build", Safe, &[]),
    ("screen -X at 0 stuff y", Forbidden, &["change.gate"]),
    ("tmux if-shell true 'send-keys -t 1 y'", Forbidden, &["change.gate", "run.unknown"]),
    // Read as tmux and screen read their options and separators.
    ("tmux -f/etc/tmux.conf send-keys -t 1 y", Forbidden, &["change.gate", "run.unknown"]),
    ("tmux -S/tmp/sockL ls", Safe, &[]),
    ("tmux 'ls;' send-keys y", Forbidden, &["change.gate", "run.unknown"]),
    ("tmux 'ls\\;' send-keys y", Safe, &[]),
    ("tmux \"$C\" -t 1 y", Forbidden, &["change.gate", "run.unknown"]),
    ("screen -dr s -X stuff y", Forbidden, &["change.gate", "run.unknown"]),
    ("screen -X -S s stuff y", Forbidden, &["change.gate", "run.unknown"]),
    ("screen -Ss -X title build", Safe, &[]),
    ("screen -X exec '.!.' echo y", Forbidden, &["change.gate", "run.unknown"]),
    ("socat -u - OPEN:/dev/pts/3", Forbidden, &["send.remote", "write.gate"]),
    ("socat -u OPEN:/dev/pts/3 -", Moderate, &["send.remote"]),
    ("xdotool -", Forbidden, &["change.gate", "run.unknown", "use.project"]),
    ("swaync -v -c /tmp/x", Forbidden, &["change.gate", "use.project", "use.temp"]),
    ("xdotool getwindowname 42", Moderate, &["use.project"]),
    ("wtype y", Forbidden, &["change.gate", "run.unknown", "use.project"]),
    ("ls -l /dev/pts", Safe, &[]),
];

#[test]
fn table() {
    check(CASES);
}

#[test]
fn tmux_takes_prefixes_of_typing_commands() {
    for name in [
        "send-keys",
        "send",
        "send-k",
        "paste-buffer",
        "pasteb",
        "paste",
        "pipe-pane",
        "pipep",
        "pipe",
    ] {
        assert!(super::tmux_types(name), "{name}");
    }
    for name in [
        "set-buffer",
        "show-buffer",
        "capture-pane",
        "se",
        "list-sessions",
    ] {
        assert!(!super::tmux_types(name), "{name}");
    }
}
