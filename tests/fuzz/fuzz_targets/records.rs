//! Compile-record reader on any bytes: no panic, and the same bytes read the same twice.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trialscope::formats::testing::parse_records;

fuzz_target!(|data: &[u8]| {
    let a = parse_records("fuzz.jsonl", data).map(|f| format!("{f:?}"));
    let b = parse_records("fuzz.jsonl", data).map(|f| format!("{f:?}"));
    match (a, b) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "record reading is not deterministic"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("record reading is not deterministic"),
    }
});
