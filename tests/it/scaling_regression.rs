//! "The regression that must never return" (scaling.md, acceptance example): three separately
//! captured Perfetto traces of the same operator at inputs 1, 2, 3 with durations 10, 20, 30 ns
//! give one group with ρ = 1.0 — built from real encoded protobuf bytes through
//! `formats::import` + `scaling::profile` + `scaling::run`, never from hand-made shared ids.
//! The traces differ in timestamps, sequence ids, track uuids, pids and tids, so their
//! artifact ids differ. The same slice with another source line is another frame.
//!
//! The bytes come from the tests' one Perfetto packet builder (`support::perfetto`): one thread
//! track descriptor, then SLICE_BEGIN/END track events, the operator's with a `SourceLocation`.

use trialscope::analysis::scaling::{self, Params, Trial};
use trialscope::formats;
use trialscope::formats::perfetto::proto::{
    track_event_type, SourceLocation, TracePacket, TrackEvent, SEQ_INCREMENTAL_STATE_CLEARED,
};

use crate::support::perfetto::{self, event, thread_track, track_event};

struct Capture {
    seq: u32,
    uuid: u64,
    pid: u32,
    tid: u32,
    t0: u64,
}

/// One trace with a single `Op` slice (category `op`, source `src/op.cc:line` `Op::Run`) of
/// `dur_ns`, inside an unrelated `Idle` slice.
fn trace(c: &Capture, line: u32, dur_ns: u64) -> Vec<u8> {
    trace_named(c, "Op", Some(line), dur_ns)
}

/// As [`trace`], with the operator's name and optional source line chosen by the caller.
fn trace_named(c: &Capture, op: &str, line: Option<u32>, dur_ns: u64) -> Vec<u8> {
    let mut packets: Vec<TracePacket> = Vec::new();
    // Track descriptor of the thread.
    let desc = thread_track(c.uuid, None, c.pid as i32, i64::from(c.tid), Some("worker"));
    packets.push(TracePacket {
        timestamp: Some(c.t0),
        sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
        ..perfetto::track(c.seq, desc)
    });

    let slice = |ts: u64, ty: i32, name: Option<(&str, &str)>, loc: Option<u32>| {
        let ev = track_event(ty, c.uuid, name);
        let source_location = loc.map(|line| SourceLocation {
            file_name: Some(b"src/op.cc".to_vec()),
            function_name: Some(b"Op::Run".to_vec()),
            line_number: Some(line),
            ..Default::default()
        });
        event(
            c.seq,
            ts,
            TrackEvent {
                source_location,
                ..ev
            },
        )
    };
    const BEGIN: i32 = track_event_type::SLICE_BEGIN;
    const END: i32 = track_event_type::SLICE_END;
    packets.push(slice(c.t0 + 100, BEGIN, Some(("Idle", "sched")), None));
    packets.push(slice(c.t0 + 200, BEGIN, Some((op, "op")), line));
    packets.push(slice(c.t0 + 200 + dur_ns, END, None, None));
    packets.push(slice(c.t0 + 1_000, END, None, None));
    perfetto::trace(&packets)
}

fn captures() -> [Capture; 3] {
    [
        Capture {
            seq: 1,
            uuid: 11,
            pid: 100,
            tid: 101,
            t0: 5_000_000,
        },
        Capture {
            seq: 7,
            uuid: 9_001,
            pid: 200,
            tid: 202,
            t0: 77_000_000_000,
        },
        Capture {
            seq: 42,
            uuid: 123_456_789,
            pid: 300,
            tid: 303,
            t0: 1_234,
        },
    ]
}

fn trial_of(name: &str, bytes: &[u8], input: f64) -> Trial {
    let a = formats::import(name, bytes).expect("a valid Perfetto trace");
    assert_eq!(a.format, formats::Format::PerfettoProto);
    Trial {
        path: name.into(),
        input: Some(input),
        variant: "default".into(),
        environment: String::new(),
        excluded: false,
        profile: scaling::profile(&a.artifact_id, &a.model),
    }
}

