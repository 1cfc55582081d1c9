//! Big traces and many trials in headless Chromium (issue #9, items 3, 4 and 6), through the
//! file input as a person picks files:
//!
//! * `browser_scale_200mb_traces` (every run): a generated ~300 MB Perfetto trace (200 MB until
//!   its import worker stayed under the pool's replacement threshold)
//!   (`trialscope bench --generate-perfetto`) and a ~200 MB Kineto JSON
//!   (`support::kineto_gen`), each in a fresh browser: the file's own progress bar and the
//!   batch's bar are visible and advance while it loads, then the file is in the trial table
//!   with its format and slice count; the page stays responsive (no main-thread task of 50 ms or
//!   more: `PerformanceObserver` `longtask` entries) while it loads. The longest task, the
//!   10 ms timer probe's longest gap, the tab's peak memory (RSS of the renderer processes,
//!   which hold the page and its workers) and the worker import MB/s are printed.
//! * `browser_scale_200_trials` (every run): 200 small Perfetto traces picked at once, one of
//!   them made to crash its import worker (`?testhook=panic-on:<file>`): the batch's progress
//!   shows, 199 trials reach the trial table with their slice counts, the crashed one fails
//!   alone with its name, the hotspot table and the scatter plot show the 199 trials, and no
//!   main-thread task reaches 500 ms while they load (the < 50 ms target is printed, not met
//!   with 200 files: see README "Crash isolation and parallel import in the web app").
//! * `benchmark_browser_scale` (`#[ignore]`, a harness, not a timed test): the 1 GB generated
//!   Perfetto trace and 1 GB Kineto JSON as above, the 59 MB Chromium trace, the 18 demo
//!   trials from pick to hotspot table, each Perfetto file next to the Python upb decode of the
//!   same bytes in the same run and the Kineto JSON next to `json.loads` of the same bytes
//!   (`tools/bench/peers.py`, venv `target/peervenv`; files of 400 MB or more decoded in 64 MB
//!   pieces, so the peer's memory stays bounded).
//!
//!   `TRIALSCOPE_SCALE_ONLY=perfetto1g` (comma-separated: `heavy`, `heavyraw` — the same
//!   trace uncompressed —, `perfetto1g`, `kineto1g`, `demo`, `many` — the 200 small trials
//!   without the crashing one) runs only those parts (`heavyraw` and `many` only when named).
//!   `heavy` and `heavyraw` run `TRIALSCOPE_SCALE_RUNS` times (1) on this site and, when
//!   `TRIALSCOPE_BASELINE_DIST` names one, on that site too, interleaved. The batches (`demo`, `many`) run `TRIALSCOPE_SCALE_RUNS` times
//!   (3), each run also on the site whose `dist/` `TRIALSCOPE_BASELINE_DIST` names (e.g.
//!   main's), interleaved; each prints pick → hotspot table, worker MB/s, the long tasks
//!   (with the worker message before each, up to 1.5 s after the table), the load average
//!   and each import worker's busy and idle time (the pool's `trialscope:job` marks);
//!   `TRIALSCOPE_SCALE_CORES=2,3` runs each site at those `navigator.hardwareConcurrency`
//!   values too (the import pool's size).
//!   `TRIALSCOPE_SCALE_PICK_DELAY_MS=1500` waits that long (batches and single large files)
//!   between the page being ready and the pick, as a person would (the import workers'
//!   warm-up, `trialscope:warmup`, is then done; without it the pick lands during the warm-up
//!   and the first files wait for it).
//!   `TRIALSCOPE_SCALE_MARKS=1` prints every performance mark of a batch run after its pick
//!   (ms after the pick, then the mark: worker messages, hand-overs, jobs), to see where the
//!   time between the last import and the table goes. `TRIALSCOPE_CHROME_ARGS` adds Chromium
//!   flags (`tests/it/support/browser.rs`).
//!
//! Each large file's import also checks the import pool's hand-over (its `trialscope:prepared`
//! performance mark): the import worker's wasm memory and the size of the handed-over result
//! are printed; a worker that grew past 256 MiB (the 200 MB trace's) must have been replaced,
//! with the tab's memory afterwards at least a quarter of that worker's below the peak; and a small
//! file picked next still loads.
//!
//! Generated files go under `target/tmp/scale/` and are reused when present.

use crate::support::browser as harness;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use harness::{
    assert_all_visible, assert_local_only, assert_visible, attr, connect, count, dist, serial, tmp,
    visible_text, wait_until, Driver, Server, PREFIX,
};
use serde_json::Value;
use trialscope::formats::perfetto::proto::{track_event_type, TracePacket};

use crate::support::perfetto::{self as pf, event, thread_track, track_event};
use crate::support::procmem::Sampler;

/// Installed on the page before files are picked: every `longtask` entry (a main-thread task
/// of 50 ms or more) and the longest gap between the ticks of a 10 ms timer, from `since`
/// (`performance.now()` ms; 0 until [`PROBE_FROM_NOW`] sets it at a pick).
const PROBE: &str = "window.__probe = {since: 0, longest: 0, longtasks: 0, gap: 0, tasks: []}; \
    new PerformanceObserver(l => { for (const e of l.getEntries()) { \
      if (e.startTime < window.__probe.since) continue; \
      window.__probe.longtasks += 1; \
      window.__probe.tasks.push([Math.round(e.startTime), Math.round(e.duration), \
        document.querySelectorAll('tr[data-testid=trial-row]').length]); \
      window.__probe.longest = Math.max(window.__probe.longest, e.duration); } }) \
      .observe({type: 'longtask'}); \
    let last = performance.now(); \
    setInterval(() => { const t = performance.now(); \
      if (last >= window.__probe.since) window.__probe.gap = Math.max(window.__probe.gap, t - last); \
      last = t; }, 10);";

/// Restarts [`PROBE`]'s figures at this moment: what it saw before (the page's start-up) is
/// dropped, and a long task that began earlier is not counted when its entry arrives later.
const PROBE_FROM_NOW: &str = "const p = window.__probe; p.since = performance.now(); \
    p.longest = 0; p.longtasks = 0; p.gap = 0; p.tasks = [];";

/// Waits until the page has started as a person sees it before picking a file: its session
/// worker and first import worker have said `ready` (two `trialscope:msg ready` marks) and the
/// import worker has warmed up (`trialscope:warmup`). The caller then restarts [`PROBE`]
/// ([`PROBE_FROM_NOW`]) as it picks.
/// The large-trace checks are about the page while a file imports. Picked the moment the file
/// input appeared, the pick's task landed among the start-up's (the workers compiling and
/// warming up on the 2 cores): 26–36 ms on this VM (2026-12-07, two Chromium traces; 18 ms of
/// it V8 compiling the pick's wasm functions on their first call); CI recorded a task of
/// 50 ms in the start-up (2026-12-05) and failed this test again with its message cut
/// (2026-12-07). `browser_scale_200_trials` still picks during the start-up (its limit: no
/// task of 500 ms).
async fn settle(c: &Client) {
    wait_until(
        Duration::from_secs(60),
        "the page's start-up (workers ready, import worker warmed up)",
        || async {
            let ready = marks(c, "trialscope:msg ready").await.len();
            let warm = marks(c, "trialscope:warmup ").await.len();
            (ready >= 2 && warm >= 1).then_some(())
        },
    )
    .await;
}

