//! Hand-written prost messages for the subset of the Perfetto trace schema the importer reads
//! (field numbers from trace-formats.md §1–5, which checked them against google/perfetto
//! `protos/perfetto/trace/**.proto`). Fields not declared here are skipped by prost.
//!
//! Human-readable strings are declared as `bytes` (`Vec<u8>`): prost rejects a whole message on
//! invalid UTF-8 in a `string` field, so the importer converts them lossily instead.
//! Oneof members are declared as plain optional fields with the same tag (trace-formats.md §0.2).
//!
//! All structs are `pub` so tests can build traces with [`prost::Message::encode_to_vec`].

/// `perfetto.protos.TracePacket` (trace_packet.proto). One record of the `Trace` stream.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TracePacket {
    /// `TracePacket.timestamp` = 8, in the `timestamp_clock_id` domain.
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    /// `TracePacket.timestamp_clock_id` = 58.
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    /// `TracePacket.trusted_packet_sequence_id` = 10 (oneof member).
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    /// `TracePacket.sequence_flags` = 13 (1 = SEQ_INCREMENTAL_STATE_CLEARED,
    /// 2 = SEQ_NEEDS_INCREMENTAL_STATE).
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    /// `TracePacket.incremental_state_cleared` = 41 (deprecated alias of flag 1).
    #[prost(bool, optional, tag = "41")]
    pub incremental_state_cleared: Option<bool>,
    /// `TracePacket.previous_packet_dropped` = 42 (nonzero = data loss before this packet).
    #[prost(uint32, optional, tag = "42")]
    pub previous_packet_dropped: Option<u32>,
    /// `TracePacket.first_packet_on_sequence` = 87.
    #[prost(bool, optional, tag = "87")]
    pub first_packet_on_sequence: Option<bool>,
    /// `TracePacket.interned_data` = 12.
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    /// `TracePacket.trace_packet_defaults` = 59.
    #[prost(message, optional, tag = "59")]
    pub trace_packet_defaults: Option<TracePacketDefaults>,
    /// `TracePacket.track_event` = 11 (oneof `data`).
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    /// `TracePacket.track_descriptor` = 60 (oneof `data`).
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    /// `TracePacket.clock_snapshot` = 6 (oneof `data`).
    #[prost(message, optional, tag = "6")]
    pub clock_snapshot: Option<ClockSnapshot>,
    /// `TracePacket.compressed_packets` = 50 (oneof `data`): zlib stream of `Trace` framing.
    #[prost(bytes = "vec", optional, tag = "50")]
    pub compressed_packets: Option<Vec<u8>>,
    /// `TracePacket.zstd_compressed_packets` = 133 (oneof `data`): zstd counterpart.
    #[prost(bytes = "vec", optional, tag = "133")]
    pub zstd_compressed_packets: Option<Vec<u8>>,
    /// `TracePacket.process_descriptor` = 43 (legacy, oneof `data`).
    #[prost(message, optional, tag = "43")]
    pub process_descriptor: Option<ProcessDescriptor>,
    /// `TracePacket.thread_descriptor` = 44 (legacy, oneof `data`).
    #[prost(message, optional, tag = "44")]
    pub thread_descriptor: Option<ThreadDescriptor>,
    /// `TracePacket.process_tree` = 2 (oneof `data`): Linux process/thread names.
    #[prost(message, optional, tag = "2")]
    pub process_tree: Option<ProcessTree>,
}

/// `TracePacket` flag `SEQ_INCREMENTAL_STATE_CLEARED`.
pub const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `TracePacket` flag `SEQ_NEEDS_INCREMENTAL_STATE`.
pub const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// `perfetto.protos.TracePacketDefaults` (trace_packet_defaults.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TracePacketDefaults {
    /// `TracePacketDefaults.timestamp_clock_id` = 58.
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    /// `TracePacketDefaults.track_event_defaults` = 11.
    #[prost(message, optional, tag = "11")]
    pub track_event_defaults: Option<TrackEventDefaults>,
}

/// `perfetto.protos.TrackEventDefaults` (track_event.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackEventDefaults {
    /// `TrackEventDefaults.track_uuid` = 11.
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    /// `TrackEventDefaults.extra_counter_track_uuids` = 31.
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    /// `TrackEventDefaults.extra_double_counter_track_uuids` = 45.
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
}

