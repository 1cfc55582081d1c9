//! Browser test of links that reproduce a view (README "Links that reproduce a view";
//! `src/ui/viewstate.rs`): the site on one 127.0.0.1 port, three demo traces on another (with
//! CORS), opened by `?trace=`.
//!
//! * `a_copied_link_reproduces_the_view`: switch the metric, select a hotspot that is not the
//!   first, filter and sort the table, open the triage tab and edit a threshold; the page's URL
//!   (updated in place) opened in a fresh browser (a new profile) shows the same view: the triage
//!   tab with the threshold, then the same metric, filter, sort and selected row. Opened without its `?trace=` files, the link
//!   lists the three files it expects as missing, by name.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_all_visible, assert_local_only_with, assert_visible, attr, connect, count, dist, serial,
    tmp, wait_until, Driver, Server, PREFIX,
};

fn demo_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"))
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

const NAMES: [&str; 3] = [
    "scaling_n1000_r0.pb.gz",
    "scaling_n4000_r0.pb.gz",
    "scaling_n16000_r0.pb.gz",
];

async fn goto(c: &Client, url: &str) {
    c.goto(url).await.unwrap();
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("#dropzone"))
        .await
        .expect("the app mounted");
}

async fn wait_rows(c: &Client) {
    wait_until(Duration::from_secs(120), "the hotspot rows", || async {
        (count(c, "tr[data-testid=hotspot-row]").await > 2).then_some(())
    })
    .await;
}

async fn value(c: &Client, css: &str) -> Option<String> {
    let e = c.find(Locator::Css(css)).await.ok()?;
    e.prop("value").await.ok().flatten()
}

async fn href(c: &Client) -> String {
    c.current_url().await.unwrap().to_string()
}