/// What [`PROBE`] measured so far.
#[derive(Clone, Copy, Debug, Default)]
struct Responsiveness {
    /// The longest main-thread task of 50 ms or more (0 when there was none), ms.
    longest_task_ms: f64,
    /// How many tasks took 50 ms or more.
    long_tasks: u64,
    /// The longest gap between two ticks of the 10 ms timer, ms.
    timer_gap_ms: f64,
}

async fn responsiveness(c: &Client) -> Responsiveness {
    let v = c
        .execute("return window.__probe;", vec![])
        .await
        .expect("the probe's figures");
    Responsiveness {
        longest_task_ms: v["longest"].as_f64().unwrap_or(f64::NAN),
        long_tasks: v["longtasks"].as_u64().unwrap_or(u64::MAX),
        timer_gap_ms: v["gap"].as_f64().unwrap_or(f64::NAN),
    }
}

/// Opens the page with `?demo=0` plus `query`, waits for the file input and installs
/// [`PROBE`].
async fn open(c: &Client, server: &Server, query: &str) -> fantoccini::elements::Element {
    c.goto(&format!(
        "http://127.0.0.1:{}{PREFIX}?demo=0{query}",
        server.port
    ))
    .await
    .unwrap();
    let input = c
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("#file-input"))
        .await
        .expect("the app mounted its file input");
    c.execute(PROBE, vec![]).await.unwrap();
    input
}

fn scale_dir() -> PathBuf {
    let d = tmp().join("scale");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `gz` inflated into `target/tmp/scale/` (the file name without `.gz`), reused when present.
fn decompressed_copy(gz: &Path) -> PathBuf {
    let name = gz.file_name().unwrap().to_string_lossy();
    let path = scale_dir().join(name.trim_end_matches(".gz"));
    if !path.is_file() {
        let part = path.with_extension("part");
        let mut out = std::fs::File::create(&part).unwrap();
        let mut inflate = flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap());
        std::io::copy(&mut inflate, &mut out).unwrap();
        std::fs::rename(&part, &path).unwrap();
    }
    path
}

/// A generated Chromium-like Perfetto trace of about `mb` MB (`trialscope bench
/// --generate-perfetto`), reused when present.
fn generated_perfetto(mb: u64) -> PathBuf {
    let path = scale_dir().join(format!("generated_{mb}mb.pftrace"));
    let want = mb * 1_000_000;
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= want) {
        return path;
    }
    let part = path.with_extension("part");
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .args(["bench", "--generate-perfetto"])
        .arg(&part)
        .args(["--size-mb", &mb.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    std::fs::rename(&part, &path).unwrap();
    eprintln!(
        "generated {} in {:.1} s",
        path.display(),
        t.elapsed().as_secs_f64()
    );
    path
}

/// A generated Kineto-like JSON trace of about `mb` MB ([`crate::support::kineto_gen`]),
/// reused when present.
fn generated_kineto(mb: u64) -> PathBuf {
    let path = scale_dir().join(format!("generated_kineto_{mb}mb.json"));
    let want = mb as usize * 1_000_000;
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= want as u64) {
        return path;
    }
    let t = Instant::now();
    let (bytes, _) = crate::support::kineto_gen::kineto_like(want);
    let part = path.with_extension("part");
    std::fs::write(&part, bytes).unwrap();
    std::fs::rename(&part, &path).unwrap();
    eprintln!(
        "generated {} in {:.1} s",
        path.display(),
        t.elapsed().as_secs_f64()
    );
    path
}

/// Figures of one large file picked into a fresh page.
#[derive(Debug)]
struct Large {
    name: String,
    /// Bytes on disk, and decompressed as the worker reports them.
    file_bytes: u64,
    decompressed_bytes: f64,
    /// The import worker's wall time for the file (read, decompress, parse, reduce), ms.
    import_ms: f64,
    /// From picking the file to its row in the trial table, and to the page's report.
    to_trial_row: Duration,
    to_report: Duration,
    /// Per-file progress values seen on a visible bar, in order.
    progress: Vec<f64>,
    slices: u64,
    format: String,
    /// While it loaded (until its row was in the trial table), and until the hotspot table.
    loading: Responsiveness,
    overall: Responsiveness,
    /// The page's long tasks while it loaded, as [`long_tasks`] gives them (for messages).
    tasks_loading: Value,
    /// Peak RSS while it loaded: the tab's renderer processes, every browser process, bytes.
    tab_peak: u64,
    browser_peak: u64,
    /// The hand-over ([`handovers`]): the import worker's wasm memory, the handed-over
    /// result's size, whether the pool replaced the worker.
    handover: Handover,
    /// The tab's RSS once the report is shown and the import worker is replaced, bytes.
    tab_after: u64,
    /// CPU time of the tab's renderer processes from the pick to the trial row, seconds.
    tab_cpu_s: f64,
}

/// One `trialscope:prepared` performance mark the import pool leaves per hand-over
/// (`src/ui/pool.rs`).
#[derive(Clone, Debug, Default, PartialEq)]
struct Handover {
    file: String,
    /// The import worker's wasm memory when it handed the result over, bytes.
    wasm_bytes: f64,
    /// The handed-over result (`Blob` of `workspace::wire` bytes), bytes.
    wire_bytes: f64,
    /// The pool replaced the worker afterwards (its memory grew past the threshold).
    replaced: bool,
}

/// Every long task so far with the worker message whose handling began last before it
/// (the page's `trialscope:msg <type>` marks, `src/ui/bridge.rs`): `[start ms, duration ms,
/// trial rows then, message]`.
async fn long_tasks(c: &Client) -> Value {
    c.execute(
        "const marks = performance.getEntriesByType('mark') \
           .filter(m => m.name.startsWith('trialscope:msg ')); \
         return window.__probe.tasks.map(([start, dur, rows]) => { \
           let last = null; \
           for (const m of marks) { if (m.startTime <= start + 1) last = m.name.slice(15); } \
           return [start, dur, rows, last]; });",
        vec![],
    )
    .await
    .unwrap_or_default()
}

/// Every performance mark on the page so far whose name starts with `prefix` (e.g.
/// `"trialscope:job "`), in order: its `key=value` fields and the file named after ` file=`.
async fn marks(c: &Client, prefix: &str) -> Vec<(Vec<(String, String)>, String)> {
    let v = c
        .execute(
            "return performance.getEntriesByType('mark').map(m => m.name) \
               .filter(n => n.startsWith(arguments[0]));",
            vec![serde_json::json!(prefix)],
        )
        .await
        .unwrap_or_default();
    let mut out = Vec::new();
    for name in v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str())
    {
        let rest = name.trim_start_matches(prefix);
        let (fields, file) = rest.split_once(" file=").unwrap_or((rest, ""));
        let fields = fields
            .split(' ')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        out.push((fields, file.to_string()));
    }
    out
}

