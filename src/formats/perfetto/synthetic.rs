//! A synthetic Chromium-like Perfetto trace of a requested size (trace-formats.md's Perfetto
//! part: TrackEvent with incremental state and interned data), for the import benchmark
//! (`trialscope bench --generate-perfetto`, issue #9 item 6) and the web app's import-worker
//! warm-up (`ui::worker`: one small import when a worker starts, so V8 has compiled the hot
//! code optimised before the first dropped file); never committed as data. Deterministic: the
//! same size gives the same bytes.

use std::io::{self, Write};

use prost::Message;

use super::proto::*;

/// Threads (packet sequences) of the generated process.
const THREADS: u64 = 8;
/// Event names interned up front per sequence; more are interned as the trace goes on.
const NAMES: u64 = 96;

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn named(iid: u64, name: String) -> InternedName {
    InternedName {
        iid: Some(iid),
        name: Some(name.into_bytes()),
    }
}

/// One thread's state: its open slices (end timestamps) and clock.
struct Thread {
    seq: u32,
    ts: u64,
    open: Vec<u64>,
    names: u64,
}

fn write(out: &mut impl Write, p: &TracePacket, written: &mut u64) -> io::Result<()> {
    let body = p.encode_to_vec();
    let mut head = vec![0x0a];
    prost::encoding::encode_varint(body.len() as u64, &mut head);
    out.write_all(&head)?;
    out.write_all(&body)?;
    *written += (head.len() + body.len()) as u64;
    Ok(())
}

