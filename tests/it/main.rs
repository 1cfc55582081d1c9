//! trialscope's integration tests, as one test binary (`cargo test --test it`). Shared code is
//! in `support`; the browser modules need `dist/` (`trunk build --release --offline`) and run
//! one at a time; `cargo test --test it -- --skip browser` runs everything else. Proptest keeps
//! the failures it found in `tests/proptest-regressions/<module>.txt` (the place it derives for
//! a module of a binary rooted at `tests/it/main.rs`) and replays them first.
//!
//! Module index:
//!
//! * `support` — corpus paths, the Perfetto packet builder, the telemetry record builder,
//!   a Kineto-like trace generator, the 4-rank Perfetto memory fixture, the browser harness
//! * `browser` — the site in headless Chromium: corpus trials through the file picker, the demo,
//!   a synthesized drop, a folder; every request stays local
//! * `browser_compare` — the Compare tab on 4 vs 4 dropped Perfetto traces: exactly the 30 %
//!   slower frame is "slower", strip plot, differential flame graph (hover, zoom, search,
//!   keyboard); the demo's scaling flame graph
//! * `browser_compare_exports` — the Compare tab's and the scaling flame graph's SVG/PNG
//!   downloads: well-formed SVG naming the slower frame in a `<title>`, a PNG that is not blank
//! * `browser_dark_mode` — `prefers-color-scheme: dark` (emulated through the DevTools
//!   protocol) gives the dark ground, text and palette; light comes back
//! * `browser_embed` — the site in an iframe of a page on another origin: ping/pong, `open`,
//!   `loaded` with the hotspot count; malformed messages ignored; no chrome
//! * `browser_exports` — the download buttons: hotspots, findings, intervals as CSV/JSON equal
//!   the CLI's `--csv`/`--json`; the scatter plot as well-formed SVG and a non-blank PNG
//! * `browser_files` — the file reports under `trialscope inspect`'s labels and values; an
//!   empty file listed as a named skip, as the CLI notes it
//! * `browser_keyboard` — keyboard navigation: ↓/Enter select a hotspot, → walks the scatter
//!   plot's points
//! * `browser_memory_zoom` — the memory lanes' time and byte ticks, brush zoom and pan shared
//!   by every lane, reset, and the interval table linked to the lanes (mouse and keyboard)
//! * `browser_json` — the site on JSON traces (JAX, PyTorch): inputs, joined hotspots, reports
//! * `browser_link` — links that open traces (`?trace=` on other local origins, with and
//!   without CORS): the hotspot table, per-file errors naming the URL and the cause
//! * `browser_offline` — offline after the first visit: the service worker's cache, a new
//!   deploy's new cache, the app started and analysing with its server stopped
//! * `browser_persist` — "Keep my session": files and view kept in IndexedDB across a
//!   reload, "Forget everything"
//! * `browser_scale` — big traces and many trials: ~200 MB generated Perfetto and Kineto JSON
//!   with visible, advancing progress bars and no long main-thread task; 200 trials at once with
//!   one crashing importer; the 1 GB browser benchmark (`#[ignore]`)
//! * `browser_security` — the site's CSP, hostile names shown as text, crash isolation of
//!   the import worker (test hook)
//! * `browser_subpath` — the site built with `--public-url /trialscope/` (target/dist-subpath)
//!   under that sub-path
//! * `browser_triage` — the site's compile-triage view on the JAX and torch.compile records
//! * `browser_viewstate` — a copied link (view state in the hash) reproduces the view in a
//!   fresh browser; without its files it lists them as missing
//! * `cli_folders` — folder arguments as a user runs them: traces beside their own `agg/`
//!   folder count once
//! * `browser_viewstate_trials` — a view link's variant labels, exclusions and memory counter
//!   mapping restored from its hash (hostile label text shown as text) and written back
//! * `cli_bench` — `trialscope bench --rounds --against`: every round's figures kept, a side
//!   that cannot run left out
//! * `cli_exports` — CSV exports equal the CLI's JSON reports cell for cell
//! * `cli_inspect` — `trialscope inspect` / `slices` as a user runs them
//! * `cli_stream` — the CLI in a pipeline: `inspect` prints each file once its facts are final
//!   (before a stuck later file), every subcommand exits quietly on a closed stdout
//! * `cli_report` — `trialscope report --html`: self-contained, the CLI's numbers, names as text
//! * `cli_scaling_json` — `trialscope scaling --json` on real JSON trials
//! * `compare_corpus` — `trialscope compare --json` on the Chromium corpus: small N vs large N
//!   names the growing phases as slower, never the controls; 3 vs 3 cannot be significant
//! * `compare_perfetto` — 4 vs 4 encoded Perfetto traces: exactly the 30 % slower frame is
//!   slower (q < 0.05), swapped sides give faster, another source line is two frames
//! * `compare_reference` — Mann–Whitney (SciPy), Hodges–Lehmann + CI (R `wilcox.test`), BH
//!   (statsmodels) and the exact Spearman permutation p (SciPy) to 1e-12
//! * `complexity` — near-linear import of hostile inputs (overlaps, string pids, records, args)
//! * `demo_phases` — where the 18 demo trials' time goes natively, step by step (`#[ignore]`d
//!   harness)
//! * `fuzz_regressions` — every finding of the fuzz targets (`tests/fuzz/`), with its exact bytes
//! * `flame_folded` — `trialscope folded` output rendered to SVG by `inferno`
//! * `flame_trees` — single, scaling (ρ) and differential flame trees and their `plot::flame`
//!   geometry; the comparison outcome as JSON
//! * `hostile_records` — hostile record files and containers: millions of entries counted, not
//!   listed; a doubly gzipped bomb stops at the limit; a cut gzip stream keeps its head
//! * `hostile_json` — hostile JSON / Perfetto input: every lost event counted, exact numbers
//! * `json_corpus` — every public Chrome JSON / Kineto / JAX file imports or fails clearly
//! * `json_difftests` — Perfetto trace_processor's JSON diff tests as an oracle
//! * `json_kineto_jax` — real Kineto and JAX traces: compile slices, ranks, memory, collectives
//! * `json_perf` — JSON import throughput and peak memory (measured in a child process)
//! * `json_proptest` — the JSON importer never panics or hangs on any bytes
//! * `json_quirks` — every case of `corpus/quirks/expected.json`
//! * `json_vs_perfetto` — differential: the same slices as Chrome JSON and as Perfetto give the
//!   same model
//! * `memory_browser` — the site's memory tab: rank lanes, telemetry, overrides, mapping
//! * `memory_corpus` — the real PyTorch 4-rank traces through the memory analysis
//! * `memory_perfetto` — a synthetic 4-rank Perfetto job through the memory analysis
//! * `memory_props` — the telemetry reader and the memory attribution on arbitrary input
//! * `memory_session` — the worker session's memory request, natively
//! * `memory_telemetry` — memory telemetry JSON Lines, and `trialscope memory --json`
//! * `one_engine` — the worker's session and the CLI give identical reports (scaling, triage,
//!   memory, ranks and hosts); every file is decompressed exactly once per load
//! * `pages` — the GitHub Pages workflow uses only the project's own install and build steps
//! * `perfetto_chunks` — a chunk boundary anywhere never changes a Perfetto import; one pass
//!   equals the two-pass reference
//! * `hostile_perfetto` — hostile Perfetto input stays within the per-file budget
//! * `perfetto_corpus` — the Perfetto importer on real Chromium and public traces
//! * `perfetto_props` — the Perfetto importer never panics on any bytes
//! * `scaling_corpus` — the scaling analysis on the real Chromium corpus (library and CLI)
//! * `scaling_cost` — the cost of `scaling::run` at the browser worker's size
//! * `scaling_regression` — the regression that must never return (scaling.md)
//! * `stats_properties` — properties of `analysis::stats` for any input
//! * `stats_reference` — `analysis::stats` against SciPy and statsmodels reference values
//! * `summarize` — Parquet aggregates: `scaling --from` equals `scaling FILES` byte for byte,
//!   idempotent re-runs, broken files as `trials` rows, other versions refused, the DuckDB and
//!   Spark recipes against trialscope's ρ and q
//! * `summarize_compare` — `compare --from DIR` equals `compare FILES` byte for byte (globs,
//!   listed files, a failed file), arguments that pick nothing refused
//! * `summarize_tables` — the optional tables: `compile_records` read back as the workspace
//!   holds the records, `triage --json` over them equal to over the files; `memory_intervals`
//!   equal to `memory --json`'s intervals per job
//! * `stream_load` — a file read in chunks of any size loads as when read whole, every kind
//! * `screenshots` — (ignored; `tools/screenshots.sh`) the README's screenshot of each tab
//! * `stylesheet` — dark mode from `prefers-color-scheme` with WCAG contrast, Okabe–Ito series
//!   colours (a check of `www/style.css`)
//! * `tidy` — the layout rules (one load path, facts only in the workspace, no importer in
//!   the front ends, one median, web crates only in `ui`, the dependency direction)
//! * `triage_corpus` — compile-drift triage on the real JAX and torch.compile records
//! * `triage_records` — record files through `trialscope triage` / `pin`

