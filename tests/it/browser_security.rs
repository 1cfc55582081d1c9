//! Browser tests of the page's security and of crash isolation (issue 10, points 5, 8 and 9),
//! on the built site (`dist/`) served under `/trialscope/`.
//!
//! * `browser_csp_is_in_force`: the served page carries the Content-Security-Policy (scripts
//!   from the site and wasm only, nothing inline, no plugins, `base-uri` 'self', `connect-src`
//!   'self' plus http(s) for `?trace=` links); dist/index.html has no inline script; the app boots and imports without a single
//!   CSP violation; an inline `<script>` and a `data:` script injected into the page do not
//!   run (`securitypolicyviolation` fires, their globals stay undefined) and an image from
//!   another origin is refused (and never reaches the proxy).
//! * `browser_hostile_names_show_as_text`: traces (Chrome JSON and Perfetto, built here as real
//!   bytes) whose event names, categories, args, process/thread names and file names hold
//!   `<img onerror>`, `<script>`, `javascript:` and `"><svg onload>` show those strings as
//!   visible text in the hotspot table, the plot title, the trial table and the file reports;
//!   nothing they hold runs (`window.__xss` stays undefined), no such element exists, and no
//!   request other than the site's own is made (the proxy sees the worker's requests too).
//! * `browser_importer_crash_fails_only_that_file`: with the test hook, the worker panics on one
//!   dropped file and aborts without a panic message (like running out of memory) on another;
//!   those two show failed with their names, the two other files of the drop stay in the trial
//!   table, and a later drop still works (the worker was replaced and the session replayed).
//! * `browser_importer_crash_keeps_pins`: pins made from one record set, then a second set, then
//!   a crash: the new worker holds the same 12 pins (replayed in order, before the second set)
//!   and the triage of the second set against them is unchanged.

use crate::support::browser as harness;
use crate::support::browser::click;
use crate::support::perfetto as pb;

use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_all_visible, assert_local_only, assert_visible, connect, count, dist, log_entries,
    open_without_demo, serial, tmp, wait_until, Driver, Server, PREFIX,
};
use serde_json::{json, Value};
use trialscope::formats::perfetto::proto::*;

/// The hostile strings: each would run `window.__xss = …` if it were parsed as HTML or
/// followed as a URL.
const IMG: &str = "<img src=x onerror=window.__xss=1>";
const SCRIPT: &str = "<script>window.__xss=2</script>";
const JS_URL: &str = "javascript:window.__xss=3";
const SVG: &str = "\"><svg onload=window.__xss=4>";

/// Drops `files` (name, bytes) on the drop zone as a synthesized `drop` event.
async fn drop_files(c: &Client, files: &[(String, Vec<u8>)]) {
    let arg: Vec<Value> = files
        .iter()
        .map(|(name, bytes)| json!({ "name": name, "bytes": bytes }))
        .collect();
    let dropped = c
        .execute(
            "const dt = new DataTransfer();
             for (const f of arguments[0]) {
               dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
             }
             const ev = new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true });
             document.querySelector('#dropzone').dispatchEvent(ev);
             return dt.files.length;",
            vec![Value::Array(arg)],
        )
        .await
        .unwrap();
    assert_eq!(dropped.as_u64(), Some(files.len() as u64), "{dropped}");
}

