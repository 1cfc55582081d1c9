//! Folder arguments and what a folder may hold beside its traces, as a user runs the CLI: a
//! folder with the traces and the `agg/` folder `trialscope summarize` made of them counts each
//! trial once (one artifact is one trial, a note naming both paths; the same rule in the
//! workspace the web app's drops go through, in either order).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::corpus;

/// Runs the CLI: (exit code, stdout, stderr).
pub fn trialscope(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh scratch folder for test `name`.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ts-cli-folders-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The six Chromium trials at N = 1000 and 2000 (three runs each), copied into `dir`.
fn six_trials(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for n in [1000, 2000] {
        for r in 0..3 {
            let name = format!("scaling_n{n}_r{r}.pb.gz");
            let to = dir.join(&name);
            std::fs::copy(corpus("chromium_scaling").join(&name), &to).unwrap();
            out.push(to);
        }
    }
    out
}

#[test]
fn a_folder_with_traces_and_their_aggregates_counts_each_trial_once() {
    let d = scratch("agg");
    let traces = six_trials(&d);
    let agg = d.join("agg");
    let mut args = vec!["summarize", "--out", agg.to_str().unwrap()];
    args.extend(traces.iter().map(|p| p.to_str().unwrap()));
    let (code, _, err) = trialscope(&args);
    assert_eq!(code, Some(0), "{err}");

    // The traces alone, then the folder holding them and `agg/`: the same report, byte for
    // byte (6 trials, not 12), and a note per trial naming the aggregate and the trace.
    let mut alone = vec!["scaling", "--json"];
    alone.extend(traces.iter().map(|p| p.to_str().unwrap()));
    let (c1, o1, e1) = trialscope(&alone);
    let (c2, o2, e2) = trialscope(&["scaling", "--json", d.to_str().unwrap()]);
    assert_eq!((c1, c2), (Some(0), Some(0)), "{e1}\n{e2}");
    let v: Value = serde_json::from_str(&o2).unwrap();
    assert_eq!(v["trials"].as_array().unwrap().len(), 6, "{e2}");
    assert!(
        o1 == o2,
        "the folder with agg/ gives another report than its traces\n{e2}"
    );
    let notes: Vec<&str> = e2.lines().filter(|l| l.contains("same artifact")).collect();
    assert_eq!(notes.len(), 6, "{e2}");
    for t in &traces {
        let t = t.display().to_string();
        let note = notes.iter().find(|l| l.contains(&t)).expect(&t);
        assert!(
            note.contains("agg/trials/") && note.contains(".parquet"),
            "{note}"
        );
    }

    // The aggregate folder alone still gives the six trials, and a trace given beside it is
    // counted once: 6 trials, one note.
    let (_, o3, _) = trialscope(&["scaling", "--json", agg.to_str().unwrap()]);
    let v3: Value = serde_json::from_str(&o3).unwrap();
    assert_eq!(v3["trials"].as_array().unwrap().len(), 6);
    let (_, o4, e4) = trialscope(&[
        "scaling",
        "--json",
        agg.to_str().unwrap(),
        traces[0].to_str().unwrap(),
    ]);
    let v4: Value = serde_json::from_str(&o4).unwrap();
    assert_eq!(v4["trials"].as_array().unwrap().len(), 6, "{e4}");
    assert_eq!(e4.matches("same artifact").count(), 1, "{e4}");

    // The workspace the web app's drops go through: the aggregate files dropped first, then
    // one of the traces (its artifact's aggregate trial gives way), then the trace removed
    // (the aggregate trial comes back).
    let mut ws = trialscope::workspace::Workspace::new();
    let mut id = 0;
    let mut parquet: Vec<PathBuf> = Vec::new();
    for table in ["trials", "frames", "frame_costs", "unmatched_costs"] {
        for f in std::fs::read_dir(agg.join(table)).unwrap() {
            parquet.push(f.unwrap().path());
        }
    }
    parquet.sort();
    for p in &parquet {
        let name = p.strip_prefix(&d).unwrap().display().to_string();
        let _ = ws.add(id, &name, &std::fs::read(p).unwrap(), &mut |_| {});
        id += 1;
    }
    let trials = |ws: &trialscope::workspace::Workspace| {
        ws.entries().iter().filter(|e| e.trace().is_some()).count()
    };
    assert_eq!(trials(&ws), 6);
    assert!(ws.duplicates().is_empty());
    let name = traces[0].file_name().unwrap().to_str().unwrap();
    ws.add(id, name, &std::fs::read(&traces[0]).unwrap(), &mut |_| {})
        .unwrap();
    assert_eq!(trials(&ws), 6, "one artifact, one trial");
    assert_eq!(ws.duplicates().len(), 1);
    assert!(ws.duplicates()[0].1.contains(name), "{:?}", ws.duplicates());
    ws.remove(id);
    assert_eq!(trials(&ws), 6);
    assert!(ws.duplicates().is_empty());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_empty_file_in_a_folder_is_a_named_skip_and_named_itself_fails() {
    let d = scratch("empty");
    let trace = d.join("scaling_n1000_r0.pb.gz");
    std::fs::copy(corpus("chromium_scaling/scaling_n1000_r0.pb.gz"), &trace).unwrap();
    let empty = d.join("scaling_n2000_r0.pb.gz");
    std::fs::write(&empty, b"").unwrap();
    std::fs::write(d.join("README.txt"), b"trials of the DOM benchmark\n").unwrap();
    let (dir, empty_s) = (d.to_str().unwrap(), empty.display().to_string());

    // In a folder: skipped and listed by name (marked empty), like the README; exit 0.
    for cmd in ["inspect", "scaling"] {
        let (code, out, err) = trialscope(&[cmd, "--json", dir]);
        assert_eq!(code, Some(0), "{cmd}: {err}");
        assert!(!err.contains("error"), "{cmd}: {err}");
        let note = err
            .lines()
            .find(|l| l.starts_with("note: skipped 2 file(s)"))
            .unwrap_or_else(|| panic!("{cmd}: {err}"));
        assert!(note.contains(&format!("{empty_s} (empty)")), "{note}");
        assert!(note.contains("README.txt"), "{note}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let files = if cmd == "inspect" {
            v.as_array().unwrap().len()
        } else {
            v["trials"].as_array().unwrap().len()
        };
        assert_eq!(files, 1, "{cmd}: only the trace");
    }
    // `summarize` over the folder by the same rule: the empty file is a skipped row.
    let agg = d.join("agg").display().to_string();
    let (code, _, err) = trialscope(&["summarize", "--out", &agg, dir]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("1 trace(s), 0 failed, 2 skipped"), "{err}");

    // Named on the command line: a failure naming the file, exit 1.
    let (code, _, err) = trialscope(&["inspect", &empty_s]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("error: {empty_s}: the file is empty")),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn json_that_is_neither_a_trace_nor_records_is_no_record_file() {
    use trialscope::formats::{self, ImportError, LoadOptions, Loaded};
    let load = |name: &str, text: &str| {
        formats::load(name, text.as_bytes(), &LoadOptions::default(), &mut |_| {})
    };
    let package =
        "{\n  \"name\": \"bench\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {}\n}\n";
    for (name, text) in [
        ("package.json", package),
        ("a.json", "{\"a\":1}"),
        ("objects.json", "[{\"a\":1},{\"b\":2}]"),
        ("lines.jsonl", "{\"event\":\"gc\"}\n{\"event\":\"gc\"}\n"),
    ] {
        match load(name, text) {
            Err(e) => {
                assert!(
                    matches!(e.error, ImportError::NotATrace { .. }),
                    "{name}: {e}"
                );
                let m = e.to_string();
                assert!(
                    m.starts_with(&format!("{name}: not a trace I can read")),
                    "{m}"
                );
                assert!(m.contains("nor a compile-record file"), "{m}");
            }
            Ok(l) => panic!("{name}: read as {}", l.kind()),
        }
    }
    // The records' shape: one object with a key field (malformed here: most are missing), or
    // the `records` container; entries of another kind beside a record are still listed.
    let records = |name: &str, text: &str| match load(name, text) {
        Ok(Loaded::Records { records, .. }) => records,
        Ok(l) => panic!("{name}: read as {}", l.kind()),
        Err(e) => panic!("{e}"),
    };
    let r = records("one.json", "[{\"cell\":\"mlp\"},{\"a\":1}]");
    assert_eq!((r.malformed.len(), r.other_kind.len()), (1, 1));
    assert!(records("none.json", "{\"records\": []}").is_empty());
    // An empty event array is still an (empty) trace.
    assert!(matches!(load("t.json", "[]"), Ok(Loaded::Trace(_))));

    // On the command line: skipped inside a folder (the triage still reads the records
    // beside them), an error naming the file when named.
    let d = scratch("json");
    std::fs::write(d.join("package.json"), package).unwrap();
    std::fs::write(d.join("a.json"), "{\"a\":1}").unwrap();
    std::fs::copy(
        corpus("jax_compile/baseline.jsonl"),
        d.join("baseline.jsonl"),
    )
    .unwrap();
    let (code, out, err) = trialscope(&["triage", "--json", d.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let note = err
        .lines()
        .find(|l| l.starts_with("note: skipped 2 file(s)"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        note.contains("a.json") && note.contains("package.json"),
        "{note}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["warm_rows"], 36, "{out:.300}");
    let a = d.join("a.json").display().to_string();
    let (code, _, err) = trialscope(&["triage", &a]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "error: {a}: not a trace I can read: JSON that is neither"
        )),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compare_names_a_missing_folder_and_a_glob_matching_nothing_like_the_other_subcommands() {
    let c = corpus("chromium_scaling").display().to_string();
    let base = format!("{c}/scaling_n1000_r*.pb.gz");
    let missing = "/nonexistent-trialscope-dir".to_string();
    let no_match = format!("{c}/nomatch_*.pb.gz");
    // Every subcommand: a path that names nothing is a failed input, named, exit 1.
    for arg in [&missing, &no_match] {
        for cmd in ["scaling", "triage", "memory", "inspect"] {
            let (code, _, err) = trialscope(&[cmd, arg]);
            assert_eq!(code, Some(1), "{cmd} {arg}: {err}");
            assert!(err.contains(&format!("error: {arg}: ")), "{cmd}: {err}");
        }
        // compare: the same exit code and a line naming it, for either side; the comparison
        // of the rest is still printed.
        for sides in [[arg.as_str(), &base], [&base, arg.as_str()]] {
            let (code, out, err) = trialscope(&[
                "compare",
                "--json",
                "--baseline",
                sides[0],
                "--candidate",
                sides[1],
            ]);
            assert_eq!(code, Some(1), "compare {sides:?}: {err}");
            assert!(err.contains(&format!("error: {arg}: ")), "{err}");
            let v: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["trials"].as_array().unwrap().len(), 3, "{err}");
        }
    }
    // Usage errors stay 2: a file on both sides.
    let (code, _, err) = trialscope(&["compare", "--baseline", &base, "--candidate", &base]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is on both sides"), "{err}");
}

#[test]
fn inspect_text_json_and_readme_use_one_term_for_the_host() {
    let dir = std::fs::read_dir(corpus("jax_profile/plugins/profile"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let files = [
        dir.join("perfetto_trace.json.gz"),
        dir.join("vm.trace.json.gz"),
    ];
    let files: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let mut json = vec!["inspect", "--json"];
    json.extend(&files);
    let mut text = vec!["inspect"];
    text.extend(&files);
    let (_, out, err) = trialscope(&json);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(v[0]["hostname"], "vm", "the host from the sibling file");
    let (_, out, _) = trialscope(&text);
    // The facts line: `rank R  world_size W  hostname H`, each label a JSON field name.
    let facts = out
        .lines()
        .find(|l| l.trim_start().starts_with("rank "))
        .unwrap_or_else(|| panic!("{out}"));
    let words: Vec<&str> = facts.split_whitespace().collect();
    assert_eq!(
        words,
        ["rank", "-", "world_size", "-", "hostname", "vm"],
        "{facts}"
    );
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let bullet = readme
        .split("\n* ")
        .find(|b| b.starts_with("`inspect [--json] FILE...`"))
        .expect("README documents inspect");
    for label in ["rank", "world_size", "hostname"] {
        assert!(v[0].get(label).is_some(), "JSON field {label}");
        assert!(
            bullet.contains(&format!("`{label}`")),
            "README names `{label}`:\n{bullet}"
        );
    }
    assert!(
        !bullet.contains(" host)") && !bullet.contains("rank or host."),
        "{bullet}"
    );
}

/// Ranks whose clocks have different origins (the Chromium trace's boot-time clock beside the
/// PyTorch ranks' Unix-epoch one) differ by more than the 2^53 ns every front end clamps the
/// skew to: the text says so instead of printing the clamp's digits as a skew. (The Chromium
/// trace is `heavy_default`, whose collective-like markers give it a lane; the scaling trials
/// have neither memory series nor markers, so no lane.)
#[test]
fn a_skew_past_the_clamp_is_said_not_printed_as_its_digits() {
    let chromium = corpus("chromium_large/heavy_default.pb.gz");
    let torch = corpus("torch_multirank");
    let (code, out, err) = trialscope(&[
        "memory",
        chromium.to_str().unwrap(),
        torch.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let header = out.lines().next().unwrap_or_default();
    assert!(
        header.contains("skew over 104 days (clamped)"),
        "header: {header}"
    );
    assert!(!out.contains("9007199254"), "{out}");
    // The torch ranks alone keep their skew in ms.
    let (code, out, err) = trialscope(&["memory", torch.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.lines()
            .next()
            .unwrap_or_default()
            .contains("(skew 11.723 ms)"),
        "{out}"
    );
}

/// A review found a file named more than once counted as that many trials: `compare` with
/// two trials per side, each named three times, reported "6 baseline vs 6 candidate" and a
/// verdict (`slower`, p = 0.004) from two real trials per side; a symlink loop inside a folder
/// made one trace 41 trials; `summarize` of 30 copies of one trace failed as its workers
/// renamed one temporary file. Now every file is read once (a note names each repeat), a
/// folder reached again is not walked again, and each write has its own temporary name.
#[test]
fn a_file_named_twice_is_one_trial() {
    let d = scratch("repeats");
    let t = six_trials(&d);
    let s = |p: &PathBuf| p.to_str().unwrap().to_string();
    let dotted = |p: &PathBuf| {
        format!(
            "{}/./{}",
            d.display(),
            p.file_name().unwrap().to_str().unwrap()
        )
    };
    // Baseline: trials r0, r1 of N = 1000, each named three ways; candidate: r0, r1 of 2000.
    let mut args = vec!["compare".to_string(), "--json".into(), "--baseline".into()];
    for p in &t[..2] {
        args.extend([s(p), s(p), dotted(p)]);
    }
    args.push("--candidate".into());
    for p in &t[3..5] {
        args.extend([s(p), s(p), s(p)]);
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = trialscope(&argv);
    assert_eq!(code, Some(0), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["baseline_trials"], 2, "{}", v["statement"]);
    assert_eq!(v["candidate_trials"], 2, "{}", v["statement"]);
    assert_eq!(v["enough_trials"], false);
    assert_eq!(err.matches(": read once").count(), 8, "{err}");
    // The same file on both sides, however it is spelled, is a usage error.
    let (code, _, err) = trialscope(&[
        "compare",
        "--baseline",
        &s(&t[0]),
        "--candidate",
        &dotted(&t[0]),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is on both sides"), "{err}");

    // A symlink loop (and a second link to the same folder) inside a folder argument.
    #[cfg(unix)]
    {
        let sub = d.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::os::unix::fs::symlink("..", sub.join("up")).unwrap();
        std::os::unix::fs::symlink(&d, d.join("again")).unwrap();
        let (code, out, err) = trialscope(&["inspect", "--json", d.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v.as_array().map(Vec::len), Some(6), "{err}");
    }

    // 30 copies of one trace (one artifact): every table written, none lost to a rename.
    let same = scratch("repeats-same");
    for i in 0..30 {
        std::fs::copy(&t[0], same.join(format!("c{i:02}.pb.gz"))).unwrap();
    }
    let agg = same.join("agg");
    let (code, out, err) = trialscope(&[
        "summarize",
        "--jobs",
        "2",
        "--out",
        agg.to_str().unwrap(),
        same.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    std::fs::remove_dir_all(&d).ok();
    std::fs::remove_dir_all(&same).ok();
}
