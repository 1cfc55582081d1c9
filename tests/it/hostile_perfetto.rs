//! Hostile Perfetto input stays within the per-file budget (issue #10, point 1;
//! `formats::limits`): the inputs are real encoded (and gzipped) bytes, built here with the
//! support packet builder or, where a prost struct per item would itself be the problem, by
//! hand with the same framing.

use std::io::Write;

use flate2::write::GzEncoder;
use trialscope::formats::{limits, Loaded};
use trialscope::model::Model;

use crate::support::perfetto as pb;
use trialscope::formats::perfetto::proto::{track_event_type as ty, TrackEvent};

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn load(name: &str, bytes: &[u8]) -> Model {
    match crate::support::load(name, bytes) {
        Loaded::Trace(a) => a.model,
        other => panic!("{name}: {}", other.description()),
    }
}

/// `TrackEvent.debug_annotations` (field 4) `n` times, each empty: 2 bytes apiece.
fn packet_with_empty_annotations(n: usize) -> Vec<u8> {
    let mut ev = TrackEvent {
        r#type: Some(ty::INSTANT),
        name: Some(b"bomb".to_vec()),
        ..Default::default()
    };
    ev.track_uuid = None;
    let mut ev_bytes = prost::Message::encode_to_vec(&ev);
    ev_bytes.reserve(2 * n);
    for _ in 0..n {
        ev_bytes.extend_from_slice(&[0x22, 0x00]);
    }
    // TracePacket { timestamp = 8: 1000, trusted_packet_sequence_id = 10: 1, track_event = 11 }
    let mut packet = vec![0x40];
    prost::encoding::encode_varint(1000, &mut packet);
    packet.extend_from_slice(&[0x50, 0x01, 0x5a]);
    prost::encoding::encode_varint(ev_bytes.len() as u64, &mut packet);
    packet.extend_from_slice(&ev_bytes);
    let mut out = Vec::new();
    pb::frame(&packet, &mut out);
    out
}

/// One TrackEvent with 10 M empty debug annotations (~20 KB gzipped, 20 MB decoded) kept 3.9 GB
/// before the budget: now the first `MAX_ARGS_PER_EVENT` are kept, the rest counted by a
/// diagnostic naming the limit, and the model stays far inside its budget.
#[test]
fn ten_million_empty_annotations_are_bounded() {
    let data = packet_with_empty_annotations(10_000_000);
    let gz = gzip(&data);
    assert!(gz.len() < 64 << 10, "{} bytes gzipped", gz.len());
    let m = load("annotations.pb.gz", &gz);
    assert_eq!(m.slices.len(), 1);
    assert_eq!(
        m.args.get(m.slices.args[0]).len(),
        limits::MAX_ARGS_PER_EVENT
    );
    let d = m
        .diagnostics
        .entries()
        .iter()
        .find(|d| d.kind.as_str() == "annotations_over_limit")
        .expect("annotations_over_limit");
    assert_eq!(d.count, 1);
    assert!(d.message.contains("4096"), "{}", d.message);
    assert!(d.message.contains("10000000"), "{}", d.message);
    let budget = limits::model_budget(data.len() as u64);
    assert!(
        (m.heap_bytes() as u64) < budget / 16,
        "model {} bytes, budget {budget}",
        m.heap_bytes()
    );
}

/// A packet stream with 2 M distinct (undescribed) track uuids: tracks stop at
/// `MAX_TRACKS`, every event beyond is counted (`tracks_over_limit`), the rest are kept.
#[test]
fn two_million_track_uuids_stop_at_the_tracks_limit() {
    let n = 2_000_000u64;
    let mut data = Vec::with_capacity(n as usize * 16);
    for i in 0..n {
        let p = pb::event(
            1,
            1000 + i,
            pb::track_event(ty::INSTANT, 1_000_000 + i, None),
        );
        pb::frame(&prost::Message::encode_to_vec(&p), &mut data);
    }
    let m = load("tracks.pb.gz", &gzip(&data));
    assert!(
        m.tracks.len() <= limits::MAX_TRACKS,
        "{} tracks",
        m.tracks.len()
    );
    let over = m.diagnostics.count("tracks_over_limit");
    assert!(over > 0);
    assert_eq!(m.slices.len() as u64 + over, n);
    assert_eq!(
        m.diagnostics.count("track_uuid_undescribed") + over,
        n,
        "every uuid is either kept on its own track or counted"
    );
}

