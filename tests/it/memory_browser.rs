//! Browser test of the memory tab: the built site (`dist/`, `trunk build`) served from
//! 127.0.0.1 under `/trialscope/`, driven through chromedriver + headless Chromium.
//!
//! * The real PyTorch 4-rank traces: four lanes, each with an allocated-memory line and marker
//!   ticks, no gap band, and the warning that device-used memory is absent.
//! * The synthetic 4-rank Perfetto job (`tests/it/support/memory_fixture.rs`): four lanes with
//!   a gap band and a `collective_confident` interval each, whose tooltip gives the evidence;
//!   an unknown override knob is reported by name.
//! * A telemetry JSON Lines file made here (4 ranks, no device-used field, one malformed line):
//!   four lanes, the file listed in the memory tab with the bad line as `file:line`, not in
//!   the trial table; a rank override moves one lane; a mapping edit (device used =
//!   `allocator_allocated`) makes a device-used line and a gap band appear on every lane.

use crate::support::browser as harness;
use crate::support::memory_fixture as perfetto4;

use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{connect, count, dist, open_without_demo, tmp, wait_until, Driver, Server, PREFIX};

use crate::support::corpus;
use crate::support::telemetry::Record;

async fn text(c: &Client, css: &str) -> Option<String> {
    harness::seen_text(c, css).await
}

/// Opens the page without the demo, picks `paths`, opens the memory tab and waits for `lanes`
/// lanes.
pub(crate) async fn open_memory(
    server: &Server,
    driver: &Driver,
    paths: &[String],
    lanes: usize,
) -> Client {
    let c = connect(driver, &tmp()).await;
    let input = open_without_demo(&c, server, "#file-input").await;
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
    // A person sees every lane and its chart.
    let lanes_seen = harness::assert_all_visible(&c, "[data-testid=memory-lane]").await;
    assert_eq!(lanes_seen.len(), lanes);
    harness::assert_all_visible(&c, "[data-testid=memory-lane] svg").await;
    c
}

