//! Browser tests for JSON traces (Chrome JSON / Kineto / JAX) in the built site (`dist/`, from
//! `trunk build --release --offline`), served from 127.0.0.1 under `/trialscope/` and driven
//! through chromedriver + headless Chromium (harness `support::browser`, shared with `browser.rs`).
//!
//! * `jax_trials_scale_in_the_browser`: with the input pattern `trial(\d+)`, the three JAX
//!   `trial{1,2,3}_perfetto_trace.json.gz` give a trial table of 3 `chrome_json` trials with
//!   inputs 1, 2, 3 and a hotspot table whose `backend_compile_and_load` and
//!   `PjitFunction(step)` rows are joined across 3 trials; adding `trial1_xprof.trace.json.gz`
//!   (a sibling naming the host) gives the JAX traces that host in their per-file reports.
//! * `pytorch_rank0_trials_show_rank_and_world_size`: the three PyTorch rank-0 trials give 3
//!   `chrome_json` trials with inputs 1, 2, 3, hotspot rows with trials = 3, rank 0 / world
//!   size 2 in the trial table and in each per-file report, and the per-file report lists the
//!   counted flow events with severity and first offset.
//!
//! Both assert that every request the page made went to the test server (nothing leaves it).

use crate::support::browser as harness;

use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_local_only, attr, connect, count, dist, open_without_demo, serial, tmp, wait_until,
    Driver, Server, PREFIX,
};

use crate::support::corpus;

fn public(rel: &str) -> String {
    let p = corpus("public").join(rel);
    let p = p
        .canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e} (../shared beside the checkout)", p.display()));
    p.display().to_string()
}

async fn attrs(c: &Client, css: &str, name: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for e in c.find_all(Locator::Css(css)).await.unwrap_or_default() {
        out.push(e.attr(name).await.ok().flatten());
    }
    out
}

/// What a person sees in `css` (its closed file report opened first); `None` when hidden.
async fn text_content(c: &Client, css: &str) -> Option<String> {
    harness::seen_text(c, css).await
}

/// The effective inputs shown in the trial table, in row order.
async fn inputs(c: &Client) -> Vec<String> {
    let mut out = Vec::new();
    for e in c
        .find_all(Locator::Css("input[data-testid=input-value]"))
        .await
        .unwrap_or_default()
    {
        out.push(e.prop("value").await.ok().flatten().unwrap_or_default());
    }
    out
}

/// Opens `?demo=0`, sets the input pattern to `pattern` and picks `files`.
async fn open_and_pick(c: &Client, server: &Server, pattern: &str, files: &[String]) {
    let input = open_without_demo(c, server, "#file-input").await;
    c.execute(
        "const e = document.querySelector('[data-testid=pattern]');
         e.value = arguments[0];
         e.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![pattern.into()],
    )
    .await
    .unwrap();
    input.send_keys(&files.join("\n")).await.unwrap();
}

/// Waits until `files` trials are imported, the inputs are `want` and hotspots are shown;
/// prints the page's import figures (run with `--nocapture` to see them).
async fn wait_for_trials(c: &Client, files: usize, want: &[&str]) {
    wait_until(
        Duration::from_secs(240),
        "the trial table and hotspot table",
        || async {
            let s = harness::import_stats(c).await?;
            let n = s.files;
            let done = n == files
                && count(c, "tr[data-testid=hotspot-row]").await > 0
                && inputs(c).await == want;
            done.then_some(())
        },
    )
    .await;
    if let Some(t) = text_content(c, "#import-stats").await {
        eprintln!("import figures: {t}");
    }
}

