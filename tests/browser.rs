//! Browser tests: the built site (`dist/`, from `trunk build --release --offline`) served from
//! 127.0.0.1 under the sub-path `/trialscope/`, driven through chromedriver + headless
//! Chromium.
//!
//! * `scaling_experiment_end_to_end`: the 18 Chromium scaling trials of the corpus plus a
//!   corrupt file go through the file picker; the hotspot table must show `scalingBuildDom` and
//!   `Layout` with ρ ≥ 0.8 and q < 0.05, selecting `scalingBuildDom` must plot 18 trial points,
//!   and the corrupt file must get its own error while the 18 trials load.
//! * `demo_loads_by_default`: opening the site without `?demo=0` shows the demo's hotspots.
//! * `benchmark_import_in_browser` (`#[ignore]`, run with `--ignored --nocapture`): prints
//!   import throughput and drop-to-hotspot-table time for the 18 trials.
//!
//! Every test also asserts that each request the page made (Chrome's performance log,
//! `Network.requestWillBeSent`) went to the test server's 127.0.0.1 origin (or data:/blob:)
//! and that the server answered 200 to every request: trace data never leaves the machine.

#[path = "browser/harness.rs"]
mod harness;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use harness::{connect, log_entries, requested_urls, wait_until, Driver, Server};

const PREFIX: &str = "/trialscope/";
/// One browser at a time: the machine may have only 2 cores.
static SERIAL: Mutex<()> = Mutex::new(());

fn dist() -> PathBuf {
    let d = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/dist"));
    assert!(
        d.join("index.html").is_file(),
        "dist/index.html is missing: build the site first with `trunk build --release --offline` \
         (or run `bash .ci/test`, which does it)"
    );
    d
}

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// The 18 corpus trials (canonical paths), sorted.
fn corpus_trials() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/chromium_scaling"
    ));
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

async fn attr(c: &Client, css: &str, name: &str) -> Option<String> {
    let e = c.find(Locator::Css(css)).await.ok()?;
    e.attr(name).await.ok().flatten()
}

async fn count(c: &Client, css: &str) -> usize {
    c.find_all(Locator::Css(css)).await.map_or(0, |v| v.len())
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

/// Asserts that every request went to `origin` (or data:/blob:) and was answered with 200.
async fn assert_local_only(c: &Client, server: &Server) {
    let entries = log_entries(c, "performance").await;
    let urls = requested_urls(&entries);
    assert!(!urls.is_empty(), "the performance log recorded no request");
    let origin = format!("http://127.0.0.1:{}/", server.port);
    for u in &urls {
        assert!(
            u.starts_with(&origin) || u.starts_with("data:") || u.starts_with("blob:"),
            "a request left the test server: {u}"
        );
    }
    let log = server.log.lock().unwrap().clone();
    assert!(!log.is_empty());
    for (m, p, s) in &log {
        assert_eq!(*s, 200, "the server answered {s} to {m} {p}");
        assert!(
            p.starts_with(PREFIX),
            "request outside the sub-path: {m} {p}"
        );
    }
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
    c.goto(&format!("http://127.0.0.1:{}{PREFIX}?demo=0", server.port))
        .await
        .unwrap();
    let input = c
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("#file-input"))
        .await
        .expect("the app mounted its file input");
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

#[tokio::test(flavor = "multi_thread")]
async fn scaling_experiment_end_to_end() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start(dist(), PREFIX);
    let driver = Driver::start(&tmp());
    let (c, _, _) = load_experiment(&server, &driver).await;

    // The corrupt file has its own error naming it; the 18 trials loaded.
    let errors = c
        .find_all(Locator::Css("[data-testid=file-error]"))
        .await
        .unwrap();
    assert_eq!(errors.len(), 1);
    let msg = errors[0].text().await.unwrap();
    assert!(msg.starts_with("corrupt.pftrace: "), "{msg}");
    assert!(msg.contains("not a trace"), "{msg}");
    assert_eq!(count(&c, "tr[data-testid=trial-row]").await, 19);
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
    let shown_rho = row
        .find(Locator::Css("[data-testid=rho]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
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

    assert_local_only(&c, &server).await;
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn demo_loads_by_default() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
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
    assert_local_only(&c, &server).await;
    let demo_requests = server
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, p, _)| p.contains("/demo/"))
        .count();
    assert_eq!(demo_requests, 13, "index.json + 12 trials");
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark harness: cargo test --test browser -- --ignored --nocapture"]
async fn benchmark_import_in_browser() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let server = Server::start(dist(), PREFIX);
    let driver = Driver::start(&tmp());
    for run in 0..3 {
        let (c, wall, (e2e_ms, bytes, import_ms)) = load_experiment(&server, &driver).await;
        let compressed: u64 = corpus_trials()
            .iter()
            .map(|p| std::fs::metadata(p).unwrap().len())
            .sum();
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
}
