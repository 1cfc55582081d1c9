//! Browser test of dark mode: Chromium's `prefers-color-scheme` emulated through the DevTools
//! protocol (chromedriver's `goog/cdp/execute`, `Emulation.setEmulatedMedia`) switches the
//! page from the light to the dark ground and text (`www/style.css`), and the plots' series
//! keep the Okabe–Ito colours; switching back restores the light page.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_local_only, connect, count, dist, open_without_demo, serial, tmp, wait_until, Driver,
    Server, PREFIX,
};
use serde_json::json;

async fn scheme(c: &Client, value: &str) {
    c.issue_cmd(harness::Cdp(json!({
        "cmd": "Emulation.setEmulatedMedia",
        "params": {"features": [{"name": "prefers-color-scheme", "value": value}]}
    })))
    .await
    .expect("chromedriver runs the DevTools command");
}

/// `[matchMedia dark?, page background, page text colour, first scatter point's fill]`.
async fn looks(c: &Client) -> Vec<String> {
    let v = c
        .execute(
            "const b = getComputedStyle(document.documentElement);
             const p = document.querySelector('[data-testid=trial-point]');
             return [String(matchMedia('(prefers-color-scheme: dark)').matches),
                     b.backgroundColor, b.color, p ? getComputedStyle(p).fill : ''];",
            vec![],
        )
        .await
        .unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn browser_dark_mode_follows_prefers_color_scheme() {
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
        scheme(&c, "light").await;
        open_without_demo(&c, &server, "#file-input").await;
        c.find(Locator::Css("#file-input"))
            .await
            .unwrap()
            .send_keys(&files.join("\n"))
            .await
            .unwrap();
        wait_until(Duration::from_secs(120), "a scatter point", || async {
            (count(&c, "[data-testid=trial-point]").await > 0).then_some(())
        })
        .await;
        let light = looks(&c).await;
        assert_eq!(
            light,
            [
                "false",
                "rgb(255, 255, 255)",
                "rgb(29, 31, 35)",
                "rgb(0, 114, 178)"
            ]
        );
        scheme(&c, "dark").await;
        let dark = looks(&c).await;
        // --bg #16181c, --fg #e6e8eb, --oi-blue lightened to #3d9be0 for the dark ground.
        assert_eq!(
            dark,
            [
                "true",
                "rgb(22, 24, 28)",
                "rgb(230, 232, 235)",
                "rgb(61, 155, 224)"
            ]
        );
        let _ = std::fs::write(
            tmp().join("dark-mode.png"),
            c.screenshot().await.unwrap_or_default(),
        );
        scheme(&c, "light").await;
        assert_eq!(looks(&c).await, light);
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
