//! How the scaling report crosses the worker boundary (`#[serde(with = "wire::report")]` on
//! [`super::FromWorker::Analysed`]): as one string of its `serde_json` text, which
//! `serde-wasm-bindgen` copies across in one call and the page parses in wasm, instead of a
//! JavaScript object graph built and read back field by field (the demo's 646-hotspot report
//! is ~2.3 MB as JSON; read as an object graph it kept the page's thread busy 107–188 ms
//! before the hotspot table could render, as text 47–82 ms, measured side by side by
//! `tests/it/browser.rs::benchmark_import_in_browser`).
//!
//! A large report crosses in parts ([`split_report`], [`Reassembly`]): its hotspots in
//! [`super::FromWorker::AnalysedPart`] messages of [`HOTSPOTS_PER_PART`], then the rest with
//! the `Analysed` message, so the page reads it in several short tasks.
//!
//! Only a report that `serde_json` carries exactly goes as text: the sender parses its own text
//! back and compares; a report it would change (a non-finite float, which JSON writes as
//! `null`) goes as the structured value, as before. Either way the receiver gets the report the
//! sender had.

/// The two wire forms (externally tagged: `{"Json": "<text>"}` or `{"Value": {…}}`).
#[derive(serde::Serialize, serde::Deserialize)]
enum Wire<T> {
    /// The value's `serde_json` text (read back equal by the sender).
    Json(String),
    /// The value itself, when its JSON text would not read back equal.
    Value(T),
}

/// The `Json` form of `value` when its text reads back equal, else the `Value` form.
fn serialize_exact<T, S>(value: &T, s: S) -> Result<S::Ok, S::Error>
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq,
    S: serde::Serializer,
{
    use serde::Serialize;
    let exact = serde_json::to_string(value)
        .ok()
        .filter(|t| serde_json::from_str::<T>(t).is_ok_and(|back| back == *value));
    match exact {
        Some(text) => Wire::<&T>::Json(text).serialize(s),
        None => Wire::Value(value).serialize(s),
    }
}

/// Reads either form of [`serialize_exact`] back. Errors: text that is no `T`.
fn deserialize_exact<'de, T, D>(d: D) -> Result<T, D::Error>
where
    T: serde::de::DeserializeOwned,
    D: serde::Deserializer<'de>,
{
    use serde::Deserialize;
    match Wire::<T>::deserialize(d)? {
        Wire::Json(text) => serde_json::from_str(&text).map_err(serde::de::Error::custom),
        Wire::Value(v) => Ok(v),
    }
}

/// `serialize`/`deserialize` of a `Box<Report>` field, see the module doc.
pub mod report {
    use serde::{Deserializer, Serializer};

    use crate::analysis::scaling::Report;

    /// The `Json` form when the text reads back equal to `report`, else the `Value` form.
    pub fn serialize<S: Serializer>(report: &Report, s: S) -> Result<S::Ok, S::Error> {
        super::serialize_exact(report, s)
    }

    /// Reads either form back. Errors: text that is no report (the sender never makes one).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<Report>, D::Error> {
        super::deserialize_exact::<Report, D>(d).map(Box::new)
    }
}

/// `serialize`/`deserialize` of the `Vec<Hotspot>` of a [`super::FromWorker::AnalysedPart`]:
/// the same two forms as [`report`].
pub mod hotspots {
    use serde::{Deserializer, Serializer};

    use crate::analysis::scaling::Hotspot;

    /// The `Json` form when the text reads back equal to `hotspots`, else the `Value` form.
    pub fn serialize<S: Serializer>(hotspots: &Vec<Hotspot>, s: S) -> Result<S::Ok, S::Error> {
        super::serialize_exact(hotspots, s)
    }

    /// Reads either form back. Errors: text that is no list of hotspots.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Hotspot>, D::Error> {
        super::deserialize_exact(d)
    }
}

/// Hotspots per [`super::FromWorker::AnalysedPart`] ([`split_report`]): the demo's 646-hotspot
/// report (~2.3 MB of JSON, read by the page in 47–82 ms in one task on a quiet machine) crosses
/// in 26 parts (parts of 100 still took the page 56–96 ms each at a load average of 6–8).
pub const HOTSPOTS_PER_PART: usize = 25;