/// BEGIN at −9e15 µs (legacy absolute µs) and END at 9e18 ns: both outside the plausible range,
/// excluded and counted (no panic on overflow in a debug build, no slice of centuries).
#[test]
fn absurd_begin_and_end_are_excluded_and_counted() {
    let begin = TrackEvent {
        timestamp_absolute_us: Some(-9_000_000_000_000_000),
        ..pb::track_event(ty::SLICE_BEGIN, 0, Some(("absurd", "c")))
    };
    let packets = vec![
        pb::event(1, 5, begin),
        pb::event(
            1,
            9_000_000_000_000_000_000,
            pb::track_event(ty::SLICE_END, 0, None),
        ),
        pb::event(1, 2000, pb::track_event(ty::INSTANT, 0, Some(("ok", "c")))),
    ];
    let m = load("absurd.pftrace", &pb::trace(&packets));
    assert_eq!(m.slices.len(), 1);
    assert_eq!(m.str(m.slices.name[0]), "ok");
    assert_eq!(m.diagnostics.count("timestamp_out_of_range"), 2);
}

/// A packet longer than `MAX_EVENT_BYTES` is skipped as it streams past (never buffered) and
/// counted; the packets after it are kept.
#[test]
fn an_oversized_packet_is_skipped_and_counted() {
    let mut data = Vec::new();
    let ok = pb::event(
        1,
        1000,
        pb::track_event(ty::INSTANT, 0, Some(("before", "c"))),
    );
    pb::frame(&prost::Message::encode_to_vec(&ok), &mut data);
    // A 65 MiB packet of one unknown bytes field (TracePacket field 900).
    let len = limits::MAX_EVENT_BYTES + (1 << 20);
    let mut body = Vec::with_capacity(len + 16);
    prost::encoding::encode_key(900, prost::encoding::WireType::LengthDelimited, &mut body);
    let inner = len - body.len() - 4;
    prost::encoding::encode_varint(inner as u64, &mut body);
    body.resize(body.len() + inner, 0);
    pb::frame(&body, &mut data);
    let after = pb::event(
        1,
        2000,
        pb::track_event(ty::INSTANT, 0, Some(("after", "c"))),
    );
    pb::frame(&prost::Message::encode_to_vec(&after), &mut data);
    let m = load("big.pb.gz", &gzip(&data));
    assert_eq!(m.slices.len(), 2);
    assert_eq!(m.diagnostics.count("packet_too_large"), 1);
}

/// A Perfetto trace cut anywhere in its first 4 KiB is still a Perfetto trace: it imports
/// (keeping what came before the cut, with a `data_loss` diagnostic unless the cut falls
/// between packets), never "protobuf data that is not a Perfetto trace". A new user's gzip cut
/// to 200 bytes inflated to 84 bytes, inside the first packet's first field (a clock
/// snapshot of 85 bytes), and was refused as not a trace.
#[test]
fn a_trace_cut_in_its_first_packet_is_still_a_perfetto_trace() {
    let data = crate::support::read_corpus("chromium_misc/scaling_n1000_r0.raw.pb");
    // From the first packet's key, its length and its first field's key on.
    let mut cut_inside = 0;
    for n in 3..=4096 {
        let m = match crate::support::load("cut.pb", &data[..n]) {
            Loaded::Trace(a) => {
                assert_eq!(
                    a.format,
                    trialscope::formats::Format::PerfettoProto,
                    "cut at {n}"
                );
                a.model
            }
            other => panic!("cut at {n}: {}", other.description()),
        };
        if m.diagnostics.count("truncated_packet") > 0 {
            assert!(m.diagnostics.has_data_loss(), "cut at {n}");
            cut_inside += 1;
        }
    }
    assert!(cut_inside > 4000, "{cut_inside} cuts inside a packet");
}

/// A review put one odd packet before a real trace: a malformed one (`0a 02 ff ff`) or one of
/// unknown fields only (`0a 03 80 7d 01`, field 2000). The whole file was refused as
/// "protobuf data that is not a Perfetto trace"; now the trace is read, the malformed packet
/// counted (`packet_decode_error`, `data_loss`) and the unknown field passed over, as anywhere
/// else in a trace.
#[test]
fn an_odd_first_packet_does_not_hide_the_trace() {
    let data = crate::support::read_corpus("chromium_misc/scaling_n1000_r0.raw.pb");
    let plain = load("t.pb", &data);
    for (odd, loss) in [
        (&[0x0a, 0x02, 0xff, 0xff][..], true),
        (&[0x0a, 0x03, 0x80, 0x7d, 0x01][..], false),
    ] {
        let mut bytes = odd.to_vec();
        bytes.extend_from_slice(&data);
        let m = load("odd.pb", &bytes);
        assert_eq!(m.slices.len(), plain.slices.len(), "{odd:02x?}");
        assert_eq!(
            m.diagnostics.count("packet_decode_error"),
            u64::from(loss),
            "{odd:02x?}"
        );
        assert_eq!(
            m.diagnostics.has_data_loss(),
            loss || plain.diagnostics.has_data_loss()
        );
    }
}

