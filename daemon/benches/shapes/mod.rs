//! The lines the analyser is measured on: everyday ones, and the shapes whose cost could grow
//! faster than the line (long pipelines, `&&` chains, wrappers, nesting, many words, patterns
//! and braces), each about 16 KiB. Shared by the time and the memory benches.

/// Bytes the long shapes are made to fill.
pub const LONG: usize = 16 * 1024;

/// `unit` repeated to fill about `LONG` bytes with `head` and `tail` around it.
fn fill(head: &str, unit: &str, tail: &str) -> String {
    let n = (LONG - head.len() - tail.len()) / unit.len();
    format!("{head}{}{tail}", unit.repeat(n))
}

/// (name, line), in the order the tables show them.
pub fn shapes() -> Vec<(&'static str, String)> {
    let n = LONG / 2;
    vec![
        ("ls -la", "ls -la".to_owned()),
        (
            "agent chain",
            "cd repo && git add -A && git commit -m \"msg\" && git push".to_owned(),
        ),
        (
            "agent build chain",
            "cd /home/u/repo && cargo build --release 2>&1 | tail -20 && git status --short"
                .to_owned(),
        ),
        (
            "agent pipeline",
            "cat src/main.rs | grep -n unwrap | sort | uniq -c | head -20".to_owned(),
        ),
        (
            "10 KiB line, dense",
            "git add -A && git commit -m \"msg\" | tee log.txt; rm -rf build/$(date) > out; "
                .repeat(10 * 1024 / 78),
        ),
        (
            "16 KiB, one long string",
            fill("git commit -m \"", "Fix the frobnicator. ", "\""),
        ),
        ("16 KiB, pipeline of 8,192 stages", vec!["a"; n].join("|")),
        ("16 KiB, && chain", fill("", "a && ", "a")),
        ("16 KiB, ; list", fill("", "cd x; ", "rm -rf y")),
        ("16 KiB, wrappers", fill("", "sudo ", "rm -rf ~")),
        (
            "16 KiB, mixed wrappers",
            fill("", "env A=1 nice -n 5 timeout 9 nohup ", "rm -rf ~"),
        ),
        (
            "16 KiB, nested substitutions",
            format!(
                "echo {}x{}",
                "$(echo ".repeat(LONG / 9),
                ")".repeat(LONG / 9)
            ),
        ),
        (
            "16 KiB, nested subshells",
            format!("{}rm -rf ~{}", "( ".repeat(LONG / 4), " )".repeat(LONG / 4)),
        ),
        ("16 KiB, eval chain", fill("", "eval ", "rm -rf x")),
        ("16 KiB, bash -c chain", fill("", "bash -c ", "x")),
        ("16 KiB, many words", fill("cat", " ~/.ssh/id_rsa", "")),
        ("16 KiB, many patterns", fill("cat", " ~/.ss?/id_*", "")),
        ("16 KiB, braces", fill("echo", " {a,b}{c,d}{e,f}", "")),
        ("16 KiB, many paths", {
            let mut line = "rm -rf".to_owned();
            let mut i = 0;
            while line.len() < LONG - 20 {
                line.push_str(&format!(" ~/.config/x{i}"));
                i += 1;
            }
            line
        }),
        (
            "16 KiB, moves and deletes",
            fill("", "mv ~/a /tmp/b; rm -rf /tmp/b; ", ""),
        ),
        (
            "16 KiB, heredoc",
            fill("cat <<EOF\n", "some text $HOME line\n", "EOF"),
        ),
        // Programs in other languages, parsed with their grammars and evaluated.
        (
            "python one-liner",
            "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"x\"])' < package.json"
                .to_owned(),
        ),
        (
            "node one-liner",
            "node -e 'console.log(require(\"./package.json\").version)'".to_owned(),
        ),
        (
            "16 KiB, Python heredoc",
            fill(
                "python3 - <<'EOF'\nimport os as o\nfrom pathlib import Path\n",
                "for f in o.listdir('src'):\n    print(Path('src', f).read_text()[:9])\n",
                "EOF",
            ),
        ),
        (
            "16 KiB, JavaScript heredoc",
            fill(
                "node <<'EOF'\nconst fs = require('fs')\n",
                "for (const f of fs.readdirSync('src')) console.log(fs.statSync('src/' + f).size)\n",
                "EOF",
            ),
        ),
        (
            "16 KiB, nested Python exec",
            format!(
                "python3 -c \"{}1{}\"",
                "exec('".repeat(LONG / 8),
                "')".repeat(LONG / 8)
            ),
        ),
        (
            "16 KiB, SQL heredoc",
            fill(
                "psql <<'EOF'\n",
                "UPDATE t SET a = 1 WHERE id = 3 /* c */ AND b = 'x;y';\n",
                "EOF",
            ),
        ),
        // Malformed text tree-sitter-bash recovers from in seconds: the parse deadline.
        ("16 KiB, malformed: backticks", fill("", "`2>&1 ", "")),
        ("16 KiB, malformed: closing parentheses", fill("", ")", "")),
    ]
}
