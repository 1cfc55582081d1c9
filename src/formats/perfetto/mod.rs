//! Perfetto protobuf importer (trace-formats.md §1–6). STUB: being written.

use crate::model::Model;

/// Imports a decompressed Perfetto trace into `model`, packet by packet.
pub fn import(_data: &[u8], _model: &mut Model, _progress: &mut dyn FnMut(f64)) {}

/// True when `data` starts like a Perfetto trace (first record is a plausible TracePacket).
pub fn looks_like_trace(data: &[u8]) -> bool {
    data.first() == Some(&0x0a)
}

/// True when `data` looks like an XSpace (`.xplane.pb`) rather than a Perfetto trace.
pub fn looks_like_xspace(_data: &[u8]) -> bool {
    false
}
