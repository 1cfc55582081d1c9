//! Browser test of the SVG / PNG downloads of the comparison plots and flame graphs (issue 11
//! point 7 for issue 13's views): the 4 baseline and 4 candidate traces of `browser_compare`
//! (`Gamma` 30 % slower) are dropped and compared by globs; the differential flame graph's SVG
//! is well-formed, has one `<g>` per node the page draws and names `Gamma` as slower in a
//! `<title>`, its PNG decodes and is not blank; the forest plot's SVG names `Gamma` slower in a
//! `<title>`; then the demo's scaling flame graph SVG names the frame that grows with N
//! (`scalingBuildDom`) with its ρ. Every request stays local.

use crate::support::browser as harness;

use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_local_only, assert_visible, connect, count, dist, download, download_bytes,
    open_without_demo, serial, tmp, wait_until, Driver, Server, PREFIX,
};

use crate::browser_compare::{drop_files, traces, type_into};

const WAIT: Duration = Duration::from_secs(120);

/// `<svg …>…</svg>`, one root, every element closed in order, no script, no `href`, no raw `&`
/// outside an entity.
fn assert_well_formed_svg(svg: &str) {
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(
        !svg.contains("<script") && !svg.contains("href"),
        "no script, no link"
    );
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let text = &rest[..i];
        for (k, _) in text.match_indices('&') {
            let e = &text[k + 1..k + 1 + text[k..].find(';').expect("an entity") - 1];
            assert!(
                matches!(e, "amp" | "lt" | "gt" | "quot" | "apos") || e.starts_with('#'),
                "&{e};"
            );
        }
        let j = rest[i..].find('>').expect("an unclosed tag") + i;
        let tag = &rest[i + 1..j];
        assert!(!tag.contains('<'), "'<' in a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "</{name}> out of order");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap_or(""));
        }
        assert!(
            !stack.is_empty() || rest[j + 1..].trim().is_empty(),
            "one root"
        );
        rest = &rest[j + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

/// The PNG's signature and IHDR size; its pixels (IDAT, inflated) are not all one byte value.
/// Returns (width, height).
fn assert_png(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&png[12..16], b"IHDR");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(w > 0 && h > 0, "{w}x{h}");
    let mut idat = Vec::new();
    let mut at = 8;
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if &png[at + 4..at + 8] == b"IDAT" {
            idat.extend_from_slice(&png[at + 8..at + 8 + len]);
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&idat[..]), &mut raw)
        .expect("IDAT inflates");
    let stride = raw.len() / h as usize;
    let pixels: Vec<&[u8]> = raw.chunks(stride).map(|row| &row[1..]).collect();
    let first = pixels[0][0];
    assert!(
        pixels.iter().any(|row| row.iter().any(|b| *b != first)),
        "the PNG is blank"
    );
    (w, h)
}

/// The texts of the `<title>` elements of `svg` (entities kept).
fn titles(svg: &str) -> Vec<&str> {
    svg.split("<title>")
        .skip(1)
        .filter_map(|t| t.split("</title>").next())
        .collect()
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap();
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
