//! Browser test of keyboard navigation (issue 11, point 9) on three demo traces: in the
//! hotspot table ↓ moves the focus from row to row and Enter selects the focused hotspot
//! (its scatter plot follows); the scatter plot's points are focusable, → moves between them
//! and the focused point's values are spelled out under the plot.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use harness::{
    assert_local_only, assert_visible, connect, count, dist, open_without_demo, serial, tmp,
    wait_until, Driver, Server, PREFIX,
};
use serde_json::Value;

async fn active(c: &Client, what: &str) -> Value {
    c.execute(
        &format!("const e = document.activeElement; return e ? {what} : null;"),
        vec![],
    )
    .await
    .unwrap()
}

async fn press(c: &Client, key: Key) {
    c.active_element()
        .await
        .unwrap()
        .send_keys(&char::from(key).to_string())
        .await
        .unwrap();
}

#[test]
fn browser_keyboard_selects_a_hotspot_and_walks_the_points() {
    let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
    let files: Vec<String> = [
        "scaling_n1000_r0.pb.gz",
        "scaling_n4000_r0.pb.gz",
        "scaling_n16000_r0.pb.gz",
    ]
    .iter()
    .map(|n| demo.join(n).display().to_string())
    .collect();
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        c.find(Locator::Css("#file-input"))
            .await
            .unwrap()
            .send_keys(&files.join("\n"))
            .await
            .unwrap();
        wait_until(Duration::from_secs(120), "three hotspot rows", || async {
            (count(&c, "tr[data-testid=hotspot-row]").await >= 3).then_some(())
        })
        .await;
        let names: Vec<String> = {
            let v = c
                .execute(
                    "return [...document.querySelectorAll('tr[data-testid=hotspot-row]')]\
                     .map(r => r.dataset.name);",
                    vec![],
                )
                .await
                .unwrap();
            v.as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string())
                .collect()
        };
        // Focus the first row (as Tab would), ↓ twice, Enter: the third hotspot is selected.
        let first = c
            .find(Locator::Css("tr[data-testid=hotspot-row]"))
            .await
            .unwrap();
        c.execute(
            "arguments[0].focus();",
            vec![serde_json::to_value(&first).unwrap()],
        )
        .await
        .unwrap();
        press(&c, Key::Down).await;
        press(&c, Key::Down).await;
        assert_eq!(
            active(&c, "e.dataset.name ?? null").await.as_str(),
            Some(names[2].as_str())
        );
        press(&c, Key::Enter).await;
        let selected = wait_until(Duration::from_secs(20), "the selected row", || async {
            harness::attr(&c, "tr[data-testid=hotspot-row].selected", "data-name").await
        })
        .await;
        assert_eq!(selected, names[2]);
        assert_eq!(
            active(&c, "e.getAttribute('aria-selected')").await.as_str(),
            Some("true")
        );
        // The scatter plot follows the selection: its heading names the hotspot.
        let heading = wait_until(Duration::from_secs(20), "the plot of it", || async {
            let t = assert_visible(&c, "[data-testid=scatter] .plot-head strong").await;
            t.contains(names[2].as_str()).then_some(t)
        })
        .await;
        assert!(heading.contains(&names[2]), "{heading}");

        // The points: focus the first, → moves to the next; the readout names it.
        let point = c
            .find(Locator::Css("[data-testid=trial-point]"))
            .await
            .unwrap();
        c.execute(
            "arguments[0].focus();",
            vec![serde_json::to_value(&point).unwrap()],
        )
        .await
        .unwrap();
        let label0 = active(&c, "e.getAttribute('aria-label')").await;
        press(&c, Key::Right).await;
        let label1 = active(&c, "e.getAttribute('aria-label')").await;
        assert_eq!(
            active(&c, "e.dataset.testid").await.as_str(),
            Some("trial-point")
        );
        assert_ne!(label0, label1, "→ moved to another point");
        let readout = assert_visible(&c, "[data-testid=point-readout]").await;
        assert_eq!(Some(readout.trim()), label1.as_str());
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
