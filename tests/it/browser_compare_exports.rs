//! Browser test of the SVG / PNG downloads of the comparison plots and flame graphs (issue 11
//! point 7 for issue 13's views): the 4 baseline and 4 candidate traces of `browser_compare`
//! (`Gamma` 30 % slower) are dropped and compared by globs; the differential flame graph's SVG
//! is well-formed, has one `<g>` per node the page draws and names `Gamma` as slower in a
//! `<title>`, its PNG decodes and is not blank; the baseline's and the candidate's median
//! flame graphs download as `flame-baseline.*` and `flame-candidate.*`, each titled by its
//! side; the forest plot's SVG names `Gamma` slower in a
//! `<title>`; then the demo's scaling flame graph SVG names the frame that grows with N
//! (`scalingBuildDom`) with its ρ. Every request stays local.

use crate::support::artifacts::{assert_png, assert_well_formed_svg};
use crate::support::browser as harness;
use crate::support::browser::click;

use std::time::Duration;

use fantoccini::Locator;
use harness::{
    assert_local_only, assert_visible, connect, count, dist, download, download_bytes,
    open_without_demo, serial, tmp, wait_until, Driver, Server, PREFIX,
};

use crate::browser_compare::{drop_files, traces, type_into};

const WAIT: Duration = Duration::from_secs(120);

/// The texts of the `<title>` elements of `svg` (entities kept).
fn titles(svg: &str) -> Vec<&str> {
    svg.split("<title>")
        .skip(1)
        .filter_map(|t| t.split("</title>").next())
        .collect()
}

