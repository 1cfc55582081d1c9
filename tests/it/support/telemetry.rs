//! The one telemetry record builder: memory telemetry JSON Lines records (collective-memory.md,
//! "Telemetry records") written field by field, in the order given.

use std::fmt::Display;

/// One record: `timestamp_ns` and `event_type`, then the fields added.
pub struct Record(Vec<(&'static str, String)>);

impl Record {
    /// A record at `ts_ns` (any JSON text: tests also write `null` or `1e400`) of `event_type`.
    pub fn new(ts_ns: impl Display, event_type: &str) -> Record {
        Record(vec![("timestamp_ns", ts_ns.to_string())]).str("event_type", event_type)
    }

    /// A `sample` record at `ts_ns`.
    pub fn sample(ts_ns: impl Display) -> Record {
        Record::new(ts_ns, "sample")
    }

    /// Adds `key` with a number (or any JSON text that `Display` writes: `null`, an object).
    pub fn num(mut self, key: &'static str, value: impl Display) -> Record {
        self.0.push((key, value.to_string()));
        self
    }

    /// Adds `key` with a JSON string.
    pub fn str(self, key: &'static str, value: &str) -> Record {
        let quoted = serde_json::Value::from(value).to_string();
        self.num(key, quoted)
    }

    /// The record as one line of JSON, without the newline.
    pub fn json(&self) -> String {
        let fields: Vec<String> = self.0.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        format!("{{{}}}", fields.join(","))
    }

    /// The record as one line of JSON Lines (with its newline).
    pub fn line(&self) -> String {
        format!("{}\n", self.json())
    }
}
