//! Near-linear import on hostile inputs (issue 10, "Near-linear everywhere"): for each path that
//! was quadratic, 10× the input costs < 20× the work. The inputs are generated here and read
//! through `formats::load` / `formats::import`, as a user's file is.
//!
//! Where the library exposes a per-thread operation counter (`#[doc(hidden)]`, like
//! `formats::inflations_on_this_thread`) the test counts: the count is deterministic, so the
//! bound cannot flake on a busy machine. The string-pid path lives in the private Chrome JSON
//! module, which has no such hook; that test times runs at n and 10n instead (best of three per
//! size, a generous bound), at sizes where the old quadratic scan cost ~50× per 10×.

use std::time::{Duration, Instant};

use trialscope::formats::{self, records, LoadOptions, Loaded};
use trialscope::model::sink::with_pipe_after;
use trialscope::model::{builder, ArgSets};

/// Below this ratio, 10× the input is "near-linear" (issue 10: < 20× the work).
const MAX_RATIO: f64 = 20.0;

/// Prints the cost of `what` at n and 10n and asserts 10× the input costs < [`MAX_RATIO`]×.
fn assert_near_linear(what: &str, unit: &str, small: f64, large: f64) {
    let ratio = large / small;
    println!("{what}: {small} {unit} at n, {large} {unit} at 10n, ratio {ratio:.1}");
    assert!(
        ratio < MAX_RATIO,
        "10x the {what} cost {ratio:.1}x the {unit}"
    );
}

fn import_json(name: &str, text: &str) -> formats::Artifact {
    formats::import(name, text.as_bytes()).expect("the generated trace imports")
}

/// `n` complete events on one thread, event `i` at `i` µs lasting `n` µs: every one partly
/// overlaps every other, so each needs its own overflow lane.
fn all_overlapping(n: usize) -> String {
    let events: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"ph":"X","name":"x","pid":1,"tid":1,"ts":{i},"dur":{n}}}"#))
        .collect();
    format!(r#"{{"traceEvents":[{}]}}"#, events.join(","))
}

/// Lane-search steps of importing [`all_overlapping`]`(n)`, after checking the model.
fn overlap_steps(n: usize) -> u64 {
    let text = all_overlapping(n);
    let before = builder::lane_steps_on_this_thread();
    let a = import_json("overlap.json", &text);
    let steps = builder::lane_steps_on_this_thread() - before;
    let m = &a.model;
    assert_eq!(m.slices.len(), n);
    let lanes = m.tracks.iter().filter(|t| t.overflow_of.is_some()).count();
    assert_eq!(
        lanes,
        n - 1,
        "each slice but the first in its own overflow lane"
    );
    assert_eq!(
        m.diagnostics.count("slice_overlap_overflow_lane"),
        n as u64 - 1
    );
    assert!(m.slices.depth.iter().all(|&d| d == 0));
    steps
}

#[test]
fn overlapping_complete_events_find_their_lane_in_log_time() {
    let n = 2_000;
    let (small, large) = (overlap_steps(n), overlap_steps(10 * n));
    // Nested on the slice builder's own thread, the steps are counted here all the same.
    let (moved, started) = with_pipe_after(0, || overlap_steps(n));
    assert_eq!(started, 1, "the builder moved");
    assert_eq!(moved, small, "steps taken on the builder's thread");
    assert_near_linear(
        "overlapping events",
        "lane steps",
        small as f64,
        large as f64,
    );
}

/// `n` complete events, each with its own string pid.
fn distinct_string_pids(n: usize) -> String {
    let events: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"ph":"X","name":"x","pid":"p{i}","tid":1,"ts":{i},"dur":1}}"#))
        .collect();
    format!(r#"{{"traceEvents":[{}]}}"#, events.join(","))
}