/// Writes a Chromium-like Perfetto trace of at least `target` bytes (a `Trace` message: framed
/// `TracePacket`s) to `out`: one process, 8 threads on their own sequences (incremental state,
/// interned names, categories and annotation names, track_event_defaults), nested BEGIN/END
/// slices up to depth 6 with 0–3 debug annotations, an occasional counter and instant, packets
/// of the threads interleaved in time order. Returns the bytes written. Errors: `out`'s.
pub fn write_chromium_like(out: &mut impl Write, target: u64) -> io::Result<u64> {
    let mut rng = Rng(0x7121_5c09);
    let mut written = 0u64;
    let t0 = 1_700_000_000_000_000_000u64;
    write(
        out,
        &TracePacket {
            trusted_packet_sequence_id: Some(1),
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(1),
                process: Some(Box::new(ProcessDescriptor {
                    pid: Some(4242),
                    process_name: Some(b"Renderer".to_vec()),
                    ..Default::default()
                })),
                ..Default::default()
            }),
            ..Default::default()
        },
        &mut written,
    )?;
    write(
        out,
        &TracePacket {
            trusted_packet_sequence_id: Some(1),
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(2),
                parent_uuid: Some(1),
                name: Some(b"Memory".to_vec()),
                counter: Some(Box::new(CounterDescriptor {
                    unit: Some(3),
                    ..Default::default()
                })),
                ..Default::default()
            }),
            ..Default::default()
        },
        &mut written,
    )?;
    let mut threads: Vec<Thread> = (0..THREADS)
        .map(|i| Thread {
            seq: 10 + i as u32,
            ts: t0 + i * 1000,
            open: Vec::new(),
            names: NAMES,
        })
        .collect();
    for (i, t) in threads.iter().enumerate() {
        let uuid = 100 + i as u64;
        write(
            out,
            &TracePacket {
                trusted_packet_sequence_id: Some(t.seq),
                sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
                track_descriptor: Some(TrackDescriptor {
                    uuid: Some(uuid),
                    parent_uuid: Some(1),
                    thread: Some(Box::new(ThreadDescriptor {
                        pid: Some(4242),
                        tid: Some(4300 + i as i64),
                        thread_name: Some(format!("ThreadPoolWorker{i}").into_bytes()),
                        ..Default::default()
                    })),
                    ..Default::default()
                }),
                trace_packet_defaults: Some(TracePacketDefaults {
                    timestamp_clock_id: None,
                    track_event_defaults: Some(TrackEventDefaults {
                        track_uuid: Some(uuid),
                        ..Default::default()
                    }),
                }),
                interned_data: Some(InternedData {
                    event_names: (1..=NAMES)
                        .map(|n| named(n, format!("ThreadControllerImpl::RunTask/{n}")))
                        .collect(),
                    event_categories: ["toplevel", "blink", "v8", "devtools.timeline"]
                        .iter()
                        .enumerate()
                        .map(|(k, c)| named(k as u64 + 1, c.to_string()))
                        .collect(),
                    debug_annotation_names: ["src_file", "src_func", "data", "size"]
                        .iter()
                        .enumerate()
                        .map(|(k, c)| named(k as u64 + 1, c.to_string()))
                        .collect(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            &mut written,
        )?;
    }
    let mut k = 0u64;
    while written < target {
        k += 1;
        let ti = rng.below(THREADS) as usize;
        let t = &mut threads[ti];
        t.ts += 200 + rng.below(5000);
        let mut p = TracePacket {
            timestamp: Some(t.ts),
            trusted_packet_sequence_id: Some(t.seq),
            sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
            ..Default::default()
        };
        let close = !t.open.is_empty() && (t.open.len() >= 6 || rng.below(100) < 45);
        let ev = if close {
            t.open.pop();
            TrackEvent {
                r#type: Some(track_event_type::SLICE_END),
                ..Default::default()
            }
        } else if rng.below(1000) < 5 {
            TrackEvent {
                r#type: Some(track_event_type::COUNTER),
                track_uuid: Some(2),
                counter_value: Some(1_000_000 + rng.below(1 << 24) as i64),
                ..Default::default()
            }
        } else {
            // Now and then a new name is interned, as a long Chromium trace does.
            let name_iid = if rng.below(100) < 2 {
                t.names += 1;
                p.interned_data = Some(InternedData {
                    event_names: vec![named(t.names, format!("v8.compile/{}", k))],
                    ..Default::default()
                });
                t.names
            } else {
                1 + rng.below(NAMES)
            };
            let instant = rng.below(100) < 5;
            if !instant {
                t.open.push(t.ts);
            }
            let anns = (0..rng.below(4))
                .map(|a| DebugAnnotation {
                    name_iid: Some(1 + a),
                    int_value: (a % 2 == 1).then(|| rng.below(1 << 20) as i64),
                    string_value: (a % 2 == 0)
                        .then(|| format!("third_party/blink/renderer/core/{}.cc", k % 997))
                        .map(String::into_bytes),
                    ..Default::default()
                })
                .collect();
            TrackEvent {
                r#type: Some(if instant {
                    track_event_type::INSTANT
                } else {
                    track_event_type::SLICE_BEGIN
                }),
                name_iid: Some(name_iid),
                category_iids: vec![1 + rng.below(4)],
                debug_annotations: anns,
                ..Default::default()
            }
        };
        p.track_event = Some(ev);
        write(out, &p, &mut written)?;
    }
    // Close what is open.
    for t in &mut threads {
        while t.open.pop().is_some() {
            t.ts += 100;
            let p = TracePacket {
                timestamp: Some(t.ts),
                trusted_packet_sequence_id: Some(t.seq),
                sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
                track_event: Some(TrackEvent {
                    r#type: Some(track_event_type::SLICE_END),
                    ..Default::default()
                }),
                ..Default::default()
            };
            write(out, &p, &mut written)?;
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{load, LoadOptions, Loaded};

    /// The generated bytes are a Perfetto trace the importer reads whole: over a thousand slices
    /// on the 8 threads, nothing lost, and the same bytes for the same size.
    #[test]
    fn a_generated_trace_imports_without_loss_and_is_deterministic() {
        let mut a = Vec::new();
        let n = write_chromium_like(&mut a, 200_000).unwrap();
        assert_eq!(n as usize, a.len());
        assert!(a.len() >= 200_000, "{} bytes", a.len());
        let mut b = Vec::new();
        write_chromium_like(&mut b, 200_000).unwrap();
        assert!(a == b, "the same size gives the same bytes");
        let loaded = load("g.pftrace", &a, &LoadOptions::default(), &mut |_| {}).unwrap();
        let Loaded::Trace(art) = loaded else {
            panic!("not read as a trace")
        };
        assert_eq!(art.format, crate::formats::Format::PerfettoProto);
        assert!(art.model.slices.len() > 1_000, "{}", art.model.slices.len());
        assert!(
            !art.model.diagnostics.has_data_loss(),
            "{:?}",
            art.model.diagnostics.entries()
        );
        let threads = art
            .model
            .tracks
            .iter()
            .filter(|t| t.pid == Some(4242) && t.tid.is_some_and(|tid| (4300..4308).contains(&tid)))
            .count();
        assert_eq!(threads, 8, "one track per generated thread");
    }
}
