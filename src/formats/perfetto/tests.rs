//! Unit tests of the Perfetto importer on small traces encoded with the [`super::proto`] structs.

use std::io::Write;

use super::proto::*;
use crate::model::{ArgValue, Model, Severity, TrackKind};

fn import_bytes(bytes: &[u8]) -> Model {
    let mut m = Model::default();
    super::import(bytes, &mut m, &mut |_| {});
    m
}

fn import(packets: &[TracePacket]) -> Model {
    import_bytes(&encode_trace(packets))
}

fn name(iid: u64, s: &str) -> InternedName {
    InternedName {
        iid: Some(iid),
        name: Some(s.as_bytes().to_vec()),
    }
}

/// A thread track descriptor packet (uuid, pid, tid) on sequence `seq`.
fn thread_desc(seq: u32, uuid: u64, pid: i32, tid: i64, thread_name: &str) -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(seq),
        track_descriptor: Some(TrackDescriptor {
            uuid: Some(uuid),
            thread: Some(Box::new(ThreadDescriptor {
                pid: Some(pid),
                tid: Some(tid),
                thread_name: Some(thread_name.as_bytes().to_vec()),
                ..Default::default()
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A first packet of a sequence: CLEARED, defaults to `track_uuid`, optional interned names.
fn seq_start(seq: u32, track_uuid: u64, names: Vec<InternedName>) -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(seq),
        sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
        trace_packet_defaults: Some(TracePacketDefaults {
            timestamp_clock_id: None,
            track_event_defaults: Some(TrackEventDefaults {
                track_uuid: Some(track_uuid),
                ..Default::default()
            }),
        }),
        interned_data: Some(InternedData {
            event_names: names,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn event(seq: u32, ts: u64, ty: i32, name_iid: Option<u64>) -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(seq),
        sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
        timestamp: Some(ts),
        track_event: Some(TrackEvent {
            r#type: Some(ty),
            name_iid,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn slice_names(m: &Model) -> Vec<(String, i64, i64)> {
    (0..m.slices.len())
        .map(|i| {
            (
                m.str(m.slices.name[i]).to_string(),
                m.slices.ts_ns[i],
                m.slices.dur_ns[i],
            )
        })
        .collect()
}

#[test]
fn interning_is_scoped_to_the_generation_after_a_clear() {
    let m = import(&[
        thread_desc(1, 10, 5, 6, "main"),
        seq_start(1, 10, vec![name(1, "first")]),
        event(1, 100, track_event_type::SLICE_BEGIN, Some(1)),
        event(1, 200, track_event_type::SLICE_END, None),
        // New generation: the same iid 1 now means "second".
        seq_start(1, 10, vec![name(1, "second")]),
        event(1, 300, track_event_type::SLICE_BEGIN, Some(1)),
        event(1, 450, track_event_type::SLICE_END, None),
    ]);
    assert_eq!(
        slice_names(&m),
        vec![("first".into(), 100, 100), ("second".into(), 300, 150)]
    );
    let t = m.track(m.slices.track[0]);
    assert_eq!(
        (t.kind, t.pid, t.tid),
        (TrackKind::Thread, Some(5), Some(6))
    );
    assert_eq!(m.str(m.threads[&6].name), "main");
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics.entries());
    assert_eq!(m.stats.events, 7);
}

#[test]
fn interned_entries_from_before_a_clear_are_gone() {
    let m = import(&[
        thread_desc(1, 10, 5, 6, "main"),
        seq_start(1, 10, vec![name(1, "old")]),
        seq_start(1, 10, vec![]),
        event(1, 100, track_event_type::INSTANT, Some(1)),
    ]);
    assert_eq!(slice_names(&m), vec![("".into(), 100, 0)]);
    assert_eq!(m.diagnostics.count("interned_id_unknown"), 1);
    let f = m.frames.get(m.slices.frame[0]);
    assert_eq!(f.unmatched, Some(crate::model::UnmatchedReason::NoName));
}

#[test]
fn incremental_microsecond_clock_with_unit_multiplier() {
    // Chromium pattern: a global snapshot (BOOTTIME, MONOTONIC, primary = MONOTONIC), and a
    // per-sequence snapshot {MONOTONIC = 5_000_000_250 ns, clock 64 = 5_000_000 µs,
    // incremental, unit 1000}; event timestamps are µs deltas on clock 64.
    let global = TracePacket {
        trusted_packet_sequence_id: Some(99),
        clock_snapshot: Some(ClockSnapshot {
            clocks: vec![
                Clock {
                    clock_id: Some(6),
                    timestamp: Some(7_000_000_000),
                    ..Default::default()
                },
                Clock {
                    clock_id: Some(3),
                    timestamp: Some(5_000_000_000),
                    ..Default::default()
                },
            ],
            primary_trace_clock: Some(3),
        }),
        ..Default::default()
    };
    let mut start = seq_start(1, 10, vec![name(1, "work")]);
    start
        .trace_packet_defaults
        .as_mut()
        .unwrap()
        .timestamp_clock_id = Some(64);
    start.clock_snapshot = Some(ClockSnapshot {
        clocks: vec![
            Clock {
                clock_id: Some(3),
                timestamp: Some(5_000_000_250),
                ..Default::default()
            },
            Clock {
                clock_id: Some(64),
                timestamp: Some(5_000_000),
                is_incremental: Some(true),
                unit_multiplier_ns: Some(1000),
            },
        ],
        primary_trace_clock: None,
    });
    let mut boot_instant = event(1, 7_000_000_900, track_event_type::INSTANT, Some(1));
    boot_instant.timestamp_clock_id = Some(6); // explicit BOOTTIME, absolute ns
    let m = import(&[
        global,
        thread_desc(1, 10, 1, 2, "t"),
        start,
        event(1, 10, track_event_type::SLICE_BEGIN, Some(1)), // +10 µs
        // A timestamped descriptor packet on the sequence also advances the clock (+5 µs).
        TracePacket {
            timestamp: Some(5),
            ..thread_desc(1, 10, 1, 2, "t")
        },
        event(1, 20, track_event_type::SLICE_END, None), // +20 µs
        boot_instant,
    ]);
    assert_eq!(
        slice_names(&m),
        vec![
            ("work".into(), 5_000_010_250, 25_000),
            ("work".into(), 5_000_000_900, 0)
        ]
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
    );
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics.entries());
}

#[test]
fn end_on_another_sequence_earlier_in_file_order_pairs_by_time() {
    // Two writers share track 10; the END (seq 2) is written before the BEGIN (seq 1).
    let m = import(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(2, 10, vec![]),
        event(2, 500, track_event_type::SLICE_END, None),
        seq_start(1, 10, vec![name(1, "late_begin")]),
        event(1, 100, track_event_type::SLICE_BEGIN, Some(1)),
    ]);
    assert_eq!(slice_names(&m), vec![("late_begin".into(), 100, 400)]);
    assert_eq!(m.diagnostics.count("end_without_begin"), 0);
}

#[test]
fn counters_with_units_increments_and_extra_values() {
    let counter = |uuid: u64, n: &str, unit: i32, mult: i64, incremental: bool| TracePacket {
        track_descriptor: Some(TrackDescriptor {
            uuid: Some(uuid),
            parent_uuid: Some(1),
            name: Some(n.as_bytes().to_vec()),
            counter: Some(Box::new(CounterDescriptor {
                unit: Some(unit),
                unit_multiplier: Some(mult),
                is_incremental: Some(incremental),
                ..Default::default()
            })),
            ..Default::default()
        }),
        ..Default::default()
    };
    let process = TracePacket {
        track_descriptor: Some(TrackDescriptor {
            uuid: Some(1),
            process: Some(Box::new(ProcessDescriptor {
                pid: Some(42),
                process_name: Some(b"renderer".to_vec()),
                ..Default::default()
            })),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut start = seq_start(1, 0, vec![]);
    start.trace_packet_defaults = Some(TracePacketDefaults {
        timestamp_clock_id: None,
        track_event_defaults: Some(TrackEventDefaults {
            track_uuid: None,
            extra_counter_track_uuids: vec![21],
            extra_double_counter_track_uuids: vec![22],
        }),
    });
    let counter_ev = |ts: u64, uuid: u64, v: i64| TracePacket {
        trusted_packet_sequence_id: Some(1),
        timestamp: Some(ts),
        track_event: Some(TrackEvent {
            r#type: Some(track_event_type::COUNTER),
            track_uuid: Some(uuid),
            counter_value: Some(v),
            ..Default::default()
        }),
        ..Default::default()
    };
    let with_extras = TracePacket {
        trusted_packet_sequence_id: Some(1),
        timestamp: Some(300),
        track_event: Some(TrackEvent {
            r#type: Some(track_event_type::INSTANT),
            track_uuid: Some(1),
            name: Some(b"tick".to_vec()),
            // Uses the defaults' uuids: 21 (int, incremental) and 22 (double).
            extra_counter_values: vec![5],
            extra_double_counter_values: vec![0.5],
            ..Default::default()
        }),
        ..Default::default()
    };
    let no_value = TracePacket {
        trusted_packet_sequence_id: Some(1),
        timestamp: Some(400),
        track_event: Some(TrackEvent {
            r#type: Some(track_event_type::COUNTER),
            track_uuid: Some(20),
            ..Default::default()
        }),
        ..Default::default()
    };
    let m = import(&[
        process,
        counter(20, "heap", 3, 1024, false),
        counter(21, "allocs", 2, 1, true),
        counter(22, "load", 0, 1, false),
        start,
        counter_ev(200, 20, 3), // file order ≠ time order
        counter_ev(100, 20, 2),
        counter_ev(100, 21, 10),
        with_extras,
        no_value,
        counter_ev(500, 999, 1), // unknown uuid
    ]);
    let by_name = |n: &str| m.counters.iter().find(|c| m.str(c.name) == n).unwrap();
    let heap = by_name("heap");
    assert_eq!(heap.ts_ns, vec![100, 200]);
    assert_eq!(heap.value, vec![2048.0, 3072.0]);
    assert_eq!(m.str(heap.unit), "bytes");
    assert_eq!(heap.pid, Some(42));
    let allocs = by_name("allocs");
    assert_eq!(allocs.ts_ns, vec![100, 300]);
    assert_eq!(allocs.value, vec![10.0, 15.0]); // incremental: 10, then +5
    assert_eq!(m.str(allocs.unit), "count");
    assert_eq!(by_name("load").value, vec![0.5]);
    assert_eq!(m.track(heap.track).kind, TrackKind::Counter);
    assert_eq!(m.str(m.processes[&42].name), "renderer");
    assert_eq!(m.diagnostics.count("counter_without_value"), 1);
    assert_eq!(m.diagnostics.count("track_uuid_unknown"), 1);
    // The instant carrying the extras landed on the process track.
    assert_eq!(slice_names(&m), vec![("tick".into(), 300, 0)]);
    assert_eq!(m.track(m.slices.track[0]).kind, TrackKind::Process);
}

#[test]
fn invalid_utf8_name_is_repaired_and_counted() {
    let mut ev = event(1, 10, track_event_type::INSTANT, None);
    ev.track_event.as_mut().unwrap().name = Some(b"bad\xff\xfename".to_vec());
    let m = import(&[thread_desc(1, 10, 1, 2, "t"), seq_start(1, 10, vec![]), ev]);
    assert_eq!(slice_names(&m)[0].0, "bad\u{fffd}\u{fffd}name");
    assert_eq!(m.diagnostics.count("invalid_utf8_repaired"), 1);
    assert!(!m.diagnostics.has_data_loss());
}

#[test]
fn unknown_iids_fall_back_to_unnamed_and_are_counted() {
    let mut ev = event(1, 10, track_event_type::SLICE_BEGIN, Some(7));
    {
        let te = ev.track_event.as_mut().unwrap();
        te.category_iids = vec![3];
        te.debug_annotations = vec![DebugAnnotation {
            name_iid: Some(4),
            int_value: Some(1),
            ..Default::default()
        }];
    }
    let m = import(&[thread_desc(1, 10, 1, 2, "t"), seq_start(1, 10, vec![]), ev]);
    assert_eq!(slice_names(&m), vec![("".into(), 10, -1)]);
    assert_eq!(m.diagnostics.count("interned_id_unknown"), 3);
    assert_eq!(m.diagnostics.count("slice_never_ended"), 1);
}

#[test]
fn previous_packet_dropped_invalidates_state_until_the_next_clear() {
    let mut lossy = event(1, 300, track_event_type::INSTANT, Some(1));
    lossy.previous_packet_dropped = Some(1);
    let m = import(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(1, 10, vec![name(1, "a")]),
        event(1, 100, track_event_type::INSTANT, Some(1)),
        lossy,                                             // dropped: needs state, invalid
        event(1, 400, track_event_type::INSTANT, Some(1)), // dropped too
        seq_start(1, 10, vec![name(1, "b")]),
        event(1, 500, track_event_type::INSTANT, Some(1)),
    ]);
    assert_eq!(
        slice_names(&m),
        vec![("a".into(), 100, 0), ("b".into(), 500, 0)]
    );
    assert_eq!(m.diagnostics.count("packet_loss"), 1);
    assert_eq!(
        m.diagnostics
            .count("incremental_state_invalid_packet_dropped"),
        2
    );
    assert!(m.diagnostics.has_data_loss());
    let d = m
        .diagnostics
        .entries()
        .iter()
        .find(|d| d.kind == "packet_loss")
        .unwrap();
    assert_eq!(d.severity, Severity::DataLoss);
    assert_eq!(d.first_index, Some(3));
}

#[test]
fn compressed_packets_nest_through_the_same_handler() {
    let zlib = |bytes: &[u8]| {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    };
    let gzip = |bytes: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    };
    let inner = encode_trace(&[
        seq_start(1, 10, vec![name(1, "inner")]),
        event(1, 100, track_event_type::SLICE_BEGIN, Some(1)),
    ]);
    // A zlib bundle holding a gzip bundle holding the END.
    let innermost = encode_trace(&[event(1, 250, track_event_type::SLICE_END, None)]);
    let mut middle = inner;
    middle.extend(encode_trace(&[TracePacket {
        compressed_packets: Some(gzip(&innermost)),
        ..Default::default()
    }]));
    let m = import(&[
        thread_desc(1, 10, 1, 2, "t"),
        TracePacket {
            compressed_packets: Some(zlib(&middle)),
            ..Default::default()
        },
        TracePacket {
            compressed_packets: Some(b"not zlib".to_vec()),
            ..Default::default()
        },
    ]);
    assert_eq!(slice_names(&m), vec![("inner".into(), 100, 150)]);
    // 3 outer + 3 in the zlib bundle + 1 in the gzip bundle.
    assert_eq!(m.stats.events, 7);
    assert_eq!(m.diagnostics.count("compressed_packets_corrupt"), 1);
}

#[test]
fn legacy_events_x_b_e_and_thread_descriptor_delta_timestamps() {
    let legacy = |phase: u8, delta_us: i64, dur_us: Option<i64>, n: Option<&str>| TracePacket {
        trusted_packet_sequence_id: Some(3),
        track_event: Some(TrackEvent {
            timestamp_delta_us: Some(delta_us),
            name: n.map(|s| s.as_bytes().to_vec()),
            categories: vec![b"b_cat".to_vec(), b"a_cat".to_vec()],
            legacy_event: Some(LegacyEvent {
                phase: Some(i32::from(phase)),
                duration_us: dur_us,
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let m = import(&[
        TracePacket {
            trusted_packet_sequence_id: Some(3),
            thread_descriptor: Some(ThreadDescriptor {
                pid: Some(7),
                tid: Some(8),
                thread_name: Some(b"legacy".to_vec()),
                reference_timestamp_us: Some(1_000),
                ..Default::default()
            }),
            ..Default::default()
        },
        legacy(b'X', 10, Some(30), Some("complete")), // 1010 µs, 30 µs
        legacy(b'B', 5, None, Some("open")),          // 1015 µs
        legacy(b'E', 20, None, None),                 // 1035 µs
        legacy(b'M', 0, None, Some("meta")),          // not imported
    ]);
    assert_eq!(
        slice_names(&m),
        vec![
            ("complete".into(), 1_010_000, 30_000),
            ("open".into(), 1_015_000, 20_000)
        ]
    );
    let t = m.track(m.slices.track[0]);
    assert_eq!(
        (t.kind, t.pid, t.tid),
        (TrackKind::Thread, Some(7), Some(8))
    );
    assert_eq!(m.str(m.slices.category[0]), "a_cat,b_cat");
    assert_eq!(m.slices.parent.get(1), Some(crate::model::SliceId(0)));
    assert_eq!(m.diagnostics.count("legacy_phase_unsupported"), 1);
}

#[test]
fn frames_carry_source_location_and_posted_from_and_args() {
    let mut start = seq_start(1, 10, vec![name(1, "ThreadControllerImpl::RunTask")]);
    {
        let i = start.interned_data.as_mut().unwrap();
        i.event_categories = vec![name(2, "toplevel")];
        i.debug_annotation_names = vec![name(3, "src")];
        i.debug_annotation_string_values = vec![name(4, "interned value")];
        i.log_message_body = vec![name(6, "hello log")];
        i.source_locations = vec![SourceLocation {
            iid: Some(5),
            file_name: Some(b"/home/ann/chromium/src/base/task/post.cc".to_vec()),
            function_name: Some(b"PostTask".to_vec()),
            line_number: Some(49),
        }];
    }
    let mut ev = event(1, 10, track_event_type::INSTANT, Some(1));
    {
        let te = ev.track_event.as_mut().unwrap();
        te.category_iids = vec![2];
        te.task_execution = Some(TaskExecution {
            posted_from_iid: Some(5),
        });
        te.source_location_iid = Some(5);
        te.log_message = Some(LogMessage {
            source_location_iid: None,
            body_iid: Some(6),
        });
        te.debug_annotations = vec![
            DebugAnnotation {
                name_iid: Some(3),
                string_value_iid: Some(4),
                ..Default::default()
            },
            DebugAnnotation {
                name: Some(b"dict".to_vec()),
                dict_entries: vec![DebugAnnotation {
                    name: Some(b"k".to_vec()),
                    array_values: vec![
                        DebugAnnotation {
                            int_value: Some(-1),
                            ..Default::default()
                        },
                        DebugAnnotation {
                            bool_value: Some(true),
                            ..Default::default()
                        },
                    ],
                    ..Default::default()
                }],
                ..Default::default()
            },
            DebugAnnotation {
                name: Some(b"ptr".to_vec()),
                pointer_value: Some(255),
                ..Default::default()
            },
        ];
    }
    let m = import(&[thread_desc(1, 10, 1, 2, "t"), start, ev]);
    let f = m.frames.get(m.slices.frame[0]);
    assert_eq!(m.str(f.key.name), "ThreadControllerImpl::RunTask");
    assert_eq!(m.str(f.key.category), "toplevel");
    assert_eq!(
        f.key.file.map(|s| m.str(s)),
        Some("chromium/src/base/task/post.cc")
    );
    assert_eq!(f.key.function.map(|s| m.str(s)), Some("PostTask"));
    assert_eq!(f.key.line, Some(49));
    assert_eq!(
        f.key.posted_from_file.map(|s| m.str(s)),
        Some("chromium/src/base/task/post.cc")
    );
    assert_eq!(
        f.key.posted_from_function.map(|s| m.str(s)),
        Some("PostTask")
    );
    assert!(f.unmatched.is_none());
    let args = m.args.get(m.slices.args[0]).to_vec();
    assert_eq!(m.str(args[0].0), "src");
    assert_eq!(
        args[0].1,
        ArgValue::Str(m.strings.find("interned value").unwrap())
    );
    assert_eq!(m.str(args[1].0), "dict");
    // Kept structured; its text is the JSON it stands for.
    let ArgValue::Nested(dict) = args[1].1 else {
        panic!("{:?}", args[1].1)
    };
    assert_eq!(m.args.nested_text(dict, &m.strings), r#"{"k":[-1,true]}"#);
    assert_eq!(args[2].1, ArgValue::Text("0xff".to_string()));
    assert_eq!(m.str(args[3].0), "log_message.body");
    assert_eq!(
        args[3].1,
        ArgValue::Str(m.strings.find("hello log").unwrap())
    );
}

#[test]
fn truncated_last_record_is_data_loss_not_an_error() {
    let bytes = encode_trace(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(1, 10, vec![name(1, "kept")]),
        event(1, 10, track_event_type::INSTANT, Some(1)),
        event(1, 20, track_event_type::INSTANT, Some(1)),
    ]);
    let m = import_bytes(&bytes[..bytes.len() - 3]);
    assert_eq!(slice_names(&m), vec![("kept".into(), 10, 0)]);
    assert_eq!(m.diagnostics.count("truncated_packet"), 1);
    assert!(m.diagnostics.has_data_loss());
    assert_eq!(m.stats.events, 3);
}

#[test]
fn undecodable_packet_is_skipped_and_the_rest_imported() {
    let mut bytes = encode_trace(&[thread_desc(1, 10, 1, 2, "t"), seq_start(1, 10, vec![])]);
    // A packet whose field 11 (track_event) claims 50 bytes but holds 2.
    bytes.extend_from_slice(&[0x0a, 0x04, 0x5a, 0x32, 0x08, 0x01]);
    bytes.extend(encode_trace(&[TracePacket {
        trusted_packet_sequence_id: Some(1),
        timestamp: Some(5),
        track_event: Some(TrackEvent {
            r#type: Some(track_event_type::INSTANT),
            name: Some(b"after".to_vec()),
            ..Default::default()
        }),
        ..Default::default()
    }]));
    // Top-level fields other than `packet` and zero-length packets are skipped.
    bytes.extend_from_slice(&[0x10, 0x05, 0x0a, 0x00]);
    let m = import_bytes(&bytes);
    assert_eq!(slice_names(&m), vec![("after".into(), 5, 0)]);
    assert_eq!(m.diagnostics.count("packet_decode_error"), 1);
}

#[test]
fn sniffing_tells_traces_from_xspace() {
    let trace = encode_trace(&[thread_desc(1, 10, 1, 2, "t")]);
    assert!(super::looks_like_trace(&trace));
    assert!(!super::looks_like_xspace(&trace));
    let plane = XPlane {
        id: Some(1),
        name: Some(b"/host:CPU".to_vec()),
    };
    let mut xspace = vec![0x0a];
    let body = prost::Message::encode_to_vec(&plane);
    prost::encoding::encode_varint(body.len() as u64, &mut xspace);
    xspace.extend(body);
    assert!(super::looks_like_xspace(&xspace));
    assert!(!super::looks_like_trace(&xspace));
    assert!(!super::looks_like_trace(b"\n{\"traceEvents\":[]}"));
    assert!(!super::looks_like_trace(b""));
}

#[test]
fn service_mark_on_first_packet_of_a_sequence_is_not_loss() {
    // The tracing service sets previous_packet_dropped on the first packet of every sequence.
    let mut first = thread_desc(4, 10, 1, 2, "t");
    first.previous_packet_dropped = Some(1);
    let mut first_cleared = seq_start(5, 10, vec![name(1, "x")]);
    first_cleared.previous_packet_dropped = Some(1);
    let m = import(&[
        first,
        first_cleared,
        event(5, 10, track_event_type::INSTANT, Some(1)),
    ]);
    assert_eq!(slice_names(&m), vec![("x".into(), 10, 0)]);
    assert_eq!(m.diagnostics.count("packet_loss"), 0);
    assert!(!m.diagnostics.has_data_loss());
}

/// Nested debug annotations are read from the wire into structured values whose JSON text is
/// exactly what rendering the prost-decoded annotation gives (the importer's former path,
/// kept here as the reference): random trees of dicts, arrays, `NestedValue`s and every leaf
/// kind, past the 32-level cut, with repeated `nested_value` fields (merged by prost), leaf
/// values beside children, interned names and strings, invalid UTF-8.
#[test]
fn nested_annotations_read_from_the_wire_render_as_the_decoded_reference() {
    use prost::Message;
    use serde_json::Value;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }
    fn text(r: &mut Rng) -> Vec<u8> {
        match r.below(6) {
            0 => b"bad \xff utf8".to_vec(),
            1 => b"q\"\\\n\x01".to_vec(),
            2 => b"".to_vec(),
            _ => format!("s{}", r.below(5)).into_bytes(),
        }
    }
    fn nested(r: &mut Rng, depth: u32) -> NestedValue {
        let mut n = NestedValue::default();
        let kind = if depth > 36 { 0 } else { r.below(4) };
        match kind {
            1 => {
                n.nested_type = Some(1);
                for _ in 0..r.below(4) {
                    n.dict_keys.push(text(r));
                }
                for _ in 0..r.below(4) {
                    n.dict_values.push(nested(r, depth + 1));
                }
            }
            2 => {
                n.nested_type = Some(2);
                for _ in 0..r.below(3) {
                    n.array_values.push(nested(r, depth + 1));
                }
            }
            _ => match r.below(5) {
                0 => n.int_value = Some(r.next() as i64),
                1 => n.double_value = Some(f64::from_bits(r.next())),
                2 => n.bool_value = Some(r.below(2) == 1),
                3 => n.string_value = Some(text(r)),
                _ => {}
            },
        }
        n
    }
    fn leaf(r: &mut Rng, a: &mut DebugAnnotation) {
        match r.below(10) {
            0 => a.bool_value = Some(r.below(2) == 1),
            1 => a.uint_value = Some(r.next()),
            2 => a.int_value = Some(r.next() as i64),
            3 => a.double_value = Some(if r.below(4) == 0 { f64::NAN } else { 0.25 }),
            4 => a.string_value = Some(text(r)),
            5 => a.string_value_iid = Some(4 + r.below(2)),
            6 => a.pointer_value = Some(r.next()),
            7 => a.legacy_json_value = Some(text(r)),
            _ => {}
        }
    }
    fn ann(r: &mut Rng, depth: u32, named: bool) -> DebugAnnotation {
        let mut a = DebugAnnotation::default();
        if named {
            match r.below(3) {
                0 => a.name_iid = Some(3 + r.below(3) * 3),
                _ => a.name = Some(text(r)),
            }
        }
        let kind = if depth > 34 { 3 } else { r.below(5) };
        match kind {
            0 => {
                for _ in 0..1 + r.below(3) {
                    a.dict_entries.push(ann(r, depth + 1, true));
                }
            }
            1 => {
                for _ in 0..1 + r.below(3) {
                    a.array_values.push(ann(r, depth + 1, false));
                }
            }
            2 => a.nested_value = Some(nested(r, 0)),
            _ => {}
        }
        if kind == 3 || r.below(8) == 0 {
            leaf(r, &mut a);
        }
        a
    }
    /// The importer's former rendering of a decoded annotation (`annotation_json`).
    fn reference(a: &DebugAnnotation, depth: u32) -> Value {
        let name_of = |e: &DebugAnnotation| match (e.name_iid, &e.name) {
            (Some(3), _) => "src".to_string(),
            (Some(_), _) => String::new(),
            (None, Some(n)) => String::from_utf8_lossy(n).into_owned(),
            (None, None) => String::new(),
        };
        fn nested_ref(n: &NestedValue, depth: u32) -> Value {
            if depth > 32 {
                return Value::Null;
            }
            match n.nested_type.unwrap_or(0) {
                1 => Value::Object(
                    n.dict_keys
                        .iter()
                        .zip(&n.dict_values)
                        .map(|(k, v)| {
                            (
                                String::from_utf8_lossy(k).into_owned(),
                                nested_ref(v, depth + 1),
                            )
                        })
                        .fold(serde_json::Map::new(), |mut m, (k, v)| {
                            m.insert(k, v);
                            m
                        }),
                ),
                2 => Value::Array(
                    n.array_values
                        .iter()
                        .map(|v| nested_ref(v, depth + 1))
                        .collect(),
                ),
                _ => {
                    if let Some(v) = n.int_value {
                        v.into()
                    } else if let Some(v) = n.double_value {
                        serde_json::Number::from_f64(v)
                            .map(Value::Number)
                            .unwrap_or(Value::Null)
                    } else if let Some(v) = n.bool_value {
                        v.into()
                    } else if let Some(v) = &n.string_value {
                        String::from_utf8_lossy(v).into_owned().into()
                    } else {
                        Value::Null
                    }
                }
            }
        }
        if depth > 32 {
            return Value::Null;
        }
        if !a.dict_entries.is_empty() {
            let mut m = serde_json::Map::new();
            for e in &a.dict_entries {
                m.insert(name_of(e), reference(e, depth + 1));
            }
            return Value::Object(m);
        }
        if !a.array_values.is_empty() {
            return Value::Array(
                a.array_values
                    .iter()
                    .map(|e| reference(e, depth + 1))
                    .collect(),
            );
        }
        if let Some(n) = &a.nested_value {
            return nested_ref(n, 0);
        }
        if let Some(v) = a.bool_value {
            v.into()
        } else if let Some(v) = a.uint_value {
            v.into()
        } else if let Some(v) = a.int_value {
            v.into()
        } else if let Some(v) = a.double_value {
            serde_json::Number::from_f64(v)
                .map(Value::Number)
                .unwrap_or(Value::Null)
        } else if let Some(v) = &a.string_value {
            String::from_utf8_lossy(v).into_owned().into()
        } else if let Some(iid) = a.string_value_iid {
            if iid == 4 { "interned value" } else { "" }.into()
        } else if let Some(v) = a.pointer_value {
            format!("0x{v:x}").into()
        } else if let Some(v) = &a.legacy_json_value {
            String::from_utf8_lossy(v).into_owned().into()
        } else {
            "".into()
        }
    }
    fn field(num: u32, body: &[u8], out: &mut Vec<u8>) {
        prost::encoding::encode_varint(u64::from(num << 3 | 2), out);
        prost::encoding::encode_varint(body.len() as u64, out);
        out.extend_from_slice(body);
    }
    /// `n` encoded as a protozero writer does: each dict key beside its value (prost writes
    /// all keys, then all values), here with some out of turn and an unknown field between.
    fn interleaved(n: &NestedValue, r: &mut Rng, pairs: &mut usize) -> Vec<u8> {
        let mut out = NestedValue {
            nested_type: n.nested_type,
            ..Default::default()
        }
        .encode_to_vec();
        let (keys, values) = (&n.dict_keys, &n.dict_values);
        *pairs += keys.len().min(values.len());
        let (mut i, mut j) = (0, 0);
        while i < keys.len() || j < values.len() {
            // Mostly the list that is behind (k v k v …); one time in six the other one.
            let key_turn = i <= j;
            let take_key = j == values.len() || (i < keys.len() && (key_turn == (r.below(6) != 0)));
            if take_key {
                field(2, &keys[i], &mut out);
                i += 1;
            } else {
                field(3, &interleaved(&values[j], r, pairs), &mut out);
                j += 1;
            }
            if r.below(10) == 0 {
                prost::encoding::encode_varint(99 << 3, &mut out);
                prost::encoding::encode_varint(r.below(300), &mut out);
            }
        }
        for v in &n.array_values {
            field(4, &interleaved(v, r, pairs), &mut out);
        }
        let leaves = NestedValue {
            int_value: n.int_value,
            double_value: n.double_value,
            bool_value: n.bool_value,
            string_value: n.string_value.clone(),
            ..Default::default()
        };
        out.extend_from_slice(&leaves.encode_to_vec());
        out
    }

    let mut start = seq_start(1, 10, vec![name(1, "ev")]);
    {
        let i = start.interned_data.as_mut().unwrap();
        i.debug_annotation_names = vec![name(3, "src")];
        i.debug_annotation_string_values = vec![name(4, "interned value")];
    }
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut interleaved_dicts = 0;
    for round in 0..40 {
        let mut bytes = encode_trace(&[thread_desc(1, 10, 1, 2, "t"), start.clone()]);
        let mut anns: Vec<Vec<u8>> = Vec::new();
        for k in 0..30 {
            let mut a = ann(&mut r, 0, true);
            if k % 3 == 0 {
                a.leaf_clear();
            }
            // The annotation's own `NestedValue` written as protozero writes it (keys beside
            // values, at every level); those of its dict entries and array values (annotations
            // themselves) stay in prost's order (all keys, then all values).
            let protozero = a.nested_value.take();
            let mut b = a.encode_to_vec();
            if let Some(n) = &protozero {
                field(8, &interleaved(n, &mut r, &mut interleaved_dicts), &mut b);
            }
            // A repeated nested_value (prost merges the occurrences).
            if r.below(6) == 0 {
                field(8, &nested(&mut r, 0).encode_to_vec(), &mut b);
            }
            anns.push(b);
        }
        for (k, a) in anns.iter().enumerate() {
            let mut ev = TrackEvent {
                r#type: Some(track_event_type::INSTANT),
                name_iid: Some(1),
                ..Default::default()
            }
            .encode_to_vec();
            field(4, a, &mut ev);
            let mut p = TracePacket {
                trusted_packet_sequence_id: Some(1),
                sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
                timestamp: Some(100 + k as u64),
                ..Default::default()
            }
            .encode_to_vec();
            field(11, &ev, &mut p);
            field(1, &p, &mut bytes);
        }
        let m = import_bytes(&bytes);
        assert_eq!(m.slices.len(), anns.len(), "round {round}");
        for (k, a) in anns.iter().enumerate() {
            let full = DebugAnnotation::decode(&a[..]).unwrap();
            let got_args = m.args.get(m.slices.args[k]).to_vec();
            let got = &got_args[0].1;
            match got {
                ArgValue::Nested(id) => assert_eq!(
                    m.args.nested_text(*id, &m.strings),
                    reference(&full, 0).to_string(),
                    "round {round} annotation {k}: {full:?}"
                ),
                other => {
                    let leafy = full.bool_value.is_some()
                        || full.uint_value.is_some()
                        || full.int_value.is_some()
                        || full.double_value.is_some()
                        || full.string_value.is_some()
                        || full.string_value_iid.is_some()
                        || full.pointer_value.is_some()
                        || full.legacy_json_value.is_some()
                        || (full.dict_entries.is_empty()
                            && full.array_values.is_empty()
                            && full.nested_value.is_none());
                    assert!(
                        leafy,
                        "round {round} annotation {k}: {other:?} for {full:?}"
                    );
                }
            }
        }
    }
    // The protozero order was exercised (dict entries written that way, at any depth).
    assert!(interleaved_dicts >= 100, "{interleaved_dicts} dict entries");
}

impl DebugAnnotation {
    /// Clears the leaf value fields (test helper).
    fn leaf_clear(&mut self) {
        self.bool_value = None;
        self.uint_value = None;
        self.int_value = None;
        self.double_value = None;
        self.string_value = None;
        self.string_value_iid = None;
        self.pointer_value = None;
        self.legacy_json_value = None;
    }
}

/// The importer holds every track descriptor to the end: the rare parts stay boxed (136 bytes
/// on a 64-bit target; 368 unboxed).
#[test]
fn a_track_descriptor_is_small() {
    let n = std::mem::size_of::<TrackDescriptor>();
    assert!(n <= 17 * std::mem::size_of::<usize>(), "{n} bytes");
}

#[test]
fn pointer_text_matches_format() {
    let mut buf = [0u8; 18];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut checked = 0;
    for v in [0, 1, 0xf, 0x10, 0xff, 0x1234_5678, u64::MAX >> 4, u64::MAX]
        .into_iter()
        .chain((0..1000).map(|i| {
            x = super::splitmix(x.wrapping_add(i));
            x >> (x % 64)
        }))
    {
        assert_eq!(super::pointer_text(v, &mut buf), format!("0x{v:x}"));
        checked += 1;
    }
    assert_eq!(checked, 1008);
}

/// An instant at `ts` on sequence 1 whose one debug annotation names `name_iid` and carries
/// the interned string `value_iid`.
fn annotated(ts: u64, name_iid: u64, value_iid: u64) -> TracePacket {
    let mut ev = event(1, ts, track_event_type::INSTANT, Some(1));
    ev.track_event.as_mut().unwrap().debug_annotations = vec![DebugAnnotation {
        name_iid: Some(name_iid),
        string_value_iid: Some(value_iid),
        ..Default::default()
    }];
    ev
}

/// Interned data on sequence 1 (no clear): annotation names and annotation string values.
fn interned_args(names: Vec<InternedName>, values: Vec<InternedName>) -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(1),
        sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
        interned_data: Some(InternedData {
            debug_annotation_names: names,
            debug_annotation_string_values: values,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Each slice's args as (key, value text) pairs.
fn slice_args(m: &Model) -> Vec<Vec<(String, String)>> {
    (0..m.slices.len())
        .map(|i| {
            m.args
                .get(m.slices.args[i])
                .to_vec()
                .into_iter()
                .map(|(k, v)| {
                    let v = match v {
                        ArgValue::Str(s) => m.str(s).to_string(),
                        other => format!("{other:?}"),
                    };
                    (m.str(k).to_string(), v)
                })
                .collect()
        })
        .collect()
}

#[test]
fn repeated_annotations_share_a_set_until_their_iids_change_meaning() {
    let m = import(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(1, 10, vec![name(1, "ev")]),
        interned_args(vec![name(3, "k")], vec![name(4, "v1")]),
        annotated(100, 3, 4),
        annotated(200, 3, 4),
        // The same iids given other strings, without a clear: the same bytes now mean this.
        interned_args(vec![name(3, "k2")], vec![name(4, "v2")]),
        annotated(300, 3, 4),
        // Defined again with the strings they have: the meaning does not change.
        interned_args(vec![name(3, "k2")], vec![]),
        annotated(400, 3, 4),
        // A new generation.
        seq_start(1, 10, vec![name(1, "ev")]),
        interned_args(vec![name(3, "k3")], vec![name(4, "v3")]),
        annotated(500, 3, 4),
    ]);
    let pair = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    assert_eq!(
        slice_args(&m),
        vec![
            pair("k", "v1"),
            pair("k", "v1"),
            pair("k2", "v2"),
            pair("k2", "v2"),
            pair("k3", "v3"),
        ]
    );
    // Byte-identical annotations under unchanged iids share one set.
    assert_eq!(m.slices.args[0], m.slices.args[1]);
    assert_eq!(m.slices.args[2], m.slices.args[3]);
    assert_ne!(m.slices.args[1], m.slices.args[2]);
    assert_ne!(m.slices.args[3], m.slices.args[4]);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics.entries());
}

#[test]
fn repeated_annotations_with_an_unknown_iid_count_every_time() {
    let m = import(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(1, 10, vec![name(1, "ev")]),
        interned_args(vec![name(3, "k")], vec![]),
        annotated(100, 3, 9),
        annotated(200, 3, 9),
        annotated(300, 3, 9),
    ]);
    assert_eq!(m.diagnostics.count("interned_id_unknown"), 3);
    assert_eq!(m.slices.len(), 3);
}

#[test]
fn collective_markers_read_a_shared_arg_set_as_its_own() {
    use crate::analysis::collective_memory as cm;
    let named = |ts: u64, name_iid: u64, value_iid: u64| {
        let mut ev = annotated(ts, 3, value_iid);
        ev.track_event.as_mut().unwrap().name_iid = Some(name_iid);
        ev
    };
    let m = import(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(1, 10, vec![name(1, "ncclKernel"), name(2, "step")]),
        interned_args(
            vec![name(3, "op")],
            vec![name(4, "plain"), name(5, "all_reduce")],
        ),
        // A marker by its name; the next event shares its set, which holds no token.
        named(100, 1, 4),
        named(200, 2, 4),
        // A marker by its name whose set holds a token: the next one is a marker by its args.
        named(300, 1, 5),
        named(400, 2, 5),
        // Read first by a slice that is no marker by name.
        named(500, 2, 4),
        named(600, 2, 5),
    ]);
    assert_eq!(m.slices.args[0], m.slices.args[1]);
    assert_eq!(m.slices.args[2], m.slices.args[3]);
    let s = cm::series_from_model(&m, &cm::Mapping::default());
    let starts: Vec<i64> = s.markers.iter().map(|k| k.start_ns).collect();
    assert_eq!(starts, vec![100, 300, 400, 600]);
}

#[test]
fn the_args_cache_takes_an_entry_only_for_the_same_bytes() {
    use crate::model::ArgsId;
    let mut c = super::ArgsCache::default();
    // One key for all: as if different annotations collided in the hash.
    let key = (1, 42);
    let (ab, c1): (&[u8], &[u8]) = (b"ab", b"c");
    c.insert(key, &[ab, c1], ArgsId(7));
    assert_eq!(c.get(&key, &[ab, c1]), Some(ArgsId(7)));
    assert_eq!(c.get(&key, &[b"a", b"bc"]), None);
    assert_eq!(c.get(&key, &[ab, b"d"]), None);
    assert_eq!(c.get(&key, &[ab]), None);
    assert_eq!(c.get(&key, &[ab, c1, b""]), None);
    assert_eq!(c.get(&(2, 42), &[ab, c1]), None);
}

/// A packet on sequence 1 at `ts` whose `track_event` is `event` encoded, then `extra` (raw
/// `TrackEvent` fields appended to it).
fn event_with_raw_fields(ts: u64, event: TrackEvent, extra: &[u8]) -> Vec<u8> {
    use prost::Message;
    let mut body = event.encode_to_vec();
    body.extend_from_slice(extra);
    let mut packet = TracePacket {
        trusted_packet_sequence_id: Some(1),
        timestamp: Some(ts),
        ..Default::default()
    }
    .encode_to_vec();
    packet.push(0x5a); // field 11 (track_event), length-delimited
    prost::encoding::encode_varint(body.len() as u64, &mut packet);
    packet.extend_from_slice(&body);
    let mut out = vec![0x0a]; // Trace.packet
    prost::encoding::encode_varint(packet.len() as u64, &mut out);
    out.extend_from_slice(&packet);
    out
}

#[test]
fn extra_counter_values_read_alike_packed_unpacked_and_mixed() {
    // Sequence defaults name five counter tracks; each event gives values for them as
    // `extra_counter_values` (12): unpacked (one field per value, as proto2 writers such as
    // Chromium's protozero write them), packed, or both.
    let uuids = [21u64, 22, 23, 24, 25];
    let mut start = seq_start(1, 10, vec![name(1, "tick")]);
    start.trace_packet_defaults = Some(TracePacketDefaults {
        timestamp_clock_id: None,
        track_event_defaults: Some(TrackEventDefaults {
            track_uuid: Some(10),
            extra_counter_track_uuids: uuids.to_vec(),
            extra_double_counter_track_uuids: vec![],
        }),
    });
    let mut bytes = encode_trace(&[thread_desc(1, 10, 1, 2, "t")]);
    bytes.extend(encode_trace(
        &uuids
            .iter()
            .map(|&u| TracePacket {
                track_descriptor: Some(TrackDescriptor {
                    uuid: Some(u),
                    parent_uuid: Some(10),
                    name: Some(format!("c{u}").into_bytes()),
                    counter: Some(Box::new(CounterDescriptor::default())),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .collect::<Vec<_>>(),
    ));
    bytes.extend(encode_trace(&[start]));
    let unpacked = |values: &[u64]| -> Vec<u8> {
        let mut out = Vec::new();
        for &v in values {
            out.push(0x60); // field 12, varint
            prost::encoding::encode_varint(v, &mut out);
        }
        out
    };
    let packed = |values: &[u64]| -> Vec<u8> {
        let mut inner = Vec::new();
        for &v in values {
            prost::encoding::encode_varint(v, &mut inner);
        }
        let mut out = vec![0x62]; // field 12, length-delimited
        prost::encoding::encode_varint(inner.len() as u64, &mut out);
        out.extend(inner);
        out
    };
    let cases: Vec<Vec<u8>> = vec![
        unpacked(&[1]),
        unpacked(&[1, 2]),
        unpacked(&[1, 2, 3, 4]),
        unpacked(&[1, 2, 3, 4, 5]),
        packed(&[1, 2, 3]),
        [unpacked(&[1]), packed(&[2, 3])].concat(),
        [packed(&[1, 2]), unpacked(&[3])].concat(),
        [unpacked(&[1, 2]), packed(&[3]), unpacked(&[300, 5])].concat(),
    ];
    let want: Vec<Vec<f64>> = vec![
        vec![1.0],
        vec![1.0, 2.0],
        vec![1.0, 2.0, 3.0, 4.0],
        vec![1.0, 2.0, 3.0, 4.0, 5.0],
        vec![1.0, 2.0, 3.0],
        vec![1.0, 2.0, 3.0],
        vec![1.0, 2.0, 3.0],
        vec![1.0, 2.0, 3.0, 300.0, 5.0],
    ];
    for (i, extra) in cases.iter().enumerate() {
        let ev = TrackEvent {
            r#type: Some(track_event_type::INSTANT),
            name_iid: Some(1),
            ..Default::default()
        };
        bytes.extend(event_with_raw_fields(100 * (i as u64 + 1), ev, extra));
    }
    let m = import_bytes(&bytes);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics.entries());
    assert_eq!(m.slices.len(), cases.len());
    // Event i's values, read back from the series: the value at its timestamp.
    let got: Vec<Vec<f64>> = (0..cases.len())
        .map(|i| {
            let ts = 100 * (i as i64 + 1);
            uuids
                .iter()
                .filter_map(|u| {
                    let c = m
                        .counters
                        .iter()
                        .find(|c| m.str(c.name) == format!("c{u}"))?;
                    let at = c.ts_ns.iter().position(|&t| t == ts)?;
                    Some(c.value[at])
                })
                .collect()
        })
        .collect();
    assert_eq!(got, want);
}

/// A `DebugAnnotation` whose field 6 (`string_value`) claims 5 bytes but holds 1: prost
/// rejects it ("buffer underflow" in the walk).
const BAD_ANNOTATION: &[u8] = &[0x32, 0x05, 0x61];

#[test]
fn a_bad_annotation_fails_its_packet_whatever_the_args_cache_holds() {
    use prost::Message;
    let good = DebugAnnotation {
        name: Some(b"k".to_vec()),
        int_value: Some(7),
        ..Default::default()
    }
    .encode_to_vec();
    let ann = |b: &[u8]| {
        let mut out = vec![0x22]; // field 4 (debug_annotations), length-delimited
        prost::encoding::encode_varint(b.len() as u64, &mut out);
        out.extend_from_slice(b);
        out
    };
    let ev = || TrackEvent {
        r#type: Some(track_event_type::INSTANT),
        name_iid: Some(1),
        ..Default::default()
    };
    let mut bytes = encode_trace(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(1, 10, vec![name(1, "ev")]),
    ]);
    // Twice the good annotation: its set is cached for the sequence.
    bytes.extend(event_with_raw_fields(100, ev(), &ann(&good)));
    bytes.extend(event_with_raw_fields(200, ev(), &ann(&good)));
    // The cached bytes, then a bad annotation: not the cached entry's bytes, so checked.
    bytes.extend(event_with_raw_fields(
        300,
        ev(),
        &[ann(&good), ann(BAD_ANNOTATION)].concat(),
    ));
    // A bad annotation alone, then a field that is bad too (`type`, a varint, given
    // length-delimited): the annotation's error comes first on the wire, and is the one
    // reported.
    bytes.extend(event_with_raw_fields(
        400,
        ev(),
        &[ann(BAD_ANNOTATION), vec![0x4a, 0x00]].concat(),
    ));
    // More annotations than the event view keeps inline, the bad one first.
    let mut many = ann(BAD_ANNOTATION);
    for _ in 0..8 {
        many.extend(ann(&good));
    }
    bytes.extend(event_with_raw_fields(500, ev(), &many));
    // The cached bytes again: still read.
    bytes.extend(event_with_raw_fields(600, ev(), &ann(&good)));
    let m = import_bytes(&bytes);
    let ts: Vec<i64> = slice_names(&m).into_iter().map(|s| s.1).collect();
    assert_eq!(ts, vec![100, 200, 600]);
    assert_eq!(m.diagnostics.count("packet_decode_error"), 3);
    let d = m
        .diagnostics
        .entries()
        .iter()
        .find(|d| d.kind == "packet_decode_error")
        .unwrap();
    assert!(d.message.contains("buffer underflow"), "{}", d.message);
    // The 400 packet alone: its message is the annotation's, not the later field's.
    let mut alone = encode_trace(&[
        thread_desc(1, 10, 1, 2, "t"),
        seq_start(1, 10, vec![name(1, "ev")]),
    ]);
    alone.extend(event_with_raw_fields(
        400,
        ev(),
        &[ann(BAD_ANNOTATION), vec![0x4a, 0x00]].concat(),
    ));
    let first = import_bytes(&alone);
    let messages: Vec<&str> = first
        .diagnostics
        .entries()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(first.diagnostics.count("packet_decode_error"), 1);
    assert!(
        messages.iter().any(|m| m.contains("buffer underflow"))
            && !messages.iter().any(|m| m.contains("invalid wire type")),
        "{messages:?}"
    );
    // The reference: prost rejects each of those packets' events, and reads the others.
    for (extra, ok) in [
        (ann(&good), true),
        ([ann(&good), ann(BAD_ANNOTATION)].concat(), false),
        ([ann(BAD_ANNOTATION), vec![0x4a, 0x00]].concat(), false),
        (many, false),
    ] {
        let mut body = ev().encode_to_vec();
        body.extend(extra);
        assert_eq!(TrackEvent::decode(&body[..]).is_ok(), ok);
    }
}

/// A descriptor sent again unchanged changes nothing (Chromium repeats each after every
/// incremental-state clear, and a change to a used track makes the import read twice); what a
/// later copy adds (a first name, a parent, a process) or replaces (a name under merge
/// behaviour NONE) is a change, kept as trace_processor merges it.
#[test]
fn a_descriptor_sent_again_changes_only_what_it_adds() {
    let mut all = super::FastMap::default();
    let bare = TrackDescriptor {
        uuid: Some(7),
        ..Default::default()
    };
    assert!(super::add_descriptor(&mut all, &bare), "a new uuid");
    assert!(!super::add_descriptor(&mut all, &bare), "the same again");
    let named = TrackDescriptor {
        name: Some(b"first".to_vec()),
        parent_uuid: Some(1),
        process: Some(Box::new(ProcessDescriptor {
            pid: Some(5),
            ..Default::default()
        })),
        ..bare.clone()
    };
    assert!(
        super::add_descriptor(&mut all, &named),
        "a name, a parent, a process added"
    );
    assert_eq!(all[&7], named);
    assert!(
        !super::add_descriptor(&mut all, &named),
        "the named copy again"
    );
    let renamed = TrackDescriptor {
        name: Some(b"second".to_vec()),
        parent_uuid: Some(2),
        ..bare.clone()
    };
    assert!(
        !super::add_descriptor(&mut all, &renamed),
        "the first name and parent stay"
    );
    assert_eq!(all[&7], named);
    let merge_none = TrackDescriptor {
        sibling_merge_behavior: Some(2),
        ..renamed.clone()
    };
    assert!(
        super::add_descriptor(&mut all, &merge_none),
        "merge behaviour NONE renames"
    );
    assert_eq!(all[&7].name.as_deref(), Some(&b"second"[..]));
    assert_eq!(all[&7].parent_uuid, Some(1));
    assert!(
        !super::add_descriptor(&mut all, &merge_none),
        "and the same again changes nothing"
    );
    assert!(
        !super::add_descriptor(&mut all, &TrackDescriptor::default()),
        "no uuid"
    );
}