/// Every hand-over mark on the page so far, in order.
async fn handovers(c: &Client) -> Vec<Handover> {
    let mut out = Vec::new();
    for (fields, file) in marks(c, "trialscope:prepared ").await {
        let mut h = Handover {
            file,
            ..Handover::default()
        };
        for (k, v) in fields {
            match k.as_str() {
                "wasm" => h.wasm_bytes = v.parse().unwrap_or(f64::NAN),
                "wire" => h.wire_bytes = v.parse().unwrap_or(f64::NAN),
                "replaced" => h.replaced = v == "true",
                _ => {}
            }
        }
        out.push(h);
    }
    out
}

impl Large {
    fn mb_per_s(&self) -> f64 {
        self.decompressed_bytes / 1e6 / (self.import_ms / 1e3)
    }

    fn print(&self) {
        println!(
            "{}: {:.1} MB on disk, {:.1} MB decompressed, {} slices ({}): worker import {:.1} s \
             = {:.1} MB/s; pick → trial row {:.1} s, → report {:.1} s; {} progress \
             values seen; longest main-thread task while loading {:.0} ms ({} tasks ≥ 50 ms; \
             until the report {:.0} ms), longest 10 ms-timer gap {:.0} ms; peak memory: \
             tab (renderer processes) {:.0} MB, whole browser {:.0} MB; hand-over: import \
             worker wasm memory {:.0} MB, result {:.1} MB, worker replaced {}; tab afterwards \
             {:.0} MB; tab CPU (user+sys, all its threads) pick → trial row {:.1} s",
            self.name,
            self.file_bytes as f64 / 1e6,
            self.decompressed_bytes / 1e6,
            self.slices,
            self.format,
            self.import_ms / 1e3,
            self.mb_per_s(),
            self.to_trial_row.as_secs_f64(),
            self.to_report.as_secs_f64(),
            self.progress.len(),
            self.loading.longest_task_ms,
            self.loading.long_tasks,
            self.overall.longest_task_ms,
            self.loading.timer_gap_ms,
            self.tab_peak as f64 / 1e6,
            self.browser_peak as f64 / 1e6,
            self.handover.wasm_bytes / 1e6,
            self.handover.wire_bytes / 1e6,
            self.handover.replaced,
            self.tab_after as f64 / 1e6,
            self.tab_cpu_s,
        );
    }
}

