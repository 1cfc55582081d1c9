//! Browser tests of the compile-triage view: the built site (`dist/`, from
//! `trunk build --release --offline`) served from 127.0.0.1 under `/trialscope/`, driven
//! through chromedriver + headless Chromium (harness in `support::browser`).
//!
//! * `triage_cache_regression_against_baseline_pins`: picks the corpus `jax_compile/baseline.jsonl`
//!   (a record file, listed in the record-files table with 72 records, not as a failed trace),
//!   shows "no pins", clicks "pin the current warm medians" (12 pins, from the baseline set only),
//!   checks the `pins.json` download link is a `blob:` URL whose text holds 12 pins, then adds
//!   `cache_regression.jsonl`: default gates give 0 drift rows; with the absolute floor at 0.05 s
//!   the table shows 31 `cache-regression` drift rows (31 actionable), and the per-key chart marks
//!   drifted points against a pin line. A record file with a malformed line and an other-kind
//!   line is listed (counts and `file:line` rows), not dropped.
//! * `triage_version_bump_expected_recompiles`: baseline pinned; the downloaded `pins.json`
//!   loads back through the pins picker after "clear pins" (12 pins); the baseline file removed
//!   (pins stay) and `version_bump.jsonl` added; with the floor at 0.05 s: 34
//!   `expected-recompile` drift rows plus 12 unpinned keys, 0 actionable; "pin selected rows" on
//!   one unpinned key gives 13 pins and 11 unpinned keys.
//! * `triage_trace_records_take_the_users_key_fields`: a real JAX profiler export (3 compiles)
//!   lists hardware among its unknown fields; the fill-in form (hardware, hostname, framework
//!   version, precision, cache state) applied to it makes 3 warm rows with complete keys (3
//!   unpinned keys, e.g. `jit_add · jit · cpu · host vm · jax 0.10.2 · fp32 · warm`). Saves a
//!   screenshot to `target/tmp/triage_view.png`.
//!
//! * `triage_host_load_sets_against_baseline_pins`: baseline pinned (12 pins) and kept loaded;
//!   each of `host_load.jsonl`, `host_load_heavy.jsonl`, `version_bump.jsonl` added alone (the
//!   previous set removed with its row's button in between): default gates give 0 drift rows
//!   for all three (version_bump: 12 unpinned `expected-recompile` keys, 0 actionable); with the
//!   floor at 0.05 s host_load gives 0 and host_load_heavy 14 `host-load` drift rows.
//! * `triage_pytorch_disabled_cache_is_a_cache_regression`: the corpus PyTorch traces
//!   (`public/local-pytorch`): warm trial, key fields from the fill-in form, its warm median
//!   pinned (1 pin); the disabled-cache trial alone is a `library-regression` (no cold record to
//!   compare with); with the cold trial added it is a `cache-regression` (observed 23–26 s vs
//!   pinned 1.9–2.1 s) and the per-key chart shows the three compiles.
//!
//! All assert that every request the page made stayed on the test server (or data:/blob:).

use crate::support::browser as harness;
use crate::support::browser::click;

use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_local_only, assert_visible, attr, connect, count, dist, open_without_demo, serial, tmp,
    wait_until, Driver, Server, PREFIX,
};
use serde_json::Value;

use crate::support::corpus;

const WAIT: Duration = Duration::from_secs(60);

/// A corpus record set, canonicalized.
fn jax(name: &str) -> String {
    corpus("jax_compile")
        .join(name)
        .canonicalize()
        .expect("../shared/corpus/jax_compile beside the checkout")
        .display()
        .to_string()
}

/// A record file with one malformed record (key fields missing), one record of another kind
/// and one line that is not JSON.
fn odd_record_file() -> String {
    let p = tmp().join("odd_records.jsonl");
    std::fs::write(
        &p,
        "{\"cell\": \"f\", \"transform\": \"jit\", \"hardware\": \"cpu\", \"compile_s\": 1.0}\n\
         {\"kind\": \"note\", \"text\": \"<b>not html</b>\"}\n\
         not json at all\n",
    )
    .unwrap();
    p.display().to_string()
}

