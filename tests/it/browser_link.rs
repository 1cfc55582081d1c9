//! Browser tests of links that open traces (`?trace=URL`, README "Open traces by URL"): the
//! site on one 127.0.0.1 port, traces on others (one sending CORS headers, one not).
//!
//! * `trace_links_open_traces`: three `?trace=` URLs on the CORS server show the hotspot
//!   table; the demo is not fetched; requests go only to the two local origins. While the last
//!   download is held, the batch's line gives the two others' bytes and "1 downloading".
//! * `trace_link_errors_name_url_and_cause`: a server without CORS, a 404 and a file that is no
//!   trace each give a visible per-file error naming the URL and the cause; a relative
//!   `?trace=` with `&variant=` and an `?input=` pattern are applied.

use crate::support::browser as harness;

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_all_visible, assert_local_only_with, assert_visible, attr, connect, count, dist, serial,
    tmp, wait_until, Driver, Server, PREFIX,
};

/// The demo traces shipped with the site's sources (small: a few KiB each).
fn demo_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"))
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn trace_url(server: &Server, name: &str) -> String {
    format!("http://127.0.0.1:{}{PREFIX}{name}", server.port)
}

async fn open(c: &Client, site: &Server, query: &str) {
    c.goto(&format!("http://127.0.0.1:{}{PREFIX}?{query}", site.port))
        .await
        .unwrap();
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css("#dropzone"))
        .await
        .expect("the app mounted");
}

#[test]
fn trace_links_open_traces() {
    serial(async {
        let site = Server::start(dist(), PREFIX);
        let traces = Server::start_cors(demo_dir(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let names = [
            "scaling_n1000_r0.pb.gz",
            "scaling_n4000_r0.pb.gz",
            "scaling_n16000_r0.pb.gz",
        ];
        let query: Vec<String> = names
            .iter()
            .map(|n| format!("trace={}", enc(&trace_url(&traces, n))))
            .collect();
        // The last download is held: the batch's line counts it as downloading, with the
        // bytes of the two others, never "of 0 B" (the links' sizes come with their bytes).
        traces.hold(names[2]);
        open(&c, &site, &query.join("&")).await;
        let batch = wait_until(Duration::from_secs(120), "2 of 3 files done", || async {
            let el = c
                .find(Locator::Css("[data-testid=batch-text]"))
                .await
                .ok()?;
            let text = harness::visible_text(&c, &el).await.ok()?;
            text.starts_with("2 of 3 files done").then_some(text)
        })
        .await;
        let sizes: u64 = names[..2]
            .iter()
            .map(|n| std::fs::metadata(demo_dir().join(n)).unwrap().len())
            .sum();
        let want = format!(
            ", {} so far, 1 downloading",
            trialscope::plot::format_value(sizes as f64, "bytes")
        );
        assert!(batch.ends_with(&want), "{batch} (want …{want})");
        traces.release();
        wait_until(Duration::from_secs(120), "the hotspot rows", || async {
            (count(&c, "tr[data-testid=hotspot-row]").await > 0).then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        let rows = assert_all_visible(&c, "tr[data-testid=trial-row]").await;
        assert_eq!(rows.len(), 3, "{rows:?}");
        for n in names {
            let css = format!("tr[data-testid=trial-row][data-file=\"{n}\"]");
            assert!(
                attr(&c, &css, "data-file").await.is_some(),
                "no row for {n}"
            );
        }
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        // Nothing the link did not name: no demo.
        let site_log = site.log.lock().unwrap().clone();
        assert!(
            !site_log.iter().any(|(_, p, _)| p.contains("/demo/")),
            "{site_log:?}"
        );
        let fetched: Vec<String> = traces
            .log
            .lock()
            .unwrap()
            .iter()
            .map(|l| l.1.clone())
            .collect();
        assert_eq!(fetched.len(), 3, "{fetched:?}");
        assert_local_only_with(&c, &site, &[&traces]).await;
        c.close().await.unwrap();
    });
}

#[test]
fn trace_link_errors_name_url_and_cause() {
    serial(async {
        let site = Server::start(dist(), PREFIX);
        let traces = Server::start_cors(demo_dir(), PREFIX);
        let no_cors = Server::start(demo_dir(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        let refused = trace_url(&no_cors, "scaling_n1000_r0.pb.gz");
        let missing = trace_url(&traces, "missing_n5.pb.gz");
        let not_trace = format!("http://127.0.0.1:{}{PREFIX}boot.js", site.port);
        let query = format!(
            "trace={}&trace={}&trace=boot.js&trace=demo%2Fscaling_n2000_r0.pb.gz&variant=patched&input={}",
            enc(&refused),
            enc(&missing),
            enc(r"_n(\d+)_"),
        );
        open(&c, &site, &query).await;
        let errors = wait_until(Duration::from_secs(120), "three file errors", || async {
            let n = count(&c, "[data-testid=file-error]").await;
            let row = count(&c, "tr[data-testid=trial-row] [data-testid=format]").await;
            (n == 3 && row == 1).then_some(())
        })
        .await;
        let () = errors;
        let errors = assert_all_visible(&c, "[data-testid=file-error]").await;
        let find = |url: &str| {
            errors
                .iter()
                .find(|e| e.starts_with(&format!("{url}: ")))
                .unwrap_or_else(|| panic!("no error naming {url}: {errors:?}"))
                .clone()
        };
        let e = find(&refused);
        assert!(
            e.contains("CORS refused — the server must send Access-Control-Allow-Origin"),
            "{e}"
        );
        let e = find(&missing);
        assert!(e.contains("HTTP 404"), "{e}");
        let e = find(&not_trace);
        assert!(e.contains("not a trace"), "{e}");
        // The relative link loaded, with its variant; the link's input pattern is in force.
        let css = "tr[data-testid=trial-row][data-file=\"scaling_n2000_r0.pb.gz\"] input.variant";
        let variant = c.find(Locator::Css(css)).await.unwrap();
        assert_eq!(
            variant.prop("value").await.unwrap().as_deref(),
            Some("patched")
        );
        let pattern = c.find(Locator::Css("#pattern")).await.unwrap();
        assert_eq!(
            pattern.prop("value").await.unwrap().as_deref(),
            Some(r"_n(\d+)_")
        );
        assert_visible(&c, "#pattern").await;
        assert_local_only_with(&c, &site, &[&traces, &no_cors]).await;
        c.close().await.unwrap();
    });
}
