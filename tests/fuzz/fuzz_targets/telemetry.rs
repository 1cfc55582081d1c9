//! Memory telemetry reader on any bytes: no panic; every model it returns has its counter
//! samples in ts order with as many values as timestamps.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trialscope::formats::testing::{looks_like_telemetry, telemetry_import};

fuzz_target!(|data: &[u8]| {
    let _ = looks_like_telemetry(data);
    let Ok(t) = telemetry_import("fuzz.jsonl", data) else {
        return;
    };
    for m in &t.models {
        for c in &m.counters {
            assert_eq!(
                c.ts_ns.len(),
                c.value.len(),
                "counter columns differ in length"
            );
            assert!(
                c.ts_ns.windows(2).all(|w| w[0] <= w[1]),
                "counter samples out of ts order"
            );
        }
    }
});
