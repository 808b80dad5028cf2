//! Claude Code's hook runs what it allows confined: it answers an allowed `Bash` call with an
//! `updatedInput` whose command has the agent's own shell load the bash builtin, redeem the
//! one-time grant (once, for that line and directory only) instead of judging the line again,
//! confine itself and run the line; or, where the builtin cannot, the door `assent sh --grant
//! TOKEN -c LINE` do so. The real daemon, client, builtin and real Landlock; the real agent is
//! in `agent_claude_confined.rs`. The traps write in a temporary home, never delete.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use assent_tests::confined::{DOCUMENT, Home, landlock, stderr};
use assent_tests::{TestDaemon, assent};
use serde_json::Value;

/// A home with a document outside the project, and a project (a git repository) inside it.
struct Machine {
    base: Home,
    /// What the hook is told of the bash builtin (`ASSENT_BUILTIN`): `off`, the door alone.
    builtin: std::ffi::OsString,
    /// The agent's `$SHELL`, from which Claude Code picks the shell its calls run in.
    shell: &'static str,
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
            base: Home::new("assent-hook-confine-", &["src/app/sub"]),
            builtin: "off".into(),
            shell: "/bin/bash",
        }
    }

    /// A machine whose hook rewrites calls to confine the agent's shell with the builtin.
    fn with_builtin() -> Machine {
        Machine {
            builtin: assent_tests::shells::builtin_so().into_os_string(),
            ..Machine::new()
        }
    }

    /// A Python program in the project that overwrites what is `below` the home.
    fn python(&self, name: &str, below: &str) {
        self.base
            .python(name, below, "open(p, 'w').write('overwritten')");
    }

    /// `assent ARGS` from `cwd`, with `input` on stdin.
    fn assent(&self, socket: &Path, cwd: &Path, args: &[&str], input: &str) -> Output {
        let mut child = assent(socket)
            .args(args)
            .current_dir(cwd)
            .env("HOME", &self.home)
            .env("TMPDIR", "/tmp")
            .env("ASSENT_BUILTIN", &self.builtin)
            .env("SHELL", self.shell)
            .env_remove("CLAUDE_CODE_SHELL")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("assent starts");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        assent_tests::wait_bounded(child, assent_tests::PROCESS_TIMEOUT)
    }

    /// Claude Code's hook for a `Bash` call of `line` in `cwd`: its JSON answer.
    fn hook(&self, socket: &Path, line: &str, cwd: &Path) -> Value {
        let input = serde_json::json!({
            "session_id": "s1", "cwd": cwd, "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": line, "description": "d"},
        });
        let out = self.assent(socket, cwd, &["hook", "claude-code"], &input.to_string());
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_slice(&out.stdout).expect("the hook's JSON")
    }
}

/// The grant token in a rewritten command.
fn grant_of(answer: &Value) -> String {
    let command = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no rewritten command: {answer}"));
    let after = command
        .split("--grant '")
        .nth(1)
        .unwrap_or_else(|| panic!("no grant: {command}"));
    after.split('\'').next().unwrap_or_default().to_string()
}

#[test]
fn an_allowed_call_is_rewritten_to_run_confined_once() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = TestDaemon::start();
    m.python("cleanup.py", "Documents/old/notes.txt");
    let line = "/usr/bin/python3 cleanup.py";
    let answer = m.hook(daemon.socket(), line, &m.project);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "allow",
        "{answer}"
    );
    assert_eq!(
        answer["hookSpecificOutput"]["updatedInput"]["description"], "d",
        "the rest of the input is kept: {answer}"
    );
    let grant = grant_of(&answer);
    let run = |grant: &str, line: &str| {
        m.assent(
            daemon.socket(),
            &m.project,
            &["sh", "--grant", grant, "-c", line],
            "",
        )
    };
    // Another line under the grant runs nothing, and spends it.
    let out = run(&grant, "touch not-granted");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(stderr(&out).contains("another command"), "{out:?}");
    assert!(!m.project.join("not-granted").exists(), "{out:?}");
    let out = run(&grant, line);
    assert!(stderr(&out).contains("already used"), "{out:?}");
    assert_eq!(m.notes(), DOCUMENT);

    // A fresh grant runs the line once, confined: the document outside the project is intact.
    let grant = grant_of(&m.hook(daemon.socket(), line, &m.project));
    let out = run(&grant, line);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    assert!(stderr(&out).contains("ran confined"), "{out:?}");
    assert!(stderr(&out).contains("Permission denied"), "{out:?}");
    assert_eq!(
        m.notes(),
        DOCUMENT,
        "the document outside the project is intact"
    );
    let out = run(&grant, line);
    assert!(stderr(&out).contains("already used"), "{out:?}");

    // Its twin inside the project works, and a grant is for its own directory only.
    let inside = "/usr/bin/python3 -c \"open('made.txt', 'w').write('ok')\"";
    let grant = grant_of(&m.hook(daemon.socket(), inside, &m.project));
    let out = m.assent(
        daemon.socket(),
        &m.project.join("sub"),
        &["sh", "--grant", &grant, "-c", inside],
        "",
    );
    assert!(stderr(&out).contains("another command"), "{out:?}");
    let grant = grant_of(&m.hook(daemon.socket(), inside, &m.project));
    let out = run(&grant, inside);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(m.project.join("made.txt"))
            .ok()
            .as_deref(),
        Some("ok")
    );
}

