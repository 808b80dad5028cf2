//! When a confined run is refused an access, the agent and the person learn which place and
//! how to allow it: the daemon reads the kernel audit's Landlock denial records for the domain
//! the door made, the door says the place on stderr after the run, and the audit trail keeps
//! it. Where the kernel's audit is off or unreadable, the door says so and what the run could
//! do, never a guess. Real daemon, real client, real Landlock; the traps write in a temporary
//! home, never delete.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::Stdio;

use assent_tests::confined::{DOCUMENT, Home, landlock, stderr};
use assent_tests::{TestDaemon, assent, run_bounded};

struct Machine {
    base: Home,
}

impl std::ops::Deref for Machine {
    type Target = Home;
    fn deref(&self) -> &Home {
        &self.base
    }
}

impl Machine {
    fn new() -> Machine {
        Machine {
            base: Home::new("assent-refused-", &[]),
        }
    }

    /// A Python program in the project that writes `text` to `below` the home (or, with
    /// `in_project`, the project), by a path hidden in its text (`confined::unreadable`): the
    /// analyser cannot tell where it writes, the kernel decides.
    fn python(&self, name: &str, below: &str, in_project: bool) {
        let hidden = assent_tests::confined::unreadable(below);
        let base = if in_project {
            "os.getcwd()"
        } else {
            "os.environ['HOME']"
        };
        self.program(
            name,
            &format!(
                "#!/usr/bin/python3\nimport os\np = os.path.join({base}, {hidden})\nopen(p, 'w').write('changed by the script')\n"
            ),
        );
    }
}

/// Whether the kernel audits Landlock's denials for a daemon to read: on already, or turned on
/// here by root (`AUDIT_SET`, what `auditctl -e 1` does). Elsewhere the tests check the
/// honest fallback instead.
fn kernel_audit_on() -> bool {
    if assentd::landlock::abi() < 7 {
        return false;
    }
    if assentd::denials::audit_enabled() == Some(true) {
        return true;
    }
    if !nix::unistd::geteuid().is_root() {
        return false;
    }
    use nix::sys::socket::{
        AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType, sendto, socket,
    };
    let Ok(fd) = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkAudit,
    ) else {
        return false;
    };
    // nlmsghdr (AUDIT_SET = 1001, NLM_F_REQUEST), then struct audit_status: mask
    // AUDIT_STATUS_ENABLED, enabled 1, the rest zero.
    let mut packet = Vec::new();
    packet.extend_from_slice(&(16u32 + 40).to_ne_bytes());
    packet.extend_from_slice(&1001u16.to_ne_bytes());
    packet.extend_from_slice(&1u16.to_ne_bytes());
    packet.extend_from_slice(&[0; 8]);
    packet.extend_from_slice(&1u32.to_ne_bytes());
    packet.extend_from_slice(&1u32.to_ne_bytes());
    packet.extend_from_slice(&[0; 32]);
    let _ = sendto(
        fd.as_raw_fd(),
        &packet,
        &NetlinkAddr::new(0, 0),
        MsgFlags::empty(),
    );
    assentd::denials::audit_enabled() == Some(true)
}

/// The audit trail's events, as `assent log --json` prints them.
fn audit_log(socket: &Path) -> String {
    let out = run_bounded(assent(socket).args(["log", "-n", "50", "--json"]));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_refused_write_is_named_with_how_to_allow_it_and_audited() {
    if !landlock() {
        return;
    }
    let audit = kernel_audit_on();
    let m = Machine::new();
    let daemon = TestDaemon::start();
    m.python("cleanup.py", "Documents/old/notes.txt", false);
    let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 cleanup.py");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        m.notes(),
        DOCUMENT,
        "the document outside the project is intact"
    );
    let said = stderr(&out);
    let notes = m.home.join("Documents/old/notes.txt");
    let notes = notes.to_str().expect("utf-8");
    if audit {
        assert!(
            said.contains(&format!("refused writing {notes} ("))
                && said.contains("files outside the project)"),
            "{said}"
        );
        assert!(said.contains("[confine] writable"), "{said}");
        let status = run_bounded(assent(daemon.socket()).arg("status"));
        assert!(
            String::from_utf8_lossy(&status.stdout)
                .contains("refused places: a confined run that fails is told"),
            "{status:?}"
        );
        let log = audit_log(daemon.socket());
        assert!(log.contains("refused_places"), "{log}");
        assert!(log.contains(&format!("fs.write_file {notes}")), "{log}");
    } else {
        assert!(said.contains("ran confined"), "{said}");
        assert!(said.contains("what was refused is not known"), "{said}");
    }

    // The everyday twin: the same program writing in the project works, and says nothing.
    m.python("build.py", "out.txt", true);
    let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 build.py");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(m.project.join("out.txt")).expect("written"),
        "changed by the script"
    );
    assert!(!stderr(&out).contains("refused"), "{out:?}");
}

#[test]
fn a_run_that_fails_for_its_own_reasons_is_not_blamed_on_the_confinement() {
    if !landlock() {
        return;
    }
    let audit = kernel_audit_on();
    let m = Machine::new();
    let daemon = TestDaemon::start();
    let out = m.agent_sh(daemon.socket(), "ls no-such-file-here");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    let said = stderr(&out);
    if audit {
        // The kernel refused nothing: the door says nothing, and `ls` said why itself.
        assert!(!said.contains("assent:"), "{said}");
        assert!(said.contains("no-such-file-here"), "{said}");
    } else {
        assert!(said.contains("what was refused is not known"), "{said}");
    }
}

/// A daemon that cannot know what was refused (here: it acts on Landlock ABI 6, which logs
/// nothing) says so after a failed run, with what the run could do, and names no place.
#[test]
fn without_the_kernel_s_records_the_door_says_what_it_can_and_no_more() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let socket = dir.path().join("socket");
    let mut child = std::process::Command::new(assent_tests::binary("assentd"))
        .args(["--user", "--landlock-abi", "6", "--socket"])
        .arg(&socket)
        .arg("--state-dir")
        .arg(dir.path().join("state"))
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_STATE_HOME", dir.path())
        .env("XDG_RUNTIME_DIR", dir.path())
        .env("ASSENT_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("assentd starts");
    assert!(
        assent_tests::wait_for_socket(&socket, std::time::Duration::from_secs(20)),
        "assentd listens"
    );
    m.python("cleanup.py", "Documents/old/notes.txt", false);
    let out = m.agent_sh(&socket, "/usr/bin/python3 cleanup.py");
    let status = run_bounded(assent(&socket).arg("status"));
    let _ = child.kill();
    let _ = child.wait();
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(m.notes(), DOCUMENT);
    let said = stderr(&out);
    assert!(
        said.contains("ran confined: it could change only"),
        "{said}"
    );
    assert!(
        said.contains("what was refused is not known: this kernel's Landlock does not log"),
        "{said}"
    );
    assert!(!said.contains("refused writing"), "{said}");
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains("refused places: not known after a failed confined run: this kernel's Landlock does not log"),
        "{status}"
    );
}
