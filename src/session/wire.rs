//! How the scaling report crosses the worker boundary (`#[serde(with = "wire::bytes")]` on
//! [`super::FromWorker::Analysed`]): as the bytes of its `postcard` encoding, which
//! `serde-wasm-bindgen` copies across as one `Uint8Array` and the page decodes in wasm. The
//! encoding is exact (floats as their bits, NaN included), so what the page reads is the report
//! the worker had. Before, the report crossed as its `serde_json` text, which the sender also
//! read back to check that it was exact: the demo's 646-hotspot report is 2,247,051 bytes of
//! JSON against 663,899 of `postcard`, and natively 3.6–4.0 ms to write plus 4.1–4.2 ms to read
//! as JSON against 0.3–0.4 ms and 0.6 ms (the 18 demo trials, `scaling::run` 42 ms beside it);
//! in the browser the page got the table 70 ms after the first part.
//!
//! A large report crosses in parts ([`split_report`], [`Reassembly`]): its hotspots in
//! [`super::FromWorker::AnalysedPart`] messages of [`HOTSPOTS_PER_PART`], then the rest with
//! the `Analysed` message, so the page reads it in several short tasks.

/// `serialize`/`deserialize` of a field as its `postcard` bytes (module doc), for any type
/// `postcard` can encode (no `flatten`, `untagged` or skipped fields). On
/// [`super::FromWorker::Analysed`]'s report, [`super::FromWorker::AnalysedPart`]'s hotspots and
/// [`super::FromWorker::Flamed`]'s tree. The tree crossed as a JavaScript object graph before
/// (one object of 20 properties per node, which `serde-wasm-bindgen` writes in the worker and
/// the page reads back property by property): the demo's scaling flame tree then took
/// 150–260 ms of the page's main thread in one task (Chromium trace, session 21, 2026-12-05).
pub mod bytes {
    use serde::{de::DeserializeOwned, Deserializer, Serialize, Serializer};

    /// `value`'s `postcard` bytes as serde bytes (a `Uint8Array` through
    /// `serde-wasm-bindgen`). Errors: `postcard`'s (a type it cannot encode; the types sent this
    /// way are all encodable).
    pub fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        let bytes = postcard::to_allocvec(value).map_err(serde::ser::Error::custom)?;
        s.serialize_bytes(&bytes)
    }

    /// Reads [`serialize`]'s form back: bytes (or, from a format that writes bytes as a list of
    /// numbers, such as JSON, that list). Errors: anything that is not the encoding of a `T`.
    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the postcard bytes of a value")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Vec<u8>, A::Error> {
                // No trust in a stated length: the list grows as it is read.
                let mut out = Vec::new();
                while let Some(b) = a.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        let bytes = d.deserialize_byte_buf(Bytes)?;
        postcard::from_bytes(&bytes).map_err(serde::de::Error::custom)
    }
}

/// Hotspots per [`super::FromWorker::AnalysedPart`] ([`split_report`]): the demo's 646-hotspot
/// report crosses in 26 parts. Chosen when the report crossed as JSON text (~2.3 MB, read by the
/// page in 47–82 ms in one task on a quiet machine; parts of 100 still took 56–96 ms each at a
/// load average of 6–8); as `postcard` bytes the 26 parts reach the page within 12 ms in all.
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
    fn a_report_crosses_as_postcard_bytes_and_reads_back_equal() {
        let r = report();
        assert!(r.hotspots.iter().any(|h| h.fit.is_some()), "{r:?}");
        let msg = FromWorker::Analysed {
            seq: 7,
            inputs: vec![(1, Some(2.0))],
            report: Box::new(r.clone()),
        };
        // JSON writes serde bytes as a list of numbers: the report's postcard encoding.
        let wire = serde_json::to_value(&msg).unwrap();
        let bytes: Vec<u8> = serde_json::from_value(wire["report"].clone()).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&r).unwrap());
        let FromWorker::Analysed { seq, report, .. } = round_trip(&msg) else {
            panic!("another message")
        };
        assert_eq!(seq, 7);
        assert_eq!(*report, r);
    }

    /// What JSON text could not carry (NaN; it writes `null`) crosses bit for bit.
    #[test]
    fn a_report_with_nan_crosses_exactly() {
        let mut r = report();
        r.hotspots[0].supported_min = f64::NAN;
        let msg = FromWorker::Analysed {
            seq: 1,
            inputs: Vec::new(),
            report: Box::new(r.clone()),
        };
        let FromWorker::Analysed { mut report, .. } = round_trip(&msg) else {
            panic!("another message")
        };
        assert_eq!(
            report.hotspots[0].supported_min.to_bits(),
            f64::NAN.to_bits()
        );
        report.hotspots[0].supported_min = 0.0;
        r.hotspots[0].supported_min = 0.0;
        assert_eq!(*report, r);
    }

    /// Bytes that are no report fail to read, as an error, not a panic.
    #[test]
    fn bytes_that_are_no_report_fail_to_read() {
        let text = r#"{"Analysed":{"seq":1,"inputs":[],"report":[255,255,255,255,255,255]}}"#;
        assert!(serde_json::from_str::<FromWorker>(text).is_err());
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
            // Each crosses as bytes and reads back: the page gets the whole report again.
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