/// Picks files through the page's file input.
async fn pick(c: &Client, paths: &[String]) {
    let input = c
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("#file-input"))
        .await
        .expect("the app mounted its file input");
    input.send_keys(&paths.join("\n")).await.unwrap();
}

/// Waits until `css`'s attribute `name` equals `want`.
async fn wait_attr(c: &Client, css: &str, name: &str, want: &str) {
    let what = format!("{css} [{name}={want}]");
    wait_until(WAIT, &what, || async {
        (attr(c, css, name).await.as_deref() == Some(want)).then_some(())
    })
    .await;
}

/// Waits until exactly `n` elements match `css`.
async fn wait_count(c: &Client, css: &str, n: usize) {
    let what = format!("{n} × {css}");
    wait_until(WAIT, &what, || async {
        (count(c, css).await == n).then_some(())
    })
    .await;
}

/// Types `value` into the threshold input `testid` and commits it (change event).
async fn set_threshold(c: &Client, testid: &str, value: &str) {
    let css = format!("[data-testid={testid}]");
    let e = c.find(Locator::Css(&css)).await.unwrap();
    e.clear().await.unwrap();
    e.send_keys(value).await.unwrap();
    // Leaving the field fires `change`.
    click(c, "[data-testid=triage-summary]").await;
}

/// Opens the page, picks the baseline, switches to the triage tab and pins its warm medians.
async fn open_and_pin_baseline(server: &Server, driver: &Driver) -> Client {
    let c = connect(driver, &tmp()).await;
    open_without_demo(&c, server, "#file-input").await;
    pick(&c, &[jax("baseline.jsonl")]).await;
    click(&c, "[data-testid=tab-triage]").await;
    let base = "tr[data-testid=record-file-row][data-file=\"baseline.jsonl\"]";
    wait_count(&c, base, 1).await;
    let records = assert_visible(&c, &format!("{base} [data-testid=records]")).await;
    assert_eq!(records, "72");
    // A record file is not a trace: no failed import, no trial row.
    assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
    assert_eq!(count(&c, "tr[data-testid=trial-row]").await, 0);
    // "No pins" is its own state, with the offer to pin.
    wait_count(&c, "[data-testid=pin-warm-medians]", 1).await;
    let no_pins = assert_visible(&c, "[data-testid=no-pins]").await;
    assert!(no_pins.contains("not an all-clear"), "{no_pins}");
    assert_eq!(
        count(&c, "tr[data-testid=triage-row][data-kind=drift]").await,
        0
    );
    click(&c, "[data-testid=pin-warm-medians]").await;
    wait_attr(&c, "[data-testid=pin-count]", "data-pins", "12").await;
    wait_attr(&c, "[data-testid=coverage-counts]", "data-pinned", "12").await;
    c
}

