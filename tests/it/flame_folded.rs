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

/// A review found `folded` building its whole text before printing: 40,000 nested frames gave
/// 1.6 GB of text (it grows with depth²) and a 1.57 GB peak. The text is now streamed. Here
/// 10,000 nested frames make 400 MB of folded text: the first lines arrive while the process
/// is still writing, and with the pipe full (this test stops reading) its peak resident memory
/// is a fraction of the text; then the whole text is read and its size checked exactly.
#[cfg(target_os = "linux")]
#[test]
fn deep_stacks_are_streamed_not_held() {
    use std::io::Read as _;
    let n: u64 = 10_000;
    let mut json = String::from("[");
    for i in 0..n {
        if i > 0 {
            json.push(',');
        }
        // Each slice encloses the next, with 2 µs of self time.
        json.push_str(&format!(
            r#"{{"ph":"X","name":"fn{i:05}","pid":1,"tid":1,"ts":{i},"dur":{}}}"#,
            2 * n - 2 * i
        ));
    }
    json.push(']');
    let dir = std::env::temp_dir().join(format!("trialscope-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deep.json");
    std::fs::write(&path, json).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .arg("folded")
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run trialscope");
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0u8; 1 << 20];
    stdout.read_exact(&mut head).expect("the first MiB of text");
    assert!(head.starts_with(b"fn00000 2000\nfn00000;fn00001 2000\n"));
    // The process now blocks on the full pipe, mid-text.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let hwm_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    let mut rest = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let k = stdout.read(&mut buf).unwrap();
        if k == 0 {
            break;
        }
        rest += k as u64;
    }
    assert!(child.wait().unwrap().success());
    // Line d (1-based) is d names of 7 bytes joined by ';', then " 2000\n": 8d + 5 bytes.
    let total = 8 * n * (n + 1) / 2 + 5 * n;
    assert_eq!(head.len() as u64 + rest, total);
    assert!(
        hwm_kb < 100 << 10,
        "peak {hwm_kb} kB while writing {total} bytes of folded text"
    );
    std::fs::remove_dir_all(&dir).ok();
}