/// `perfetto.protos.TrackEvent` (track_event/track_event.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackEvent {
    /// `TrackEvent.type` = 9: 0 unspecified, 1 SLICE_BEGIN, 2 SLICE_END, 3 INSTANT, 4 COUNTER.
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    /// `TrackEvent.track_uuid` = 11.
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    /// `TrackEvent.name_iid` = 10 (oneof `name_field`) → `InternedData.event_names`.
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    /// `TrackEvent.name` = 23 (oneof `name_field`).
    #[prost(bytes = "vec", optional, tag = "23")]
    pub name: Option<Vec<u8>>,
    /// `TrackEvent.category_iids` = 3 → `InternedData.event_categories`.
    #[prost(uint64, repeated, packed = "false", tag = "3")]
    pub category_iids: Vec<u64>,
    /// `TrackEvent.categories` = 22.
    #[prost(bytes = "vec", repeated, tag = "22")]
    pub categories: Vec<Vec<u8>>,
    /// `TrackEvent.counter_value` = 30 (oneof `counter_value_field`).
    #[prost(int64, optional, tag = "30")]
    pub counter_value: Option<i64>,
    /// `TrackEvent.double_counter_value` = 44 (oneof `counter_value_field`).
    #[prost(double, optional, tag = "44")]
    pub double_counter_value: Option<f64>,
    /// `TrackEvent.extra_counter_track_uuids` = 31.
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    /// `TrackEvent.extra_counter_values` = 12.
    #[prost(int64, repeated, packed = "false", tag = "12")]
    pub extra_counter_values: Vec<i64>,
    /// `TrackEvent.extra_double_counter_track_uuids` = 45.
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
    /// `TrackEvent.extra_double_counter_values` = 46.
    #[prost(double, repeated, packed = "false", tag = "46")]
    pub extra_double_counter_values: Vec<f64>,
    /// `TrackEvent.debug_annotations` = 4.
    #[prost(message, repeated, tag = "4")]
    pub debug_annotations: Vec<DebugAnnotation>,
    /// `TrackEvent.task_execution` = 5.
    #[prost(message, optional, tag = "5")]
    pub task_execution: Option<TaskExecution>,
    /// `TrackEvent.log_message` = 21.
    #[prost(message, optional, tag = "21")]
    pub log_message: Option<LogMessage>,
    /// `TrackEvent.source_location` = 33 (oneof `source_location_field`).
    #[prost(message, optional, tag = "33")]
    pub source_location: Option<SourceLocation>,
    /// `TrackEvent.source_location_iid` = 34 (oneof) → `InternedData.source_locations`.
    #[prost(uint64, optional, tag = "34")]
    pub source_location_iid: Option<u64>,
    /// `TrackEvent.legacy_event` = 6.
    #[prost(message, optional, tag = "6")]
    pub legacy_event: Option<LegacyEvent>,
    /// `TrackEvent.timestamp_delta_us` = 1 (oneof `timestamp`, legacy µs, MONOTONIC).
    #[prost(int64, optional, tag = "1")]
    pub timestamp_delta_us: Option<i64>,
    /// `TrackEvent.timestamp_absolute_us` = 16 (oneof `timestamp`, legacy µs, MONOTONIC).
    #[prost(int64, optional, tag = "16")]
    pub timestamp_absolute_us: Option<i64>,
    /// `TrackEvent.thread_time_delta_us` = 2 (oneof `thread_time`, legacy).
    #[prost(int64, optional, tag = "2")]
    pub thread_time_delta_us: Option<i64>,
    /// `TrackEvent.thread_time_absolute_us` = 17 (oneof `thread_time`, legacy).
    #[prost(int64, optional, tag = "17")]
    pub thread_time_absolute_us: Option<i64>,
    /// `TrackEvent.thread_instruction_count_delta` = 8 (oneof, legacy).
    #[prost(int64, optional, tag = "8")]
    pub thread_instruction_count_delta: Option<i64>,
    /// `TrackEvent.thread_instruction_count_absolute` = 20 (oneof, legacy).
    #[prost(int64, optional, tag = "20")]
    pub thread_instruction_count_absolute: Option<i64>,
}

