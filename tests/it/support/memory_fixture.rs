//! Shared by the memory tests: a synthetic rank trace encoded as real Perfetto protobuf bytes
//! (see `tests/it/memory_perfetto.rs` for the scenario).

use super::perfetto::{self, event, track_event};
use trialscope::formats::perfetto::proto::*;

pub const MS: u64 = 1_000_000;
pub const MIB: i64 = 1 << 20;

/// Every packet of the fixture is on sequence 1; track descriptors carry timestamp 0.
fn packet(ts: u64) -> TracePacket {
    perfetto::packet(1, Some(ts))
}

fn counter_track(uuid: u64, name: &str) -> TracePacket {
    TracePacket {
        track_descriptor: Some(perfetto::counter_track(uuid, 1, name, 3)), // SIZE_BYTES
        ..packet(0)
    }
}

fn counter(ts: u64, track: u64, value: i64) -> TracePacket {
    event(
        1,
        ts,
        TrackEvent {
            counter_value: Some(value),
            ..track_event(track_event_type::COUNTER, track, None)
        },
    )
}

fn slice(ts: u64, ty: i32, name: Option<&str>) -> TracePacket {
    event(1, ts, track_event(ty, 20, name.map(|n| (n, "kernel"))))
}

/// The trace bytes of rank `r`; its boot clock starts `base` ns before the job.
pub fn rank_trace(r: i32, base: u64) -> Vec<u8> {
    let mut p = Vec::new();
    let mut first = TracePacket {
        track_descriptor: Some(TrackDescriptor {
            uuid: Some(1),
            process: Some(Box::new(ProcessDescriptor {
                pid: Some(4000 + r),
                process_name: Some(b"python train.py".to_vec()),
                process_labels: vec![format!("rank={r}").into_bytes()],
                ..Default::default()
            })),
            ..Default::default()
        }),
        ..packet(0)
    };
    first.sequence_flags = Some(SEQ_INCREMENTAL_STATE_CLEARED);
    p.push(first);
    p.push(TracePacket {
        track_descriptor: Some(perfetto::thread_track(
            20,
            Some(1),
            4000 + r,
            i64::from(4100 + r),
            Some("nccl stream"),
        )),
        ..packet(0)
    });
    p.push(counter_track(10, "nvml.device_used_bytes"));
    p.push(counter_track(11, "allocator_reserved_bytes"));
    p.push(counter_track(12, "gpu memory total"));
    let mut events: Vec<TracePacket> = Vec::new();
    for (a, b) in [(180, 230), (980, 1030)] {
        events.push(slice(
            base + a * MS,
            track_event_type::SLICE_BEGIN,
            Some("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
        ));
        events.push(slice(base + b * MS, track_event_type::SLICE_END, None));
    }
    for i in 0..40u64 {
        let t = base + i * 50 * MS;
        let reserved = 2048 * MIB + (i as i64 % 3) * 16 * MIB;
        let mut gap = 200 * MIB + (i as i64 % 5) * MIB;
        if i == 20 || (r == 2 && i == 32) {
            gap += 300 * MIB;
        }
        events.push(counter(t, 10, reserved + gap));
        events.push(counter(t, 11, reserved));
        events.push(counter(t, 12, 80 * 1024 * MIB));
    }
    events.sort_by_key(|e| e.timestamp);
    p.extend(events);
    perfetto::trace(&p)
}
