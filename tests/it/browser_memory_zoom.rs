//! Browser test of the memory lanes' axes, zoom and interval table (issue 11, point 9), on the
//! synthetic 4-rank Perfetto job (`tests/it/support/memory_fixture.rs`): every lane shows time
//! ticks with a unit (s/ms/µs) and byte ticks with a binary unit; a drag on one lane zooms
//! every lane to the same narrower window, the pan buttons and arrow keys move it, "reset zoom"
//! restores the full axis; clicking a table row highlights its interval in its lane, clicking
//! an interval in a lane selects its row, and the keyboard moves between rows and selects.

use crate::memory_browser::open_memory;
use crate::support::browser as harness;
use crate::support::browser::click;
use crate::support::memory_fixture as perfetto4;

use std::time::Duration;

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use harness::{assert_all_visible, dist, serial, tmp, wait_until, Driver, Server, PREFIX};

/// `(t0_ns, t1_ns)` of every visible lane's SVG, read in one script call.
async fn windows(c: &Client) -> Vec<(i64, i64)> {
    let v = c
        .execute(
            "return [...document.querySelectorAll('[data-testid=memory-lane] svg')]\
             .map(s => [Number(s.dataset.t0Ns), Number(s.dataset.t1Ns)]);",
            vec![],
        )
        .await
        .unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
        .collect()
}

/// The one window all four lanes share (asserts they agree).
async fn shared_window(c: &Client) -> (i64, i64) {
    let w = windows(c).await;
    assert_eq!(w.len(), 4, "{w:?}");
    assert!(w.iter().all(|x| *x == w[0]), "lanes disagree: {w:?}");
    w[0]
}

/// Waits until every lane shows a window other than `old`; returns it.
async fn changed_from(c: &Client, old: (i64, i64), what: &str) -> (i64, i64) {
    wait_until(Duration::from_secs(20), what, || async {
        let w = windows(c).await;
        (w.len() == 4 && w.iter().all(|x| *x == w[0]) && w[0] != old).then(|| w[0])
    })
    .await
}

async fn class_of(c: &Client, css: &str) -> String {
    harness::attr(c, css, "class").await.unwrap_or_default()
}

