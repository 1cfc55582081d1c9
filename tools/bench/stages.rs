//! The import worker's pipeline, timed stage by stage on one file held in memory: the same code
//! built natively (`trialscope bench --stages`) and for wasm32 (`tools/bench/wasm_stages/lib.rs`,
//! run under Node by `tools/bench/wasm_stages.js`), so the two can be compared stage for stage.
//!
//! Stages, each timed on its own over the same bytes (milliseconds of the caller's `now`: CPU
//! time in both harnesses): SHA-256 of the bytes as dropped; inflating them (gzip/zlib, into a
//! reused 1 MiB buffer) when compressed; SHA-256 of the decompressed bytes; `formats::load_from` over the
//! decompressed bytes (the import alone, plus its SHA-256); `formats::load_from` over the bytes
//! as dropped (what the worker's load does: SHA-256 + inflate + import); `workspace::prepare`
//! (that load + `keep`: the extracts the workspace keeps); `workspace::wire::encode` of the
//! prepared file (the hand-over's postcard form); `workspace::wire::decode` of that form (the
//! session worker's side of the hand-over).

use std::io::Read;

use sha2::{Digest, Sha256};
use trialscope::formats::{self, LoadOptions};
use trialscope::workspace::{self, wire};

/// One timed stage.
pub struct Stage {
    /// What was timed (see the module doc).
    pub name: &'static str,
    /// Best time of the runs, milliseconds.
    pub best_ms: f64,
    /// Bytes the stage went over (as dropped or decompressed), for MB/s.
    pub bytes: u64,
}

/// Inflates `data` when it starts with a gzip or zlib header (one layer), else `None`.
fn inflate(data: &[u8], sink: &mut dyn FnMut(&[u8])) -> Option<u64> {
    let mut r: Box<dyn Read + '_> = if data.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::bufread::MultiGzDecoder::new(data))
    } else if data.len() >= 2
        && data[0] & 0x0f == 8
        && (u16::from(data[0]) << 8 | u16::from(data[1])) % 31 == 0
    {
        Box::new(flate2::bufread::ZlibDecoder::new(data))
    } else {
        return None;
    };
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(k) => {
                n += k as u64;
                sink(&buf[..k]);
            }
        }
    }
    Some(n)
}

/// Times every stage `runs` times (best kept) over `file` (bytes as dropped, named `name`).
/// Errors: the file does not load as a trace.
pub fn run(
    name: &str,
    file: &[u8],
    runs: u32,
    now: &dyn Fn() -> f64,
) -> Result<Vec<Stage>, String> {
    let runs = runs.max(1);
    let opts = LoadOptions::default();
    let mut plain = Vec::new();
    let inflated = inflate(file, &mut |b| plain.extend_from_slice(b));
    let dec: &[u8] = if inflated.is_some() { &plain } else { file };
    let dec_len = dec.len() as u64;
    let mut out: Vec<Stage> = Vec::new();
    let mut time = |name: &'static str, bytes: u64, f: &mut dyn FnMut() -> Result<(), String>| {
        let mut best = f64::INFINITY;
        for _ in 0..runs {
            let t = now();
            f()?;
            best = best.min(now() - t);
        }
        out.push(Stage {
            name,
            best_ms: best,
            bytes,
        });
        Ok::<(), String>(())
    };
    time("sha256 (as dropped)", file.len() as u64, &mut || {
        std::hint::black_box(Sha256::digest(file));
        Ok(())
    })?;
    if inflated.is_some() {
        time("inflate", dec_len, &mut || {
            let mut sum = 0u8;
            inflate(file, &mut |b| sum ^= b[b.len() - 1]);
            std::hint::black_box(sum);
            Ok(())
        })?;
    }
    time("sha256 (decompressed)", dec_len, &mut || {
        std::hint::black_box(Sha256::digest(dec));
        Ok(())
    })?;
    time("load_from (decompressed)", dec_len, &mut || {
        let l = formats::load_from(name, &dec, &opts, &mut |_| {}).map_err(|e| e.to_string())?;
        drop(std::hint::black_box(l));
        Ok(())
    })?;
    if formats::testing::perfetto_field_walk(dec).track_events > 0 {
        time("field walk (no model)", dec_len, &mut || {
            std::hint::black_box(formats::testing::perfetto_field_walk(dec));
            Ok(())
        })?;
    }
    if inflated.is_some() {
        time("load_from (as dropped)", dec_len, &mut || {
            let l =
                formats::load_from(name, &file, &opts, &mut |_| {}).map_err(|e| e.to_string())?;
            drop(std::hint::black_box(l));
            Ok(())
        })?;
    }
    let mut prepared = None;
    time("prepare (load + keep)", dec_len, &mut || {
        prepared = None;
        prepared = Some(workspace::prepare(name, &file, &opts, &mut |_| {}));
        Ok(())
    })?;
    let prepared = prepared.ok_or("no run")?;
    prepared.as_ref().map_err(Clone::clone)?;
    let mut encoded = Vec::new();
    time("wire encode", dec_len, &mut || {
        encoded = wire::encode(&prepared)?;
        Ok(())
    })?;
    time("wire decode", dec_len, &mut || {
        std::hint::black_box(wire::decode(&encoded)??);
        Ok(())
    })?;
    drop(plain);
    Ok(out)
}

/// The stages as a JSON array of `{"stage", "best_ms", "bytes", "mb_per_s"}`.
pub fn to_json(stages: &[Stage]) -> String {
    let rows: Vec<String> = stages
        .iter()
        .map(|s| {
            format!(
                "{{\"stage\":{:?},\"best_ms\":{:.3},\"bytes\":{},\"mb_per_s\":{:.2}}}",
                s.name,
                s.best_ms,
                s.bytes,
                if s.best_ms > 0.0 {
                    s.bytes as f64 / 1e3 / s.best_ms
                } else {
                    0.0
                }
            )
        })
        .collect();
    format!("[{}]", rows.join(","))
}