#[test]
fn triage_cache_regression_against_baseline_pins() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = open_and_pin_baseline(&server, &driver).await;

        // download pins.json: a blob: link whose text is the 12 pins.
        let href = attr(&c, "[data-testid=download-pins]", "href")
            .await
            .expect("a download link");
        assert!(href.starts_with("blob:"), "{href}");
        assert_eq!(
            attr(&c, "[data-testid=download-pins]", "download")
                .await
                .as_deref(),
            Some("pins.json")
        );
        let text = harness::download(&c, "[data-testid=download-pins]", "pins.json").await;
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["pins"].as_array().unwrap().len(), 12);
        assert_eq!(doc["version"], 1);

        let baseline_warm: usize = attr(&c, "[data-testid=coverage-counts]", "data-warm-rows")
            .await
            .unwrap()
            .parse()
            .unwrap();
        pick(&c, &[jax("cache_regression.jsonl")]).await;
        wait_count(&c, "tr[data-testid=record-file-row]", 2).await;
        wait_until(WAIT, "the triage with both sets", || async {
            let w: usize = attr(&c, "[data-testid=coverage-counts]", "data-warm-rows")
                .await?
                .parse()
                .ok()?;
            (w > baseline_warm).then_some(())
        })
        .await;
        // Pins never move on their own.
        assert_eq!(
            attr(&c, "[data-testid=pin-count]", "data-pins")
                .await
                .as_deref(),
            Some("12")
        );
        // Default gates (2.0 ×, 1.0 s): no drift.
        assert_eq!(
            attr(&c, "[data-testid=drift-count]", "data-count")
                .await
                .as_deref(),
            Some("0")
        );
        assert_eq!(
            count(&c, "tr[data-testid=triage-row][data-kind=drift]").await,
            0
        );

        set_threshold(&c, "min-abs", "0.05").await;
        wait_attr(&c, "[data-testid=drift-count]", "data-count", "31").await;
        assert_eq!(
            count(
                &c,
                "tr[data-testid=triage-row][data-kind=drift][data-class=cache-regression]"
            )
            .await,
            31
        );
        assert_eq!(
            count(&c, "tr[data-testid=triage-row][data-kind=drift]").await,
            31
        );
        assert_eq!(
            attr(&c, "[data-testid=actionable]", "data-count")
                .await
                .as_deref(),
            Some("31")
        );
        let next = assert_visible(&c, "[data-testid=next-action]").await;
        assert!(next.starts_with("31 cache-regression"), "{next}");
        // The first row (actionable group first) is a cache regression; its chart shows the pin
        // and marks drifted rows.
        let first = c
            .find(Locator::Css("tr[data-testid=triage-row]"))
            .await
            .unwrap();
        assert_eq!(
            first.attr("data-class").await.unwrap().as_deref(),
            Some("cache-regression")
        );
        first.click().await.unwrap();
        wait_until(WAIT, "drifted points in the key chart", || async {
            (count(&c, "[data-testid=key-chart] [data-testid=drift-point]").await > 0).then_some(())
        })
        .await;
        assert_eq!(
            count(&c, "[data-testid=key-chart] [data-testid=pin-line]").await,
            1
        );
        assert!(count(&c, "[data-testid=key-chart] [data-testid=chart-point]").await > 0);
        assert_visible(&c, "[data-testid=key-chart] svg").await;
        assert_visible(&c, "tr[data-testid=triage-row]").await;
        let shot = c.screenshot().await.unwrap();
        std::fs::write(tmp().join("triage_cache_regression.png"), shot).unwrap();
        // The class filter narrows the table.
        c.find(Locator::Css("[data-testid=class-filter]"))
            .await
            .unwrap()
            .select_by_value("cache-regression")
            .await
            .unwrap();
        wait_count(&c, "tr[data-testid=triage-row]", 31).await;

        // A record file with malformed and other-kind rows is listed, not dropped.
        pick(&c, &[odd_record_file()]).await;
        let odd = "tr[data-testid=record-file-row][data-file=\"odd_records.jsonl\"]";
        wait_count(&c, odd, 1).await;
        let cell = |k: &'static str| {
            let c = &c;
            async move {
                c.find(Locator::Css(&format!("{odd} [data-testid={k}]")))
                    .await
                    .unwrap()
                    .text()
                    .await
                    .unwrap()
            }
        };
        assert_eq!(cell("records").await, "0");
        assert_eq!(cell("other-kind").await, "1");
        assert_eq!(cell("malformed").await, "2");
        wait_count(&c, "[data-testid=malformed-row]", 2).await;
        assert_eq!(
            count(
                &c,
                "[data-testid=malformed-row][data-location=\"odd_records.jsonl:1\"]"
            )
            .await,
            1
        );
        assert_eq!(
            count(
                &c,
                "[data-testid=other-kind-row][data-location=\"odd_records.jsonl:2\"]"
            )
            .await,
            1
        );
        assert_eq!(count(&c, "[data-testid=file-error]").await, 0);
        // Text from the file is never HTML.
        assert_eq!(count(&c, ".coverage b").await, 0);
        assert_local_only(&c, &server).await;
        let _ = c.close().await;
    });
}

