//! Hostile and unlucky JSON / Perfetto input (issue 10, points 3 and 4): no silent loss and
//! exact numbers. Each test is named after the bug it pins and feeds real encoded bytes.

use trialscope::formats::perfetto::proto::*;
use trialscope::model::Model;

use crate::support::perfetto as pb;

fn import(name: &str, bytes: &[u8]) -> Model {
    trialscope::formats::import(name, bytes)
        .unwrap_or_else(|e| panic!("{e}"))
        .model
}

/// [`import`], the bytes read in reads of `chunk` bytes.
fn import_chunked(name: &str, bytes: &[u8], chunk: usize) -> Model {
    let src = trialscope::formats::Chunked { bytes, chunk };
    match trialscope::formats::load_from(
        name,
        &src,
        &trialscope::formats::LoadOptions::default(),
        &mut |_| {},
    ) {
        Ok(trialscope::formats::Loaded::Trace(a)) => a.model,
        Ok(other) => panic!("{name}: {}", other.description()),
        Err(e) => panic!("{e}"),
    }
}

fn good_events(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                r#"{{"ph":"X","name":"good{i}","pid":1,"tid":1,"ts":{},"dur":1}}"#,
                10 + i * 2
            )
        })
        .collect::<Vec<_>>()
        .join(",\n")
}

fn diag_message(m: &Model, kind: &str) -> String {
    m.diagnostics
        .entries()
        .iter()
        .find(|d| d.kind == kind)
        .unwrap_or_else(|| panic!("no {kind} in {:?}", m.diagnostics))
        .message
        .clone()
}

/// Issue 10: a syntax error inside one event's `args` array made recovery resynchronise at an
/// object inside that array, whose `]` then ended `traceEvents`: 1 slice kept of 1,001, exit 0,
/// loss not counted.
#[test]
fn syntax_error_in_args_array_does_not_end_trace_events() {
    for wrapped in [false, true] {
        let broken =
            r#"{"ph":"X","name":"bad","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":[1 2,{"k":1}]}}"#;
        let events = format!("{broken},\n{}", good_events(1000));
        let json = if wrapped {
            format!("{{\"traceEvents\":[{events}],\"displayTimeUnit\":\"ns\"}}")
        } else {
            format!("[{events}]")
        };
        let m = import("args.json", json.as_bytes());
        assert_eq!(m.slices.len(), 1000, "every good event is kept");
        assert_eq!(m.diagnostics.count("json_syntax_error"), 1);
        assert_eq!(m.diagnostics.count("json_events_lost"), 1);
        assert_eq!(m.diagnostics.count("json_extra_comma"), 0);
        assert_eq!(
            m.diagnostics.count("event_without_phase"),
            0,
            "no resync inside"
        );
        // The broken event's own bytes: after `[` or `{"traceEvents":[`, up to its `}`.
        let start = if wrapped { 16 } else { 1 };
        let end = start + broken.len();
        assert!(
            diag_message(&m, "json_events_lost").contains(&format!("bytes {start}..{end}")),
            "{}",
            diag_message(&m, "json_events_lost")
        );
        assert!(m.diagnostics.has_data_loss());
    }
}

/// Issue 10: `[{e0}, 1, {e1}, {e2}]` dropped `e1` silently (resync skipped to the `{` after a
/// `}`), counting only a syntax error.
#[test]
fn non_object_entry_does_not_drop_the_next_event() {
    let json = r#"[{"ph":"X","name":"e0","ts":1,"dur":1}, 1, {"ph":"X","name":"e1","ts":3,"dur":1},
        "s", [2, {"ph":"X"}], null, true, {"ph":"X","name":"e2","ts":5,"dur":1}]"#;
    let m = import("entries.json", json.as_bytes());
    let names: Vec<&str> = m.slices.name.iter().map(|&n| m.str(n)).collect();
    assert_eq!(names, ["e0", "e1", "e2"]);
    assert_eq!(m.diagnostics.count("event_not_an_object"), 5);
    assert_eq!(m.diagnostics.count("json_syntax_error"), 0);
    assert_eq!(m.diagnostics.count("json_events_lost"), 0);
}

