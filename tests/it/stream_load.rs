//! The streaming load path (issue #9): a file read in chunks of any size, compressed or not,
//! loads exactly as when it is read whole — the same kind, source (sizes, artifact id,
//! compression) and content — for every kind of file the sniffer tells apart.

use std::io::Write;

use flate2::write::GzEncoder;
use trialscope::formats::{self, Chunked, LoadOptions, Loaded};

use crate::support::{read_corpus, telemetry::Record};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Everything a load produced, as text (the model of a trace is summarised by its counts and
/// diagnostics here; the importers' own chunk tests compare full model dumps).
fn fingerprint(l: &Loaded) -> String {
    match l {
        Loaded::Trace(a) => {
            let m = &a.model;
            format!(
                "trace {} {} {} {:?} {:?} slices={} counters={} tracks={} diags={:?} stats={:?}",
                a.name,
                a.size_bytes,
                a.artifact_id,
                a.format,
                a.compression,
                m.slices.len(),
                m.counters.len(),
                m.tracks.len(),
                m.diagnostics,
                m.stats
            )
        }
        // The string table's hash index prints in hash order: leave it out (the strings
        // themselves, in id order, stay).
        other => regex::Regex::new(r"index: \{[^}]*\}")
            .unwrap()
            .replace_all(&format!("{other:?}"), "index: …")
            .into_owned(),
    }
}

fn check(name: &str, bytes: &[u8]) {
    let whole = formats::load(name, bytes, &LoadOptions::default(), &mut |_| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = fingerprint(&whole);
    assert!(
        want.contains(&formats::artifact_id(bytes)),
        "{name}: the artifact id is the hash of the bytes as dropped"
    );
    for chunk in [1, 7, 65_536] {
        let src = Chunked { bytes, chunk };
        let got = formats::load_from(name, &src, &LoadOptions::default(), &mut |_| {})
            .unwrap_or_else(|e| panic!("{name} in chunks of {chunk}: {e}"));
        assert_eq!(fingerprint(&got), want, "{name} in chunks of {chunk}");
    }
    same_when_the_caller_hashes(name, bytes, &want);
}

/// With [`LoadOptions::hash`] false (the browser worker hashes with Web Crypto beside the
/// import), the load leaves the artifact id empty and is otherwise the same; the caller's id,
/// set with `set_artifact_id`, gives the very result of a load that hashed.
fn same_when_the_caller_hashes(name: &str, bytes: &[u8], want: &str) {
    let id = formats::artifact_id(bytes);
    let opts = LoadOptions {
        hash: false,
        ..LoadOptions::default()
    };
    for chunk in [7, 65_536, bytes.len().max(1)] {
        let src = Chunked { bytes, chunk };
        let mut got = formats::load_from(name, &src, &opts, &mut |_| {})
            .unwrap_or_else(|e| panic!("{name} unhashed, in chunks of {chunk}: {e}"));
        let unset = fingerprint(&got);
        assert!(!unset.contains(&id), "{name}: no artifact id until set");
        assert_eq!(
            unset,
            want.replace(&id, ""),
            "{name} unhashed, chunks of {chunk}"
        );
        got.set_artifact_id(id.clone());
        assert_eq!(
            fingerprint(&got),
            want,
            "{name} unhashed, chunks of {chunk}"
        );
    }
}

/// A gzip trace whose CRC is broken reports the break (`compressed_stream_truncated`) whether
/// or not the load hashes, also when the importer stops reading before the end: the stream
/// is drained to its end either way. Here a Perfetto trace ends in bytes that are no packet
/// (`trace_framing_error`: the importer reads no further).
#[test]
fn a_break_after_the_importer_stopped_is_found_when_the_caller_hashes() {
    let gz = read_corpus("chromium_misc/startup_trace_n4000.pb.gz");
    let mut trace = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut trace).unwrap();
    trace.extend_from_slice(&[0u8; 4096]);
    let mut bytes = gzip(&trace);
    let n = bytes.len();
    bytes[n - 6] ^= 0xff; // inside the CRC-32 of the gzip trailer
    let name = "startup_trace_n4000.pb.gz";
    let whole = formats::load(name, &bytes, &LoadOptions::default(), &mut |_| {}).unwrap();
    let Loaded::Trace(a) = &whole else {
        panic!("not a trace")
    };
    let d = &a.model.diagnostics;
    assert_eq!(d.count("trace_framing_error"), 1, "{d:?}");
    assert_eq!(d.count("compressed_stream_truncated"), 1, "{d:?}");
    same_when_the_caller_hashes(name, &bytes, &fingerprint(&whole));
}

#[test]
fn every_kind_of_file_loads_the_same_in_any_chunks() {
    let records = read_corpus("jax_compile/version_bump.jsonl");
    check("version_bump.jsonl", &records);
    check("version_bump.jsonl.gz", &gzip(&records));
    let pins = br#"{"version": 1, "pins": [{"cell": "c", "transform": "t", "hardware": "h",
        "hostname": "n", "jax_version": "0.4", "precision": "full", "cache_state": "warm",
        "compile_s": 1.5, "source": "r.jsonl:1", "source_timestamp": "2026-01-01T00:00:00Z"}]}"#;
    check("pins.json", pins);
    let mut tel = String::new();
    for i in 0..200 {
        tel.push_str(
            &Record::sample(1_000 * i)
                .num("allocated_bytes", i * 10)
                .json(),
        );
        tel.push('\n');
    }
    check("rank0.telemetry.jsonl", tel.as_bytes());
    // Traces: a Kineto rank and a Chromium Perfetto trace, both gzipped as dropped.
    let kineto = read_corpus("torch_multirank/rank1.trace.json.gz");
    check("rank1.trace.json.gz", &kineto);
    let chromium = read_corpus("chromium_misc/startup_trace_n4000.pb.gz");
    check("startup_trace_n4000.pb.gz", &chromium);
    // A JSON trace whose `traceEvents` comes after the sniffer's 64 KiB head.
    let late = format!(
        r#"{{"otherData":"{}","traceEvents":[{{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}}]}}"#,
        "x".repeat(70_000)
    );
    check("late.json", late.as_bytes());
    check("late.json.gz", &gzip(late.as_bytes()));
}

