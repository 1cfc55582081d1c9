//! The CLI's output as a pipeline sees it (issue 10, point 5): `inspect` prints each file's
//! result as soon as its facts are final (its directory complete), never one whose facts a
//! later sibling could still change; every subcommand ends quietly (exit 0, no panic, no
//! "Broken pipe") when stdout is closed; no `println!`/`eprintln!` is left in the CLI.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use trialscope::model::facts::Facts;
use trialscope::workspace::Workspace;

use crate::support::corpus;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trialscope"))
}

/// A fresh temporary directory for one test.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "trialscope_cli_stream_{tag}_{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The JAX run directory: `perfetto_trace.json.gz` (no host of its own) sorts before
/// `vm.trace.json.gz`, whose name gives it its host.
fn jax_dir() -> PathBuf {
    std::fs::read_dir(corpus("jax_profile/plugins/profile"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
}

/// A rank-less PyTorch trace followed by a sibling that states rank 0: the first one's
/// assigned rank is 0 until the second arrives, then 1.
fn rank_group(d: &Path) -> [PathBuf; 2] {
    let a = d.join("worker_a.pt.trace.json");
    let b = d.join("zz_rank0.trace.json.gz");
    std::fs::copy(
        corpus("quirks/B10_missing_distributed_info/worker_a.pt.trace.json"),
        &a,
    )
    .unwrap();
    std::fs::copy(corpus("torch_multirank/rank0.trace.json.gz"), &b).unwrap();
    [a, b]
}

#[test]
fn add_paths_each_hands_over_final_facts_in_path_order() {
    let d = temp_dir("facts");
    let [a, b] = rank_group(&d);
    let jax = jax_dir();
    // Groups interleaved on purpose: the rank group is split by a loose file of another
    // directory, and a folder argument (the JAX run, whose XSpace file is skipped) sits between.
    let paths = vec![
        a.clone(),
        corpus("quirks/B15_unbalanced_begin_end.json"),
        jax.clone(),
        b.clone(),
        corpus("quirks/B01_trailing_comma.json"),
    ];
    let mut ws = Workspace::new();
    let mut seen: Vec<(String, Facts)> = Vec::new();
    let mut errors = Vec::new();
    ws.add_paths_each(&paths, &mut |m| errors.push(m.to_string()), &mut |e| {
        seen.push((e.name().to_string(), e.facts.clone()))
    });
    // The XSpace file inside the folder argument is no format this tool reads: skipped and
    // listed, not an error.
    assert!(errors.is_empty(), "{errors:?}");
    assert!(
        ws.skipped().len() == 1 && ws.skipped()[0].message.contains("vm.xplane.pb"),
        "{:?}",
        ws.skipped()
    );
    // Every loaded file once, in order, with the facts the whole batch derives.
    let fin: Vec<(String, Facts)> = ws
        .entries()
        .iter()
        .map(|e| (e.name().to_string(), e.facts.clone()))
        .collect();
    assert_eq!(seen, fin);
    let rank_of = |p: &Path| {
        let n = p.display().to_string();
        seen.iter().find(|(s, _)| *s == n).unwrap().1.rank
    };
    assert_eq!(rank_of(&a), Some(1), "the later sibling states rank 0");
    assert_eq!(rank_of(&b), Some(0));
    let host = seen
        .iter()
        .find(|(s, _)| s.ends_with("perfetto_trace.json.gz"))
        .unwrap();
    assert_eq!(host.1.hostname.as_deref(), Some("vm"));
    // The same as loading the batch at once.
    let mut once = Workspace::new();
    once.add_paths(&paths, &mut |_| {});
    let fin_once: Vec<(String, Facts)> = once
        .entries()
        .iter()
        .map(|e| (e.name().to_string(), e.facts.clone()))
        .collect();
    assert_eq!(fin, fin_once);
    let _ = std::fs::remove_dir_all(&d);
}

/// `trialscope inspect` on finished files of two directories, then a FIFO in a third that no
/// one writes yet: the finished files are printed (with the facts their siblings give them)
/// while the process is still blocked reading the FIFO.
#[cfg(unix)]
#[test]
fn inspect_prints_each_file_before_reading_the_next_directory() {
    let d = temp_dir("fifo");
    let g = d.join("ranks");
    std::fs::create_dir_all(&g).unwrap();
    let [a, b] = rank_group(&g);
    let jax = jax_dir();
    let slow_dir = d.join("slow");
    std::fs::create_dir_all(&slow_dir).unwrap();
    let fifo = slow_dir.join("slow.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());

    let mut child = bin()
        .arg("inspect")
        .arg(&a)
        .arg(&b)
        .arg(jax.join("perfetto_trace.json.gz"))
        .arg(jax.join("vm.trace.json.gz"))
        .arg(&fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    // Read until the fourth file's block is complete (its `diagnostics` line).
    let mut lines: Vec<String> = Vec::new();
    let mut blocks = 0;
    while blocks < 4 {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(l) => {
                if l.starts_with("  diagnostics") {
                    blocks += 1;
                }
                lines.push(l);
            }
            Err(e) => {
                let _ = child.kill();
                panic!("no output for the finished files ({e:?}): {lines:?}");
            }
        }
    }
    // Still blocked on the FIFO: the output came before the process ended.
    assert!(child.try_wait().unwrap().is_none(), "{lines:?}");
    let text = lines.join("\n");
    let block = |name: &str| {
        let i = lines.iter().position(|l| l.ends_with(name)).unwrap();
        lines[i..]
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        block("worker_a.pt.trace.json").contains("rank 1 "),
        "{text}"
    );
    assert!(
        block("perfetto_trace.json.gz").contains("hostname vm"),
        "{text}"
    );
    assert!(!text.contains("slow.json"), "{text}");

    // Unblock: the FIFO delivers a small good trace, and the process finishes.
    std::fs::write(
        &fifo,
        std::fs::read(corpus("quirks/B15_unbalanced_begin_end.json")).unwrap(),
    )
    .unwrap();
    let mut rest = Vec::new();
    while let Ok(l) = rx.recv_timeout(Duration::from_secs(120)) {
        rest.push(l);
    }
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    // The rest of the fourth block, then the FIFO's.
    assert!(rest.iter().any(|l| l.ends_with("slow.json")), "{rest:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Every subcommand run with a stdout whose reader is already gone.
#[test]
fn every_subcommand_exits_quietly_on_a_closed_stdout() {
    let d = temp_dir("pipe");
    let scaling: Vec<PathBuf> = std::fs::read_dir(corpus("chromium_scaling"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
        .collect();
    let trace = corpus("quirks/B15_unbalanced_begin_end.json");
    let records = corpus("jax_compile/baseline.jsonl");
    let torch = corpus("torch_multirank/rank0.trace.json.gz");
    let pins = d.join("pins.json");
    let made = bin()
        .arg("pin")
        .arg("--out")
        .arg(&pins)
        .arg(&records)
        .status()
        .unwrap();
    assert!(made.success());
    let s = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
    let cases: Vec<Vec<PathBuf>> = vec![
        [s(&["scaling"]), scaling.clone()].concat(),
        [s(&["scaling", "--json"]), scaling.clone()].concat(),
        [s(&["inspect"]), vec![trace.clone(), torch.clone()]].concat(),
        [s(&["inspect", "--json"]), vec![trace.clone()]].concat(),
        [s(&["slices"]), vec![trace.clone()]].concat(),
        [s(&["slices", "--json"]), vec![trace.clone()]].concat(),
        [s(&["memory"]), vec![torch.clone()]].concat(),
        [s(&["memory", "--json"]), vec![torch.clone()]].concat(),
        [s(&["triage"]), vec![records.clone()]].concat(),
        [
            s(&["triage", "--json", "--pins"]),
            vec![pins.clone(), records.clone()],
        ]
        .concat(),
        [s(&["pin"]), vec![records.clone()]].concat(),
        [s(&["bench", "--runs", "1"]), vec![trace.clone()]].concat(),
        [s(&["bench", "--runs", "1", "--json"]), vec![trace.clone()]].concat(),
        [
            s(&["compare", "--baseline"]),
            scaling[..3].to_vec(),
            s(&["--candidate"]),
            scaling[3..6].to_vec(),
        ]
        .concat(),
        [s(&["folded"]), vec![scaling[0].clone()]].concat(),
    ];
    for args in &cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = bin()
            .args(args)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The table's case: `trialscope scaling --json … | head -c 10` (the report is far larger
/// than a pipe's buffer, so the process is still writing when the reader goes).
#[test]
fn scaling_json_into_head_c_10() {
    let mut child = bin()
        .arg("scaling")
        .arg("--json")
        .arg(corpus("chromium_scaling"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    stdout.read_exact(&mut first).unwrap();
    assert_eq!(first[0], b'{');
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// `println!`/`eprintln!` panic when their stream is closed: the CLI writes through
/// `cli::load::write_stdout` / `write_stderr` (the `outln!`/`errln!` macros) only.
#[test]
fn the_cli_has_no_panicking_print() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin/trialscope");
    let mut stack = vec![root];
    let mut found = Vec::new();
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&p).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for m in ["println!(", "print!(", "eprintln!(", "eprint!("] {
                    if code.contains(m) {
                        found.push(format!("{}:{}: {m}", p.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(files >= 8);
    assert!(found.is_empty(), "{found:#?}");
}
