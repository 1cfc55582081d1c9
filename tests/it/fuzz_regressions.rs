//! What the coverage-guided fuzz targets (`tests/fuzz/`, issue 10 point 7) found: each test
//! feeds the exact bytes of one finding (kept in `tests/fuzz/regressions/`) and asserts the
//! fixed behaviour. The fuzz targets build the library with its own dependency features, not
//! with the dev-dependencies' (cargo unifies those into this test binary), so a test here may
//! also check the manifest when the fix is a feature.

use std::path::PathBuf;

use trialscope::formats::records::pins_to_json;

use crate::support::pins_file;

fn regression(file: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/regressions")
        .join(file);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The `[dependencies]` table of the package manifest, as text.
fn normal_dependencies() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let text = std::fs::read_to_string(p).unwrap();
    let start = text
        .find("\n[dependencies]\n")
        .expect("a [dependencies] table");
    let rest = &text[start + 1..];
    let end = rest[1..].find("\n[").map_or(rest.len(), |e| e + 1);
    rest[..end].to_string()
}

/// Fuzz target `pins`, `tests/fuzz/regressions/pins_compile_s_float_roundtrip.json` (minimized
/// from a 10 KB crash): `compile_s` written with 24 digits, `9.49021555555555555555552`, read as
/// 9.490215555555555 — one ulp below the nearest f64, 9.490215555555556 — because serde_json's
/// default float parser is not correctly rounded. `pins_to_json` wrote that value, which read
/// back as …556: a pin changed in a write/read round trip. Fixed by serde_json's
/// `float_roundtrip` feature on the library's own dependency (the test binary always had it,
/// through the dev-dependencies, which is why no test saw it).
#[test]
fn pins_compile_s_is_the_nearest_f64_and_survives_a_round_trip() {
    let bytes = regression("pins_compile_s_float_roundtrip.json");
    let pins = pins_file("pins.json", &bytes);
    assert_eq!(pins.len(), 1);
    let nearest: f64 = "9.49021555555555555555552".parse().unwrap();
    assert_eq!(nearest, 9.490215555555556);
    assert_eq!(pins[0].compile_s.to_bits(), nearest.to_bits());
    let written = pins_to_json(&pins);
    assert_eq!(pins_file("pins.json", written.as_bytes()), pins);

    let deps = normal_dependencies();
    let serde_json = deps
        .lines()
        .find(|l| l.starts_with("serde_json"))
        .expect("serde_json is a dependency of the library");
    assert!(
        serde_json.contains("float_roundtrip"),
        "the library's own serde_json must parse floats correctly rounded: {serde_json}"
    );
}

/// Fuzz target `chrome_json` (round trip), minimized to
/// `tests/fuzz/regressions/kineto_base_time_past_range.json`: the importer drops timestamps
/// beyond ±2^61 ns (`timestamp_out_of_range`), but checks each event's own `ts` before adding
/// the Kineto `baseTimeNanoseconds`, so `ts` 2e18 ns + base 2e18 ns keeps a slice at 4e18 ns
/// (year 2096), which the same importer drops once the time is written absolutely. Fixed: a
/// base that would put any time beyond the bound is ignored (the times stay relative), counted
/// as one `timestamp_out_of_range`.
#[test]
fn kineto_base_time_keeps_timestamps_in_range() {
    let bytes = regression("kineto_base_time_past_range.json");
    let m = trialscope::formats::import("trace.json", &bytes)
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    let bound = 1i64 << 61;
    let beyond: Vec<i64> = m
        .slices
        .ts_ns
        .iter()
        .copied()
        .filter(|t| !(-bound..=bound).contains(t))
        .collect();
    assert!(beyond.is_empty(), "slices kept beyond ±2^61 ns: {beyond:?}");
    let dropped = m
        .diagnostics
        .entries()
        .iter()
        .find(|d| d.kind == "timestamp_out_of_range")
        .map_or(0, |d| d.count);
    assert_eq!(dropped, 1, "{:?}", m.diagnostics);
}

