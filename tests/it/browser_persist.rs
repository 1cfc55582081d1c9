//! Browser test of "Keep my session" (README "Keep my session (opt-in)"; `src/ui/persist.rs`):
//! the site under the sub-path in headless Chromium, its IndexedDB in the browser profile.
//!
//! * `kept_session_comes_back_and_is_forgotten`: keeping is off by default; turned on, three
//!   picked demo traces and the metric are kept; a reload (even without the hash) brings the
//!   files back, analysed, with the metric; "Forget everything", reload: no file, keeping off.
//! * `storage_errors_are_shown_not_fatal`: with IndexedDB refusing (a quota error), turning
//!   keeping on and picking files shows the error beside the toggle; the files are analysed.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_local_only, assert_visible, connect, count, dist, serial, tmp, wait_until, Driver,
    Server, PREFIX,
};
use serde_json::Value;

async fn open(c: &Client, site: &Server) {
    c.goto(&format!("http://127.0.0.1:{}{PREFIX}?demo=0", site.port))
        .await
        .unwrap();
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("[data-testid=persist-toggle]"))
        .await
        .expect("the app mounted");
}

async fn checked(c: &Client) -> bool {
    let e = c
        .find(Locator::Css("[data-testid=persist-toggle]"))
        .await
        .unwrap();
    e.prop("checked").await.unwrap().as_deref() == Some("true")
}

/// Names of the files in the IndexedDB store (`[]` when there is no database).
async fn kept_names(c: &Client) -> Vec<String> {
    let v = c
        .execute_async(
            "const done = arguments[arguments.length - 1];
             indexedDB.databases().then((dbs) => {
               if (!dbs.some((d) => d.name === 'trialscope')) return done([]);
               const req = indexedDB.open('trialscope');
               req.onsuccess = () => {
                 const db = req.result;
                 const all = db.transaction('files').objectStore('files').getAllKeys();
                 all.onsuccess = () => { db.close(); done(all.result); };
                 all.onerror = () => done(String(all.error));
               };
               req.onerror = () => done(String(req.error));
             });",
            vec![],
        )
        .await
        .unwrap();
    match v {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
        other => panic!("reading IndexedDB failed: {other}"),
    }
}

async fn wait_analysed(c: &Client, files: usize) {
    wait_until(Duration::from_secs(120), "the files analysed", || async {
        let imported = count(c, "tr[data-testid=trial-row] [data-testid=format]").await;
        (imported == files && count(c, "tr[data-testid=hotspot-row]").await > 0).then_some(())
    })
    .await;
}

#[test]
fn kept_session_comes_back_and_is_forgotten() {
    serial(async {
        let site = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open(&c, &site).await;
        assert_visible(&c, "[data-testid=persist-toggle]").await;
        assert!(!checked(&c).await, "keeping must be off by default");
        assert_eq!(kept_names(&c).await, Vec::<String>::new());

        c.find(Locator::Css("[data-testid=persist-toggle]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        assert!(checked(&c).await);
        let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
        let names = [
            "scaling_n1000_r0.pb.gz",
            "scaling_n4000_r0.pb.gz",
            "scaling_n16000_r0.pb.gz",
        ];
        let paths: Vec<String> = names
            .iter()
            .map(|n| demo.join(n).display().to_string())
            .collect();
        c.find(Locator::Css("#file-input"))
            .await
            .unwrap()
            .send_keys(&paths.join("\n"))
            .await
            .unwrap();
        wait_analysed(&c, 3).await;
        c.find(Locator::Css("[data-testid=metric]"))
            .await
            .unwrap()
            .select_by_value("count")
            .await
            .unwrap();
        let kept = wait_until(Duration::from_secs(30), "three files kept", || async {
            let k = kept_names(&c).await;
            (k.len() == 3).then_some(k)
        })
        .await;
        for n in names {
            assert!(kept.iter().any(|k| k == n), "{n} not in {kept:?}");
        }
        wait_until(
            Duration::from_secs(30),
            "the metric in the hash",
            || async {
                let h = c.current_url().await.ok()?.to_string();
                h.contains("metric=count").then_some(())
            },
        )
        .await;

        // Reload without the hash: files and view come back from IndexedDB.
        open(&c, &site).await;
        wait_analysed(&c, 3).await;
        assert!(checked(&c).await);
        for n in names {
            let css = format!("tr[data-testid=trial-row][data-file=\"{n}\"]");
            assert_visible(&c, &css).await;
        }
        let metric = c
            .find(Locator::Css("[data-testid=metric]"))
            .await
            .unwrap()
            .prop("value")
            .await
            .unwrap();
        assert_eq!(metric.as_deref(), Some("count"));
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);

        // Forget everything: the page is cleared, nothing is kept, keeping is off.
        c.find(Locator::Css("[data-testid=forget-everything]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let note = wait_until(Duration::from_secs(30), "the forgotten note", || async {
            let t = c
                .find(Locator::Css("[data-testid=persist-message]"))
                .await
                .ok()?
                .text()
                .await
                .ok()?;
            t.contains("Forgotten").then_some(t)
        })
        .await;
        assert!(note.contains("nothing of this session is kept"), "{note}");
        assert_eq!(count(&c, "tr[data-testid=trial-row]").await, 0);
        open(&c, &site).await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(count(&c, "tr[data-testid=trial-row]").await, 0);
        assert!(!checked(&c).await);
        assert_eq!(kept_names(&c).await, Vec::<String>::new());
        assert_local_only(&c, &site).await;
        c.close().await.unwrap();
    });
}

#[test]
fn storage_errors_are_shown_not_fatal() {
    serial(async {
        let site = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open(&c, &site).await;
        // A browser whose IndexedDB refuses every database (as a full quota or a private window
        // may).
        c.execute(
            "IDBFactory.prototype.open = function () {
               throw new DOMException('the quota has been exceeded', 'QuotaExceededError');
             };",
            vec![],
        )
        .await
        .unwrap();
        c.find(Locator::Css("[data-testid=persist-toggle]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
        let paths: Vec<String> = [
            "scaling_n1000_r0.pb.gz",
            "scaling_n4000_r0.pb.gz",
            "scaling_n16000_r0.pb.gz",
        ]
        .iter()
        .map(|n| demo.join(n).display().to_string())
        .collect();
        c.find(Locator::Css("#file-input"))
            .await
            .unwrap()
            .send_keys(&paths.join("\n"))
            .await
            .unwrap();
        let note = wait_until(Duration::from_secs(30), "the storage message", || async {
            let t = c
                .find(Locator::Css("[data-testid=persist-message]"))
                .await
                .ok()?
                .text()
                .await
                .ok()?;
            t.contains("QuotaExceededError").then_some(t)
        })
        .await;
        assert!(note.starts_with("Could not "), "{note}");
        assert!(note.contains("the app works on"), "{note}");
        assert_visible(&c, "[data-testid=persist-message]").await;
        // The app is not stopped by it: the files are analysed.
        wait_analysed(&c, 3).await;
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        c.close().await.unwrap();
    });
}