#[test]
fn triage_version_bump_expected_recompiles() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = open_and_pin_baseline(&server, &driver).await;
        // The downloaded pins.json loads back through the pins picker after "clear pins".
        let href = attr(&c, "[data-testid=download-pins]", "href")
            .await
            .expect("a download link");
        assert!(href.starts_with("blob:"), "{href}");
        let text = harness::download(&c, "[data-testid=download-pins]", "pins.json").await;
        let pins_file = tmp().join("baseline_pins.json");
        std::fs::write(&pins_file, text).unwrap();
        click(&c, "[data-testid=clear-pins]").await;
        wait_count(&c, "[data-testid=no-pins]", 1).await;
        c.find(Locator::Css("[data-testid=pins-input]"))
            .await
            .unwrap()
            .send_keys(&pins_file.display().to_string())
            .await
            .unwrap();
        wait_attr(&c, "[data-testid=pin-count]", "data-pins", "12").await;
        assert_eq!(count(&c, "tr[data-testid=trial-row]").await, 0);
        // Removing the baseline keeps its pins.
        click(
            &c,
            "tr[data-testid=record-file-row][data-file=\"baseline.jsonl\"] button",
        )
        .await;
        wait_count(&c, "tr[data-testid=record-file-row]", 0).await;
        wait_attr(&c, "[data-testid=coverage-counts]", "data-warm-rows", "0").await;
        assert_eq!(
            attr(&c, "[data-testid=pin-count]", "data-pins")
                .await
                .as_deref(),
            Some("12")
        );
        pick(&c, &[jax("version_bump.jsonl")]).await;
        wait_count(&c, "tr[data-testid=record-file-row]", 1).await;
        wait_count(&c, "tr[data-testid=triage-row][data-kind=unpinned]", 12).await;
        set_threshold(&c, "min-abs", "0.05").await;
        wait_attr(&c, "[data-testid=drift-count]", "data-count", "34").await;
        assert_eq!(
            count(
                &c,
                "tr[data-testid=triage-row][data-kind=drift][data-class=expected-recompile]"
            )
            .await,
            34
        );
        assert_eq!(
            count(
                &c,
                "tr[data-testid=triage-row][data-kind=unpinned][data-class=expected-recompile]"
            )
            .await,
            12
        );
        assert_eq!(
            attr(&c, "[data-testid=actionable]", "data-count")
                .await
                .as_deref(),
            Some("0")
        );
        assert_eq!(
            attr(&c, "[data-testid=coverage-counts]", "data-unpinned")
                .await
                .as_deref(),
            Some("12")
        );
        // Pin selected rows: select one unpinned key and pin it explicitly.
        let row = c
            .find(Locator::Css(
                "tr[data-testid=triage-row][data-kind=unpinned] [data-testid=row-select]",
            ))
            .await
            .unwrap();
        row.click().await.unwrap();
        click(&c, "[data-testid=pin-selected]").await;
        wait_attr(&c, "[data-testid=pin-count]", "data-pins", "13").await;
        wait_count(&c, "tr[data-testid=triage-row][data-kind=unpinned]", 11).await;
        assert_local_only(&c, &server).await;
        let _ = c.close().await;
    });
}

