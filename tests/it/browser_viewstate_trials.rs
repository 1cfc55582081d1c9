//! Browser test of the per-trial parts of a view link (`src/session/viewstate.rs` keys `var.`,
//! `ex.` and `map.`; `src/ui/viewstate.rs`): a link that opens four demo traces by `?trace=`
//! with a variant label (hostile text), an exclusion and a memory counter mapping in its hash
//! restores them — the label in its trial row's field as text, the row excluded, the memory
//! tab's device-used patterns — and the page writes them back into its hash.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_local_only_with, assert_visible, connect, count, dist, serial, tmp, wait_until, Driver,
    Server, PREFIX,
};

fn demo_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"))
}

fn enc(s: &str) -> String {
    trialscope::session::viewstate::encode_component(s)
}

const NAMES: [&str; 4] = [
    "scaling_n1000_r0.pb.gz",
    "scaling_n1000_r1.pb.gz",
    "scaling_n4000_r0.pb.gz",
    "scaling_n16000_r0.pb.gz",
];

async fn prop(c: &Client, css: &str, name: &str) -> Option<String> {
    let e = c.find(Locator::Css(css)).await.ok()?;
    e.prop(name).await.ok().flatten()
}

async fn href(c: &Client) -> String {
    c.current_url().await.unwrap().to_string()
}

fn row(name: &str) -> String {
    format!("tr[data-testid=trial-row][data-file=\"{name}\"]")
}

#[test]
fn a_link_restores_variant_labels_exclusions_and_the_counter_mapping() {
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
        let label = "<b>patched</b>";
        let patterns = "my_used_bytes, hbm";
        let hash = format!(
            "var.{}={}&ex.{}=1&map.device_used={}",
            enc(NAMES[1]),
            enc(label),
            enc(NAMES[2]),
            enc(patterns)
        );
        let page = format!(
            "http://127.0.0.1:{}{PREFIX}?{}#{hash}",
            site.port,
            query.join("&")
        );
        c.goto(&page).await.unwrap();
        wait_until(Duration::from_secs(120), "four imported trials", || async {
            (count(&c, "tr[data-testid=trial-row] [data-testid=format]").await == 4).then_some(())
        })
        .await;

        // The label, as text in its row's field (no element made of it), on that row only.
        let variant = wait_until(Duration::from_secs(60), "the variant label", || async {
            prop(&c, &format!("{} input.variant", row(NAMES[1])), "value")
                .await
                .filter(|v| !v.is_empty())
        })
        .await;
        assert_eq!(variant, label);
        assert_visible(&c, &format!("{} input.variant", row(NAMES[1]))).await;
        assert_eq!(count(&c, "[data-testid=trial-table] b").await, 0);
        for n in [NAMES[0], NAMES[2], NAMES[3]] {
            let v = prop(&c, &format!("{} input.variant", row(n)), "value").await;
            assert_eq!(v.as_deref(), Some(""), "{n}");
        }
        // The exclusion: that row's box is ticked, the others not.
        for n in NAMES {
            let checked = prop(&c, &format!("{} [data-testid=exclude]", row(n)), "checked").await;
            assert_eq!(
                checked.as_deref() == Some("true"),
                n == NAMES[2],
                "{n}: {checked:?}"
            );
        }
        let class = harness::attr(&c, &row(NAMES[2]), "class")
            .await
            .unwrap_or_default();
        assert!(class.split(' ').any(|c| c == "excluded"), "{class}");

        // The page writes them back into its hash once the link's view is applied.
        let written = wait_until(
            Duration::from_secs(120),
            "the hash written back",
            || async {
                let h = href(&c).await;
                let (_, frag) = h.split_once('#')?;
                (frag.contains(&format!("var.{}={}", enc(NAMES[1]), enc(label)))
                    && frag.contains(&format!("ex.{}=1", enc(NAMES[2])))
                    && frag.contains(&format!("map.device_used={}", enc(patterns))))
                .then(|| frag.to_string())
            },
        )
        .await;
        assert!(
            !written.contains("map.allocator"),
            "defaults are not written: {written}"
        );

        // The memory tab shows the link's device-used patterns, the other kinds their defaults.
        c.find(Locator::Css("[data-testid=tab-memory]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let used = "[data-testid=memory-map-device_used]";
        assert_visible(&c, used).await;
        assert_eq!(prop(&c, used, "value").await.as_deref(), Some(patterns));
        let reserved = prop(&c, "[data-testid=memory-map-allocator_reserved]", "value")
            .await
            .unwrap_or_default();
        assert!(!reserved.is_empty() && reserved != patterns, "{reserved}");
        assert_local_only_with(&c, &site, &[&traces]).await;
        c.close().await.unwrap();
    });
}