/// The `data-trials` of the hotspot row named `name` (typed into the hotspot filter first: the
/// table shows only the first rows of a long report).
async fn hotspot_trials(c: &Client, name: &str) -> Option<String> {
    c.execute(
        "const e = document.querySelector('[data-testid=hotspot-filter]');
         e.value = arguments[0];
         e.dispatchEvent(new Event('input', { bubbles: true }));",
        vec![name.into()],
    )
    .await
    .ok()?;
    if name.is_empty() {
        return None;
    }
    let css = format!("tr[data-testid=hotspot-row][data-name=\"{name}\"]");
    // The table re-renders after the input event; give it a moment.
    for _ in 0..50 {
        if let Some(t) = attr(c, &css, "data-trials").await {
            return Some(t);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

#[test]
fn jax_trials_scale_in_the_browser() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let files: Vec<String> = (1..=3)
            .map(|i| public(&format!("local-jax/trial{i}_perfetto_trace.json.gz")))
            .collect();
        open_and_pick(&c, &server, r"trial(\d+)", &files).await;
        wait_for_trials(&c, 3, &["1", "2", "3"]).await;

        assert_eq!(
            harness::assert_all_visible(&c, "tr[data-testid=trial-row]")
                .await
                .len(),
            3
        );
        harness::assert_visible(&c, "[data-testid=hotspot-table]").await;
        let formats = attrs(&c, "[data-testid=format]", "data-format").await;
        assert_eq!(formats, vec![Some("chrome_json".to_string()); 3]);
        for name in ["backend_compile_and_load", "PjitFunction(step)"] {
            assert_eq!(
                hotspot_trials(&c, name).await.as_deref(),
                Some("3"),
                "{name}"
            );
        }
        hotspot_trials(&c, "").await;
        let providers = attrs(&c, "tr[data-testid=hotspot-row]", "data-provider").await;
        assert!(providers
            .iter()
            .all(|p| p.as_deref() == Some("chrome_json")));
        let joined = attrs(&c, "tr[data-testid=hotspot-row]", "data-trials").await;
        assert!(
            joined.iter().filter(|t| t.as_deref() == Some("3")).count() > 50,
            "frames joined across the 3 trials"
        );
        // One report per file; JAX names no host, rank or world size.
        assert_eq!(count(&c, "[data-testid=file-report]").await, 3);
        let host = "[data-testid=file-report][data-file=\"trial2_perfetto_trace.json.gz\"] dd[data-fact=hostname]";
        assert_eq!(text_content(&c, host).await.as_deref(), Some("-"));
        let fmt = "[data-testid=file-report][data-file=\"trial2_perfetto_trace.json.gz\"] dd[data-fact=format]";
        assert_eq!(text_content(&c, fmt).await.as_deref(), Some("chrome_json"));

        // The xprof trace beside them names the host: the JAX traces take it.
        let input = c.find(Locator::Css("#file-input")).await.unwrap();
        input
            .send_keys(&public("local-jax/trial1_xprof.trace.json.gz"))
            .await
            .unwrap();
        let shown = wait_until(
            Duration::from_secs(120),
            "the host from sibling files",
            || async {
                let t = text_content(&c, host).await?;
                (t != "-").then_some(t)
            },
        )
        .await;
        assert_eq!(shown, "trial1_xprof (from sibling file names)");
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

#[test]
fn pytorch_rank0_trials_show_rank_and_world_size() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let names = [
            "trial1_coldcache_rank0.pt.trace.json.gz",
            "trial2_warmcache_rank0.pt.trace.json.gz",
            "trial3_cachesdisabled_rank0.pt.trace.json.gz",
        ];
        let files: Vec<String> = names
            .iter()
            .map(|n| public(&format!("local-pytorch/{n}")))
            .collect();
        open_and_pick(&c, &server, r"trial(\d+)", &files).await;
        wait_for_trials(&c, 3, &["1", "2", "3"]).await;

        assert_eq!(
            harness::assert_all_visible(&c, "tr[data-testid=trial-row]")
                .await
                .len(),
            3
        );
        harness::assert_visible(&c, "[data-testid=hotspot-table]").await;
        let formats = attrs(&c, "[data-testid=format]", "data-format").await;
        assert_eq!(formats, vec![Some("chrome_json".to_string()); 3]);
        assert_eq!(
            attrs(&c, "[data-testid=rank]", "data-rank").await,
            vec![Some("0".to_string()); 3]
        );
        assert_eq!(
            attrs(&c, "[data-testid=rank]", "data-world-size").await,
            vec![Some("2".to_string()); 3]
        );
        for name in ["aten::mm", "gloo:all_reduce"] {
            assert_eq!(
                hotspot_trials(&c, name).await.as_deref(),
                Some("3"),
                "{name}"
            );
        }
        assert_eq!(count(&c, "[data-testid=file-report]").await, 3);
        for n in names {
            let fact = |f: &str| {
                format!("[data-testid=file-report][data-file=\"{n}\"] dd[data-fact=\"{f}\"]")
            };
            assert_eq!(
                text_content(&c, &fact("rank")).await.as_deref(),
                Some("0"),
                "{n}"
            );
            assert_eq!(
                text_content(&c, &fact("world_size")).await.as_deref(),
                Some("2"),
                "{n}"
            );
            assert_eq!(
                text_content(&c, &fact("backend")).await.as_deref(),
                Some("gloo"),
                "{n}"
            );
            assert_eq!(
                text_content(&c, &fact("hostname")).await.as_deref(),
                Some("vm"),
                "{n}"
            );
            assert_eq!(
                text_content(&c, &fact("compression")).await.as_deref(),
                Some("gzip"),
                "{n}"
            );
            let events: u64 = text_content(&c, &fact("events"))
                .await
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
            assert!(events > 1000, "{n}: {events} events");
            // Counted, not modelled: the flow events, with severity and first offset.
            let flow = format!(
                "[data-testid=file-report][data-file=\"{n}\"] tr[data-kind=flow_event_not_modelled]"
            );
            let row = text_content(&c, &flow).await.unwrap_or_default();
            assert!(row.starts_with("info"), "{n}: {row:?}");
        }
        // For a human look: target/tmp/json-trials.png and json-file-report.png.
        if let Ok(png) = c.screenshot().await {
            let _ = std::fs::write(tmp().join("json-trials.png"), png);
        }
        let _ = c
            .execute(
                "const d = document.querySelector('[data-testid=file-report]');
                 d.open = true; d.scrollIntoView();",
                vec![],
            )
            .await;
        if let Ok(png) = c.screenshot().await {
            let _ = std::fs::write(tmp().join("json-file-report.png"), png);
        }
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