/// A real JAX profiler export (corpus `public/local-jax`, 3 compiled functions) is a trial and a
/// source of compile records; its missing key fields come from the fill-in form.
#[test]
fn triage_trace_records_take_the_users_key_fields() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        let trace = corpus("public/local-jax/trial1_perfetto_trace.json.gz")
            .canonicalize()
            .unwrap();
        pick(&c, &[trace.display().to_string()]).await;
        click(&c, "[data-testid=tab-triage]").await;
        let src = "tr[data-testid=trace-source][data-file=\"trial1_perfetto_trace.json.gz\"]";
        wait_count(&c, src, 1).await;
        let unknown = c
            .find(Locator::Css(&format!("{src} td:last-child")))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(unknown.contains("hardware"), "{unknown}");
        wait_attr(&c, "[data-testid=coverage-counts]", "data-warm-rows", "0").await;
        click(&c, &format!("{src} [data-testid=fill-select]")).await;
        for (id, v) in [
            ("fill-hardware", "cpu"),
            ("fill-hostname", "vm"),
            ("fill-version", "0.10.2"),
            ("fill-precision", "fp32"),
        ] {
            c.find(Locator::Css(&format!("[data-testid={id}]")))
                .await
                .unwrap()
                .send_keys(v)
                .await
                .unwrap();
        }
        c.find(Locator::Css("[data-testid=fill-cache]"))
            .await
            .unwrap()
            .select_by_value("warm")
            .await
            .unwrap();
        click(&c, "[data-testid=fill-apply]").await;
        wait_attr(&c, "[data-testid=coverage-counts]", "data-warm-rows", "3").await;
        wait_count(&c, "tr[data-testid=triage-row][data-kind=unpinned]", 3).await;
        let keys: Vec<String> = {
            let mut v = Vec::new();
            for r in c
                .find_all(Locator::Css("tr[data-testid=triage-row]"))
                .await
                .unwrap()
            {
                v.push(r.attr("data-key").await.unwrap().unwrap_or_default());
            }
            v
        };
        assert!(
            keys.iter()
                .any(|k| k.starts_with("jit_add · jit · cpu · host vm · jax 0.10.2 · fp32 · warm")),
            "{keys:?}"
        );
        let shot = c.screenshot().await.unwrap();
        std::fs::write(tmp().join("triage_view.png"), shot).unwrap();
        assert_local_only(&c, &server).await;
        let _ = c.close().await;
    });
}

/// Removes the record file `name` with its row's remove button and waits until the triage is
/// back to `warm_rows` warm rows (an answer computed with the thresholds in force).
async fn remove_record_file(c: &Client, name: &str, warm_rows: usize) {
    click(
        c,
        &format!("tr[data-testid=record-file-row][data-file=\"{name}\"] button"),
    )
    .await;
    wait_count(
        c,
        &format!("tr[data-testid=record-file-row][data-file=\"{name}\"]"),
        0,
    )
    .await;
    wait_attr(
        c,
        "[data-testid=coverage-counts]",
        "data-warm-rows",
        &warm_rows.to_string(),
    )
    .await;
}

/// Adds the corpus set `name` beside the baseline and waits for the triage of both (more warm
/// rows than the baseline alone).
async fn add_set(c: &Client, name: &str, baseline_warm: usize) {
    pick(c, &[jax(name)]).await;
    wait_count(
        c,
        &format!("tr[data-testid=record-file-row][data-file=\"{name}\"]"),
        1,
    )
    .await;
    wait_until(
        WAIT,
        &format!("the triage of baseline + {name}"),
        || async {
            let w: usize = attr(c, "[data-testid=coverage-counts]", "data-warm-rows")
                .await?
                .parse()
                .ok()?;
            (w > baseline_warm).then_some(())
        },
    )
    .await;
}

async fn drift_rows(c: &Client) -> (Option<String>, usize) {
    (
        attr(c, "[data-testid=drift-count]", "data-count").await,
        count(c, "tr[data-testid=triage-row][data-kind=drift]").await,
    )
}