#[test]
fn a_refused_call_is_not_rewritten() {
    let m = Machine::new();
    let daemon = TestDaemon::with(assent_tests::Options {
        no_approver: Some(assentd::policy::NoApprover::Deny),
        ..assent_tests::Options::default()
    });
    let input = serde_json::json!({
        "session_id": "s1", "cwd": m.project, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "rm -rf ~/Documents"},
    });
    let out = m.assent(
        daemon.socket(),
        &m.project,
        &["hook", "claude-code"],
        &input.to_string(),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(answer["hookSpecificOutput"].get("updatedInput").is_none());
}

/// The rewritten command, run as Claude Code runs a call (an `eval` in its own shell, which then
/// records `pwd -P`), ends with the line's own status, leaves that shell in the line's final
/// directory, and leaves none of its names defined there.
#[test]
fn the_rewritten_command_ends_as_the_line_did_in_its_directory() {
    if !landlock() {
        return;
    }
    let m = Machine::new();
    let daemon = TestDaemon::start();
    let project = m.project.canonicalize().expect("the project exists");
    for (line, status, dir) in [
        ("cd sub && exit 3", 3, project.join("sub")),
        ("cd sub", 0, project.join("sub")),
        ("false", 1, project.clone()),
        // One program with literal words: it cannot move the agent's shell, so the door alone
        // is the command (no directory report), and it starts the program without bash.
        ("ls", 0, project.clone()),
        ("ls no-such-file", 2, project.clone()),
    ] {
        let answer = m.hook(daemon.socket(), line, &m.project);
        let command = answer["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("{line}: no rewritten command: {answer}"))
            .to_owned();
        assert_eq!(
            command.contains("--dir-fd"),
            line.contains("exit") || line.starts_with("cd") || line == "false",
            "{line}: the directory is reported only for a line that may move the shell: {command}"
        );
        let out = m.shell_runs(
            &["/bin/bash", "-c"],
            r#"eval "$REWRITTEN"; echo "$? $(pwd -P) [$(type -t __assent_return)]""#,
            &command,
        );
        // The shell's own line comes last, after what the line printed.
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.lines().last(),
            Some(format!("{status} {} []", dir.display()).as_str()),
            "{line}: {out:?}"
        );
    }
}

/// The rewritten command of `answer`.
fn rewritten(answer: &Value) -> String {
    answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap_or_else(|| panic!("no rewritten command: {answer}"))
        .to_owned()
}

impl Machine {
    /// `command` run as Claude Code runs a call: `eval`ed in a bash of its own in the project,
    /// which then prints the status, its directory and `$__assent_dir` (set only by the door's
    /// form).
    fn as_claude(&self, command: &str) -> Output {
        self.shell_runs(
            &["/bin/bash", "-c"],
            r#"eval "$REWRITTEN"; echo "$? $(pwd -P) ${__assent_dir-in-place}""#,
            command,
        )
    }

    /// `program` (its words, then `script`) run in the project with the home, and `command`
    /// in `$REWRITTEN` for `script` to `eval`.
    fn shell_runs(&self, program: &[&str], script: &str, command: &str) -> Output {
        let child = std::process::Command::new(program[0])
            .args(&program[1..])
            .arg(script)
            .env("REWRITTEN", command)
            .env("HOME", &self.home)
            .current_dir(&self.project)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", program[0]));
        assent_tests::wait_bounded(child, assent_tests::PROCESS_TIMEOUT)
    }
}

