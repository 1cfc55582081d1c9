//! The per-file resource budget (issue #10): every ceiling an import enforces, in one place, so
//! the README's "Limits" section and the importers cannot disagree. Past a ceiling an import
//! stops or skips with a diagnostic naming the limit (data loss), or — for the container —
//! fails that file alone; the other files load.
//!
//! The memory bound these serve: peak ≤ [`BASE_MEMORY_BYTES`] + [`MEMORY_PER_INPUT_BYTE`] × the
//! decompressed size, for any input.

/// Fixed part of the per-file memory budget, bytes.
pub const BASE_MEMORY_BYTES: u64 = 512 << 20;

/// Model bytes allowed per decompressed input byte, on top of [`BASE_MEMORY_BYTES`].
pub const MEMORY_PER_INPUT_BYTE: u64 = 3;

/// The model size (bytes, `Model::heap_bytes`) an import may reach after
/// reading `decompressed` bytes: past it the import stops with `memory_budget_reached`.
pub const fn model_budget(decompressed: u64) -> u64 {
    BASE_MEMORY_BYTES.saturating_add(decompressed.saturating_mul(MEMORY_PER_INPUT_BYTE))
}

/// Arguments kept per event (JSON `args` members, Perfetto `debug_annotations`); the rest of
/// an event's arguments are counted (`args_over_limit`) and dropped. 65,536: B/E pairs with
/// 60 k args each are real input (issue 10) and keep all their args.
pub const MAX_ARGS_PER_EVENT: usize = 1 << 16;

/// JSON value nodes (scalars, arrays, objects) per event's `args`, nested values included;
/// past it the rest of the value is skipped without being built and counted. Above
/// [`MAX_ARGS_PER_EVENT`] (every member is at least one node, so a lower value would make
/// the member limit unreachable); nodes are only counted, never built, so memory is bounded
/// by [`MAX_ARG_BYTES_PER_EVENT`].
pub const MAX_JSON_NODES_PER_EVENT: usize = 1 << 18;

/// Bytes of argument text (keys, strings, rendered nested values) kept per event.
pub const MAX_ARG_BYTES_PER_EVENT: usize = 1 << 20;

/// Bytes of one JSON event (one element of `traceEvents`) or one Perfetto packet an importer
/// buffers; a longer one is skipped and counted.
pub const MAX_EVENT_BYTES: usize = 64 << 20;

/// Tracks (threads, processes, async and counter tracks) per file; events for further tracks
/// are counted (`tracks_over_limit`) and dropped.
pub const MAX_TRACKS: usize = 1 << 20;

/// Compile records per record file; further entries are counted and dropped.
pub const MAX_RECORDS: usize = 1 << 20;

/// Excluded record entries (malformed, other kind) listed one by one per file, each list on
/// its own; further ones are only counted.
pub const MAX_EXCLUDED_LISTED: usize = 1000;
