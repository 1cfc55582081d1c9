//! Browser test of the site built for a sub-path (`bash .ci/build-site /trialscope/
//! target/dist-subpath`, which `.ci/test` runs after the normal build): absolute URLs under
//! `/trialscope/`, as GitHub Pages serves a project site.
//!
//! * `subpath_build_works_under_its_path`: served under `/trialscope/`, the app starts,
//!   analyses three picked demo traces (the hotspot table is visible), says "offline ready"
//!   with the shell (CSS included) cached, and every request stays under the sub-path on the
//!   test server.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::Locator;
use harness::{
    assert_local_only, assert_visible, connect, count, serial, tmp, wait_until, Driver, Server,
    PREFIX,
};

/// The sub-path build; fails (never skips silently) when it was not built.
fn dist_subpath() -> PathBuf {
    let d = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/dist-subpath"));
    assert!(
        d.join("index.html").is_file(),
        "target/dist-subpath/index.html is missing: build the sub-path site first with \
         `bash .ci/build-site /trialscope/ target/dist-subpath` (`bash .ci/test` does it)"
    );
    d
}

#[test]
fn subpath_build_works_under_its_path() {
    serial(async {
        let root = dist_subpath();
        let html = std::fs::read_to_string(root.join("index.html")).unwrap();
        assert!(
            html.contains("src=\"/trialscope/boot.js?"),
            "not a /trialscope/ build: {html}"
        );
        let worker = harness::worker_files(&root);
        let site = Server::start(root, PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        c.goto(&format!("http://127.0.0.1:{}{PREFIX}?demo=0", site.port))
            .await
            .unwrap();
        let input = c
            .wait()
            .at_most(Duration::from_secs(60))
            .for_element(Locator::Css("#file-input"))
            .await
            .expect("the app mounted");
        let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
        let paths: Vec<String> = [
            "scaling_n1000_r0.pb.gz",
            "scaling_n4000_r0.pb.gz",
            "scaling_n16000_r0.pb.gz",
        ]
        .iter()
        .map(|n| demo.join(n).display().to_string())
        .collect();
        input.send_keys(&paths.join("\n")).await.unwrap();
        wait_until(Duration::from_secs(120), "the hotspot rows", || async {
            (count(&c, "tr[data-testid=hotspot-row]").await > 0).then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        // The service worker works with the absolute URLs too: the shell, CSS included, is
        // cached under the sub-path.
        wait_until(Duration::from_secs(60), "\"offline ready\"", || async {
            (count(&c, "[data-testid=offline-ready]").await > 0).then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=offline-ready]").await;
        let cached = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 caches.keys().then((k) => caches.open(k[0])).then((c) => c.keys())
                   .then((r) => done(r.map((x) => x.url)), (e) => done([String(e)]));",
                vec![],
            )
            .await
            .unwrap();
        let cached: Vec<String> = serde_json::from_value(cached).unwrap();
        let base = format!("http://127.0.0.1:{}{PREFIX}", site.port);
        for part in ["", "boot.js", &worker.glue, &worker.wasm] {
            let u = format!("{base}{part}");
            assert!(cached.contains(&u), "{u} not cached: {cached:?}");
        }
        assert!(
            cached
                .iter()
                .any(|u| u.starts_with(&format!("{base}style-")) && u.ends_with(".css")),
            "{cached:?}"
        );
        assert_local_only(&c, &site).await;
        c.close().await.unwrap();
    });
}
