//! Chrome Trace Event JSON importer on any bytes: no panic; the same bytes import to the same
//! model twice; trailing spaces change nothing (but the byte offset of a diagnostic at
//! the end of the data); the thread slices survive a re-encoding as Chrome JSON unchanged (the
//! round trip of `trialscope_fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trialscope_fuzz::{assert_round_trip, dump_without_offsets, full_dump, import_chrome_json};

fuzz_target!(|data: &[u8]| {
    let Ok(a) = import_chrome_json(data) else {
        return;
    };
    let again = import_chrome_json(data).expect("the same bytes imported once");
    assert_eq!(
        full_dump(&a),
        full_dump(&again),
        "import is not deterministic"
    );
    let mut padded = data.to_vec();
    // Spaces only: inside a string the writer never closed, a tab or newline would be a
    // (counted) control character of that string.
    padded.extend_from_slice(b"   ");
    let padded = import_chrome_json(&padded).expect("trailing spaces made the file unreadable");
    assert_eq!(
        dump_without_offsets(&a),
        dump_without_offsets(&padded),
        "trailing spaces changed the model"
    );
    assert_round_trip(&a);
});
