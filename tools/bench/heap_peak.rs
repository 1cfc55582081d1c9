//! Heap peak of one import, measured with a counting global allocator (a measuring tool for
//! issue #9's memory targets, not part of the CLI): `cargo run --release --example heap_peak --
//! FILE…`. For each file it prints the peak of live heap bytes during the import
//! (`formats::load_from`) and during the workspace's reduction of the model (`workspace::keep`
//! via `workspace::prepare_file`), twice: with `realloc` counted as the platform does it
//! (`in place`: the old block's bytes move to the new one) and as wasm32's dlmalloc must when
//! it cannot grow a block where it is (`copy`: old and new live at once at the moment of the
//! growth). At each phase's copy peak it lists the live blocks of 1 MiB and more, by size, so
//! the columns that make the peak can be told apart. Then the model's heap bytes by column.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use trialscope::formats::{self, LoadOptions, Loaded};

/// Blocks of at least this many bytes are tracked one by one.
const BIG: usize = 1 << 20;
const SLOTS: usize = 4096;

struct Counting;

static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK_INPLACE: AtomicUsize = AtomicUsize::new(0);
static PEAK_COPY: AtomicUsize = AtomicUsize::new(0);
static LOCK: AtomicBool = AtomicBool::new(false);
/// Live big blocks (address, size); address 0 = free slot.
static mut BIG_LIVE: [(usize, usize); SLOTS] = [(0, 0); SLOTS];
/// The big blocks live at the last copy peak (sizes; 0 = none), plus the block being grown.
static mut AT_PEAK: [usize; SLOTS] = [0; SLOTS];
static mut AT_PEAK_GROWING: (usize, usize) = (0, 0);

fn lock() {
    while LOCK
        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
}
fn unlock() {
    LOCK.store(false, Ordering::Release);
}

/// Notes a candidate peak (`transient`: bytes live for a moment beyond `CUR`).
unsafe fn note_peak(transient: usize, growing: (usize, usize)) {
    let cur = CUR.load(Ordering::Relaxed);
    PEAK_INPLACE.fetch_max(cur, Ordering::Relaxed);
    let c = cur + transient;
    if c > PEAK_COPY.load(Ordering::Relaxed) + (BIG / 4) {
        PEAK_COPY.store(c, Ordering::Relaxed);
        let live = &*std::ptr::addr_of!(BIG_LIVE);
        let at = &mut *std::ptr::addr_of_mut!(AT_PEAK);
        for (a, l) in at.iter_mut().zip(live.iter()) {
            *a = if l.0 != 0 { l.1 } else { 0 };
        }
        *std::ptr::addr_of_mut!(AT_PEAK_GROWING) = growing;
    } else if c > PEAK_COPY.load(Ordering::Relaxed) {
        PEAK_COPY.store(c, Ordering::Relaxed);
    }
}

