//! A synthetic 4-rank job encoded as real Perfetto protobuf bytes (one trace per rank, each on
//! its own boot clock), imported through `formats::import` and attributed by
//! `analysis::collective_memory` (collective-memory.md).
//!
//! Every rank: counter tracks `nvml.device_used_bytes`, `allocator_reserved_bytes` and
//! `gpu memory total` (80 GiB) sampled every 50 ms for 2 s; a thread track `nccl stream` with
//! NCCL all_reduce slices at 180–230 ms and 980–1030 ms. Ranks 0–3 show a +300 MiB gap spike at
//! 1000 ms (inside the second all_reduce); rank 2 alone shows another at 1600 ms, far from any
//! collective.

use crate::support::memory_fixture as perfetto4;

use perfetto4::{rank_trace, MIB, MS};
use trialscope::analysis::collective_memory::{self as cm, Classification, Params};
use trialscope::formats;

fn inputs() -> Vec<cm::RankInput> {
    let items: Vec<(String, Vec<u8>)> = (0..4)
        .map(|r| {
            // Each rank's boot clock differs: 5 s, 8 s, 11 s, 14 s.
            let bytes = rank_trace(r, 5_000 * MS + r as u64 * 3_000 * MS);
            // No rank in the file name: the rank must come from the process label.
            let name = format!("host{}.pftrace", 7 - r);
            let a = formats::import(&name, &bytes).expect("import");
            assert_eq!(a.format, formats::Format::PerfettoProto);
            (name, bytes)
        })
        .collect();
    let (inputs, warnings) = crate::support::memory_inputs(items);
    assert!(warnings.is_empty(), "{warnings:?}");
    inputs
}

#[test]
fn perfetto_counters_markers_and_ranks_are_read() {
    let inputs = inputs();
    for (r, i) in inputs.iter().enumerate() {
        assert_eq!(i.rank, r as u32, "rank from the process label");
        let s = &i.series;
        assert_eq!(
            s.series_present(),
            [
                "device_used_bytes",
                "allocator_reserved_bytes",
                "device_total_bytes"
            ]
        );
        assert_eq!(s.kinds.device_used.as_ref().unwrap().ts_ns.len(), 40);
        assert_eq!(s.markers.len(), 2);
        let m = &s.markers[1];
        assert_eq!(m.end_ns - m.start_ns, 50 * MS as i64);
        assert!(!s.shared_clock, "boot clocks are not shared");
    }
}

#[test]
fn synchronized_spike_during_all_reduce_is_confident_lone_spike_is_not() {
    let inputs = inputs();
    let rep = cm::run(&inputs, &Params::default());
    assert_eq!(rep.world_size, 4);
    assert!(!rep.clock.shared_clock);
    assert_eq!(rep.clock.skew_ns, 9_000 * MS as i64);
    // Aligned on first samples: rank r shifted back by r·3 s.
    for (r, k) in rep.ranks.iter().enumerate() {
        assert_eq!(k.offset_ns, -(r as i64) * 3_000 * MS as i64);
    }
    let start = rep.trace_start_ns.unwrap();
    assert_eq!(rep.intervals.len(), 4, "{:#?}", rep.intervals);
    for (r, iv) in rep.intervals.iter().enumerate() {
        assert_eq!(iv.rank, r as u32);
        assert_eq!(iv.classification, Classification::CollectiveConfident);
        // Markers, full synchrony, z ≥ threshold, divergence 1, ratio known: 1.0.
        assert!((iv.confidence - 1.0).abs() < 1e-9, "{iv:?}");
        // [980 − 120, 1030 + 120] ms after the job start.
        assert_eq!(iv.start_ns - start, 860 * MS as i64);
        assert_eq!(iv.end_ns - start, 1150 * MS as i64);
        assert_eq!(iv.evidence.synchronized_ranks, 4);
        assert_eq!(iv.evidence.marker_hits, 1);
        assert!(iv
            .reason_codes
            .contains(&cm::ReasonCode::CrossRankSynchrony));
        assert!(iv
            .reason_codes
            .contains(&cm::ReasonCode::MarkerSpikeOverlap));
        assert!(!iv.reason_codes.contains(&cm::ReasonCode::SingleRankOnly));
        // Peak gap 500–504 MiB.
        let g = iv.evidence.peak_gap_bytes / MIB as f64;
        assert!((500.0..=504.0).contains(&g), "{g}");
    }

    // With min_confidence 0 the lone spike on rank 2 (1600 ms) appears, as a suspect:
    // 0.16·1 + 0.16·1 − 0.15 − 0.15 = 0.02.
    let p = Params::default()
        .with_override("min_confidence", "0")
        .unwrap();
    let rep = cm::run(&inputs, &p);
    let lone: Vec<_> = rep
        .intervals
        .iter()
        .filter(|iv| iv.start_ns - start > 1200 * MS as i64)
        .collect();
    assert_eq!(lone.len(), 1, "{:#?}", rep.intervals);
    let lone = lone[0];
    assert_eq!(lone.rank, 2);
    assert_eq!(lone.classification, Classification::CollectiveSuspect);
    assert!((lone.confidence - 0.02).abs() < 1e-9, "{lone:?}");
    for code in ["weak_marker_signal", "single_rank_only"] {
        assert!(
            lone.reason_codes.iter().any(|c| c.as_str() == code),
            "{lone:?}"
        );
    }
    assert_eq!(lone.evidence.marker_hits, 0);
    assert_eq!(lone.evidence.synchronized_ranks, 1);
}