/// Best of three import times of [`distinct_string_pids`]`(n)`, after checking the model.
fn string_pid_time(n: usize) -> Duration {
    let text = distinct_string_pids(n);
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let a = import_json("pids.json", &text);
            let took = t.elapsed();
            assert_eq!(a.model.processes.len(), n);
            assert_eq!(a.model.slices.len(), n);
            let named = a.model.processes.values();
            assert!(
                named.filter(|p| p.name.0 != 0).count() == n,
                "every process named"
            );
            took
        })
        .min()
        .expect("three runs")
}

#[test]
fn distinct_string_pids_are_mapped_in_constant_time() {
    let n = 3_000;
    let (small, large) = (string_pid_time(n), string_pid_time(10 * n));
    assert_near_linear("string pids", "s", small.as_secs_f64(), large.as_secs_f64());
}

/// Compile-record JSON Lines: `blank_lines` empty lines, one compile record (what makes it a
/// record file), then `n` records of another kind.
fn records_after_blanks(blank_lines: usize, n: usize) -> String {
    let mut s = "\n".repeat(blank_lines);
    s.push_str(concat!(
        r#"{"cell":"a","transform":"jit","hardware":"cpu","hostname":"h","jax_version":"1","#,
        r#""precision":"fp32","cache_state":"warm","compile_s":1}"#,
        "\n"
    ));
    for i in 0..n {
        s.push_str(&format!("{{\"other\": {i}}}\n"));
    }
    s
}

/// Leading bytes scanned to number the lines of [`records_after_blanks`], after checking the
/// line numbers.
fn record_scan_bytes(blank_lines: usize, n: usize) -> u64 {
    let text = records_after_blanks(blank_lines, n);
    let before = records::line_scan_bytes_on_this_thread();
    let loaded = formats::load(
        "r.jsonl",
        text.as_bytes(),
        &LoadOptions::default(),
        &mut |_| {},
    )
    .expect("the generated records load");
    let scanned = records::line_scan_bytes_on_this_thread() - before;
    let Loaded::Records { records, .. } = loaded else {
        panic!("read as a record file");
    };
    assert_eq!(records.other_kind_count(), n as u64);
    let listed = records.other_kind.len();
    assert_eq!(
        listed,
        n.min(trialscope::formats::limits::MAX_EXCLUDED_LISTED)
    );
    let first = &records.other_kind[0].location;
    assert_eq!(first.line, Some(blank_lines + 2));
    assert_eq!(
        records.other_kind[listed - 1].location.line,
        Some(blank_lines + listed + 1)
    );
    scanned
}

#[test]
fn leading_blank_lines_of_records_are_counted_once() {
    // The old reader rescanned the blank prefix for every line: blanks × lines. Both grow 10×
    // here (a megabyte of blanks is `a_megabyte_of_leading_blanks_still_reads_as_records`).
    let n = 2_000;
    let small = record_scan_bytes(3 * n, n);
    let large = record_scan_bytes(30 * n, 10 * n);
    let ratio = large as f64 / small as f64;
    println!(
        "records: {} blank lines + {n} lines {small} bytes, {} + {} lines {large} bytes, ratio {ratio:.1}",
        3 * n,
        30 * n,
        10 * n
    );
    assert_eq!(
        (small, large),
        (3 * n as u64, 30 * n as u64),
        "each prefix scanned once"
    );
    assert!(ratio < MAX_RATIO, "10x the file cost {ratio:.1}x the scan");
}

