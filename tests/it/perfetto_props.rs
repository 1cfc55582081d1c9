//! Robustness properties of the Perfetto importer: arbitrary bytes, and truncations and bit
//! flips of real traces, never panic and always finish (the importer only counts diagnostics).

use proptest::prelude::*;
use trialscope::formats::perfetto::proto::*;
use trialscope::formats::testing;
use trialscope::model::Model;

use crate::support::corpus;
use crate::support::perfetto::{frame, trace};

fn import(bytes: &[u8]) -> Model {
    let mut m = Model::default();
    testing::perfetto_import(bytes, &mut m, &mut |f| assert!((0.0..=1.0).contains(&f)));
    m
}

/// A small trace exercising interning, an incremental µs clock, nested compressed packets,
/// counters and debug annotations, built with the crate's prost structs.
fn synthetic() -> Vec<u8> {
    use std::io::Write;
    let seq = |p: TracePacket| TracePacket {
        trusted_packet_sequence_id: Some(1),
        ..p
    };
    let inner = trace(&[seq(TracePacket {
        timestamp: Some(7),
        sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
        track_event: Some(TrackEvent {
            r#type: Some(2),
            ..Default::default()
        }),
        ..Default::default()
    })]);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&inner).unwrap();
    trace(&[
        TracePacket {
            clock_snapshot: Some(ClockSnapshot {
                clocks: vec![
                    Clock {
                        clock_id: Some(6),
                        timestamp: Some(1_000_000),
                        ..Default::default()
                    },
                    Clock {
                        clock_id: Some(3),
                        timestamp: Some(900_000),
                        ..Default::default()
                    },
                ],
                primary_trace_clock: Some(6),
            }),
            ..Default::default()
        },
        seq(TracePacket {
            sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(5),
                thread: Some(Box::new(ThreadDescriptor {
                    pid: Some(1),
                    tid: Some(2),
                    thread_name: Some(b"main".to_vec()),
                    ..Default::default()
                })),
                ..Default::default()
            }),
            trace_packet_defaults: Some(TracePacketDefaults {
                timestamp_clock_id: Some(64),
                track_event_defaults: Some(TrackEventDefaults {
                    track_uuid: Some(5),
                    extra_counter_track_uuids: vec![9],
                    ..Default::default()
                }),
            }),
            clock_snapshot: Some(ClockSnapshot {
                clocks: vec![
                    Clock {
                        clock_id: Some(3),
                        timestamp: Some(950_000),
                        ..Default::default()
                    },
                    Clock {
                        clock_id: Some(64),
                        timestamp: Some(950),
                        is_incremental: Some(true),
                        unit_multiplier_ns: Some(1000),
                    },
                ],
                primary_trace_clock: None,
            }),
            interned_data: Some(InternedData {
                event_names: vec![InternedName {
                    iid: Some(1),
                    name: Some(b"work".to_vec()),
                }],
                ..Default::default()
            }),
            ..Default::default()
        }),
        TracePacket {
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(9),
                parent_uuid: Some(5),
                counter: Some(Box::new(CounterDescriptor {
                    unit: Some(3),
                    is_incremental: Some(true),
                    ..Default::default()
                })),
                ..Default::default()
            }),
            ..Default::default()
        },
        seq(TracePacket {
            timestamp: Some(3),
            sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
            track_event: Some(TrackEvent {
                r#type: Some(1),
                name_iid: Some(1),
                extra_counter_values: vec![4],
                debug_annotations: vec![DebugAnnotation {
                    name: Some(b"n".to_vec()),
                    dict_entries: vec![DebugAnnotation {
                        name: Some(b"k".to_vec()),
                        int_value: Some(1),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        }),
        TracePacket {
            compressed_packets: Some(z.finish().unwrap()),
            ..Default::default()
        },
    ])
}

fn real_small() -> Vec<u8> {
    std::fs::read(corpus("public/winscope/input-events.perfetto-trace")).unwrap()
}

#[test]
fn synthetic_trace_is_whole_before_mutation() {
    let m = import(&synthetic());
    assert_eq!(m.slices.len(), 1);
    assert_eq!(m.str(m.slices.name[0]), "work");
    // BEGIN at clock 64: 950 µs + 3 µs → MONOTONIC 953_000 → BOOTTIME 1_053_000; the END in the
    // compressed bundle adds 7 µs.
    assert_eq!((m.slices.ts_ns[0], m.slices.dur_ns[0]), (1_053_000, 7_000));
    assert_eq!(m.counters[0].value, vec![4.0]);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics.entries());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = import(&bytes);
        let _ = testing::looks_like_trace(&bytes);
        let _ = testing::looks_like_xspace(&bytes);
    }

    #[test]
    fn packet_framed_garbage_never_panics(
        bodies in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..20)
    ) {
        let mut bytes = Vec::new();
        for b in bodies {
            frame(&b, &mut bytes);
        }
        let m = import(&bytes);
        prop_assert!(m.slices.len() <= bytes.len());
    }

    #[test]
    fn truncations_and_bit_flips_never_panic(
        which in 0usize..2,
        cut in any::<prop::sample::Index>(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 0..8),
    ) {
        let mut bytes = if which == 0 { synthetic() } else { real_small() };
        for (at, bit) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        let len = cut.index(bytes.len() + 1);
        bytes.truncate(len);
        let _ = import(&bytes);
        let _ = trialscope::formats::import("fuzz.pftrace", &bytes);
    }
}