/// `TrackEvent.Type` values.
pub mod track_event_type {
    /// `TYPE_UNSPECIFIED`: look at `legacy_event.phase`.
    pub const UNSPECIFIED: i32 = 0;
    /// `TYPE_SLICE_BEGIN`.
    pub const SLICE_BEGIN: i32 = 1;
    /// `TYPE_SLICE_END`.
    pub const SLICE_END: i32 = 2;
    /// `TYPE_INSTANT`.
    pub const INSTANT: i32 = 3;
    /// `TYPE_COUNTER`.
    pub const COUNTER: i32 = 4;
}

/// `perfetto.protos.TrackEvent.LegacyEvent` (track_event.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LegacyEvent {
    /// `LegacyEvent.name_iid` = 1 (deprecated interned name).
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    /// `LegacyEvent.phase` = 2: ASCII of the JSON phase (`'X'`, `'B'`, `'E'`, `'I'`, …).
    #[prost(int32, optional, tag = "2")]
    pub phase: Option<i32>,
    /// `LegacyEvent.duration_us` = 3 (for `'X'`).
    #[prost(int64, optional, tag = "3")]
    pub duration_us: Option<i64>,
    /// `LegacyEvent.unscoped_id` = 6 (oneof `id`).
    #[prost(uint64, optional, tag = "6")]
    pub unscoped_id: Option<u64>,
    /// `LegacyEvent.local_id` = 10 (oneof `id`, process-scoped).
    #[prost(uint64, optional, tag = "10")]
    pub local_id: Option<u64>,
    /// `LegacyEvent.global_id` = 11 (oneof `id`).
    #[prost(uint64, optional, tag = "11")]
    pub global_id: Option<u64>,
    /// `LegacyEvent.id_scope` = 7.
    #[prost(bytes = "vec", optional, tag = "7")]
    pub id_scope: Option<Vec<u8>>,
    /// `LegacyEvent.instant_event_scope` = 14: 1 GLOBAL, 2 PROCESS, 3 THREAD.
    #[prost(int32, optional, tag = "14")]
    pub instant_event_scope: Option<i32>,
    /// `LegacyEvent.pid_override` = 18.
    #[prost(int32, optional, tag = "18")]
    pub pid_override: Option<i32>,
    /// `LegacyEvent.tid_override` = 19.
    #[prost(int32, optional, tag = "19")]
    pub tid_override: Option<i32>,
}

/// `perfetto.protos.DebugAnnotation` (debug_annotation.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct DebugAnnotation {
    /// `DebugAnnotation.name_iid` = 1 → `InternedData.debug_annotation_names`.
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    /// `DebugAnnotation.name` = 10.
    #[prost(bytes = "vec", optional, tag = "10")]
    pub name: Option<Vec<u8>>,
    /// `DebugAnnotation.bool_value` = 2.
    #[prost(bool, optional, tag = "2")]
    pub bool_value: Option<bool>,
    /// `DebugAnnotation.uint_value` = 3.
    #[prost(uint64, optional, tag = "3")]
    pub uint_value: Option<u64>,
    /// `DebugAnnotation.int_value` = 4.
    #[prost(int64, optional, tag = "4")]
    pub int_value: Option<i64>,
    /// `DebugAnnotation.double_value` = 5.
    #[prost(double, optional, tag = "5")]
    pub double_value: Option<f64>,
    /// `DebugAnnotation.string_value` = 6.
    #[prost(bytes = "vec", optional, tag = "6")]
    pub string_value: Option<Vec<u8>>,
    /// `DebugAnnotation.string_value_iid` = 17 → `InternedData.debug_annotation_string_values`.
    #[prost(uint64, optional, tag = "17")]
    pub string_value_iid: Option<u64>,
    /// `DebugAnnotation.pointer_value` = 7 (shown as hex).
    #[prost(uint64, optional, tag = "7")]
    pub pointer_value: Option<u64>,
    /// `DebugAnnotation.nested_value` = 8 (deprecated tree).
    #[prost(message, optional, tag = "8")]
    pub nested_value: Option<NestedValue>,
    /// `DebugAnnotation.legacy_json_value` = 9 (a JSON text).
    #[prost(bytes = "vec", optional, tag = "9")]
    pub legacy_json_value: Option<Vec<u8>>,
    /// `DebugAnnotation.dict_entries` = 11 (named children).
    #[prost(message, repeated, tag = "11")]
    pub dict_entries: Vec<DebugAnnotation>,
    /// `DebugAnnotation.array_values` = 12 (unnamed children).
    #[prost(message, repeated, tag = "12")]
    pub array_values: Vec<DebugAnnotation>,
}