/// A Chrome JSON trial whose every name-like field holds a hostile string; the slices last
/// `scale` × their base duration, so the hotspots grow with the input.
fn hostile_json(scale: u64) -> Vec<u8> {
    let x = |name: &str, cat: &str, ts: u64, dur: u64| {
        json!({"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur * scale, "pid": 1, "tid": 1,
               "args": { JS_URL: SVG, IMG: JS_URL, "href": JS_URL }})
    };
    let events = vec![
        json!({"ph": "M", "name": "process_name", "pid": 1, "tid": 1, "args": {"name": IMG}}),
        json!({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": SCRIPT}}),
        x(IMG, SCRIPT, 0, 100),
        x(SCRIPT, SVG, 100_000, 70),
        x(JS_URL, IMG, 200_000, 50),
        x(SVG, JS_URL, 300_000, 30),
        // An end without a begin: an import diagnostic about a hostile name.
        json!({"ph": "E", "name": SVG, "pid": 1, "tid": 1, "ts": 900_000}),
    ];
    serde_json::to_vec(&json!({ "traceEvents": events })).unwrap()
}

/// The same hostile names as a Perfetto trace (process and thread names, slice names and
/// categories), slices `scale` × their base duration.
fn hostile_perfetto(scale: u64) -> Vec<u8> {
    use track_event_type::{SLICE_BEGIN, SLICE_END};
    let mut process = pb::process_track(1, 7);
    if let Some(p) = process.process.as_mut() {
        p.process_name = Some(IMG.as_bytes().to_vec());
    }
    let mut packets = vec![
        pb::track(1, process),
        pb::track(1, pb::thread_track(10, Some(1), 7, 8, Some(SCRIPT))),
    ];
    let mut ts = 1_000_000;
    for (name, cat, dur_us) in [
        (IMG, SCRIPT, 100),
        (SCRIPT, SVG, 70),
        (JS_URL, IMG, 50),
        (SVG, JS_URL, 30),
    ] {
        packets.push(pb::event(
            1,
            ts,
            pb::track_event(SLICE_BEGIN, 10, Some((name, cat))),
        ));
        packets.push(pb::event(
            1,
            ts + dur_us * 1000 * scale,
            pb::track_event(SLICE_END, 10, None),
        ));
        ts += 100_000_000;
    }
    pb::trace(&packets)
}

/// CSP violations reported in the browser's console log since the last read.
async fn csp_messages(c: &Client) -> Vec<String> {
    log_entries(c, "browser")
        .await
        .iter()
        .filter_map(|e| e["message"].as_str().map(str::to_string))
        .filter(|m| m.contains("Content Security Policy"))
        .collect()
}

/// The directives of a CSP text: name → sources.
fn directives(csp: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    csp.split(';')
        .filter_map(|d| {
            let mut words = d.split_whitespace();
            let name = words.next()?.to_string();
            Some((name, words.map(str::to_string).collect()))
        })
        .collect()
}

#[test]
fn browser_csp_is_in_force() {
    // The built page itself: every script element loads a file; none carries code.
    let html = std::fs::read_to_string(dist().join("index.html")).unwrap();
    let scripts: Vec<&str> = html.split("<script").skip(1).collect();
    assert!(!scripts.is_empty(), "no script element in dist/index.html");
    for s in &scripts {
        let (tag, rest) = s.split_once('>').unwrap();
        assert!(tag.contains(" src="), "a script without src: <script{tag}>");
        assert!(
            rest.trim_start().starts_with("</script>"),
            "inline code in <script{tag}>"
        );
    }
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#dropzone").await;

        let csp = c
            .execute(
                "return document.querySelector('meta[http-equiv=Content-Security-Policy]')?.content ?? null;",
                vec![],
            )
            .await
            .unwrap();
        let csp = csp.as_str().expect("a CSP meta element");
        let d = directives(csp);
        let sources = |name: &str| d.get(name).cloned().unwrap_or_default();
        assert_eq!(sources("default-src"), ["'self'"], "{csp}");
        assert_eq!(
            sources("script-src"),
            ["'self'", "'wasm-unsafe-eval'"],
            "{csp}"
        );
        assert_eq!(sources("object-src"), ["'none'"], "{csp}");
        assert_eq!(sources("base-uri"), ["'self'"], "{csp}");
        // Any http(s) origin, for `?trace=` links (README "Security of the page").
        assert_eq!(
            sources("connect-src"),
            ["'self'", "https:", "http:"],
            "{csp}"
        );
        assert_eq!(sources("style-src"), ["'self'"], "{csp}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("'unsafe-eval'"),
            "{csp}"
        );

        // The app works under it: three demo trials (fetched: connect-src 'self') dropped,
        // the trial table and the hotspot table shown.
        let n = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 (async () => {
                   const index = await (await fetch('demo/index.json')).json();
                   const dt = new DataTransfer();
                   for (const name of index.files.slice(0, 4)) {
                     const bytes = await (await fetch('demo/' + name)).arrayBuffer();
                     dt.items.add(new File([bytes], name));
                   }
                   document.querySelector('#dropzone').dispatchEvent(
                     new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
                   done(dt.files.length);
                 })().catch(e => done('error: ' + e));",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(n.as_u64(), Some(4), "{n}");
        wait_until(Duration::from_secs(120), "the hotspot table", || async {
            (count(&c, "[data-testid=format]").await == 4
                && count(&c, "tr[data-testid=hotspot-row]").await > 0)
                .then_some(())
        })
        .await;
        assert_eq!(
            assert_all_visible(&c, "tr[data-testid=trial-row]")
                .await
                .len(),
            4
        );
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        // The visibility check can fail: the same table, made transparent, then hidden, is
        // refused (and shown again afterwards).
        let table = c
            .find(Locator::Css("[data-testid=hotspot-table]"))
            .await
            .unwrap();
        for (prop, value) in [("opacity", "0"), ("visibility", "hidden")] {
            c.execute(
                &format!("document.querySelector('[data-testid=hotspot-table]').style.{prop} = '{value}';"),
                vec![],
            )
            .await
            .unwrap();
            let seen = harness::visible_text(&c, &table).await;
            assert!(seen.is_err(), "{prop}: {value} passed as visible");
            c.execute(
                &format!(
                    "document.querySelector('[data-testid=hotspot-table]').style.{prop} = '';"
                ),
                vec![],
            )
            .await
            .unwrap();
        }
        assert_visible(&c, "[data-testid=hotspot-table]").await;
        let before = csp_messages(&c).await;
        assert!(
            before.is_empty(),
            "the app itself violated the CSP: {before:?}"
        );

        // Injected inline script does not run, and the browser reports the violation.
        let r = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 const seen = [];
                 document.addEventListener('securitypolicyviolation',
                   e => seen.push(e.effectiveDirective + ' ' + e.blockedURI));
                 const s = document.createElement('script');
                 s.textContent = 'window.__inline = 1';
                 document.body.appendChild(s);
                 // A script from elsewhere and an image from another origin are refused
                 // too (the image would reach the proxy if it were fetched).
                 const d = document.createElement('script');
                 d.src = 'data:text/javascript,window.__data=1';
                 document.body.appendChild(d);
                 const box = document.createElement('div');
                 document.body.appendChild(box);
                 box.innerHTML = '<img src=http://elsewhere.invalid/leak.png>';
                 setTimeout(() => done({
                   inline: typeof window.__inline,
                   data: typeof window.__data,
                   seen,
                 }), 500);",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(r["inline"], "undefined", "the inline script ran: {r}");
        assert_eq!(r["data"], "undefined", "the data: script ran: {r}");
        let seen: Vec<&str> = r["seen"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            seen.iter()
                .any(|s| s.starts_with("script-src") && s.contains("inline")),
            "no securitypolicyviolation for the inline script: {r}"
        );
        assert!(
            seen.iter()
                .any(|s| s.starts_with("script-src") && s.contains("data")),
            "no securitypolicyviolation for the data: script: {r}"
        );
        assert!(
            seen.iter()
                .any(|s| s.starts_with("img-src") && s.contains("elsewhere.invalid")),
            "no securitypolicyviolation for the image: {r}"
        );
        assert!(
            !csp_messages(&c).await.is_empty(),
            "the console shows no CSP refusal"
        );
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

#[test]
fn browser_hostile_names_show_as_text() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#dropzone").await;
        let files: Vec<(String, Vec<u8>)> = vec![
            (format!("{IMG}_n1.json"), hostile_json(1)),
            (format!("{SVG}_n2.json"), hostile_json(2)),
            (format!("{JS_URL}_n4.json"), hostile_json(4)),
            (
                "'onmouseover=window.__xss=5 x='_n8.json".into(),
                hostile_json(8),
            ),
            (format!("{SVG}_n16.pftrace"), hostile_perfetto(16)),
        ];
        drop_files(&c, &files).await;
        wait_until(
            Duration::from_secs(120),
            "five imports and hotspots",
            || async {
                (count(&c, "[data-testid=format]").await == 5
                    && count(&c, "tr[data-testid=hotspot-row]").await >= 4)
                    .then_some(())
            },
        )
        .await;
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);

        // Hotspot table: each name shown as text, with its category.
        let hot = assert_all_visible(&c, "tr[data-testid=hotspot-row] td.name").await;
        for name in [IMG, SCRIPT, JS_URL, SVG] {
            assert!(
                hot.iter().any(|t| t.starts_with(name)),
                "{name} is not shown as text in the hotspot table: {hot:?}"
            );
        }
        for cat in [SCRIPT, SVG, IMG, JS_URL] {
            assert!(
                hot.iter().any(|t| t.contains(cat)),
                "category {cat}: {hot:?}"
            );
        }
        // The plot of the selected (first) hotspot names it in its title.
        let title = assert_visible(&c, "[data-testid=scatter] strong").await;
        assert!(
            [IMG, SCRIPT, JS_URL, SVG]
                .iter()
                .any(|n| title.starts_with(n)),
            "{title}"
        );
        // Trial table: the file names as text.
        let trials = assert_all_visible(&c, "tr[data-testid=trial-row] td.name").await;
        for (name, _) in &files {
            assert!(
                trials.contains(name),
                "{name} not in the trial table: {trials:?}"
            );
        }
        // File reports (diagnostics): opened, each names its file as text.
        let reports = c
            .find_all(Locator::Css("details[data-testid=file-report] > summary"))
            .await
            .unwrap();
        assert_eq!(reports.len(), 5);
        for r in &reports {
            r.click().await.unwrap();
        }
        let summaries = assert_all_visible(&c, "details[data-testid=file-report] > summary").await;
        for (name, _) in &files {
            assert!(
                summaries.iter().any(|s| s.starts_with(name.as_str())),
                "{name}: {summaries:?}"
            );
        }
        assert_visible(&c, "details[data-testid=file-report] table").await;
        let page = assert_visible(&c, "main").await;
        for s in [IMG, SCRIPT, JS_URL, SVG] {
            assert!(page.contains(s), "{s} not shown on the page");
        }

        // Nothing ran and no element came from the traces.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let dom = c
            .execute(
                "return {
                   xss: typeof window.__xss,
                   img: document.querySelectorAll('img').length,
                   scripts: [...document.querySelectorAll('script')]
                     .filter(s => !/\\/boot\\.js\\?/.test(s.src)).length,
                   handlers: document.querySelectorAll('[onerror], [onload], [onmouseover]').length,
                   jsLinks: document.querySelectorAll('[href^=\"javascript:\" i], [src^=\"javascript:\" i]').length,
                   svgOutsideCharts: [...document.querySelectorAll('svg')]
                     .filter(s => !s.closest('[data-testid]')).length,
                 };",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            dom,
            json!({"xss": "undefined", "img": 0, "scripts": 0, "handlers": 0, "jsLinks": 0,
                   "svgOutsideCharts": 0}),
            "the trace's text became markup"
        );
        // No request beyond the site's own (an `<img src=x>` would have asked for `x`: the
        // server would have answered 404, which assert_local_only rejects).
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

/// A small valid Chrome JSON trial.
fn trial(scale: u64) -> Vec<u8> {
    let events: Vec<Value> = (0..20)
        .map(|i| {
            json!({"ph": "X", "name": format!("work{}", i % 4), "cat": "c", "ts": i * 1000,
                   "dur": 10 * scale * (1 + i % 4), "pid": 1, "tid": 1})
        })
        .collect();
    serde_json::to_vec(&json!({ "traceEvents": events })).unwrap()
}

/// The state of the trial-table row of `file`: `imported`, `error`, or what it shows.
async fn row_state(c: &Client, file: &str) -> Option<String> {
    let row = c
        .find(Locator::Css(&format!(
            "tr[data-testid=trial-row][data-file=\"{file}\"]"
        )))
        .await
        .ok()?;
    if row.find(Locator::Css("[data-testid=format]")).await.is_ok() {
        return Some("imported".into());
    }
    if row.find(Locator::Css(".error")).await.is_ok() {
        return Some("error".into());
    }
    Some("busy".into())
}

#[test]
fn browser_importer_crash_fails_only_that_file() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        c.goto(&format!(
            "http://127.0.0.1:{}{PREFIX}?demo=0&testhook=panic-on%3Acrash_n2.json\
             &testhook=abort-on%3Aoom_n3.json",
            server.port
        ))
        .await
        .unwrap();
        c.wait()
            .at_most(Duration::from_secs(60))
            .for_element(Locator::Css("#dropzone"))
            .await
            .unwrap();
        drop_files(
            &c,
            &[
                ("good_n1.json".into(), trial(1)),
                ("crash_n2.json".into(), trial(2)),
                ("oom_n3.json".into(), trial(3)),
                ("good_n4.json".into(), trial(4)),
            ],
        )
        .await;
        let want = [
            ("good_n1.json", "imported"),
            ("crash_n2.json", "error"),
            ("oom_n3.json", "error"),
            ("good_n4.json", "imported"),
        ];
        wait_until(
            Duration::from_secs(120),
            "two imports, two crashes",
            || async {
                for (file, state) in want {
                    if row_state(&c, file).await.as_deref() != Some(state) {
                        return None;
                    }
                }
                Some(())
            },
        )
        .await;
        let rows = assert_all_visible(&c, "tr[data-testid=trial-row] td.name").await;
        assert_eq!(
            rows,
            [
                "good_n1.json",
                "crash_n2.json",
                "oom_n3.json",
                "good_n4.json"
            ]
        );
        let mut errors = assert_all_visible(&c, "[data-testid=file-error]").await;
        errors.sort();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].starts_with(
                "crash_n2.json: the importer crashed: test hook: a crash was requested"
            ),
            "{errors:?}"
        );
        assert!(
            errors[1].starts_with("oom_n3.json: the importer crashed: ") && errors[1].len() > 40,
            "{errors:?}"
        );
        // The session survived: a later drop joins the two trials into a report.
        drop_files(&c, &[("good_n8.json".into(), trial(8))]).await;
        wait_until(
            Duration::from_secs(120),
            "the third trial and hotspots",
            || async {
                (row_state(&c, "good_n8.json").await.as_deref() == Some("imported")
                    && count(&c, "tr[data-testid=hotspot-row]").await > 0)
                    .then_some(())
            },
        )
        .await;
        let hot = assert_all_visible(&c, "tr[data-testid=hotspot-row]").await;
        assert!(hot.iter().any(|h| h.contains("work")), "{hot:?}");
        let trials = harness::attr(&c, "tr[data-testid=hotspot-row]", "data-trials")
            .await
            .unwrap();
        assert_eq!(
            trials, "3",
            "the hotspot joins good_n1, good_n4 and good_n8"
        );
        // Two crashes in the import pool, two replacement import workers; the session worker
        // never crashed. The pool's large-files-only worker (none of these files is large)
        // starts once the pool has been idle for 2 s (`schedule::IDLE_START_MS`).
        let pool = pool_size(&c).await;
        let loaders = wait_until(
            Duration::from_secs(30),
            "every import worker started",
            || async {
                let n = worker_loads(&c).await;
                (n >= 1 + pool + 2).then_some(n)
            },
        )
        .await;
        assert_eq!(
            loaders,
            1 + pool + 2,
            "the session worker, {pool} import worker(s) and two replacements"
        );
        // They all run the one module the page compiled (`ui::bridge::new_worker`): the
        // worker module crossed the network once, for the page, and no worker fetched its own
        // (without the sharing, the two started first each fetch it before the service
        // worker is in charge).
        let module = format!("/{}", harness::worker_files(&dist()).wasm);
        let module_fetches: Vec<_> = harness::proxy_log(&c)
            .await
            .into_iter()
            .filter(|(_, u)| u.ends_with(&module))
            .collect();
        assert_eq!(module_fetches.len(), 1, "{module_fetches:?}");
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

