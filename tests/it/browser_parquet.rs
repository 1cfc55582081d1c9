//! Browser test of Parquet aggregates in the web app (issue 12, part 4), in real headless
//! Chromium over the built site (`dist/`, harness `support::browser`):
//!
//! * `picked_aggregates_run_the_scaling_view`: the CLI summarizes the 18 Chromium scaling
//!   trials into a temp folder; every one of its 84 `.parquet` files (4 tables × 21 files of the
//!   corpus folder: the 18 traces and 3 files summarized as skipped) and one truncated copy
//!   (`corrupt.parquet`) are picked through the file input. A person sees: 18 trial rows named
//!   by `trials.path` with their format, the corrupted file's own error naming it and its
//!   problem (the others load), the hotspot table's top rows in the order and with the ρ of
//!   `trialscope scaling --from DIR --json` (`scalingBuildDom` among them, its ρ as shown, its q
//!   to a relative 1e-12: wasm's `ln`/`exp` round differently from the native libm), the
//!   scatter plot of `scalingBuildDom` with 18 points, the scaling flame graph's statement that
//!   aggregates hold no call tree, and the aggregate panel listing the pieces. Every request the
//!   page made stayed on the test server.

use crate::support::browser as harness;

use std::time::Duration;

use fantoccini::Locator;
use harness::{
    assert_all_visible, assert_local_only, assert_visible, attr, connect, count, dist,
    open_without_demo, serial, tmp, wait_until, Driver, Server, PREFIX,
};

use crate::parquet_session::{cli_report, summarize_chromium, tmp as tmp_dir};

const WAIT: Duration = Duration::from_secs(240);

#[test]
fn picked_aggregates_run_the_scaling_view() {
    let dir = tmp_dir("browser");
    let files = summarize_chromium(&dir);
    assert_eq!(files.len(), 84);
    let want = cli_report(&dir.join("agg"));
    // A truncated copy of one table file.
    let corrupt = dir.join("corrupt.parquet");
    let bytes = std::fs::read(&files[0].1).unwrap();
    std::fs::write(&corrupt, &bytes[..bytes.len() / 2]).unwrap();
    let mut paths: Vec<String> = files
        .iter()
        .map(|(_, p)| p.canonicalize().unwrap().display().to_string())
        .collect();
    paths.push(corrupt.display().to_string());

    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let input = open_without_demo(&c, &server, "#file-input").await;
        let t0 = std::time::Instant::now();
        input.send_keys(&paths.join("\n")).await.unwrap();

        // 18 trials imported (their row shows the format), the report shown, one error left.
        wait_until(
            WAIT,
            "18 trials from the aggregates and a report",
            || async {
                let trials = count(&c, "tr[data-testid=trial-row] [data-testid=format]").await;
                let errors = count(&c, "[data-testid=file-error]").await;
                let hot = count(&c, "tr[data-testid=hotspot-row]").await;
                (trials == 18 && errors == 1 && hot > 0).then_some(())
            },
        )
        .await;
        eprintln!(
            "browser_parquet: 85 files picked → 18 trials and the hotspot table in {:.2} s",
            t0.elapsed().as_secs_f64()
        );
        let rows = assert_all_visible(&c, "tr[data-testid=trial-row] td.name").await;
        assert_eq!(rows.len(), 19, "18 trials and the corrupt file: {rows:?}");
        assert!(
            rows.iter()
                .any(|r| r == "corpus/chromium_scaling/scaling_n1000_r0.pb.gz"),
            "rows are named by trials.path: {rows:?}"
        );
        let formats =
            assert_all_visible(&c, "tr[data-testid=trial-row] [data-testid=format]").await;
        assert!(formats.iter().all(|f| f == "perfetto_proto"), "{formats:?}");

        // The corrupted file: its name and its problem; the others loaded.
        let errors = assert_all_visible(&c, "[data-testid=file-error]").await;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("corrupt.parquet: a Parquet file without its footer"),
            "{}",
            errors[0]
        );

        // The hotspot table's top rows: the CLI's order and ρ.
        let hot = want["hotspots"].as_array().unwrap();
        assert!(hot.len() >= 5);
        let shown = c
            .find_all(Locator::Css("tr[data-testid=hotspot-row]"))
            .await
            .unwrap();
        // (The table shows the first rows of a long report.)
        assert!(
            shown.len() >= 5 && shown.len() <= hot.len(),
            "{}",
            shown.len()
        );
        for (i, (row, h)) in shown.iter().zip(hot).take(5).enumerate() {
            let name = row.attr("data-name").await.unwrap().unwrap();
            let rho: f64 = row
                .attr("data-rho")
                .await
                .unwrap()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(name, h["name"].as_str().unwrap(), "hotspot #{i}");
            assert_eq!(rho, h["spearman_rho"].as_f64().unwrap(), "ρ of {name}");
        }
        let dom = hot
            .iter()
            .find(|h| h["name"] == "scalingBuildDom")
            .expect("scalingBuildDom in the CLI's report");
        let css = "tr[data-testid=hotspot-row][data-name=\"scalingBuildDom\"]";
        let shown_rho = assert_visible(&c, &format!("{css} [data-testid=rho]")).await;
        assert_eq!(
            shown_rho,
            format!("{:.3}", dom["spearman_rho"].as_f64().unwrap())
        );
        assert!(shown_rho.parse::<f64>().unwrap() >= 0.8, "{shown_rho}");
        let q: f64 = attr(&c, css, "data-q").await.unwrap().parse().unwrap();
        // q: the wasm build's ln/exp may differ from the native libm in the last bits (README,
        // "Downloads"): a relative 1e-12.
        let want_q = dom["q_value"].as_f64().unwrap();
        assert!(
            (q - want_q).abs() <= 1e-12 * want_q.abs(),
            "q {q} vs {want_q}"
        );

        // Its scatter plot: one point per trial.
        c.find(Locator::Css(css))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_until(
            Duration::from_secs(30),
            "the scatter of scalingBuildDom",
            || async {
                let t = c
                    .find(Locator::Css("[data-testid=scatter] strong"))
                    .await
                    .ok()?
                    .text()
                    .await
                    .ok()?;
                t.starts_with("scalingBuildDom").then_some(())
            },
        )
        .await;
        assert_visible(&c, "[data-testid=scatter] svg").await;
        assert_eq!(
            count(&c, "[data-testid=scatter] circle[data-testid=trial-point]").await,
            18
        );

        // The scaling flame graph says why it draws nothing.
        wait_until(
            Duration::from_secs(30),
            "the flame graph's statement",
            || async { (count(&c, "[data-testid=flame-error]").await > 0).then_some(()) },
        )
        .await;
        let flame = assert_visible(&c, "[data-testid=flame-error]").await;
        assert!(flame.contains("no call tree"), "{flame}");

        // The aggregate panel: the pieces that are no trial row.
        let counts = assert_visible(&c, "[data-testid=aggregate-counts]").await;
        assert!(
            counts.starts_with("66 aggregate table file(s)")
                && counts.contains("frame_costs 21")
                && counts.contains("frames 21"),
            "{counts}"
        );
        let problems = assert_all_visible(&c, "[data-testid=aggregate-problems] li").await;
        assert_eq!(problems.len(), 3, "the 3 skipped files: {problems:?}");

        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
    let _ = std::fs::remove_dir_all(&dir);
}
