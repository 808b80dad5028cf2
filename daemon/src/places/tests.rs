//! The vocabulary's table: a path (written as a word would be, `*` a glob, `$` an unknown part)
//! in, the places it could be out.

use super::*;

pub(crate) const HOME: &str = "/home/u";
pub(crate) const CWD: &str = "/home/u/proj";

/// Pieces from a compact notation: `$` is unknown text that may hold `/`, `@` unknown text
/// within one name, `*`, `?` and `[` start glob syntax up to the next `/`.
fn pieces(spec: &str) -> Vec<Piece> {
    let spec = match spec.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{HOME}{rest}"),
        _ => spec.to_owned(),
    };
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut chars = spec.chars().peekable();
    let flush = |lit: &mut String, out: &mut Vec<Piece>| {
        if !lit.is_empty() {
            out.push(Piece::Lit(std::mem::take(lit)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '$' => {
                flush(&mut lit, &mut out);
                out.push(Piece::Opaque);
            }
            '@' => {
                flush(&mut lit, &mut out);
                out.push(Piece::Name);
            }
            '*' | '?' | '[' => {
                flush(&mut lit, &mut out);
                let mut g = c.to_string();
                while let Some(&n) = chars.peek() {
                    if n == '/' {
                        break;
                    }
                    g.push(n);
                    chars.next();
                }
                out.push(Piece::Glob(g));
            }
            c => lit.push(c),
        }
    }
    flush(&mut lit, &mut out);
    out
}

fn kinds(spec: &str, tree: bool, w: &Where) -> Vec<&'static str> {
    let path = Path::from_pieces(&pieces(spec), w.cwd());
    classify(&path, tree, w).kinds().map(Kind::name).collect()
}

