//! Import anomalies as data: named counters with a severity (Perfetto `storage/stats.h` style).
//!
//! Architecture Invariant: an importer never fails on a bad *event*; it counts it here, and the
//! UI and CLI show every entry. Only an unreadable container is an `Err`.

use serde::Serialize;

/// How bad an anomaly is for the analyses built on the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Expected oddities (e.g. an END for a slice begun before tracing started).
    Info,
    /// Repaired input (invalid UTF-8 replaced, a trailing comma skipped): nothing lost.
    Warning,
    /// Events were lost or are incomplete: results built on them may miss data.
    DataLoss,
    /// Input that could not be understood at all at this point.
    Error,
}

/// One named anomaly counter: how often it happened and where first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Stable machine name, e.g. `end_without_begin`, `interned_id_unknown`.
    pub kind: String,
    pub severity: Severity,
    pub count: u64,
    /// Byte offset (in the decompressed stream) of the first occurrence, when known.
    pub first_offset: Option<u64>,
    /// Event or packet index of the first occurrence, when known.
    pub first_index: Option<u64>,
    /// Human-readable description of the first occurrence.
    pub message: String,
}

/// The diagnostics table of one import. Entries are kept in first-seen order.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(transparent)]
pub struct Diagnostics {
    entries: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Counts one occurrence of `kind`. The message, offset and index of the first occurrence
    /// are kept; later ones only increase the count.
    pub fn add(
        &mut self,
        kind: &str,
        severity: Severity,
        first_offset: Option<u64>,
        first_index: Option<u64>,
        message: impl FnOnce() -> String,
    ) {
        self.add_n(kind, severity, 1, first_offset, first_index, message)
    }

    /// Counts `n` occurrences of `kind` at once.
    pub fn add_n(
        &mut self,
        kind: &str,
        severity: Severity,
        n: u64,
        first_offset: Option<u64>,
        first_index: Option<u64>,
        message: impl FnOnce() -> String,
    ) {
        if n == 0 {
            return;
        }
        if let Some(d) = self.entries.iter_mut().find(|d| d.kind == kind) {
            d.count += n;
            d.severity = d.severity.max(severity);
            return;
        }
        self.entries.push(Diagnostic {
            kind: kind.to_string(),
            severity,
            count: n,
            first_offset,
            first_index,
            message: message(),
        });
    }

    /// All entries in first-seen order.
    pub fn entries(&self) -> &[Diagnostic] {
        &self.entries
    }

    /// The count recorded for `kind` (0 when never seen).
    pub fn count(&self, kind: &str) -> u64 {
        self.entries
            .iter()
            .find(|d| d.kind == kind)
            .map_or(0, |d| d.count)
    }

    /// True when any entry has severity [`Severity::DataLoss`] or worse: the scaling analysis then
    /// treats frames missing from this trial as missing, not as zero (scaling.md).
    pub fn has_data_loss(&self) -> bool {
        self.entries
            .iter()
            .any(|d| d.severity >= Severity::DataLoss)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
