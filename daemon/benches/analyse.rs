//! How long the shell analyser takes on a typical short line, an agent's usual chain, and a
//! long line. Targets (median): `ls -la` ≤ 20 µs, the chain ≤ 60 µs, 10 KiB ≤ 2 ms.
//!
//! Two 10 KiB lines: one dense with commands (about 650 of them, the worst case: most of the
//! time is tree-sitter-bash's own parse), one a single command with a long quoted argument.

use std::hint::black_box;

use assentd::analyse::{Context, shell};
use criterion::{Criterion, criterion_group, criterion_main};

const CTX: Context<'static> = Context {
    cwd: "/home/u/repo",
    home: Some("/home/u"),
    truncated: false,
};

fn bench(c: &mut Criterion) {
    let long = "git add -A && git commit -m \"msg\" | tee log.txt; rm -rf build/$(date) > out; "
        .repeat(10 * 1024 / 78);
    let message = format!(
        "git commit -m \"{}\"",
        "Fix the frobnicator. ".repeat(10 * 1024 / 21)
    );
    let cases = [
        ("ls -la", "ls -la".to_owned()),
        (
            "agent chain",
            "cd repo && git add -A && git commit -m \"msg\" && git push".to_owned(),
        ),
        ("10 KiB line, dense", long),
        ("10 KiB line, one long string", message),
    ];
    for (name, line) in &cases {
        c.bench_function(name, |b| b.iter(|| shell(black_box(line), black_box(&CTX))));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