/// The messages that carry `msg` to the page. A [`super::FromWorker::Analysed`] with more
/// than `per_part` hotspots goes as [`super::FromWorker::AnalysedPart`]s of `per_part`
/// hotspots each (in report order) and then the `Analysed` message with the rest (at most
/// `per_part`), so the page reads it in several short tasks — each message is its own task —
/// instead of one long one; [`Reassembly`] puts it back together. Any other message goes as
/// it is.
pub fn split_report(msg: super::FromWorker, per_part: usize) -> Vec<super::FromWorker> {
    use super::FromWorker;
    let per_part = per_part.max(1);
    match msg {
        FromWorker::Analysed {
            seq,
            inputs,
            mut report,
        } if report.hotspots.len() > per_part => {
            let mut hotspots = std::mem::take(&mut report.hotspots).into_iter();
            let parts = (hotspots.len() - 1) / per_part;
            let mut out: Vec<FromWorker> = (0..parts)
                .map(|_| FromWorker::AnalysedPart {
                    seq,
                    hotspots: hotspots.by_ref().take(per_part).collect(),
                })
                .collect();
            report.hotspots = hotspots.collect();
            out.push(FromWorker::Analysed {
                seq,
                inputs,
                report,
            });
            out
        }
        other => vec![other],
    }
}

/// The page's side of [`split_report`]: collects the parts of the latest answer and puts
/// them in front of the hotspots of its `Analysed` message. Parts of another answer (an
/// older request, one cut short by a crashed worker) are dropped.
#[derive(Debug, Default)]
pub struct Reassembly {
    seq: Option<u64>,
    hotspots: Vec<crate::analysis::scaling::Hotspot>,
}

impl Reassembly {
    /// Takes one message: keeps an `AnalysedPart` (and returns `None`), completes an
    /// `Analysed` with the parts of its `seq`, returns anything else as it is.
    pub fn take(&mut self, msg: super::FromWorker) -> Option<super::FromWorker> {
        use super::FromWorker;
        match msg {
            FromWorker::AnalysedPart { seq, hotspots } => {
                if self.seq != Some(seq) {
                    self.seq = Some(seq);
                    self.hotspots.clear();
                }
                self.hotspots.extend(hotspots);
                None
            }
            FromWorker::Analysed {
                seq,
                inputs,
                mut report,
            } => {
                if self.seq.take() == Some(seq) {
                    let mut all = std::mem::take(&mut self.hotspots);
                    all.append(&mut report.hotspots);
                    report.hotspots = all;
                } else {
                    self.hotspots.clear();
                }
                Some(FromWorker::Analysed {
                    seq,
                    inputs,
                    report,
                })
            }
            other => Some(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{split_report, Reassembly};
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

    #[test]
    fn a_large_report_crosses_in_parts_and_is_put_back_together() {
        let r = report();
        let n = r.hotspots.len();
        assert!(n >= 2, "{n}");
        let msg = FromWorker::Analysed {
            seq: 3,
            inputs: vec![(1, Some(2.0))],
            report: Box::new(r.clone()),
        };
        for per_part in [1, 2, n - 1, n, n + 5] {
            let parts = split_report(msg.clone(), per_part);
            let want = n.div_ceil(per_part);
            assert_eq!(parts.len(), want, "per_part {per_part}");
            // Every part but the last is an `AnalysedPart` of `per_part` hotspots.
            for p in &parts[..parts.len() - 1] {
                let FromWorker::AnalysedPart { seq, hotspots } = p else {
                    panic!("{p:?}")
                };
                assert_eq!((seq, hotspots.len()), (&3, per_part));
            }
            // Each crosses as text and reads back: the page gets the whole report again.
            let mut page = Reassembly::default();
            let mut out = Vec::new();
            for p in &parts {
                out.extend(page.take(round_trip(p)));
            }
            assert_eq!(out, vec![msg.clone()], "per_part {per_part}");
        }
    }

    #[test]
    fn parts_of_another_answer_are_dropped() {
        let r = report();
        let old = split_report(
            FromWorker::Analysed {
                seq: 1,
                inputs: Vec::new(),
                report: Box::new(r.clone()),
            },
            1,
        );
        let new = FromWorker::Analysed {
            seq: 2,
            inputs: Vec::new(),
            report: Box::new(r.clone()),
        };
        let mut page = Reassembly::default();
        // A worker died after the first part of answer 1; answer 2 comes whole.
        assert_eq!(page.take(old[0].clone()), None);
        assert_eq!(page.take(new.clone()), Some(new.clone()));
        // The parts of 2 do not pick up the leftovers of 1.
        let parts = split_report(new.clone(), 1);
        assert_eq!(page.take(old[0].clone()), None);
        let mut out = Vec::new();
        for p in parts {
            out.extend(page.take(p));
        }
        assert_eq!(out, vec![new]);
    }
}
