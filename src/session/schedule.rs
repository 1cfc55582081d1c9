//! The import pool's scheduling rules, kept apart from the browser so they are tested natively
//! (`src/ui/pool.rs` applies them): how many import workers to start, and which queued file
//! goes to the next idle one.

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

/// The position of the file to hand out next among the queued files' `sizes` (bytes as
/// dropped, in queue order): the largest, the earliest among equals — longest-processing-time
/// first, so the files that finish last are small ones and no worker is left alone with a big
/// file while the others idle. `None` for an empty queue.
pub fn largest_first(sizes: impl IntoIterator<Item = f64>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, b) in sizes.into_iter().enumerate() {
        // An unknown (NaN) size counts as the smallest.
        let b = if b.is_nan() { f64::NEG_INFINITY } else { b };
        if best.is_none_or(|(_, m)| b > m) {
            best = Some((i, b));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_queued_file_goes_first_ties_in_queue_order() {
        assert_eq!(largest_first([]), None);
        assert_eq!(largest_first([5.0]), Some(0));
        assert_eq!(largest_first([1.0, 9.0, 3.0, 9.0]), Some(1));
        // A NaN size (unknown) never wins over a known one.
        assert_eq!(largest_first([f64::NAN, 2.0]), Some(1));
    }

    /// Handing files out largest first to two workers that each take the next file when free
    /// ends sooner than drop order when the big file was dropped last.
    #[test]
    fn largest_first_shortens_the_makespan_of_a_batch() {
        fn makespan(mut queue: Vec<f64>, lpt: bool) -> f64 {
            let mut free_at = [0.0f64; 2];
            while !queue.is_empty() {
                let at = if lpt {
                    largest_first(queue.iter().copied()).unwrap()
                } else {
                    0
                };
                let job = queue.remove(at);
                let w = if free_at[0] <= free_at[1] { 0 } else { 1 };
                free_at[w] += job;
            }
            free_at[0].max(free_at[1])
        }
        let batch = vec![1.0, 1.0, 1.0, 1.0, 4.0];
        assert_eq!(makespan(batch.clone(), false), 6.0);
        assert_eq!(makespan(batch, true), 4.0);
    }

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
