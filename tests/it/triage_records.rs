//! Record files through the `trialscope triage` / `pin` binary: malformed and other-kind records
//! are listed with file and line, a broken file does not stop the others, and inputs are never
//! written. The good rows are real records copied from `corpus/jax_compile/baseline.jsonl` and
//! `cache_regression.jsonl`.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use trialscope::analysis::compile_triage;
use trialscope::formats::records;

use crate::support::corpus;

const BIN: &str = env!("CARGO_BIN_EXE_trialscope");

fn corpus_lines(set: &str) -> Vec<String> {
    let p = corpus(&format!("jax_compile/{set}.jsonl"));
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn dir(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "trialscope_triage_rec_{}_{test}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The warm baseline row and the cache_regression warm row of the same key (attention_l4, fp32).
fn rows() -> (String, String) {
    let pick = |set: &str| {
        corpus_lines(set)
            .into_iter()
            .find(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["cell"] == "attention_l4"
                    && v["precision"] == "fp32"
                    && v["cache_state"] == "warm"
            })
            .unwrap()
    };
    (pick("baseline"), pick("cache_regression"))
}

#[test]
fn malformed_and_other_kind_are_listed_and_a_broken_file_does_not_stop_the_others() {
    let d = dir("listing");
    let (base, regressed) = rows();
    let base_file = d.join("base.jsonl");
    std::fs::write(&base_file, format!("{base}\n")).unwrap();
    let mixed = d.join("mixed.jsonl");
    // Line 1: a real regressed row; 2: another kind of record sharing the folder; 3: the
    // regressed row without hostname; 4: not JSON; 5: blank; 6: a JSON array of records in a
    // JSONL line (not an object).
    let v: Value = serde_json::from_str(&regressed).unwrap();
    let mut no_host = v.clone();
    no_host.as_object_mut().unwrap().remove("hostname");
    std::fs::write(
        &mixed,
        format!("{regressed}\n{{\"kind\":\"gc_stats\",\"bytes\":12}}\n{no_host}\n{{oops\n\n[1]\n"),
    )
    .unwrap();
    let broken = d.join("broken.jsonl.gz");
    std::fs::write(&broken, [0x1f, 0x8b, 0x08, 0x00, 0x01]).unwrap();
    let missing = d.join("does_not_exist.jsonl");
    let pins = d.join("pins.json");
    let before_base = std::fs::read(&base_file).unwrap();
    let before_mixed = std::fs::read(&mixed).unwrap();

    let (code, _, err) = run(&[
        "pin",
        "--out",
        pins.to_str().unwrap(),
        base_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&[
        "triage",
        "--json",
        "--min-abs-s",
        "0.05",
        "--pins",
        pins.to_str().unwrap(),
        broken.to_str().unwrap(),
        mixed.to_str().unwrap(),
        missing.to_str().unwrap(),
    ]);
    // Exit 1 because two files failed; the report of the others is still printed.
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("broken.jsonl.gz"), "{err}");
    assert!(err.contains("does_not_exist.jsonl"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failed_files"].as_array().unwrap().len(), 2);
    let f = v["findings"].as_array().unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["classification"], "cache-regression");
    assert!(f[0]["location"]["text"]
        .as_str()
        .unwrap()
        .ends_with("/mixed.jsonl:1"));
    let other = v["excluded"]["other_kind"].as_array().unwrap();
    assert_eq!(other.len(), 1);
    assert_eq!(other[0]["location"]["line"], 2);
    let bad = v["excluded"]["malformed"].as_array().unwrap();
    let lines: Vec<u64> = bad
        .iter()
        .map(|b| b["location"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![3, 4, 6]);
    assert_eq!(bad[0]["reason"], "missing hostname");
    assert!(bad[1]["reason"].as_str().unwrap().starts_with("not JSON"));
    // Inputs untouched.
    assert_eq!(std::fs::read(&base_file).unwrap(), before_base);
    assert_eq!(std::fs::read(&mixed).unwrap(), before_mixed);

    // The text report lists them too.
    let (_, text, _) = run(&[
        "triage",
        "--pins",
        pins.to_str().unwrap(),
        mixed.to_str().unwrap(),
    ]);
    assert!(text.contains("Excluded as other-kind (1)"), "{text}");
    assert!(text.contains("mixed.jsonl:3: missing hostname"), "{text}");
}

#[test]
fn pin_refuses_to_overwrite_an_input_and_bad_pins_fail_loudly() {
    let d = dir("pin");
    let (base, _) = rows();
    let base_file = d.join("base.jsonl");
    std::fs::write(&base_file, format!("{base}\n")).unwrap();
    let before = std::fs::read(&base_file).unwrap();
    let (code, _, err) = run(&[
        "pin",
        "--out",
        base_file.to_str().unwrap(),
        base_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("never writes its inputs"), "{err}");
    assert_eq!(std::fs::read(&base_file).unwrap(), before);

    // A pins file with a bad entry is an error, not a silently smaller baseline.
    let pins = d.join("bad_pins.json");
    std::fs::write(&pins, r#"{"pins":[{"cell":"a","compile_s":1}]}"#).unwrap();
    let (code, _, err) = run(&[
        "triage",
        "--pins",
        pins.to_str().unwrap(),
        base_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("pin 0"), "{err}");
}

#[test]
fn array_and_records_object_containers_give_the_same_findings() {
    let d = dir("containers");
    let (base, regressed) = rows();
    let pins = d.join("pins.json");
    let base_file = d.join("base.json");
    std::fs::write(&base_file, format!("[{base}]")).unwrap();
    let (code, _, err) = run(&[
        "pin",
        "--out",
        pins.to_str().unwrap(),
        base_file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let obj = d.join("reg.json");
    std::fs::write(&obj, format!("{{\"records\":[{regressed}]}}")).unwrap();
    let (code, out, err) = run(&[
        "triage",
        "--json",
        "--min-abs-s",
        "0.05",
        "--pins",
        pins.to_str().unwrap(),
        obj.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["counts"]["cache-regression"], 1);
    // Locations name the file as given on the command line (its path).
    assert!(v["findings"][0]["location"]["text"]
        .as_str()
        .unwrap()
        .ends_with("/reg.json[0]"));
    assert_eq!(v["findings"][0]["key"]["cell"], "attention_l4");
}

mod never_panics {
    use proptest::prelude::*;
    use trialscope::analysis::compile_triage::{self, Params};
    use trialscope::formats::{records, testing};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = testing::parse_records("x", &bytes);
            let _ = testing::parse_pins(&bytes);
        }

        #[test]
        fn arbitrary_record_lines(lines in proptest::collection::vec(
            r#"\{("(cell|transform|hardware|hostname|jax_version|precision|cache_state|compile_s|timestamp|load_avg_1m|persistent_cache_hits|host_state)": ?(1|-1|1e400|"warm"|"cold"|"x"|null|true|\{\}|\[\]|"2026-01-01T00:00:00Z"|0\.5), ?){0,9}"z":0\}"#,
            0..20,
        )) {
            let text = lines.join("\n");
            if let Ok(f) = testing::parse_records("x", text.as_bytes()) {
                let pins = compile_triage::pins_from_records(&f.records);
                let rep = compile_triage::run(&f.records, &pins, &Params::default());
                prop_assert_eq!(f.records.len() + f.other_kind.len() + f.malformed.len(), lines.len());
                prop_assert!(rep.findings.is_empty(), "rows equal to their own pin never drift");
            }
        }

        #[test]
        fn arbitrary_timestamps_never_panic(s in r"[0-9T:+\-Z. ]{0,40}") {
            if let Some(ns) = records::parse_iso8601(&s) {
                prop_assert_eq!(records::parse_iso8601(&records::format_iso8601_utc(ns)), Some(ns));
            }
        }

        /// Every generated ISO 8601 time parses (the assertion is reached on every case, unlike
        /// random text, which almost never passes the date prefix), and formatting it back gives
        /// the same instant; the offset moves the instant by exactly its minutes.
        #[test]
        fn generated_timestamps_parse_and_round_trip(
            y in 1971i32..2261,
            mo in 1u32..=12,
            d in 1u32..=28,
            h in 0u32..24,
            mi in 0u32..60,
            se in 0u32..60,
            frac in proptest::option::of(0u32..1_000_000_000),
            off in proptest::option::of(-840i32..=840),
        ) {
            let mut local = format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{se:02}");
            if let Some(f) = frac {
                local += &format!(".{f:09}");
            }
            let utc = records::parse_iso8601(&format!("{local}Z"));
            prop_assert!(utc.is_some(), "{local}Z must parse");
            let utc = utc.unwrap();
            prop_assert_eq!(utc.rem_euclid(1_000_000_000), i64::from(frac.unwrap_or(0)));
            prop_assert_eq!(records::parse_iso8601(&records::format_iso8601_utc(utc)), Some(utc));
            if let Some(o) = off {
                let sign = if o < 0 { '-' } else { '+' };
                let text = format!("{local}{sign}{:02}:{:02}", o.abs() / 60, o.abs() % 60);
                let shifted = records::parse_iso8601(&text);
                prop_assert_eq!(shifted, Some(utc - i64::from(o) * 60_000_000_000), "{}", text);
            }
        }
    }
}

/// Issue #10 row "a record with a numeric timestamp → `pin` → `triage --pins`: pins file
/// rejected": the record's time is kept as ISO 8601, so the pin made from it is written as ISO
/// 8601 and the pins file reads back with the same instant.
#[test]
fn numeric_record_timestamps_round_trip_through_pins() {
    let line = |ts: &str| {
        format!(
            "{{\"cell\":\"c\",\"transform\":\"jit\",\"hardware\":\"cpu\",\"hostname\":\"h\",\
             \"jax_version\":\"0.4\",\"precision\":\"fp32\",\"cache_state\":\"warm\",\
             \"compile_s\":1.5,\"timestamp\":{ts}}}\n"
        )
    };
    // 2026-11-29T10:27:01.5Z, as seconds since the epoch.
    let text = line("1795948021.5") + &line("1795948001");
    let f = crate::support::record_file("num.jsonl", text.as_bytes());
    assert!(f.malformed.is_empty(), "{:?}", f.malformed);
    assert_eq!(
        f.records[0].timestamp.as_ref().unwrap().text,
        "2026-11-29T10:27:01.500Z"
    );
    let pins = compile_triage::pins_from_records(&f.records);
    assert_eq!(pins.len(), 1);
    let json = records::pins_to_json(&pins);
    let back = crate::support::pins_file("pins.json", json.as_bytes());
    assert_eq!(back, pins, "the pins file reads back as written");
    assert_eq!(
        back[0].source_timestamp.as_ref().unwrap().unix_ns,
        1_795_948_021_500_000_000
    );
}

/// A time beyond what 64-bit nanoseconds hold is called out of range, not "not ISO 8601".
#[test]
fn far_future_timestamps_are_out_of_range_not_malformed_text() {
    let text = "{\"cell\":\"c\",\"transform\":\"jit\",\"hardware\":\"cpu\",\"hostname\":\"h\",\
                \"jax_version\":\"0.4\",\"precision\":\"fp32\",\"cache_state\":\"warm\",\
                \"compile_s\":1.5,\"timestamp\":\"9999-12-31T23:59:59Z\"}\n";
    let f = crate::support::record_file("far.jsonl", text.as_bytes());
    assert_eq!(f.malformed.len(), 1);
    let reason = &f.malformed[0].reason;
    assert!(reason.contains("out of range"), "{reason}");
    assert!(!reason.contains("not ISO 8601"), "{reason}");
    let f = crate::support::record_file(
        "bad.jsonl",
        text.replace("9999-12-31T23:59:59Z", "last tuesday")
            .as_bytes(),
    );
    assert!(f.malformed[0].reason.contains("not ISO 8601"));
}
