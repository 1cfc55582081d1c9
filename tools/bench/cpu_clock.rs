//! This thread's CPU time, for the benchmark harnesses and the timing tests (included by
//! `#[path]` in `src/bin/trialscope/cli/bench.rs` and the tests of `src/aggregate/pieces.rs`).

/// This thread's CPU time, s: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, ns resolution. It
/// replaces `/proc/thread-self/schedstat`, which advances only at scheduler events: a stage of
/// a few ms could read 0 s. `None` where the clock cannot be read.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn thread_cpu_s() -> Option<f64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

/// Elsewhere: `None` (the callers use wall time instead).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn thread_cpu_s() -> Option<f64> {
    None
}