#[test]
fn three_captures_of_one_operator_give_one_group_with_rho_one() {
    let trials: Vec<Trial> = captures()
        .iter()
        .zip([(1.0, 10), (2.0, 20), (3.0, 30)])
        .map(|(c, (x, dur))| trial_of(&format!("op_n{x}.pb"), &trace(c, 42, dur), x))
        .collect();
    let ids: std::collections::BTreeSet<&str> = trials
        .iter()
        .map(|t| t.profile.artifact_id.as_str())
        .collect();
    assert_eq!(ids.len(), 3, "artifact ids must differ");
    for (t, want) in trials.iter().zip([10, 20, 30]) {
        let op = t
            .profile
            .frames
            .iter()
            .find(|f| f.frame.name == "Op")
            .unwrap();
        assert_eq!((op.inclusive_ns, op.count), (want, 1));
        assert_eq!(op.frame.file.as_deref(), Some("src/op.cc"));
        assert_eq!(op.frame.line, Some(42));
        assert_eq!(op.self_ns, want);
        // Idle spans t0+100 .. t0+1000 and encloses Op: self = 900 − Op.
        let idle = t
            .profile
            .frames
            .iter()
            .find(|f| f.frame.name == "Idle")
            .unwrap();
        assert_eq!(
            (idle.inclusive_ns, idle.self_ns, idle.count),
            (900, 900 - want, 1)
        );
        assert!(!t.profile.data_loss);
    }

    let r = scaling::run(&trials, &Params::default());
    let op: Vec<_> = r.hotspots.iter().filter(|h| h.name == "Op").collect();
    assert_eq!(op.len(), 1, "one group for the operator");
    let h = op[0];
    assert_eq!(h.spearman_rho, 1.0);
    // Issue 13: n ≤ 10 gets the exact permutation p — 2/3! for a perfect order of 3 (the t
    // approximation, SciPy's default, said 0).
    assert_eq!(h.p_value, 1.0 / 3.0);
    assert_eq!(
        h.p_method,
        trialscope::analysis::stats::SpearmanMethod::ExactPermutation
    );
    assert_eq!((h.trials, h.zero_filled, h.excluded), (3, 0, 0));
    assert_eq!(h.evidence_status, scaling::EvidenceStatus::Complete);
    // With a warning that 3 trials cannot be significant under the exact permutation test.
    assert!(h.warnings.iter().any(|w| w.contains("only 3 trials")));
    assert_eq!(r.evidence_status, scaling::EvidenceStatus::Complete);
    assert_eq!((h.supported_min, h.supported_max), (1.0, 3.0));
    let medians: Vec<f64> = h.points.iter().map(|p| p.median).collect();
    assert_eq!(medians, vec![10.0, 20.0, 30.0]);
    let per_trial: Vec<usize> = h.points.iter().map(|p| p.values[0].trial).collect();
    assert_eq!(per_trial, vec![0, 1, 2]);
    // Idle (1000 − 100 ns in every trial) is constant: dropped as non-finite ρ, counted.
    assert_eq!(r.dropped_non_finite, 1);
    assert_eq!(r.tested_hypotheses, 1);
    assert_eq!(r.coverage.joined_frames, 2);
}

#[test]
fn the_same_slice_at_another_source_line_does_not_join() {
    let c = captures();
    let trials = vec![
        trial_of("a_n1.pb", &trace(&c[0], 42, 10), 1.0),
        trial_of("b_n2.pb", &trace(&c[1], 42, 20), 2.0),
        trial_of("c_n3.pb", &trace(&c[2], 43, 30), 3.0),
    ];
    let id = |t: &Trial| {
        t.profile
            .frames
            .iter()
            .find(|f| f.frame.name == "Op")
            .map(|f| f.frame.semantic_frame_id.clone())
            .unwrap()
    };
    assert_eq!(id(&trials[0]), id(&trials[1]));
    assert_ne!(id(&trials[0]), id(&trials[2]));

    let r = scaling::run(&trials, &Params::default());
    let op: Vec<_> = r.hotspots.iter().filter(|h| h.name == "Op").collect();
    assert_eq!(op.len(), 2, "line 42 and line 43 are two groups");
    for h in &op {
        assert!(
            h.spearman_rho < 1.0,
            "no joined ρ = 1 group: {}",
            h.spearman_rho
        );
    }
    let l42 = op.iter().find(|h| h.line == Some(42)).unwrap();
    // scipy.stats.spearmanr([1,2,3],[10,20,0]) -> (-0.5, 0.6666666666666666)
    assert_eq!(l42.zero_filled, 1);
    assert_eq!(l42.evidence_status, scaling::EvidenceStatus::Partial);
    assert!((l42.spearman_rho + 0.5).abs() < 1e-12);
}

#[test]
fn address_only_frames_are_unmatched_and_counted_in_coverage() {
    // A slice named only by a hex address has no identity (scaling.md): it must not join
    // across the three captures, and it must not disappear either.
    let trials: Vec<Trial> = captures()
        .iter()
        .zip([(1.0, 10), (2.0, 20), (3.0, 30)])
        .map(|(c, (x, dur))| {
            trial_of(
                &format!("addr_n{x}.pb"),
                &trace_named(c, "0x7f3a12b0", None, dur),
                x,
            )
        })
        .collect();
    for (t, want) in trials.iter().zip([10, 20, 30]) {
        assert!(t
            .profile
            .frames
            .iter()
            .all(|f| f.frame.name != "0x7f3a12b0"));
        let u = &t.profile.unmatched;
        assert_eq!(u.len(), 1);
        assert_eq!(
            (u[0].name.as_str(), u[0].reason.as_str()),
            ("0x7f3a12b0", "address_only")
        );
        assert_eq!((u[0].inclusive_ns, u[0].count), (want, 1));
    }
    let r = scaling::run(&trials, &Params::default());
    assert!(r.hotspots.iter().all(|h| h.name != "0x7f3a12b0"));
    assert_eq!(
        (r.coverage.unmatched_frames, r.coverage.unmatched_ns),
        (3, 60)
    );
    assert_eq!(r.coverage.unmatched_reasons.len(), 1);
    assert_eq!(r.coverage.unmatched_reasons[0].reason, "address_only");
    // Only Idle was joined (and it is constant): nothing tested, and the report says why.
    assert_eq!(r.coverage.joined_frames, 1);
    assert_eq!(r.evidence_status, scaling::EvidenceStatus::Unavailable);
}
