//! The analyser's peak heap per line, for every shape of `shapes`: a counting allocator
//! around the system one records the most bytes held at once during one `shell()` call.
//! Target: ≤ 50 MB for any 16 KiB line. Also prints the time of one call (the minimum of
//! rounds interleaved across shapes), a quick check beside the criterion bench.
//!
//! `cargo bench -p assentd --bench analyse_memory`

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use assentd::analyse::{Surroundings, shell};

mod shapes;

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the counters only observe.
#[allow(unsafe_code)] // A counting allocator wraps the system one: the only unsafe here.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is the system allocator's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is the system allocator's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            HELD.fetch_sub(layout.size(), Ordering::Relaxed);
            let now = HELD.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const CTX: Surroundings<'static> = Surroundings {
    cwd: "/home/u/repo",
    home: Some("/home/u"),
    project: Some("/home/u/repo"),
    truncated: false,
};

/// Rounds over all shapes; the time shown is each shape's fastest.
const ROUNDS: usize = 15;

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read.
    let shapes = shapes::shapes();
    let mut peak = vec![0usize; shapes.len()];
    let mut best = vec![Duration::MAX; shapes.len()];
    // Once through first: what is built on first use (the vocabulary, the grammar's tables,
    // the thread's parser) is not a line's cost.
    for (_, line) in &shapes {
        drop(black_box(shell(line, &CTX)));
    }
    for _ in 0..ROUNDS {
        for (i, (_, line)) in shapes.iter().enumerate() {
            let before = HELD.load(Ordering::Relaxed);
            PEAK.store(before, Ordering::Relaxed);
            let start = Instant::now();
            let analysis = shell(black_box(line), &CTX);
            best[i] = best[i].min(start.elapsed());
            drop(black_box(analysis));
            peak[i] = peak[i].max(PEAK.load(Ordering::Relaxed).saturating_sub(before));
        }
    }
    println!("| Line | Bytes | Level | Peak heap | Fastest of {ROUNDS} |");
    println!("|---|---:|---|---:|---:|");
    for (i, (name, line)) in shapes.iter().enumerate() {
        let level = shell(line, &CTX).level;
        println!(
            "| {name} | {} | {level:?} | {:.2} MiB | {:.3?} |",
            line.len(),
            peak[i] as f64 / (1024.0 * 1024.0),
            best[i],
        );
    }
}