/// Picks `path` into a fresh browser page and follows it as a person would: its progress bar
/// and the batch's must be visible and advance, then its row must show in the trial table
/// with its format and slice count.
/// Errors: the file failed (the page's message, the last progress seen, the peak memory).
async fn pick_large(
    driver: &Driver,
    server: &Server,
    path: &Path,
    timeout: Duration,
) -> Result<Large, String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let c = connect(driver, &tmp()).await;
    let input = open(&c, server, "").await;
    settle(&c).await;
    pick_delay().await;
    c.execute(PROBE_FROM_NOW, vec![]).await.unwrap();
    let sampler = Sampler::start(driver.pid());
    let cpu0 = crate::support::procmem::tab_cpu_s(driver.pid());
    let t0 = Instant::now();
    input.send_keys(&path.display().to_string()).await.unwrap();
    let bar = format!(
        "[data-testid=loading-files] li[data-file=\"{name}\"] progress[data-testid=progress]"
    );
    let row = format!("tr[data-testid=trial-row][data-file=\"{name}\"]");
    let mut progress: Vec<f64> = Vec::new();
    let mut batch_seen = Vec::new();
    let to_trial_row = loop {
        assert!(
            t0.elapsed() < timeout,
            "{name}: not in the trial table after {timeout:?} (progress seen: {progress:?})"
        );
        if let Ok(el) = c.find(Locator::Css(&bar)).await {
            // Only a bar a person can see counts.
            match visible_text(&c, &el).await {
                Ok(_) => {
                    if let Some(v) = el
                        .attr("value")
                        .await
                        .ok()
                        .flatten()
                        .and_then(|v| v.parse::<f64>().ok())
                    {
                        progress.push(v);
                    }
                }
                Err(why) => eprintln!("{name}: its bar is not visible yet: {why}"),
            }
        }
        if let Ok(el) = c.find(Locator::Css("[data-testid=batch-progress]")).await {
            match visible_text(&c, &el).await {
                Ok(_) => {
                    if let Some(v) = el.attr("value").await.ok().flatten() {
                        batch_seen.push(v);
                    }
                }
                Err(why) => eprintln!("the batch's bar is not visible yet: {why}"),
            }
        }
        if let Ok(r) = c.find(Locator::Css(&row)).await {
            if r.find(Locator::Css("[data-testid=format]")).await.is_ok() {
                break t0.elapsed();
            }
            if r.find(Locator::Css(".error")).await.is_ok() {
                let errors = c
                    .find_all(Locator::Css("[data-testid=file-error]"))
                    .await
                    .unwrap_or_default();
                let mut texts = Vec::new();
                for e in errors {
                    texts.push(e.text().await.unwrap_or_default());
                }
                let (tab, all) = sampler.peaks();
                let _ = c.close().await;
                return Err(format!(
                    "{name} failed to load after {:.1} s: {texts:?}; last progress seen {:?}; \
                     peak memory: tab {:.0} MB, browser {:.0} MB",
                    t0.elapsed().as_secs_f64(),
                    progress.last(),
                    tab as f64 / 1e6,
                    all as f64 / 1e6
                ));
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let loading = responsiveness(&c).await;
    let tab_cpu_s = crate::support::procmem::tab_cpu_s(driver.pid()) - cpu0;
    let (tab_peak, browser_peak) = sampler.peaks();
    drop(sampler);
    let tasks_loading = long_tasks(&c).await;
    println!(
        "{name}: long tasks while loading [start ms, duration ms, trial rows then, last \
         message]: {tasks_loading}"
    );

    // The bar moved forward while the file loaded, and never back.
    let moving: Vec<f64> = progress
        .iter()
        .copied()
        .filter(|v| *v > 0.0 && *v < 1.0)
        .collect();
    let mut distinct = moving.clone();
    distinct.dedup();
    // The bar is read every 250 ms (and each read takes a few WebDriver round trips): a file
    // that loads in under 1.5 s (the 59 MB Chromium trace of the benchmark) gives too few
    // reads to show two steps, so only a longer load (every ~200 MB trace) must show them.
    if to_trial_row >= Duration::from_millis(1500) {
        assert!(
            distinct.len() >= 2,
            "{name}: the progress bar did not visibly advance: {progress:?}"
        );
    } else if distinct.len() < 2 {
        println!(
            "{name}: loaded in {:.2} s, too fast for two reads of the bar to differ: {progress:?}",
            to_trial_row.as_secs_f64()
        );
    }
    assert!(
        moving.windows(2).all(|w| w[0] <= w[1]),
        "{name}: the progress bar went back: {progress:?}"
    );
    assert!(
        !batch_seen.is_empty(),
        "{name}: the batch's progress bar was never visible"
    );

    // The row as a person sees it: the format, the slice count.
    let format = attr(&c, &format!("{row} [data-testid=format]"), "data-format")
        .await
        .unwrap();
    let slices_text = assert_visible(&c, &format!("{row} td:nth-child(6)")).await;
    let slices: u64 = slices_text
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{name}: slice count {slices_text:?}: {e}"));
    let (decompressed_bytes, import_ms) =
        wait_until(Duration::from_secs(60), "the import figures", || async {
            let s = harness::import_stats(&c).await?;
            let (n, bytes, ms) = (s.files, s.bytes?, s.import_ms?);
            (n == 1 && ms > 0.0).then_some((bytes, ms))
        })
        .await;
    // One trial has no scaling hotspots; the page's report for it ends the batch.
    wait_until(
        Duration::from_secs(300),
        "the report of the file",
        || async { attr(&c, "#import-stats", "data-e2e-ms").await },
    )
    .await;
    let to_report = t0.elapsed();
    let overall = responsiveness(&c).await;
    println!(
        "{name}: long tasks until the report: {}",
        long_tasks(&c).await
    );
    let marks = handovers(&c).await;
    assert_eq!(marks.len(), 1, "{name}: one hand-over: {marks:?}");
    let handover = marks[0].clone();
    assert_eq!(handover.file, name);
    assert!(
        handover.wire_bytes > 0.0 && handover.wasm_bytes > 0.0,
        "{handover:?}"
    );
    // Once the report is shown (and a replaced worker is gone), the tab's memory now.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let tab_after = crate::support::procmem::browser_rss(driver.pid()).0;
    // The import pool goes on after the large file: a small trial picked next loads (in a
    // fresh worker when the first one was replaced).
    let next = scale_dir().join("after_large_n1_r0.pftrace");
    std::fs::write(&next, small_trial(1, 0)).unwrap();
    input.send_keys(&next.display().to_string()).await.unwrap();
    let next_row = "tr[data-testid=trial-row][data-file=\"after_large_n1_r0.pftrace\"]";
    let next_slices = wait_until(Duration::from_secs(60), "the next file's row", || async {
        let cell = c
            .find(Locator::Css(&format!("{next_row} td:nth-child(6)")))
            .await
            .ok()?;
        let text = visible_text(&c, &cell).await.ok()?;
        text.trim().parse::<u64>().ok()
    })
    .await;
    assert_eq!(next_slices, 80, "{name}: the file picked after it");
    let marks = handovers(&c).await;
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert_local_only(&c, server).await;
    c.close().await.unwrap();
    Ok(Large {
        name,
        file_bytes: std::fs::metadata(path).unwrap().len(),
        decompressed_bytes,
        import_ms,
        to_trial_row,
        to_report,
        progress,
        slices,
        format,
        loading,
        overall,
        tasks_loading,
        tab_peak,
        browser_peak,
        handover,
        tab_after,
        tab_cpu_s,
    })
}

/// A large file's import worker grew past the pool's threshold (256 MiB,
/// `ui::pool::RECYCLE_ABOVE_BYTES`): the pool replaced it after the hand-over, and the tab
/// got that memory back.
fn assert_worker_replaced(l: &Large) {
    let h = &l.handover;
    // 304 MB for the 200 MB trace (2026-12-04; 375 MB before the call tree's nodes went into
    // chunks), 216 MB once the slice columns did too (2026-12-06, so the test's trace is now
    // 300 MB): a leaner import may pass below the threshold, and then this check needs a
    // larger generated trace, not a weaker assertion.
    assert!(
        h.wasm_bytes > 256.0 * 1024.0 * 1024.0,
        "{}: the import worker's memory {:.0} MB did not pass the pool's replacement threshold \
         (256 MiB), so replacement is not exercised: generate a larger trace for this test",
        l.name,
        h.wasm_bytes / 1e6
    );
    assert!(h.replaced, "{}: the import worker was not replaced", l.name);
    // Its wasm memory left the tab. Without the replacement nothing would (a wasm memory
    // never shrinks) and the tab would stay near its peak; the peak also holds the session
    // worker's decoding, so a quarter of the import worker's memory is asked for (measured:
    // 219 MB of 468 MB for the 200 MB trace).
    assert!(
        (l.tab_after as f64) < l.tab_peak as f64 - h.wasm_bytes / 4.0,
        "{}: tab {:.0} MB after the hand-over, peak {:.0} MB, import worker {:.0} MB",
        l.name,
        l.tab_after as f64 / 1e6,
        l.tab_peak as f64 / 1e6,
        h.wasm_bytes / 1e6
    );
}

/// The responsiveness target of issue #9: no main-thread task of 50 ms or more while a file
/// loads.
fn assert_responsive(l: &Large) {
    assert_eq!(
        l.loading.long_tasks, 0,
        "{}: main-thread tasks of ≥ 50 ms while it loaded (longest {:.0} ms; [start ms, \
         duration ms, trial rows then, last message]: {})",
        l.name, l.loading.longest_task_ms, l.tasks_loading
    );
}

/// Generated traces hold about one slice per 90–100 bytes (Perfetto) / 400 bytes (Kineto JSON);
/// a count far below that means slices were lost.
fn assert_plausible(l: &Large, bytes_per_slice_at_most: f64, format: &str) {
    assert_eq!(l.format, format, "{}", l.name);
    let floor = (l.file_bytes as f64 / bytes_per_slice_at_most) as u64;
    assert!(
        l.slices >= floor,
        "{}: {} slices shown, expected ≥ {floor}",
        l.name,
        l.slices
    );
    assert!(
        l.decompressed_bytes >= l.file_bytes as f64,
        "{}: {} decompressed bytes",
        l.name,
        l.decompressed_bytes
    );
}

#[test]
fn browser_scale_200mb_traces() {
    // 300 MB of Perfetto: since the slice columns went into chunks (session 27) the 200 MB
    // trace's import worker stays at 216 MB, under the pool's replacement threshold, so it
    // would no longer exercise the replacement `assert_worker_replaced` checks.
    let perfetto = generated_perfetto(300);
    let kineto = generated_kineto(200);
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let p = pick_large(&driver, &server, &perfetto, Duration::from_secs(600))
            .await
            .unwrap();
        p.print();
        assert_plausible(&p, 200.0, "perfetto_proto");
        assert_worker_replaced(&p);
        assert_responsive(&p);
        let k = pick_large(&driver, &server, &kineto, Duration::from_secs(600))
            .await
            .unwrap();
        k.print();
        assert_plausible(&k, 1000.0, "chrome_json");
        assert_responsive(&k);
    });
}