/// Issue 10: an unreadable token between events lost the next event too.
#[test]
fn garbage_between_events_loses_only_itself() {
    let json =
        r#"[{"ph":"X","name":"e0","ts":1,"dur":1}, x y, {"ph":"X","name":"e1","ts":3,"dur":1}]"#;
    let m = import("garbage.json", json.as_bytes());
    assert_eq!(m.slices.len(), 2);
    assert_eq!(m.diagnostics.count("json_syntax_error"), 1);
    assert_eq!(m.diagnostics.count("json_events_lost"), 1);
    // The comma after the lost element is the one expected there, not an extra one.
    assert_eq!(m.diagnostics.count("json_extra_comma"), 0);
}

/// Issue 10: `"pid": 1.5`, `"tid": true` were merged into pid/tid 0 with no diagnostic.
#[test]
fn non_integer_pid_and_tid_are_reported_and_kept_distinct() {
    let json = r#"[{"ph":"X","name":"a","pid":1.5,"tid":1,"ts":1,"dur":1},
        {"ph":"X","name":"b","pid":0,"tid":true,"ts":1,"dur":1},
        {"ph":"X","name":"c","pid":0,"tid":0,"ts":1,"dur":1},
        {"ph":"X","name":"d","pid":2.5,"tid":false,"ts":1,"dur":1}]"#;
    let m = import("ids.json", json.as_bytes());
    assert_eq!(m.slices.len(), 4);
    assert_eq!(m.diagnostics.count("pid_tid_not_integer"), 4);
    let key = |i: usize| {
        let t = &m.tracks[m.slices.track[i].0 as usize];
        (t.pid, t.tid)
    };
    let keys: Vec<_> = (0..4).map(key).collect();
    for i in 0..4 {
        for j in i + 1..4 {
            assert_ne!(keys[i], keys[j], "slices {i} and {j} share a track");
        }
    }
    assert_ne!(keys[0].0, Some(0), "pid 1.5 is not pid 0");
    assert_ne!(keys[1].1, Some(0), "tid true is not tid 0");
    let pid = keys[0].0.unwrap();
    assert_eq!(m.str(m.processes[&pid].name), "1.5");
}

/// google/perfetto #559: a `ts` in exponent notation went through f64 (off by up to 128 ns at
/// 2024 epochs); numeric strings in exponent notation too.
#[test]
fn exponent_notation_timestamps_convert_exactly() {
    let json = r#"[{"ph":"X","name":"a","ts":1.7312345678901235e+15,"dur":1.5E+0},
        {"ph":"X","name":"b","ts":"1.2E+3","dur":"25e-1"},
        {"ph":"i","name":"c","ts":17312345678901235e-1,"s":"t"}]"#;
    let m = import("exp.json", json.as_bytes());
    assert_eq!(m.slices.len(), 3);
    let by_name = |n: &str| {
        (0..m.slices.len())
            .find(|&i| m.str(m.slices.name[i]) == n)
            .unwrap()
    };
    let a = by_name("a");
    assert_eq!(m.slices.ts_ns[a], 1_731_234_567_890_123_500);
    assert_eq!(m.slices.dur_ns[a], 1_500);
    let b = by_name("b");
    assert_eq!(m.slices.ts_ns[b], 1_200_000);
    assert_eq!(m.slices.dur_ns[b], 2_500);
    assert_eq!(m.slices.ts_ns[by_name("c")], 1_731_234_567_890_123_500);
}

/// Issue 10: BEGIN at −9e15 µs and END at 9e18 ns (Perfetto): the duration wrapped (silently 0
/// in release, an overflow panic in debug). Both timestamps are out of range now: dropped and
/// counted; the in-range slice after them is exact.
#[test]
fn perfetto_begin_end_far_apart_does_not_overflow() {
    use track_event_type::{SLICE_BEGIN, SLICE_END};
    let begin = TrackEvent {
        timestamp_absolute_us: Some(-9_000_000_000_000_000),
        ..pb::track_event(SLICE_BEGIN, 10, Some(("far", "c")))
    };
    let trace = pb::trace(&[
        pb::track(1, pb::thread_track(10, None, 5, 6, Some("t"))),
        pb::event(1, 1_000, begin),
        pb::event(
            1,
            9_000_000_000_000_000_000,
            pb::track_event(SLICE_END, 10, None),
        ),
        pb::event(
            1,
            2_000,
            pb::track_event(SLICE_BEGIN, 10, Some(("ok", "c"))),
        ),
        pb::event(1, 2_500, pb::track_event(SLICE_END, 10, None)),
    ]);
    let m = import("far.pftrace", &trace);
    assert_eq!(m.diagnostics.count("timestamp_out_of_range"), 2);
    assert_eq!(m.slices.len(), 1);
    assert_eq!(m.str(m.slices.name[0]), "ok");
    assert_eq!((m.slices.ts_ns[0], m.slices.dur_ns[0]), (2_000, 500));
}

