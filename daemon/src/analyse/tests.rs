//! Table tests for the analyser: command in, level and finding ids out, one line per case.

use assent_client::protocol::Level::{self, Destructive, Forbidden, Moderate, Opaque, Safe};

use super::{Analysis, Context, shell};

const CTX: Context<'static> = Context {
    cwd: "/home/u/repo",
    home: Some("/home/u"),
    truncated: false,
};

fn run(line: &str) -> Analysis {
    shell(line, &CTX)
}

fn ids(a: &Analysis) -> Vec<&'static str> {
    a.findings.iter().map(|f| f.id).collect()
}

/// Runs `f` on a thread with a 2 MiB stack, the size that overflowed a recursive walker.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .expect("a thread can be spawned")
        .join()
        .expect("the analyser does not panic or overflow on a 2 MiB stack")
}

#[rustfmt::skip]
const CASES: &[(&str, Level, &[&str])] = &[
    ("ls -la", Safe, &[]),
    ("whence -p rm", Safe, &[]),
    ("which rm", Safe, &[]),
    ("find ~ -delete", Forbidden, &["fs.rm_root_or_home"]),
    ("find / -name '*.log' -delete", Forbidden, &["fs.rm_root_or_home"]),
    ("find /usr -delete", Forbidden, &["fs.rm_system"]),
    ("find . -name '*.o' -delete", Destructive, &["fs.find_delete"]),
    ("poetry remove requests", Moderate, &["general.writes"]),
    ("cargo remove serde", Moderate, &["general.writes"]),
    ("", Safe, &[]),
    ("# just a comment", Safe, &[]),
    ("r''m -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("\\rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("\"rm\" -rf /tmp/x", Moderate, &["fs.delete_temp"]),
    ("/bin/rm -rf build", Moderate, &["fs.delete_build"]),
    ("r\\\nm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -r -f /*", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -Rf \"$HOME\"", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -fr ${HOME}/", Forbidden, &["fs.rm_root_or_home"]),
    ("rm --recursive /home/u", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -rf ..", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -rf ~/*", Forbidden, &["fs.rm_root_or_home"]),
    ("rm --no-preserve-root -rf /x", Forbidden, &["fs.rm_root_or_home"]),
    ("rm x -rf", Destructive, &["fs.rm_recursive"]),
    ("rm -- -rf", Destructive, &["fs.rm"]),
    ("rm -f a.o", Destructive, &["fs.rm_force"]),
    ("rm notes.txt", Destructive, &["fs.rm"]),
    ("rm \"~\"", Destructive, &["fs.rm"]),
    ("rm -rf \"~\"", Destructive, &["fs.rm_recursive"]),
    ("echo hi > out.txt", Moderate, &["redirect.overwrite"]),
    ("echo hi >| out.txt", Moderate, &["redirect.overwrite"]),
    ("echo hi &> out.txt", Moderate, &["redirect.overwrite"]),
    ("cat <> out.txt", Moderate, &["redirect.overwrite"]),
    ("echo hi >> out.txt", Moderate, &["redirect.append"]),
    ("echo hi &>> out.txt", Moderate, &["redirect.append"]),
    ("echo > /dev/null", Safe, &[]),
    ("ls 2>/dev/null >&2 2>&1", Safe, &[]),
    ("echo >/dev/fd/3 >/dev/stderr >/dev/tty", Safe, &[]),
    ("cat x > ~/.bashrc", Destructive, &["redirect.overwrite_sensitive"]),
    ("echo k > ~/.ssh/authorized_keys", Destructive, &["redirect.overwrite_sensitive"]),
    ("echo x > ../.profile", Destructive, &["redirect.overwrite_sensitive"]),
    ("echo 127.0.0.1 > /etc/hosts", Destructive, &["redirect.overwrite_sensitive"]),
    ("cat img > /dev/sda", Forbidden, &["redirect.block_device"]),
    ("cat img >& /dev/nvme0n1", Forbidden, &["redirect.block_device"]),
    ("git status", Safe, &[]),
    ("git push", Moderate, &["git.push"]),
    ("git push origin main", Moderate, &["git.push"]),
    ("git push -u origin main", Moderate, &["git.push"]),
    ("git push -f origin main", Destructive, &["git.push_force"]),
    ("git push origin +main", Destructive, &["git.push_force"]),
    ("git push --force-with-lease", Destructive, &["git.push_force"]),
    ("git push origin --delete old", Destructive, &["git.push_force"]),
    ("git push origin :old", Destructive, &["git.push_force"]),
    ("git push --mirror backup", Destructive, &["git.push_force"]),
    ("git -C repo push", Moderate, &["git.push"]),
    ("git -c user.name=x push --force", Destructive, &["git.push_force"]),
    ("git --git-dir=.git push", Moderate, &["git.push"]),
    ("git $sub", Opaque, &["opaque.dynamic_command"]),
    ("cd repo && git add -A && git commit -m \"msg\" && git push", Moderate, &["git.change", "git.change", "git.push"]),
    ("mkfs.ext4 /dev/sdb1", Destructive, &["disk.mkfs"]),
    ("mkfs -t ext4 /dev/sdb", Forbidden, &["disk.root_device"]),
    ("mke2fs /dev/nvme0n1p3", Destructive, &["disk.mkfs"]),
    ("dd if=x of=/dev/sda", Forbidden, &["disk.root_device"]),
    ("dd if=x of=disk.img bs=1M", Destructive, &["disk.dd_write"]),
    ("dd if=/dev/zero of=/dev/null", Safe, &[]),
    ("dd if=/dev/sda", Safe, &[]),
    ("ls; rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("(rm -rf ~)", Forbidden, &["fs.rm_root_or_home"]),
    ("{ rm -rf ~; }", Forbidden, &["fs.rm_root_or_home"]),
    ("echo $(rm -rf ~)", Forbidden, &["fs.rm_root_or_home"]),
    ("echo \"`rm -rf ~`\"", Forbidden, &["fs.rm_root_or_home"]),
    ("diff <(rm -rf ~) x", Forbidden, &["fs.rm_root_or_home"]),
    ("x=$(rm -rf ~)", Forbidden, &["fs.rm_root_or_home"]),
    ("if true; then rm -rf ~; fi", Forbidden, &["fs.rm_root_or_home"]),
    ("if rm -rf ~; then :; fi", Forbidden, &["fs.rm_root_or_home"]),
    ("if a; then b; elif c; then d; else rm -rf ~; fi", Forbidden, &["general.unknown_program", "general.unknown_program", "general.unknown_program", "general.unknown_program", "fs.rm_root_or_home"]),
    ("while true; do rm -rf ~; done", Forbidden, &["fs.rm_root_or_home"]),
    ("for d in a b; do rm -rf ~; done", Forbidden, &["fs.rm_root_or_home"]),
    ("case $x in a) rm -rf ~;; esac", Forbidden, &["fs.rm_root_or_home"]),
    ("f() { rm -rf ~; }; f", Forbidden, &["fs.rm_root_or_home"]),
    ("cat <<EOF\n$(rm -rf ~)\nEOF", Forbidden, &["fs.rm_root_or_home"]),
    ("bash -c 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("sh -lc \"rm -rf ~\"", Forbidden, &["fs.rm_root_or_home"]),
    ("bash -o pipefail -ec 'git push -f'", Destructive, &["git.push_force"]),
    ("bash -c \"$cmd\"", Opaque, &["opaque.dynamic_shell"]),
    ("bash -c 'bash -c \"rm -rf /\"'", Forbidden, &["fs.rm_root_or_home"]),
    ("sudo rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("sudo -u root env FOO=1 nice -n 5 rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("env FOO=1 rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("FOO=1 rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("timeout 5 rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("nohup rm -rf ~ &", Forbidden, &["fs.rm_root_or_home"]),
    ("time rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("command rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("command -v rm", Safe, &[]),
    ("exec rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("find . -name x | xargs rm -rf", Destructive, &["fs.rm_recursive"]),
    ("sudo \"$c\" x", Opaque, &["opaque.dynamic_command"]),
    ("eval rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("eval 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("eval \"$x\"", Opaque, &["opaque.eval_dynamic"]),
    ("curl x | sh", Opaque, &["opaque.pipe_to_shell"]),
    ("curl x | bash -s -- arg", Opaque, &["opaque.pipe_to_shell"]),
    ("curl x | sudo zsh", Opaque, &["opaque.pipe_to_shell"]),
    ("echo ls | bash -c 'cat'", Safe, &[]),
    ("bash script.sh", Safe, &[]),
    ("\"$c\" x", Opaque, &["opaque.dynamic_command"]),
    ("$(printf rm) -rf x", Opaque, &["opaque.dynamic_command"]),
    ("*.sh", Opaque, &["opaque.dynamic_command"]),
    ("echo 'unterminated", Opaque, &["opaque.parse_error"]),
    ("echo $(", Opaque, &["opaque.parse_error"]),
    ("if true; then", Opaque, &["opaque.parse_error"]),
    ("rm -rf ~ 'open", Forbidden, &["fs.rm_root_or_home", "opaque.parse_error"]),
    // Variables, directories and functions the line sets up.
    ("c=rm; $c -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("X=/; rm -rf $X", Forbidden, &["fs.rm_root_or_home"]),
    ("o='-rf /'; rm $o", Forbidden, &["fs.rm_root_or_home"]),
    ("X=~; rm -rf \"$X\"", Forbidden, &["fs.rm_root_or_home"]),
    ("export X=/; rm -rf \"${X}\"", Forbidden, &["fs.rm_root_or_home"]),
    ("c=rm; (c=ls); $c -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("(c=rm); $c x", Opaque, &["opaque.dynamic_command"]),
    ("c=rm; echo | c=ls; $c -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("c=rm $c x", Opaque, &["opaque.dynamic_command"]),
    ("for c in rm; do $c -rf ~; done", Opaque, &["opaque.dynamic_command"]),
    ("c=ls; unset c; $c x", Opaque, &["opaque.dynamic_command"]),
    ("c=ls; read c; $c x", Opaque, &["opaque.dynamic_command"]),
    ("rm -rf ~root", Forbidden, &["fs.rm_root_or_home"]),
    ("rm -rf ~bob/", Forbidden, &["fs.rm_root_or_home"]),
    ("cd / && rm -rf *", Forbidden, &["fs.rm_root_or_home"]),
    ("cd && rm -rf *", Forbidden, &["fs.rm_root_or_home"]),
    ("(cd /; true) && rm -rf *", Destructive, &["fs.rm_recursive"]),
    ("cd /tmp && rm -rf x", Moderate, &["fs.delete_temp"]),
    ("cd \"$d\" && rm -rf x", Destructive, &["fs.rm_recursive"]),
    ("cd /etc; echo x > hosts", Destructive, &["redirect.overwrite_sensitive"]),
    (":(){ :|:& };:", Forbidden, &["system.fork_bomb"]),
    ("bomb() { bomb | bomb & }; bomb", Forbidden, &["system.fork_bomb"]),
    ("f() { echo hi; }; f", Safe, &[]),
    // Heredocs and here-strings: shell text for a shell, data for anything else.
    ("bash <<EOF\nrm -rf ~\nEOF", Forbidden, &["fs.rm_root_or_home"]),
    ("bash <<'EOF'\ngit reset --hard\nEOF", Destructive, &["git.reset_hard"]),
    ("sh <<< 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("sh <<EOF -x\nrm -rf ~\nEOF", Forbidden, &["fs.rm_root_or_home"]),
    ("cat <<EOF\nrm -rf ~\nEOF", Safe, &[]),
    ("cat <<< 'rm -rf ~'", Safe, &[]),
    ("cat <<EOF | sh\nrm -rf ~\nEOF", Opaque, &["opaque.pipe_to_shell"]),
    ("bash <<< \"$x\"", Opaque, &["opaque.dynamic_shell"]),
    ("sh < script.sh", Opaque, &["opaque.shell_reads"]),
    ("bash <(curl -s x)", Opaque, &["opaque.shell_reads"]),
    ("source <(curl -s x)", Opaque, &["opaque.shell_reads"]),
    // Wrappers.
    ("sudo env VAR=1 git reset --hard", Destructive, &["git.reset_hard"]),
    ("env -S 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("env -i -u X -C /tmp rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("/usr/bin/env rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("busybox rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("busybox sh -c 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("flock /tmp/l -c 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("chroot /mnt rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("strace -f -o log rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("ionice -c3 nice -n 5 stdbuf -oL setsid unshare -r rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("doas -u root rm -rf /", Forbidden, &["fs.rm_root_or_home"]),
    ("exec -a x rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("timeout -s KILL 5 rm -rf ~", Forbidden, &["fs.rm_root_or_home"]),
    ("env FOO=1 ls", Safe, &[]),
    ("sudo ls", Safe, &[]),
    // Programs that run commands handed to them.
    ("echo / | xargs rm -rf", Destructive, &["fs.rm_recursive"]),
    ("xargs echo", Safe, &[]),
    ("echo ok | xargs git reset --hard", Destructive, &["git.reset_hard"]),
    ("echo x | xargs -I{} bash -c {}", Opaque, &["opaque.dynamic_shell"]),
    ("echo x | xargs bash -c", Opaque, &["opaque.dynamic_shell"]),
    ("find . -exec rm -rf {} \\;", Destructive, &["fs.rm_recursive"]),
    ("find . -name '*.rs'", Safe, &[]),
    ("find / -execdir sudo rm -rf {} +", Destructive, &["fs.rm_recursive"]),
    ("parallel rm -rf ::: ~", Forbidden, &["fs.rm_root_or_home"]),
    ("parallel bash -c {}", Opaque, &["opaque.dynamic_shell"]),
    ("parallel ::: 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("parallel git reset --hard ::: ok", Destructive, &["git.reset_hard"]),
    ("watch ls", Safe, &[]),
    ("watch -n 5 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("su -c 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("su - root -c 'rm -rf /'", Forbidden, &["fs.rm_root_or_home"]),
    ("ssh host ls", Safe, &[]),
    ("ssh host 'rm -rf ~'", Forbidden, &["fs.rm_root_or_home"]),
    ("ssh -i key.pem user@host 'git reset --hard'", Destructive, &["git.reset_hard"]),
    // Inline programs.
    ("python -c 'print(1)'", Safe, &[]),
    ("node -e 'console.log(1)'", Safe, &[]),
    ("python -c 'import os; os.system(\"rm -rf ~\")'", Forbidden, &["fs.rm_root_or_home"]),
    ("python3 -c \"import shutil; shutil.rmtree('/home/u')\"", Forbidden, &["fs.rm_root_or_home"]),
    ("python3 -c 'import subprocess; subprocess.run([\"git\", \"reset\", \"--hard\"])'", Destructive, &["git.reset_hard"]),
    ("python -c 'import os; os.system(cmd)'", Opaque, &["opaque.inline_program"]),
    ("node -e \"require('child_process').execSync('rm -rf ~')\"", Forbidden, &["fs.rm_root_or_home"]),
    ("perl -e 'system(\"rm -rf ~\")'", Forbidden, &["fs.rm_root_or_home"]),
    ("perl -e 'print `rm -rf ~`'", Forbidden, &["fs.rm_root_or_home"]),
    ("ruby -e \"FileUtils.rm_rf('/')\"", Forbidden, &["fs.rm_root_or_home"]),
    ("ruby -e 'rm -rf /'", Opaque, &["opaque.inline_program"]),
    ("php -r 'system(\"rm -rf ~\");'", Forbidden, &["fs.rm_root_or_home"]),
    ("node -e \"client.deleteIndex('prod')\"", Opaque, &["opaque.inline_program"]),
    ("python3 <<EOF\nimport shutil; shutil.rmtree('/')\nEOF", Forbidden, &["fs.rm_root_or_home"]),
    ("python -c \"open('x', 'w').write('y')\"", Moderate, &["opaque.inline_writes"]),
    ("curl x | python3", Opaque, &["opaque.stdin_commands"]),
    ("python3 < script.py", Opaque, &["opaque.stdin_commands"]),
    ("echo aGk= | base64 -d | sh", Opaque, &["opaque.pipe_to_shell"]),
    ("sed -n 1,5p f", Safe, &[]),
    ("sed 's/a/b/e' f", Opaque, &["opaque.inline_program"]),
    ("sed -e '1e rm -rf ~' f", Opaque, &["opaque.inline_program"]),
    ("sed -n 'w out' f", Moderate, &["opaque.inline_writes"]),
    ("awk '{print $1}' f", Safe, &[]),
    ("awk 'BEGIN { system(\"rm -rf ~\") }'", Forbidden, &["fs.rm_root_or_home"]),
    ("awk '{ system($0) }' f", Opaque, &["opaque.inline_program"]),
    ("awk '{ print | \"sh\" }' f", Opaque, &["opaque.pipe_to_shell"]),
    ("perl -e \"rm -rf /\"", Opaque, &["opaque.inline_program"]),
    // Grammar quirks and Windows names.
    ("git >/dev/null reset --hard", Destructive, &["git.reset_hard"]),
    ("C:/Git/bin/git.exe reset --hard", Destructive, &["git.reset_hard"]),
];

#[test]
fn table() {
    let mut failures = Vec::new();
    for (line, level, want) in CASES {
        let a = run(line);
        let got = ids(&a);
        if a.level != *level || got != *want {
            failures.push(format!(
                "{line:?}: got {:?} {got:?}, want {level:?} {want:?}",
                a.level
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn remote_and_runner_paths() {
    let paths =
        |line: &str| -> Vec<String> { run(line).commands.into_iter().map(|c| c.path).collect() };
    assert_eq!(
        paths("ssh host 'rm -rf x' && find . -exec rm {} \\;"),
        [
            "list[0]",
            "list[0] > ssh host",
            "list[1]",
            "list[1] > find -exec"
        ]
    );
    assert_eq!(
        paths("cat <<EOF | sh\nls\nEOF"),
        ["pipeline[0]", "pipeline[1]"]
    );
}

#[test]
fn error_spans_stay_on_character_boundaries() {
    // Found by the property test: an empty error node before a 3-byte character.
    let line = "\u{feff};; esac -rf";
    for f in run(line).findings {
        assert!(line.is_char_boundary(f.span.start) && line.is_char_boundary(f.span.end));
    }
}

#[test]
fn truncated_input_is_opaque() {
    let ctx = Context {
        truncated: true,
        ..CTX
    };
    let a = shell("ls", &ctx);
    assert_eq!((a.level, ids(&a)), (Opaque, vec!["opaque.truncated"]));
}

#[test]
fn commands_and_paths() {
    let a = run("ls; cat x | sort && (cd a; make) && bash -c 'rm -rf b' && echo $(pwd)");
    let got: Vec<(&str, Vec<&str>)> = a
        .commands
        .iter()
        .map(|c| (c.path.as_str(), c.argv.iter().map(String::as_str).collect()))
        .collect();
    let want: Vec<(&str, Vec<&str>)> = vec![
        ("list[0]", vec!["ls"]),
        ("list[1] > pipeline[0]", vec!["cat", "x"]),
        ("list[1] > pipeline[1]", vec!["sort"]),
        ("list[2] > subshell > list[0]", vec!["cd", "a"]),
        ("list[2] > subshell > list[1]", vec!["make"]),
        ("list[3]", vec!["bash", "-c", "rm -rf b"]),
        ("list[3] > bash -c", vec!["rm", "-rf", "b"]),
        ("list[4]", vec!["echo", "$(pwd)"]),
        ("list[4] > $(…)", vec!["pwd"]),
    ];
    assert_eq!(got, want);
    let wrapped = run("sudo rm x");
    assert_eq!(wrapped.commands[1].path, "sudo");
    assert_eq!(wrapped.commands[1].argv, vec!["rm", "x"]);
}

#[test]
fn spans_point_into_the_original() {
    let line = "ls && rm -rf x";
    let a = run(line);
    assert_eq!(a.findings[0].span, 6..line.len());

    let line = "ls && r\\\nm -rf \\\n x";
    let a = run(line);
    let f = &a.findings[0];
    assert_eq!(f.id, "fs.rm_recursive");
    assert_eq!(&line[f.span.clone()], "r\\\nm -rf \\\n x");

    let line = "echo hi; bash -c 'rm -rf b'";
    let a = run(line);
    assert_eq!(&line[a.findings[0].span.clone()], "rm -rf b");

    let line = "echo > out.txt";
    assert_eq!(&line[run(line).findings[0].span.clone()], "> out.txt");
}

#[test]
fn wire_conversions_saturate() {
    let a = run("rm x");
    let w = a.findings[0].to_wire();
    assert_eq!((w.id.as_str(), w.span.start, w.span.end), ("fs.rm", 0, 4));
    let big = super::Finding {
        span: 0..usize::MAX,
        ..a.findings[0].clone()
    };
    assert_eq!(big.to_wire().span.end, u32::MAX);
    let c = a.commands[0].to_wire();
    assert_eq!(c.argv, vec!["rm", "x"]);
}

#[test]
fn long_and_chain_does_not_overflow() {
    let line = vec!["true"; 16_384].join(" && ");
    let a = on_small_stack(move || shell(&line, &CTX));
    assert_eq!(a.level, Safe);
    assert_eq!(a.commands.len(), 16_384);
}

#[test]
fn deep_substitutions_are_opaque_without_overflow() {
    let line = format!("echo {}x{}", "$(echo ".repeat(10_000), ")".repeat(10_000));
    let a = on_small_stack(move || shell(&line, &CTX));
    assert_eq!(a.level, Opaque);
    assert!(ids(&a).contains(&"opaque.too_deep"), "{:?}", ids(&a));

    let unclosed = "$(".repeat(10_000);
    let a = on_small_stack(move || shell(&unclosed, &CTX));
    assert_eq!(a.level, Opaque);

    let subshells = format!("{}rm -rf ~{}", "( ".repeat(10_000), " )".repeat(10_000));
    let a = on_small_stack(move || shell(&subshells, &CTX));
    assert!(ids(&a).contains(&"opaque.too_deep"), "{:?}", ids(&a));
}

#[test]
fn nested_inner_shells_are_bounded() {
    let line = "eval ".repeat(20_000) + "rm -rf x";
    let a = on_small_stack(move || shell(&line, &CTX));
    assert!(a.level >= Opaque, "{:?}", ids(&a));
}

#[test]
fn a_100_kib_line_is_answered() {
    let line = "echo hello world; ".repeat(100 * 1024 / 18) + "rm -rf ~";
    let a = shell(&line, &CTX);
    assert_eq!(a.level, Forbidden);
}

#[test]
fn hostile_bytes_do_not_panic() {
    let inputs = [
        "\\",
        "'",
        "\"",
        "$'",
        "$'\\",
        "$'\\x",
        "$'\\u{",
        "`",
        "$((",
        "<<",
        "<<EOF",
        "a\\\n",
        "\\\n\\\n",
        "é\\\nà",
        "$'\\c'",
        "rm -rf $'\\0'",
        "{ (",
        "f() {",
        "case",
        "for",
        ">",
        "<>",
        "&>",
        "||",
        "\u{0}",
        "echo \u{feff}",
        "x=( $(",
        "[[ ",
        "sudo",
        "sudo -u",
        "env -u",
        "timeout",
        "bash -c",
        "git -C",
        "dd of=",
        "rm --",
        "eval",
        "xargs -a",
    ];
    for input in inputs {
        let _ = run(input);
    }
    // Every prefix of a tricky line, so every half-finished construct is seen.
    let line = "sudo env A=1 bash -lc $'r\\x6d -rf ~' && { f() { eval \"x\"; }; } | sh <> /dev/sda";
    for end in (0..=line.len()).filter(|&i| line.is_char_boundary(i)) {
        let _ = run(&line[..end]);
    }
}
