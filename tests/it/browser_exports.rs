//! Browser tests of the download buttons (README "Exports"): each file the app saves equals
//! what the CLI prints for the same files — the hotspot table (`scaling --csv` / `--json`), the
//! triage findings (`triage --csv` / `--json`) and the memory intervals (`memory --csv` /
//! `--json`); the scatter plot's SVG is well-formed and its PNG decodes and is not blank.
//!
//! * `hotspot_and_plot_exports_equal_the_cli`: three demo traces picked.
//! * `triage_exports_equal_the_cli`: JAX baseline pinned, the cache-regression records picked
//!   (also: the per-key chart as SVG/PNG).
//! * `memory_exports_equal_the_cli`: the synthetic 4-rank Perfetto job (also: the lanes as
//!   SVG/PNG, the file reports equal `inspect --json`).
//! * `download_report_equals_the_cli_report`: "Download report" on three demo traces is the
//!   CLI's `report --html` of them but for the command line; no script, no external URL.

use crate::support::artifacts::{assert_png, assert_well_formed_svg};
use crate::support::browser as harness;
use crate::support::browser::click;
use crate::support::corpus;
use crate::support::memory_fixture as perfetto4;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use fantoccini::{Client, Locator};
use harness::{
    assert_local_only, assert_visible, attr, connect, count, dist, download, download_bytes,
    open_without_demo, serial, tmp, wait_until, Driver, Server, PREFIX,
};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(120);

fn cli(args: &[&str]) -> String {
    cli_in(Path::new("."), args)
}

/// The CLI run in `dir` (so files named relative to it are named as the app names them).
fn cli_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_trialscope"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn records(text: &str) -> Vec<Vec<String>> {
    let mut rd = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    rd.records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// The CSV parses and equals the CLI's, header and every cell (numbers by [`same_number`]).
fn assert_same_csv(app: &str, cli: &str, what: &str) {
    let (a, c) = (records(app), records(cli));
    assert!(c.len() > 1, "{what}: the CLI's CSV has no rows: {cli}");
    assert_eq!(a.len(), c.len(), "{what}: rows");
    for (i, (x, y)) in a.iter().zip(&c).enumerate() {
        for (j, (p, q)) in x.iter().zip(y).enumerate() {
            assert!(
                same_cell(p, q),
                "{what}: row {i}, column {}: {p:?} vs {q:?}",
                c[0][j]
            );
        }
        assert_eq!(x.len(), y.len(), "{what}: row {i}");
    }
}

/// Equal numbers up to the last bits: the app's analysis runs as wasm, whose `ln`/`exp`/`powf`
/// may round differently from the native libm in the last ulp (seen: a Spearman p-value
/// `0.3333333333333331` vs `0.33333333333333315`). Everything else must be identical.
fn same_number(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300)
}

fn same_cell(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => same_number(x, y),
        _ => a == b,
    }
}