/// `perfetto.protos.DebugAnnotation.NestedValue` (deprecated).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NestedValue {
    /// `NestedValue.nested_type` = 1: 0 leaf, 1 DICT, 2 ARRAY.
    #[prost(int32, optional, tag = "1")]
    pub nested_type: Option<i32>,
    /// `NestedValue.dict_keys` = 2.
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub dict_keys: Vec<Vec<u8>>,
    /// `NestedValue.dict_values` = 3.
    #[prost(message, repeated, tag = "3")]
    pub dict_values: Vec<NestedValue>,
    /// `NestedValue.array_values` = 4.
    #[prost(message, repeated, tag = "4")]
    pub array_values: Vec<NestedValue>,
    /// `NestedValue.int_value` = 5.
    #[prost(int64, optional, tag = "5")]
    pub int_value: Option<i64>,
    /// `NestedValue.double_value` = 6.
    #[prost(double, optional, tag = "6")]
    pub double_value: Option<f64>,
    /// `NestedValue.bool_value` = 7.
    #[prost(bool, optional, tag = "7")]
    pub bool_value: Option<bool>,
    /// `NestedValue.string_value` = 8.
    #[prost(bytes = "vec", optional, tag = "8")]
    pub string_value: Option<Vec<u8>>,
}

/// `perfetto.protos.TaskExecution` (task_execution.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TaskExecution {
    /// `TaskExecution.posted_from_iid` = 1 → `InternedData.source_locations`.
    #[prost(uint64, optional, tag = "1")]
    pub posted_from_iid: Option<u64>,
}

/// `perfetto.protos.LogMessage` (log_message.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogMessage {
    /// `LogMessage.source_location_iid` = 1 → `InternedData.source_locations`.
    #[prost(uint64, optional, tag = "1")]
    pub source_location_iid: Option<u64>,
    /// `LogMessage.body_iid` = 2 → `InternedData.log_message_body`.
    #[prost(uint64, optional, tag = "2")]
    pub body_iid: Option<u64>,
}

/// `perfetto.protos.SourceLocation` (source_location.proto); also an interned entry.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SourceLocation {
    /// `SourceLocation.iid` = 1.
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// `SourceLocation.file_name` = 2.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub file_name: Option<Vec<u8>>,
    /// `SourceLocation.function_name` = 3.
    #[prost(bytes = "vec", optional, tag = "3")]
    pub function_name: Option<Vec<u8>>,
    /// `SourceLocation.line_number` = 4.
    #[prost(uint32, optional, tag = "4")]
    pub line_number: Option<u32>,
}

/// `perfetto.protos.InternedData` (interned_data.proto), the fields the importer resolves.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InternedData {
    /// `InternedData.event_categories` = 1 (`EventCategory{iid=1, name=2}`).
    #[prost(message, repeated, tag = "1")]
    pub event_categories: Vec<InternedName>,
    /// `InternedData.event_names` = 2 (`EventName{iid=1, name=2}`).
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<InternedName>,
    /// `InternedData.debug_annotation_names` = 3 (`DebugAnnotationName{iid=1, name=2}`).
    #[prost(message, repeated, tag = "3")]
    pub debug_annotation_names: Vec<InternedName>,
    /// `InternedData.debug_annotation_string_values` = 29 (`InternedString{iid=1, str=2}`).
    #[prost(message, repeated, tag = "29")]
    pub debug_annotation_string_values: Vec<InternedName>,
    /// `InternedData.source_locations` = 4.
    #[prost(message, repeated, tag = "4")]
    pub source_locations: Vec<SourceLocation>,
    /// `InternedData.log_message_body` = 20 (`LogMessageBody{iid=1, body=2}`).
    #[prost(message, repeated, tag = "20")]
    pub log_message_body: Vec<InternedName>,
}

