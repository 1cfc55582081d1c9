//! Browser test of embedding (README "Embed it in a page"): a parent page on another
//! 127.0.0.1 origin (`tests/it/embed/parent.html`) frames the site with `?embed=1`, pings until
//! it gets `pong`, posts malformed messages (ignored) and then three traces, and reads back
//! `loaded` with the hotspot count (the malformed ones are logged as ignored and answered with
//! nothing); inside the frame the hotspot table shows and the chrome
//! (drop zone, tabs) does not. A second `open` with a file that is no trace gets an `error`
//! naming it before `loaded`.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::Locator;
use harness::{
    assert_local_only_with, assert_visible, connect, count, dist, serial, tmp, wait_until, Driver,
    Server, PREFIX,
};
use serde_json::Value;

/// A folder with the parent page and three demo traces (a few KiB each), made afresh.
fn parent_root(names: &[&str]) -> PathBuf {
    let root = tmp().join("embed-parent");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let here = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/embed"));
    for f in ["parent.html", "parent.js"] {
        std::fs::copy(here.join(f), root.join(f)).unwrap();
    }
    let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
    for n in names {
        std::fs::copy(demo.join(n), root.join(n)).unwrap();
    }
    root
}

#[test]
fn embedded_app_answers_its_parent() {
    let names = [
        "scaling_n1000_r0.pb.gz",
        "scaling_n4000_r0.pb.gz",
        "scaling_n16000_r0.pb.gz",
    ];
    let root = parent_root(&names);
    serial(async {
        let site = Server::start(dist(), PREFIX);
        let parent = Server::start(root.clone(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let app = format!("http://127.0.0.1:{}{PREFIX}?embed=1", site.port);
        let query: String = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("app", &app)
            .extend_pairs(names.iter().map(|n| ("trace", *n)))
            .finish();
        c.goto(&format!(
            "http://127.0.0.1:{}{PREFIX}parent.html?{query}",
            parent.port
        ))
        .await
        .unwrap();
        let answers = wait_until(Duration::from_secs(120), "a `loaded` answer", || async {
            let v = c
                .execute("return window.answers ?? [];", vec![])
                .await
                .ok()?;
            let a = v.as_array()?.clone();
            a.iter().any(|m| m["type"] == "loaded").then_some(a)
        })
        .await;
        // Let any answer to a malformed message arrive too, then read them all.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let answers = c
            .execute("return window.answers;", vec![])
            .await
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or(answers);
        let types: Vec<&str> = answers.iter().filter_map(|m| m["type"].as_str()).collect();
        assert!(types.contains(&"pong"), "{answers:?}");
        // Only the valid `open` was acted on: one `loaded`, no error.
        let loaded: Vec<&Value> = answers.iter().filter(|m| m["type"] == "loaded").collect();
        assert_eq!(loaded.len(), 1, "{answers:?}");
        assert!(!types.contains(&"error"), "{answers:?}");
        assert_eq!(loaded[0]["files"], 3, "{answers:?}");
        let hotspots = loaded[0]["hotspots"].as_u64().unwrap_or(0);
        assert!(hotspots > 0, "{answers:?}");

        // Inside the frame: the hotspot table with that many rows, no drop zone, no tabs.
        let frame = c.find(Locator::Css("#app")).await.unwrap();
        frame.enter_frame().await.unwrap();
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        // The table shows at most 300 rows (added over a few tasks after the report, so the
        // page's thread is never held long) and says how many groups there are.
        let want = hotspots.min(300);
        let shown = wait_until(Duration::from_secs(20), "every hotspot row", || async {
            let n = count(&c, "tr[data-testid=hotspot-row]").await as u64;
            (n >= want).then_some(n)
        })
        .await;
        assert_eq!(shown, want, "{answers:?}");
        let said = assert_visible(&c, "[data-testid=hotspot-count]").await;
        assert!(
            said.trim().ends_with(&format!("{hotspots}"))
                || said.contains(&format!("{hotspots} groups")),
            "{said}"
        );
        assert_eq!(count(&c, "[data-testid=trial-row]").await, 3);
        assert_eq!(count(&c, "#dropzone").await, 0);
        assert_eq!(count(&c, "nav .tab").await, 0);
        c.enter_parent_frame().await.unwrap();

        // Each malformed message was logged as ignored (7 of them; pings and the valid `open`
        // are not).
        let console = harness::log_entries(&c, "browser").await;
        let ignored = console
            .iter()
            .filter_map(|e| e["message"].as_str())
            .filter(|m| m.contains("trialscope embed: ignored a message"))
            .count();
        assert_eq!(ignored, 7, "{console:?}");
        // A second `open` replaces the files; a file that is no trace gets its `error`
        // (naming it), and `loaded` counts the three traces.
        c.execute("window.answers = []; window.openAgainWithJunk();", vec![])
            .await
            .unwrap();
        let again = wait_until(Duration::from_secs(120), "a second `loaded`", || async {
            let v = c.execute("return window.answers;", vec![]).await.ok()?;
            let a = v.as_array()?.clone();
            a.iter().any(|m| m["type"] == "loaded").then_some(a)
        })
        .await;
        let errors: Vec<&Value> = again.iter().filter(|m| m["type"] == "error").collect();
        assert_eq!(errors.len(), 1, "{again:?}");
        assert_eq!(errors[0]["file"], "junk_n5.bin", "{again:?}");
        let message = errors[0]["message"].as_str().unwrap_or_default();
        assert!(message.contains("not a trace"), "{message}");
        let loaded: Vec<&Value> = again.iter().filter(|m| m["type"] == "loaded").collect();
        assert_eq!(loaded[0]["files"], 3, "{again:?}");
        assert_eq!(loaded[0]["hotspots"], hotspots, "{again:?}");
        // The error comes before `loaded`.
        let pos = |t: &str| again.iter().position(|m| m["type"] == t);
        assert!(pos("error") < pos("loaded"), "{again:?}");

        assert_local_only_with(&c, &site, &[&parent]).await;
        c.close().await.unwrap();
    });
    let _ = std::fs::remove_dir_all(&root);
}
