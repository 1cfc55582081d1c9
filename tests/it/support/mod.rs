//! What the integration test modules share: where the corpus is, the one Perfetto packet
//! builder, the one telemetry record builder, generated traces, the memory fixture, the
//! browser harness and the browser's memory from `/proc`.

use std::path::PathBuf;

pub mod artifacts;
pub mod browser;
pub mod kineto_gen;
pub mod memory_fixture;
pub mod perfetto;
pub mod procmem;
pub mod telemetry;

/// `rel` under the shared data folder: `../shared` beside the checkout (as in CI), or two
/// levels up when the checkout is a worktree one folder deeper.
pub fn shared(rel: &str) -> PathBuf {
    let near = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared"));
    let far = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"));
    let base = if near.exists() || !far.exists() {
        near
    } else {
        far
    };
    base.join(rel)
}

/// `rel` under the trace corpus (`shared/corpus`), e.g. `corpus("chromium_scaling")`.
pub fn corpus(rel: &str) -> PathBuf {
    shared("corpus").join(rel)
}

/// The bytes of the corpus file `rel`; panics naming the file and where the corpus belongs.
pub fn read_corpus(rel: &str) -> Vec<u8> {
    let p = corpus(rel);
    std::fs::read(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (../shared beside the checkout)", p.display()))
}

/// The memory analysis's inputs for `files` (name, bytes) loaded together into one workspace
/// (the path both front ends take): the ranks it resolved, in drop order, and the rank-rule
/// warnings (a source whose rank neither the content nor the file name states).
pub fn memory_inputs(
    files: Vec<(String, Vec<u8>)>,
) -> (
    Vec<trialscope::analysis::collective_memory::RankInput>,
    Vec<String>,
) {
    let mut ws = trialscope::workspace::Workspace::new();
    for (id, (name, bytes)) in files.into_iter().enumerate() {
        if let Err(f) = ws.add(id as u32, &name, &bytes, &mut |_| {}) {
            panic!("{}", f.message);
        }
    }
    let o = ws
        .memory(&trialscope::workspace::MemoryRequest {
            preset: "medium".into(),
            overrides: Vec::new(),
            mapping: None,
            rank_overrides: Vec::new(),
        })
        .expect("memory analysis");
    let warnings = o
        .report
        .warnings
        .iter()
        .filter(|w| w.contains("the rank is stated neither"))
        .cloned()
        .collect();
    (o.inputs, warnings)
}

/// `bytes` loaded through the one load path ([`trialscope::formats::load`]); panics with the
/// error, naming the file.
pub fn load(name: &str, bytes: &[u8]) -> trialscope::formats::Loaded {
    use trialscope::formats::{self, LoadOptions};
    formats::load(name, bytes, &LoadOptions::default(), &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A compile-record file read through [`load`]; panics when it reads as something else.
pub fn record_file(name: &str, bytes: &[u8]) -> trialscope::formats::records::RecordFile {
    match load(name, bytes) {
        trialscope::formats::Loaded::Records { records, .. } => records,
        other => panic!("{name}: read as {}, not records", other.kind()),
    }
}

/// A pins file read through [`load`]; panics when it reads as something else.
pub fn pins_file(name: &str, bytes: &[u8]) -> Vec<trialscope::model::compile_record::Pin> {
    match load(name, bytes) {
        trialscope::formats::Loaded::Pins { pins, .. } => pins,
        other => panic!("{name}: read as {}, not pins", other.kind()),
    }
}

/// A telemetry file read through [`load`]; panics when it reads as something else.
pub fn telemetry_file(name: &str, bytes: &[u8]) -> trialscope::formats::telemetry::TelemetryImport {
    match load(name, bytes) {
        trialscope::formats::Loaded::Telemetry { telemetry, .. } => telemetry,
        other => panic!("{name}: read as {}, not telemetry", other.kind()),
    }
}
