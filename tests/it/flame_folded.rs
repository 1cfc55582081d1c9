//! `trialscope folded` (issue 13): folded stacks by semantic frame (`a;b;c <self ns>`) that
//! `inferno`'s flame-graph renderer (the library behind `inferno-flamegraph`) accepts and turns
//! into an SVG naming the frames — for a trace written by the tests' Perfetto builder and for a
//! real Chromium trace. The stacks' values add up to the trace's total self time.

use std::process::Command;

use trialscope::analysis::flame;
use trialscope::formats;

use crate::compare_perfetto::{trace, Noise};
use crate::support::corpus;

fn folded(path: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .arg("folded")
        .arg(path)
        .output()
        .expect("run trialscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn svg(lines: &str) -> String {
    let mut opts = inferno::flamegraph::Options::default();
    let mut out = Vec::new();
    inferno::flamegraph::from_lines(&mut opts, lines.lines(), &mut out).expect("inferno renders");
    String::from_utf8(out).expect("SVG is UTF-8")
}

fn check_format(text: &str) -> u64 {
    let mut total = 0u64;
    for line in text.lines() {
        let (stack, v) = line.rsplit_once(' ').expect("`stack value`");
        assert!(!stack.is_empty() && !stack.contains('\n'), "{line}");
        total += v.parse::<u64>().expect("integer ns");
    }
    total
}

#[test]
fn folded_stacks_of_a_written_trace_render_with_inferno() {
    let dir = std::env::temp_dir().join(format!("trialscope-folded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("one.pb");
    let bytes = trace(0, 5_000_000, 42, &mut Noise(1));
    std::fs::write(&path, &bytes).unwrap();
    let text = folded(&path);
    assert!(text.lines().any(|l| l.starts_with("Step;Gamma ")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("Step ")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("Idle ")), "{text}");
    // Values: self ns; the sum is the trace's total self time.
    let a = formats::import("one.pb", &bytes).unwrap();
    let self_total: i64 = a.model.self_times_ns().iter().sum();
    assert_eq!(check_format(&text), self_total as u64);
    // The library gives the same text.
    assert_eq!(
        text,
        flame::folded(&flame::extract(&a.model, &a.artifact_id))
    );
    let s = svg(&text);
    assert!(
        s.starts_with("<?xml") && s.contains("<svg"),
        "{}",
        &s[..200.min(s.len())]
    );
    for name in ["Step", "Gamma", "Alpha", "Idle"] {
        assert!(s.contains(name), "the SVG names {name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn folded_stacks_of_a_chromium_trace_render_with_inferno() {
    let text = folded(&corpus("chromium_scaling/scaling_n1000_r0.pb.gz"));
    assert!(check_format(&text) > 0);
    assert!(text.lines().count() > 100);
    let s = svg(&text);
    for name in ["scalingBuildDom", "RunTask"] {
        assert!(s.contains(name), "the SVG names {name}");
    }
}
