//! The one Perfetto packet builder: `TracePacket`s from the crate's prost structs (with helpers
//! for the packets the tests write most), framed as `Trace.packet` (field 1) into real
//! protobuf trace bytes.

use prost::Message;
use trialscope::formats::perfetto::proto::*;

/// Appends one length-delimited `Trace.packet` (tag 1, wire type 2) holding `body`.
pub fn frame(body: &[u8], out: &mut Vec<u8>) {
    out.push(0x0a);
    prost::encoding::encode_varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// The bytes of a `perfetto.protos.Trace` holding `packets` in order.
pub fn trace(packets: &[TracePacket]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in packets {
        frame(&p.encode_to_vec(), &mut out);
    }
    out
}

/// An empty packet on sequence `seq`, with a timestamp when `ts` is given.
pub fn packet(seq: u32, ts: Option<u64>) -> TracePacket {
    TracePacket {
        timestamp: ts,
        trusted_packet_sequence_id: Some(seq),
        ..Default::default()
    }
}

/// A packet on `seq` describing a track.
pub fn track(seq: u32, desc: TrackDescriptor) -> TracePacket {
    TracePacket {
        track_descriptor: Some(desc),
        ..packet(seq, None)
    }
}

/// A process track `uuid` for `pid`.
pub fn process_track(uuid: u64, pid: i32) -> TrackDescriptor {
    TrackDescriptor {
        uuid: Some(uuid),
        process: Some(Box::new(ProcessDescriptor {
            pid: Some(pid),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// A thread track `uuid` for `pid`/`tid`, under `parent` when given.
pub fn thread_track(
    uuid: u64,
    parent: Option<u64>,
    pid: i32,
    tid: i64,
    name: Option<&str>,
) -> TrackDescriptor {
    TrackDescriptor {
        uuid: Some(uuid),
        parent_uuid: parent,
        thread: Some(Box::new(ThreadDescriptor {
            pid: Some(pid),
            tid: Some(tid),
            thread_name: name.map(|n| n.as_bytes().to_vec()),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// A counter track `uuid` named `name` under `parent`, in `unit` (3 = SIZE_BYTES).
pub fn counter_track(uuid: u64, parent: u64, name: &str, unit: i32) -> TrackDescriptor {
    TrackDescriptor {
        uuid: Some(uuid),
        parent_uuid: Some(parent),
        name: Some(name.as_bytes().to_vec()),
        counter: Some(Box::new(CounterDescriptor {
            unit: Some(unit),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// A packet on `seq` at `ts` carrying `ev`.
pub fn event(seq: u32, ts: u64, ev: TrackEvent) -> TracePacket {
    TracePacket {
        track_event: Some(ev),
        ..packet(seq, Some(ts))
    }
}

/// A track event of `ty` (`track_event_type::*`) on `track`, named `name` in `category` when
/// a name is given (ends carry neither).
pub fn track_event(ty: i32, track: u64, name: Option<(&str, &str)>) -> TrackEvent {
    TrackEvent {
        r#type: Some(ty),
        track_uuid: Some(track),
        name: name.map(|(n, _)| n.as_bytes().to_vec()),
        categories: name.map_or(vec![], |(_, c)| vec![c.as_bytes().to_vec()]),
        ..Default::default()
    }
}