/// (path, a whole tree, places). The tool-call tests read it too: every path here is placed
/// alike in a shell word and in a tool's argument.
#[rustfmt::skip]
pub(crate) const CASES: &[(&str, bool, &[&str])] = &[
    // One file, one place.
    ("~/.ssh/id_rsa", false, &["secret"]),
    ("~/.ssh/id_rsa.pub", false, &["data"]),
    ("~/.ssh/known_hosts", false, &["protected"]),
    ("~/.ssh/authorized_keys", false, &["protected"]),
    ("~/.ssh/config", false, &["protected"]),
    ("/home/bob/.ssh/id_ed25519", false, &["secret"]),
    ("/root/.aws/credentials", false, &["secret"]),
    ("~/.aws/credentials", false, &["secret"]),
    ("~/.config/gh/hosts.yml", false, &["secret"]),
    ("~/.claude/.credentials.json", false, &["secret"]),
    ("/etc/shadow", false, &["secret", "protected"]),
    ("/etc/passwd", false, &["protected"]),
    ("/etc/hosts", false, &["protected"]),
    ("/proc/self/environ", false, &["secret"]),
    (".env", false, &["secret"]),
    ("app/.env.production", false, &["secret"]),
    (".env.example", false, &["project"]),
    ("certs/server.pem", false, &["secret"]),
    ("~/.bashrc", false, &["gate"]),
    ("~/.config/fish/config.fish", false, &["protected"]),
    ("~/.gitconfig", false, &["protected"]),
    (".git/hooks/pre-commit", false, &["protected"]),
    (".git/config", false, &["protected"]),
    ("~/.claude/settings.json", false, &["gate"]),
    (
        "~/.claude/shell-snapshots/snapshot-bash-1-abc.sh",
        false,
        &["gate"],
    ),
    ("~/.claude/session-env/abc/hook-1.sh", false, &["gate"]),
    (".claude/settings.local.json", false, &["gate"]),
    ("/etc/assent/policy.toml", false, &["gate"]),
    ("~/.config/assent/policy.toml", false, &["gate"]),
    ("src/main.rs", false, &["project"]),
    ("target/debug/x", false, &["build"]),
    ("web/node_modules", false, &["build"]),
    ("out/main.js", false, &["build"]),
    ("lib/libfoo.a", false, &["build"]),
    ("src/*.so", false, &["build"]),
    ("cmake-build-debug/CMakeCache.txt", false, &["build"]),
    ("outline.md", false, &["project"]),
    ("x.egg-info/PKG-INFO", false, &["build"]),
    ("/tmp/x", false, &["temp"]),
    ("/tmp", false, &["temp"]),
    ("~/Documents/thesis.tex", false, &["data"]),
    ("../other/file", false, &["data"]),
    ("/srv/data/db", false, &["data"]),
    ("/home/bob/notes", false, &["data"]),
    ("/dev/null", false, &["null"]),
    ("/dev/sda", false, &["device"]),
    ("/dev/nvme0n1p2", false, &["device"]),
    ("/dev/tty3", false, &["gate"]),
    // The approval channel: other terminals, input, the notification server's files.
    ("/dev/tty", false, &["null"]),
    ("/dev/pts/3", false, &["gate"]),
    ("/dev/console", false, &["gate"]),
    ("/dev/vcsa1", false, &["gate"]),
    ("/proc/self/fd/1", false, &["null"]),
    ("/proc/4242/fd/1", false, &["gate"]),
    ("/proc/4242/task/4243/fd/1", false, &["gate"]),
    ("/proc/self/task/4243/fd/1", false, &["null"]),
    ("/dev/uinput", false, &["gate"]),
    ("~/.config/dunst/dunstrc", false, &["gate"]),
    ("/etc/xdg/mako/config", false, &["gate"]),
    ("~/.local/share/dbus-1/services/org.freedesktop.Notifications.service", false, &["gate"]),
    ("/usr/share/dbus-1/services/org.freedesktop.Notifications.service", false, &["gate"]),
    ("/usr/share/dbus-1/services/org.freedesktop.portal.Desktop.service", false, &["protected"]),
    // Whole trees.
    ("/", true, &["protected", "root", "secret"]),
    ("~", true, &["home", "protected", "secret"]),
    ("..", true, &["home", "protected", "secret"]),
    ("/home/bob", true, &["home", "protected", "secret"]),
    ("/root", true, &["home", "protected", "secret"]),
    ("/usr", true, &["protected", "system"]),
    ("/usr/lib", true, &["protected", "system"]),
    ("/etc", true, &["protected", "secret", "system"]),
    ("/var/log", true, &["protected", "system"]),
    ("~/*", false, &["data", "home", "project", "protected", "secret"]),
    ("/*", false, &["data", "protected", "root", "temp"]),
    ("/usr/*", false, &["protected", "system"]),
    ("/tmp/*", false, &["temp"]),
    ("*", false, &["project", "build"]),
    ("*.*", false, &["project"]),
    ("*.pem", false, &["secret"]),
    ("id_*", false, &["project", "secret"]),
    ("notes-*", false, &["project"]),
    (".*", false, &["project", "build", "secret", "protected", "gate"]),
    ("/tmp/build", true, &["temp"]),
    ("target", true, &["build"]),
    ("src", true, &["project"]),
    ("~/.ssh", true, &["secret", "protected"]),
    ("~/.config", true, &["data", "secret", "protected", "gate"]),
    // A directory named like an agent's settings holds them, wherever it is.
    (".claude", true, &["project", "gate"]),
    ("/srv/app/.codex", true, &["data", "gate"]),
    (".claude", false, &["project"]),
    ("/etc/ssh/sshd_config", true, &["protected"]),
    // Not a tree: the directory alone.
    ("/usr", false, &["protected"]),
    ("~", false, &["data"]),
    // Globs: every place they could name.
    ("~/.ss?/id_*", false, &["secret", "data"]),
    ("~/.*/credentials", false, &["secret", "data", "protected", "gate"]),
    ("~/*/id_rsa", false, &["secret"]),
    ("~/.ssh/*.pub", false, &["data"]),
    ("~/.ssh/*", false, &["data", "protected", "secret"]),
    (".e[n]v", false, &["secret"]),
    (".env*", false, &["project", "protected", "secret"]),
    ("*.rs", false, &["project"]),
    ("/[a-z]*", false, &["data", "protected", "root", "temp"]),
    ("/[eu]*/", true, &["system", "protected", "secret", "data"]),
    // Unknown parts.
    ("$", false, &["unknown"]),
    ("$/.ssh/id_rsa", false, &["secret"]),
    ("$/credentials", false, &["unknown"]),
    ("$.pem", false, &["secret"]),
    ("~/$", false, &["data", "unknown"]),
    ("~/$", true, &["home", "data", "secret", "protected", "unknown"]),
    ("/home/@/.ssh/id_rsa", false, &["secret"]),
    ("/etc/sha@", false, &["secret", "protected"]),
];

