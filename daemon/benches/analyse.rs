//! How long the shell analyser takes: everyday lines, and every shape that could cost more
//! than its length (`shapes`). Targets on the 2-core VM (median): `ls -la` ≤ 20 µs, an agent
//! line ≤ 60 µs, the dense 10 KiB line ≤ 3.5 ms, any 16 KiB line ≤ 20 ms.
//!
//! The dense line's bare tree-sitter-bash parse is measured too, with one parser reused as
//! the analyser does: the floor under the analyser's time, which our code cannot go below.
//! Then the whole peer-case corpus (`tests/peer-cases/*.jsonl`), as commands per second.
//! Memory is measured by the `analyse_memory` bench.

use std::hint::black_box;

use assentd::analyse::{Surroundings, shell};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

mod shapes;

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/u/repo",
    home: Some("/home/u"),
    project: Some("/home/u/repo"),
    truncated: false,
};

fn bench(c: &mut Criterion) {
    let shapes = shapes::shapes();
    for (name, line) in &shapes {
        c.bench_function(name, |b| b.iter(|| shell(black_box(line), black_box(&CTX))));
    }
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .expect("the bundled grammar matches the tree-sitter version");
    if let Some((_, dense)) = shapes.iter().find(|(name, _)| name.contains("dense")) {
        c.bench_function("10 KiB line, dense: tree-sitter-bash parse alone", |b| {
            b.iter(|| parser.parse(black_box(dense), None))
        });
    }
    let corpus = peer_corpus();
    let mut group = c.benchmark_group("peer corpus");
    group.throughput(Throughput::Elements(corpus.len() as u64));
    group.sample_size(20);
    group.bench_function(format!("{} commands", corpus.len()), |b| {
        b.iter(|| {
            for line in &corpus {
                black_box(shell(black_box(line), &CTX));
            }
        })
    });
    group.finish();
}

/// Every command of the peer cases; they are analysed only, never run.
fn peer_corpus() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer-cases");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            let record: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            if let Some(command) = record.get("command").and_then(|c| c.as_str()) {
                out.push(command.to_owned());
            }
        }
    }
    out
}

criterion_group!(benches, bench);
criterion_main!(benches);
