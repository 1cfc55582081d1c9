//! Where the time of the 18 demo trials goes, natively (`#[ignore]`d harness, run with
//! `cargo test --release --test it -- --ignored --nocapture benchmark_demo_phases`): the same
//! steps the web app runs from a picked file to the hotspot table — the import worker's load
//! (`formats::load_from`: SHA-256, gunzip, Perfetto import), its reduction to what the
//! workspace keeps (`scaling`/`flame`/`compile_triage`/`collective_memory` extracts), the
//! hand-over (`serde_json` of the prepared file, and reading it back in the session worker),
//! the session's `add_prepared` (facts across files), the scaling analysis and the view the
//! page gets. The browser's own split is printed by `browser::benchmark_import_in_browser`.

use std::time::Instant;

use trialscope::analysis::{collective_memory as cm, compile_triage, flame, scaling};
use trialscope::formats::{self, LoadOptions, Loaded};
use trialscope::model::facts::Facts;
use trialscope::session::{AnalyseRequest, FromWorker, Session};
use trialscope::workspace::{self, Prepared, ScalingRequest};

use crate::support::corpus;

mod erased {
    /// A value's `serde_json` length (object-safe, for the size breakdown).
    pub trait Ser {
        fn json_len(&self) -> usize;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json_len(&self) -> usize {
            serde_json::to_vec(self).map_or(0, |v| v.len())
        }
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

#[test]
#[ignore = "benchmark harness: cargo test --release --test it -- --ignored --nocapture benchmark_demo_phases"]
fn benchmark_demo_phases() {
    let mut paths: Vec<_> = std::fs::read_dir(corpus("chromium_scaling"))
        .expect("../shared/corpus/chromium_scaling beside the checkout")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 18);
    let files: Vec<(String, Vec<u8>)> = paths
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect();
    let opts = LoadOptions::default();
    for round in 0..3 {
        let (mut load, mut ext_s, mut ext_f, mut ext_c, mut ext_m) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let (mut prep, mut ser, mut de, mut add) = (0.0, 0.0, 0.0, 0.0);
        let (mut json_bytes, mut trace_bytes) = (0usize, 0u64);
        let mut session = Session::new();
        let mut parts = [0usize; 5];
        for (i, (name, bytes)) in files.iter().enumerate() {
            // The load and each extract, timed apart (what `workspace::prepare` does at once).
            let t = Instant::now();
            let loaded = formats::load_from(name, &bytes.as_slice(), &opts, &mut |_| {}).unwrap();
            load += ms(t);
            let Loaded::Trace(a) = loaded else {
                panic!("{name}: not a trace")
            };
            trace_bytes += a.model.stats.decompressed_bytes;
            let facts = Facts::alone(name);
            let t = Instant::now();
            std::hint::black_box(scaling::extract(&a.model, &facts));
            ext_s += ms(t);
            let t = Instant::now();
            std::hint::black_box(flame::extract(&a.model, &a.artifact_id));
            ext_f += ms(t);
            let t = Instant::now();
            std::hint::black_box(compile_triage::extract(&a.model, &facts));
            ext_c += ms(t);
            let t = Instant::now();
            std::hint::black_box((
                cm::extract(&a.model, &facts),
                cm::counters_from_model(&a.model),
            ));
            ext_m += ms(t);
            drop(a);
            // What the import worker runs, and the hand-over to the session worker.
            let t = Instant::now();
            let p = workspace::prepare(name, &bytes.as_slice(), &opts, &mut |_| {});
            prep += ms(t);
            if let Ok(Prepared {
                content: workspace::Content::Trace(t),
                ..
            }) = &p
            {
                let len = |v: &dyn erased::Ser| v.json_len();
                parts[0] += len(&t.trial);
                parts[1] += len(&t.tree);
                parts[2] += len(&t.memory);
                parts[3] += len(&t.counters);
                parts[4] += len(&t.compile_records) + len(&t.diagnostics) + len(&t.info);
            }
            let t = Instant::now();
            let json = serde_json::to_vec(&p).unwrap();
            ser += ms(t);
            json_bytes += json.len();
            drop(p);
            let t = Instant::now();
            let back: Result<Prepared, String> = serde_json::from_slice(&json).unwrap();
            de += ms(t);
            let t = Instant::now();
            let out = session.add_prepared(i as u32 + 1, name, back);
            let _ = session.take_updates();
            add += ms(t);
            assert!(matches!(out, FromWorker::Imported { .. }), "{name}");
        }
        let req = AnalyseRequest {
            seq: 1,
            request: ScalingRequest {
                settings: Vec::new(),
                metric: scaling::Metric::Inclusive,
                pattern: scaling::DEFAULT_INPUT_PATTERN.to_string(),
            },
        };
        let t = Instant::now();
        let out = session.analyse(&req);
        let analyse = ms(t);
        let FromWorker::Analysed { report, .. } = &out else {
            panic!("no report: {out:?}")
        };
        let t = Instant::now();
        let report_json = serde_json::to_vec(&out).unwrap();
        let report_ser = ms(t);
        // The report crosses to the page as its JSON text (`session::wire`) only when that
        // text reads back equal.
        let wire: serde_json::Value = serde_json::from_slice(&report_json).unwrap();
        assert!(
            wire["report"]["Json"].is_string(),
            "the demo report is sent as a value"
        );
        println!(
            "round {round}: 18 trials, {:.1} MB decompressed\n\
             \x20 load (sha256 + gunzip + import)   {load:7.1} ms = {:.1} MB/s\n\
             \x20 extract scaling / flame / compile / memory  {ext_s:.1} / {ext_f:.1} / {ext_c:.1} / {ext_m:.1} ms\n\
             \x20 workspace::prepare (load + extracts)  {prep:7.1} ms\n\
             \x20 hand-over: serde_json {:.2} MB  write {ser:.1} ms, read {de:.1} ms\n\
             \x20   of it: scaling profile {:.2} MB, call tree {:.2} MB, memory series {:.2} MB, kept counters {:.2} MB, rest {:.2} MB\n\
             \x20 session add_prepared + updates {add:7.1} ms\n\
             \x20 scaling analysis (session.analyse) {analyse:7.1} ms: {} hotspots, report {:.2} MB as JSON ({report_ser:.1} ms)",
            trace_bytes as f64 / 1e6,
            trace_bytes as f64 / 1e6 / (load / 1e3),
            json_bytes as f64 / 1e6,
            parts[0] as f64 / 1e6,
            parts[1] as f64 / 1e6,
            parts[2] as f64 / 1e6,
            parts[3] as f64 / 1e6,
            parts[4] as f64 / 1e6,
            report.hotspots.len(),
            report_json.len() as f64 / 1e6,
        );
    }
}
