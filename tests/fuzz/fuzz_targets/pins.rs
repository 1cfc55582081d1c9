//! Pins reader on any bytes: no panic, and pins it reads survive a round trip through the
//! writer (`records::pins_to_json`) unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trialscope::formats::records::pins_to_json;
use trialscope::formats::testing::parse_pins;

fuzz_target!(|data: &[u8]| {
    let Ok(pins) = parse_pins(data) else {
        return;
    };
    let text = pins_to_json(&pins);
    let back = parse_pins(text.as_bytes())
        .unwrap_or_else(|e| panic!("pins written by pins_to_json do not read back: {e}\n{text}"));
    assert_eq!(pins, back, "pins changed in the round trip\n{text}");
});
