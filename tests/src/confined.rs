//! The machine the confinement tests stand on: a home outside `/tmp` (so that nothing in it is
//! temp to the gate) with a document the person keeps, and a project in it (a git repository)
//! where the agent's programs are written; and running `assent` there as an agent's shell does.
//!
//! The programs the tests write reach the home by a path they compute as they run
//! ([`unreadable`]), so that the analyser, which reads them, cannot tell where they write: what
//! stops them is the kernel. They write, never delete.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crate::{assent, run_bounded};

/// A Python expression for `text` that the gate's reader of inline programs does not compute:
/// its bytes, each XORed with 1 in the program's text, undone by a generator as it runs. (The
/// reader computes what a program spells with literals alone: reversed, sliced, decoded, from
/// character codes; a test that needs the kernel to be what stops a program must hide its
/// place from the reader, and one the reader learns to compute is a test that stops testing the
/// kernel.)
pub fn unreadable(text: &str) -> String {
    let bytes: String = text.bytes().map(|b| format!("\\x{:02x}", b ^ 1)).collect();
    format!("bytes(c ^ 1 for c in b'{bytes}').decode()")
}

/// What the person's document holds, until something changes it.
pub const DOCUMENT: &str = "notes the person keeps";

/// A home with `Documents/old/notes.txt` and a project, `src/app`, which is a git repository.
pub struct Home {
    _dir: tempfile::TempDir,
    /// The home (its real path).
    pub home: PathBuf,
    /// The project: `src/app` in the home.
    pub project: PathBuf,
}

impl Home {
    /// A new home, named after `prefix`, with `more` directories made below it too.
    pub fn new(prefix: &str, more: &[&str]) -> Home {
        let dir = crate::home_scratch(prefix);
        let root = dir.path().canonicalize().expect("real path");
        let home = root.join("home");
        let project = home.join("src/app");
        for d in ["Documents/old", "src/app/.git"].iter().chain(more) {
            std::fs::create_dir_all(home.join(d)).expect("mkdir");
        }
        std::fs::write(home.join("Documents/old/notes.txt"), DOCUMENT).expect("document");
        Home {
            _dir: dir,
            home,
            project,
        }
    }

    /// The document as it is now (empty when it is gone).
    pub fn notes(&self) -> String {
        std::fs::read_to_string(self.home.join("Documents/old/notes.txt")).unwrap_or_default()
    }

    /// An executable file `name` in the project, holding `text`.
    pub fn program(&self, name: &str, text: &str) {
        let path = self.project.join(name);
        std::fs::write(&path, text).expect("program");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// A Python program `name` in the project that sets `p` to the path `below` the home,
    /// computed as it runs, then runs `body`.
    pub fn python(&self, name: &str, below: &str, body: &str) {
        let hidden = unreadable(below);
        self.program(
            name,
            &format!(
                "#!/usr/bin/python3\nimport os\np = os.path.join(os.environ['HOME'], {hidden})\n{body}\n"
            ),
        );
    }

    /// `assent ARGS` from `cwd` as an agent's shell runs it: this home as `$HOME`, temp in
    /// `/tmp`, nothing on stdin.
    pub fn assent(&self, socket: &Path, cwd: &Path, args: &[&str]) -> Output {
        run_bounded(
            assent(socket)
                .args(args)
                .current_dir(cwd)
                .env("HOME", &self.home)
                .env("TMPDIR", "/tmp")
                .stdin(Stdio::null()),
        )
    }

    /// `assent sh -c LINE` in the project.
    pub fn agent_sh(&self, socket: &Path, line: &str) -> Output {
        self.assent(socket, &self.project, &["sh", "-c", line])
    }
}

/// What a run said on stderr.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// This kernel confines (Landlock ABI 6 or later); a skip otherwise, a failure under `CI=true`.
pub fn landlock() -> bool {
    crate::needs::skip_unless(
        assentd::landlock::confines(),
        "a kernel with Landlock ABI 6 or later",
    )
}
