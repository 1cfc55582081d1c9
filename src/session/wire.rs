//! How the scaling report crosses the worker boundary (`#[serde(with = "wire::report")]` on
//! [`super::FromWorker::Analysed`]): as one string of its `serde_json` text, which
//! `serde-wasm-bindgen` copies across in one call and the page parses in wasm, instead of a
//! JavaScript object graph built and read back field by field (the demo's 646-hotspot report
//! is ~2.3 MB as JSON; read as an object graph it kept the page's thread busy 107–188 ms
//! before the hotspot table could render, as text 47–82 ms, measured side by side by
//! `tests/it/browser.rs::benchmark_import_in_browser`).
//!
//! Only a report that `serde_json` carries exactly goes as text: the sender parses its own text
//! back and compares; a report it would change (a non-finite float, which JSON writes as
//! `null`) goes as the structured value, as before. Either way the receiver gets the report the
//! sender had.

/// `serialize`/`deserialize` of a `Box<Report>` field, see the module doc.
pub mod report {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::analysis::scaling::Report;

    /// The two wire forms (externally tagged: `{"Json": "<text>"}` or `{"Value": {…}}`).
    #[derive(Serialize, Deserialize)]
    enum Wire<T> {
        /// The report's `serde_json` text (read back equal by the sender).
        Json(String),
        /// The report itself, when its JSON text would not read back equal.
        Value(T),
    }

    /// The `Json` form when the text reads back equal to `report`, else the `Value` form.
    pub fn serialize<S: Serializer>(report: &Report, s: S) -> Result<S::Ok, S::Error> {
        let exact = serde_json::to_string(report)
            .ok()
            .filter(|t| serde_json::from_str::<Report>(t).is_ok_and(|back| back == *report));
        match exact {
            Some(text) => Wire::<&Report>::Json(text).serialize(s),
            None => Wire::Value(report).serialize(s),
        }
    }

    /// Reads either form back. Errors: text that is no report (the sender never makes one).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<Report>, D::Error> {
        match Wire::<Box<Report>>::deserialize(d)? {
            Wire::Json(text) => serde_json::from_str(&text).map_err(serde::de::Error::custom),
            Wire::Value(r) => Ok(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::scaling::{
        self, FrameDescription, FrameTotals, Params, Trial, TrialProfile,
    };
    use crate::session::FromWorker;

    /// Six trials whose frame `grow` grows with the input: a report with tested groups, fits
    /// and bootstrap intervals.
    fn report() -> scaling::Report {
        let trials: Vec<Trial> = (0..6)
            .map(|i| {
                let x = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0][i];
                let frame = |id: &str, ns: i64| FrameTotals {
                    frame: FrameDescription {
                        semantic_frame_id: format!("sf1:{id}"),
                        provider: "perfetto.track_event".into(),
                        name: id.into(),
                        category: "test".into(),
                        file: None,
                        line: None,
                        function: None,
                        posted_from: None,
                    },
                    inclusive_ns: ns,
                    self_ns: ns,
                    count: 1,
                };
                Trial {
                    path: format!("t_{x}.pftrace"),
                    input: Some(x),
                    variant: "default".into(),
                    environment: String::new(),
                    excluded: false,
                    profile: TrialProfile {
                        artifact_id: format!("sha256:{i}"),
                        frames: vec![
                            frame("grow", (x * 1000.0) as i64 + i as i64),
                            frame("flat", 5000 + (i as i64 % 2)),
                        ],
                        unmatched: Vec::new(),
                        data_loss: false,
                        environment: "host".into(),
                        incomplete_slices: 0,
                    },
                }
            })
            .collect();
        scaling::run(&trials, &Params::default())
    }

    fn round_trip(msg: &FromWorker) -> FromWorker {
        serde_json::from_str(&serde_json::to_string(msg).unwrap()).unwrap()
    }

    #[test]
    fn a_report_crosses_as_its_json_text_and_reads_back_equal() {
        let r = report();
        assert!(r.hotspots.iter().any(|h| h.fit.is_some()), "{r:?}");
        let msg = FromWorker::Analysed {
            seq: 7,
            inputs: vec![(1, Some(2.0))],
            report: Box::new(r.clone()),
        };
        let wire = serde_json::to_value(&msg).unwrap();
        assert!(
            wire["report"]["Json"].is_string(),
            "not sent as text: {wire}"
        );
        let FromWorker::Analysed { seq, report, .. } = round_trip(&msg) else {
            panic!("another message")
        };
        assert_eq!(seq, 7);
        assert_eq!(*report, r);
    }

    #[test]
    fn a_report_json_would_change_crosses_as_the_value() {
        let mut r = report();
        // JSON has no NaN: the text would read back as another report (or not at all).
        r.hotspots[0].supported_min = f64::NAN;
        let msg = FromWorker::Analysed {
            seq: 1,
            inputs: Vec::new(),
            report: Box::new(r),
        };
        let wire = serde_json::to_value(&msg).unwrap();
        assert!(wire["report"]["Value"].is_object(), "{wire}");
        assert!(wire["report"].get("Json").is_none());
    }
}