#[test]
fn a_copied_link_reproduces_the_view() {
    serial(async {
        let site = Server::start(dist(), PREFIX);
        let traces = Server::start_cors(demo_dir(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let query: Vec<String> = NAMES
            .iter()
            .map(|n| {
                let u = format!("http://127.0.0.1:{}{PREFIX}{n}", traces.port);
                format!("trace={}", enc(&u))
            })
            .collect();
        let page = format!("http://127.0.0.1:{}{PREFIX}?{}", site.port, query.join("&"));
        goto(&c, &page).await;
        wait_rows(&c).await;

        // Metric: self time; wait for its report (the analysing note clears).
        c.find(Locator::Css("[data-testid=metric]"))
            .await
            .unwrap()
            .select_by_value("self")
            .await
            .unwrap();
        wait_until(Duration::from_secs(60), "the self-time hash", || async {
            href(&c).await.contains("metric=self").then_some(())
        })
        .await;
        wait_until(Duration::from_secs(60), "the self-time report", || async {
            let busy = c
                .find(Locator::Css("[data-testid=analysing]"))
                .await
                .ok()?
                .text()
                .await
                .ok()?;
            busy.trim().is_empty().then_some(())
        })
        .await;
        wait_rows(&c).await;
        // Select the third row (the first is selected by default).
        let rows = c
            .find_all(Locator::Css("tr[data-testid=hotspot-row]"))
            .await
            .unwrap();
        let chosen = rows[2].attr("data-name").await.unwrap().unwrap();
        rows[2].click().await.unwrap();
        let selected = attr(&c, "tr[data-testid=hotspot-row].selected", "data-name").await;
        assert_eq!(selected.as_deref(), Some(chosen.as_str()));
        wait_until(
            Duration::from_secs(30),
            "the selection in the hash",
            || async { href(&c).await.contains("sel=").then_some(()) },
        )
        .await;

        // Filter the table by the chosen frame's name and sort it by q.
        c.find(Locator::Css("[data-testid=hotspot-filter]"))
            .await
            .unwrap()
            .send_keys(&chosen)
            .await
            .unwrap();
        let q_header = c
            .find(Locator::XPath(
                "//table[@data-testid='hotspot-table']//th[starts-with(., 'q')]",
            ))
            .await
            .unwrap();
        q_header.click().await.unwrap();
        wait_until(
            Duration::from_secs(30),
            "the filter and sort in the hash",
            || async {
                let h = href(&c).await;
                (h.contains("filter=") && h.contains("sort=q")).then_some(())
            },
        )
        .await;

        // Triage tab, drift ratio 3.5.
        c.find(Locator::Css("[data-testid=tab-triage]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let ratio = c
            .find(Locator::Css("[data-testid=min-ratio]"))
            .await
            .unwrap();
        ratio.clear().await.unwrap();
        ratio.send_keys("3.5\u{E007}").await.unwrap();
        let link = wait_until(
            Duration::from_secs(30),
            "the threshold in the hash",
            || async {
                let h = href(&c).await;
                (h.contains("ratio=3.5") && h.contains("tab=triage")).then_some(h)
            },
        )
        .await;
        // The view is in the fragment only: the query is the link's own.
        let (before_hash, hash) = link.split_once('#').unwrap();
        assert_eq!(before_hash, page);
        for n in NAMES {
            assert!(hash.contains(n), "{n} not named in {hash}");
        }
        assert_local_only_with(&c, &site, &[&traces]).await;
        c.close().await.unwrap();
        drop(driver);

        // A fresh browser (new profile), first without the files: they are listed as missing.
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        goto(
            &c,
            &format!("http://127.0.0.1:{}{PREFIX}?demo=0#{hash}", site.port),
        )
        .await;
        wait_until(Duration::from_secs(20), "the expected files", || async {
            (count(&c, "[data-testid=link-files]").await > 0).then_some(())
        })
        .await;
        let note = assert_visible(&c, "[data-testid=link-files]").await;
        assert!(note.contains("3 not loaded yet"), "{note}");
        let listed = assert_all_visible(&c, "[data-testid=link-file][data-state=missing]").await;
        assert_eq!(listed.len(), 3, "{listed:?}");
        for n in NAMES {
            assert!(listed.iter().any(|l| l.starts_with(n)), "{n}: {listed:?}");
        }

        // Then the copied link itself: the same view.
        goto(&c, &link).await;
        wait_until(
            Duration::from_secs(120),
            "the triage tab with 3.5",
            || async {
                (value(&c, "[data-testid=min-ratio]").await.as_deref() == Some("3.5")).then_some(())
            },
        )
        .await;
        assert_visible(&c, "[data-testid=min-ratio]").await;
        let tab = attr(&c, "[data-testid=tab-triage]", "class").await.unwrap();
        assert!(tab.split(' ').any(|c| c == "active"), "{tab}");
        // The files the link expects are all in (their list is gone); then the scaling tab.
        wait_until(Duration::from_secs(120), "the files loaded", || async {
            (count(&c, "[data-testid=link-files]").await == 0).then_some(())
        })
        .await;
        c.find(Locator::Css("[data-testid=tab-scaling]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_rows(&c).await;
        assert_eq!(
            count(&c, "tr[data-testid=trial-row] [data-testid=format]").await,
            3
        );
        assert_eq!(
            value(&c, "[data-testid=metric]").await.as_deref(),
            Some("self")
        );
        assert_eq!(
            value(&c, "[data-testid=hotspot-filter]").await.as_deref(),
            Some(chosen.as_str())
        );
        let q_header = c
            .find(Locator::XPath(
                "//table[@data-testid='hotspot-table']//th[starts-with(., 'q')]",
            ))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(q_header.trim(), "q ▲", "sorted by q, ascending");
        let selected = wait_until(Duration::from_secs(30), "the selected row", || async {
            attr(&c, "tr[data-testid=hotspot-row].selected", "data-name").await
        })
        .await;
        assert_eq!(selected, chosen);
        assert_visible(&c, "tr[data-testid=hotspot-row].selected").await;
        c.close().await.unwrap();
    });
}
