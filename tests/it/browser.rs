//! Browser tests: the built site (`dist/`, from `trunk build --release --offline`) served from
//! 127.0.0.1 under the sub-path `/trialscope/`, driven through chromedriver + headless
//! Chromium.
//!
//! * `scaling_experiment_end_to_end`: the 18 Chromium scaling trials of the corpus plus a
//!   corrupt file go through the file picker; the hotspot table must show `scalingBuildDom` and
//!   `Layout` with ρ ≥ 0.8 and q < 0.05, selecting `scalingBuildDom` must plot 18 trial points,
//!   and the corrupt file must get its own error while the 18 trials load.
//! * `demo_loads_by_default`: opening the site without `?demo=0` shows the demo's hotspots;
//!   "Load demo" then adds no second copy of its trials, and after "Clear" brings them back.
//! * `dropped_files_load`: files dropped on the drop zone (a synthesized `drop` event) load.
//! * `picked_folder_loads`: a folder with sub-folders picked through the folder input loads.
//! * `benchmark_import_in_browser` (`#[ignore]`, run with `--ignored --nocapture`): prints
//!   import throughput and drop-to-hotspot-table time for the 18 trials, and where that time
//!   goes (read, import per file, hand-over, analysis, render: [`PHASE_PROBE`]); with
//!   `TRIALSCOPE_BASELINE_DIST=<another dist>` that site is measured too, interleaved run by
//!   run, and with `BENCH_CORES=2,3` each site at those `navigator.hardwareConcurrency` values
//!   (the import pool's size), `BENCH_RUNS` runs each (3).
//!
//! Every test also asserts that each request the browser made — the page's (Chrome's
//! performance log) and the worker's (the harness's logging proxy) — went to the test server's
//! 127.0.0.1 origin (or data:/blob:) and that the server answered 200 to every request: trace
//! data never leaves the machine. What a person should see (tables, messages, plots) is
//! checked visible, not only present.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use harness::{
    assert_all_visible, assert_local_only, assert_visible, attr, connect, count, dist,
    open_without_demo, serial, tmp, wait_until, Driver, Server, PREFIX,
};

use crate::support::corpus;

/// The 18 corpus trials (canonical paths), sorted.
fn corpus_trials() -> Vec<PathBuf> {
    let dir = corpus("chromium_scaling");
    let dir = dir
        .canonicalize()
        .expect("../shared/corpus/chromium_scaling beside the checkout");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
        .collect();
    v.sort();
    assert_eq!(
        v.len(),
        18,
        "expected 18 scaling trials in {}",
        dir.display()
    );
    v
}