/// MANIFEST `jax_compile/`: host_load (a busy host that stays under the gates) and
/// host_load_heavy, each triaged alone beside the baseline against the baseline's warm-median
/// pins. Order of the steps: a set is only added after the previous set's removal has been
/// triaged with the thresholds in force, so each count below is an answer for the named
/// thresholds, not a stale one.
/// * default gates (2.0 ×, 1.0 s): host_load 0 drift rows, host_load_heavy 0, version_bump 0
///   (its 12 unpinned keys all `expected-recompile`);
/// * absolute floor 0.05 s: host_load 0, host_load_heavy 14 `host-load` drift rows.
#[test]
fn triage_host_load_sets_against_baseline_pins() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = open_and_pin_baseline(&server, &driver).await;
        let base: usize = attr(&c, "[data-testid=coverage-counts]", "data-warm-rows")
            .await
            .unwrap()
            .parse()
            .unwrap();
        assert!(base > 0);

        // host_load, default gates.
        add_set(&c, "host_load.jsonl", base).await;
        assert_eq!(
            drift_rows(&c).await,
            (Some("0".into()), 0),
            "host_load, defaults"
        );

        // host_load_heavy, floor 0.05 s.
        remove_record_file(&c, "host_load.jsonl", base).await;
        set_threshold(&c, "min-abs", "0.05").await;
        add_set(&c, "host_load_heavy.jsonl", base).await;
        wait_attr(&c, "[data-testid=drift-count]", "data-count", "14").await;
        assert_eq!(
            count(
                &c,
                "tr[data-testid=triage-row][data-kind=drift][data-class=host-load]"
            )
            .await,
            14
        );
        assert_eq!(
            count(&c, "tr[data-testid=triage-row][data-kind=drift]").await,
            14
        );
        assert_eq!(
            attr(
                &c,
                "[data-testid=class-count][data-class=host-load]",
                "data-count"
            )
            .await
            .as_deref(),
            Some("14")
        );
        assert_eq!(
            attr(&c, "[data-testid=pin-count]", "data-pins")
                .await
                .as_deref(),
            Some("12")
        );

        // host_load, floor 0.05 s (the removal was triaged with the floor in force).
        remove_record_file(&c, "host_load_heavy.jsonl", base).await;
        add_set(&c, "host_load.jsonl", base).await;
        assert_eq!(
            drift_rows(&c).await,
            (Some("0".into()), 0),
            "host_load, 0.05 s"
        );

        // host_load_heavy, default gates.
        set_threshold(&c, "min-abs", "1").await;
        remove_record_file(&c, "host_load.jsonl", base).await;
        add_set(&c, "host_load_heavy.jsonl", base).await;
        assert_eq!(
            drift_rows(&c).await,
            (Some("0".into()), 0),
            "host_load_heavy, defaults"
        );

        // version_bump, default gates: no drift, 12 unpinned expected recompiles.
        remove_record_file(&c, "host_load_heavy.jsonl", base).await;
        add_set(&c, "version_bump.jsonl", base).await;
        wait_count(&c, "tr[data-testid=triage-row][data-kind=unpinned]", 12).await;
        assert_eq!(
            count(
                &c,
                "tr[data-testid=triage-row][data-kind=unpinned][data-class=expected-recompile]"
            )
            .await,
            12
        );
        assert_eq!(
            drift_rows(&c).await,
            (Some("0".into()), 0),
            "version_bump, defaults"
        );
        assert_eq!(
            attr(&c, "[data-testid=actionable]", "data-count")
                .await
                .as_deref(),
            Some("0")
        );
        assert_local_only(&c, &server).await;
        let _ = c.close().await;
    });
}

/// A corpus PyTorch trace (`public/local-pytorch`, torch.compile on CPU, host `vm`).
fn torch(name: &str) -> String {
    corpus("public/local-pytorch")
        .join(format!("{name}_rank0.pt.trace.json.gz"))
        .canonicalize()
        .expect("../shared/corpus/public/local-pytorch beside the checkout")
        .display()
        .to_string()
}

/// Ticks the fill-in checkbox of trace `file` (if not ticked yet).
async fn select_for_fill(c: &Client, file: &str) {
    let css =
        format!("tr[data-testid=trace-source][data-file=\"{file}\"] [data-testid=fill-select]");
    wait_count(c, &css, 1).await;
    let e = c.find(Locator::Css(&css)).await.unwrap();
    if !e.is_selected().await.unwrap() {
        e.click().await.unwrap();
    }
}

