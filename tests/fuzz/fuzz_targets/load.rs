//! The whole load path (decompression, the sniffer, every importer) on any bytes. The first
//! byte picks the file name (names break the pins/records tie), the rest is the file. No
//! panic; a file loads the same whether gzip-wrapped or not (same kind, same model).
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use trialscope::formats::{load, Loaded};
use trialscope_fuzz::{full_dump, load_options};

const NAMES: &[&str] = &[
    "trace.json",
    "pins.json",
    "trace.pftrace",
    "records.jsonl",
    "telemetry.jsonl",
    "trace.json.gz",
];

/// The kind and, for a trace, the model dump (without the compression, which differs).
fn outcome(l: &Loaded) -> String {
    match l {
        Loaded::Trace(a) => {
            let mut m = full_dump(&a.model);
            m.push_str(a.format.as_str());
            m
        }
        other => other.kind().to_string(),
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&pick, data)) = input.split_first() else {
        return;
    };
    let name = NAMES[pick as usize % NAMES.len()];
    let opts = load_options();
    let Ok(plain) = load(name, data, &opts, &mut |_| {}) else {
        return;
    };
    if matches!(trialscope::formats::decompress(data, opts.max_decompressed_bytes),
        Ok((c, _)) if c != trialscope::formats::Compression::None)
    {
        return; // already compressed: one more layer could pass the three-layer limit
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).expect("writing to a Vec");
    let gz = gz.finish().expect("writing to a Vec");
    let wrapped = load(name, &gz, &opts, &mut |_| {})
        .unwrap_or_else(|e| panic!("loads plain, not gzip-wrapped: {e}"));
    assert_eq!(
        outcome(&plain),
        outcome(&wrapped),
        "gzip changed what the file is"
    );
});
