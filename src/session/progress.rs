//! The progress of a batch of files being loaded, kept apart from the browser so it is tested
//! natively (`src/ui/scaling.rs` shows it): files done, bytes, and the share read so far, with
//! downloads whose size is not known yet counted as such, never as 0 bytes.

use crate::plot::format_value;

/// Overall progress of a batch of files being loaded: what the bar and line above the files
/// still loading show (`src/ui/scaling.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchProgress {
    /// Files in the batch.
    pub files: usize,
    /// Files finished (imported or failed).
    pub done: usize,
    /// Bytes as dropped or downloaded, summed over the files whose size is known.
    pub bytes: f64,
    /// Files whose size is not known yet (downloads still coming in).
    pub size_unknown: usize,
    /// Share of the batch's bytes read so far, in [0, 1]: a finished file counts whole, a file
    /// in the worker by its reported fraction, a download by its fraction when known. A file
    /// of unknown size weighs as much as the known ones on average (1 byte when none is known).
    pub fraction: f64,
}

impl BatchProgress {
    /// Sums the batch's files, each given as (size in bytes, 0 when unknown; fraction read in
    /// [0, 1]; finished).
    pub fn of(files: impl IntoIterator<Item = (f64, f64, bool)>) -> BatchProgress {
        let files: Vec<(f64, f64, bool)> = files.into_iter().collect();
        let mut b = BatchProgress::default();
        for &(size, _, done) in &files {
            b.files += 1;
            b.done += usize::from(done);
            if size > 0.0 {
                b.bytes += size;
            } else {
                b.size_unknown += 1;
            }
        }
        let known = b.files - b.size_unknown;
        let stand_in = if known > 0 {
            b.bytes / known as f64
        } else {
            1.0
        };
        let (mut weighted, mut total) = (0.0, 0.0);
        for &(size, fraction, done) in &files {
            let w = if size > 0.0 { size } else { stand_in };
            weighted += w * if done { 1.0 } else { fraction.clamp(0.0, 1.0) };
            total += w;
        }
        b.fraction = if total > 0.0 { weighted / total } else { 0.0 };
        b
    }

    /// The line under the batch's bar: "3 of 12 files done, 42 % of 3.1 MiB"; while some
    /// downloads have not given their size, "…, 42 %, 2.6 MiB so far, 2 downloading" (sizes are `bytes` of [`format_value`]) (never
    /// "of 0 B").
    pub fn text(&self) -> String {
        let head = format!("{} of {} files done", self.done, self.files);
        let pct = self.fraction * 100.0;
        match (self.size_unknown, self.files - self.size_unknown) {
            (0, _) => format!(
                "{head}, {pct:.0} % of {}",
                format_value(self.bytes, "bytes")
            ),
            (n, 0) => format!("{head}, {pct:.0} %, {n} downloading"),
            (n, _) => format!(
                "{head}, {pct:.0} %, {} so far, {n} downloading",
                format_value(self.bytes, "bytes")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BatchProgress;

    /// A batch of downloads: sizes unknown until their bytes are in, never shown as "of 0 B".
    #[test]
    fn batch_progress_with_sizes_not_known_yet() {
        let none = BatchProgress::of([(0.0, 0.0, false), (0.0, 0.5, false)]);
        assert_eq!((none.files, none.done, none.size_unknown), (2, 0, 2));
        assert!((none.fraction - 0.25).abs() < 1e-12, "{none:?}");
        assert_eq!(none.text(), "0 of 2 files done, 25 %, 2 downloading");
        // One known (3 MiB, done), one not: the unknown one weighs as the known average.
        let mib = 1024.0 * 1024.0;
        let some = BatchProgress::of([(3.0 * mib, 1.0, true), (0.0, 0.0, false)]);
        assert!((some.fraction - 0.5).abs() < 1e-12, "{some:?}");
        assert_eq!(
            some.text(),
            "1 of 2 files done, 50 %, 3 MiB so far, 1 downloading"
        );
        // All known: weighted by size.
        let all = BatchProgress::of([(3.0 * mib, 1.0, true), (1.0 * mib, 0.0, false)]);
        assert!((all.fraction - 0.75).abs() < 1e-12, "{all:?}");
        assert_eq!(all.text(), "1 of 2 files done, 75 % of 4 MiB");
        assert!(!all.text().contains("of 0 B"));
        // Fractions outside [0, 1] are clamped; a finished file counts whole.
        let odd = BatchProgress::of([(10.0, 7.0, false), (10.0, -1.0, false), (10.0, 0.2, true)]);
        assert!((odd.fraction - 2.0 / 3.0).abs() < 1e-12, "{odd:?}");
        assert_eq!(
            BatchProgress::of([]).text(),
            "0 of 0 files done, 0 % of 0 B"
        );
    }
}