/// The same user key fields as `triage_corpus.rs` (`TORCH_FILL`: hardware cpu, framework
/// version torch-2.15.0, precision fp32); the cache state is left to the file name and the
/// hostname (`vm`) and transform (`torch.compile`) come from the trace.
async fn fill_torch_fields(c: &Client) {
    for (id, v) in [
        ("fill-hardware", "cpu"),
        ("fill-version", "torch-2.15.0"),
        ("fill-precision", "fp32"),
    ] {
        let e = c
            .find(Locator::Css(&format!("[data-testid={id}]")))
            .await
            .unwrap();
        e.clear().await.unwrap();
        e.send_keys(v).await.unwrap();
    }
    c.find(Locator::Css("[data-testid=fill-cache]"))
        .await
        .unwrap()
        .select_by_value("")
        .await
        .unwrap();
    click(c, "[data-testid=fill-apply]").await;
}

/// The PyTorch cold/warm/disabled-cache traces in the view, as
/// `triage_corpus::pytorch_disabled_cache_is_a_cache_regression_against_the_warm_pin`
/// does with the CLI: the warm trial alone, key fields filled in, "pin the current warm
/// medians" gives 1 pin (dynamo's `compile_inner`); then the disabled-cache trial (cache state
/// from its file name: warm for "cachesdisabled") with the same fields: 1 drift row, but
/// `library-regression` ("no cold record of this key": Kineto traces carry no cache counters and
/// compile-triage.md's cold-scale rule needs a cold record); then the cold trial (cold by its
/// file name), same fields: the drift row becomes `cache-regression` (as in the CLI test, which
/// also loads the cold trial), located in the disabled-cache trial, observed 23–26 s against a
/// pin of 1.9–2.1 s, evidence "back at its own cold scale", 1 actionable; the backward compile,
/// only compiled without a cache hit, is 1 unpinned `new-cell` key. The per-key chart shows the
/// compile_s of all three trials (cold, warm, and the drifted disabled-cache one) and the pin.
/// Saves a screenshot to `target/tmp/triage_pytorch.png`.
#[test]
fn triage_pytorch_disabled_cache_is_a_cache_regression() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        pick(&c, &[torch("trial2_warmcache")]).await;
        click(&c, "[data-testid=tab-triage]").await;
        let warm = "trial2_warmcache_rank0.pt.trace.json.gz";
        select_for_fill(&c, warm).await;
        // Before the fill-in the records lack key fields: no warm row, nothing to pin.
        wait_attr(&c, "[data-testid=coverage-counts]", "data-warm-rows", "0").await;
        assert_eq!(count(&c, "[data-testid=pin-warm-medians]").await, 0);
        fill_torch_fields(&c).await;
        wait_count(&c, "[data-testid=pin-warm-medians]", 1).await;
        click(&c, "[data-testid=pin-warm-medians]").await;
        wait_attr(&c, "[data-testid=pin-count]", "data-pins", "1").await;

        // The disabled-cache trial first, without the cold one: a Kineto trace carries no
        // cache counters, so without a cold record of the key the cache cannot be blamed.
        let cold = "trial1_coldcache_rank0.pt.trace.json.gz";
        let disabled = "trial3_cachesdisabled_rank0.pt.trace.json.gz";
        pick(&c, &[torch("trial3_cachesdisabled")]).await;
        select_for_fill(&c, disabled).await;
        fill_torch_fields(&c).await;
        wait_attr(&c, "[data-testid=drift-count]", "data-count", "1").await;
        let row = "tr[data-testid=triage-row][data-kind=drift]";
        let alone = c.find(Locator::Css(row)).await.unwrap();
        assert_eq!(
            alone.attr("data-class").await.unwrap().as_deref(),
            Some("library-regression")
        );
        let evidence = assert_visible(&c, &format!("{row} td:nth-child(7)")).await;
        assert!(
            evidence.contains("no cold record of this key"),
            "{evidence}"
        );

        // With the cold trial loaded the cold-scale rule decides: a cache regression.
        pick(&c, &[torch("trial1_coldcache")]).await;
        select_for_fill(&c, cold).await;
        fill_torch_fields(&c).await;
        wait_count(
            &c,
            "tr[data-testid=triage-row][data-kind=drift][data-class=cache-regression]",
            1,
        )
        .await;
        assert_eq!(
            attr(&c, "[data-testid=pin-count]", "data-pins")
                .await
                .as_deref(),
            Some("1")
        );
        assert_eq!(count(&c, row).await, 1);
        let r = c.find(Locator::Css(row)).await.unwrap();
        assert_eq!(
            r.attr("data-class").await.unwrap().as_deref(),
            Some("cache-regression")
        );
        let key = r.attr("data-key").await.unwrap().unwrap_or_default();
        assert!(key.contains("_compile.compile_inner"), "{key}");
        assert!(
            key.contains("torch.compile · cpu · host vm") && key.contains("fp32 · warm"),
            "{key}"
        );
        assert_visible(&c, row).await;
        let cells: Vec<String> = {
            let mut v = Vec::new();
            for td in r.find_all(Locator::Css("td")).await.unwrap() {
                v.push(td.text().await.unwrap());
            }
            v
        };
        // pin, class, key + location, pinned s, observed s, ratio, evidence, action.
        assert_eq!(cells[1], "cache-regression");
        assert!(cells[2].contains(disabled), "{cells:?}");
        let pinned: f64 = cells[3].parse().unwrap();
        let observed: f64 = cells[4].parse().unwrap();
        assert!((1.9..2.1).contains(&pinned), "{cells:?}");
        assert!((23.0..26.0).contains(&observed), "{cells:?}");
        assert!(cells[6].contains("back at its own cold scale"), "{cells:?}");
        assert_eq!(
            attr(&c, "[data-testid=actionable]", "data-count")
                .await
                .as_deref(),
            Some("1")
        );
        let unpinned = "tr[data-testid=triage-row][data-kind=unpinned]";
        assert_eq!(count(&c, unpinned).await, 1);
        let u = c.find(Locator::Css(unpinned)).await.unwrap();
        assert_eq!(
            u.attr("data-class").await.unwrap().as_deref(),
            Some("new-cell")
        );
        assert!(u
            .attr("data-key")
            .await
            .unwrap()
            .unwrap_or_default()
            .contains("backward._backward_impl"));

        // The chart of the drifted key: the cold, warm and disabled-cache compiles with their
        // compile_s, the drifted one marked, the pin line drawn.
        r.click().await.unwrap();
        wait_count(&c, "[data-testid=key-chart] [data-testid=drift-point]", 1).await;
        assert_eq!(
            count(&c, "[data-testid=key-chart] [data-testid=pin-line]").await,
            1
        );
        let mut titles = Vec::new();
        for p in c
            .find_all(Locator::Css(
                "[data-testid=key-chart] circle[data-testid] title",
            ))
            .await
            .unwrap()
        {
            titles.push(p.html(true).await.unwrap());
        }
        assert_eq!(titles.len(), 3, "{titles:?}");
        for (file, state) in [(cold, "cold"), (warm, "warm"), (disabled, "warm")] {
            assert!(
                titles
                    .iter()
                    .any(|t| t.contains(file) && t.contains(&format!(": {state} "))),
                "{file}: {titles:?}"
            );
        }
        assert!(
            titles
                .iter()
                .any(|t| t.contains(disabled) && t.ends_with("(drift)")),
            "{titles:?}"
        );
        let shot = c.screenshot().await.unwrap();
        std::fs::write(tmp().join("triage_pytorch.png"), shot).unwrap();
        assert_local_only(&c, &server).await;
        let _ = c.close().await;
    });
}
