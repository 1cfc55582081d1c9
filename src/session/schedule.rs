//! The import pool's scheduling rules, kept apart from the browser so they are tested natively
//! (`src/ui/pool.rs` applies them): how many import workers to start.

/// How many import workers to start for `cores` (`navigator.hardwareConcurrency`; a missing or
/// nonsensical value counts as 2): one per core, at least 1 and at most `max`. No core is kept
/// back for the session worker: while files import it only files their results (the imports
/// are CPU-bound), and on a 2-core machine two import workers brought the 18 demo trials from
/// pick to hotspot table in 2.40–2.55 s against 2.73–2.85 s with one, interleaved in one run
/// (README "Crash isolation and parallel import in the web app").
pub fn import_workers(cores: f64, max: usize) -> usize {
    let cores = if cores.is_finite() && cores >= 1.0 {
        cores as usize
    } else {
        2
    };
    cores.clamp(1, max.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_import_worker_per_core_within_bounds() {
        assert_eq!(import_workers(2.0, 4), 2);
        assert_eq!(import_workers(3.0, 4), 3);
        assert_eq!(import_workers(16.0, 4), 4);
        assert_eq!(import_workers(1.0, 4), 1);
        assert_eq!(import_workers(0.0, 4), 2);
        assert_eq!(import_workers(f64::NAN, 4), 2);
        assert_eq!(import_workers(f64::INFINITY, 4), 2);
        assert_eq!(import_workers(8.0, 0), 1);
    }
}
