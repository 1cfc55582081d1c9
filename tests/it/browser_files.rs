//! What the web app says about the files a person drops, next to what `trialscope` says about
//! the same files:
//!
//! * `file_reports_name_facts_as_inspect_does`: a corpus trial's "File reports" entry, opened,
//!   shows each fact under the label `trialscope inspect` prints it with (the JSON's field
//!   names: `artifact_id`, `events`, `world_size`, `hostname`, …) and the same value, and the
//!   size worded as the CLI words it (`N bytes (M decompressed)`).
//! * `an_empty_file_is_a_named_skip`: a 0-byte file picked with a trace is listed as skipped,
//!   by name with `(empty)` as the CLI's folder note marks it, never as an unreadable file; the
//!   trace beside it still loads.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use fantoccini::Locator;
use harness::{
    assert_local_only, assert_visible, connect, count, dist, seen_text, serial, tmp, wait_until,
    Driver, Server,
};

fn trial() -> PathBuf {
    crate::support::corpus("chromium_scaling/scaling_n1000_r0.pb.gz")
        .canonicalize()
        .expect("../shared/corpus/chromium_scaling beside the checkout")
}

/// `trialscope inspect` (text) of `args`: stdout and stderr.
fn inspect(args: &[&std::path::Path]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .arg("inspect")
        .args(args)
        .output()
        .expect("the trialscope binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `label value` pairs of `inspect`'s text for one file (its lines after the path, split
/// on the two spaces between facts), without the diagnostics.
fn cli_facts(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let line = line.trim();
        if line.starts_with("diagnostics") {
            break;
        }
        for part in line.split("  ") {
            // The size has no label: `N bytes (M decompressed)`.
            if part.contains(" bytes (") {
                out.push(("size".to_string(), part.to_string()));
            } else if let Some((k, v)) = part.split_once(' ') {
                out.push((k.to_string(), v.to_string()));
            }
        }
    }
    out
}

#[test]
fn file_reports_name_facts_as_inspect_does() {
    let path = trial();
    let (text, _) = inspect(&[&path]);
    let facts = cli_facts(&text);
    let labels: Vec<&str> = facts.iter().map(|(k, _)| k.as_str()).collect();
    for want in [
        "format",
        "compression",
        "size",
        "artifact_id",
        "events",
        "slices",
        "world_size",
        "hostname",
    ] {
        assert!(labels.contains(&want), "inspect printed no {want}: {text}");
    }
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    serial(async {
        let server = Server::start(dist(), harness::PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let input = harness::open_without_demo(&c, &server, "#file-input").await;
        input.send_keys(&path.display().to_string()).await.unwrap();
        wait_until(Duration::from_secs(120), "the file's report", || async {
            (count(&c, "[data-testid=file-report]").await == 1).then_some(())
        })
        .await;
        for (label, value) in &facts {
            let css = format!(
                "[data-testid=file-report][data-file=\"{name}\"] dd[data-fact=\"{label}\"]"
            );
            let shown = seen_text(&c, &css)
                .await
                .unwrap_or_else(|| panic!("the web app's file report shows no {label}"));
            assert_eq!(shown.trim(), value, "{label}");
        }
        // The labels a person reads are the same words.
        let dts: Vec<String> = {
            let mut v = Vec::new();
            for el in c
                .find_all(Locator::Css("[data-testid=file-report] dt"))
                .await
                .unwrap()
            {
                v.push(el.text().await.unwrap());
            }
            v
        };
        for (label, _) in &facts {
            assert!(dts.contains(label), "no label {label} in {dts:?}");
        }
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

#[test]
fn an_empty_file_is_a_named_skip() {
    let dir = tmp().join("empty-drop");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("placeholder_n2.pb");
    std::fs::write(&empty, b"").unwrap();
    let path = trial();
    std::fs::copy(&path, dir.join("scaling_n1000_r0.pb.gz")).unwrap();
    // The CLI on the folder: the empty file is a named skip, marked `(empty)`.
    let (_, stderr) = inspect(&[&dir]);
    assert!(
        stderr.contains("placeholder_n2.pb (empty)"),
        "the CLI's note: {stderr}"
    );
    serial(async {
        let server = Server::start(dist(), harness::PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let input = harness::open_without_demo(&c, &server, "#file-input").await;
        let picked = format!("{}\n{}", empty.display(), path.display());
        input.send_keys(&picked).await.unwrap();
        wait_until(Duration::from_secs(120), "the trace's row", || async {
            (count(&c, "tr[data-testid=trial-row] [data-testid=format]").await == 1).then_some(())
        })
        .await;
        let note = assert_visible(&c, "[data-testid=skipped-files]").await;
        assert!(note.contains("placeholder_n2.pb (empty)"), "{note}");
        assert!(note.starts_with("Skipped 1 empty file"), "{note}");
        // Not failed as an unreadable trace, and not a trial row.
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        assert_eq!(count(&c, "tr[data-testid=trial-row]").await, 1);
        assert_eq!(
            count(
                &c,
                "tr[data-testid=trial-row][data-file=\"placeholder_n2.pb\"]"
            )
            .await,
            0
        );
        // "Clear" forgets the note with the files.
        c.find(Locator::Css("[data-testid=clear]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_until(Duration::from_secs(20), "the note gone", || async {
            (count(&c, "[data-testid=skipped-files]").await == 0).then_some(())
        })
        .await;
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
