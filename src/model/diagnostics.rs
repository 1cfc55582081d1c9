//! Import anomalies as data: one table of named kinds, each with a fixed severity and a message
//! template (Perfetto `storage/stats.h` style), and the per-import counters built on it.
//!
//! Architecture Invariant: an importer never fails on a bad *event*; it counts it here, and the
//! UI and CLI show every entry. Only an unreadable container is an `Err`. Every kind any
//! importer (or a cross-file rule) records is a row of the [`Kind`] table below; nothing else
//! decides a kind's name, severity or wording.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How bad an anomaly is for the analyses built on the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Expected oddities (e.g. an END for a slice begun before tracing started).
    Info,
    /// Repaired input (invalid UTF-8 replaced, a trailing comma skipped): nothing lost.
    Warning,
    /// Events were lost or are incomplete: results built on them may miss data.
    DataLoss,
    /// Input that could not be understood at all at this point.
    Error,
}

impl Severity {
    /// The stable snake_case name (`info`, `warning`, `data_loss`, `error`), as serialized.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::DataLoss => "data_loss",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Declares [`Kind`] from one table: `Variant => ("stable_name", Severity, "template"),`.
/// The template is also the variant's doc comment.
macro_rules! diagnostic_kinds {
    ($($variant:ident => ($name:literal, $severity:ident, $template:literal),)*) => {
        /// What went wrong (or was repaired) during an import: one variant per anomaly, with
        /// its stable snake_case name ([`Kind::as_str`], the serialized form), its fixed
        /// [`Severity`] ([`Kind::severity`]) and its message template ([`Kind::template`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        // Templates are prose: `[memory]` in one is a Kineto event name, not a doc link.
        #[allow(rustdoc::broken_intra_doc_links)]
        pub enum Kind {
            $(
                #[doc = $template]
                $variant,
            )*
        }

        impl Kind {
            /// Every kind, in table order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];

            /// The stable machine name, e.g. `end_without_begin`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Kind::$variant => $name,)*
                }
            }

            /// The fixed severity of this kind.
            pub const fn severity(self) -> Severity {
                match self {
                    $(Kind::$variant => Severity::$severity,)*
                }
            }

            /// The human sentence describing this kind (without the first occurrence's detail).
            pub const fn template(self) -> &'static str {
                match self {
                    $(Kind::$variant => $template,)*
                }
            }

