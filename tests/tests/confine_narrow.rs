//! A project narrows what its confined runs may do (`.assent/confine.toml` at its root), and
//! no key of that file widens anything: a file that tries is refused whole and narrows
//! everything. Real daemon, real client, real Landlock; the programs compute their targets as
//! they run, so what stops them is the kernel.

use std::time::Duration;

use assent_tests::TestDaemon;
use assent_tests::confined::{DOCUMENT, Home, landlock};

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
        let base = Home::new("assent-narrow-", &["src/app/.assent"]);
        // Writes `out.txt` in the project by a path it computes (`confined::unreadable`).
        std::fs::write(
            base.project.join("build.py"),
            format!(
                "import os\nopen(os.path.join(os.getcwd(), {}), 'w').write('built')\n",
                assent_tests::confined::unreadable("out.txt")
            ),
        )
        .expect("build.py");
        Machine { base }
    }

    fn narrowing(&self, text: &str) {
        std::fs::write(self.project.join(".assent/confine.toml"), text).expect("confine.toml");
    }

    fn built(&self) -> bool {
        let built = self.project.join("out.txt");
        let was = built.exists();
        let _ = std::fs::remove_file(built);
        was
    }
}

/// Projects' narrowings are kept 10 s per uid and root: each case uses a project of its own.
#[test]
fn a_project_that_says_so_keeps_its_confined_runs_from_writing_in_it() {
    if !landlock() {
        return;
    }
    let daemon = TestDaemon::start();
    // The everyday twin: no file, the program builds in the project.
    let m = Machine::new();
    let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 build.py");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(m.built(), "{out:?}");

    // `project = false`: the same program is refused the write.
    let m = Machine::new();
    m.narrowing("project = false\n");
    let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 build.py");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(!m.built(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("ran confined"),
        "{out:?}"
    );
}

#[test]
fn a_project_file_that_tries_to_widen_narrows_everything_instead() {
    if !landlock() {
        return;
    }
    let daemon = TestDaemon::start();
    for attempt in [
        "writable = [\"~\"]\n",
        "enabled = false\n",
        "write_anywhere = true\n",
        "[confine]\nwritable = [\"/\"]\n",
        "project = \"/\"\n",
    ] {
        let m = Machine::new();
        m.narrowing(attempt);
        // A program that writes the person's document by a path it computes: refused.
        std::fs::write(
            m.project.join("reach.py"),
            format!(
                "import os\np = os.path.join(os.environ['HOME'], {})\nopen(p, 'w').write('x')\n",
                assent_tests::confined::unreadable("Documents/old/notes.txt")
            ),
        )
        .expect("reach.py");
        let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 reach.py");
        assert_ne!(out.status.code(), Some(0), "{attempt}: {out:?}");
        assert_eq!(
            std::fs::read_to_string(m.home.join("Documents/old/notes.txt")).expect("notes"),
            DOCUMENT,
            "{attempt}"
        );
        // And the project itself is narrowed too: the file was not taken.
        let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 build.py");
        assert_ne!(out.status.code(), Some(0), "{attempt}: {out:?}");
        assert!(!m.built(), "{attempt}: {out:?}");
    }
}

#[test]
fn a_project_that_says_network_false_cuts_tcp_for_a_line_that_could_send() {
    if !landlock() {
        return;
    }
    let daemon = TestDaemon::start();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let connect = format!(
        "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
    );

    // The everyday twin: a program the gate cannot read keeps the network.
    let m = Machine::new();
    std::fs::write(m.project.join("fetch.py"), &connect).expect("fetch.py");
    let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 fetch.py");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(listener.accept().is_ok(), "the twin connected");

    let m = Machine::new();
    m.narrowing("network = false\n");
    std::fs::write(m.project.join("fetch.py"), &connect).expect("fetch.py");
    let out = m.agent_sh(daemon.socket(), "/usr/bin/python3 fetch.py");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        listener.accept().is_err(),
        "the narrowed run connected: {out:?}"
    );
}

/// A repository nested in a narrowed project (a submodule, or one an agent made with `git
/// init`) is a project of its own: its parent's narrowing still binds it.
#[test]
fn a_repository_nested_in_a_narrowed_project_is_narrowed_too() {
    if !landlock() {
        return;
    }
    let daemon = TestDaemon::start();
    let nested = |m: &Machine| {
        let lib = m.project.join("vendor/lib");
        std::fs::create_dir_all(lib.join(".git")).expect("nested repository");
        std::fs::copy(m.project.join("build.py"), lib.join("build.py")).expect("build.py");
        lib
    };
    // The everyday twin: without a narrowing the nested repository builds in itself.
    let m = Machine::new();
    let lib = nested(&m);
    let out = m.assent(
        daemon.socket(),
        &lib,
        &["sh", "-c", "/usr/bin/python3 build.py"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(lib.join("out.txt").exists(), "{out:?}");

    let m = Machine::new();
    m.narrowing("project = false\n");
    let lib = nested(&m);
    let out = m.assent(
        daemon.socket(),
        &lib,
        &["sh", "-c", "/usr/bin/python3 build.py"],
    );
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(!lib.join("out.txt").exists(), "{out:?}");
}
