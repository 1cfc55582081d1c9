//! Import throughput and peak memory on a synthetic Kineto-like trace (`support::kineto_gen`).
//! `json_perf_small` runs by default; the 100 MB run is `#[ignore]`d — run it with
//! `cargo test --release --test it json_perf -- --ignored --nocapture`.
//!
//! `VmHWM` is the peak of the whole process, and the other modules of the one test binary run
//! at the same time; so each test measures in a child process that runs only itself.
//!
//! Measured 2026-11-29 on the shared 2-core VM (release profile: opt-level "s", LTO):
//! 100.0 MB, 421,523 events → 240,869 slices in 2.63 s = 38 MB/s including the SHA-256 artifact
//! id (about a quarter of the time in `perf`); VmRSS 102 MB before the import (the input text),
//! VmHWM 206 MB after it, i.e. 2.06x the decompressed size.

use std::process::Command;
use std::time::Instant;

use trialscope::formats;
use trialscope::model::slice_flags;

use crate::support;

/// `VmHWM` / `VmRSS` of this process in bytes (Linux; `None` elsewhere).
fn proc_status(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Set in the child process, which measures in itself.
const CHILD: &str = "TRIALSCOPE_JSON_PERF_CHILD";
/// The child's result line on stdout: `<prefix> <MB/s> <VmHWM bytes or -> <input bytes>`.
const RESULT: &str = "json_perf result:";

/// `measure(target)` in a child process of this test binary that runs only the calling test
/// (in the child itself: measures and prints the result line).
fn run(target: usize) -> (f64, Option<u64>, usize) {
    if std::env::var_os(CHILD).is_some() {
        let r = measure(target);
        let hwm = r.1.map_or("-".to_string(), |h| h.to_string());
        println!("{RESULT} {} {hwm} {}", r.0, r.2);
        return r;
    }
    let test = std::thread::current()
        .name()
        .filter(|n| n.starts_with("json_perf::"))
        .map(String::from)
        .unwrap_or_else(|| {
            let name = if target == 8_000_000 {
                "json_perf_small"
            } else {
                "json_perf_100mb"
            };
            format!("json_perf::{name}")
        });
    let out = Command::new(std::env::current_exe().unwrap())
        .args([test.as_str(), "--exact", "--include-ignored", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprint!("{stderr}");
    assert!(
        out.status.success(),
        "{test} in a child process:\n{stdout}\n{stderr}"
    );
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(RESULT))
        .unwrap_or_else(|| panic!("no result line from {test}:\n{stdout}"));
    let v: Vec<&str> = line.split_whitespace().collect();
    (
        v[0].parse().unwrap(),
        v[1].parse().ok(),
        v[2].parse().unwrap(),
    )
}

fn measure(target: usize) -> (f64, Option<u64>, usize) {
    let (data, events) = support::kineto_gen::kineto_like(target);
    let rss_before = proc_status("VmRSS:");
    let t = Instant::now();
    let a = formats::import("synthetic.pt.trace.json", &data).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let hwm = proc_status("VmHWM:");
    let m = &a.model;
    assert_eq!(m.stats.events, events);
    assert_eq!(m.info.rank, Some(3));
    assert!(m.slices.len() as u64 > events / 2);
    assert!(m
        .counters
        .iter()
        .any(|c| m.str(c.name) == "cuda:0 allocated"));
    assert!(m
        .slices
        .flags
        .iter()
        .any(|f| f & slice_flags::COLLECTIVE != 0));
    let mbps = data.len() as f64 / 1e6 / secs;
    eprintln!(
        "json import: {:.1} MB in {:.2} s = {:.1} MB/s; {} events, {} slices; VmRSS before {:?} MB, VmHWM {:?} MB",
        data.len() as f64 / 1e6,
        secs,
        mbps,
        events,
        m.slices.len(),
        rss_before.map(|b| b / 1_000_000),
        hwm.map(|b| b / 1_000_000)
    );
    (mbps, hwm, data.len())
}

#[test]
fn json_perf_small() {
    let (_, hwm, len) = run(8_000_000);
    if let Some(h) = hwm {
        // The input copy plus the model stay under 3x the text (+ 64 MB for the test binary).
        assert!(h < 3 * len as u64 + (64 << 20), "peak {h} for {len} bytes");
    }
}

#[test]
#[ignore]
fn json_perf_100mb() {
    let (_, hwm, len) = run(100_000_000);
    if let Some(h) = hwm {
        assert!(h < 3 * len as u64 + (64 << 20), "peak {h} for {len} bytes");
    }
}

/// Writes the generated Kineto benchmark files (issue 9, point 6) to `target/`:
/// `kineto_100m.json` and `kineto_1g.json` (never committed). Run with
/// `cargo test --release --test it write_kineto_files -- --ignored`, then
/// `trialscope bench target/kineto_100m.json target/kineto_1g.json`.
#[test]
#[ignore]
fn write_kineto_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    for (file, size) in [
        ("kineto_100m.json", 100_000_000),
        ("kineto_1g.json", 1_000_000_000),
    ] {
        let path = dir.join(file);
        if path.metadata().is_ok_and(|m| m.len() >= size as u64) {
            continue;
        }
        let (data, events) = support::kineto_gen::kineto_like(size);
        std::fs::write(&path, &data).unwrap();
        eprintln!("{}: {} bytes, {events} events", path.display(), data.len());
    }
}

/// `trialscope bench --generate-kineto FILE --size-mb N` (issue 9, point 6) writes the same
/// bytes as the generator the tests use, streamed to the file, and they import as Kineto.
#[test]
fn bench_generates_the_kineto_benchmark_file() {
    let dir = std::env::temp_dir().join(format!("trialscope-genkineto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kineto_2m.json");
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(["bench", "--generate-kineto"])
        .arg(&path)
        .args(["--size-mb", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read(&path).unwrap();
    let (expected, events) = support::kineto_gen::kineto_like(2_000_000);
    assert!(
        written == expected,
        "the CLI and the library generator differ"
    );
    assert!(written.len() >= 2_000_000 && written.len() < 2_010_000);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{} bytes, {events} events", written.len())),
        "{stdout}"
    );
    let a = formats::import("kineto_2m.json", &written).unwrap();
    assert_eq!(a.model.stats.events, events);
    assert_eq!(a.model.info.rank, Some(3));
    std::fs::remove_dir_all(&dir).unwrap();
}