/// A corpus record set, canonicalized.
fn jax(name: &str) -> String {
    crate::support::corpus("jax_compile")
        .join(name)
        .canonicalize()
        .expect("../shared/corpus/jax_compile beside the checkout")
        .display()
        .to_string()
}

/// (pins in force, actionable findings) as the triage view shows them.
async fn pins_and_actionable(c: &Client) -> Option<(String, String)> {
    let pins = harness::attr(c, "[data-testid=pin-count]", "data-pins").await?;
    let actionable = harness::attr(c, "[data-testid=actionable]", "data-count").await?;
    Some((pins, actionable))
}

/// How many workers the page has started so far: the `ready` messages it has had (its
/// `trialscope:msg ready` marks, `ui::bridge::mark_message`), one from the session worker and
/// one from every import worker, replacements included. (Not the requests for the worker
/// loader: its name is content-addressed, so once the service worker holds the shell it
/// answers them from its cache and they never reach the network.)
async fn worker_loads(c: &fantoccini::Client) -> usize {
    c.execute(
        "return performance.getEntriesByName('trialscope:msg ready', 'mark').length;",
        vec![],
    )
    .await
    .ok()
    .and_then(|v| v.as_u64())
    .unwrap_or(0) as usize
}

/// The import pool's size as the page computes it (`session::schedule::pool_size`: one import
/// worker per core, at most 4; the one for large files only starts once the pool is idle, which
/// it has been by the time this is asked).
async fn pool_size(c: &fantoccini::Client) -> usize {
    let v = c
        .execute(
            "return Math.min(Math.max(navigator.hardwareConcurrency || 2, 1), 4);",
            vec![],
        )
        .await
        .unwrap();
    v.as_u64().unwrap() as usize
}