/// With the builtin, the agent's own shell redeems the grant, confines itself and runs the
/// line: what the line was judged to change it changes, what is outside the project it cannot,
/// its `cd` is the agent's shell's own, and a grant runs once.
#[test]
fn the_agents_shell_confines_itself_in_place_with_the_builtin() {
    if !landlock() {
        return;
    }
    let m = Machine::with_builtin();
    let daemon = TestDaemon::start();
    let project = m.project.canonicalize().expect("the project exists");

    // Outside the project: refused, and the line after the run says so.
    m.python("cleanup.py", "Documents/old/notes.txt");
    let command = rewritten(&m.hook(daemon.socket(), "/usr/bin/python3 cleanup.py", &m.project));
    assert!(command.contains("assent_confine"), "{command}");
    let out = m.as_claude(&command);
    assert!(stderr(&out).contains("Permission denied"), "{out:?}");
    assert!(stderr(&out).contains("ran confined"), "{out:?}");
    assert_eq!(
        m.notes(),
        DOCUMENT,
        "the document outside the project is intact"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with(" in-place\n"),
        "confined in place, not through the door: {out:?}"
    );

    for (line, status, dir) in [
        ("cd sub", 0, project.join("sub")),
        ("cd sub && false", 1, project.join("sub")),
        ("false", 1, project.clone()),
        ("ls", 0, project.clone()),
        ("ls no-such-file", 2, project.clone()),
    ] {
        let out = m.as_claude(&rewritten(&m.hook(daemon.socket(), line, &m.project)));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).lines().last(),
            Some(format!("{status} {} in-place", dir.display()).as_str()),
            "{line}: {out:?}"
        );
    }

    // An alias the line defines does not change what its next command runs, though the
    // agent's shell expands aliases (Claude Code's snapshot turns them on): the line is judged
    // as `bash -c` runs it, without.
    let aliased = "alias ls=false\nls -d .";
    let command = rewritten(&m.hook(daemon.socket(), aliased, &m.project));
    let out = m.shell_runs(
        &["/bin/bash", "-c"],
        r#"shopt -s expand_aliases; eval "$REWRITTEN"; echo "status $?""#,
        &command,
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with("status 0\n"),
        "ls ran, not the alias: {out:?}"
    );

    // Claude Code under zsh: the builtin cannot load there, so the door runs the call.
    let zsh = Machine {
        shell: "/usr/bin/zsh",
        ..Machine::with_builtin()
    };
    let command = rewritten(&zsh.hook(daemon.socket(), "ls", &zsh.project));
    assert!(!command.contains("enable -f"), "{command}");

    // Inside the project the line works; run again, the spent grant runs nothing.
    let inside = "/usr/bin/python3 -c \"open('made.txt', 'w').write('ok')\"";
    let command = rewritten(&m.hook(daemon.socket(), inside, &m.project));
    let out = m.as_claude(&command);
    assert_eq!(
        std::fs::read_to_string(m.project.join("made.txt"))
            .ok()
            .as_deref(),
        Some("ok"),
        "{out:?}"
    );
    std::fs::remove_file(m.project.join("made.txt")).expect("removed");
    let out = m.as_claude(&command);
    assert!(stderr(&out).contains("already used"), "{out:?}");
    assert!(
        !m.project.join("made.txt").exists(),
        "a spent grant ran the line: {out:?}"
    );
}

/// Where the builtin cannot confine the shell in place, the door runs the line, confined: a
/// library that is not there (the hook then writes the door's form), and a shell that leads
/// its session and holds a controlling terminal that is not the one on its streams, which it
/// can neither give up (that would hang up the session's foreground) nor keep (the builtin then
/// has the door run the line).
#[test]
fn where_the_builtin_cannot_the_door_runs_the_line_confined() {
    if !landlock() {
        return;
    }
    let daemon = TestDaemon::start();
    let mut m = Machine::with_builtin();
    m.python("cleanup.py", "Documents/old/notes.txt");
    let line = "cd sub && /usr/bin/python3 ../cleanup.py";
    let project = m.project.canonicalize().expect("project");
    let sub = project.join("sub");

    // A library that is not there: the door's form, which carries the directory back.
    m.builtin = m.home.join("no-such-libassent_bash.so").into_os_string();
    let command = rewritten(&m.hook(daemon.socket(), line, &m.project));
    assert!(!command.contains("enable -f"), "{command}");
    let out = m.as_claude(&command);
    assert!(stderr(&out).contains("Permission denied"), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with(&format!(
            " {} {}\n",
            sub.display(),
            sub.display()
        )),
        "run by the door, which carried the directory back: {out:?}"
    );
    assert_eq!(m.notes(), DOCUMENT);

    // A session leader on a terminal, its streams elsewhere: the builtin has the door run the
    // line (in a shell of the door's own, so the agent's stays where it was).
    m.builtin = assent_tests::shells::builtin_so().into_os_string();
    let command = rewritten(&m.hook(daemon.socket(), line, &m.project));
    assert!(command.contains("enable -f"), "{command}");
    let out = m.shell_runs(
        &["/usr/bin/python3", "-c", ON_A_TERMINAL],
        r#"eval "$REWRITTEN" </dev/null >"$HOME/run.out" 2>&1; s=$?; cat "$HOME/run.out"; echo "$s $(pwd -P) end""#,
        &command,
    );
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("Permission denied"), "{out:?}");
    assert!(
        screen
            .trim_end()
            .ends_with(&format!(" {} end", project.display())),
        "run by the door, in a shell of its own: {out:?}"
    );
    assert_eq!(m.notes(), DOCUMENT);
}