const MS: u64 = 1_000_000;

/// One small trial of input `n`: a thread track with 20 `Step` slices, each holding `Work`
/// (n × 0.1 ms, so it grows with the input) and `Fixed` (1 ms), then 20 top-level `Idle`
/// (0.05 ms): 80 slices.
fn small_trial(n: u64, rep: u64) -> Vec<u8> {
    let seq = 7;
    let uuid = 4242;
    let mut t = 1_000_000 + rep * 77_777;
    let mut packets: Vec<TracePacket> = vec![TracePacket {
        timestamp: Some(t),
        sequence_flags: Some(trialscope::formats::perfetto::proto::SEQ_INCREMENTAL_STATE_CLEARED),
        ..pf::track(seq, thread_track(uuid, None, 10, 1000, Some("main")))
    }];
    const B: i32 = track_event_type::SLICE_BEGIN;
    const E: i32 = track_event_type::SLICE_END;
    let mut ev = |t: u64, ty: i32, name: Option<&str>| {
        packets.push(event(
            seq,
            t,
            track_event(ty, uuid, name.map(|n| (n, "app"))),
        ));
    };
    // A little jitter per trial so no two are equal (rep and n in a fixed LCG).
    let mut x = n * 1_000_003 + rep * 7_919;
    let mut jitter = |ns: u64| {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        ns + (x >> 40) % (ns / 50 + 1)
    };
    for _ in 0..20 {
        ev(t, B, Some("Step"));
        t += jitter(MS / 10);
        ev(t, B, Some("Work"));
        t += jitter(n * MS / 10);
        ev(t, E, None);
        ev(t, B, Some("Fixed"));
        t += jitter(MS);
        ev(t, E, None);
        ev(t, E, None);
        ev(t, B, Some("Idle"));
        t += jitter(MS / 20);
        ev(t, E, None);
    }
    pf::trace(&packets)
}

/// 200 trials `many_n<n>_r<rep>.pftrace`, n = 1…50, rep = 0…3, written under
/// `target/tmp/scale/many/`.
fn many_trials() -> Vec<PathBuf> {
    let dir = scale_dir().join("many");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut out = Vec::new();
    for n in 1..=50 {
        for rep in 0..4 {
            let p = dir.join(format!("many_n{n}_r{rep}.pftrace"));
            std::fs::write(&p, small_trial(n, rep)).unwrap();
            out.push(p);
        }
    }
    out
}

/// The file made to crash its import worker in `browser_scale_200_trials`.
const CRASHING: &str = "many_n17_r2.pftrace";

