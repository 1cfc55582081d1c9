//! Hostile record, pins and container input (issue #10): a record file of millions of tiny
//! entries stays bounded (each entry classified as it is read, listings capped, the rest
//! counted), a doubly gzipped bomb stops at the limit with a clear error while streaming, and a
//! gzip stream cut off mid-way keeps what came before it.

use std::io::Write;
use std::process::Command;

use flate2::write::GzEncoder;
use flate2::Compression;
use trialscope::formats::{self, limits, ImportError, LoadOptions, Loaded};

fn gzip(parts: &mut dyn FnMut(&mut dyn Write)) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    parts(&mut enc);
    enc.finish().unwrap()
}

/// `[{"cell":0},…]` with `n` entries (every one malformed: a key field of the wrong type, the
/// others missing), gzipped.
fn zeros_array(n: usize) -> Vec<u8> {
    const E: &str = "{\"cell\":0},";
    gzip(&mut |w| {
        w.write_all(b"[").unwrap();
        let chunk = E.repeat(1 << 14);
        let mut left = n - 1;
        while left > 0 {
            let k = left.min(1 << 14);
            w.write_all(&chunk.as_bytes()[..E.len() * k]).unwrap();
            left -= k;
        }
        w.write_all(b"{\"cell\":0}]").unwrap();
    })
}

#[test]
fn millions_of_tiny_entries_are_counted_not_listed() {
    let n = 2_000_000;
    let gz = zeros_array(n);
    assert!(
        gz.len() < 100_000,
        "the hostile file is small: {} bytes",
        gz.len()
    );
    let f = match formats::load("records.json.gz", &gz, &LoadOptions::default(), &mut |_| {}) {
        Ok(Loaded::Records { records, .. }) => records,
        other => panic!("expected a record file, got {other:?}"),
    };
    assert_eq!(f.malformed.len(), limits::MAX_EXCLUDED_LISTED);
    assert_eq!(f.malformed_count(), n as u64, "every entry is counted");
    assert!(
        f.malformed[0].reason.contains("cell"),
        "{}",
        f.malformed[0].reason
    );
    assert!(f.records.is_empty());
}

#[test]
fn pin_on_millions_of_entries_prints_a_bounded_listing() {
    let dir = std::env::temp_dir().join(format!("ts-hostile-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("records.json.gz");
    std::fs::write(&input, zeros_array(300_000)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .arg("pin")
        .arg(&input)
        .arg("--out")
        .arg(dir.join("pins.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = stderr.lines().count();
    assert!(
        lines < limits::MAX_EXCLUDED_LISTED + 20,
        "stderr has {lines} lines"
    );
    assert!(
        stderr.contains(&format!(
            "… and {} more malformed records",
            300_000 - limits::MAX_EXCLUDED_LISTED
        )),
        "{}",
        &stderr[stderr.len().saturating_sub(500)..]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn doubly_gzipped_bomb_stops_at_the_limit() {
    // 64 MiB of zeros inside two gzip layers: a few KB on disk.
    let inner = gzip(&mut |w| {
        w.write_all(b"{\"traceEvents\":[").unwrap();
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..64 {
            w.write_all(&zeros).unwrap();
        }
    });
    let outer = gzip(&mut |w| w.write_all(&inner).unwrap());
    assert!(outer.len() < 200_000, "{}", outer.len());
    let opts = LoadOptions {
        max_decompressed_bytes: 16 << 20,
        ..LoadOptions::default()
    };
    let e = formats::load("bomb.json.gz", &outer, &opts, &mut |_| {}).unwrap_err();
    eprintln!("{e}");
    assert!(matches!(e.error, ImportError::TooLarge { limit_bytes } if limit_bytes == 16 << 20));
    assert_eq!(
        e.to_string(),
        "bomb.json.gz: decompressed size exceeds the limit of 16777216 bytes"
    );
}

#[test]
fn a_cut_gzip_stream_keeps_what_came_before() {
    let mut json = String::from("{\"traceEvents\":[\n");
    for i in 0..20_000 {
        json.push_str(&format!(
            "{{\"ph\":\"X\",\"name\":\"e{i}\",\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":1}},\n",
            i * 10
        ));
    }
    json.push_str("{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]}");
    let gz = gzip(&mut |w| w.write_all(json.as_bytes()).unwrap());
    let cut = &gz[..gz.len() * 2 / 3];
    let a = formats::import("cut.json.gz", cut).expect("a cut stream still loads");
    let d = &a.model.diagnostics;
    assert_eq!(d.count("compressed_stream_truncated"), 1, "{d:?}");
    let kept = a.model.slices.len();
    assert!(
        kept > 5_000 && kept < 20_001,
        "the events before the cut are kept: {kept}"
    );
    assert_eq!(
        a.artifact_id,
        formats::artifact_id(cut),
        "the artifact id covers every byte as dropped"
    );
}