/// An interned `(iid, text)` entry. Shared layout of `EventCategory`, `EventName`,
/// `DebugAnnotationName`, `InternedString` and `LogMessageBody`: iid = 1, text = 2.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InternedName {
    /// `*.iid` = 1.
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// `*.name` / `InternedString.str` / `LogMessageBody.body` = 2.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub name: Option<Vec<u8>>,
}

/// `perfetto.protos.TrackDescriptor` (track_descriptor.proto). The process, thread and
/// counter parts are boxed: the importer keeps every descriptor until the end (23k on
/// Chromium's 59 MB trace), most with none of them, so each costs 136 bytes, not 368.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrackDescriptor {
    /// `TrackDescriptor.uuid` = 1.
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    /// `TrackDescriptor.parent_uuid` = 5.
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
    /// `TrackDescriptor.name` = 2 (oneof `static_or_dynamic_name`).
    #[prost(bytes = "vec", optional, tag = "2")]
    pub name: Option<Vec<u8>>,
    /// `TrackDescriptor.static_name` = 10 (oneof).
    #[prost(bytes = "vec", optional, tag = "10")]
    pub static_name: Option<Vec<u8>>,
    /// `TrackDescriptor.atrace_name` = 13 (oneof).
    #[prost(bytes = "vec", optional, tag = "13")]
    pub atrace_name: Option<Vec<u8>>,
    /// `TrackDescriptor.process` = 3.
    #[prost(message, optional, boxed, tag = "3")]
    pub process: Option<Box<ProcessDescriptor>>,
    /// `TrackDescriptor.thread` = 4.
    #[prost(message, optional, boxed, tag = "4")]
    pub thread: Option<Box<ThreadDescriptor>>,
    /// `TrackDescriptor.counter` = 8.
    #[prost(message, optional, boxed, tag = "8")]
    pub counter: Option<Box<CounterDescriptor>>,
    /// `TrackDescriptor.sibling_merge_behavior` = 15: 0 unspecified, 1 BY_TRACK_NAME, 2 NONE
    /// (with NONE, the last name emitted wins).
    #[prost(int32, optional, tag = "15")]
    pub sibling_merge_behavior: Option<i32>,
}

/// `perfetto.protos.ProcessDescriptor` (process_descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcessDescriptor {
    /// `ProcessDescriptor.pid` = 1.
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// `ProcessDescriptor.cmdline` = 2.
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub cmdline: Vec<Vec<u8>>,
    /// `ProcessDescriptor.legacy_sort_index` = 3.
    #[prost(int32, optional, tag = "3")]
    pub legacy_sort_index: Option<i32>,
    /// `ProcessDescriptor.process_name` = 6.
    #[prost(bytes = "vec", optional, tag = "6")]
    pub process_name: Option<Vec<u8>>,
    /// `ProcessDescriptor.process_labels` = 8.
    #[prost(bytes = "vec", repeated, tag = "8")]
    pub process_labels: Vec<Vec<u8>>,
}

/// `perfetto.protos.ThreadDescriptor` (thread_descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ThreadDescriptor {
    /// `ThreadDescriptor.pid` = 1.
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// `ThreadDescriptor.tid` = 2 (int64 on the wire since 2023; int32 before, same varint).
    #[prost(int64, optional, tag = "2")]
    pub tid: Option<i64>,
    /// `ThreadDescriptor.legacy_sort_index` = 3.
    #[prost(int32, optional, tag = "3")]
    pub legacy_sort_index: Option<i32>,
    /// `ThreadDescriptor.thread_name` = 5.
    #[prost(bytes = "vec", optional, tag = "5")]
    pub thread_name: Option<Vec<u8>>,
    /// `ThreadDescriptor.reference_timestamp_us` = 6 (µs base for `timestamp_delta_us`).
    #[prost(int64, optional, tag = "6")]
    pub reference_timestamp_us: Option<i64>,
    /// `ThreadDescriptor.reference_thread_time_us` = 7 (base for `thread_time_delta_us`).
    #[prost(int64, optional, tag = "7")]
    pub reference_thread_time_us: Option<i64>,
    /// `ThreadDescriptor.reference_thread_instruction_count` = 8.
    #[prost(int64, optional, tag = "8")]
    pub reference_thread_instruction_count: Option<i64>,
}

