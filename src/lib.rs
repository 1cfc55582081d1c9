//! # trialscope
//!
//! Cross-trial trace analysis that runs entirely in the browser (and as a native CLI).
//!
//! ```text
//!   bytes ──► formats ──► model ──► analysis ──► plot ──► ui (wasm32 only)
//!             (wire        (tracks,   (pure:       (numbers  (Leptos views,
//!              formats)     slices,    &Model +     → SVG)    Web Worker)
//!                           frames)    Params →
//!                                      Report)
//! ```
//!
//! * [`formats`] — detection, decompression, Perfetto protobuf and Chrome JSON importers. The
//!   only module that knows wire formats.
//! * [`model`] — interned strings, tracks, columnar slices, counters, frames with their
//!   semantic identity, diagnostics. Depends on nothing else in the crate.
//! * [`analysis`] — scaling (and later compile triage, collective memory): pure functions.
//! * [`plot`] — scales, ticks, downsampling, SVG geometry; knows no analysis.
//! * [`session`] — the worker's state machine and the app⇄worker messages (native-testable).
//! * `ui` — Leptos components and the worker protocol; compiled only for wasm32.
//!
//! Architecture Invariants:
//! * Import never fails on a bad *event*: it is counted as a diagnostic with a severity. Only an
//!   unreadable container is an error, and only for that file.
//! * Frames are joined across files only by semantic frame id, never by a file-local id.
//! * Analyses are deterministic: the same inputs give byte-identical reports in the browser and
//!   on the command line.
//! * Text from traces is never inserted as HTML.

pub mod analysis;
pub mod formats;
pub mod model;
pub mod plot;
pub mod session;
#[cfg(target_arch = "wasm32")]
pub mod ui;
