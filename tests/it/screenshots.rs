//! The README's screenshots (`docs/screenshots/*.png`), taken in headless Chromium by
//! `tools/screenshots.sh` (an ignored test: `cargo test --test it -- --ignored screenshots`):
//! the scaling tab on the bundled demo, the compile-triage tab on the JAX records (baseline
//! pinned, the cache regression triaged), the memory tab on the synthetic 4-rank Perfetto job.
//! Each file is checked to be a PNG under 200 KB.

use crate::support::browser as harness;
use crate::support::browser::click;
use crate::support::corpus;
use crate::support::memory_fixture as perfetto4;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    connect, count, dist, open_without_demo, serial, tmp, wait_until, Driver, Server, PREFIX,
};

const WAIT: Duration = Duration::from_secs(120);

async fn pick(c: &Client, files: &[String]) {
    c.find(Locator::Css("#file-input"))
        .await
        .unwrap()
        .send_keys(&files.join("\n"))
        .await
        .unwrap();
}

/// Saves the viewport as `docs/screenshots/<name>.png`, scrolled so that the element `top`
/// is at the top (or to the page's top).
async fn shot(c: &Client, name: &str, top: Option<&str>) {
    // A laptop-sized viewport keeps each PNG small.
    c.set_window_size(1200, 760).await.unwrap();
    c.execute(
        "const e = arguments[0] && document.querySelector(arguments[0]);\
         if (e) e.scrollIntoView({block: 'start'}); else window.scrollTo(0, 0);",
        vec![serde_json::to_value(top).unwrap()],
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let png = c.screenshot().await.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() < 200_000, "{name}.png is {} bytes", png.len());
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

#[test]
#[ignore = "writes docs/screenshots; run by tools/screenshots.sh"]
fn screenshots_of_every_tab() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());

        // Scaling: the demo a first visit loads.
        let c = connect(&driver, &tmp()).await;
        c.goto(&format!("http://127.0.0.1:{}{PREFIX}", server.port))
            .await
            .unwrap();
        wait_until(WAIT, "the demo's hotspots", || async {
            (count(&c, "tr[data-testid=hotspot-row]").await > 0
                && count(&c, "[data-testid=trial-point]").await > 0)
                .then_some(())
        })
        .await;
        shot(&c, "scaling", None).await;
        c.close().await.unwrap();

        // Compile triage: the JAX baseline pinned, then the cache regression's records.
        let jax = |n: &str| {
            corpus("jax_compile")
                .join(n)
                .canonicalize()
                .unwrap()
                .display()
                .to_string()
        };
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        pick(&c, &[jax("baseline.jsonl")]).await;
        click(&c, "[data-testid=tab-triage]").await;
        c.wait()
            .at_most(WAIT)
            .for_element(Locator::Css("[data-testid=pin-warm-medians]"))
            .await
            .unwrap();
        click(&c, "[data-testid=pin-warm-medians]").await;
        wait_until(WAIT, "12 pins", || async {
            (harness::attr(&c, "[data-testid=pin-count]", "data-pins")
                .await
                .as_deref()
                == Some("12"))
            .then_some(())
        })
        .await;
        click(
            &c,
            "tr[data-testid=record-file-row][data-file=\"baseline.jsonl\"] button",
        )
        .await;
        pick(&c, &[jax("cache_regression.jsonl")]).await;
        let e = c.find(Locator::Css("[data-testid=min-abs]")).await.unwrap();
        e.clear().await.unwrap();
        e.send_keys("0.05").await.unwrap();
        click(&c, "[data-testid=triage-summary]").await;
        wait_until(WAIT, "the per-key chart", || async {
            (count(&c, "[data-testid=key-chart] circle").await > 0).then_some(())
        })
        .await;
        shot(&c, "triage", Some("[data-testid=key-chart]")).await;
        c.close().await.unwrap();

        // Memory: the synthetic 4-rank Perfetto job.
        let dir = tmp().join("screenshots-memory");
        std::fs::create_dir_all(&dir).unwrap();
        let files: Vec<String> = (0..4)
            .map(|r| {
                let p = dir.join(format!("host{}.pftrace", 7 - r));
                let bytes = perfetto4::rank_trace(
                    r,
                    5_000 * perfetto4::MS + r as u64 * 3_000 * perfetto4::MS,
                );
                std::fs::write(&p, bytes).unwrap();
                p.display().to_string()
            })
            .collect();
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        pick(&c, &files).await;
        click(&c, "[data-testid=tab-memory]").await;
        wait_until(WAIT, "4 memory lanes", || async {
            (count(&c, "[data-testid=memory-lane]").await == 4).then_some(())
        })
        .await;
        shot(&c, "memory", Some("[data-testid=memory-zoom]")).await;
        c.close().await.unwrap();
        std::fs::remove_dir_all(&dir).ok();
    });
}