/// `a` equals `b` as JSON, numbers by [`same_number`].
fn assert_json_same(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => assert!(
            same_number(x.as_f64().unwrap(), y.as_f64().unwrap()),
            "{at}: {x} vs {y}"
        ),
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: length");
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                assert_json_same(p, q, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(x), keys(y), "{at}: keys");
            for (k, p) in x {
                assert_json_same(p, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

fn paths(v: &[PathBuf]) -> Vec<String> {
    v.iter().map(|p| p.display().to_string()).collect()
}

async fn pick(c: &Client, files: &[String]) {
    let input = c.find(Locator::Css("#file-input")).await.unwrap();
    input.send_keys(&files.join("\n")).await.unwrap();
}

#[test]
fn hotspot_and_plot_exports_equal_the_cli() {
    let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
    let files = paths(&[
        demo.join("scaling_n1000_r0.pb.gz"),
        demo.join("scaling_n4000_r0.pb.gz"),
        demo.join("scaling_n16000_r0.pb.gz"),
    ]);
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let cli_csv = cli(&[&["scaling", "--csv"][..], &args].concat());
    let cli_json: Value =
        serde_json::from_str(&cli(&[&["scaling", "--json"][..], &args].concat())).unwrap();
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        pick(&c, &files).await;
        wait_until(WAIT, "the hotspot rows", || async {
            (count(&c, "tr[data-testid=hotspot-row]").await > 0).then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=export-hotspots-csv]").await;

        let csv_text = download(&c, "[data-testid=export-hotspots-csv]", "hotspots.csv").await;
        assert_same_csv(&csv_text, &cli_csv, "hotspots.csv");

        let json: Value = serde_json::from_str(
            &download(&c, "[data-testid=export-hotspots-json]", "hotspots.json").await,
        )
        .expect("hotspots.json parses");
        for key in [
            "metric",
            "unit",
            "params",
            "variants",
            "hotspots",
            "coverage",
            "significant",
        ] {
            assert_json_same(&json[key], &cli_json[key], key);
        }
        let (a, b) = (
            json["trials"].as_array().unwrap(),
            cli_json["trials"].as_array().unwrap(),
        );
        assert_eq!(a.len(), 3);
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            for key in ["input", "variant", "excluded", "format", "diagnostics"] {
                assert_json_same(&x[key], &y[key], &format!("trials.{key}"));
            }
        }

        // The selected hotspot's scatter plot.
        assert_visible(&c, "[data-testid=export-scatter-svg]").await;
        let svg = download(&c, "[data-testid=export-scatter-svg]", "scatter.svg").await;
        assert_well_formed_svg(&svg);
        assert_eq!(svg.matches("<circle").count(), 3, "one point per trial");
        let png = download_bytes(&c, "[data-testid=export-scatter-png]", "scatter.png").await;
        let (w, h) = assert_png(&png);
        let svg_w = svg
            .split("width=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(w as f64, svg_w.parse::<f64>().unwrap().ceil(), "{h}");

        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}

fn jax(name: &str) -> String {
    corpus("jax_compile")
        .join(name)
        .canonicalize()
        .expect("../shared/corpus/jax_compile beside the checkout")
        .display()
        .to_string()
}

#[test]
fn triage_exports_equal_the_cli() {
    let dir = tmp().join("exports-triage");
    std::fs::create_dir_all(&dir).unwrap();
    let pins = dir.join("pins.json");
    let pins_s = pins.display().to_string();
    let regression = jax("cache_regression.jsonl");
    // Run where the records are, so locations read `cache_regression.jsonl:22` as in the app.
    let here = PathBuf::from(&regression).parent().unwrap().to_path_buf();
    cli_in(&here, &["pin", "baseline.jsonl", "--out", &pins_s]);
    let common = [
        "--min-abs-s",
        "0.05",
        "--pins",
        &pins_s,
        "cache_regression.jsonl",
    ];
    let cli_csv = cli_in(&here, &[&["triage", "--csv"][..], &common[..]].concat());
    let cli_json: Value = serde_json::from_str(&cli_in(
        &here,
        &[&["triage", "--json"][..], &common[..]].concat(),
    ))
    .unwrap();
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        pick(&c, &[jax("baseline.jsonl")]).await;
        click(&c, "[data-testid=tab-triage]").await;
        c.wait()
            .at_most(WAIT)
            .for_element(Locator::Css("[data-testid=pin-warm-medians]"))
            .await
            .unwrap();
        click(&c, "[data-testid=pin-warm-medians]").await;
        wait_until(WAIT, "12 pins", || async {
            (attr(&c, "[data-testid=pin-count]", "data-pins")
                .await
                .as_deref()
                == Some("12"))
            .then_some(())
        })
        .await;
        // The baseline leaves (the CLI triages the regression records alone), the
        // regression records come in, the absolute floor as on the command line.
        click(
            &c,
            "tr[data-testid=record-file-row][data-file=\"baseline.jsonl\"] button",
        )
        .await;
        pick(&c, std::slice::from_ref(&regression)).await;
        let e = c.find(Locator::Css("[data-testid=min-abs]")).await.unwrap();
        e.clear().await.unwrap();
        e.send_keys("0.05").await.unwrap();
        click(&c, "[data-testid=triage-summary]").await;
        let want = cli_json["findings"].as_array().unwrap().len().to_string();
        wait_until(WAIT, "the CLI's drift rows", || async {
            (attr(&c, "[data-testid=drift-count]", "data-count")
                .await
                .as_deref()
                == Some(want.as_str()))
            .then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=export-findings-csv]").await;
        let csv_text = download(&c, "[data-testid=export-findings-csv]", "findings.csv").await;
        assert_same_csv(&csv_text, &cli_csv, "findings.csv");
        let json: Value = serde_json::from_str(
            &download(&c, "[data-testid=export-findings-json]", "findings.json").await,
        )
        .expect("findings.json parses");
        assert_json_same(&json["findings"], &cli_json["findings"], "findings");

        // The per-key chart shown beside the table, as SVG and PNG.
        assert_visible(&c, "[data-testid=export-chart-svg]").await;
        let dots = count(&c, "[data-testid=key-chart] circle").await;
        let svg = download(&c, "[data-testid=export-chart-svg]", "triage-chart.svg").await;
        assert_well_formed_svg(&svg);
        assert_eq!(
            svg.matches("<circle").count(),
            dots,
            "one dot per row drawn"
        );
        assert!(dots > 0);
        let png = download_bytes(&c, "[data-testid=export-chart-png]", "triage-chart.png").await;
        assert_eq!(assert_png(&png), (640, 260));
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
    std::fs::remove_dir_all(Path::new(&dir)).ok();
}

#[test]
fn memory_exports_equal_the_cli() {
    let dir = tmp().join("exports-memory");
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<String> = (0..4)
        .map(|r| {
            let p = dir.join(format!("host{}.pftrace", 7 - r));
            let bytes =
                perfetto4::rank_trace(r, 5_000 * perfetto4::MS + r as u64 * 3_000 * perfetto4::MS);
            std::fs::write(&p, bytes).unwrap();
            p.display().to_string()
        })
        .collect();
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let names: Vec<String> = (0..4).map(|r| format!("host{}.pftrace", 7 - r)).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let cli_csv = cli(&[&["memory", "--csv"][..], &args].concat());
    let cli_json: Value =
        serde_json::from_str(&cli(&[&["memory", "--json"][..], &args].concat())).unwrap();
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        pick(&c, &files).await;
        click(&c, "[data-testid=tab-memory]").await;
        wait_until(WAIT, "4 memory lanes", || async {
            (count(&c, "[data-testid=memory-lane]").await == 4).then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=export-intervals-csv]").await;
        let csv_text = download(&c, "[data-testid=export-intervals-csv]", "intervals.csv").await;
        assert_same_csv(&csv_text, &cli_csv, "intervals.csv");
        let json: Value = serde_json::from_str(
            &download(&c, "[data-testid=export-intervals-json]", "intervals.json").await,
        )
        .expect("intervals.json parses");
        assert!(!cli_json["intervals"].as_array().unwrap().is_empty());
        assert_json_same(&json, &cli_json, "intervals.json");

        // The lanes as shown, as SVG (every interval drawn) and PNG.
        assert_visible(&c, "[data-testid=export-lanes-svg]").await;
        let svg = download(&c, "[data-testid=export-lanes-svg]", "memory-lanes.svg").await;
        assert_well_formed_svg(&svg);
        assert_eq!(svg.matches("<polygon").count(), 4, "a gap band per lane");
        assert_eq!(
            svg.matches("<title>collective_confident</title>").count(),
            cli_json["intervals"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| i["classification"] == "collective_confident")
                .count()
        );
        let png = download_bytes(&c, "[data-testid=export-lanes-png]", "memory-lanes.png").await;
        assert_eq!(assert_png(&png), (960, 4 * (150 + 18)));

        // The per-file import reports equal `inspect --json` of the same files (run where
        // they are, so each is named as the app names it).
        let mut app: Vec<Value> = serde_json::from_str::<Value>(
            &download(
                &c,
                "[data-testid=export-file-reports-json]",
                "file-reports.json",
            )
            .await,
        )
        .expect("file-reports.json parses")
        .as_array()
        .unwrap()
        .clone();
        let mut want: Vec<Value> = serde_json::from_str::<Value>(&cli_in(
            &dir,
            &[&["inspect", "--json"][..], &names[..]].concat(),
        ))
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
        assert_eq!(want.len(), 4);
        let by_path = |v: &Value| v["path"].as_str().unwrap_or("").to_string();
        app.sort_by_key(by_path);
        want.sort_by_key(by_path);
        assert_json_same(&Value::Array(app), &Value::Array(want), "file-reports.json");
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
    std::fs::remove_dir_all(Path::new(&dir)).ok();
}

/// The report file without the line that says how it was made (the command line differs).
fn without_command(html: &str) -> String {
    let a = html.find("<code>").expect("the command line");
    let b = html[a..].find("</code>").expect("its end") + a;
    format!("{}{}", &html[..a], &html[b..])
}

#[test]
fn download_report_equals_the_cli_report() {
    let demo = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/www/demo"));
    let names = [
        "scaling_n1000_r0.pb.gz",
        "scaling_n4000_r0.pb.gz",
        "scaling_n16000_r0.pb.gz",
    ];
    let files = paths(&names.map(|n| demo.join(n)));
    let out = tmp().join("exports-report-cli.html");
    let out_s = out.display().to_string();
    // Run in the demo folder so the files are named as the app names them.
    cli_in(
        &demo,
        &[&["report", "--html", &out_s][..], &names[..]].concat(),
    );
    let cli_html = std::fs::read_to_string(&out).expect("the CLI wrote its report");
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let c = connect(&driver, &tmp()).await;
        open_without_demo(&c, &server, "#file-input").await;
        pick(&c, &files).await;
        wait_until(WAIT, "the hotspot rows", || async {
            (count(&c, "tr[data-testid=hotspot-row]").await > 0).then_some(())
        })
        .await;
        assert_visible(&c, "[data-testid=download-report]").await;
        let html = download(
            &c,
            "[data-testid=download-report]",
            "trialscope-report.html",
        )
        .await;
        assert!(!html.contains("<script"), "a script in the report");
        let external: Vec<&str> = html
            .match_indices("http")
            .map(|(i, _)| &html[i..(i + 40).min(html.len())])
            .filter(|u| !u.starts_with("http://www.w3.org/2000/svg"))
            .collect();
        assert!(external.is_empty(), "external URLs: {external:?}");
        assert!(html.contains("<svg"), "the report draws its plots");
        // The same report as the CLI's, byte for byte, but for the line naming the command.
        assert_eq!(without_command(&html), without_command(&cli_html));
        assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
    std::fs::remove_file(&out).ok();
}