/// Issue 10: a legacy complete event whose end lies beyond the range overflowed `ts + dur`.
#[test]
fn perfetto_complete_event_end_beyond_range_is_dropped() {
    let ev = TrackEvent {
        legacy_event: Some(LegacyEvent {
            phase: Some(i32::from(b'X')),
            duration_us: Some(i64::MAX),
            ..Default::default()
        }),
        ..pb::track_event(track_event_type::UNSPECIFIED, 10, Some(("huge", "c")))
    };
    let trace = pb::trace(&[
        pb::track(1, pb::thread_track(10, None, 5, 6, Some("t"))),
        pb::event(1, 1_000, ev),
    ]);
    let m = import("huge.pftrace", &trace);
    assert_eq!(m.slices.len(), 0);
    assert_eq!(m.diagnostics.count("timestamp_out_of_range"), 1);
}

/// Issue 10: a Kineto `baseTimeNanoseconds` near i64::MAX saturated every timestamp.
#[test]
fn absurd_kineto_base_time_is_ignored_and_counted() {
    let json = r#"{"schemaVersion":1,"baseTimeNanoseconds":9000000000000000000,
        "traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":5,"dur":1}]}"#;
    let m = import("rank0.json", json.as_bytes());
    assert_eq!(m.slices.ts_ns, [5_000]);
    assert_eq!(m.diagnostics.count("timestamp_out_of_range"), 1);
}

/// Events whose brackets never balance again (an `args` array and the event left open): the
/// loss is still counted one per event, and recovery does not rescan the rest of the file for
/// each of them (that would be ~2 MB scanned per broken event here).
#[test]
fn unbalanced_broken_events_are_counted_without_rescanning() {
    let n = 20_000;
    let mut json = String::from("[");
    for i in 0..n {
        json.push_str(&format!(
            r#"{{"ph":"X","name":"bad{i}","ts":1,"dur":1,"args":{{"a":[1 x}},"#
        ));
        json.push_str(&format!(r#"{{"ph":"X","name":"ok{i}","ts":{i},"dur":1}},"#));
    }
    json.push_str("{}]");
    let m = import("unbalanced.json", json.as_bytes());
    assert_eq!(m.slices.len(), n);
    assert_eq!(m.diagnostics.count("json_syntax_error"), n as u64);
    assert_eq!(m.diagnostics.count("json_events_lost"), n as u64);
}

/// `{"traceEvents":[{… "args":{"a":[0,0,…]}}, good0, good1, good2]}` with `zeros` zeros in
/// one args array, gzipped while it is written (the test never holds the text).
fn zeros_gz(zeros: usize) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(
        br#"{"traceEvents":[{"ph":"X","name":"huge","pid":1,"tid":1,"ts":1,"dur":1,"args":{"a":["#,
    )
    .unwrap();
    let block = "0,".repeat(1 << 15);
    for _ in 0..zeros / (1 << 15) {
        gz.write_all(block.as_bytes()).unwrap();
    }
    gz.write_all(b"0]}},\n").unwrap();
    gz.write_all(good_events(3).as_bytes()).unwrap();
    gz.write_all(b"]}").unwrap();
    gz.finish().unwrap()
}

/// Issue 10: a Chrome JSON file with one `args` array of 100 M zeros (about 200 KB gzipped)
/// took 5.1 GB, because the lexer built the whole value tree. The event is longer than
/// `MAX_EVENT_BYTES`: it is skipped without being buffered whole, counted, and the events
/// after it are kept.
#[test]
fn args_array_of_100m_zeros_is_skipped_with_bounded_memory() {
    let bytes = zeros_gz(100_000_000);
    assert!(bytes.len() < 1 << 20, "{} bytes gzipped", bytes.len());
    let m = import("zeros.json.gz", &bytes);
    let names: Vec<&str> = m.slices.name.iter().map(|&n| m.str(n)).collect();
    assert_eq!(names, ["good0", "good1", "good2"]);
    assert_eq!(m.diagnostics.count("json_event_too_large"), 1);
    assert!(diag_message(&m, "json_event_too_large").contains("MAX_EVENT_BYTES"));
    assert!(m.diagnostics.has_data_loss());
}

fn args_of_first(m: &Model) -> Vec<(String, String)> {
    m.args
        .get(m.slices.args[0])
        .iter()
        .map(|(k, v)| (m.str(k).to_string(), format!("{v:?}")))
        .collect()
}

/// Past `MAX_JSON_NODES_PER_EVENT` nodes in one event's `args`, the member that crosses it and
/// all later ones are skipped unbuilt and counted; the event and its earlier args are kept.
#[test]
fn args_past_the_node_budget_are_dropped_and_counted() {
    let zeros = "0,".repeat(300_000);
    let json = format!(
        r#"[{{"ph":"X","name":"a","ts":1,"dur":1,"args":{{"first":1,"big":[{zeros}0],"after":2}}}},
            {{"ph":"X","name":"b","ts":2,"dur":1}}]"#
    );
    let m = import("nodes.json", json.as_bytes());
    assert_eq!(m.slices.len(), 2);
    let args = args_of_first(&m);
    assert_eq!(args, [("first".to_string(), "Int(1)".to_string())]);
    assert_eq!(m.diagnostics.count("json_args_over_limit"), 1);
    let msg = diag_message(&m, "json_args_over_limit");
    assert!(
        msg.contains("MAX_JSON_NODES_PER_EVENT") && msg.contains("2 args dropped"),
        "{msg}"
    );
}

