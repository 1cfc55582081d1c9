//! The import pool's scheduling rules, kept apart from the browser so they are tested natively
//! (`src/ui/pool.rs` applies them): how many import workers to start.

/// How many import workers to start for `cores` (`navigator.hardwareConcurrency`; a missing or
/// nonsensical value counts as 2): one per core less one for the session worker, at least 1
/// and at most `max`.
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