#[test]
fn places_of_paths() {
    let w = Where::new(Some(CWD), Some(HOME));
    let mut failures = Vec::new();
    for (spec, tree, want) in CASES {
        let mut got = kinds(spec, *tree, &w);
        let mut want = want.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        if got != want {
            failures.push(format!("{spec} (tree {tree}): got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_requester_places_the_home() {
    let root = Where::new(Some("/root/app"), Some("/root"));
    assert_eq!(kinds("/root", true, &root), ["home", "secret", "protected"]);
    assert_eq!(kinds("/root/app/src", false, &root), ["project"]);
    assert_eq!(kinds("/root/notes", false, &root), ["data"]);
    assert_eq!(kinds("/root/.ssh/id_rsa", false, &root), ["secret"]);
    assert_eq!(kinds("/root/.bashrc", false, &root), ["gate"]);
    // In the home itself there is no project: everything there is the owner's data.
    let at_home = Where::new(Some(HOME), Some(HOME));
    assert_eq!(kinds("notes.txt", false, &at_home), ["data"]);
    assert_eq!(
        kinds("*", false, &at_home),
        ["home", "secret", "protected", "data"]
    );
}

#[test]
fn without_a_home_or_a_directory() {
    let w = Where::new(None, None);
    assert_eq!(kinds("x", false, &w), ["unknown"]);
    assert_eq!(kinds("/etc/shadow", false, &w), ["secret", "protected"]);
    let unknown_home = Path::from_pieces(&text_pieces("~/.ssh/id_rsa", None), None);
    assert_eq!(
        classify(&unknown_home, false, &w)
            .kinds()
            .map(Kind::name)
            .collect::<Vec<_>>(),
        ["secret"]
    );
}

#[test]
fn literal_text_of_tool_arguments() {
    let w = Where::new(Some(CWD), Some(HOME));
    let secret = classify_text("~/.aws/credentials", false, &w, Some(HOME));
    assert!(secret.has(Kind::Secret));
    assert_eq!(secret.why(Kind::Secret), "AWS credentials");
    assert!(classify_text("notes/../.env", false, &w, Some(HOME)).has(Kind::Secret));
    assert!(classify_text("README.md", false, &w, Some(HOME)).has(Kind::Project));
}

/// A place is described to the requester ("your files"); the approver of another uid's
/// request reads it through `whose::for_another`, which must leave no "you" in any of them.
#[test]
fn every_description_names_another_users_files_for_them() {
    let extra = [
        "your files outside the project",
        "a place your policy names as secret",
        "a place your policy protects",
    ];
    let whys = vocabulary::ENTRIES.iter().map(|(_, _, why)| *why);
    for why in whys.chain(extra) {
        let read = assent_client::whose::for_another(why, "alice");
        let words: Vec<String> = read
            .split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .collect();
        assert!(
            !words.iter().any(|w| w.starts_with("you")),
            "{why:?} reads {read:?}"
        );
    }
}

/// What a place is told it is says only what is known: the secret itself for the file an
/// entry names, the directory it is in for another file there, and for a directory acted on
/// as a whole, that it may hold the secret beneath it. (path, whole tree, kind, words)
#[test]
fn a_place_near_a_secret_is_not_called_the_secret() {
    #[rustfmt::skip]
    let table: &[(&str, bool, Kind, &str)] = &[
        ("~/.ssh/id_rsa", false, Kind::Secret, "an SSH private key"),
        ("~/.ssh", false, Kind::Secret, "SSH private keys"),
        ("~/.ssh/notes.txt", false, Kind::Secret, "in the directory of SSH private keys"),
        ("~/.config/Slack/x.txt", false, Kind::Secret, "in the directory of Slack's session"),
        ("~/.config/x/y/Login Data", false, Kind::Secret, "the browser's saved passwords"),
        ("~/.mozilla/firefox/p.default/logins.json", false, Kind::Secret,
            "the browser's saved passwords"),
        ("~/.config/x/y", true, Kind::Secret,
            "a directory that may hold the browser's saved passwords"),
        ("~/.mozilla", true, Kind::Secret,
            "a directory that may hold the browser's saved passwords"),
        ("~", true, Kind::Home, "your home directory"),
    ];
    let w = Where::at(Some(CWD), Some(HOME), Some(CWD));
    for &(spec, tree, kind, why) in table {
        let path = Path::from_pieces(&pieces(spec), w.cwd());
        let placed = classify(&path, tree, &w);
        assert!(
            placed.has(kind),
            "{spec}: {:?}",
            placed.kinds().collect::<Vec<_>>()
        );
        assert_eq!(placed.why(kind), why, "{spec}");
    }
    // An ordinary file there is no secret at all.
    for spec in ["~/.config/x/y/file.txt", "~/.mozilla/notes.txt"] {
        let path = Path::from_pieces(&pieces(spec), w.cwd());
        assert!(!classify(&path, false, &w).has(Kind::Secret), "{spec}");
    }
}