/// Fuzz target `chrome_json` (round trip, CI run of 2026-12-01): a slice at −5 µs was kept in
/// a trace whose span (other events, on tracks the round trip does not re-encode) is long, and
/// dropped on re-import, where only the thread slices — spanning 0.5 µs — remain. Not an
/// importer bug: `timestamp_implausible` is relative to the whole trace's span, by definition;
/// the fuzz invariant now applies that rule to the re-encoded rows. This pins the definition.
#[test]
fn implausible_timestamps_are_judged_against_the_whole_trace_span() {
    let long = br#"{"traceEvents":[
        {"ph":"X","name":"neg","pid":2,"tid":2,"ts":-5,"dur":1},
        {"ph":"X","name":"a","pid":2,"tid":2,"ts":0,"dur":0.5},
        {"ph":"b","cat":"c","id":"1","name":"async","pid":2,"tid":2,"ts":0},
        {"ph":"e","cat":"c","id":"1","name":"async","pid":2,"tid":2,"ts":1000}]}"#;
    let m = trialscope::formats::import("long.json", long)
        .unwrap()
        .model;
    assert_eq!(m.diagnostics.count("timestamp_implausible"), 0);
    assert!((0..m.slices.len()).any(|i| m.slices.ts_ns[i] == -5000));
    let short = br#"{"traceEvents":[
        {"ph":"X","name":"neg","pid":2,"tid":2,"ts":-5,"dur":1},
        {"ph":"X","name":"a","pid":2,"tid":2,"ts":0,"dur":0.5}]}"#;
    let m = trialscope::formats::import("short.json", short)
        .unwrap()
        .model;
    assert_eq!(m.diagnostics.count("timestamp_implausible"), 1);
    assert!(!(0..m.slices.len()).any(|i| m.slices.ts_ns[i] == -5000));
}

/// Fuzz target `load` (CI run of 2026-12-01), `load_corrupt_gzip_crc_after_the_last_event.bin`:
/// a gzip file whose checksum is corrupt. Read plain, the importer finished at the JSON's end
/// and the break showed only while the rest was drained for the hash, where it was ignored;
/// wrapped in one more gzip layer, the same break showed while importing and was reported. Now
/// a break found while draining is reported too: both loads say `compressed_stream_truncated`.
#[test]
fn a_corrupt_checksum_after_the_last_event_is_reported_plain_or_wrapped() {
    use std::io::Write;
    let input = regression("load_corrupt_gzip_crc_after_the_last_event.bin");
    let data = &input[1..]; // the target's first byte picks the name: 0 = trace.json
    let plain = trialscope::formats::import("trace.json", data)
        .unwrap()
        .model;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).unwrap();
    let wrapped = trialscope::formats::import("trace.json", &gz.finish().unwrap())
        .unwrap()
        .model;
    assert_eq!(plain.diagnostics.count("compressed_stream_truncated"), 1);
    assert_eq!(
        format!("{:?}", plain.diagnostics.entries()),
        format!("{:?}", wrapped.diagnostics.entries())
    );
    assert_eq!(plain.slices.len(), wrapped.slices.len());
}

/// Fuzz target `chrome_json`, `tests/fuzz/regressions/chrome_json_number_cut_by_the_end.json`
/// (found by CI): a `traceEvents` array whose last element, the number `0`, runs into the end
/// of the file. Read as it is, the number may have been cut (`json_truncated_event`); with
/// three spaces after it, the number was read whole, counted as `event_not_an_object`, and
/// the array as unterminated. Trailing white space must not change the model: the importer
/// now reads the end of the stream without it, so both say `json_truncated_event`. The same
/// holds for a literal cut by the end (`tru`).
#[test]
fn trailing_white_space_does_not_change_an_element_cut_by_the_end() {
    let import = |data: &[u8]| {
        let mut m = trialscope::model::Model::default();
        trialscope::formats::testing::chrome_json_import(data, "fuzz.json", &mut m, &mut |_| {})
            .unwrap();
        m.diagnostics
            .entries()
            .iter()
            .map(|d| (d.kind, d.severity, d.count))
            .collect::<Vec<_>>()
    };
    let found = regression("chrome_json_number_cut_by_the_end.json");
    let cases: [&[u8]; 3] = [
        &found,
        b"[{\"ph\":\"i\",\"ts\":1,\"name\":\"a\"},tru",
        b"[1,2",
    ];
    for data in cases {
        let plain = import(data);
        for pad in [&b"   "[..], b"\n", b" \r\n\t "] {
            let padded = import(&[data, pad].concat());
            assert_eq!(
                plain,
                padded,
                "{:?} + {pad:?}",
                String::from_utf8_lossy(data)
            );
        }
        assert!(
            plain
                .iter()
                .any(|d| d.0 == trialscope::model::diagnostics::Kind::JsonTruncatedEvent),
            "{plain:?}"
        );
    }
}