#[test]
fn browser_scale_200_trials() {
    let files = many_trials();
    assert_eq!(files.len(), 200);
    // What each trial holds, as the library reads it (the trial table must show the same).
    let one = trialscope::formats::load(
        "many_n1_r0.pftrace",
        &std::fs::read(&files[0]).unwrap(),
        &trialscope::formats::LoadOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let want_slices = match one {
        trialscope::formats::Loaded::Trace(a) => a.model.slices.len(),
        _ => panic!("not a trace"),
    };
    assert_eq!(want_slices, 80);
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let input = open(&c, &server, &format!("&testhook=panic-on%3A{CRASHING}")).await;
        let sampler = Sampler::start(driver.pid());
        let cpu0 = crate::support::procmem::tab_cpu_s(driver.pid());
        let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let t0 = Instant::now();
        input.send_keys(&paths.join("\n")).await.unwrap();
        // The batch's progress shows while they load, counting all 200 once the page has
        // taken them all (it counts them as it takes them: "0 of 192 files" was seen first).
        let batch = wait_until(
            Duration::from_secs(60),
            "the batch's progress of 200",
            || async {
                let el = c
                    .find(Locator::Css("[data-testid=batch-progress]"))
                    .await
                    .ok()?;
                visible_text(&c, &el).await.ok()?;
                let text = c
                    .find(Locator::Css("[data-testid=batch-text]"))
                    .await
                    .ok()?
                    .text()
                    .await
                    .ok()?;
                text.contains("of 200 files").then_some(text)
            },
        )
        .await;
        assert!(batch.contains("of 200 files"), "{batch}");
        let settled = wait_until(Duration::from_secs(600), "200 settled trials", || async {
            let done = count(&c, "tr[data-testid=trial-row] [data-testid=format]").await;
            let failed = count(&c, "tr[data-testid=trial-row] .error").await;
            (done + failed == 200).then_some((done, failed))
        })
        .await;
        let to_table = t0.elapsed();
        let loading = responsiveness(&c).await;
        let tasks = long_tasks(&c).await;
        println!(
            "long tasks while loading [start ms, duration ms, trial rows then, last message]: \
             {tasks}"
        );
        assert_eq!(settled, (199, 1), "199 imported, 1 crashed");
        // Small files keep their import workers (no replacement below the threshold).
        let marks = handovers(&c).await;
        assert_eq!(marks.len(), 199, "one hand-over per imported file");
        assert!(
            marks.iter().all(|h| !h.replaced),
            "a worker was replaced for a small file: {:?}",
            marks.iter().find(|h| h.replaced)
        );

        // The crash names its file, and only it failed.
        let errors = assert_all_visible(&c, "[data-testid=file-error]").await;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with(&format!("{CRASHING}: the importer crashed")),
            "{}",
            errors[0]
        );
        let crashed_row = format!("tr[data-testid=trial-row][data-file=\"{CRASHING}\"] .error");
        assert_visible(&c, &crashed_row).await;

        // Every other trial is in the table, with the slice count the library reads.
        let rows = assert_all_visible(&c, "tr[data-testid=trial-row] td.name").await;
        assert_eq!(rows.len(), 200);
        let slice_cells = c
            .find_all(Locator::Css(
                "tr[data-testid=trial-row]:not(:has(.error)) td:nth-child(6)",
            ))
            .await
            .unwrap();
        assert_eq!(slice_cells.len(), 199);
        for cell in &slice_cells {
            let t = cell.text().await.unwrap();
            assert_eq!(t.trim(), want_slices.to_string());
        }

        // The analysis of the 199: `Work` grows with n; its scatter plots every trial.
        let (files_in_report, e2e_ms) = wait_until(
            Duration::from_secs(300),
            "the report of 199 trials",
            || async {
                let s = harness::import_stats(&c).await?;
                let (n, e2e) = (s.files, s.e2e_ms?);
                (count(&c, "tr[data-testid=hotspot-row][data-name=\"Work\"]").await > 0)
                    .then_some((n, e2e))
            },
        )
        .await;
        assert_eq!(files_in_report, 199);
        let to_hotspots = t0.elapsed();
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        let work = "tr[data-testid=hotspot-row][data-name=\"Work\"]";
        let rho: f64 = attr(&c, work, "data-rho").await.unwrap().parse().unwrap();
        assert!(rho > 0.95, "Work: ρ = {rho}");
        c.find(Locator::Css(work))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_until(Duration::from_secs(60), "the scatter of Work", || async {
            let title = c
                .find(Locator::Css("[data-testid=scatter] strong"))
                .await
                .ok()?
                .text()
                .await
                .ok()?;
            title.starts_with("Work").then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=scatter] svg").await;
        assert_eq!(
            count(&c, "[data-testid=scatter] circle[data-testid=trial-point]").await,
            199
        );
        let overall = responsiveness(&c).await;
        let (tab_peak, browser_peak) = sampler.peaks();
        println!(
            "200 trials (1 crashing): pick → all in the trial table {:.1} s, → hotspot table \
             {:.1} s (page: {e2e_ms:.0} ms); longest main-thread task while loading {:.0} ms \
             ({} tasks ≥ 50 ms; until the scatter {:.0} ms, {} tasks), longest 10 ms-timer gap \
             {:.0} ms; peak memory: tab {:.0} MB, browser {:.0} MB; tab CPU (user+sys) pick → \
             scatter {:.1} s",
            to_table.as_secs_f64(),
            to_hotspots.as_secs_f64(),
            loading.longest_task_ms,
            loading.long_tasks,
            overall.longest_task_ms,
            overall.long_tasks,
            loading.timer_gap_ms,
            tab_peak as f64 / 1e6,
            browser_peak as f64 / 1e6,
            crate::support::procmem::tab_cpu_s(driver.pid()) - cpu0,
        );
        // Issue #9's < 50 ms is not reached with 200 files on this 2-core machine (tasks of
        // 50–125 ms as rows arrive, README "Crash isolation and parallel import"); what is
        // asserted is that the page never freezes: no task of 500 ms or more (one
        // prepared result posted as an object graph took 18 s).
        assert!(
            loading.longest_task_ms < 500.0,
            "a main-thread task of {:.0} ms while 200 files loaded ({} tasks ≥ 50 ms)",
            loading.longest_task_ms,
            loading.long_tasks
        );
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

/// One `trialscope:job` mark: a file one import worker finished.
#[derive(Clone, Debug)]
struct JobMark {
    file: String,
    /// The pool slot of the worker.
    slot: u32,
    /// `performance.now()` at the hand-out and at the answer, ms.
    start: f64,
    end: f64,
    /// The file's size as dropped, bytes.
    bytes: f64,
}

/// Every `trialscope:job` mark on the page so far, in order.
async fn job_marks(c: &Client) -> Vec<JobMark> {
    let mut out = Vec::new();
    for (fields, file) in marks(c, "trialscope:job ").await {
        let mut j = JobMark {
            file,
            slot: u32::MAX,
            start: f64::NAN,
            end: f64::NAN,
            bytes: f64::NAN,
        };
        for (k, v) in fields {
            match k.as_str() {
                "slot" => j.slot = v.parse().unwrap_or(u32::MAX),
                "start" => j.start = v.parse().unwrap_or(f64::NAN),
                "end" => j.end = v.parse().unwrap_or(f64::NAN),
                "bytes" => j.bytes = v.parse().unwrap_or(f64::NAN),
                _ => {}
            }
        }
        out.push(j);
    }
    out
}

/// On 2 cores the import pool has two workers: the second, started once the first is warm and
/// idle, takes only files of at least 128 KiB as dropped (`session::schedule`), so two demo
/// trials import at the same time while the small trials of the same pick all go to the first
/// worker; the trial table still lists the files in drop order.
#[test]
fn browser_pool_second_worker_takes_large_files() {
    let demo = crate::support::corpus("chromium_scaling")
        .canonicalize()
        .expect("../shared/corpus/chromium_scaling beside the checkout");
    let large = [
        demo.join("scaling_n1000_r0.pb.gz"),
        demo.join("scaling_n16000_r0.pb.gz"),
    ];
    let dir = scale_dir().join("pool_large");
    std::fs::create_dir_all(&dir).unwrap();
    let small: Vec<PathBuf> = (1..=3)
        .map(|n| {
            let p = dir.join(format!("pool_small_n{n}.pftrace"));
            std::fs::write(&p, small_trial(n, 0)).unwrap();
            p
        })
        .collect();
    for p in &large {
        assert!(std::fs::metadata(p).unwrap().len() >= 128 * 1024, "{p:?}");
    }
    for p in &small {
        assert!(std::fs::metadata(p).unwrap().len() < 128 * 1024, "{p:?}");
    }
    // Drop order: large, small, small, large, small.
    let picked = [
        large[0].clone(),
        small[0].clone(),
        small[1].clone(),
        large[1].clone(),
        small[2].clone(),
    ];
    let names: Vec<String> = picked
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        harness::emulate_cores(&c, 2).await;
        let input = open(&c, &server, "").await;
        // Both workers warmed up: the second starts once the first is warm and idle.
        wait_until(
            Duration::from_secs(120),
            "both import workers warm",
            || async { (marks(&c, "trialscope:warmup ").await.len() >= 2).then_some(()) },
        )
        .await;
        let paths: Vec<String> = picked.iter().map(|p| p.display().to_string()).collect();
        input.send_keys(&paths.join("\n")).await.unwrap();
        wait_until(Duration::from_secs(300), "five imported trials", || async {
            (count(&c, "tr[data-testid=trial-row] [data-testid=format]").await == 5).then_some(())
        })
        .await;
        let rows = assert_all_visible(&c, "tr[data-testid=trial-row] td.name").await;
        assert_eq!(rows, names, "the trial table lists the files in drop order");
        let jobs = job_marks(&c).await;
        assert_eq!(jobs.len(), 5, "{jobs:?}");
        let job = |name: &str| {
            jobs.iter()
                .find(|j| j.file == name)
                .cloned()
                .unwrap_or_else(|| panic!("no job mark for {name}: {jobs:?}"))
        };
        for p in &small {
            let name = p.file_name().unwrap().to_string_lossy();
            assert_eq!(
                job(&name).slot,
                0,
                "a small file went to the large-files worker: {jobs:?}"
            );
        }
        let (a, b) = (job(&names[0]), job(&names[3]));
        assert_eq!(
            (a.slot, b.slot),
            (0, 1),
            "the two demo trials' workers: {jobs:?}"
        );
        assert!(
            a.start < b.end && b.start < a.end,
            "the two demo trials did not import at the same time: {jobs:?}"
        );
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

/// Files of at least this many bytes are decoded by the peer in pieces (`peers.py`'s
/// `CHUNK_MB`): upb holds ~16× a generated trace whole (16.4 GB for the 1 GB one) and
/// `json.loads` several times a JSON trace, more than this VM can spare beside a browser.
const PEER_CHUNKED_FROM: u64 = 400_000_000;

/// The peer decode of `file` in the same run (`tools/bench/peers.py`, best of 2): `kind`
/// `perfetto` (Python upb `Trace.FromString`) or `json` (`json.loads`); MB/s of the
/// decompressed bytes and peak RSS (bytes). Files of [`PEER_CHUNKED_FROM`] bytes or more are
/// decoded in 64 MB pieces, the same bytes with the memory bounded (`peers.py`'s `CHUNK_MB`).
fn peer(kind: &str, file: &Path) -> Option<(f64, u64)> {
    let python = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/peervenv/bin/python"
    ));
    if !python.exists() {
        println!(
            "no peer venv at {} (python3 -m venv target/peervenv && target/peervenv/bin/pip \
             install protobuf perfetto)",
            python.display()
        );
        return None;
    }
    let mut cmd = Command::new(&python);
    cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tools/bench/peers.py"))
        .arg(kind)
        .arg(file)
        .arg("2");
    if std::fs::metadata(file).is_ok_and(|m| m.len() >= PEER_CHUNKED_FROM) {
        cmd.arg("64");
    }
    let out = cmd.output().ok()?;
    let v: Value = serde_json::from_slice(&out.stdout).ok()?;
    let mbps = v["decompressed_bytes"].as_f64()? / 1e6 / v["seconds"].as_f64()?;
    println!(
        "  peer, same run, same bytes: Python {} ({}) {:.1} MB/s, peak {:.0} MB",
        if kind == "perfetto" {
            "upb Trace.FromString"
        } else {
            "json.loads"
        },
        v["backend"],
        mbps,
        v["peak_rss_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );
    Some((mbps, v["peak_rss_bytes"].as_u64().unwrap_or(0)))
}

/// True when the benchmark part `part` (`heavy`, `perfetto1g`, `kineto1g`, `demo`, `many`) is
/// to run: every part but `many`, or those named in `TRIALSCOPE_SCALE_ONLY` (comma-separated).
fn wanted(part: &str) -> bool {
    std::env::var("TRIALSCOPE_SCALE_ONLY").map_or(part != "many" && part != "heavyraw", |only| {
        only.split(',').any(|p| p.trim() == part)
    })
}

/// One batch picked at once in a fresh page, followed to its hotspot table.
struct BatchRun {
    /// The page's own pick → hotspot table (`#import-stats` `data-e2e-ms`), ms.
    e2e_ms: f64,
    /// The test's wall time from the pick to seeing the table, ms.
    wall_ms: f64,
    /// Decompressed bytes and import-worker time summed over the files.
    bytes: f64,
    import_ms: f64,
    resp: Responsiveness,
    /// The long tasks with the last worker message before each ([`long_tasks`]).
    tasks: Value,
    /// Each import worker's busy and idle time ([`worker_use`]; empty on a site without the
    /// `trialscope:job` marks).
    workers: String,
    /// Peak RSS while the batch loaded: the tab's renderer processes, every browser process,
    /// bytes.
    tab_peak: u64,
    browser_peak: u64,
}

/// Each import worker's busy time, idle time within the import span (first hand-out → last
/// answer) and file count, from the pool's `trialscope:job` marks (`src/ui/pool.rs`); the
/// span starts `pick_ms` (`performance.now()` just before the pick) after the page opened.
async fn worker_use(c: &Client, pick_ms: f64) -> String {
    // slot → (busy ms, files); and the span over every job.
    let mut slots: std::collections::BTreeMap<u32, (f64, usize)> = Default::default();
    let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
    // (start, ms, bytes as dropped) of every job, to print in hand-out order.
    let mut jobs: Vec<(f64, f64, f64)> = Vec::new();
    for j in job_marks(c).await {
        if j.slot == u32::MAX {
            continue;
        }
        let e = slots.entry(j.slot).or_default();
        e.0 += j.end - j.start;
        e.1 += 1;
        jobs.push((j.start, j.end - j.start, j.bytes));
        first = first.min(j.start);
        last = last.max(j.end);
    }
    // The import workers' warm-ups (`slot=<i> ms=<ms>`), done before the pick or not.
    let warm_ups: Vec<String> = marks(c, "trialscope:warmup ")
        .await
        .into_iter()
        .map(|(fields, _)| {
            fields
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    if slots.is_empty() {
        return String::new();
    }
    let span = last - first;
    let per: Vec<String> = slots
        .iter()
        .map(|(s, (busy, n))| {
            format!(
                "worker {s}: {n} files, busy {busy:.0} ms, idle {:.0} ms",
                span - busy
            )
        })
        .collect();
    jobs.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Each job's time per MB as dropped, in hand-out order: a worker whose first files are
    // slower than its last is still compiling (V8's baseline tier) or warming up.
    let order: Vec<String> = jobs
        .iter()
        .map(|(_, ms, b)| format!("{:.0}", ms / (b / 1e6)))
        .collect();
    format!(
        "import span {span:.0} ms (pick → first hand-out {:.0} ms); {}; ms per MB as dropped, \
         in hand-out order: {}; warm-ups: [{}]",
        first - pick_ms,
        per.join("; "),
        order.join(" "),
        warm_ups.join(", ")
    )
}

/// Waits `TRIALSCOPE_SCALE_PICK_DELAY_MS` (unset: not at all) between the page being ready and
/// the pick, as a person would: the import workers have started and warmed up by then.
async fn pick_delay() {
    if let Some(ms) = std::env::var("TRIALSCOPE_SCALE_PICK_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

/// Picks `files` at once into a fresh page of `server` and waits for the hotspot table of all
/// of them (those that import; a crashing file is not among them here).
/// `cores`: `navigator.hardwareConcurrency` for the page (the import pool's size follows it),
/// `None` = the browser's own.
async fn pick_batch(
    driver: &Driver,
    server: &Server,
    files: &[PathBuf],
    cores: Option<u32>,
) -> BatchRun {
    let c = connect(driver, &tmp()).await;
    if let Some(n) = cores {
        harness::emulate_cores(&c, n).await;
    }
    let input = open(&c, server, "").await;
    pick_delay().await;
    let sampler = Sampler::start(driver.pid());
    let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let pick_ms = c
        .execute("return performance.now();", vec![])
        .await
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(f64::NAN);
    let t0 = Instant::now();
    input.send_keys(&paths.join("\n")).await.unwrap();
    let want = files.len();
    let (e2e_ms, bytes, import_ms) =
        wait_until(Duration::from_secs(600), "the batch's hotspots", || async {
            let s = harness::import_stats(&c).await?;
            let (n, e2e, bytes, ms) = (s.files, s.e2e_ms?, s.bytes?, s.import_ms?);
            (n == want && count(&c, "tr[data-testid=hotspot-row]").await > 0)
                .then_some((e2e, bytes, ms))
        })
        .await;
    let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
    // The frames right after the table (the flame graph and triage answers render then).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let resp = responsiveness(&c).await;
    let tasks = long_tasks(&c).await;
    let workers = worker_use(&c, pick_ms).await;
    if std::env::var("TRIALSCOPE_SCALE_MARKS").is_ok() {
        let marks = c
            .execute(
                "return performance.getEntriesByType('mark').filter(m => m.startTime >= arguments[0]).map(m => Math.round(m.startTime - arguments[0]) + ' ' + m.name.slice(0, 60)).join('\\n');",
                vec![serde_json::json!(pick_ms)],
            )
            .await
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        println!("marks after the pick:\n{marks}");
    }
    let (tab_peak, browser_peak) = sampler.peaks();
    c.close().await.unwrap();
    BatchRun {
        e2e_ms,
        wall_ms,
        bytes,
        import_ms,
        resp,
        tasks,
        workers,
        tab_peak,
        browser_peak,
    }
}

#[test]
#[ignore = "benchmark harness: cargo test --release --test it -- --ignored --nocapture benchmark_browser_scale"]
fn benchmark_browser_scale() {
    let heavy = crate::support::corpus("chromium_large/heavy_default.pb.gz")
        .canonicalize()
        .expect("../shared/corpus/chromium_large/heavy_default.pb.gz");
    let big = generated_perfetto(if wanted("perfetto1g") { 1000 } else { 1 });
    let big_json = generated_kineto(if wanted("kineto1g") { 1000 } else { 1 });
    // The same trace uncompressed, as a `.pftrace` a person saves from the Perfetto UI is
    // (its artifact id is then the hash of 59 MB, not of 4.3 MB).
    let heavy_raw = if wanted("heavyraw") {
        decompressed_copy(&heavy)
    } else {
        heavy.clone()
    };
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        // `heavy` and `heavyraw` also run on the baseline site when one is named, interleaved
        // (`TRIALSCOPE_SCALE_RUNS` runs, default 1, of each).
        let baseline = crate::browser::bench_sites()
            .into_iter()
            .nth(1)
            .map(|(_, d)| Server::start(d, PREFIX));
        let single_runs: usize = std::env::var("TRIALSCOPE_SCALE_RUNS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(1);
        for (part, path) in [
            ("heavy", &heavy),
            ("heavyraw", &heavy_raw),
            ("perfetto1g", &big),
        ] {
            if !wanted(part) {
                continue;
            }
            let mut servers = vec![("this", &server)];
            if part != "perfetto1g" {
                servers.extend(baseline.iter().map(|b| ("baseline", b)));
            }
            let runs = if servers.len() > 1 { single_runs } else { 1 };
            for run in 0..runs {
                for (site, on) in &servers {
                    let l = match pick_large(&driver, on, path, Duration::from_secs(1800)).await {
                        Ok(l) => l,
                        Err(e) => {
                            println!("FAILED: {e}");
                            continue;
                        }
                    };
                    if servers.len() > 1 {
                        println!("[{site}] {part} run {run}:");
                    }
                    l.print();
                    if let Some((mbps, _)) = peer("perfetto", path) {
                        println!(
                            "  browser / upb ({}): {:.2}×",
                            path.file_name().unwrap().to_string_lossy(),
                            l.mb_per_s() / mbps
                        );
                    }
                }
            }
        }
        if wanted("kineto1g") {
            match pick_large(&driver, &server, &big_json, Duration::from_secs(1800)).await {
                Ok(l) => {
                    l.print();
                    if let Some((mbps, _)) = peer("json", &big_json) {
                        println!(
                            "  browser / json.loads ({}): {:.2}×",
                            big_json.file_name().unwrap().to_string_lossy(),
                            l.mb_per_s() / mbps
                        );
                    }
                }
                Err(e) => println!("FAILED: {e}"),
            }
        }
        if !wanted("demo") && !wanted("many") {
            return;
        }
        // The 18 demo trials (and, part `many`, the 200 small trials), pick → hotspot table,
        // `TRIALSCOPE_SCALE_RUNS` runs (3), each run on this site and then — when
        // `TRIALSCOPE_BASELINE_DIST` names another site's `dist/` (e.g. main's) — on that one,
        // interleaved so both see the same machine.
        let mut trials: Vec<PathBuf> =
            std::fs::read_dir(crate::support::corpus("chromium_scaling"))
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
                .map(|p| p.canonicalize().unwrap())
                .collect();
        trials.sort();
        assert_eq!(trials.len(), 18);
        let many = if wanted("many") {
            many_trials()
        } else {
            Vec::new()
        };
        // This checkout's site is `server`; the baseline's, if any, from the same rule as
        // `benchmark_import_in_browser`'s.
        let mut sites = vec![("this".to_string(), server)];
        sites.extend(
            crate::browser::bench_sites()
                .into_iter()
                .skip(1)
                .map(|(name, d)| (name, Server::start(d, PREFIX))),
        );
        let runs: usize = std::env::var("TRIALSCOPE_SCALE_RUNS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(3);
        let batches: Vec<(&str, &[PathBuf])> = [("demo", &trials[..]), ("many", &many[..])]
            .into_iter()
            .filter(|(part, files)| wanted(part) && !files.is_empty())
            .collect();
        // `TRIALSCOPE_SCALE_CORES=2,3`: each site at those `navigator.hardwareConcurrency`
        // values too (the import pool's size), interleaved.
        let cores: Vec<Option<u32>> = match std::env::var("TRIALSCOPE_SCALE_CORES") {
            Ok(v) if !v.trim().is_empty() => v
                .split(',')
                .map(|c| Some(c.trim().parse().expect("TRIALSCOPE_SCALE_CORES: numbers")))
                .collect(),
            _ => vec![None],
        };
        for run in 0..runs {
            for (part, files) in &batches {
                for (site, server) in &sites {
                    for &n in &cores {
                        let site = match n {
                            Some(n) => format!("{site}, {n} cores"),
                            None => site.clone(),
                        };
                        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
                        let r = pick_batch(&driver, server, files, n).await;
                        println!(
                        "[{part} {site}] run {run}: {} files, {:.1} MB decompressed; worker import \
                         {:.0} ms summed = {:.1} MB/s per worker; page pick → hotspot table \
                         {:.0} ms (test wall {:.0} ms); longest main-thread task {:.0} ms ({} ≥ \
                         50 ms), timer gap {:.0} ms; peak tab {:.0} MB, browser {:.0} MB; load \
                         average {}",
                        files.len(),
                        r.bytes / 1e6,
                        r.import_ms,
                        r.bytes / 1e6 / (r.import_ms / 1e3),
                        r.e2e_ms,
                        r.wall_ms,
                        r.resp.longest_task_ms,
                        r.resp.long_tasks,
                        r.resp.timer_gap_ms,
                        r.tab_peak as f64 / 1e6,
                        r.browser_peak as f64 / 1e6,
                        load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
                    );
                        println!("[{part} {site}] run {run}: long tasks {}", r.tasks);
                        if !r.workers.is_empty() {
                            println!("[{part} {site}] run {run}: {}", r.workers);
                        }
                    }
                }
            }
        }
    });
}
