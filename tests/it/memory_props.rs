//! Properties of the memory analysis on arbitrary input: the telemetry reader never panics on
//! any bytes, and the attribution always yields well-formed, self-consistent intervals
//! (collective-memory.md step 10: "a merged interval never contradicts itself").

use proptest::prelude::*;
use trialscope::analysis::collective_memory::{
    self as cm, Marker, Params, PerKind, RankSeries, Series,
};
use trialscope::formats::testing;

use crate::support::telemetry::Record;

fn line() -> impl Strategy<Value = String> {
    let num = prop_oneof![
        Just("null".to_string()),
        Just("-1".to_string()),
        Just("1e400".to_string()),
        Just("\"x\"".to_string()),
        (0i64..i64::MAX).prop_map(|v| v.to_string()),
        (0u64..u64::MAX).prop_map(|v| v.to_string()),
    ];
    (
        num.clone(),
        prop_oneof![Just("sample"), Just("nccl"), Just("x")],
        num.clone(),
        num.clone(),
        num,
        any::<bool>(),
    )
        .prop_map(|(ts, ty, rank, used, dur, cut)| {
            let s = Record::new(ts, ty)
                .num("rank", rank)
                .num("device_used_bytes", used)
                .num("duration_ns", dur)
                .num("metadata", r#"{"a":[1,{"b":"all_gather"}]}"#)
                .json();
            if cut {
                s[..s.len() / 2].to_string()
            } else {
                s
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn telemetry_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = testing::looks_like_telemetry(&bytes);
        let _ = testing::telemetry_import("f", &bytes);
    }

    #[test]
    fn telemetry_lines_import_or_are_reported(lines in proptest::collection::vec(line(), 1..30)) {
        let text = lines.join("\n");
        if let Ok(t) = testing::telemetry_import("f", text.as_bytes()) {
            let bad = t.diagnostics.count("telemetry_bad_line");
            prop_assert_eq!(t.records + bad, lines.len() as u64);
            for m in &t.models {
                let s = cm::series_from_model(m, &cm::Mapping::default());
                let _ = cm::run(&[cm::RankInput { rank: 0, label: "f".into(), series: s }], &Params::default());
            }
        }
    }

    #[test]
    fn intervals_are_well_formed(
        ranks in proptest::collection::vec(
            (proptest::collection::vec(0u32..2000, 0..40),
             proptest::collection::vec((0i64..3000, 0i64..200), 0..6),
             any::<bool>()),
            1..5),
        world in proptest::option::of(0u32..8),
        preset in 0usize..3,
    ) {
        let inputs: Vec<cm::RankInput> = ranks
            .iter()
            .map(|(gaps, markers, total)| {
                let ts: Vec<i64> = (0..gaps.len() as i64).map(|i| i * 50_000_000).collect();
                let mib = |v: f64| v * 1048576.0;
                RankSeries {
                    world_size: world,
                    kinds: PerKind {
                        device_used: Some(Series {
                            name: "u".into(),
                            ts_ns: ts.clone(),
                            value: gaps.iter().map(|&g| mib(1000.0 + f64::from(g))).collect(),
                        }),
                        allocator_reserved: Some(Series {
                            name: "r".into(),
                            ts_ns: ts.clone(),
                            value: vec![mib(1000.0); ts.len()],
                        }),
                        allocator_allocated: None,
                        device_total: total.then(|| Series {
                            name: "t".into(),
                            ts_ns: vec![0],
                            value: vec![mib(16384.0)],
                        }),
                    },
                    markers: markers
                        .iter()
                        .map(|&(a, d)| Marker {
                            start_ns: a * 1_000_000,
                            end_ns: (a + d) * 1_000_000,
                            name: "nccl".into(),
                        })
                        .collect(),
                    shared_clock: true,
                    ..Default::default()
                }
            })
            .enumerate()
            .map(|(r, series)| cm::RankInput { rank: r as u32, label: format!("r{r}"), series })
            .collect();
        let p = Params::preset([cm::Preset::Low, cm::Preset::Medium, cm::Preset::High][preset]);
        let rep = cm::run(&inputs, &p);
        for iv in &rep.intervals {
            prop_assert!(iv.start_ns <= iv.end_ns);
            prop_assert!((0.0..=1.0).contains(&iv.confidence));
            prop_assert!(iv.confidence >= p.min_confidence && iv.confidence > 0.0);
            prop_assert_eq!(iv.classification, cm::Classification::from_confidence(iv.confidence));
            let has = |c: &str| iv.reason_codes.iter().any(|x| x.as_str() == c);
            prop_assert!(has("gap_spike_statistical_outlier"));
            prop_assert!(!(has("weak_marker_signal") && has("marker_spike_overlap")));
            prop_assert!(!(has("single_rank_only") && has("cross_rank_synchrony")));
            prop_assert!((0.0..=1.0).contains(&iv.evidence.synchrony_ratio));
            if let Some(t) = rep.trace_start_ns { prop_assert!(iv.start_ns >= t); }
        }
        // Per rank, merged intervals do not touch.
        for w in rep.intervals.windows(2) {
            if w[0].rank == w[1].rank {
                prop_assert!(w[0].end_ns < w[1].start_ns);
            }
        }
    }
}