/// Byte offsets where the top-level records of a Perfetto trace start.
fn record_starts(data: &[u8]) -> Vec<usize> {
    let varint = |p: &mut usize| {
        let mut v = 0u64;
        for shift in 0..10 {
            let b = data[*p];
            *p += 1;
            v |= u64::from(b & 0x7f) << (7 * shift);
            if b & 0x80 == 0 {
                break;
            }
        }
        v
    };
    let mut out = Vec::new();
    let mut p = 0;
    while p < data.len() {
        out.push(p);
        let tag = varint(&mut p);
        assert_eq!(tag & 7, 2, "records here are length-delimited");
        let len = varint(&mut p) as usize;
        p += len;
    }
    out
}

/// A review found an overlong varint (ten bytes with the continuation bit) in the middle of
/// a trace reported as `truncated_packet` ("file cut off?"), a wrong lead for a file that is
/// whole but corrupt. It is now `trace_framing_error` naming the varint — at the top level
/// (read in chunks of any size) and inside a `compressed_packets` bundle — while a file that
/// really ends inside a varint is still `truncated_packet`.
#[test]
fn an_overlong_varint_is_corrupt_framing_not_a_cut() {
    let data = crate::support::read_corpus("chromium_misc/scaling_n1000_r0.raw.pb");
    let starts = record_starts(&data);
    let mid = starts[starts.len() / 2];
    let overlong = [&[0x0a][..], &[0xff; 11], &[0x01, 0x02]].concat();
    let bundle = {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&overlong).unwrap();
        let z = z.finish().unwrap();
        // TracePacket.compressed_packets (field 50), framed as Trace.packet.
        let mut body = vec![0x92, 0x03];
        body.push(u8::try_from(z.len()).unwrap());
        body.extend_from_slice(&z);
        let mut rec = vec![0x0a, u8::try_from(body.len()).unwrap()];
        rec.extend_from_slice(&body);
        rec
    };
    for (what, insert, kept_after) in [("top level", &overlong, false), ("bundle", &bundle, true)] {
        let bytes = [&data[..mid], &insert[..], &data[mid..]].concat();
        let whole = load("t.pb", &bytes);
        for chunk in [1, 7, 65_536, usize::MAX] {
            let m = if chunk == usize::MAX {
                whole.clone()
            } else {
                let src = trialscope::formats::Chunked {
                    bytes: &bytes,
                    chunk,
                };
                match trialscope::formats::load_from(
                    "t.pb",
                    &src,
                    &trialscope::formats::LoadOptions::default(),
                    &mut |_| {},
                )
                .unwrap()
                {
                    Loaded::Trace(a) => a.model,
                    other => panic!("{}", other.description()),
                }
            };
            let d = &m.diagnostics;
            assert_eq!(
                d.count("trace_framing_error"),
                1,
                "{what}, chunks of {chunk}"
            );
            assert_eq!(d.count("truncated_packet"), 0, "{what}, chunks of {chunk}");
            assert_eq!(d.entries(), whole.diagnostics.entries(), "{what}");
        }
        let msg = &whole
            .diagnostics
            .entries()
            .iter()
            .find(|e| e.kind == "trace_framing_error")
            .unwrap()
            .message;
        assert_eq!(
            msg.contains(&format!(
                "a varint longer than 10 bytes at byte {}",
                mid + 1
            )),
            !kept_after,
            "{msg}"
        );
        // At the top level the rest of the stream is skipped; after a bundle it is read.
        let plain = load("t.pb", &data);
        assert_eq!(
            whole.slices.len() == plain.slices.len(),
            kept_after,
            "{what}"
        );
    }
    // Cut inside a length varint: still a cut-off file.
    let cut = [&data[..mid], &[0x0a, 0xff, 0xff][..]].concat();
    let m = load("cut.pb", &cut);
    assert_eq!(m.diagnostics.count("truncated_packet"), 1);
    assert_eq!(m.diagnostics.count("trace_framing_error"), 0);
}
