//! The Debian package: `packaging/deb/build` builds it; its contents, control data
//! and maintainer scripts are what the README promises; and it installs, runs, is removed and
//! purged in a throwaway root (`dpkg --root DIR --force-script-chrootless`, which runs the
//! maintainer scripts on this machine with `DPKG_ROOT=DIR`).
//!
//! The build needs cargo-deb (`cargo install cargo-deb --locked`; `.ci/run` installs it) and
//! Debian's dpkg. Without them these tests fail and say what to install: a package that was
//! never built is not a tested one. The first test to need the package builds it (a release
//! build the first time; afterwards only the packing).

use assent_tests::needs::{BINUTILS, CARGO_DEB, DPKG, SHELLCHECK, needs};
use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use assent_tests::{KillOnDrop, RECV_TIMEOUT, run_bounded, wait_bounded};
use nix::sys::signal::{Signal, kill};

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The package, built once per test process by `packaging/deb/build`.
fn package() -> &'static Path {
    static DEB: OnceLock<PathBuf> = OnceLock::new();
    DEB.get_or_init(|| {
        let output = Command::new("bash")
            .arg(workspace().join("packaging/deb/build"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("packaging/deb/build starts");
        let stderr = text(&output.stderr);
        assert!(
            output.status.success(),
            "packaging/deb/build failed ({:?}):\n{stderr}",
            output.status
        );
        let stdout = text(&output.stdout);
        let deb = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
        assert!(
            deb.extension().is_some_and(|ext| ext == "deb") && deb.is_file(),
            "packaging/deb/build did not print a .deb path; stdout:\n{stdout}\nstderr:\n{stderr}"
        );
        deb
    })
}

/// Run `command` (bounded) and return its stdout, failing the test unless it exits 0.
fn succeed(command: &mut Command) -> String {
    let output = run_bounded(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    assert!(
        output.status.success(),
        "{command:?} failed ({:?}):\n{}{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// One entry of `dpkg-deb -c`: its mode string, owner, and link target for a symlink.
#[derive(Debug)]
struct Entry {
    mode: String,
    owner: String,
    link: Option<String>,
}

/// `dpkg-deb -c` as path (without the leading `.`) → entry.
fn contents(deb: &Path) -> BTreeMap<String, Entry> {
    let listing = succeed(Command::new("dpkg-deb").arg("-c").arg(deb));
    listing
        .lines()
        .map(|line| {
            // drwxr-xr-x 0/0  0 2026-11-22 00:00 ./usr/  (paths here have no spaces)
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert!(fields.len() >= 6, "unexpected dpkg-deb -c line: {line}");
            let path = fields[5].trim_start_matches('.').trim_end_matches('/');
            let link = (fields.get(6) == Some(&"->")).then(|| fields[7].to_string());
            let entry = Entry {
                mode: fields[0].to_string(),
                owner: fields[1].to_string(),
                link,
            };
            (path.to_string(), entry)
        })
        .collect()
}

/// What the package must hold besides the man pages and completions.
const FILES: [&str; 18] = [
    "/usr/bin/assentd",
    "/usr/bin/assent",
    "/usr/bin/assent-notify",
    "/usr/lib/assent/libassent_bash.so",
    "/usr/lib/systemd/user/assent-notify.service",
    "/etc/xdg/autostart/assent-notify.desktop",
    "/usr/lib/systemd/system/assentd.service",
    "/usr/lib/systemd/system/assentd.socket",
    "/usr/lib/systemd/user/assentd.service",
    "/usr/lib/systemd/user/assentd.socket",
    "/usr/share/doc/assent/policy.example.toml",
    "/usr/share/doc/assent/copyright",
    "/usr/share/polkit-1/actions/org.assent.approve.policy",
    "/usr/share/assent/assent.bash",
    "/usr/share/assent/assent.zsh",
    "/usr/share/man/man1/assent-sh.1.gz",
    // The daemon's page is in section 8 (system administration), the policy file's in 5.
    "/usr/share/man/man8/assentd.8.gz",
    "/usr/share/man/man5/assent-policy.5.gz",
];

/// The binaries with bash, zsh and fish completions.
const COMMANDS: [&str; 3] = ["assent", "assentd", "assent-notify"];

#[test]
fn the_package_holds_the_binaries_units_docs_and_hooks() {
    if !needs(&[CARGO_DEB, DPKG]) {
        return;
    }
    let files = contents(package());
    let mut expected: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    for name in COMMANDS {
        if name != "assentd" {
            expected.push(format!("/usr/share/man/man1/{name}.1.gz"));
        }
        expected.push(format!("/usr/share/bash-completion/completions/{name}"));
        expected.push(format!("/usr/share/zsh/vendor-completions/_{name}"));
        expected.push(format!("/usr/share/fish/vendor_completions.d/{name}.fish"));
    }
    // A page per subcommand, from the same clap definitions.
    for sub in ["check", "run", "explain", "hook", "approve", "completions"] {
        expected.push(format!("/usr/share/man/man1/assent-{sub}.1.gz"));
    }
    for path in &expected {
        let entry = files
            .get(path)
            .unwrap_or_else(|| panic!("{path} is not in the package; it holds {files:#?}"));
        assert!(
            entry.mode.starts_with('-'),
            "{path} is not a file: {entry:?}"
        );
    }
    for binary in [
        "/usr/bin/assentd",
        "/usr/bin/assent",
        "/usr/bin/assent-notify",
    ] {
        assert_eq!(files[binary].mode, "-rwxr-xr-x", "{binary}");
    }
    let sh = &files["/usr/bin/assent-sh"];
    assert!(sh.mode.starts_with('l'), "assent-sh is not a link: {sh:?}");
    assert_eq!(
        sh.link.as_deref(),
        Some("assent"),
        "assent-sh points elsewhere"
    );
    // The generator is hidden: no page for it.
    assert!(!files.contains_key("/usr/share/man/man1/assent-man.1.gz"));

    for (path, entry) in &files {
        assert_eq!(entry.owner, "0/0", "{path} is not owned by root");
        // Nothing writable by others (a symlink's own mode means nothing).
        let other_write = entry.mode.as_bytes().get(8) == Some(&b'w');
        assert!(
            entry.mode.starts_with('l') || !other_write,
            "{path} is world-writable: {entry:?}"
        );
        // /etc/assent is made by systemd (ConfigurationDirectory=), and the policy there is
        // the administrator's: the package ships nothing in it.
        assert!(
            !path.starts_with("/etc/assent"),
            "{path}: the package ships nothing in /etc/assent"
        );
    }

    // Every user unit whose program the package ships, and no other: assent-notify's unit
    // comes with the assent-notify binary.
    let user_units = workspace().join("packaging/systemd/user");
    for unit in std::fs::read_dir(&user_units).expect("packaging/systemd/user is readable") {
        let unit = unit.expect("a directory entry").path();
        let name = unit
            .file_name()
            .expect("a unit name")
            .to_string_lossy()
            .into_owned();
        let body = std::fs::read_to_string(&unit).expect("the unit is readable");
        let program = body
            .lines()
            .find_map(|line| line.strip_prefix("ExecStart="))
            .and_then(|exec| exec.split_whitespace().next())
            .map(str::to_string);
        let program = match program {
            Some(program) => program,
            // A socket goes with its service.
            None => format!("/usr/bin/{}", name.trim_end_matches(".socket")),
        };
        let shipped = files.contains_key(&format!("/usr/lib/systemd/user/{name}"));
        assert_eq!(
            shipped,
            files.contains_key(&program),
            "user unit {name} (runs {program}) shipped {shipped}"
        );
    }
}

#[test]
fn the_control_data_and_maintainer_scripts_are_sound() {
    if !needs(&[CARGO_DEB, DPKG, SHELLCHECK]) {
        return;
    }
    let deb = package();
    let info = succeed(Command::new("dpkg-deb").arg("-I").arg(deb));
    for field in [
        "Package: assent",
        "Architecture: ",
        "Section: admin",
        // The maintainer scripts' deb-systemd-helper; polkitd for approvals by password.
        "Recommends: polkitd",
    ] {
        assert!(
            info.contains(field),
            "no {field:?} in the control data:\n{info}"
        );
    }
    let field = |name: &str| {
        info.lines()
            .find_map(|line| line.trim_start().strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in the control data:\n{info}"))
            .to_string()
    };
    let depends = field("Depends: ");
    for needed in ["libc6", "init-system-helpers"] {
        assert!(
            depends.contains(needed),
            "Depends: {depends} lacks {needed}"
        );
    }
    // Debian policy 5.6.2: a name and an email address.
    let maintainer = field("Maintainer: ");
    let address = maintainer
        .split_once('<')
        .and_then(|(_, rest)| rest.strip_suffix('>'));
    assert!(
        address.is_some_and(|a| a.contains('@')),
        "Maintainer: {maintainer} has no address"
    );

    let dir = tempfile::tempdir().expect("a temporary directory");
    let control = dir.path().join("control");
    succeed(Command::new("dpkg-deb").arg("-e").arg(deb).arg(&control));
    let script = |name: &str| {
        let path = control.join(name);
        let mode = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("no {name} in the package: {e}"))
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755, "{name} mode {mode:o}");
        std::fs::read_to_string(&path).expect("the script is readable")
    };
    let postinst = script("postinst");
    let prerm = script("prerm");
    let postrm = script("postrm");

    // Enabled on install through deb-systemd-helper (which honours DPKG_ROOT itself); started
    // only on a running systemd and never for another root.
    for unit in ["assentd.socket", "assentd.service"] {
        assert!(
            postinst.contains(unit),
            "postinst does not name {unit}:\n{postinst}"
        );
    }
    for needle in [
        "deb-systemd-helper enable",
        "deb-systemd-invoke start assentd.socket",
        "deb-systemd-invoke restart assentd.service",
        r#"[ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]"#,
    ] {
        assert!(
            postinst.contains(needle),
            "postinst lacks {needle:?}:\n{postinst}"
        );
    }
    assert!(
        prerm.contains("deb-systemd-invoke stop assentd.socket assentd.service")
            && prerm.contains(r#"[ -z "${DPKG_ROOT:-}" ]"#),
        "prerm:\n{prerm}"
    );
    // Purge, and only purge, deletes the policy and the state, under DPKG_ROOT.
    let purge = postrm
        .split("purge)")
        .nth(1)
        .unwrap_or_else(|| panic!("postrm has no purge branch:\n{postrm}"));
    assert!(
        purge.contains(r#"rm -rf "${DPKG_ROOT:-}/etc/assent" "${DPKG_ROOT:-}/var/lib/assent""#),
        "postrm:\n{postrm}"
    );
    assert_eq!(postrm.matches("rm -rf").count(), 1, "postrm:\n{postrm}");
    for body in [&postinst, &prerm, &postrm] {
        assert!(body.starts_with("#!/bin/sh\n") && body.contains("\nset -e\n"));
        assert!(!body.contains("chmod") && !body.contains("mkdir"), "{body}");
    }

    // shellcheck, as for the hook (this test needs it).
    let mut command = Command::new("shellcheck");
    command.arg("--shell=sh");
    for name in ["postinst", "prerm", "postrm"] {
        command.arg(control.join(name));
    }
    succeed(&mut command);
    let mut command = Command::new("shellcheck");
    command.arg(workspace().join("packaging/deb/build"));
    succeed(&mut command);
}

/// `dpkg` acting on the throwaway root `root`: maintainer scripts run here (chrootless) with
/// `DPKG_ROOT=root`; the root has no libc6 package, hence `--force-depends`.
fn dpkg(root: &Path) -> Command {
    let mut command = Command::new("dpkg");
    command
        .arg(format!("--root={}", root.display()))
        .args([
            "--force-not-root",
            "--force-script-chrootless",
            "--force-depends",
        ])
        .env_remove("DPKG_ROOT");
    command
}

/// An empty dpkg database in `root`.
fn throwaway_root(root: &Path) {
    let admin = root.join("var/lib/dpkg");
    for dir in ["info", "updates"] {
        std::fs::create_dir_all(admin.join(dir)).expect("the dpkg directories can be made");
    }
    std::fs::write(admin.join("status"), "").expect("the dpkg status file can be made");
}

/// Paths under `dir` (not following links) that others may write, except symlinks.
fn world_writable(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path).expect("the path can be stat'ed");
        if meta.file_type().is_symlink() {
            continue;
        }
        if meta.mode() & 0o002 != 0 {
            found.push(path.clone());
        }
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).expect("the directory is readable") {
                stack.push(entry.expect("a directory entry").path());
            }
        }
    }
    found
}

/// The link `root/etc/systemd/system/WANTS/UNIT` that enabling UNIT makes.
fn enabled(root: &Path, wants: &str, unit: &str) -> bool {
    root.join("etc/systemd/system")
        .join(wants)
        .join(unit)
        .symlink_metadata()
        .is_ok()
}

/// An installed binary with our environment cleared.
fn installed(root: &Path, name: &str) -> Command {
    assent_tests::command_at(&root.join("usr/bin").join(name))
}

fn said(output: &Output) -> String {
    format!("{}{}", text(&output.stdout), text(&output.stderr))
}

/// Start the installed `assentd --user` with everything inside `dir`; returns once it says
/// READY=1, so it accepts.
fn start_installed_daemon(root: &Path, dir: &Path, socket: &Path) -> KillOnDrop {
    let notify = dir.join("notify");
    let receiver = UnixDatagram::bind(&notify).expect("the notify socket binds");
    receiver
        .set_read_timeout(Some(RECV_TIMEOUT))
        .expect("a read timeout can be set");
    let mut command = installed(root, "assentd");
    command
        .arg("--user")
        .arg("--socket")
        .arg(socket)
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env("XDG_RUNTIME_DIR", dir.join("xdg-run"))
        .env("XDG_STATE_HOME", dir.join("xdg-state"))
        .env("XDG_CONFIG_HOME", dir.join("xdg-config"))
        .env("HOME", dir)
        .env("NOTIFY_SOCKET", &notify)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = KillOnDrop(Some(command.spawn().expect("the installed assentd starts")));
    let mut buf = [0u8; 512];
    let n = receiver
        .recv(&mut buf)
        .expect("the installed assentd says READY=1");
    assert!(
        text(&buf[..n]).starts_with("READY=1"),
        "{}",
        text(&buf[..n])
    );
    child
}

#[test]
fn the_package_installs_runs_keeps_config_on_remove_and_purges() {
    if !needs(&[CARGO_DEB, DPKG]) {
        return;
    }
    let deb = package();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let root = tmp.path().join("root");
    throwaway_root(&root);
    // This machine's own enablement state must not change: the scripts act on DPKG_ROOT.
    let host_state =
        Path::new("/var/lib/systemd/deb-systemd-helper-enabled/assentd.socket.dsh-also");
    let host_had_it = host_state.exists();

    succeed(dpkg(&root).arg("--install").arg(deb));
    assert!(root.join("usr/bin/assentd").is_file());
    // The shipped client is the fast one: statically linked, so no program interpreter.
    let client = std::fs::read(root.join("usr/bin/assent")).expect("the client is installed");
    assert_eq!(
        elf_interpreter(&client),
        Some(false),
        "/usr/bin/assent is linked statically"
    );
    // And position-dependent: a static-pie relocates thousands of its own pointers at every
    // start (scripts/static-client says why the client gives that up and the daemon does not).
    assert_eq!(
        elf_type(&client),
        Some(ELF_EXECUTABLE),
        "/usr/bin/assent is not relocated at its start (a position-dependent executable)"
    );
    let daemon = std::fs::read(root.join("usr/bin/assentd")).expect("the daemon is installed");
    assert_eq!(
        elf_interpreter(&daemon),
        Some(true),
        "assentd stays dynamically linked (it looks users up through NSS)"
    );
    assert_eq!(
        std::fs::read_link(root.join("usr/bin/assent-sh")).expect("assent-sh is a link"),
        Path::new("assent")
    );
    assert!(
        enabled(&root, "sockets.target.wants", "assentd.socket"),
        "not enabled"
    );
    assert!(
        enabled(&root, "multi-user.target.wants", "assentd.service"),
        "not enabled"
    );
    assert_eq!(
        host_state.exists(),
        host_had_it,
        "postinst changed this machine's systemd state"
    );
    assert!(
        !root.join("etc/assent").exists(),
        "postinst made /etc/assent"
    );
    let writable = world_writable(&root);
    assert!(
        writable.is_empty(),
        "world-writable after install: {writable:?}"
    );
    for unit in ["assentd.service", "assentd.socket"] {
        assert_eq!(
            std::fs::read(root.join("usr/lib/systemd/system").join(unit)).expect("installed"),
            std::fs::read(workspace().join("packaging/systemd").join(unit)).expect("in the tree"),
            "the installed {unit} differs from packaging/systemd/{unit}"
        );
    }
    let page = succeed(
        Command::new("gzip")
            .arg("-dc")
            .arg(root.join("usr/share/man/man1/assent-check.1.gz")),
    );
    assert!(page.contains(".TH assent-check 1"), "{page}");
    let completion =
        std::fs::read_to_string(root.join("usr/share/bash-completion/completions/assent"))
            .expect("the bash completion is installed");
    assert!(completion.contains("complete -F _assent") && completion.contains("explain"));

    // The installed binaries work: a user daemon, a check, an explanation.
    let run = tmp.path().join("run");
    std::fs::create_dir(&run).expect("the run directory can be made");
    let socket = run.join("assent.sock");
    let mut daemon = start_installed_daemon(&root, &run, &socket);
    let allowed = run_bounded(
        installed(&root, "assent")
            .arg("check")
            .arg("--socket")
            .arg(&socket)
            .args(["--", "ls", "-la"]),
    );
    assert_eq!(allowed.status.code(), Some(0), "{}", said(&allowed));
    let explained = run_bounded(
        installed(&root, "assent")
            .arg("explain")
            .arg("--socket")
            .arg(&socket)
            .arg("rm -rf /"),
    );
    assert_eq!(explained.status.code(), Some(1), "{}", said(&explained));
    assert!(
        text(&explained.stdout).contains("decision: deny"),
        "{}",
        said(&explained)
    );
    // Through its link the client is a shell; with no gate it fails closed (126) and runs
    // nothing, where `assent -c` would be a usage error (64).
    let shell = run_bounded(
        installed(&root, "assent-sh")
            .env("ASSENT_SOCKET", run.join("no-daemon.sock"))
            .args(["-c", "true"]),
    );
    assert_eq!(shell.status.code(), Some(126), "{}", said(&shell));
    kill(daemon.pid(), Signal::SIGTERM).expect("SIGTERM reaches assentd");
    assert_eq!(
        wait_bounded(daemon.take(), RECV_TIMEOUT).status.code(),
        Some(0)
    );

    // What the administrator and the daemon leave behind.
    std::fs::create_dir_all(root.join("etc/assent")).expect("etc/assent can be made");
    std::fs::write(root.join("etc/assent/policy.toml"), "# mine\n").expect("a policy");
    std::fs::create_dir_all(root.join("var/lib/assent")).expect("var/lib/assent can be made");
    std::fs::write(root.join("var/lib/assent/audit.jsonl"), "").expect("an audit file");

    succeed(dpkg(&root).args(["--remove", "assent"]));
    assert!(
        !root.join("usr/bin/assentd").exists(),
        "remove left the binary"
    );
    assert!(
        root.join("etc/assent/policy.toml").is_file(),
        "remove deleted the policy"
    );
    assert!(
        root.join("var/lib/assent/audit.jsonl").is_file(),
        "remove deleted the state"
    );
    assert_eq!(
        std::fs::read_link(root.join("etc/systemd/system/assentd.service")).ok(),
        Some(PathBuf::from("/dev/null")),
        "remove did not mask assentd.service"
    );

    succeed(dpkg(&root).args(["--purge", "assent"]));
    assert!(!root.join("etc/assent").exists(), "purge kept /etc/assent");
    assert!(
        !root.join("var/lib/assent").exists(),
        "purge kept /var/lib/assent"
    );
    assert!(
        !enabled(&root, "sockets.target.wants", "assentd.socket"),
        "purge kept the enablement"
    );
    assert!(
        root.join("etc/systemd/system/assentd.service")
            .symlink_metadata()
            .is_err(),
        "purge kept the mask"
    );
    let status = run_bounded(
        dpkg(&root)
            .args(["--status", "assent"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    assert!(
        !status.status.success(),
        "assent is still known after purge: {}",
        said(&status)
    );
    assert_eq!(
        host_state.exists(),
        host_had_it,
        "a script changed this machine's systemd state"
    );
}

/// `e_type` of a position-dependent executable (a PIE is `ET_DYN`, 3).
const ELF_EXECUTABLE: u16 = 2;

/// The ELF file's `e_type`: what it is (an executable, a shared object or PIE, …).
fn elf_type(elf: &[u8]) -> Option<u16> {
    if elf.get(..4)? != b"\x7fELF" {
        return None;
    }
    Some(u16::from_le_bytes(elf.get(16..18)?.try_into().ok()?))
}

/// Whether a 64-bit little-endian ELF file asks for a program interpreter (`PT_INTERP`: linked
/// dynamically); `None` if it is not one.
fn elf_interpreter(elf: &[u8]) -> Option<bool> {
    if elf.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let u16_at = |at: usize| Some(u16::from_le_bytes(elf.get(at..at + 2)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(elf.get(at..at + 8)?.try_into().ok()?));
    let table = usize::try_from(u64_at(0x20)?).ok()?;
    let (size, count) = (usize::from(u16_at(0x36)?), usize::from(u16_at(0x38)?));
    let mut interpreter = false;
    for index in 0..count {
        let at = table + index * size;
        let kind = u32::from_le_bytes(elf.get(at..at + 4)?.try_into().ok()?);
        interpreter |= kind == 3;
    }
    Some(interpreter)
}

/// The client the package ships runs its hot path (the functions of `client/hot-path.txt`:
/// `check`, the agents' hooks, `assent-sh -c`, a granted line) from code linked together, so its
/// start touches a few 64 KiB windows of the binary instead of thirty (BENCHMARKS.md, "The
/// client's start"). Fails when `scripts/static-client` stops ordering the link, or when the
/// list no longer names the client's functions (run `scripts/client-hot-path`).
#[test]
fn the_shipped_client_has_its_hot_path_linked_together() {
    if !needs(&[CARGO_DEB, DPKG, BINUTILS]) {
        return;
    }
    package();
    // packaging/deb/build leaves the unstripped static client among its assets.
    let target = std::env::current_exe()
        .expect("the test knows its path")
        .ancestors()
        .nth(3)
        .expect("target/debug/deps/TEST")
        .to_path_buf();
    let client = target.join("release/deb-assets/assent");
    let listing = succeed(
        Command::new("nm")
            .args(["--defined-only", "-S"])
            .arg(&client),
    );
    let symbols: Vec<(u64, u64, &str)> = listing
        .lines()
        .filter_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                [address, size, kind, name] if "tTwWi".contains(kind) => Some((
                    u64::from_str_radix(address, 16).ok()?,
                    u64::from_str_radix(size, 16).ok()?,
                    name,
                )),
                _ => None,
            },
        )
        .collect();
    let stripped: String = symbols
        .iter()
        .map(|(_, _, name)| format!("{}\n", name.split(".llvm.").next().unwrap_or(name)))
        .collect();
    let mut filt = Command::new("c++filt");
    filt.stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = filt.spawn().expect("c++filt starts");
    let mut input = child.stdin.take().expect("c++filt's input");
    let writer = std::thread::spawn(move || {
        use std::io::Write as _;
        input.write_all(stripped.as_bytes())
    });
    let output = wait_bounded(child, std::time::Duration::from_secs(60));
    writer
        .join()
        .expect("the writer ends")
        .expect("c++filt reads its input");
    let demangled = text(&output.stdout);
    let demangled: Vec<&str> = demangled.lines().collect();
    assert_eq!(
        demangled.len(),
        symbols.len(),
        "c++filt answers a line per symbol"
    );

    // Linked against musl, whose start-up asks the processor nothing: glibc's asks it about
    // its caches (`handle_amd`, `handle_intel`) with dozens of `cpuid`, each an exit to the
    // hypervisor in a virtual machine (scripts/static-client).
    let exact: std::collections::HashSet<&str> = demangled.iter().copied().collect();
    assert!(
        exact.contains("__init_libc"),
        "the shipped client is linked against musl (scripts/static-client)"
    );
    for glibc in [
        "handle_amd",
        "handle_intel",
        "init_cacheinfo",
        "__libc_early_init",
    ] {
        assert!(
            !exact.contains(glibc),
            "the shipped client carries glibc's start-up ({glibc})"
        );
    }

    let list = std::fs::read_to_string(workspace().join("client/hot-path.txt"))
        .expect("client/hot-path.txt is readable");
    let hot: Vec<&str> = list.lines().filter(|l| !l.is_empty()).collect();
    let loose_names: std::collections::HashSet<String> =
        demangled.iter().map(|name| loose(name)).collect();
    // The list's own functions (Rust paths) must be there; the C library's are musl's.
    let ours: Vec<&&str> = hot.iter().filter(|name| name.contains("::")).collect();
    let found = ours
        .iter()
        .filter(|name| exact.contains(***name) || loose_names.contains(&loose(name)))
        .count();
    assert!(
        found * 100 >= ours.len() * 95,
        "client/hot-path.txt is stale: only {found} of its {} functions are in the client; \
         run scripts/client-hot-path",
        ours.len()
    );
    // Where the hot functions landed: together, or spread over the binary. As static-client
    // finds them: by exact name, or, for one this build renamed (a build from another directory
    // has other hashes for some crates), every instance of its name without hashes.
    let wanted: std::collections::HashSet<&str> = hot.iter().copied().collect();
    let renamed: std::collections::HashSet<String> = hot
        .iter()
        .filter(|name| !exact.contains(**name))
        .map(|name| loose(name))
        .collect();
    let placed: Vec<(u64, u64)> = symbols
        .iter()
        .zip(&demangled)
        .filter(|(_, name)| wanted.contains(**name) || renamed.contains(&loose(name)))
        .map(|((address, size, _), _)| (*address, *size))
        .collect();
    let size: u64 = placed.iter().map(|(_, size)| size).sum();
    let start = placed
        .iter()
        .map(|(address, _)| *address)
        .min()
        .unwrap_or(0);
    let end = placed.iter().map(|(a, s)| a + s).max().unwrap_or(0);
    assert!(
        end - start <= size + size / 4 + 64 * 1024,
        "the hot path's {} functions ({} KiB) are spread over {} KiB of the client: \
         scripts/static-client did not link them in order",
        placed.len(),
        size / 1024,
        (end - start) / 1024
    );
}

/// A demangled name without its symbol hash and crate hashes, which a rebuild may change.
fn loose(name: &str) -> String {
    let name = match name.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            head
        }
        _ => name,
    };
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        match rest[open + 1..].find(']') {
            Some(close)
                if rest[open + 1..open + 1 + close]
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit()) =>
            {
                rest = &rest[open + close + 2..];
            }
            _ => {
                out.push('[');
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}
