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
//! * [`formats`] — detection and decompression, then one module per wire format: Perfetto
//!   protobuf (`perfetto`), Chrome Trace Event JSON incl. Kineto and JAX (`chrome_json`),
//!   compile records (`records`), memory telemetry JSON Lines (`telemetry`). The only module
//!   that knows wire formats.
//! * [`model`] — interned strings, tracks, columnar slices (one [`model::SliceBuilder`] for
//!   every format), counters, frames with their semantic identity, compile records, the
//!   collective token rule, diagnostics. Depends on nothing else in the crate.
//! * [`analysis`] — pure functions over models/records: `scaling` (`../shared/reference/scaling.md`),
//!   `compile_triage` (`compile-triage.md`), `collective_memory` (`collective-memory.md`), and
//!   `stats` (Spearman, BH, BCa bootstrap, fits).
//! * [`plot`] — every chart's geometry: scales, axes and ticks, the scatter, the memory lanes,
//!   the triage per-key chart, LTTB downsampling; knows no analysis. `ui` only renders it.
//! * [`session`] — the worker's state machine and the app⇄worker messages (native-testable).
//! * `ui` — Leptos components and the worker protocol; compiled only for wasm32.
//!
//! Architecture Invariants:
//! * Import never fails on a bad *event*: it is counted as a diagnostic with a severity. Only an
//!   unreadable container is an error, and only for that file.
//! * Frames are joined across files only by semantic frame id, never by a file-local id.
//! * Analyses are deterministic: the same inputs give byte-identical reports in the browser and
//!   on the command line.
//! * Text from traces is never inserted as HTML, and nothing is sent over the network: the app
//!   fetches only its own files (and the bundled demo).
//! * Dependency direction: `model` ← `formats`; `model` ← `analysis` → `plot`; everything ←
//!   `session` ← `ui`. Only `ui` names leptos/web-sys/js-sys.

pub mod analysis;
pub mod formats;
pub mod model;
pub mod plot;
pub mod session;
#[cfg(target_arch = "wasm32")]
pub mod ui;
pub mod workspace;
