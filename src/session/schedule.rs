//! The import pool's scheduling rules, kept apart from the browser so they are tested natively
//! (`src/ui/pool.rs` applies them): how many import workers to start.

/// How many import workers to start for `cores` (`navigator.hardwareConcurrency`; a missing or
/// nonsensical value counts as 2): one per core less one for the session worker, at least 1
/// and at most `max`. One per core was tried (2026-12-02, 2 cores): the 18 demo trials came
/// 19 % sooner, but 200 small trials took 25.6 s instead of 15.2 s to reach the trial table,
/// with 33 main-thread tasks ≥ 50 ms (the longest 385–510 ms) instead of 4 (177 ms): the
/// session worker and the page then share the cores with two imports.
pub fn import_workers(cores: f64, max: usize) -> usize {
    let cores = if cores.is_finite() && cores >= 1.0 {
        cores as usize
    } else {
        2
    };
    cores.saturating_sub(1).clamp(1, max.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_import_worker_per_core_less_one_within_bounds() {
        assert_eq!(import_workers(2.0, 4), 1);
        assert_eq!(import_workers(3.0, 4), 2);
        assert_eq!(import_workers(16.0, 4), 4);
        assert_eq!(import_workers(1.0, 4), 1);
        assert_eq!(import_workers(0.0, 4), 1);
        assert_eq!(import_workers(f64::NAN, 4), 1);
    }
}
