//! Browser test of offline use (README "Offline use"; `www/sw.js`, registered by `www/boot.js`):
//! a copy of `dist/` served under the sub-path, in headless Chromium.
//!
//! * `offline_after_first_visit`: the first visit shows "offline ready" and holds one cache,
//!   named after the build; a new deploy (the copy's wasm renamed, as a new build's hash would)
//!   gets a new cache and the old one is deleted (the demo is kept from the second plain
//!   visit on, as the page loads it, never downloaded twice); then the server stops answering, the page is
//!   reloaded, and the app starts from the cache and analyses dropped demo traces (the hotspot
//!   table appears) with not one request answered by the server.
//! * `reload_after_deploy_runs_the_new_worker`: a page reloaded just after a deploy, its
//!   browser holding the previous deploy (cached as GitHub Pages allows), runs the new
//!   deploy's worker, never the previous one under the same name.

use crate::support::browser as harness;

use std::path::{Path, PathBuf};
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_visible, connect, count, dist, serial, tmp, wait_until, Driver, Server, PREFIX,
};
use serde_json::Value;

/// Copies the files of `from` into `to` (recursively; `dist/` is small: a few MiB).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The app's hashed wasm name in `site`'s index.html (`app-<hash>_bg.wasm`).
fn app_wasm(site: &Path) -> String {
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    let start = html
        .find("wasm=app-")
        .expect("boot.js's wasm=app-<hash>_bg.wasm")
        + 5;
    let end = start
        + html[start..]
            .find("_bg.wasm")
            .expect("an app-<hash>_bg.wasm name");
    format!("{}_bg.wasm", &html[start..end])
}

/// The cache names the page's origin holds (`caches.keys()`), sorted.
async fn cache_names(c: &Client) -> Vec<String> {
    let v = c
        .execute_async(
            "const done = arguments[arguments.length - 1];
             caches.keys().then((k) => done(k.sort()), (e) => done(String(e)));",
            vec![],
        )
        .await
        .unwrap();
    match v {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
        other => panic!("caches.keys() failed: {other}"),
    }
}

/// How many requests for the demo's files `site` answered.
fn demo_requests(site: &Server) -> usize {
    site.log
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, p, _)| p.contains("/demo/"))
        .count()
}

/// The URLs kept in the cache `name`.
async fn cached_urls(c: &Client, name: &str) -> Vec<String> {
    let v = c
        .execute_async(
            "const done = arguments[arguments.length - 1];
             caches.open(arguments[0]).then((c) => c.keys())
               .then((k) => done(k.map((r) => r.url)), (e) => done(String(e)));",
            vec![Value::String(name.to_string())],
        )
        .await
        .unwrap();
    match v {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
        other => panic!("cache.keys() failed: {other}"),
    }
}

async fn open(c: &Client, site: &Server) {
    open_query(c, site, "?demo=0").await;
}

async fn open_query(c: &Client, site: &Server, query: &str) {
    c.goto(&format!("http://127.0.0.1:{}{PREFIX}{query}", site.port))
        .await
        .unwrap();
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("#file-input"))
        .await
        .expect("the app mounted");
}

async fn wait_rows(c: &Client) {
    wait_until(Duration::from_secs(120), "the hotspot rows", || async {
        (count(c, "tr[data-testid=hotspot-row]").await > 0).then_some(())
    })
    .await;
}

async fn wait_offline_ready(c: &Client) -> String {
    wait_until(Duration::from_secs(60), "\"offline ready\"", || async {
        (count(c, "[data-testid=offline-ready]").await > 0).then_some(())
    })
    .await;
    assert_visible(c, "[data-testid=offline-ready]").await
}