#[test]
fn errors_are_the_same_in_any_chunks() {
    for (name, bytes) in [
        ("zeros.bin", vec![0u8; 100_000]),
        ("empty.json", Vec::new()),
        ("cut.json.gz", gzip(&[b' '; 10])[..8].to_vec()),
        // Binary with a line starting `{`: no JSON Lines (it read as an empty trace).
        ("x.bin", b"[\x8b\n{\xff\xfe".to_vec()),
    ] {
        let whole = formats::load(name, &bytes, &LoadOptions::default(), &mut |_| {})
            .expect_err(name)
            .to_string();
        if name == "cut.json.gz" {
            // Which layer broke off, and that the file may be cut off (not only the decoder's
            // "incomplete deflate stream").
            assert!(
                whole.contains("the gzip stream breaks off before any data (file cut off"),
                "{whole}"
            );
        }
        for chunk in [1, 7, 65_536] {
            let src = Chunked {
                bytes: &bytes,
                chunk,
            };
            let got = formats::load_from(name, &src, &LoadOptions::default(), &mut |_| {})
                .expect_err(name)
                .to_string();
            assert_eq!(got, whole, "{name} in chunks of {chunk}");
        }
    }
}

/// A gzip trace cut inside its header or first block fails, naming the file (a new user's
/// corpus trace cut to 10 and 20 bytes): read from a file (natively, inflated on the reading
/// thread) the error is the one of the bytes in memory.
#[test]
fn a_gzip_cut_before_any_data_fails_naming_the_layer() {
    let gz = crate::support::read_corpus("chromium_scaling/scaling_n1000_r0.pb.gz");
    for n in [10, 20] {
        let name = format!("cut{n}.pb.gz");
        let path =
            std::env::temp_dir().join(format!("trialscope-cut-{}-{name}", std::process::id()));
        std::fs::write(&path, &gz[..n]).unwrap();
        let src = formats::FileSource::new(&path).unwrap();
        let from_file = formats::load_from(&name, &src, &LoadOptions::default(), &mut |_| {})
            .expect_err(&name)
            .to_string();
        let _ = std::fs::remove_file(&path);
        let in_memory = formats::load(&name, &gz[..n], &LoadOptions::default(), &mut |_| {})
            .expect_err(&name)
            .to_string();
        assert!(
            from_file
                .contains("the gzip stream breaks off before any data (file cut off or corrupt)"),
            "{from_file}"
        );
        assert!(
            in_memory.contains("the gzip stream breaks off before any data"),
            "{in_memory}"
        );
    }
}
