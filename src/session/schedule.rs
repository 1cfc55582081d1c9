//! The import pool's scheduling rules, kept apart from the browser so they are tested natively
//! (`src/ui/pool.rs` applies them): how many import workers to start, and which of them may
//! take a file of a given size.

/// A file at least this large as dropped (bytes, 128 KiB) may go to every import worker; a
/// smaller one only to the first [`PoolSize::small_file_workers`].
///
/// The 200 small trials of `tests/it/browser_scale.rs` (3.6 KB each) cost the session worker
/// and the page more per file than their import does; the 18 demo trials (330–560 KB as
/// dropped, 70–140 ms of import each) cost the import most.
pub const LARGE_FILE_BYTES: f64 = 128.0 * 1024.0;

/// The pool's size for a core count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSize {
    /// Import workers to start.
    pub workers: usize,
    /// The workers (slots `0..small_file_workers`) that take files smaller than
    /// [`LARGE_FILE_BYTES`]; the others take large files only.
    pub small_file_workers: usize,
}

/// How many import workers to start for `cores` (`navigator.hardwareConcurrency`; a missing or
/// nonsensical value counts as 2): one per core, at most `max`; files smaller than
/// [`LARGE_FILE_BYTES`] go to one per core less one (at least 1), leaving a core to the
/// session worker and the page.
///
/// Measured on 2 cores (2026-12-02): one import worker per core for every file brought the 18
/// demo trials 19 % sooner, but 200 small trials took 25.6 s instead of 15.2 s to reach the
/// trial table, with 33 main-thread tasks ≥ 50 ms (the longest 385–510 ms) instead of 4: for
/// small files the session worker and the page are the bottleneck, and a second import only
/// takes their core. Hence the size rule (README "Crash isolation and parallel import").
pub fn pool_size(cores: f64, max: usize) -> PoolSize {
    let cores = if cores.is_finite() && cores >= 1.0 {
        cores as usize
    } else {
        2
    };
    let max = max.max(1);
    PoolSize {
        workers: cores.clamp(1, max),
        small_file_workers: cores.saturating_sub(1).clamp(1, max),
    }
}

/// Whether the worker in `slot` may take a file of `bytes` (as dropped).
pub fn may_take(size: PoolSize, slot: usize, bytes: f64) -> bool {
    slot < size.small_file_workers || bytes >= LARGE_FILE_BYTES
}

/// When to start a large-files-only worker (one not yet started), from [`start_large_files_worker`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LargeWorkerStart {
    /// Now: files it may take are waiting.
    Now,
    /// Once the pool has been idle for [`IDLE_START_MS`]: ready for the next large file.
    WhenIdle,
    /// Not now.
    No,
}

/// How long the pool waits, idle, before it starts a large-files-only worker that nothing waits
/// for: 2000 ms. The pool turns idle when a file's import ends, and that is when the page
/// shows the file and the session worker adds it and analyses; a worker started then (its wasm
/// compiled, then warmed up on a 1 MB trace) took the 2-core VM's CPU from both. Started at
/// once, it ran beside the 200 MB Kineto trace's end in Chromium traces (2026-12-05), when the
/// page's task there took 46 ms (48 ms with two busy processes beside the browser).
pub const IDLE_START_MS: u32 = 2000;

/// Whether to start a large-files-only worker now: when it would import beside the started
/// ones — `it_may_take` (the queued files it may take, [`may_take`]) is two or more, or one
/// while every started worker is busy (`others_busy`) — else once every started worker has
/// been warm and idle with nothing queued (`pool_idle`) for [`IDLE_START_MS`]. Not for a
/// single large file that a started worker can take: started beside the 1 GB trace's import, it
/// gave the page a 70–89 ms task at that file's hand-over (3 of 3 runs, 2026-12-04; none
/// without it).
pub fn start_large_files_worker(
    pool_idle: bool,
    it_may_take: usize,
    others_busy: bool,
) -> LargeWorkerStart {
    if it_may_take >= 2 || (it_may_take == 1 && others_busy) {
        LargeWorkerStart::Now
    } else if pool_idle {
        LargeWorkerStart::WhenIdle
    } else {
        LargeWorkerStart::No
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(workers: usize, small_file_workers: usize) -> PoolSize {
        PoolSize {
            workers,
            small_file_workers,
        }
    }

    #[test]
    fn one_import_worker_per_core_small_files_one_less() {
        assert_eq!(pool_size(2.0, 4), size(2, 1));
        assert_eq!(pool_size(3.0, 4), size(3, 2));
        assert_eq!(pool_size(4.0, 4), size(4, 3));
        assert_eq!(pool_size(16.0, 4), size(4, 4));
        assert_eq!(pool_size(1.0, 4), size(1, 1));
        assert_eq!(pool_size(0.0, 4), size(2, 1));
        assert_eq!(pool_size(f64::NAN, 4), size(2, 1));
        assert_eq!(pool_size(8.0, 0), size(1, 1));
    }

    #[test]
    fn the_extra_worker_takes_large_files_only() {
        let s = pool_size(2.0, 4);
        assert!(may_take(s, 0, 10.0));
        assert!(may_take(s, 0, LARGE_FILE_BYTES * 10.0));
        assert!(!may_take(s, 1, 3_600.0));
        assert!(!may_take(s, 1, LARGE_FILE_BYTES - 1.0));
        assert!(may_take(s, 1, LARGE_FILE_BYTES));
        assert!(may_take(s, 1, 450_000.0));
        // With as many workers for small files as for large ones, any slot takes any file.
        let all = pool_size(16.0, 4);
        assert!((0..4).all(|slot| may_take(all, slot, 1.0)));
    }

    #[test]
    fn the_extra_worker_starts_when_idle_or_beside_the_others() {
        use LargeWorkerStart::*;
        // Idle pool: started once it has stayed idle, whatever waits.
        assert_eq!(start_large_files_worker(true, 0, false), WhenIdle);
        // Two large files: one each.
        assert_eq!(start_large_files_worker(false, 2, false), Now);
        assert_eq!(start_large_files_worker(false, 18, true), Now);
        // One large file: only when the others are busy.
        assert_eq!(start_large_files_worker(false, 1, true), Now);
        assert_eq!(start_large_files_worker(false, 1, false), No);
        // Nothing it may take (small files only, or the others still warming up).
        assert_eq!(start_large_files_worker(false, 0, true), No);
        assert_eq!(start_large_files_worker(false, 0, false), No);
    }
}