mod support;

mod browser;
mod browser_compare;
mod browser_compare_exports;
mod browser_dark_mode;
mod browser_embed;
mod browser_exports;
mod browser_files;
mod browser_json;
mod browser_keyboard;
mod browser_link;
mod browser_memory_zoom;
mod browser_offline;
mod browser_parquet;
mod browser_persist;
mod browser_scale;
mod browser_security;
mod browser_subpath;
mod browser_triage;
mod browser_viewstate;
mod browser_viewstate_trials;
mod cli_bench;
mod cli_exports;
mod cli_folders;
mod cli_inspect;
mod cli_report;
mod cli_scaling_json;
mod cli_stream;
mod compare_corpus;
mod compare_perfetto;
mod compare_reference;
mod complexity;
mod demo_phases;
mod flame_folded;
mod flame_trees;
mod fuzz_regressions;
mod hostile_json;
mod hostile_perfetto;
mod hostile_records;
mod json_chunks;
mod json_corpus;
mod json_difftests;
mod json_kineto_jax;
mod json_perf;
mod json_proptest;
mod json_quirks;
mod json_vs_perfetto;
mod memory_browser;
mod memory_corpus;
mod memory_perfetto;
mod memory_props;
mod memory_session;
mod memory_telemetry;
mod one_engine;
mod pages;
mod parquet_session;
mod perfetto_chunks;
mod perfetto_corpus;
mod perfetto_props;
mod scaling_corpus;
mod scaling_cost;
mod scaling_regression;
mod screenshots;
mod stats_properties;
mod stats_reference;
mod stream_load;
mod stylesheet;
mod summarize;
mod summarize_compare;
mod summarize_tables;
mod tidy;
mod triage_corpus;
mod triage_records;