#[test]
fn compare_plots_and_flame_graphs_download_as_svg_and_png() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#dropzone").await;
        drop_files(&c, traces()).await;
        wait_until(WAIT, "8 trials imported", || async {
            (count(&c, "tr[data-testid=trial-row]").await == 8).then_some(())
        })
        .await;
        click(&c, "[data-testid=tab-compare]").await;
        type_into(&c, "[data-testid=compare-baseline]", "base_*").await;
        type_into(&c, "[data-testid=compare-candidate]", "cand_*").await;
        wait_until(WAIT, "a slower row", || async {
            (count(&c, "tr[data-testid=compare-row][data-verdict=slower]").await > 0).then_some(())
        })
        .await;
        wait_until(WAIT, "the differential flame graph", || async {
            (count(
                &c,
                "[data-testid=differential-flame] g[data-testid=flame-node]",
            )
            .await
                >= 5)
                .then_some(())
        })
        .await;

        // The differential flame graph as SVG: one <g> per drawn node, Gamma slower in its title.
        let svg_button =
            "[data-testid=differential-flame] [data-testid=export-flame-differential-svg]";
        assert_visible(&c, svg_button).await;
        let svg = download(&c, svg_button, "flame-differential.svg").await;
        assert_well_formed_svg(&svg);
        let drawn = count(
            &c,
            "[data-testid=differential-flame] g[data-testid=flame-node]",
        )
        .await;
        assert_eq!(svg.matches("<g>").count(), drawn, "one node per drawn node");
        let gamma: Vec<&str> = titles(&svg)
            .into_iter()
            .filter(|t| t.starts_with("Gamma — baseline"))
            .collect();
        assert_eq!(gamma.len(), 1, "{:?}", titles(&svg));
        assert!(
            gamma[0].contains("shift +1.") && gamma[0].ends_with("slower"),
            "{}",
            gamma[0]
        );
        assert!(svg.contains(">Gamma</text>"), "Gamma's label is drawn");
        assert!(
            svg.contains("red slower, blue faster"),
            "the legend in words"
        );
        let png = download_bytes(
            &c,
            "[data-testid=differential-flame] [data-testid=export-flame-differential-png]",
            "flame-differential.png",
        )
        .await;
        let (w, h) = assert_png(&png);
        assert_eq!(w, 960, "{w}x{h}");
        let page_h: f64 = harness::attr(
            &c,
            "[data-testid=differential-flame] svg.flame-svg",
            "height",
        )
        .await
        .unwrap()
        .parse()
        .unwrap();
        assert_eq!(
            h as f64,
            page_h + 18.0,
            "the page's rows and the legend line"
        );

        // Each side's median flame graph downloads under its side's name (not one shared
        // `flame-side.*`), titled by its side, with that side's median for Gamma.
        for side in ["baseline", "candidate"] {
            c.find(Locator::Css("[data-testid=flame-of]"))
                .await
                .unwrap()
                .select_by_value(side)
                .await
                .unwrap();
            let graph = format!("[data-testid=side-flame] [data-testid={side}-flame]");
            assert_visible(&c, &format!("{graph} g[data-name=Gamma]")).await;
            let svg_button = format!("{graph} [data-testid=export-flame-{side}-svg]");
            assert_visible(&c, &svg_button).await;
            let svg = download(&c, &svg_button, &format!("flame-{side}.svg")).await;
            assert_well_formed_svg(&svg);
            assert!(
                svg.contains(&format!("Flame graph of the {side} (medians)")),
                "{side}: {:.400}",
                svg
            );
            let gamma = titles(&svg)
                .into_iter()
                .find(|t| t.starts_with("Gamma — "))
                .unwrap_or_else(|| panic!("{side}: {:?}", titles(&svg)));
            assert!(gamma.ends_with("(medians over 4 trials)"), "{gamma}");
            let png = download_bytes(
                &c,
                &format!("{graph} [data-testid=export-flame-{side}-png]"),
                &format!("flame-{side}.png"),
            )
            .await;
            assert_eq!(assert_png(&png).0, 960, "{side}");
        }

        // The forest plot as SVG and PNG: Gamma is the slower row.
        assert_visible(&c, "[data-testid=export-forest-svg]").await;
        let svg = download(&c, "[data-testid=export-forest-svg]", "forest.svg").await;
        assert_well_formed_svg(&svg);
        let rows: Vec<&str> = titles(&svg)
            .into_iter()
            .filter(|t| t.contains(" — ratio "))
            .collect();
        assert_eq!(rows.len(), count(&c, "[data-testid=forest-row]").await);
        let slower: Vec<&&str> = rows.iter().filter(|t| t.contains(", slower,")).collect();
        assert_eq!(slower.len(), 1, "{rows:?}");
        assert!(slower[0].starts_with("Gamma — ratio 1."), "{}", slower[0]);
        let png = download_bytes(&c, "[data-testid=export-forest-png]", "forest.png").await;
        assert_eq!(assert_png(&png).0, 620);
        assert_local_only(&c, &server).await;

        // The demo's scaling flame graph: the frame growing with N named with its ρ.
        c.goto(&format!("http://127.0.0.1:{}{PREFIX}", server.port))
            .await
            .unwrap();
        wait_until(
            Duration::from_secs(240),
            "the scaling flame graph",
            || async {
                (count(&c, "[data-testid=scaling-flame] g[data-testid=flame-node]").await > 0)
                    .then_some(())
            },
        )
        .await;
        let button = "[data-testid=scaling-flame] [data-testid=export-flame-scaling-svg]";
        assert_visible(&c, button).await;
        let svg = download(&c, button, "flame-scaling.svg").await;
        assert_well_formed_svg(&svg);
        let drawn = count(&c, "[data-testid=scaling-flame] g[data-testid=flame-node]").await;
        assert_eq!(svg.matches("<g>").count(), drawn);
        let rho = titles(&svg)
            .into_iter()
            .filter(|t| t.starts_with("scalingBuildDom — median"))
            .filter_map(|t| t.split("ρ ").nth(1)?.split(',').next()?.parse::<f64>().ok())
            .fold(f64::MIN, f64::max);
        assert!(rho >= 0.8, "the DOM build grows with N: ρ = {rho}");
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