/// The worker that holds the session crashes while adding a file: a new one gets the journal
/// replayed — the other files as they were prepared and the pin commands in order — so the
/// pins and the drift findings are the same afterwards.
#[test]
fn browser_importer_crash_keeps_pins() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        c.goto(&format!(
            "http://127.0.0.1:{}{PREFIX}?demo=0&testhook=session-panic-on%3Acrash_n2.json",
            server.port
        ))
        .await
        .unwrap();
        let input = c
            .wait()
            .at_most(Duration::from_secs(60))
            .for_element(Locator::Css("#file-input"))
            .await
            .unwrap();
        input.send_keys(&jax("baseline.jsonl")).await.unwrap();
        click(&c, "[data-testid=tab-triage]").await;
        wait_until(Duration::from_secs(60), "the pin offer", || async {
            (count(&c, "[data-testid=pin-warm-medians]").await == 1).then_some(())
        })
        .await;
        click(&c, "[data-testid=pin-warm-medians]").await;
        wait_until(Duration::from_secs(60), "12 pins", || async {
            (harness::attr(&c, "[data-testid=pin-count]", "data-pins").await? == "12").then_some(())
        })
        .await;
        input
            .send_keys(&jax("cache_regression.jsonl"))
            .await
            .unwrap();
        // As in browser_triage: with a 0.05 s gate, 31 drifts of the second set against the
        // baseline's pins (pins made from both sets would hide most of them).
        let gate = c.find(Locator::Css("[data-testid=min-abs]")).await.unwrap();
        gate.clear().await.unwrap();
        gate.send_keys("0.05").await.unwrap();
        click(&c, "[data-testid=triage-summary]").await;
        let before = wait_until(
            Duration::from_secs(60),
            "the second set triaged",
            || async {
                let (pins, actionable) = pins_and_actionable(&c).await?;
                let drifts = harness::attr(&c, "[data-testid=drift-count]", "data-count").await?;
                (drifts == "31").then_some((pins, actionable))
            },
        )
        .await;
        assert_eq!(before, ("12".to_string(), "31".to_string()));

        drop_files(&c, &[("crash_n2.json".into(), trial(2))]).await;
        wait_until(
            Duration::from_secs(60),
            "the replacement session worker",
            || async { (worker_loads(&c).await == 1 + pool_size(&c).await + 1).then_some(()) },
        )
        .await;
        // A later import makes the new worker triage again; its pins are the replayed ones.
        drop_files(&c, &[("good_n1.json".into(), trial(1))]).await;
        click(&c, "[data-testid=tab-scaling]").await;
        wait_until(Duration::from_secs(60), "the good trial", || async {
            (row_state(&c, "good_n1.json").await.as_deref() == Some("imported")).then_some(())
        })
        .await;
        let errors = assert_all_visible(&c, "[data-testid=file-error]").await;
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with("crash_n2.json: the importer crashed: "),
            "{errors:?}"
        );
        click(&c, "[data-testid=tab-triage]").await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(pins_and_actionable(&c).await, Some(before));
        assert_eq!(
            harness::attr(&c, "[data-testid=drift-count]", "data-count")
                .await
                .as_deref(),
            Some("31")
        );
        assert_visible(&c, "[data-testid=actionable]").await;
        assert_eq!(count(&c, "tr[data-testid=record-file-row]").await, 2);
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