/// Past `MAX_ARGS_PER_EVENT` members the rest are dropped and counted; past
/// `MAX_ARG_BYTES_PER_EVENT` bytes likewise.
#[test]
fn args_past_the_member_and_byte_budgets_are_dropped_and_counted() {
    use trialscope::formats::limits::{MAX_ARGS_PER_EVENT, MAX_ARG_BYTES_PER_EVENT};
    let members: Vec<String> = (0..MAX_ARGS_PER_EVENT + 10)
        .map(|i| format!("\"k{i}\":{i}"))
        .collect();
    let json = format!(
        r#"[{{"ph":"X","name":"a","ts":1,"dur":1,"args":{{{}}}}}]"#,
        members.join(",")
    );
    let m = import("members.json", json.as_bytes());
    assert_eq!(m.args.get(m.slices.args[0]).len(), MAX_ARGS_PER_EVENT);
    let msg = diag_message(&m, "json_args_over_limit");
    assert!(
        msg.contains("MAX_ARGS_PER_EVENT") && msg.contains("10 args dropped"),
        "{msg}"
    );

    let long = "x".repeat(MAX_ARG_BYTES_PER_EVENT + 1);
    let json =
        format!(r#"[{{"ph":"X","name":"a","ts":1,"dur":1,"args":{{"s":"ok","long":"{long}"}}}}]"#);
    let m = import("bytes.json", json.as_bytes());
    assert_eq!(
        args_of_first(&m)
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>(),
        ["s"]
    );
    assert!(diag_message(&m, "json_args_over_limit").contains("MAX_ARG_BYTES_PER_EVENT"));
}

/// The 100 M-zeros file's peak memory (5.1 GB before the streaming reader), measured as
/// `VmHWM` in a child process of this test binary that runs only this test (ignored: it
/// inflates 200 MB; `cargo test --test it zeros_peak -- --ignored --nocapture`, faster with
/// `--release`).
#[test]
#[ignore]
fn zeros_peak_memory_in_a_child_process() {
    const CHILD: &str = "TRIALSCOPE_ZEROS_PEAK_CHILD";
    let hwm = || -> Option<u64> {
        let s = std::fs::read_to_string("/proc/self/status").ok()?;
        let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
        Some(l.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    };
    if std::env::var_os(CHILD).is_some() {
        let m = import("zeros.json.gz", &zeros_gz(100_000_000));
        assert_eq!(m.diagnostics.count("json_event_too_large"), 1);
        println!("zeros peak: {}", hwm().unwrap_or(0));
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "hostile_json::zeros_peak_memory_in_a_child_process",
            "--exact",
            "--include-ignored",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let peak: u64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("zeros peak: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in {stdout}"));
    eprintln!("100 M zeros in one args array: VmHWM {} MB", peak >> 20);
    if peak > 0 {
        // One event buffered (≤ MAX_EVENT_BYTES, 64 MiB, while it grows) plus the test binary.
        assert!(peak < 320 << 20, "peak {} MB", peak >> 20);
    }
}

/// HTA PR #325: CUPTI/Kineto corruption writes a few absurd timestamps among good ones. An
/// event before 1970 by more than the trace's own span is dropped and counted, so the
/// timeline covers only the events kept; a small negative time (a relative clock) is kept.
#[test]
fn timestamps_before_1970_by_more_than_the_span_are_dropped() {
    let mut ev = Vec::new();
    for i in 0..1000u64 {
        ev.push(format!(
            r#"{{"ph":"X","name":"k{}","pid":1,"tid":1,"ts":{},"dur":5}}"#,
            i % 7,
            1_731_234_567_890_123u64 + i * 10
        ));
    }
    // −31 years, and −5 µs relative to the Unix epoch on another track.
    ev.push(r#"{"ph":"X","name":"corrupt","pid":1,"tid":2,"ts":-1000000000000000,"dur":5}"#.into());
    ev.push(r#"{"ph":"B","name":"corrupt_b","pid":1,"tid":3,"ts":-900000000000000}"#.into());
    let json = format!("{{\"traceEvents\":[{}]}}", ev.join(","));
    let m = import("hta325.json", json.as_bytes());
    assert_eq!(m.slices.len(), 1000, "the corrupt events are not slices");
    assert_eq!(m.diagnostics.count("timestamp_implausible"), 2);
    let lo = (0..m.slices.len())
        .map(|i| m.slices.ts_ns[i])
        .min()
        .unwrap();
    assert_eq!(
        lo, 1_731_234_567_890_123_000,
        "the timeline starts at the first good event"
    );
    assert!(diag_message(&m, "timestamp_implausible").contains("before 1970"));

    // A relative clock with a few µs before zero keeps everything.
    let rel = r#"{"traceEvents":[
        {"ph":"X","name":"a","pid":1,"tid":1,"ts":-5,"dur":2},
        {"ph":"X","name":"b","pid":1,"tid":1,"ts":0,"dur":2},
        {"ph":"X","name":"c","pid":1,"tid":1,"ts":100,"dur":2}]}"#;
    let m = import("relative.json", rel.as_bytes());
    assert_eq!(m.slices.len(), 3);
    assert_eq!(m.diagnostics.count("timestamp_implausible"), 0);
}

/// A review found a second trace appended to the first (`{…}{…}`, `[…]\n[…]`) read as the
/// first alone, its events lost without a diagnostic: the rest is now `json_trailing_data`
/// (`data_loss`, so the trial counts as one that lost data) with its byte count, whatever the
/// chunks; white space and NUL padding after the value are nothing.
#[test]
fn a_second_trace_appended_is_counted_as_trailing_data() {
    let one = format!(r#"{{"traceEvents":[{}]}}"#, good_events(1));
    let five = format!(r#"{{"traceEvents":[{}]}}"#, good_events(5));
    for (text, slices, trailing) in [
        (format!("{one}{five}"), 1, Some(five.len())),
        (
            format!("[{}]\n[{}]\n", good_events(1), good_events(5)),
            1,
            Some(good_events(5).len() + 3),
        ),
        (format!("{one}\n\0\0\0\n  "), 1, None),
        (format!("[{}]  \n", good_events(2)), 2, None),
    ] {
        let m = import("t.json", text.as_bytes());
        assert_eq!(m.slices.len(), slices, "{text}");
        match trailing {
            Some(bytes) => {
                assert!(m.diagnostics.has_data_loss(), "{text}");
                let msg = diag_message(&m, "json_trailing_data");
                assert!(
                    msg.ends_with(&format!("{bytes} bytes from byte {}", text.len() - bytes)),
                    "{msg}"
                );
            }
            None => assert_eq!(m.diagnostics.count("json_trailing_data"), 0, "{text}"),
        }
        for chunk in [1, 7, 65_536] {
            let a = import_chunked("t.json", text.as_bytes(), chunk);
            assert_eq!(
                a.diagnostics.entries(),
                m.diagnostics.entries(),
                "chunks of {chunk}"
            );
        }
    }
}

/// A review found a bare event array whose first element is no object (`[null, {…}]`, `[1, …]`,
/// `[[1], …]`, `[, …]`) refused as "not a trace", while inside `traceEvents` such elements are
/// counted and skipped: now the same in a bare array. An array with no event at all is still
/// no trace.
#[test]
fn a_bare_array_may_start_with_a_non_object() {
    let e = good_events(2);
    for (text, skipped) in [
        (format!("[null,{e}]"), 1),
        (format!("[1, {e}]"), 1),
        (format!("[[1], \"s\", {e}]"), 2),
        (format!("[,{e}]"), 0),
    ] {
        let m = import("a.json", text.as_bytes());
        assert_eq!(m.slices.len(), 2, "{text}");
        assert_eq!(
            m.diagnostics.count("event_not_an_object"),
            skipped,
            "{text}"
        );
    }
    let e = trialscope::formats::import("n.json", b"[1, 2, 3]")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a trace"), "{e}");
}

/// A review found a `ts` beyond i64 nanoseconds written as a number (`1e400`, `1e20`) counted
/// as `event_invalid_timestamp` ("missing or non-numeric"), and lone UTF-16 surrogate escapes
/// (`"\ud800"`) replaced with U+FFFD without any diagnostic.
#[test]
fn huge_timestamps_are_out_of_range_and_lone_surrogates_are_counted() {
    let json = r#"[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1e400,"dur":1},
        {"ph":"X","name":"b","pid":1,"tid":1,"ts":"-1e20","dur":1},
        {"ph":"X","name":"c","pid":1,"tid":1,"ts":"soon","dur":1},
        {"ph":"X","name":"d\ud800","pid":1,"tid":1,"ts":5,"dur":1},
        {"ph":"X","name":"e\ud83d\ude00","pid":1,"tid":1,"ts":7,"dur":1}]"#;
    let m = import("t.json", json.as_bytes());
    let names: Vec<&str> = m.slices.name.iter().map(|&n| m.str(n)).collect();
    assert_eq!(names, ["d\u{FFFD}", "e\u{1F600}"]);
    assert_eq!(m.diagnostics.count("timestamp_out_of_range"), 2);
    assert_eq!(m.diagnostics.count("event_invalid_timestamp"), 1);
    assert_eq!(m.diagnostics.count("json_lone_surrogate_escape"), 1);
    assert!(diag_message(&m, "timestamp_out_of_range").contains("1e400"));
}

/// A review found an early `]` in `{"traceEvents":[e0], e1, e2]}` losing e1 and e2 behind a
/// mere `json_top_level_syntax_error` warning (and in a bare `[e0], e1, e2]` behind trailing
/// data): the events after a stray `]` are now read, and the bracket counted once. A `[` or a
/// key after the `]` is still what it seems.
#[test]
fn events_after_a_stray_close_bracket_are_read() {
    let (e0, rest) = (good_events(1), good_events(4));
    for text in [
        format!(r#"{{"traceEvents":[{e0}], {rest}], "displayTimeUnit":"ns"}}"#),
        format!("[{e0}]\n,\n{rest}]"),
        format!("[{e0}],{}]", rest.replace(",\n", "],")),
    ] {
        let m = import("t.json", text.as_bytes());
        assert_eq!(m.slices.len(), 5, "{text}");
        let strays = if text.matches(']').count() > 2 { 4 } else { 1 };
        assert_eq!(
            m.diagnostics.count("json_stray_close_bracket"),
            strays,
            "{text}"
        );
        assert_eq!(m.diagnostics.count("json_top_level_syntax_error"), 0);
        assert!(!m.diagnostics.has_data_loss(), "{:?}", m.diagnostics);
        for chunk in [1, 7, 65_536] {
            let a = import_chunked("t.json", text.as_bytes(), chunk);
            assert_eq!(a.slices.len(), 5, "chunks of {chunk}");
            assert_eq!(
                a.diagnostics.entries(),
                m.diagnostics.entries(),
                "chunks of {chunk}"
            );
        }
    }
    // `[e0]` then `,` and a second array, or the next key: unchanged.
    let m = import("t.json", format!("[{e0}],[{rest}]").as_bytes());
    assert_eq!(m.slices.len(), 1);
    assert_eq!(m.diagnostics.count("json_trailing_data"), 1);
    let m = import(
        "t.json",
        format!(r#"{{"traceEvents":[{e0}], "displayTimeUnit":"ns"}}"#).as_bytes(),
    );
    assert_eq!(m.diagnostics.count("json_stray_close_bracket"), 0);
}
