//! Cost of `scaling::run` at the size the browser worker must handle: 18 trials × 2,000 semantic
//! frames, 6 inputs × 3 repetitions, half of the frames growing with the input (so ~1,000
//! significant groups get bootstrap CIs of 1,999 resamples per point). Synthetic profiles (the
//! cost of `run` does not depend on where they came from). Prints the time; asserts the result
//! is sane and, in an optimized build, under a generous bound.
//!
//! Run: `cargo test --release --test it scaling_cost -- --nocapture`.

use trialscope::analysis::scaling::{
    self, FrameDescription, FrameTotals, Params, Trial, TrialProfile,
};
use trialscope::analysis::stats::SplitMix64;

fn trials() -> Vec<Trial> {
    let mut rng = SplitMix64::new(3);
    let mut out = Vec::new();
    for (k, x) in [1000.0, 2000.0, 4000.0, 8000.0, 16000.0, 32000.0]
        .iter()
        .enumerate()
    {
        for rep in 0..3 {
            let frames = (0..2000)
                .map(|f| {
                    let noise = (rng.next_u64() % 1000) as i64;
                    let ns = if f % 2 == 0 {
                        (x * 100.0) as i64 + noise
                    } else {
                        50_000 + noise
                    };
                    FrameTotals {
                        frame: FrameDescription {
                            semantic_frame_id: format!("sf1:{f:064x}"),
                            provider: "perfetto.track_event".into(),
                            name: format!("frame{f}"),
                            category: "cat".into(),
                            file: None,
                            line: None,
                            function: None,
                            posted_from: None,
                        },
                        inclusive_ns: ns,
                        self_ns: ns / 2,
                        count: 1,
                    }
                })
                .collect();
            out.push(Trial {
                path: format!("t_n{x}_r{rep}.pb"),
                input: Some(*x),
                variant: "default".into(),
                environment: String::new(),
                excluded: false,
                profile: TrialProfile {
                    artifact_id: format!("sha256:{k}{rep}"),
                    frames,
                    unmatched: vec![],
                    data_loss: false,
                    environment: String::new(),
                    incomplete_slices: 0,
                },
            });
        }
    }
    out
}

#[test]
fn run_on_18_trials_of_2000_frames_is_fast() {
    let t = trials();
    let start = std::time::Instant::now();
    let r = scaling::run(&t, &Params::default());
    let elapsed = start.elapsed();
    let with_ci = r.hotspots.iter().filter(|h| h.ci_computed).count();
    eprintln!(
        "scaling::run: {} groups tested, {} significant, {} with bootstrap CIs: {:.3} s",
        r.tested_hypotheses,
        r.significant,
        with_ci,
        elapsed.as_secs_f64()
    );
    assert_eq!(r.tested_hypotheses, 2000);
    assert!(r.significant >= 1000);
    assert!(with_ci >= 1000);
    if !cfg!(debug_assertions) {
        assert!(elapsed.as_secs_f64() < 5.0, "{elapsed:?}");
    }
}
