//! Browser tests: the built site (`dist/`, from `trunk build --release --offline`) served from
//! 127.0.0.1 under the sub-path `/trialscope/`, driven through chromedriver + headless
//! Chromium.
//!
//! * `scaling_experiment_end_to_end`: the 18 Chromium scaling trials of the corpus plus a
//!   corrupt file go through the file picker; the hotspot table must show `scalingBuildDom` and
//!   `Layout` with ρ ≥ 0.8 and q < 0.05, selecting `scalingBuildDom` must plot 18 trial points,
//!   and the corrupt file must get its own error while the 18 trials load.
//! * `demo_loads_by_default`: opening the site without `?demo=0` shows the demo's hotspots.
//! * `dropped_files_load`: files dropped on the drop zone (a synthesized `drop` event) load.
//! * `picked_folder_loads`: a folder with sub-folders picked through the folder input loads.
//! * `benchmark_import_in_browser` (`#[ignore]`, run with `--ignored --nocapture`): prints
//!   import throughput and drop-to-hotspot-table time for the 18 trials.
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
        let n: usize = attr(c, "#import-stats", "data-files").await?.parse().ok()?;
        let e2e: f64 = attr(c, "#import-stats", "data-e2e-ms")
            .await?
            .parse()
            .ok()?;
        let bytes: f64 = attr(c, "#import-stats", "data-bytes").await?.parse().ok()?;
        let ms: f64 = attr(c, "#import-stats", "data-import-ms")
            .await?
            .parse()
            .ok()?;
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

#[test]
#[ignore = "benchmark harness: cargo test --release --test it -- --ignored --nocapture benchmark_import_in_browser"]
fn benchmark_import_in_browser() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        // Main-thread responsiveness: the longest gap between 10 ms timer ticks while files load.
        const PROBE: &str = "window.__maxGap = 0; let last = performance.now(); \
        setInterval(() => { const t = performance.now(); \
        window.__maxGap = Math.max(window.__maxGap, t - last); last = t; }, 10);";
        let compressed: u64 = corpus_trials()
            .iter()
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum();
        for run in 0..3 {
            let (c, wall, (e2e_ms, bytes, import_ms)) = load_experiment(&server, &driver).await;
            println!(
            "run {run}: 18 trials, {:.1} MB gzip → {:.1} MB uncompressed; worker import {:.0} ms \
             = {:.1} MB/s uncompressed; page drop→hotspot table {:.0} ms (test wall {:.0} ms)",
            compressed as f64 / 1e6,
            bytes / 1e6,
            import_ms,
            bytes / 1e6 / (import_ms / 1e3),
            e2e_ms,
            wall.as_secs_f64() * 1e3
        );
            c.close().await.unwrap();
        }
        // One large trace, with the responsiveness probe running.
        let heavy = corpus("chromium_large/heavy_default.pb.gz")
            .canonicalize()
            .expect("../shared/corpus/chromium_large/heavy_default.pb.gz");
        let c = connect(&driver, &tmp()).await;
        let input = open_without_demo(&c, &server, "#file-input").await;
        c.execute(PROBE, vec![]).await.unwrap();
        input.send_keys(&heavy.display().to_string()).await.unwrap();
        let (_, bytes, import_ms) =
            wait_until(Duration::from_secs(300), "the large trace", || async {
                let n: usize = attr(&c, "#import-stats", "data-files")
                    .await?
                    .parse()
                    .ok()?;
                let bytes: f64 = attr(&c, "#import-stats", "data-bytes")
                    .await?
                    .parse()
                    .ok()?;
                let ms: f64 = attr(&c, "#import-stats", "data-import-ms")
                    .await?
                    .parse()
                    .ok()?;
                (n == 1).then_some((n, bytes, ms))
            })
            .await;
        let gap = c.execute("return window.__maxGap;", vec![]).await.unwrap();
        println!(
            "heavy_default.pb.gz: {:.1} MB gzip → {:.1} MB uncompressed; worker import {:.0} ms = \
         {:.1} MB/s; longest main-thread timer gap while loading {:.0} ms",
            std::fs::metadata(&heavy).unwrap().len() as f64 / 1e6,
            bytes / 1e6,
            import_ms,
            bytes / 1e6 / (import_ms / 1e3),
            gap.as_f64().unwrap_or(f64::NAN)
        );
        c.close().await.unwrap();
    });
}
