//! Perfetto protobuf importer on any bytes: no panic; the same bytes import to the same model
//! twice; the thread slices survive a re-encoding as Chrome JSON unchanged (the round trip of
//! `trialscope_fuzz`: the differential of `tests/it/json_vs_perfetto.rs`, on fuzzed input).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trialscope_fuzz::{assert_round_trip, full_dump, import_perfetto};

fuzz_target!(|data: &[u8]| {
    let a = import_perfetto(data);
    let again = import_perfetto(data);
    assert_eq!(
        full_dump(&a),
        full_dump(&again),
        "import is not deterministic"
    );
    assert_round_trip(&a);
});