#[tokio::test(flavor = "multi_thread")]
async fn memory_tab_shows_rank_lanes() {
    let server = Server::start(dist(), PREFIX);
    let driver = Driver::start(&tmp());

    // Real traces: no device-used memory.
    let torch: Vec<String> = (0..4)
        .map(|r| {
            corpus(&format!("torch_multirank/rank{r}.trace.json.gz"))
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

/// Telemetry JSON Lines for ranks 0–3 on an epoch clock: 100 samples 10 ms apart per rank with
/// allocator reserved (1.5 GiB) and allocated (1 GiB) bytes but no device-used field, one
/// `nccl_all_reduce` marker per rank, and a malformed fifth line.
fn telemetry4() -> Vec<u8> {
    const GIB: u64 = 1 << 30;
    let base: u64 = 1_700_000_000_000_000_000;
    let mut out = String::new();
    for i in 0..100u64 {
        for r in 0..4u64 {
            let sample = Record::sample(base + i * 10_000_000 + r)
                .num("rank", r)
                .num("world_size", 4)
                .num("allocator_reserved_bytes", 3 * GIB / 2)
                .num("allocator_allocated_bytes", GIB);
            out.push_str(&sample.line());
        }
        if i == 0 {
            out.push_str("this line is not JSON\n");
        }
    }
    for r in 0..4u64 {
        let marker = Record::new(base + 500_000_000, "nccl_all_reduce")
            .num("rank", r)
            .num("duration_ns", 5000000);
        out.push_str(&marker.line());
    }
    out.into_bytes()
}

async fn blur(c: &Client) {
    // `change` fires on blur: click elsewhere.
    c.find(Locator::Css("[data-testid=memory-summary]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// The visible lane titles, read in one script call: element-by-element reads could straddle a
/// re-render (the view is rebuilt in place) and mix the old lanes with the new.
async fn lane_titles(c: &Client) -> Vec<String> {
    let v = c
        .execute(
            "return [...document.querySelectorAll('[data-testid=memory-lane] .lane-title')]\
             .filter(e => e.offsetParent !== null).map(e => e.innerText.trim());",
            vec![],
        )
        .await
        .unwrap_or_default();
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn memory_tab_reads_telemetry_with_rank_overrides_and_mapping() {
    let server = Server::start(dist(), PREFIX);
    let driver = Driver::start(&tmp());
    let dir = tmp().join("memory-telemetry");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mem4.jsonl");
    std::fs::write(&path, telemetry4()).unwrap();
    let c = open_memory(&server, &driver, &[path.display().to_string()], 4).await;

    // Listed in the memory tab with its malformed line; four lanes in rank order.
    assert_eq!(count(&c, "[data-testid=telemetry-file]").await, 1);
    let bad = text(&c, "[data-testid=telemetry-bad-lines]").await.unwrap();
    assert!(bad.contains("mem4.jsonl:5: not JSON"), "{bad}");
    let diags = text(&c, "[data-testid=telemetry-diagnostics]")
        .await
        .unwrap();
    assert!(diags.contains("telemetry_bad_line"), "{diags}");
    let summary = text(&c, "[data-testid=memory-summary]").await.unwrap();
    assert!(summary.starts_with("4 ranks · world size 4"), "{summary}");
    assert_eq!(
        lane_titles(&c).await,
        (0..4)
            .map(|r| format!("rank {r} · mem4.jsonl (rank {r})"))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        count(&c, "[data-testid=memory-lane] polyline.used").await,
        0
    );
    assert_eq!(count(&c, "[data-testid=memory-source]").await, 4);

    // Not a scaling trial: the trial table does not list it.
    c.find(Locator::Css("[data-testid=tab-scaling]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Absent even from hidden text (textContent, not what is rendered).
    let body = c
        .find(Locator::Css("body"))
        .await
        .unwrap()
        .prop("textContent")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(!body.contains("mem4.jsonl"), "{body}");
    c.find(Locator::Css("[data-testid=tab-memory]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_until(
        Duration::from_secs(60),
        "the memory lanes again",
        || async { (count(&c, "[data-testid=memory-lane]").await == 4).then_some(()) },
    )
    .await;

    // A rank override moves rank 1's lane to rank 7.
    let edits = c
        .find_all(Locator::Css("[data-testid=rank-override]"))
        .await
        .unwrap();
    assert_eq!(edits.len(), 4);
    edits[1].send_keys("7").await.unwrap();
    blur(&c).await;
    let titles = wait_until(Duration::from_secs(60), "the overridden rank", || async {
        let t = lane_titles(&c).await;
        t.iter()
            .any(|t| t == "rank 7 · mem4.jsonl (rank 1)")
            .then_some(t)
    })
    .await;
    assert_eq!(
        titles,
        [
            "rank 0 · mem4.jsonl (rank 0)",
            "rank 2 · mem4.jsonl (rank 2)",
            "rank 3 · mem4.jsonl (rank 3)",
            "rank 7 · mem4.jsonl (rank 1)"
        ]
    );

    // A mapping edit: the allocated counter becomes device-used memory.
    let allocated = c
        .find(Locator::Css("[data-testid=memory-map-allocator_allocated]"))
        .await
        .unwrap();
    allocated.clear().await.unwrap();
    blur(&c).await;
    let used = c
        .find(Locator::Css("[data-testid=memory-map-device_used]"))
        .await
        .unwrap();
    used.clear().await.unwrap();
    used.send_keys("allocator_allocated").await.unwrap();
    blur(&c).await;
    wait_until(Duration::from_secs(60), "device-used lines", || async {
        (count(&c, "[data-testid=memory-lane] polyline.used").await == 4).then_some(())
    })
    .await;
    assert_eq!(count(&c, "[data-testid=memory-lane] polygon.gap").await, 4);
    assert_eq!(
        count(&c, "[data-testid=memory-lane] polyline.allocated").await,
        0
    );
    // The override survives the re-analysis.
    assert!(lane_titles(&c)
        .await
        .contains(&"rank 7 · mem4.jsonl (rank 1)".to_string()));
    let _ = std::fs::write(
        tmp().join("memory-telemetry.png"),
        c.screenshot().await.unwrap_or_default(),
    );

    // Removing the telemetry file empties the view.
    c.find(Locator::Css("[data-testid=telemetry-file] button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_until(Duration::from_secs(60), "an empty memory view", || async {
        (count(&c, "[data-testid=memory-lane]").await == 0
            && count(&c, "[data-testid=telemetry-file]").await == 0)
            .then_some(())
    })
    .await;
    c.close().await.unwrap();
}