#[test]
fn browser_memory_lanes_zoom_together_and_link_the_interval_table() {
    serial(async {
        let server = Server::start(dist(), PREFIX);
        let driver = Driver::start(&tmp());
        let dir = tmp().join("memory-zoom");
        std::fs::create_dir_all(&dir).unwrap();
        let synth: Vec<String> = (0..4)
            .map(|r| {
                let p = dir.join(format!("host{}.pftrace", 7 - r));
                let bytes = perfetto4::rank_trace(
                    r,
                    5_000 * perfetto4::MS + r as u64 * 3_000 * perfetto4::MS,
                );
                std::fs::write(&p, bytes).unwrap();
                p.display().to_string()
            })
            .collect();
        let c = open_memory(&server, &driver, &synth, 4).await;

        // Time ticks with a unit under every lane, byte ticks with a binary unit beside it.
        let times = assert_all_visible(&c, "[data-testid=time-tick] text").await;
        assert!(times.len() >= 4 * 4, "{times:?}");
        assert!(
            times
                .iter()
                .all(|t| [" s", " ms", " µs"].iter().any(|u| t.ends_with(u))),
            "{times:?}"
        );
        let bytes = assert_all_visible(&c, "[data-testid=byte-tick] text").await;
        assert!(bytes.len() >= 4 * 2, "{bytes:?}");
        assert!(
            bytes.iter().all(|t| [" GiB", " MiB", " KiB", " B"]
                .iter()
                .any(|u| t.ends_with(u))),
            "{bytes:?}"
        );
        let full = shared_window(&c).await;
        let range0 = harness::assert_visible(&c, "[data-testid=memory-range]").await;
        let first_tick0 = times[0].clone();

        // Brush from 30% to 60% of rank 0's lane: every lane zooms to the same window.
        let svg = c
            .find(Locator::Css("[data-testid=memory-lane] svg"))
            .await
            .unwrap();
        let (_, _, w, _) = svg.rectangle().await.unwrap();
        let drag = MouseActions::new("mouse".into())
            .then(PointerAction::MoveToElement {
                element: svg.clone(),
                duration: None,
                x: -0.2 * w,
                y: 0.0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::MoveToElement {
                element: svg.clone(),
                duration: Some(Duration::from_millis(200)),
                x: 0.1 * w,
                y: 0.0,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        c.perform_actions(drag).await.unwrap();
        c.release_actions().await.unwrap();
        let zoomed = changed_from(&c, full, "the zoomed lanes").await;
        let (fw, zw) = (full.1 - full.0, zoomed.1 - zoomed.0);
        assert!(
            zoomed.0 > full.0 && zoomed.1 < full.1,
            "{zoomed:?} in {full:?}"
        );
        // The drag covered 30% of the 960 px lane's width, the plot area 880 px of it.
        let frac = zw as f64 / fw as f64;
        assert!(
            (frac - 0.3 * 960.0 / 880.0).abs() < 0.05,
            "zoomed to {frac} of the axis"
        );
        let range1 = harness::assert_visible(&c, "[data-testid=memory-range]").await;
        assert_ne!(range0, range1);
        let times1 = assert_all_visible(&c, "[data-testid=time-tick] text").await;
        assert_ne!(times1[0], first_tick0, "the time ticks follow the zoom");

        // Later by a quarter window (button), back (arrow key on the zoom controls).
        click(&c, "[data-testid=memory-pan-right]").await;
        let later = changed_from(&c, zoomed, "the panned lanes").await;
        assert_eq!(later.1 - later.0, zw);
        assert!(
            (later.0 - zoomed.0 - zw / 4).abs() <= 1,
            "{later:?} {zoomed:?}"
        );
        c.find(Locator::Css("[data-testid=memory-zoom]"))
            .await
            .unwrap()
            .send_keys(&char::from(Key::Left).to_string())
            .await
            .unwrap();
        let back = changed_from(&c, later, "the lanes panned back").await;
        assert!((back.0 - zoomed.0).abs() <= 1, "{back:?} {zoomed:?}");

        // Reset restores the full axis and the first labels.
        click(&c, "[data-testid=memory-zoom-reset]").await;
        let reset = changed_from(&c, back, "the reset lanes").await;
        assert_eq!(reset, full);
        assert_eq!(
            harness::assert_visible(&c, "[data-testid=memory-range]").await,
            range0
        );

        // A table row highlights its interval in its lane; the row is marked selected.
        let rows = assert_all_visible(&c, "[data-testid=interval-row]").await;
        assert!(rows.len() >= 4, "{rows:?}");
        assert!(rows[1].contains("collective_confident"), "{}", rows[1]);
        click(&c, "[data-testid=interval-row][data-index='1']").await;
        wait_until(
            Duration::from_secs(10),
            "the highlighted interval",
            || async {
                class_of(&c, "[data-testid=memory-interval][data-index='1']")
                    .await
                    .contains("highlight")
                    .then_some(())
            },
        )
        .await;
        assert!(class_of(&c, "[data-testid=interval-row][data-index='1']")
            .await
            .contains("selected"));
        harness::assert_visible(&c, "rect.interval.highlight").await;
        // Only one interval is highlighted once the pointer is elsewhere.
        click(&c, "[data-testid=memory-summary]").await;
        assert_eq!(harness::count(&c, "rect.interval.highlight").await, 1);

        // Clicking an interval in a lane selects its row.
        click(&c, "[data-testid=memory-interval][data-index='3']").await;
        wait_until(Duration::from_secs(10), "the selected row", || async {
            class_of(&c, "[data-testid=interval-row][data-index='3']")
                .await
                .contains("selected")
                .then_some(())
        })
        .await;
        assert!(!class_of(&c, "[data-testid=interval-row][data-index='1']")
            .await
            .contains("selected"));

        // Keyboard: from row 0, ↓ moves the focus to row 1 (highlighting its interval) and
        // Enter selects it.
        let row0 = c
            .find(Locator::Css("[data-testid=interval-row][data-index='0']"))
            .await
            .unwrap();
        row0.send_keys(&char::from(Key::Down).to_string())
            .await
            .unwrap();
        let focused = c
            .execute(
                "return document.activeElement.dataset.index ?? null;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(focused.as_str(), Some("1"));
        c.active_element()
            .await
            .unwrap()
            .send_keys(&char::from(Key::Enter).to_string())
            .await
            .unwrap();
        wait_until(
            Duration::from_secs(10),
            "the row selected by Enter",
            || async {
                class_of(&c, "[data-testid=interval-row][data-index='1']")
                    .await
                    .contains("selected")
                    .then_some(())
            },
        )
        .await;
        let _ = std::fs::write(
            tmp().join("memory-zoom.png"),
            c.screenshot().await.unwrap_or_default(),
        );
        harness::assert_local_only(&c, &server).await;
        c.close().await.unwrap();
    });
}
