//! Memory telemetry JSON Lines (collective-memory.md, "Telemetry records"): a 4-rank file with
//! one malformed line imports the rest and reports the line; markers come from event types,
//! context and metadata; `trialscope memory --json` prints the report.

use trialscope::analysis::collective_memory::{self as cm, Classification, Mapping, Params};

use crate::support::telemetry::Record;

const MS: i64 = 1_000_000;
const MIB: i64 = 1 << 20;
/// 2026-11-29T12:00:00Z in ns: an epoch clock shared by the ranks.
const T0: i64 = 1_795_953_600_000_000_000;

/// 4 ranks × 30 samples every 50 ms; +400 MiB hidden memory at sample 12 on every rank; an
/// event `collective_begin` at 590–630 ms whose metadata says `{"op": "all_reduce"}`; a
/// `checkpoint` event (no collective token) at 1000 ms; line 7 is cut short.
pub(crate) fn jsonl() -> String {
    let mut s = String::new();
    let mut n = 0;
    for i in 0..30i64 {
        for r in 0..4 {
            let reserved = 4096 * MIB;
            let gap = 100 * MIB + (i % 4) * MIB + if i == 12 { 400 * MIB } else { 0 };
            n += 1;
            if n == 7 {
                s.push_str("{\"timestamp_ns\": 12, \"event_type\": \"sam\n");
                continue;
            }
            let sample = Record::sample(T0 + i * 50 * MS + r * MS)
                .num("rank", r)
                .num("world_size", 4)
                .num("device_used_bytes", reserved + gap)
                .num("allocator_reserved_bytes", reserved)
                .num("allocator_allocated_bytes", reserved - 512 * MIB)
                .num("device_total_bytes", 80i64 * 1024 * MIB)
                .num("context", "null")
                .num("metadata", "{}")
                .str("session_id", "s1")
                .num("schema_version", 1);
            s.push_str(&sample.line());
        }
    }
    for r in 0..4 {
        let collective = Record::new(T0 + 590 * MS, "collective_begin")
            .num("duration_ns", 40 * MS)
            .num("rank", r)
            .num("world_size", 4)
            .num("device_used_bytes", "null")
            .num("allocator_reserved_bytes", "null")
            .num("allocator_allocated_bytes", "null")
            .num("device_total_bytes", "null")
            .str("context", "bucket 3")
            .num("metadata", r#"{"op":"all_reduce","bytes":419430400}"#)
            .str("session_id", "s1");
        s.push_str(&collective.line());
        let checkpoint = Record::new(T0 + 1000 * MS, "checkpoint")
            .num("rank", r)
            .str("context", "save")
            .num("metadata", r#"{"path":"/ckpt"}"#);
        s.push_str(&checkpoint.line());
    }
    s
}

#[test]
fn bad_line_is_reported_and_the_rest_imports() {
    let data = jsonl();
    let t = crate::support::telemetry_file("job.jsonl", data.as_bytes());
    assert_eq!(t.bad_lines.len(), 1);
    assert_eq!(t.bad_lines[0].line, 7);
    assert!(
        t.bad_lines[0].message.starts_with("not JSON"),
        "{:?}",
        t.bad_lines
    );
    let d = &t.diagnostics.entries()[0];
    assert_eq!(
        (d.kind.as_str(), d.count, d.first_index),
        ("telemetry_bad_line", 1, Some(7))
    );
    assert!(d.message.contains(": job.jsonl:7: "), "{}", d.message);
    // 120 samples − 1 bad + 8 events.
    assert_eq!(t.records, 127);
    assert_eq!(t.models.len(), 4);

    let items: Vec<_> = t
        .models
        .iter()
        .map(|m| {
            (
                "job.jsonl".to_string(),
                cm::series_from_model(m, &Mapping::default()),
            )
        })
        .collect();
    for (r, (_, s)) in items.iter().enumerate() {
        assert_eq!(s.rank, Some(r as u32));
        assert_eq!(s.world_size, Some(4));
        assert!(s.shared_clock);
        assert_eq!(s.series_present().len(), 4);
        // The bad line (7th sample line) was rank 2's second sample.
        let want = if r == 2 { 29 } else { 30 };
        assert_eq!(s.kinds.device_used.as_ref().unwrap().ts_ns.len(), want);
        // Only the event with a collective token (in its metadata) is a marker.
        assert_eq!(s.markers.len(), 1);
        assert_eq!(s.markers[0].name, "collective_begin");
        assert_eq!(s.markers[0].end_ns - s.markers[0].start_ns, 40 * MS);
    }
    let (inputs, warnings) =
        crate::support::memory_inputs(vec![("job.jsonl".to_string(), data.as_bytes().to_vec())]);
    assert_eq!(
        inputs.iter().map(|i| &i.series).collect::<Vec<_>>(),
        items.iter().map(|(_, s)| s).collect::<Vec<_>>()
    );
    assert!(warnings.is_empty());
    let rep = cm::run(&inputs, &Params::default());
    assert_eq!(rep.intervals.len(), 4, "{:#?}", rep);
    for iv in &rep.intervals {
        assert_eq!(iv.classification, Classification::CollectiveConfident);
        assert_eq!(iv.evidence.synchronized_ranks, 4);
        assert_eq!(iv.evidence.marker_hits, 1);
        // Ratio known: 500 MiB / 80 GiB.
        let ratio = iv.evidence.peak_gap_ratio.unwrap();
        assert!((ratio - 500.0 / 81920.0).abs() < 1e-12, "{ratio}");
    }
}

#[test]
fn cli_prints_json_report_and_bad_line() {
    let dir = std::env::temp_dir().join(format!("trialscope-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("job.jsonl");
    std::fs::write(&path, jsonl()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args([
            "memory",
            "--json",
            "--preset",
            "high",
            "--set",
            "min_confidence=0.4",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["world_size"], 4);
    assert_eq!(v["params"]["min_confidence"], 0.4);
    assert_eq!(v["params"]["min_samples_per_rank"], 5);
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 4);
    assert_eq!(ranks[2]["rank"], 2);
    assert_eq!(ranks[2]["samples"], 29);
    assert_eq!(ranks[0]["series"].as_array().unwrap().len(), 4);
    let ivs = v["intervals"].as_array().unwrap();
    assert_eq!(ivs.len(), 4);
    for iv in ivs {
        for k in [
            "rank",
            "start_ns",
            "end_ns",
            "classification",
            "confidence",
            "reason_codes",
            "evidence",
        ] {
            assert!(!iv[k].is_null(), "{k} missing in {iv}");
        }
        assert_eq!(iv["classification"], "collective_confident");
    }
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warnings.iter().any(|w| w.ends_with(
            "job.jsonl:7: not JSON: EOF while parsing a string at line 1 column 39; line skipped"
        )),
        "{warnings:?}"
    );

    // A rejected override names the knob and exits 2.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(["memory", "--set", "marker_widow=1ms"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown knob `marker_widow`"));

    // An unknown schema version refuses the file (exit 1, message names the version).
    let bad = dir.join("v9.jsonl");
    std::fs::write(
        &bad,
        "{\"timestamp_ns\":1,\"event_type\":\"sample\",\"rank\":0,\"schema_version\":9}\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(["memory", "--json"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unsupported telemetry schema version \"9\""),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A review found a telemetry file whose first line is longer than the sniffer's 64 KiB head
/// (a large `metadata` object) not recognised: the cut line was no JSON. Its members are now
/// read up to the cut, wherever the keys fall; a cut line without them is still no telemetry.
#[test]
fn a_first_line_longer_than_the_sniffed_head_is_telemetry() {
    let big = format!(r#"{{"blob":"{}"}}"#, "x".repeat(100 << 10));
    let first_keys = Record::new(T0, "checkpoint")
        .num("rank", 0)
        .num("metadata", &big)
        .line();
    let keys_apart = format!(
        "{{\"timestamp_ns\":{T0},\"context\":\"{}\",\"event_type\":\"checkpoint\",\"metadata\":{big}}}\n",
        "c".repeat(30 << 10)
    );
    for first in [first_keys, keys_apart] {
        let data = format!("{first}{}", jsonl());
        let t = crate::support::telemetry_file("big.jsonl", data.as_bytes());
        assert_eq!(t.bad_lines.len(), 1, "only the cut-short line 8");
        assert_eq!(t.bad_lines[0].line, 8);
    }
    // Keys only after the head: not telemetry (read as a Chrome JSON trace attempt instead).
    let late = format!(
        "{{\"pad\":\"{}\",\"timestamp_ns\":1,\"event_type\":\"x\"}}\n",
        "y".repeat(100 << 10)
    );
    assert!(!trialscope::formats::testing::looks_like_telemetry(
        late.as_bytes()
    ));
}
