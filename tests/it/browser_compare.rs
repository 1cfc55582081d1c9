//! The Compare tab and the flame graphs in headless Chromium (issue 13): 4 baseline and 4
//! candidate Perfetto traces written by the generator of `compare_perfetto` (`Gamma` 30 %
//! slower in the candidate, everything else unchanged with ±1 % noise) are dropped on the drop
//! zone; with the sides typed as globs, the comparison table shows exactly `Gamma` as "slower",
//! the differential flame graph draws visible nodes whose hover title names the frame and its
//! shift, clicking the row shows the strip plot of the 8 trials, clicking a node zooms it to
//! the full width (reset zoom undoes it), the search box highlights the matching node, and the
//! arrow keys move the focus through the tree. Then the demo's scaling flame graph is visible
//! in the Scaling tab with its ρ legend. Every request stays local.

use crate::support::browser as harness;

use std::time::Duration;

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, Locator};
use harness::{
    assert_all_visible, assert_local_only, assert_visible, connect, count, dist, open_without_demo,
    serial, tmp, wait_until, Driver, Server, PREFIX,
};
use serde_json::{json, Value};

use crate::compare_perfetto::{trace, Noise};

/// WebDriver key codes.
const TAB: &str = "\u{E004}";
const ARROW_DOWN: char = '\u{E015}';
const ENTER: char = '\u{E007}';

/// Presses `key` on the focused element, as a keyboard does (WebDriver actions).
async fn press(c: &Client, key: char) {
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    c.perform_actions(keys).await.unwrap();
}

/// The 8 traces as `{name, bytes}` (the same ones `compare_perfetto` analyses natively).
pub(crate) fn traces() -> Vec<Value> {
    let mut noise = Noise(7);
    (0..8u32)
        .map(|k| {
            let (name, gamma) = if k < 4 {
                (format!("base_{k}.pb"), 5_000_000)
            } else {
                (format!("cand_{k}.pb"), 6_500_000)
            };
            json!({ "name": name, "bytes": trace(k, gamma, 42, &mut noise) })
        })
        .collect()
}

/// Drops `files` on the drop zone as a synthesized `drop` event.
pub(crate) async fn drop_files(c: &Client, files: Vec<Value>) {
    let n = files.len();
    let dropped = c
        .execute(
            "const dt = new DataTransfer();
             for (const f of arguments[0]) dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
             const ev = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
             document.querySelector('#dropzone').dispatchEvent(ev);
             return dt.files.length;",
            vec![Value::Array(files)],
        )
        .await
        .unwrap();
    assert_eq!(dropped.as_u64(), Some(n as u64), "{dropped}");
}

/// Types `text` into the input `css` and leaves it (Tab), as a person does: fires `change`.
pub(crate) async fn type_into(c: &Client, css: &str, text: &str) {
    let el = c.find(Locator::Css(css)).await.unwrap();
    el.clear().await.unwrap();
    el.send_keys(&format!("{text}{TAB}")).await.unwrap();
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap()
}

/// The `width` attribute of the rect of the differential graph's node named `name`.
async fn node_width(c: &Client, name: &str) -> Option<f64> {
    let v = js(
        c,
        &format!(
            "const r = document.querySelector('[data-testid=differential-flame] \
             g[data-name=\"{name}\"] rect'); return r ? r.getAttribute('width') : null;"
        ),
    )
    .await;
    v.as_str()?.parse().ok()
}