unsafe fn track(addr: usize, size: usize) {
    if size < BIG {
        return;
    }
    let live = &mut *std::ptr::addr_of_mut!(BIG_LIVE);
    if let Some(s) = live.iter_mut().find(|s| s.0 == 0) {
        *s = (addr, size);
    }
}
unsafe fn untrack(addr: usize, size: usize) {
    if size < BIG {
        return;
    }
    let live = &mut *std::ptr::addr_of_mut!(BIG_LIVE);
    if let Some(s) = live.iter_mut().find(|s| s.0 == addr) {
        *s = (0, 0);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            lock();
            CUR.fetch_add(l.size(), Ordering::Relaxed);
            track(p as usize, l.size());
            note_peak(0, (0, 0));
            unlock();
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        lock();
        CUR.fetch_sub(l.size(), Ordering::Relaxed);
        untrack(p as usize, l.size());
        unlock();
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        lock();
        // The moment of a copy: the old block and the new one are both live.
        if new > l.size() {
            note_peak(new, (l.size(), new));
        }
        unlock();
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            lock();
            CUR.fetch_sub(l.size(), Ordering::Relaxed);
            CUR.fetch_add(new, Ordering::Relaxed);
            untrack(p as usize, l.size());
            track(q as usize, new);
            note_peak(0, (0, 0));
            unlock();
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

fn mb(b: usize) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

/// Resets the peaks to the current live bytes.
fn reset() {
    lock();
    let c = CUR.load(Ordering::Relaxed);
    PEAK_INPLACE.store(c, Ordering::Relaxed);
    PEAK_COPY.store(c, Ordering::Relaxed);
    unsafe {
        (*std::ptr::addr_of_mut!(AT_PEAK)).fill(0);
        *std::ptr::addr_of_mut!(AT_PEAK_GROWING) = (0, 0);
    }
    unlock();
}

fn report(phase: &str) {
    lock();
    let (inplace, copy) = (
        PEAK_INPLACE.load(Ordering::Relaxed),
        PEAK_COPY.load(Ordering::Relaxed),
    );
    // Copied without allocating (the allocator takes the same lock).
    let at: [usize; SLOTS] = unsafe { *std::ptr::addr_of!(AT_PEAK) };
    let growing = unsafe { *std::ptr::addr_of!(AT_PEAK_GROWING) };
    unlock();
    let mut sizes: Vec<usize> = at.to_vec();
    sizes.retain(|&s| s > 0);
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let big: usize = sizes.iter().sum();
    println!(
        "  {phase}: peak {} in place, {} copy ({} in {} blocks ≥ 1 MiB{})",
        mb(inplace),
        mb(copy),
        mb(big),
        sizes.len(),
        if growing.1 > 0 {
            format!(", growing {} → {}", mb(growing.0), mb(growing.1))
        } else {
            String::new()
        }
    );
    let shown: Vec<String> = sizes.iter().take(24).map(|&s| mb(s)).collect();
    println!("    largest: {}", shown.join(", "));
}

fn main() {
    for path in std::env::args().skip(1) {
        println!("{path}");
        let src = match formats::FileSource::new(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let base = CUR.load(Ordering::Relaxed);
        reset();
        let loaded = match formats::load_from(&path, &src, &LoadOptions::default(), &mut |_| {}) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        report("import");
        if let Loaded::Trace(a) = &loaded {
            let m = &a.model;
            let n = m.slices.len().max(1);
            println!(
                "  model: {} = {:.1} B/slice over {} slices, {} arg entries in {} sets, {} strings, {} counter samples",
                mb(m.heap_bytes()),
                m.heap_bytes() as f64 / n as f64,
                m.slices.len(),
                m.args.entry_count(),
                m.args.set_count(),
                m.strings.len(),
                m.counters.iter().map(|c| c.ts_ns.len()).sum::<usize>()
            );
            println!(
                "    slices {} ({:.1} B/slice), args {} ({:.1} B/slice), strings {}, frames {}, live now {}",
                mb(m.slices.heap_bytes()),
                m.slices.heap_bytes() as f64 / n as f64,
                mb(m.args.heap_bytes()),
                m.args.heap_bytes() as f64 / n as f64,
                mb(m.strings.heap_bytes()),
                mb(m.frames.heap_bytes()),
                mb(CUR.load(Ordering::Relaxed) - base)
            );
        }
        reset();
        let prepared = trialscope::workspace::keep(loaded);
        report("keep");
        let live = CUR.load(Ordering::Relaxed) - base;
        reset();
        // As the import worker hands it over: in pieces, none kept here.
        let mut encoded = 0usize;
        let r = trialscope::workspace::wire::encode_chunks(
            &Ok(prepared),
            trialscope::workspace::wire::CHUNK_BYTES,
            &mut |p| encoded += p.len(),
        );
        report("encode");
        if let Err(e) = r {
            eprintln!("{path}: {e}");
        }
        println!("  kept {} live, encoded {}", mb(live), mb(encoded));
    }
}