/// `bash -c SCRIPT` as a session leader on a pseudo-terminal of its own, its streams on it, as
/// an agent that runs each call on a terminal it made starts it (Gemini CLI on node-pty); what
/// the terminal showed, on stdout.
const ON_A_TERMINAL: &str = "import os, pty, sys\n\
    pid, fd = pty.fork()\n\
    if pid == 0:\n    os.execv('/bin/bash', ['bash', '-c', sys.argv[1]])\n\
    out = b''\n\
    while True:\n\
    \x20   try:\n        chunk = os.read(fd, 4096)\n    except OSError:\n        break\n\
    \x20   if not chunk:\n        break\n    out += chunk\n\
    os.waitpid(pid, 0)\n\
    sys.stdout.write(out.decode(errors='replace'))\n";

/// A shell that leads its session on the terminal its streams are on (Gemini CLI's calls on
/// node-pty) is confined in place and keeps that terminal: its `cd` stays the agent's, what is
/// outside the project is refused, and the run, which may open its terminal as `/dev/tty`,
/// still cannot type into it (even as root).
#[test]
fn a_session_leader_on_its_own_terminal_is_confined_in_place() {
    if !landlock() {
        return;
    }
    let daemon = TestDaemon::start();
    let m = Machine::with_builtin();
    m.python("cleanup.py", "Documents/old/notes.txt");
    std::fs::write(
        m.project.join("sub/tty.py"),
        "import fcntl, os, termios\n\
         fields = open('/proc/self/stat').read().rsplit(')', 1)[1].split()\n\
         print('controlling-terminal', fields[4] != '0')\n\
         tty = os.open('/dev/tty', os.O_RDWR)\n\
         print('dev-tty-opened')\n\
         for fd in (0, tty):\n\
         \x20   try:\n        fcntl.ioctl(fd, termios.TIOCSTI, b'#')\n        print('typed-into-the-terminal')\n\
         \x20   except OSError as e:\n        print('typing-refused', e.errno)\n",
    )
    .expect("the program is written");
    let project = m.project.canonicalize().expect("project");
    let sub = project.join("sub");
    for (line, said) in [
        (
            "cd sub && /usr/bin/python3 ../cleanup.py",
            "Permission denied",
        ),
        (
            "cd sub && /usr/bin/python3 tty.py",
            "controlling-terminal True\r\ndev-tty-opened\r\n\
             typing-refused 1\r\ntyping-refused 1",
        ),
    ] {
        let command = rewritten(&m.hook(daemon.socket(), line, &m.project));
        assert!(command.contains("enable -f"), "{command}");
        let out = m.shell_runs(
            &["/usr/bin/python3", "-c", ON_A_TERMINAL],
            r#"eval "$REWRITTEN"; echo "$? $(pwd -P) end""#,
            &command,
        );
        let screen = String::from_utf8_lossy(&out.stdout);
        assert!(screen.contains(said), "{line}: {out:?}");
        assert!(!screen.contains("typed-into"), "{line}: {out:?}");
        assert!(
            screen
                .trim_end()
                .ends_with(&format!(" {} end", sub.display())),
            "{line}: run in the agent's own shell, which stays where the line went: {out:?}"
        );
    }
    assert_eq!(m.notes(), DOCUMENT);
}

/// Every rewritten call loads the builtin into a fresh shell, so the library must bring nothing
/// bash has not loaded already: `libgcc_s`, which Rust's unwinder names, would be a second
/// library found, mapped and relocated on each call (GCC's unwinder is linked in instead).
#[test]
fn loading_the_builtin_maps_no_library_but_itself() {
    let so = assent_tests::shells::builtin_so();
    let maps = |script: &str| -> std::collections::BTreeSet<String> {
        let out = std::process::Command::new("/bin/bash")
            .args(["-c", script, "bash"])
            .arg(&so)
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "bash: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| line.split_whitespace().nth(5))
            .filter(|path| path.contains(".so"))
            .map(str::to_owned)
            .collect()
    };
    // Read by bash itself: a last `cat` would be exec'd in its place and show its own maps.
    let plain = maps(r#"printf '%s\n' "$(<"/proc/$$/maps")""#);
    let loaded = maps(r#"enable -f "$1" assent_confine && printf '%s\n' "$(<"/proc/$$/maps")""#);
    let added: Vec<&String> = loaded.difference(&plain).collect();
    let so = std::fs::canonicalize(&so).expect("the library's path");
    assert_eq!(
        added,
        [&so.display().to_string()],
        "enable -f mapped more than the builtin"
    );
}