            /// The kind whose stable name is `name`.
            pub fn from_name(name: &str) -> Option<Kind> {
                match name {
                    $($name => Some(Kind::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

diagnostic_kinds! {
    // ----- shared by the importers ---------------------------------------------------------
    InvalidUtf8Repaired => ("invalid_utf8_repaired", Warning,
        "invalid UTF-8 in a string was replaced with U+FFFD"),
    EndWithoutBegin => ("end_without_begin", Info,
        "an end event with no open slice on its track (begun before tracing started?) was dropped"),
    EndNameMismatch => ("end_name_mismatch", Warning,
        "an end event whose name matches no open slice on its track was dropped"),
    EndClosedNonInnermost => ("end_closed_non_innermost", Warning,
        "an end event closed a slice that still had open children"),
    SliceNeverEnded => ("slice_never_ended", Info,
        "slices still open at the end of the trace are kept as incomplete (dur -1)"),
    SliceOverlapOverflowLane => ("slice_overlap_overflow_lane", Warning,
        "slices partly overlapping another slice on the same track were kept on an overflow lane"),

    // ----- Chrome JSON: container and syntax -----------------------------------------------
    JsonSyntaxError => ("json_syntax_error", DataLoss,
        "an unreadable event in the event array was dropped"),
    JsonEventsLost => ("json_events_lost", DataLoss,
        "events of the event array were lost to a syntax error (skipped up to the next event)"),
    JsonTopLevelSyntaxError => ("json_top_level_syntax_error", Warning,
        "a syntax error outside the event array was skipped"),
    JsonTruncated => ("json_truncated", DataLoss,
        "the file ends inside a top-level value"),
    JsonTrailingData => ("json_trailing_data", DataLoss,
        "text after the top-level value (a second trace appended, or what followed a stray bracket) was not read"),
    JsonTruncatedEvent => ("json_truncated_event", DataLoss,
        "the last event is cut off mid-write and was dropped"),
    JsonStrayCloseBracket => ("json_stray_close_bracket", Warning,
        "a ']' closed the event array while events followed (`[e1], e2, e3]`); the events after it were read"),
    JsonUnterminatedArray => ("json_unterminated_array", Info,
        "the event array has no closing ']' (the writer stopped); all complete events were read"),
    JsonExtraComma => ("json_extra_comma", Info,
        "an extra comma in the event array was skipped"),
    JsonExtraCommaInValue => ("json_extra_comma_in_value", Warning,
        "trailing or doubled commas inside a value were skipped"),
    JsonUnescapedQuoteRepaired => ("json_unescaped_quote_repaired", Warning,
        "an event with unescaped quotes inside a string was read leniently"),
    JsonControlCharInString => ("json_control_char_in_string", Warning,
        "raw control characters (e.g. newlines) inside strings were kept as written"),
    JsonInvalidEscape => ("json_invalid_escape", Warning,
        "invalid backslash escapes (e.g. unescaped Windows paths) were kept literally"),
    JsonNonFiniteNumber => ("json_non_finite_number", Warning,
        "NaN/Infinity tokens were read as null"),
    JsonLoneSurrogateEscape => ("json_lone_surrogate_escape", Warning,
        "a \\uD800–\\uDFFF escape without its other half was replaced with U+FFFD"),
    JsonSectionNotModelled => ("json_section_not_modelled", Info,
        "a top-level section is not imported"),
    JsonEventTooLarge => ("json_event_too_large", DataLoss,
        "an element of the event array longer than the per-event limit (MAX_EVENT_BYTES) was skipped unread"),
    JsonValueTooLarge => ("json_value_too_large", Warning,
        "a top-level value past the per-event limits (MAX_EVENT_BYTES, MAX_JSON_NODES_PER_EVENT) was skipped"),
    JsonArgsOverLimit => ("json_args_over_limit", DataLoss,
        "an event's args past a per-event limit (MAX_ARGS_PER_EVENT, MAX_JSON_NODES_PER_EVENT, MAX_ARG_BYTES_PER_EVENT) were dropped"),

    // ----- Chrome JSON: events -------------------------------------------------------------
    EventNotAnObject => ("event_not_an_object", Warning,
        "an element of the event array is not an object and was skipped"),
    PidTidNotInteger => ("pid_tid_not_integer", Warning,
        "a pid or tid that is neither an integer nor a string was kept as a distinct id named by its text"),
    EventWithoutPhase => ("event_without_phase", Warning,
        "an event without \"ph\" was skipped"),
    EventInvalidTimestamp => ("event_invalid_timestamp", Warning,
        "an event with a missing or non-numeric \"ts\" was dropped"),
    TimestampOutOfRange => ("timestamp_out_of_range", Warning,
        "an event with a timestamp beyond ±2^61 ns was dropped"),
    TimestampImplausible => ("timestamp_implausible", Warning,
        "an event before 1970 by more than the trace's own span was dropped (a corrupt timestamp)"),
    CompleteEventInvalidDuration => ("complete_event_invalid_duration", Warning,
        "a complete (X) event with a missing or non-numeric \"dur\" was dropped"),
    SliceNegativeDuration => ("slice_negative_duration", Warning,
        "a complete event with a negative duration was dropped"),
    SliceAbsurdDuration => ("slice_absurd_duration", Warning,
        "a complete event with an implausible duration (over 7 days) was dropped"),
    AsyncEventWithoutId => ("async_event_without_id", Warning,
        "an async event without \"id\" or \"id2\" was dropped"),
    CounterWithoutValues => ("counter_without_values", Info,
        "a counter event without args was skipped"),
    CounterValueNotNumeric => ("counter_value_not_numeric", Info,
        "a counter arg that is not a number was skipped"),
    MemoryEventWithoutSizes => ("memory_event_without_sizes", Info,
        "a [memory] event without Total Allocated or Bytes was skipped"),
    MemoryTotalReconstructed => ("memory_total_reconstructed", Warning,
        "[memory] events without Total Allocated (2021 schema): allocated bytes were reconstructed as the running sum of Bytes"),
    MetadataEventNotModelled => ("metadata_event_not_modelled", Info,
        "a metadata (M) event that is not modelled was skipped"),
    FlowEventNotModelled => ("flow_event_not_modelled", Info,
        "flow events (ph s/t/f) are counted but not modelled"),
    PhaseTNotModelled => ("phase_T_not_modelled", Info,
        "events with ph 'T' (thread state, legacy async step) are counted but not modelled"),
    PhaseLowerPNotModelled => ("phase_p_not_modelled", Info,
        "events with ph 'p' (legacy async step past) are counted but not modelled"),
    PhaseNNotModelled => ("phase_N_not_modelled", Info,
        "events with ph 'N' (object created) are counted but not modelled"),
    PhaseONotModelled => ("phase_O_not_modelled", Info,
        "events with ph 'O' (object snapshot) are counted but not modelled"),
    PhaseDNotModelled => ("phase_D_not_modelled", Info,
        "events with ph 'D' (object destroyed) are counted but not modelled"),
    PhasePNotModelled => ("phase_P_not_modelled", Info,
        "events with ph 'P' (sample) are counted but not modelled"),
    PhaseVNotModelled => ("phase_V_not_modelled", Info,
        "events with ph 'V' (global memory dump) are counted but not modelled"),
    PhaseLowerVNotModelled => ("phase_v_not_modelled", Info,
        "events with ph 'v' (process memory dump) are counted but not modelled"),
    PhaseLowerCNotModelled => ("phase_c_not_modelled", Info,
        "events with ph 'c' (clock sync) are counted but not modelled"),
    PhaseContextEnterNotModelled => ("phase_(_not_modelled", Info,
        "events with ph '(' (context enter) are counted but not modelled"),
    PhaseContextLeaveNotModelled => ("phase_)_not_modelled", Info,
        "events with ph ')' (context leave) are counted but not modelled"),
    PhaseUnknownNotModelled => ("phase_unknown_not_modelled", Info,
        "events with a phase the trace event format does not define are counted but not modelled"),

    // ----- Host, rank and cross-file facts -------------------------------------------------
    RankFromFileName => ("rank_from_file_name", Info,
        "the trace names no rank (no distributedInfo); it was taken from the file name"),
    RankUnknown => ("rank_unknown", Warning,
        "a PyTorch profiler trace without distributedInfo and no rank in the file name: the rank is unknown"),
    RankAssigned => ("rank_assigned", Warning,
        "this trace names no rank; one was assigned among the files loaded with it so ranks stay distinct"),
    HostnameFromSiblings => ("hostname_from_siblings", Info,
        "the host was taken from the names of sibling files"),
    CountersNotKeptForMapping => ("counters_not_kept_for_mapping", Info,
        "counter series beyond the per-file sample budget were not kept for re-mapping in the memory view (the default mapping's series are kept)"),

    // ----- the container -------------------------------------------------------------------
    CompressedStreamTruncated => ("compressed_stream_truncated", DataLoss,
        "the compressed stream breaks off (file cut off or corrupt); what came before was kept"),

    // ----- Perfetto protobuf ---------------------------------------------------------------
    PacketDecodeError => ("packet_decode_error", DataLoss,
        "a packet could not be decoded and was skipped"),
    TruncatedPacket => ("truncated_packet", DataLoss,
        "the trace ends inside a record (file cut off?); the partial record was dropped"),
    TraceFramingError => ("trace_framing_error", DataLoss,
        "bytes that are not a protobuf record were found; the rest of the stream was skipped"),
    CompressedPacketsTooDeep => ("compressed_packets_too_deep", DataLoss,
        "compressed_packets nested too deeply were skipped"),
    CompressedPacketsCorrupt => ("compressed_packets_corrupt", DataLoss,
        "a compressed_packets bundle could not be inflated"),
    ZstdCompressedPacketsUnsupported => ("zstd_compressed_packets_unsupported", DataLoss,
        "zstd_compressed_packets are not supported; their packets were skipped"),
    TooManySequences => ("too_many_sequences", DataLoss,
        "more packet sequences than supported; packets of new ones were dropped"),
    PacketLoss => ("packet_loss", DataLoss,
        "packets were lost on a sequence (previous_packet_dropped); its incremental state is invalid until the next clear"),
    IncrementalStateInvalidPacketDropped => ("incremental_state_invalid_packet_dropped", DataLoss,
        "packets that need interned data were dropped while their sequence's incremental state was invalid (after data loss, or before the first clear)"),
    ClockUnknown => ("clock_unknown", DataLoss,
        "an event uses a sequence-scoped clock with no snapshot on its sequence and was dropped"),
    ClockSyncFailure => ("clock_sync_failure", DataLoss,
        "no clock snapshot connects an event's clock to the trace clock; the event was dropped"),
    TrackUuidUnknown => ("track_uuid_unknown", DataLoss,
        "a counter value refers to a track uuid no descriptor defines and was dropped"),
    TrackUuidUndescribed => ("track_uuid_undescribed", Warning,
        "events refer to a track uuid no descriptor defines; they were kept on an unnamed track"),
    CounterWithoutTrack => ("counter_without_track", DataLoss,
        "a counter value has no counter track and was dropped"),
    CounterWithoutValue => ("counter_without_value", Warning,
        "a TYPE_COUNTER event carries no value and was dropped"),
    InternedIdUnknown => ("interned_id_unknown", Warning,
        "an interned id was not found in the tables of its sequence; left unnamed"),
    TrackEventInvalidTimestamp => ("track_event_invalid_timestamp", DataLoss,
        "a legacy µs timestamp overflows 64-bit nanoseconds; the event was dropped"),
    LegacyTimestampWithoutReference => ("legacy_timestamp_without_reference", DataLoss,
        "a timestamp_delta_us event has no thread_descriptor reference time on its sequence and was dropped"),
    NegativeDuration => ("negative_duration", Warning,
        "a legacy 'X' event with a negative duration was dropped"),
    LegacyPhaseUnsupported => ("legacy_phase_unsupported", Info,
        "a legacy event phase is not imported"),
    TrackEventTypeUnknown => ("track_event_type_unknown", Warning,
        "a TrackEvent type that is not understood was dropped"),

    // ----- Perfetto protobuf: the per-file budget (issue #10, formats::limits) --------------
    PacketTooLarge => ("packet_too_large", DataLoss,
        "a packet longer than the per-packet limit (limits::MAX_EVENT_BYTES = 64 MiB) was skipped"),
    AnnotationsOverLimit => ("annotations_over_limit", DataLoss,
        "debug annotations beyond the per-event limit (limits::MAX_ARGS_PER_EVENT = 4096) were dropped"),
    TracksOverLimit => ("tracks_over_limit", DataLoss,
        "events on tracks beyond the per-file limit (limits::MAX_TRACKS = 1048576) were dropped"),
    MemoryBudgetReached => ("memory_budget_reached", DataLoss,
        "the model reached the per-file memory budget (limits::model_budget: 512 MiB + 3 × the decompressed bytes read); the rest of the file was not imported"),

    // ----- Memory telemetry ----------------------------------------------------------------
    TelemetryBadLine => ("telemetry_bad_line", DataLoss,
        "a malformed telemetry line was skipped"),
}

impl Kind {
    /// The message of an occurrence: the template, then `": "` and `detail` when given
    /// (e.g. the offending value or the line of the first occurrence).
    pub fn message(self, detail: Option<&str>) -> String {
        match detail {
            Some(d) if !d.is_empty() => format!("{}: {d}", self.template()),
            _ => self.template().to_string(),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Kind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Kind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Kind {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Kind> for &str {
    fn eq(&self, other: &Kind) -> bool {
        *self == other.as_str()
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Kind::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown diagnostic kind {name:?}")))
    }
}

/// One named anomaly counter: how often it happened and where first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The kind; serialized as its stable name, e.g. `end_without_begin`.
    pub kind: Kind,
    /// The kind's fixed severity ([`Kind::severity`]), kept in the row for readers of the JSON.
    pub severity: Severity,
    /// How many occurrences were counted.
    pub count: u64,
    /// Byte offset (in the decompressed stream) of the first occurrence, when known.
    pub first_offset: Option<u64>,
    /// Event or packet index of the first occurrence, when known.
    pub first_index: Option<u64>,
    /// The kind's template with the first occurrence's detail ([`Kind::message`]).
    pub message: String,
}

/// The diagnostics table of one import. Entries are kept in first-seen order.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Diagnostics {
    entries: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Counts one occurrence of `kind`. The offset, index and `detail` of the first occurrence
    /// are kept (the detail is appended to the kind's template, see [`Kind::message`]); later
    /// occurrences only increase the count, and `detail` is not called for them.
    pub fn add(
        &mut self,
        kind: Kind,
        first_offset: Option<u64>,
        first_index: Option<u64>,
        detail: impl FnOnce() -> Option<String>,
    ) {
        self.add_n(kind, 1, first_offset, first_index, detail)
    }

    /// Counts `n` occurrences of `kind` at once (nothing when `n` is 0).
    pub fn add_n(
        &mut self,
        kind: Kind,
        n: u64,
        first_offset: Option<u64>,
        first_index: Option<u64>,
        detail: impl FnOnce() -> Option<String>,
    ) {
        if n == 0 {
            return;
        }
        if let Some(d) = self.entries.iter_mut().find(|d| d.kind == kind) {
            d.count += n;
            return;
        }
        self.entries.push(Diagnostic {
            kind,
            severity: kind.severity(),
            count: n,
            first_offset,
            first_index,
            message: kind.message(detail().as_deref()),
        });
    }

    /// Adds `later`'s counts as if its occurrences had been added here after every one so
    /// far: a kind already here grows by its count; a new kind is appended with its first
    /// occurrence (offset, index, message) as `later` has it.
    pub fn absorb(&mut self, later: Diagnostics) {
        for d in later.entries {
            match self.entries.iter_mut().find(|e| e.kind == d.kind) {
                Some(e) => e.count += d.count,
                None => self.entries.push(d),
            }
        }
    }

    /// All entries in first-seen order.
    pub fn entries(&self) -> &[Diagnostic] {
        &self.entries
    }

    /// The count recorded for `kind` (0 when never seen): a [`Kind`] or its stable name
    /// (`count(Kind::EndWithoutBegin)`, `count("end_without_begin")`).
    pub fn count<K>(&self, kind: K) -> u64
    where
        Kind: PartialEq<K>,
    {
        self.entries
            .iter()
            .find(|d| d.kind == kind)
            .map_or(0, |d| d.count)
    }

    /// True when any entry has severity [`Severity::DataLoss`] or worse: the scaling analysis then
    /// treats frames missing from this trial as missing, not as zero (scaling.md).
    pub fn has_data_loss(&self) -> bool {
        self.entries
            .iter()
            .any(|d| d.severity >= Severity::DataLoss)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One line on a file's diagnostics, for a report's headline: `"no import diagnostics"`, or
/// the occurrences per severity, worst first, and the number of kinds, e.g. `"import
/// diagnostics: 3 data_loss, 488 info (3 kinds)"`. A count of occurrences alone ("488 import
/// diagnostics") read like 488 problems when it was two kinds of expected `info` oddities.
pub fn tally(entries: &[Diagnostic]) -> String {
    if entries.is_empty() {
        return "no import diagnostics".to_string();
    }
    let parts: Vec<String> = [
        Severity::Error,
        Severity::DataLoss,
        Severity::Warning,
        Severity::Info,
    ]
    .into_iter()
    .filter_map(|sev| {
        let n: u64 = entries
            .iter()
            .filter(|d| d.severity == sev)
            .map(|d| d.count)
            .sum();
        (n > 0).then(|| format!("{n} {sev}"))
    })
    .collect();
    let kinds = entries.len();
    format!(
        "import diagnostics: {} ({kinds} kind{})",
        parts.join(", "),
        if kinds == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_occurrences_per_severity_worst_first() {
        assert_eq!(tally(&[]), "no import diagnostics");
        let mut d = Diagnostics::default();
        for _ in 0..441 {
            d.add(Kind::EndWithoutBegin, None, None, || None);
        }
        for _ in 0..47 {
            d.add(Kind::SliceNeverEnded, None, None, || None);
        }
        assert_eq!(tally(d.entries()), "import diagnostics: 488 info (2 kinds)");
        for _ in 0..3 {
            d.add(Kind::JsonSyntaxError, None, None, || None);
        }
        assert_eq!(
            tally(d.entries()),
            "import diagnostics: 3 data_loss, 488 info (3 kinds)"
        );
        let mut one = Diagnostics::default();
        one.add(Kind::JsonSyntaxError, None, None, || None);
        assert_eq!(
            tally(one.entries()),
            "import diagnostics: 1 data_loss (1 kind)"
        );
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut names: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate kind names");
        for &k in Kind::ALL {
            assert_eq!(Kind::from_name(k.as_str()), Some(k));
            assert_eq!(k.to_string(), k.as_str());
            assert!(!k.template().is_empty());
        }
        assert_eq!(Kind::from_name("no_such_kind"), None);
    }

    #[test]
    fn serialized_shape_is_stable_and_deserializes() {
        let mut d = Diagnostics::default();
        d.add(Kind::JsonSyntaxError, Some(12), Some(3), || {
            Some("expected ':' at line 2".into())
        });
        d.add(Kind::JsonSyntaxError, Some(40), Some(9), || {
            panic!("only the first occurrence is described")
        });
        d.add_n(Kind::SliceNeverEnded, 0, None, None, || None);
        d.add_n(Kind::SliceNeverEnded, 2, None, None, || None);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(
            v,
            serde_json::json!([
                {
                    "kind": "json_syntax_error",
                    "severity": "data_loss",
                    "count": 2,
                    "first_offset": 12,
                    "first_index": 3,
                    "message": "an unreadable event in the event array was dropped: expected ':' at line 2"
                },
                {
                    "kind": "slice_never_ended",
                    "severity": "info",
                    "count": 2,
                    "first_offset": null,
                    "first_index": null,
                    "message": Kind::SliceNeverEnded.template()
                }
            ])
        );
        let back: Vec<Diagnostic> = serde_json::from_value(v).unwrap();
        assert_eq!(back, d.entries());
        assert!(serde_json::from_str::<Kind>("\"bogus\"").is_err());
        assert_eq!(d.count("json_syntax_error"), 2);
        assert_eq!(d.count(Kind::SliceNeverEnded), 2);
        assert_eq!(d.count(Kind::RankAssigned), 0);
        assert!(d.has_data_loss());
        assert!(d.entries()[0].kind == "json_syntax_error");
    }
}
