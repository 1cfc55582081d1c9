//! Browser test of the memory tab: the built site (`dist/`, `trunk build`) served from
//! 127.0.0.1 under `/trialscope/`, driven through chromedriver + headless Chromium.
//!
//! * The real PyTorch 4-rank traces: four lanes, each with an allocated-memory line and marker
//!   ticks, no gap band, and the warning that device-used memory is absent.
//! * The synthetic 4-rank Perfetto job (`tests/memory_fixtures/perfetto4.rs`): four lanes with
//!   a gap band and a `collective_confident` interval each, whose tooltip gives the evidence;
//!   an unknown override knob is reported by name.

#[path = "browser/harness.rs"]
#[allow(dead_code)] // the scaling test uses the rest of the harness
mod harness;
#[path = "memory_fixtures/perfetto4.rs"]
mod perfetto4;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{connect, wait_until, Driver, Server};

const PREFIX: &str = "/trialscope/";

fn dist() -> PathBuf {
    let d = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/dist"));
    assert!(
        d.join("index.html").is_file(),
        "dist/index.html is missing: build the site first with `trunk build --release --offline`"
    );
    d
}

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

async fn count(c: &Client, css: &str) -> usize {
    c.find_all(Locator::Css(css)).await.map_or(0, |v| v.len())
}

async fn text(c: &Client, css: &str) -> Option<String> {
    c.find(Locator::Css(css)).await.ok()?.text().await.ok()
}

/// Opens the page without the demo, picks `paths`, opens the memory tab and waits for `lanes`
/// lanes.
async fn open_memory(server: &Server, driver: &Driver, paths: &[String], lanes: usize) -> Client {
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
    input.send_keys(&paths.join("\n")).await.unwrap();
    c.find(Locator::Css("[data-testid=tab-memory]"))
        .await
        .expect("a Memory tab")
        .click()
        .await
        .unwrap();
    let start = std::time::Instant::now();
    while count(&c, "[data-testid=memory-lane]").await != lanes {
        if start.elapsed() > Duration::from_secs(90) {
            let png = c.screenshot().await.unwrap_or_default();
            let shot = tmp().join("memory-browser-timeout.png");
            let _ = std::fs::write(&shot, png);
            if let Ok(t) = c.find(Locator::Css("[data-testid=tab-scaling]")).await {
                let _ = t.click().await;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            let body = text(&c, "body").await.unwrap_or_default();
            panic!(
                "timed out waiting for {lanes} memory lanes (screenshot {}); page text:\n{body}",
                shot.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    c
}

#[tokio::test(flavor = "multi_thread")]
async fn memory_tab_shows_rank_lanes() {
    let server = Server::start(dist(), PREFIX);
    let driver = Driver::start(&tmp());

    // Real traces: no device-used memory.
    let torch: Vec<String> = (0..4)
        .map(|r| {
            PathBuf::from(format!(
                "{}/../shared/corpus/torch_multirank/rank{r}.trace.json.gz",
                env!("CARGO_MANIFEST_DIR")
            ))
            .canonicalize()
            .expect("corpus beside the checkout")
            .display()
            .to_string()
        })
        .collect();
    let c = open_memory(&server, &driver, &torch, 4).await;
    let summary = text(&c, "[data-testid=memory-summary]").await.unwrap();
    assert!(
        summary.starts_with("4 ranks · world size 4 · 0 attributed intervals"),
        "{summary}"
    );
    let warnings = text(&c, "[data-testid=memory-warnings]").await.unwrap();
    assert!(
        warnings.contains("device-used memory is absent"),
        "{warnings}"
    );
    assert_eq!(
        count(&c, "[data-testid=memory-lane] polyline.allocated").await,
        4
    );
    assert_eq!(count(&c, "[data-testid=memory-lane] polygon.gap").await, 0);
    assert!(count(&c, "[data-testid=memory-lane] rect.marker").await >= 4 * 24);
    // For people: what the tab looked like.
    let _ = std::fs::write(
        tmp().join("memory-torch.png"),
        c.screenshot().await.unwrap_or_default(),
    );
    c.close().await.unwrap();

    // Synthetic Perfetto job: a confident interval on every rank.
    let dir = tmp().join("memory-browser");
    std::fs::create_dir_all(&dir).unwrap();
    let synth: Vec<String> = (0..4)
        .map(|r| {
            let p = dir.join(format!("host{}.pftrace", 7 - r));
            let bytes =
                perfetto4::rank_trace(r, 5_000 * perfetto4::MS + r as u64 * 3_000 * perfetto4::MS);
            std::fs::write(&p, bytes).unwrap();
            p.display().to_string()
        })
        .collect();
    let c = open_memory(&server, &driver, &synth, 4).await;
    assert_eq!(count(&c, "[data-testid=memory-lane] polygon.gap").await, 4);
    let confident = c
        .find_all(Locator::Css("rect.interval.collective_confident title"))
        .await
        .unwrap();
    assert_eq!(confident.len(), 4);
    let tip = confident[0].html(true).await.unwrap();
    assert!(tip.contains("synchronized ranks 4/4"), "{tip}");
    assert!(tip.contains("cross_rank_synchrony"), "{tip}");
    let _ = std::fs::write(
        tmp().join("memory-synthetic.png"),
        c.screenshot().await.unwrap_or_default(),
    );

    // An unknown knob is named.
    let ov = c
        .find(Locator::Css("[data-testid=memory-overrides]"))
        .await
        .unwrap();
    ov.send_keys("marker_widow=1ms\n").await.unwrap();
    // `change` fires on blur: click elsewhere.
    c.find(Locator::Css("[data-testid=memory-summary]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let err = wait_until(Duration::from_secs(60), "the override error", || async {
        text(&c, "[data-testid=memory-error]").await
    })
    .await;
    assert!(err.contains("unknown knob `marker_widow`"), "{err}");
    c.close().await.unwrap();
}