/// One B/E pair whose BEGIN and END each carry `k` args with distinct keys.
fn begin_end_with_args(k: usize) -> String {
    let args = |p: &str| {
        let kv: Vec<String> = (0..k).map(|i| format!(r#""{p}{i}":{i}"#)).collect();
        kv.join(",")
    };
    format!(
        r#"{{"traceEvents":[{{"ph":"B","name":"a","pid":1,"tid":1,"ts":0,"args":{{{}}}}},{{"ph":"E","name":"a","pid":1,"tid":1,"ts":5,"args":{{{}}}}}]}}"#,
        args("b"),
        args("e")
    )
}

/// Key lookups of merging the END's args of [`begin_end_with_args`]`(k)`, after checking the
/// merged set.
fn merge_probes(k: usize) -> u64 {
    let text = begin_end_with_args(k);
    let before = ArgSets::merge_probes_on_this_thread();
    let a = import_json("args.json", &text);
    let probes = ArgSets::merge_probes_on_this_thread() - before;
    let m = &a.model;
    assert_eq!(m.slices.len(), 1);
    let merged = m.args.get(m.slices.args[0]).to_vec();
    assert_eq!(merged.len(), 2 * k);
    assert_eq!(m.str(merged[0].0), "b0");
    assert_eq!(m.str(merged[k].0), "e0");
    probes
}

#[test]
fn end_args_merge_in_linear_time() {
    let k = 6_000;
    let (small, large) = (merge_probes(k), merge_probes(10 * k));
    // Merged on the slice builder's own thread, the probes are counted here all the same.
    let (moved, started) = with_pipe_after(0, || merge_probes(k));
    assert_eq!(started, 1, "the builder moved");
    assert_eq!(moved, small, "probes made on the builder's thread");
    assert_near_linear("end args", "key lookups", small as f64, large as f64);
}

/// Issue row "records with 1 MB of leading blanks + 40 k lines": the file still reads as a
/// record file (the sniffers look past leading white space), every line keeps its number, and
/// numbering the lines scans the blanks once.
#[test]
fn a_megabyte_of_leading_blanks_still_reads_as_records() {
    let blank_lines = 1 << 20;
    let n = 40_000;
    let text = records_after_blanks(blank_lines, n);
    let before = records::line_scan_bytes_on_this_thread();
    let loaded = formats::load(
        "r.jsonl",
        text.as_bytes(),
        &LoadOptions::default(),
        &mut |_| {},
    )
    .expect("loads");
    let scanned = records::line_scan_bytes_on_this_thread() - before;
    let Loaded::Records { records, .. } = loaded else {
        panic!("read as {}, not a record file", loaded.kind());
    };
    assert_eq!(records.other_kind_count(), n as u64);
    let listed = records.other_kind.len();
    assert_eq!(records.other_kind[0].location.line, Some(blank_lines + 2));
    assert_eq!(
        records.other_kind[listed - 1].location.line,
        Some(blank_lines + listed + 1)
    );
    assert!(scanned <= 2 * blank_lines as u64, "{scanned} bytes scanned");
}

/// Leading white-space bytes the sniffer scans before a JSON trace that starts with `spaces`
/// of them (gzipped, as a new user's 522 KB file of 512 MiB of spaces was), after checking
/// the trace's one event is read.
fn leading_space_scan(spaces: usize) -> u64 {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&vec![b' '; spaces]).unwrap();
    gz.write_all(br#"[{"name":"a","ph":"X","ts":0,"dur":1,"pid":1,"tid":1}]"#)
        .unwrap();
    let bytes = gz.finish().unwrap();
    let before = formats::sniff_scanned_on_this_thread();
    let loaded = formats::load("ws.json.gz", &bytes, &LoadOptions::default(), &mut |_| {})
        .expect("the trace after the spaces loads");
    let scanned = formats::sniff_scanned_on_this_thread() - before;
    let Loaded::Trace(a) = loaded else {
        panic!("read as {}, not a trace", loaded.kind());
    };
    assert_eq!(a.model.slices.len(), 1);
    scanned
}

#[test]
fn leading_white_space_is_scanned_once() {
    // The old sniffer counted the white space from the start after every read of the head:
    // (spaces / read size) × spaces.
    let small = leading_space_scan(4 << 20);
    let large = leading_space_scan(40 << 20);
    assert_eq!(
        (small, large),
        (4 << 20, 40 << 20),
        "each space scanned once"
    );
    assert_near_linear(
        "leading white space",
        "bytes scanned",
        small as f64,
        large as f64,
    );
}
