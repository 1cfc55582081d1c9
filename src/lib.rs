//! # trialscope
//!
//! Cross-trial trace analysis that runs entirely in the browser (and as a native CLI over the
//! same code).
//!
//! ```text
//!   bytes ─► formats::load ─► model ─► analysis ─► plot ─► ui (wasm32 only)
//!            (the one load     (tracks,   (extract,   (chart     (Leptos views)
//!             path: sniff,      slices,    run: pure)  geometry)
//!             decompress once,  frames,
//!             import)           Facts)
//!                      ╲                ╱
//!                       workspace ──────   the loaded files of one session; facts across
//!                       ▲        ▲         files (siblings, ranks, hosts) derived here only
//!                   session     CLI        thin adapters: the worker protocol, subcommands
//! ```
//!
//! * [`formats`] — [`formats::load`] decides what a file is (Perfetto protobuf, Chrome JSON
//!   incl. Kineto and JAX, compile records, pins, memory telemetry) from its content, inflates
//!   it once, and runs the one importer that fits; the importers are private and share one
//!   track tracker. The only module that knows wire formats.
//! * [`model`] — interned strings, tracks, columnar slices (one [`model::SliceBuilder`] for
//!   every format), counters, frames with their semantic identity, compile records, one
//!   diagnostics table ([`model::diagnostics::Kind`]: a fixed severity and message per kind),
//!   and [`model::facts`] (a file's name, sibling group, host, rank; the name rules). Depends on
//!   nothing else in the crate.
//! * [`analysis`] — pure analyses of one shape: `Params`, `Input`, `extract(&Model, &Facts)`,
//!   `run`: [`analysis::scaling`] (`../shared/reference/scaling.md`), [`analysis::compare`]
//!   (baseline vs candidate, issue 13), [`analysis::compile_triage`] (`compile-triage.md`),
//!   [`analysis::collective_memory`] (`collective-memory.md`); [`analysis::flame`] (call trees
//!   by semantic-frame path); over [`analysis::stats`] (Spearman with exact permutation p,
//!   Mann–Whitney, Hodges–Lehmann, BH, the one median/MAD/quantile, bootstraps, fits).
//! * [`plot`] — scales, axes, LTTB, and the geometry of every chart (scatter, memory lanes,
//!   triage per-key chart, flame graphs, forest and strip plots); knows no analysis.
//! * [`workspace`] — the loaded files in drop order; keeps what each analysis needs (the models
//!   are dropped after extraction) and runs the analyses.
//! * [`aggregate`] — per-trial aggregates as Parquet (`docs/parquet-schema.md`, schema `sf1`):
//!   what `trialscope summarize` writes and `trialscope scaling --from` reads back into a
//!   workspace, so the report equals the one from the traces.
//! * [`session`] — the Web Worker's protocol adapter (messages in, workspace calls, JS-safe
//!   views out), native-testable. `ui` — Leptos components, compiled only for wasm32.
//!
//! Architecture Invariants (checked by `tests/it/tidy.rs` where a test can):
//! * Only [`formats::load`] decides what a file is, and each file is decompressed once per load.
//! * Import never fails on a bad *event*: it is a diagnostic of a fixed kind and severity. Only
//!   an unreadable container is an error, and only for that file.
//! * Facts across files are derived only in [`workspace::facts`]; no function in `formats`
//!   takes more than one file.
//! * Frames are joined across files only by semantic frame id, never by a file-local id.
//! * Analyses are deterministic (no clock, no I/O, seeded randomness), and both front ends reach
//!   them through the workspace: the same files give identical reports in the browser and on the
//!   command line (`tests/it/one_engine.rs`).
//! * Text from traces is never inserted as HTML, and nothing is sent over the network: the app
//!   fetches only its own files (and the bundled demo).
//! * Dependency direction: `model` ← `formats`; `model` ← `analysis`; `plot` stands alone;
//!   `workspace` ← `session` ← `ui`. Only `ui` and the wasm entry points name
//!   leptos/web-sys/js-sys/wasm-bindgen.
//!
//! Use (native):
//!
//! ```no_run
//! use trialscope::analysis::scaling::{Metric, DEFAULT_INPUT_PATTERN};
//! use trialscope::workspace::{ScalingRequest, Workspace};
//!
//! let mut ws = Workspace::new();
//! for (id, name) in ["exp/scaling_n1000_r0.pb.gz", "exp/scaling_n4000_r0.pb.gz"].iter().enumerate() {
//!     let bytes = std::fs::read(name).unwrap();
//!     if let Err(failed) = ws.add(id as u32, name, &bytes, &mut |_| {}) {
//!         eprintln!("{}", failed.message); // names the file and the problem
//!     }
//! }
//! let outcome = ws
//!     .scaling(&ScalingRequest {
//!         settings: Vec::new(),
//!         metric: Metric::Inclusive,
//!         pattern: DEFAULT_INPUT_PATTERN.into(),
//!     })
//!     .unwrap();
//! for h in outcome.report.hotspots.iter().take(5) {
//!     println!("{:+.2} {}", h.spearman_rho, h.name);
//! }
//! ```

pub mod aggregate;
pub mod analysis;
pub mod formats;
pub mod model;
pub mod plot;
pub mod report;
pub mod session;
#[cfg(target_arch = "wasm32")]
pub mod ui;
pub mod workspace;