#[test]
fn offline_after_first_visit() {
    serial(async {
        let root: PathBuf = tmp().join(format!("offline-site-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        copy_dir(&dist(), &root);
        let site = Server::start(root.clone(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;

        // First visit (a plain one: the demo loads): the shell is cached under a name derived
        // from the build.
        open_query(&c, &site, "").await;
        let text = wait_offline_ready(&c).await;
        assert_eq!(text.trim(), "offline ready");
        let wasm = app_wasm(&root);
        let first = cache_names(&c).await;
        assert_eq!(first.len(), 1, "{first:?}");
        assert!(
            first[0].starts_with("trialscope-shell:app-") && first[0].contains(&wasm),
            "{first:?} does not name {wasm}"
        );
        let base = format!("http://127.0.0.1:{}{PREFIX}", site.port);
        let kept = cached_urls(&c, &first[0]).await;
        let worker = harness::worker_files(&root);
        assert!(
            first[0].ends_with(&format!(":{}", worker.hash)),
            "{first:?}"
        );
        for part in ["", "boot.js", &worker.loader, &worker.glue, &worker.wasm] {
            let u = format!("{base}{part}");
            assert!(kept.contains(&u), "{u} not in {kept:?}");
        }
        assert!(kept.contains(&format!("{base}{wasm}")), "{kept:?}");
        assert!(kept.iter().all(|u| !u.contains('?')), "{kept:?}");
        // The demo is kept as a page the worker controls loads it (the worker never downloads
        // it itself): all of it by the next plain visit, each visit downloading it once.
        wait_rows(&c).await;
        let demo_before = demo_requests(&site);
        assert_eq!(demo_before, 13, "index.json + 12 trials, once");
        open_query(&c, &site, "").await;
        wait_offline_ready(&c).await;
        wait_rows(&c).await;
        wait_until(Duration::from_secs(30), "the demo kept", || async {
            let urls = cached_urls(&c, &first[0]).await;
            (urls.iter().filter(|u| u.contains("/demo/")).count() == 13).then_some(())
        })
        .await;
        assert_eq!(
            demo_requests(&site),
            2 * demo_before,
            "one download per visit"
        );

        // A new deploy: the same site with the app's wasm under another hashed name.
        let renamed = wasm.replace("_bg.wasm", "0_bg.wasm");
        std::fs::rename(root.join(&wasm), root.join(&renamed)).unwrap();
        let html = std::fs::read_to_string(root.join("index.html")).unwrap();
        std::fs::write(root.join("index.html"), html.replace(&wasm, &renamed)).unwrap();
        open(&c, &site).await;
        wait_offline_ready(&c).await;
        let second = wait_until(Duration::from_secs(30), "the old cache deleted", || async {
            let names = cache_names(&c).await;
            (names.len() == 1 && names[0] != first[0]).then_some(names)
        })
        .await;
        assert!(second[0].contains(&renamed), "{second:?}");

        // The server goes away; the reloaded page starts from the cache and analyses files.
        site.stop();
        let answered = site.log.lock().unwrap().len();
        open(&c, &site).await;
        wait_offline_ready(&c).await;
        let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
        let paths: Vec<String> = [
            "scaling_n1000_r0.pb.gz",
            "scaling_n4000_r0.pb.gz",
            "scaling_n16000_r0.pb.gz",
        ]
        .iter()
        .map(|n| demo.join(n).display().to_string())
        .collect();
        let input = c.find(Locator::Css("#file-input")).await.unwrap();
        input.send_keys(&paths.join("\n")).await.unwrap();
        wait_rows(&c).await;
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        let log = site.log.lock().unwrap().clone();
        assert_eq!(
            log.len(),
            answered,
            "the stopped server answered: {:?}",
            &log[answered..]
        );
        c.close().await.unwrap();
        let _ = std::fs::remove_dir_all(&root);
    });
}

/// The worker glue of the "previous deploy" in [`reload_after_deploy_runs_the_new_worker`]:
/// it defines `wasm_bindgen` as the real glue does but never starts the module, so a worker
/// that runs it never says `ready` and the page never analyses anything.
const PREVIOUS_GLUE: &str =
    "// the previous deploy's worker glue\nvar wasm_bindgen = function () {};\n";

/// A deploy while a visitor's browser still holds the previous one (served as GitHub Pages
/// serves, `Cache-Control: max-age=600`): the reloaded page gets the new index.html from the
/// server but may take any sub-resource from the browser's cache. The previous deploy's worker
/// is a glue that never starts ([`PREVIOUS_GLUE`]), named as this build names the worker's
/// files: by content (`.ci/hash-worker`), so under other names than the new deploy's. After
/// the reload the demo must be analysed, i.e. the page runs the new deploy's worker. With
/// Trunk's plain names (`worker.js`, as before the worker was content-addressed) the previous
/// glue comes from the cache under the same name and the test fails waiting for the rows.
#[test]
fn reload_after_deploy_runs_the_new_worker() {
    serial(async {
        let root: PathBuf = tmp().join(format!("deploy-site-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        copy_dir(&dist(), &root);
        let new_html = std::fs::read_to_string(root.join("index.html")).unwrap();
        // The previous deploy: its index.html and its worker glue's name.
        let hash = harness::worker_hash(&root).filter(|h| h.len() == 16);
        let (previous_html, previous_glue, plain_glue) = match hash {
            Some(h) => {
                let worker = harness::worker_files(&root);
                let old = if h == "0123456789abcdef" {
                    "fedcba9876543210"
                } else {
                    "0123456789abcdef"
                };
                let loader = std::fs::read_to_string(root.join(&worker.loader)).unwrap();
                std::fs::write(
                    root.join(format!("worker_loader-{old}.js")),
                    loader.replace(&h, old),
                )
                .unwrap();
                std::fs::write(root.join(format!("worker-{old}.js")), PREVIOUS_GLUE).unwrap();
                std::fs::copy(
                    root.join(&worker.wasm),
                    root.join(format!("worker-{old}_bg.wasm")),
                )
                .unwrap();
                (new_html.replace(&h, old), format!("worker-{old}.js"), None)
            }
            None => {
                let real = std::fs::read(root.join("worker.js")).unwrap();
                std::fs::write(root.join("worker.js"), PREVIOUS_GLUE).unwrap();
                (new_html.clone(), "worker.js".to_string(), Some(real))
            }
        };
        std::fs::write(root.join("index.html"), &previous_html).unwrap();
        let site = Server::start_pages(root.clone(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;

        // A visit to the previous deploy: its workers load its glue (and the browser keeps it).
        open_query(&c, &site, "").await;
        let glue_path = format!("{PREFIX}{previous_glue}");
        wait_until(
            Duration::from_secs(60),
            "the previous deploy's worker glue fetched",
            || async {
                let log = site.log.lock().unwrap().clone();
                log.iter()
                    .any(|(_, p, s)| p == &glue_path && *s == 200)
                    .then_some(())
            },
        )
        .await;
        // and its service worker finished installing: its precache requests (`?sw=install`)
        // are the visit's, not the reload's (under load they once came after the reload).
        wait_offline_ready(&c).await;

        // The new deploy, then a reload: the demo is analysed by the new deploy's worker.
        std::fs::write(root.join("index.html"), &new_html).unwrap();
        if let Some(real) = plain_glue {
            std::fs::write(root.join("worker.js"), real).unwrap();
        }
        let answered = site.log.lock().unwrap().len();
        c.refresh().await.unwrap();
        wait_until(
            Duration::from_secs(120),
            "the demo's hotspot rows after the reload (a worker of the previous deploy never \
             says ready)",
            || async { (count(&c, "tr[data-testid=hotspot-row]").await > 0).then_some(()) },
        )
        .await;
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        // The reloaded page asked the server for its index.html (the reload) and its worker
        // (new names), and for nothing of the previous deploy's worker.
        let after = site.log.lock().unwrap()[answered..].to_vec();
        assert!(
            after.iter().all(|(_, p, _)| !p.starts_with(&glue_path)),
            "the previous glue was requested again: {after:?}"
        );
        c.close().await.unwrap();
        let _ = std::fs::remove_dir_all(&root);
    });
}