/// Random bytes (xorshift, fixed seed) that are no trace format, as `corrupt.pftrace`.
fn corrupt_file() -> PathBuf {
    let p = tmp().join("corrupt.pftrace");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    bytes[0] = 0xA5; // not gzip/zlib/JSON/protobuf-tag-1 at the start
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Waits until every file has finished and a report for the whole batch is shown.
async fn wait_for_report(c: &Client, files: usize, timeout: Duration) -> (f64, f64, f64) {
    wait_until(timeout, "the import stats of a finished batch", || async {
        let s = harness::import_stats(c).await?;
        let (n, e2e, bytes, ms) = (s.files, s.e2e_ms?, s.bytes?, s.import_ms?);
        (n == files && count(c, "tr[data-testid=hotspot-row]").await > 0)
            .then_some((e2e, bytes, ms))
    })
    .await
}

async fn hotspot(c: &Client, name: &str) -> (f64, f64) {
    let css = format!("tr[data-testid=hotspot-row][data-name=\"{name}\"]");
    let rho: f64 = attr(c, &css, "data-rho")
        .await
        .unwrap_or_else(|| panic!("no hotspot row for {name}"))
        .parse()
        .unwrap();
    let q: f64 = attr(c, &css, "data-q").await.unwrap().parse().unwrap();
    (rho, q)
}

/// Opens the page with `?demo=0`, picks the 18 trials + the corrupt file; returns the client
/// and the time from sending the files to the finished report, with the import figures.
async fn load_experiment(server: &Server, driver: &Driver) -> (Client, Duration, (f64, f64, f64)) {
    let c = connect(driver, &tmp()).await;
    let input = open_without_demo(&c, server, "#file-input").await;
    let mut paths: Vec<String> = corpus_trials()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    paths.push(corrupt_file().display().to_string());
    let t0 = Instant::now();
    input.send_keys(&paths.join("\n")).await.unwrap();
    let figures = wait_for_report(&c, 18, Duration::from_secs(240)).await;
    (c, t0.elapsed(), figures)
}

#[test]
fn scaling_experiment_end_to_end() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let (c, _, _) = load_experiment(&server, &driver).await;

        // The corrupt file has its own error naming it; the 18 trials loaded.
        let errors = assert_all_visible(&c, "[data-testid=file-error]").await;
        assert_eq!(errors.len(), 1);
        let msg = &errors[0];
        assert!(msg.starts_with("corrupt.pftrace: "), "{msg}");
        assert!(msg.contains("not a trace"), "{msg}");
        assert_eq!(
            assert_all_visible(&c, "tr[data-testid=trial-row]")
                .await
                .len(),
            19
        );
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        let imported = attr(&c, "#import-stats", "data-files").await.unwrap();
        assert_eq!(imported, "18");

        // scalingBuildDom and Layout grow with the input.
        for name in ["scalingBuildDom", "Layout"] {
            let (rho, q) = hotspot(&c, name).await;
            assert!(rho >= 0.8, "{name}: ρ = {rho}");
            assert!(q < 0.05, "{name}: q = {q}");
        }
        let row = c
            .find(Locator::Css(
                "tr[data-testid=hotspot-row][data-name=\"scalingBuildDom\"]",
            ))
            .await
            .unwrap();
        let shown_rho = assert_visible(
            &c,
            "tr[data-testid=hotspot-row][data-name=\"scalingBuildDom\"] [data-testid=rho]",
        )
        .await;
        assert!(shown_rho.parse::<f64>().unwrap() >= 0.8, "{shown_rho}");

        // Selecting it plots one point per trial.
        row.click().await.unwrap();
        wait_until(
            Duration::from_secs(20),
            "the scatter plot of scalingBuildDom",
            || async {
                let title = c
                    .find(Locator::Css("[data-testid=scatter] strong"))
                    .await
                    .ok()?
                    .text()
                    .await
                    .ok()?;
                title.starts_with("scalingBuildDom").then_some(())
            },
        )
        .await;
        assert_eq!(
            count(&c, "[data-testid=scatter] circle[data-testid=trial-point]").await,
            18
        );
        assert_visible(&c, "[data-testid=scatter] svg").await;
        let title = assert_visible(&c, "[data-testid=scatter] strong").await;
        assert!(title.starts_with("scalingBuildDom"), "{title}");
        let titles = c
            .find_all(Locator::Css("[data-testid=scatter] circle title"))
            .await
            .unwrap();
        let first = titles[0]
            .prop("textContent")
            .await
            .unwrap()
            .unwrap_or_default();
        assert!(first.contains("scaling_n"), "point title: {first}");
        assert_eq!(
            count(&c, "[data-testid=scatter] [data-testid=median]").await,
            6
        );

        // Log axes keep every (positive) point.
        for toggle in ["[data-testid=x-log]", "[data-testid=y-log]"] {
            c.find(Locator::Css(toggle))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
        }
        assert_eq!(
            count(&c, "[data-testid=scatter] circle[data-testid=trial-point]").await,
            18
        );

        // The filter narrows the table to matching frames.
        let filter = c
            .find(Locator::Css("[data-testid=hotspot-filter]"))
            .await
            .unwrap();
        filter.send_keys("scalingbuild").await.unwrap();
        let names = wait_until(Duration::from_secs(20), "the filtered table", || async {
            let rows = c
                .find_all(Locator::Css("tr[data-testid=hotspot-row]"))
                .await
                .ok()?;
            let mut names = Vec::new();
            for r in rows {
                names.push(r.attr("data-name").await.ok()??);
            }
            (!names.is_empty()
                && names
                    .iter()
                    .all(|n| n.to_lowercase().contains("scalingbuild")))
            .then_some(names)
        })
        .await;
        assert!(names.iter().any(|n| n == "scalingBuildDom"), "{names:?}");

        // Switching the metric re-runs the analysis; the selection stays on the same frame.
        c.find(Locator::Css("[data-testid=metric]"))
            .await
            .unwrap()
            .select_by_value("self")
            .await
            .unwrap();
        wait_until(
            Duration::from_secs(60),
            "the slice-count report",
            || async {
                let title = c
                    .find(Locator::Css("[data-testid=scatter] strong"))
                    .await
                    .ok()?
                    .text()
                    .await
                    .ok()?;
                (title == "scalingBuildDom — self (ns)").then_some(())
            },
        )
        .await;

        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

#[test]
fn demo_loads_by_default() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        c.goto(&format!("http://127.0.0.1:{}{PREFIX}", server.port))
            .await
            .unwrap();
        wait_for_report(&c, 12, Duration::from_secs(240)).await;
        let (rho, q) = hotspot(&c, "scalingBuildDom").await;
        assert!(rho >= 0.8 && q < 0.05, "ρ = {rho}, q = {q}");
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        assert!(
            count(&c, "[data-testid=scatter] circle[data-testid=trial-point]").await > 0,
            "the first hotspot is plotted"
        );
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        assert_visible(&c, "[data-testid=scatter] svg").await;
        assert_local_only(&c, &server).await;
        let demo_requests = server
            .log
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, p, _)| p.contains("/demo/"))
            .count();
        assert_eq!(demo_requests, 13, "index.json + 12 trials");
        // Every column of the hotspot table shows beside the plot in the harness's 1400 px
        // window, without scrolling sideways (a new user found "input range" and "median at
        // max input" only after scrolling).
        let fits = c
            .execute(
                "const s = document.querySelector('[data-testid=hotspot-table]').closest('.scroll'); \
                 return [window.innerWidth, s.scrollWidth, s.clientWidth];",
                vec![],
            )
            .await
            .unwrap();
        let w: Vec<u64> = serde_json::from_value(fits).unwrap();
        assert!(
            w[0] <= 1400 && w[1] <= w[2],
            "window, table scroll and client widths: {w:?}"
        );
        // For a human look at the page: target/tmp/demo.png.
        if let Ok(png) = c.screenshot().await {
            let _ = std::fs::write(tmp().join("demo.png"), png);
        }
        let _ = c
            .execute(
                "document.querySelector('[data-testid=selected-hotspot]').scrollIntoView()",
                vec![],
            )
            .await;
        if let Ok(png) = c.screenshot().await {
            let _ = std::fs::write(tmp().join("demo-plot.png"), png);
        }
        // "Load demo" with the demo loaded adds nothing (each trial would count twice); after
        // "Clear" it brings the 12 trials back.
        harness::click(&c, "[data-testid=load-demo]").await;
        let status = wait_until(Duration::from_secs(30), "the demo's status", || async {
            let t = harness::seen_text(&c, "[data-testid=demo-status]").await?;
            t.contains("already loaded").then_some(t)
        })
        .await;
        assert_eq!(
            status,
            "demo: its 12 trials are already loaded (\"Clear\" removes them)"
        );
        assert_eq!(count(&c, "tr[data-testid=trial-row]").await, 12);
        assert!(harness::seen_text(&c, "[data-testid=import-stats]")
            .await
            .is_some_and(|t| t.starts_with("12 files, ")));
        harness::click(&c, "[data-testid=clear]").await;
        wait_until(Duration::from_secs(30), "the cleared table", || async {
            (count(&c, "tr[data-testid=trial-row]").await == 0).then_some(())
        })
        .await;
        // What was said about the removed files goes with them (a new user saw "its 12 trials
        // are already loaded" and "12 files, … imported in" stay on the empty page).
        for gone in ["demo-status", "import-stats"] {
            let t = harness::seen_text(&c, &format!("[data-testid={gone}]")).await;
            assert!(t.as_deref().is_none_or(str::is_empty), "{gone}: {t:?}");
        }
        harness::click(&c, "[data-testid=load-demo]").await;
        wait_for_report(&c, 12, Duration::from_secs(240)).await;
        let rows = assert_all_visible(&c, "tr[data-testid=trial-row] td.name").await;
        assert_eq!(rows.len(), 12, "{rows:?}");
        let distinct: std::collections::BTreeSet<&String> = rows.iter().collect();
        assert_eq!(distinct.len(), 12, "{rows:?}");
        c.close().await.unwrap();
    });
}