/// `perfetto.protos.CounterDescriptor` (counter_descriptor.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CounterDescriptor {
    /// `CounterDescriptor.type` = 1: 1 THREAD_TIME_NS, 2 THREAD_INSTRUCTION_COUNT.
    #[prost(int32, optional, tag = "1")]
    pub r#type: Option<i32>,
    /// `CounterDescriptor.unit` = 3: 1 TIME_NS, 2 COUNT, 3 SIZE_BYTES.
    #[prost(int32, optional, tag = "3")]
    pub unit: Option<i32>,
    /// `CounterDescriptor.unit_name` = 6.
    #[prost(bytes = "vec", optional, tag = "6")]
    pub unit_name: Option<Vec<u8>>,
    /// `CounterDescriptor.unit_multiplier` = 4.
    #[prost(int64, optional, tag = "4")]
    pub unit_multiplier: Option<i64>,
    /// `CounterDescriptor.is_incremental` = 5.
    #[prost(bool, optional, tag = "5")]
    pub is_incremental: Option<bool>,
}

/// `perfetto.protos.ClockSnapshot` (clock_snapshot.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ClockSnapshot {
    /// `ClockSnapshot.clocks` = 1.
    #[prost(message, repeated, tag = "1")]
    pub clocks: Vec<Clock>,
    /// `ClockSnapshot.primary_trace_clock` = 2 (a `BuiltinClock`).
    #[prost(int32, optional, tag = "2")]
    pub primary_trace_clock: Option<i32>,
}

/// `perfetto.protos.ClockSnapshot.Clock`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Clock {
    /// `Clock.clock_id` = 1.
    #[prost(uint32, optional, tag = "1")]
    pub clock_id: Option<u32>,
    /// `Clock.timestamp` = 2 (in units of `unit_multiplier_ns`).
    #[prost(uint64, optional, tag = "2")]
    pub timestamp: Option<u64>,
    /// `Clock.is_incremental` = 3.
    #[prost(bool, optional, tag = "3")]
    pub is_incremental: Option<bool>,
    /// `Clock.unit_multiplier_ns` = 4.
    #[prost(uint64, optional, tag = "4")]
    pub unit_multiplier_ns: Option<u64>,
}

/// `perfetto.protos.ProcessTree` (ps/process_tree.proto).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcessTree {
    /// `ProcessTree.processes` = 1.
    #[prost(message, repeated, tag = "1")]
    pub processes: Vec<ProcessTreeProcess>,
    /// `ProcessTree.threads` = 2.
    #[prost(message, repeated, tag = "2")]
    pub threads: Vec<ProcessTreeThread>,
}

/// `perfetto.protos.ProcessTree.Process`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcessTreeProcess {
    /// `Process.pid` = 1.
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    /// `Process.cmdline` = 3.
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub cmdline: Vec<Vec<u8>>,
}

/// `perfetto.protos.ProcessTree.Thread`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcessTreeThread {
    /// `Thread.tid` = 1.
    #[prost(int32, optional, tag = "1")]
    pub tid: Option<i32>,
    /// `Thread.name` = 2.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub name: Option<Vec<u8>>,
    /// `Thread.tgid` = 3.
    #[prost(int32, optional, tag = "3")]
    pub tgid: Option<i32>,
}

/// `tensorflow.profiler.XPlane` (xplane.proto), only to recognise `.xplane.pb` files.
#[derive(Clone, PartialEq, prost::Message)]
pub struct XPlane {
    /// `XPlane.id` = 1.
    #[prost(int64, optional, tag = "1")]
    pub id: Option<i64>,
    /// `XPlane.name` = 2 (`/host:CPU`, `/device:GPU:0`, …).
    #[prost(bytes = "vec", optional, tag = "2")]
    pub name: Option<Vec<u8>>,
}

/// `perfetto.protos.Trace` framing helper for tests: wraps packets as `0x0A <len> <bytes>`.
pub fn encode_trace(packets: &[TracePacket]) -> Vec<u8> {
    use prost::Message;
    let mut out = Vec::new();
    for p in packets {
        let body = p.encode_to_vec();
        out.push(0x0a);
        prost::encoding::encode_varint(body.len() as u64, &mut out);
        out.extend_from_slice(&body);
    }
    out
}