#[test]
fn compare_tab_finds_the_slower_frame_and_draws_the_flame_graphs() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#dropzone").await;
        drop_files(&c, traces()).await;
        wait_until(Duration::from_secs(120), "8 trials imported", || async {
            let rows = count(&c, "tr[data-testid=trial-row]").await;
            let files = harness::attr(&c, "#import-stats", "data-files").await;
            (rows == 8 && files.as_deref() == Some("8")).then_some(())
        })
        .await;

        c.find(Locator::Css("[data-testid=tab-compare]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        // One variant label and no globs: no sides, and the page says so.
        let empty = wait_until(Duration::from_secs(60), "the no-sides note", || async {
            c.find(Locator::Css("[data-testid=compare-warnings]"))
                .await
                .ok()?;
            let t = assert_visible(&c, "[data-testid=compare-statement]").await;
            Some(t)
        })
        .await;
        assert!(
            empty.contains("at least 3 per side"),
            "the fewer-than-3 statement: {empty}"
        );
        let warnings = assert_visible(&c, "[data-testid=compare-warnings]").await;
        assert!(warnings.contains("no sides"), "{warnings}");

        type_into(&c, "[data-testid=compare-baseline]", "base_*").await;
        type_into(&c, "[data-testid=compare-candidate]", "cand_*").await;
        wait_until(Duration::from_secs(60), "a slower row", || async {
            (count(&c, "tr[data-testid=compare-row][data-verdict=slower]").await > 0).then_some(())
        })
        .await;
        let sides = (
            assert_all_visible(&c, "[data-testid=compare-baseline-trials] li").await,
            assert_all_visible(&c, "[data-testid=compare-candidate-trials] li").await,
        );
        assert_eq!(
            sides.0,
            ["base_0.pb", "base_1.pb", "base_2.pb", "base_3.pb"]
        );
        assert_eq!(
            sides.1,
            ["cand_4.pb", "cand_5.pb", "cand_6.pb", "cand_7.pb"]
        );
        let family = assert_visible(&c, "[data-testid=compare-family]").await;
        assert!(family.starts_with("3 frame(s) tested"), "{family}");
        assert!(family.contains("1 slower, 0 faster"), "{family}");

        // Exactly Gamma is slower, as a person reads the table.
        let slower =
            assert_all_visible(&c, "tr[data-testid=compare-row][data-verdict=slower]").await;
        assert_eq!(slower.len(), 1, "{slower:?}");
        assert!(slower[0].starts_with("Gamma"), "{}", slower[0]);
        assert!(slower[0].trim_end().ends_with("slower"), "{}", slower[0]);
        assert_eq!(
            count(&c, "tr[data-testid=compare-row][data-verdict=faster]").await,
            0
        );
        let q: f64 = harness::attr(&c, "tr[data-testid=compare-row][data-name=Gamma]", "data-q")
            .await
            .unwrap()
            .parse()
            .unwrap();
        assert!(q < 0.05, "q = {q}");
        let head = assert_visible(&c, "[data-testid=compare-table] thead").await;
        assert!(
            head.contains("baseline median (ms)") && head.contains("shift (ms)"),
            "{head}"
        );

        // Verdict filter and sorting by a header.
        let sel = c
            .find(Locator::Css("[data-testid=compare-verdict]"))
            .await
            .unwrap();
        sel.select_by_value("slower").await.unwrap();
        assert_eq!(
            assert_all_visible(&c, "tr[data-testid=compare-row]")
                .await
                .len(),
            1
        );
        sel.select_by_value("").await.unwrap();
        let all = count(&c, "tr[data-testid=compare-row]").await;
        assert!(all >= 5, "{all} rows");
        let headers = c
            .find_all(Locator::Css("[data-testid=compare-sort]"))
            .await
            .unwrap();
        headers[0].click().await.unwrap(); // frame name ▲
        let names = js(
            &c,
            "return [...document.querySelectorAll('tr[data-testid=compare-row]')].map(r => r.dataset.name);",
        )
        .await;
        let names: Vec<String> = serde_json::from_value(names).unwrap();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);

        // The forest plot of the tested frames.
        assert_visible(&c, "[data-testid=forest-plot]").await;
        assert_eq!(count(&c, "[data-testid=forest-row]").await, 3);

        // Click the row: the strip plot of both sides' 8 trials.
        c.find(Locator::Css("tr[data-testid=compare-row][data-name=Gamma]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let strip = wait_until(Duration::from_secs(10), "the strip plot", || async {
            c.find(Locator::Css("[data-testid=strip-plot]"))
                .await
                .ok()?;
            Some(assert_visible(&c, "[data-testid=strip-plot]").await)
        })
        .await;
        assert!(
            strip.contains("Gamma") && strip.contains("slower"),
            "{strip}"
        );
        assert_eq!(
            assert_all_visible(&c, "[data-testid=strip-point]")
                .await
                .len(),
            8
        );

        // The differential flame graph: visible nodes, Gamma's hover names it and its shift.
        let nodes = assert_all_visible(
            &c,
            "[data-testid=differential-flame] g[data-testid=flame-node]",
        )
        .await;
        assert!(nodes.len() >= 5, "{} nodes", nodes.len());
        let title = js(
            &c,
            "return document.querySelector('[data-testid=differential-flame] g[data-name=Gamma] title').textContent;",
        )
        .await;
        let title = title.as_str().unwrap().to_string();
        assert!(title.starts_with("Gamma — baseline"), "{title}");
        assert!(
            title.contains("shift +1.") && title.contains(" ms"),
            "{title}"
        );
        assert!(
            title.contains(", q ") && title.ends_with("slower"),
            "{title}"
        );
        let fill = js(
            &c,
            "return document.querySelector('[data-testid=differential-flame] g[data-name=Gamma] rect').getAttribute('fill');",
        )
        .await;
        let fill = fill.as_str().unwrap_or_default();
        let channel = |k: usize| u8::from_str_radix(&fill[1 + 2 * k..3 + 2 * k], 16).unwrap();
        assert!(
            fill.len() == 7 && channel(0) > channel(2) + 60,
            "a slower node is red: {fill}"
        );
        assert_visible(
            &c,
            "[data-testid=differential-flame] [data-testid=flame-legend]",
        )
        .await;

        // Zoom by click, then reset.
        let before = node_width(&c, "Gamma").await.unwrap();
        assert!(before > 30.0 && before < 200.0, "{before}");
        c.find(Locator::Css(
            "[data-testid=differential-flame] g[data-name=Gamma]",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
        let zoomed = wait_until(Duration::from_secs(10), "Gamma zoomed", || async {
            node_width(&c, "Gamma").await.filter(|w| *w > 900.0)
        })
        .await;
        assert!((zoomed - 960.0).abs() < 1e-6, "{zoomed}");
        assert_eq!(
            node_width(&c, "Alpha").await,
            None,
            "outside the zoomed subtree"
        );
        c.find(Locator::Css(
            "[data-testid=differential-flame] [data-testid=flame-reset]",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
        let back = wait_until(Duration::from_secs(10), "zoom reset", || async {
            node_width(&c, "Gamma").await.filter(|w| *w < 900.0)
        })
        .await;
        assert!((back - before).abs() < 1e-6);

        // Search: the matching node highlighted and counted.
        c.find(Locator::Css(
            "[data-testid=differential-flame] [data-testid=flame-search]",
        ))
        .await
        .unwrap()
        .send_keys("alph")
        .await
        .unwrap();
        let matched = wait_until(Duration::from_secs(10), "a highlighted node", || async {
            let v = js(
                &c,
                "return [...document.querySelectorAll('[data-testid=differential-flame] g.flame-node.matched')].map(g => g.dataset.name);",
            )
            .await;
            let v: Vec<String> = serde_json::from_value(v).ok()?;
            (!v.is_empty()).then_some(v)
        })
        .await;
        assert_eq!(matched, ["Alpha"]);
        let m = assert_visible(
            &c,
            "[data-testid=differential-flame] [data-testid=flame-matches]",
        )
        .await;
        assert!(m.contains("1 matching node"), "{m}");
        let strokes = js(
            &c,
            "const s = sel => getComputedStyle(document.querySelector('[data-testid=differential-flame] ' + sel)).stroke;
             return [s('g.flame-node.matched rect'), s('g.flame-node:not(.matched) rect')];",
        )
        .await;
        assert_ne!(strokes[0], strokes[1], "a highlighted node is outlined");

        // Keyboard: focus Step, ↓ goes to its widest child (Alpha), Enter zooms it.
        js(
            &c,
            "document.querySelector('[data-testid=differential-flame] g[data-name=Step]').focus();",
        )
        .await;
        press(&c, ARROW_DOWN).await;
        let focused = js(&c, "return document.activeElement.dataset.name;").await;
        assert_eq!(focused.as_str(), Some("Alpha"));
        press(&c, ENTER).await;
        wait_until(Duration::from_secs(10), "Alpha zoomed by Enter", || async {
            let w = js(
                &c,
                "const r = document.querySelector('[data-testid=differential-flame] g[data-name=Alpha] rect'); return r && r.getAttribute('width');",
            )
            .await;
            w.as_str()?.parse::<f64>().ok().filter(|w| *w > 900.0)
        })
        .await;

        if let Ok(png) = c.screenshot().await {
            let _ = std::fs::write(tmp().join("compare-tab.png"), png);
        }

        // One trial's own flame graph.
        c.find(Locator::Css("[data-testid=flame-of]"))
            .await
            .unwrap()
            .select_by_value("trial")
            .await
            .unwrap();
        wait_until(Duration::from_secs(30), "a trial's flame graph", || async {
            (count(&c, "[data-testid=trial-flame] g[data-testid=flame-node]").await >= 5)
                .then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=trial-flame] g[data-name=Gamma]").await;
        // One side's median tree.
        c.find(Locator::Css("[data-testid=flame-of]"))
            .await
            .unwrap()
            .select_by_value("candidate")
            .await
            .unwrap();
        assert_visible(&c, "[data-testid=side-flame] g[data-name=Gamma]").await;
        let t = js(
            &c,
            "return document.querySelector('[data-testid=side-flame] g[data-name=Gamma] title').textContent;",
        )
        .await;
        let t = t.as_str().unwrap_or_default();
        assert!(
            t.starts_with("Gamma — 6.") && t.ends_with("(medians over 4 trials)"),
            "{t}"
        );
        assert_local_only(&c, &server).await;

        // The demo in the Scaling tab: its scaling flame graph, coloured by ρ, with the legend.
        c.goto(&format!("http://127.0.0.1:{}{PREFIX}", server.port))
            .await
            .unwrap();
        wait_until(
            Duration::from_secs(240),
            "the demo's scaling flame graph",
            || async {
                (count(&c, "[data-testid=scaling-flame] g[data-testid=flame-node]").await > 0)
                    .then_some(())
            },
        )
        .await;
        let nodes =
            assert_all_visible(&c, "[data-testid=scaling-flame] g[data-testid=flame-node]").await;
        assert!(nodes.len() >= 5, "{} nodes", nodes.len());
        let titles = js(
            &c,
            "return [...document.querySelectorAll('[data-testid=scaling-flame] g[data-name=scalingBuildDom] title')].map(t => t.textContent);",
        )
        .await;
        let titles: Vec<String> = serde_json::from_value(titles).unwrap();
        assert!(!titles.is_empty(), "scalingBuildDom is drawn");
        let rho = titles
            .iter()
            .map(|t| {
                assert!(t.starts_with("scalingBuildDom — median"), "{t}");
                t.split("ρ ")
                    .nth(1)
                    .and_then(|r| r.split(',').next())
                    .and_then(|r| r.parse::<f64>().ok())
                    .unwrap_or(f64::NAN)
            })
            .fold(f64::MIN, f64::max);
        assert!(
            rho >= 0.8,
            "the DOM build grows with N: ρ = {rho} ({titles:?})"
        );
        let legend =
            assert_visible(&c, "[data-testid=scaling-flame] [data-testid=flame-legend]").await;
        assert!(legend.contains("ρ +1"), "{legend}");
        if let Ok(png) = c.screenshot().await {
            let _ = std::fs::write(tmp().join("scaling-flame.png"), png);
        }
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