/// Drops the demo's 12 files on the drop zone as a synthesized `drop` event (a `DataTransfer`
/// built from `File`s made from the site's own demo bytes): the drop path must load them all.
#[test]
fn dropped_files_load() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#dropzone").await;
        let dropped = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 (async () => {
                   const index = await (await fetch('demo/index.json')).json();
                   const dt = new DataTransfer();
                   for (const name of index.files) {
                     const bytes = await (await fetch('demo/' + name)).arrayBuffer();
                     dt.items.add(new File([bytes], name));
                   }
                   const ev = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
                   document.querySelector('#dropzone').dispatchEvent(ev);
                   done(index.files.length);
                 })().catch(e => done('error: ' + e));",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(dropped.as_u64(), Some(12), "{dropped}");
        wait_for_report(&c, 12, Duration::from_secs(240)).await;
        let (rho, q) = hotspot(&c, "scalingBuildDom").await;
        assert!(rho >= 0.8 && q < 0.05, "ρ = {rho}, q = {q}");
        assert_eq!(
            assert_all_visible(&c, "tr[data-testid=trial-row]")
                .await
                .len(),
            12
        );
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

/// A folder picked through the folder input (`webkitdirectory`): files in sub-folders load,
/// named by their path inside the folder, and the input still comes from the file name.
#[test]
fn picked_folder_loads() {
    serial(async {
        let root = tmp().join("picked-folder");
        let _ = std::fs::remove_dir_all(&root);
        for rep in ["r0", "r1"] {
            let sub = root.join("exp").join(rep);
            std::fs::create_dir_all(&sub).unwrap();
            for t in corpus_trials() {
                let name = t.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(&format!("_{rep}.pb.gz")) {
                    std::fs::copy(&t, sub.join(&name)).unwrap();
                }
            }
        }
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let input = open_without_demo(&c, &server, "#folder-input").await;
        input
            .send_keys(&root.join("exp").display().to_string())
            .await
            .unwrap();
        wait_for_report(&c, 12, Duration::from_secs(240)).await;
        let name = attr(&c, "tr[data-testid=trial-row]", "data-file")
            .await
            .unwrap();
        assert!(name.starts_with("exp/r"), "{name}");
        let shown = assert_visible(&c, "tr[data-testid=trial-row] td.name").await;
        assert_eq!(shown, name, "the row shows its path");
        let inputs = c
            .find_all(Locator::Css("input[data-testid=input-value]"))
            .await
            .unwrap();
        let first: String = inputs[0].prop("value").await.unwrap().unwrap_or_default();
        assert!(
            first.parse::<f64>().is_ok(),
            "input from the name: {first:?}"
        );
        let (rho, q) = hotspot(&c, "scalingBuildDom").await;
        assert!(rho >= 0.8 && q < 0.05, "ρ = {rho}, q = {q}");
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

/// Installed in the page before the files are picked: timestamps (`performance.now()`, ms) of
/// every message between the page and its workers (`Worker.prototype.postMessage` is wrapped,
/// and each worker gets a `message` listener the first time the page posts to it), of the pick
/// (`change` on the file input), of the first hotspot row in the DOM and the frame after it,
/// each incoming message's time taken before the app's handler runs (its `onmessage` is
/// wrapped),
/// and every long task (`PerformanceObserver`, ≥ 50 ms). Read back as `window.__phases`.
const PHASE_PROBE: &str = r#"
const ev = []; const tasks = []; let w = 0; const T = () => performance.now();
const seen = new WeakMap();
const key = (d) => d == null ? null : (d.id ?? d.seq ?? (d.summary && d.summary.id) ?? null);
const orig = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (m, ...rest) {
  if (!seen.has(this)) {
    const i = w++; seen.set(this, i);
    // Wraps the app's handler, so the time is taken before the app handles the message.
    const h = this.onmessage;
    this.onmessage = function (e) {
      ev.push([T(), i, 'in', e.data && e.data.type, key(e.data)]);
      return h && h.call(this, e);
    };
  }
  ev.push([T(), seen.get(this), 'out', m && m.type, key(m)]);
  return orig.call(this, m, ...rest);
};
document.addEventListener('change', () => ev.push([T(), -1, 'pick', null, null]), true);
const mo = new MutationObserver(() => {
  if (document.querySelector('tr[data-testid=hotspot-row]')) {
    mo.disconnect(); ev.push([T(), -1, 'table', null, null]);
    requestAnimationFrame(() => setTimeout(() => ev.push([T(), -1, 'frame', null, null]), 0));
  }
});
mo.observe(document.body, { childList: true, subtree: true });
new PerformanceObserver((l) => { for (const e of l.getEntries()) tasks.push([e.startTime, e.duration]); })
  .observe({ type: 'longtask', buffered: true });
window.__phases = { ev, tasks };
"#;

/// The split of one run's time from pick to hotspot table, from [`PHASE_PROBE`]'s log (ms).
#[derive(Debug, Default)]
struct Phases {
    /// Pick → the first file handed to an import worker.
    read: f64,
    /// Per file: handed to an import worker → its prepared result back on the page.
    import: Vec<f64>,
    /// First file handed to an import worker → the last prepared result back.
    import_span: f64,
    /// Per file: prepared result back → the session worker's answer (`imported`).
    handover: Vec<f64>,
    /// The last prepared result → the last `imported` answer.
    last_handover: f64,
    /// The last `imported` → the scaling request posted.
    to_request: f64,
    /// Scaling request posted → its answer on the page (the session's analysis and views).
    analyse: f64,
    /// The answer's handler starts → the first hotspot row in the DOM.
    render: f64,
    /// Of `render`: the answer's handler starts → the page's end-to-end time is taken (the
    /// report read from the message and put in the page state, before the table renders).
    decode: f64,
    /// First hotspot row → the next frame.
    frame: f64,
    /// Pick → the first hotspot row in the DOM; pick → the frame after it.
    total: f64,
    total_frame: f64,
    /// Long tasks (≥ 50 ms) during the run: (start relative to the pick, duration).
    long_tasks: Vec<(f64, f64)>,
    /// Messages the page posted to the session worker, by type.
    session_posts: std::collections::BTreeMap<String, usize>,
}

fn phases(v: &serde_json::Value, e2e_ms: f64) -> Phases {
    let ev: Vec<(f64, i64, String, String, Option<u64>)> = v["ev"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e[0].as_f64().unwrap_or(f64::NAN),
                        e[1].as_i64().unwrap_or(-2),
                        e[2].as_str().unwrap_or("").to_string(),
                        e[3].as_str().unwrap_or("").to_string(),
                        e[4].as_u64(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let at = |dir: &str| ev.iter().find(|e| e.2 == dir).map(|e| e.0);
    let pick = at("pick").unwrap_or(f64::NAN);
    let table = at("table").unwrap_or(f64::NAN);
    let frame = at("frame").unwrap_or(f64::NAN);
    let mut p = Phases::default();
    let find = |dir: &str, ty: &str, id: Option<u64>| {
        ev.iter()
            .find(|e| e.2 == dir && e.3 == ty && (id.is_none() || e.4 == id))
            .map(|e| e.0)
    };
    let prepares: Vec<&(f64, i64, String, String, Option<u64>)> = ev
        .iter()
        .filter(|e| e.2 == "out" && e.3 == "prepare")
        .collect();
    let (mut last_prepared, mut last_imported) = (f64::NAN, f64::NAN);
    for e in &prepares {
        if let Some(done) = find("in", "prepared", e.4) {
            p.import.push(done - e.0);
            last_prepared = if last_prepared.is_nan() {
                done
            } else {
                last_prepared.max(done)
            };
            if let Some(imp) = find("in", "imported", e.4).or(find("in", "import_failed", e.4)) {
                p.handover.push(imp - done);
                last_imported = if last_imported.is_nan() {
                    imp
                } else {
                    last_imported.max(imp)
                };
            }
        }
    }
    let first_prepare = prepares.first().map_or(f64::NAN, |e| e.0);
    p.read = first_prepare - pick;
    p.import_span = last_prepared - first_prepare;
    p.last_handover = last_imported - last_prepared;
    let analyse_out = ev
        .iter()
        .filter(|e| e.2 == "out" && e.3 == "analyse" && e.0 >= last_imported)
        .map(|e| (e.0, e.4))
        .next();
    if let Some((t, seq)) = analyse_out {
        p.to_request = t - last_imported;
        if let Some(a) = find("in", "analysed", seq) {
            p.analyse = a - t;
            p.render = table - a;
            p.decode = pick + e2e_ms - a;
        }
    }
    p.frame = frame - table;
    p.total = table - pick;
    p.total_frame = frame - pick;
    p.long_tasks = v["tasks"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| {
                    (
                        t[0].as_f64().unwrap_or(0.0) - pick,
                        t[1].as_f64().unwrap_or(0.0),
                    )
                })
                .filter(|t| t.0 >= -1.0)
                .collect()
        })
        .unwrap_or_default();
    let session: Option<i64> = ev
        .iter()
        .find(|e| e.2 == "out" && e.3 == "add_prepared")
        .map(|e| e.1);
    for e in ev.iter().filter(|e| e.2 == "out" && Some(e.1) == session) {
        *p.session_posts.entry(e.3.clone()).or_default() += 1;
    }
    p
}

fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NAN, f64::max)
}

/// The `navigator.hardwareConcurrency` values to measure each site with
/// (`BENCH_CORES=2,3`: `Emulation.setHardwareConcurrencyOverride` before the page opens, so the
/// import pool starts `cores − 1` workers); `None` = the browser's own.
fn bench_cores() -> Vec<Option<u32>> {
    match std::env::var("BENCH_CORES") {
        Ok(v) if !v.trim().is_empty() => v
            .split(',')
            .map(|c| Some(c.trim().parse().expect("BENCH_CORES: numbers")))
            .collect(),
        _ => vec![None],
    }
}

/// The sites to measure, interleaved: this checkout's `dist/`, and the one named by
/// `TRIALSCOPE_BASELINE_DIST` (e.g. a copy of main's `dist/` in `target/tmp/dist-main`) when
/// set.
pub(crate) fn bench_sites() -> Vec<(String, PathBuf)> {
    let mut v = vec![("this".to_string(), dist())];
    if let Ok(b) = std::env::var("TRIALSCOPE_BASELINE_DIST") {
        let b = PathBuf::from(b);
        assert!(
            b.join("index.html").is_file(),
            "{}: no index.html",
            b.display()
        );
        v.push(("baseline".to_string(), b));
    }
    v
}

#[test]
#[ignore = "benchmark harness: cargo test --release --test it -- --ignored --nocapture benchmark_import_in_browser"]
fn benchmark_import_in_browser() {
    // Runs per site (BENCH_RUNS, default 3); sites interleaved run by run.
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    serial(async {
        let sites: Vec<(String, Server)> = bench_sites()
            .into_iter()
            .map(|(n, d)| (n, Server::start(d, PREFIX)))
            .collect();
        let driver = Driver::start(&tmp());
        // Main-thread responsiveness: the longest gap between 10 ms timer ticks while files load.
        const PROBE: &str = "window.__maxGap = 0; let last = performance.now(); \
        setInterval(() => { const t = performance.now(); \
        window.__maxGap = Math.max(window.__maxGap, t - last); last = t; }, 10);";
        let trials = corpus_trials();
        let compressed: u64 = trials
            .iter()
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum();
        let mut paths: Vec<String> = trials.iter().map(|p| p.display().to_string()).collect();
        paths.push(corrupt_file().display().to_string());
        let variants: Vec<(String, &Server, Option<u32>)> = sites
            .iter()
            .flat_map(|(site, server)| {
                bench_cores().into_iter().map(move |cores| {
                    let name = match cores {
                        Some(n) => format!("{site}, {n} cores"),
                        None => site.clone(),
                    };
                    (name, server, cores)
                })
            })
            .collect();
        for run in 0..runs {
            for (site, server, cores) in &variants {
                let c = connect(&driver, &tmp()).await;
                if let Some(n) = cores {
                    harness::emulate_cores(&c, *n).await;
                }
                let input = open_without_demo(&c, server, "#file-input").await;
                let hc = c
                    .execute("return navigator.hardwareConcurrency;", vec![])
                    .await
                    .unwrap();
                if let Some(n) = cores {
                    assert_eq!(hc.as_u64(), Some(*n as u64), "the override took");
                }
                c.execute(PHASE_PROBE, vec![]).await.unwrap();
                let t0 = Instant::now();
                input.send_keys(&paths.join("\n")).await.unwrap();
                let (e2e_ms, bytes, import_ms) =
                    wait_for_report(&c, 18, Duration::from_secs(240)).await;
                let wall = t0.elapsed();
                // The frame after the table (a few ms after it appears).
                let p = wait_until(
                    Duration::from_secs(10),
                    "the frame after the table",
                    || async {
                        let v = c.execute("return window.__phases;", vec![]).await.ok()?;
                        let p = phases(&v, e2e_ms);
                        p.total_frame.is_finite().then_some(p)
                    },
                )
                .await;
                println!(
                    "[{site}] run {run}: 18 trials + 1 corrupt file, {:.1} MB gzip → {:.1} MB; \
                     worker import {:.0} ms summed = {:.1} MB/s per worker; page e2e {:.0} ms \
                     (test wall {:.0} ms)",
                    compressed as f64 / 1e6,
                    bytes / 1e6,
                    import_ms,
                    bytes / 1e6 / (import_ms / 1e3),
                    e2e_ms,
                    wall.as_secs_f64() * 1e3
                );
                println!(
                    "[{site}] run {run} phases (ms): pick→first file to a worker {:.0} | import \
                     per file Σ {:.0} (max {:.0}), first→last prepared {:.0} | hand-over per file \
                     Σ {:.0} (max {:.0}), last one {:.0} | → scaling request {:.0} | analysis \
                     (request→answer) {:.0} | render (answer→table) {:.0}, of it reading the report {:.0} | \
                     table→frame {:.0} || \
                     pick→table {:.0}, pick→frame {:.0}",
                    p.read,
                    sum(&p.import),
                    max(&p.import),
                    p.import_span,
                    sum(&p.handover),
                    max(&p.handover),
                    p.last_handover,
                    p.to_request,
                    p.analyse,
                    p.render,
                    p.decode,
                    p.frame,
                    p.total,
                    p.total_frame
                );
                println!(
                    "[{site}] run {run}: long tasks (start after pick, duration ms) {:?}; posts \
                     to the session worker {:?}",
                    p.long_tasks
                        .iter()
                        .map(|t| (t.0.round(), t.1.round()))
                        .collect::<Vec<_>>(),
                    p.session_posts
                );
                c.close().await.unwrap();
            }
        }
        // One large trace, with the responsiveness probe running.
        let heavy = corpus("chromium_large/heavy_default.pb.gz")
            .canonicalize()
            .expect("../shared/corpus/chromium_large/heavy_default.pb.gz");
        for run in 0..runs.min(2) {
            for (site, server) in &sites {
                let c = connect(&driver, &tmp()).await;
                let input = open_without_demo(&c, server, "#file-input").await;
                c.execute(PROBE, vec![]).await.unwrap();
                input.send_keys(&heavy.display().to_string()).await.unwrap();
                let (_, bytes, import_ms) =
                    wait_until(Duration::from_secs(300), "the large trace", || async {
                        let s = harness::import_stats(&c).await?;
                        let (n, bytes, ms) = (s.files, s.bytes?, s.import_ms?);
                        (n == 1).then_some((n, bytes, ms))
                    })
                    .await;
                let gap = c.execute("return window.__maxGap;", vec![]).await.unwrap();
                println!(
                    "[{site}] run {run}: heavy_default.pb.gz: {:.1} MB gzip → {:.1} MB; worker \
                     import {:.0} ms = {:.1} MB/s; longest main-thread timer gap while loading \
                     {:.0} ms",
                    std::fs::metadata(&heavy).unwrap().len() as f64 / 1e6,
                    bytes / 1e6,
                    import_ms,
                    bytes / 1e6 / (import_ms / 1e3),
                    gap.as_f64().unwrap_or(f64::NAN)
                );
                c.close().await.unwrap();
            }
        }
    });
}
