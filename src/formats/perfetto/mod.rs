//! Perfetto protobuf importer (trace-formats.md §1–5).
//!
//! Streaming over the `Trace` framing (`0x0A <varint len> <TracePacket>` records, other
//! top-level fields skipped by wire type); each packet is decoded on its own with the trimmed
//! prost messages of [`proto`]. Two passes:
//! 1. a cheap field walk that collects every `clock_snapshot` (machine-wide clocks) and every
//!    `track_descriptor`, so timestamps can be converted and tracks resolved even when a
//!    descriptor or snapshot comes later in file order;
//! 2. the full import, applying per-sequence incremental state (§5.1) in sequence order.
//!
//! Slices go through a [`SliceSink`] (its `SliceBuilder` pairs per track in timestamp order), counters into
//! [`Model::counters`]; thread, process, global, async and counter tracks are created through
//! the tracker shared with the JSON importer (`formats::tracks`). Anomalies are counted in [`Model::diagnostics`] with Perfetto-stats style
//! names (`packet_loss`, `truncated_packet`, `packet_decode_error`, `interned_id_unknown`,
//! `track_uuid_unknown`, `counter_without_track`, `counter_without_value`,
//! `invalid_utf8_repaired`, `incremental_state_invalid_packet_dropped`, …); import never fails.

pub mod clock;
pub mod proto;
pub mod synthetic;
mod view;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use prost::Message;

use super::chrome_json::MAX_ABS_TS_NS;
use super::limits;
use super::tracks::{Layout, TrackTracker};
use crate::model::diagnostics::Kind as Diag;
use crate::model::nested::enc;
use crate::model::{
    normalize_path, ArgValue, ArgsId, CounterSeries, FrameId, FrameKey, Model, ProcessInfo,
    Provider, SliceEvents, SliceSink, StrId, ThreadInfo, TrackId, TrackKind,
};
use clock::ClockGraph;
use proto::*;

/// Ceiling on the bytes one `compressed_packets` bundle may inflate to.
const MAX_BUNDLE_BYTES: u64 = 256 << 20;
/// Ceiling on the total bytes all bundles of one trace may inflate to.
const MAX_TOTAL_BUNDLE_BYTES: u64 = 2 << 30;
/// Nesting limit of `compressed_packets` inside `compressed_packets`.
const MAX_BUNDLE_DEPTH: u32 = 4;
/// Ceiling on track descriptors kept (far above real traces: Chromium's 59 MB trace has 23k).
const MAX_DESCRIPTORS: usize = 1 << 20;
/// Ceiling on distinct packet sequences (each holds its own interning tables).
const MAX_SEQUENCES: usize = 1 << 16;

/// Imports a decompressed Perfetto trace held in memory into `model` (see [`import_stream`]).
pub(crate) fn import(data: &[u8], model: &mut Model, progress: &mut dyn FnMut(f64)) {
    import_stream(
        &mut super::stream::Window::from_bytes(data),
        model,
        progress,
    )
}

/// What the field walk (`testing::perfetto_field_walk`) went over: packets, track events,
/// debug annotations read, and packets that did not decode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkCounts {
    /// Top-level `packet` fields (`Trace.packet` = 1).
    pub packets: u64,
    /// Packets with a `track_event`.
    pub track_events: u64,
    /// Inline debug annotations read (at most `INLINE_ANNOTATIONS` = 6 per event).
    pub annotations: u64,
    /// Packets the walk rejected (as prost would).
    pub broken: u64,
}

/// The decode floor of the Perfetto import, for the benchmark harnesses (`bench --stages`):
/// the zero-copy field walk the importer makes over a decompressed trace held in memory —
/// each `TracePacket`'s fields, its `TrackEvent`'s, and the top level of each inline debug
/// annotation — with nothing kept and no model built. What the import takes beyond this is
/// the model's building. Stops at the first top-level field that does not decode.
pub(crate) fn field_walk(data: &[u8]) -> WalkCounts {
    let mut n = WalkCounts::default();
    let mut rd = view::Rd::new(data);
    while let Ok(Some((num, wt))) = rd.field() {
        if num != 1 {
            if rd.skip(num, wt).is_err() {
                break;
            }
            continue;
        }
        let Ok(body) = rd.len(wt) else { break };
        n.packets += 1;
        let mut p = view::PacketView::default();
        let valid = view::PacketView::parse_into(&mut p, body).and_then(|()| p.validate_deferred());
        if valid.is_err() {
            n.broken += 1;
            continue;
        }
        if let Some(ev) = &p.track_event {
            n.track_events += 1;
            for a in ev.annotations.iter().take(ev.n_debug_annotations) {
                std::hint::black_box(view::AnnView::parse(a));
                n.annotations += 1;
            }
        }
        std::hint::black_box(&p);
    }
    n
}

/// Packets between two checks of the model size against [`limits::model_budget`].
const BUDGET_CHECK_EVERY: u64 = 1 << 16;

/// Imports a Perfetto trace from a decompressed stream into `model`, packet by packet, never
/// holding more of the stream than one packet (at most [`limits::MAX_EVENT_BYTES`]; a longer
/// one is skipped and counted as `packet_too_large`). Never fails: broken records are counted
/// in `model.diagnostics`; `model.stats.events` receives the number of packets (nested ones
/// included). `progress` gets fractions in [0, 1] about every 1 MB.
///
/// One pass in the common case: clock snapshots and track descriptors are applied as they come.
/// When one comes *late* — a descriptor for a track uuid already used, or a clock snapshot that
/// would change a conversion already made — the pass goes on collecting only snapshots and
/// descriptors, and the trace is imported again from a fresh read of the source
/// ([`Window::reopen`](super::stream::Window::reopen): inflating again is cheaper than holding
/// the trace), with every snapshot and descriptor known up front. Either way the model is the
/// one a two-pass import (all snapshots and descriptors first) gives.
pub(crate) fn import_stream(
    win: &mut super::stream::Window<'_>,
    model: &mut Model,
    progress: &mut dyn FnMut(f64),
) {
    import_passes(win, model, progress, false);
}

/// [`import_stream`]; with `two_pass`, the first pass only collects snapshots and descriptors
/// (the reference the one pass must equal: a test hook). Returns the passes made (1 or 2).
pub(crate) fn import_passes(
    win: &mut super::stream::Window<'_>,
    model: &mut Model,
    progress: &mut dyn FnMut(f64),
    two_pass: bool,
) -> u32 {
    // Progress never goes back, across both passes.
    let last = std::cell::Cell::new(0.0f64);
    let mut report = |f: f64| {
        if f > last.get() {
            last.set(f);
            progress(f);
        }
    };
    let (clocks, descriptors) = {
        let mut imp = Importer::new(model);
        imp.collect = true;
        imp.late = two_pass;
        imp.run_window(win, &mut |f| report(0.95 * f));
        if !imp.late {
            imp.finish();
            report(1.0);
            return 1;
        }
        (
            std::mem::take(&mut imp.clocks),
            std::mem::take(&mut imp.descriptors),
        )
    };
    // A late snapshot or descriptor: import again with all of them known.
    *model = Model::default();
    let mut imp = Importer::new(model);
    imp.clocks = clocks;
    imp.clocks.finish();
    imp.descriptors = descriptors;
    if let Some(Ok(mut again)) = win.reopen() {
        let from = last.get();
        imp.run_window(&mut again, &mut |f| report(from + (0.95 - from) * f));
    }
    imp.finish();
    report(1.0);
    2
}

/// True when `data` starts like a Perfetto trace: its first records are `Trace.packet` fields,
/// and one of the first eight walks as well-formed protobuf (or is cut off by the end of
/// `data`) containing a known `TracePacket` tag. An odd packet before it (unknown fields only,
/// or malformed) is passed over: one such packet put first made a whole trace unreadable.
pub(crate) fn looks_like_trace(data: &[u8]) -> bool {
    if looks_like_xspace(data) {
        return false;
    }
    let mut pos = 0usize;
    for _ in 0..8 {
        let Some((tag, p)) = read_varint(data, pos) else {
            return false;
        };
        if tag != 0x0a {
            return false;
        }
        let Some((len, p)) = read_varint(data, p) else {
            return false;
        };
        let end = p
            .saturating_add(usize::try_from(len).unwrap_or(usize::MAX))
            .min(data.len());
        // An empty packet has no known tag: the next one is tried, as after an odd one.
        let body = &data[p..end];
        const KNOWN: &[u32] = &[
            2, 3, 5, 6, 8, 10, 11, 12, 13, 33, 35, 36, 41, 42, 43, 44, 45, 50, 51, 54, 58, 59, 60,
            66, 69, 79, 87, 89, 133,
        ];
        let mut known = false;
        let mut ok = true;
        let complete = usize::try_from(len).is_ok_and(|l| l <= data.len() - p);
        if !complete {
            // The file was cut inside this record, perhaps inside its first field (a clock
            // snapshot of 85 bytes in a trace cut to 84): that field's key still counts.
            known |= read_varint(body, 0).is_some_and(|(key, _)| {
                u32::try_from(key >> 3).is_ok_and(|n| KNOWN.contains(&n))
                    && matches!(key & 7, 0 | 1 | 2 | 5)
            });
        }
        for f in FieldIter::new(body) {
            match f {
                Some((num, _)) => known |= KNOWN.contains(&num),
                None => ok = false,
            }
        }
        // A cut-off record (a truncated file) may end mid-field.
        if known && (ok || !complete) {
            return true;
        }
        if end >= data.len() {
            return false;
        }
        pos = end;
    }
    false
}

/// True when `data` looks like an XSpace (`.xplane.pb`) rather than a Perfetto trace: the first
/// record is an `XPlane` (see [`proto::XPlane`]) whose `name` (field 2) is `/host:…`,
/// `/device:…` or `Task Environment`. Only the leading fields of the record are walked.
pub(crate) fn looks_like_xspace(data: &[u8]) -> bool {
    let Some((tag, p)) = read_varint(data, 0) else {
        return false;
    };
    if tag != 0x0a {
        return false;
    }
    let Some((len, p)) = read_varint(data, p) else {
        return false;
    };
    let end = p
        .saturating_add(usize::try_from(len).unwrap_or(usize::MAX))
        .min(data.len());
    // Only the leading fields matter; decode a prefix that holds id and name.
    let mut name: Option<Vec<u8>> = None;
    for f in FieldIter::new(&data[p..end]) {
        match f {
            Some((2, Field::Len(b))) => {
                name = Some(b.to_vec());
                break;
            }
            Some(_) => {}
            None => break,
        }
    }
    match name {
        Some(n) => {
            n.starts_with(b"/host:") || n.starts_with(b"/device:") || n == b"Task Environment"
        }
        None => false,
    }
}

/// A fast hasher for the importer's small keys (iids, uuids, sequence ids, frame keys): each
/// written word is folded in with the SplitMix64 finaliser. Keys come from the trace, so this
/// trades DoS resistance for speed; a crafted trace can only make an import slower, not wrong.
#[derive(Default, Clone, Copy)]
struct FastHasher(u64);

fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FastHasher {
    #[inline]
    fn add(&mut self, v: u64) {
        self.0 = splitmix(self.0 ^ v).wrapping_add(0x9e37_79b9_7f4a_7c15);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.add(u64::from(v));
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
    #[inline]
    fn write_i64(&mut self, v: i64) {
        self.add(v as u64);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// The arg sets of events whose debug annotations repeat byte for byte on a sequence (in
/// Chromium's `heavy_default` trace 387,091 events carry annotations, in 68,177 distinct sets
/// per sequence): a repeat takes the [`ArgsId`] built the first time instead of walking,
/// interning and encoding its annotations again. Sets are immutable once built
/// ([`crate::model::args::ArgSets::merge`] makes a new one), so slices may share one.
///
/// An entry is found by the sequence's [`SeqState::args_gen`] and a hash of the annotations'
/// bytes, and taken only when the bytes it keeps equal the event's: a hash collision, chance
/// or crafted, costs a rebuild, never another event's args. Only sets of up to
/// [`view::INLINE_ANNOTATIONS`] annotations whose building counted no diagnostic are cached.
/// Memory: at most [`ArgsCache::MAX`] entries and [`ArgsCache::MAX_BYTES`] of kept bytes
/// (about 8 MiB in all, counted in the import's budget); the cache is emptied when either is
/// full.
#[derive(Default)]
struct ArgsCache {
    /// (generation, hash) → (start of the kept bytes in `bytes`, their length, the set).
    map: FastMap<(u64, u64), (u32, u32, ArgsId)>,
    /// Each entry's annotations, each as its length (4 bytes, little-endian) then its bytes.
    bytes: Vec<u8>,
    seed: foldhash::quality::RandomState,
    gens: u64,
}

impl ArgsCache {
    /// Entries held at most.
    const MAX: usize = 1 << 16;
    /// Bytes of annotations kept at most.
    const MAX_BYTES: usize = 4 << 20;

    /// A generation number not used before (never 0).
    fn next_gen(&mut self) -> u64 {
        self.gens += 1;
        self.gens
    }

    /// The hash of an entry's annotations (the second half of its key).
    fn hash(&self, annotations: &[&[u8]]) -> u64 {
        use std::hash::BuildHasher;
        let mut h = self.seed.build_hasher();
        for x in annotations {
            h.write_usize(x.len());
            h.write(x);
        }
        h.finish()
    }

    /// The set kept for `key` when its bytes are `annotations`.
    fn get(&self, key: &(u64, u64), annotations: &[&[u8]]) -> Option<ArgsId> {
        let &(start, len, id) = self.map.get(key)?;
        let mut kept = self
            .bytes
            .get(start as usize..start as usize + len as usize)?;
        for x in annotations {
            let (n, rest) = kept.split_first_chunk::<4>()?;
            let n = u32::from_le_bytes(*n) as usize;
            if n != x.len() || rest.get(..n)? != *x {
                return None;
            }
            kept = &rest[n..];
        }
        kept.is_empty().then_some(id)
    }

    fn insert(&mut self, key: (u64, u64), annotations: &[&[u8]], id: ArgsId) {
        let len: usize = annotations.iter().map(|x| 4 + x.len()).sum();
        if len > Self::MAX_BYTES {
            return;
        }
        if self.map.len() >= Self::MAX || self.bytes.len() + len > Self::MAX_BYTES {
            self.map.clear();
            self.bytes.clear();
        }
        let start = self.bytes.len();
        for x in annotations {
            self.bytes
                .extend_from_slice(&(x.len() as u32).to_le_bytes());
            self.bytes.extend_from_slice(x);
        }
        self.map.insert(key, (start as u32, len as u32, id));
    }

    fn heap_bytes(&self) -> usize {
        self.map.capacity() * (std::mem::size_of::<((u64, u64), (u32, u32, ArgsId))>() + 1)
            + self.bytes.capacity()
    }
}

/// What [`Importer::vouch`] found for a packet's deferred debug annotations.
#[derive(Clone, Copy)]
struct Vouched {
    /// Where their bytes start (so [`Importer::args`] knows they are the same ones).
    at: usize,
    /// Their [`ArgsCache::hash`].
    hash: u64,
    /// The cached set their bytes found under the sequence's generation then, and that
    /// generation.
    hit: Option<(u64, ArgsId)>,
}

/// Perfetto thread tracks are children of their process's track; the global track is unnamed.
const LAYOUT: Layout = Layout {
    threads_under_processes: true,
    global_name: "",
};

// ------------------------------------------------------------------------------------------
// Wire helpers
// ------------------------------------------------------------------------------------------

/// Why [`read_varint`] at `pos` gave `None`: true when the varint is overlong (ten bytes, all
/// with the continuation bit: corrupt bytes), false when `data` ends inside it (cut off).
fn varint_overlong(data: &[u8], pos: usize) -> bool {
    data.len().saturating_sub(pos) >= 10
}

/// Reads a base-128 varint at `pos`; `None` when truncated or longer than 10 bytes
/// ([`varint_overlong`] tells which).
fn read_varint(data: &[u8], mut pos: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for shift in 0..10 {
        let b = *data.get(pos)?;
        pos += 1;
        v |= u64::from(b & 0x7f) << (7 * shift);
        if b & 0x80 == 0 {
            return Some((v, pos));
        }
    }
    None
}

/// One field of a message as seen by a wire walk.
enum Field<'a> {
    Varint,
    Len(&'a [u8]),
    Fixed,
}

/// Walks the fields of one message; yields `None` once on malformed input, then stops.
struct FieldIter<'a> {
    data: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> FieldIter<'a> {
    fn new(data: &'a [u8]) -> Self {
        FieldIter {
            data,
            pos: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for FieldIter<'a> {
    type Item = Option<(u32, Field<'a>)>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.data.len() {
            return None;
        }
        let r = (|| {
            let (tag, p) = read_varint(self.data, self.pos)?;
            let num = u32::try_from(tag >> 3).ok().filter(|&n| n != 0)?;
            let (field, p) = match tag & 7 {
                0 => {
                    let (_, p) = read_varint(self.data, p)?;
                    (Field::Varint, p)
                }
                1 => (Field::Fixed, p.checked_add(8)?),
                2 => {
                    let (len, p) = read_varint(self.data, p)?;
                    let end = p.checked_add(usize::try_from(len).ok()?)?;
                    (Field::Len(self.data.get(p..end)?), end)
                }
                5 => (Field::Fixed, p.checked_add(4)?),
                _ => return None,
            };
            if p > self.data.len() {
                return None;
            }
            self.pos = p;
            Some((num, field))
        })();
        if r.is_none() {
            self.done = true;
        }
        Some(r)
    }
}

/// Inflates a `compressed_packets` payload (zlib, or gzip as TP also accepts).
fn inflate(payload: &[u8], limit: u64) -> Result<Vec<u8>, crate::formats::ImportError> {
    if payload.starts_with(&[0x1f, 0x8b]) {
        crate::formats::read_limited(flate2::read::MultiGzDecoder::new(payload), limit, "gzip")
    } else {
        crate::formats::read_limited(flate2::read::ZlibDecoder::new(payload), limit, "zlib")
    }
}

/// A `Trace` stream record: either a packet body or the reason the stream stopped.
enum Record<'a> {
    Packet { body: &'a [u8] },
    Truncated { offset: usize },
    Garbage { offset: usize },
}

/// Iterates the `Trace.packet` records of a stream, skipping other top-level fields.
struct Records<'a> {
    data: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> Records<'a> {
    fn new(data: &'a [u8]) -> Self {
        Records {
            data,
            pos: 0,
            done: false,
        }
    }
}

impl Records<'_> {
    /// The record at `offset` whose varint at `at` did not read: corrupt when overlong, else
    /// cut off by the end of the data.
    fn bad_varint(&self, offset: usize, at: usize) -> Record<'static> {
        if varint_overlong(self.data, at) {
            Record::Garbage { offset }
        } else {
            Record::Truncated { offset }
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;
    fn next(&mut self) -> Option<Record<'a>> {
        while !self.done && self.pos < self.data.len() {
            let offset = self.pos;
            let Some((tag, p)) = read_varint(self.data, self.pos) else {
                self.done = true;
                return Some(self.bad_varint(offset, offset));
            };
            let wt = tag & 7;
            let num = tag >> 3;
            if num == 0 || wt == 3 || wt == 4 || wt > 5 {
                self.done = true;
                return Some(Record::Garbage { offset });
            }
            let skip_to = match wt {
                0 | 2 if read_varint(self.data, p).is_none() => {
                    self.done = true;
                    return Some(self.bad_varint(offset, p));
                }
                0 => read_varint(self.data, p).map(|(_, p)| p),
                1 => p.checked_add(8),
                5 => p.checked_add(4),
                _ => match read_varint(self.data, p) {
                    Some((len, q)) => usize::try_from(len).ok().and_then(|l| q.checked_add(l)),
                    None => None,
                },
            };
            let Some(end) = skip_to.filter(|&e| e <= self.data.len()) else {
                self.done = true;
                return Some(Record::Truncated { offset });
            };
            self.pos = end;
            if num == 1 && wt == 2 {
                let body_start = match read_varint(self.data, p) {
                    Some((_, q)) => q,
                    None => end,
                };
                return Some(Record::Packet {
                    body: &self.data[body_start..end],
                });
            }
        }
        None
    }
}

/// Adds a track descriptor to `descriptors`, merging into an earlier one of the same uuid as
/// trace_processor does. Returns whether anything changed. Clones only what it keeps: a
/// descriptor sent again unchanged (Chromium repeats each after every incremental-state clear)
/// costs no allocation.
fn add_descriptor(descriptors: &mut FastMap<u64, TrackDescriptor>, d: &TrackDescriptor) -> bool {
    let Some(uuid) = d.uuid else { return false };
    match descriptors.get_mut(&uuid) {
        None => {
            if descriptors.len() < MAX_DESCRIPTORS {
                descriptors.insert(uuid, d.clone());
                true
            } else {
                false
            }
        }
        Some(old) => {
            // Each field is replaced only when it differs, so `changed` is whether the merged
            // descriptor differs from the one before.
            fn fill<T: Clone + PartialEq>(old: &mut T, new: &T) -> bool {
                let differs = old != new;
                if differs {
                    old.clone_from(new);
                }
                differs
            }
            let mut changed = false;
            // TP: the first non-null name wins (the last one with merge behaviour NONE);
            // fill in what the first copy lacked.
            let merge_none =
                d.sibling_merge_behavior == Some(2) || old.sibling_merge_behavior == Some(2);
            if desc_name(old).is_none() || (merge_none && desc_name(d).is_some()) {
                changed |= fill(&mut old.name, &d.name);
                changed |= fill(&mut old.static_name, &d.static_name);
                changed |= fill(&mut old.atrace_name, &d.atrace_name);
            }
            if old.parent_uuid.is_none() {
                changed |= fill(&mut old.parent_uuid, &d.parent_uuid);
            }
            if old.process.is_none() {
                changed |= fill(&mut old.process, &d.process);
            }
            if old.thread.is_none() {
                changed |= fill(&mut old.thread, &d.thread);
            }
            if old.counter.is_none() {
                changed |= fill(&mut old.counter, &d.counter);
            }
            changed
        }
    }
}

/// The machine-wide readings of a clock snapshot, as [`ClockGraph::add_snapshot`] takes them.
fn snapshot_readings(s: &ClockSnapshot) -> (Vec<(u32, i64, i64)>, Option<u32>) {
    let readings: Vec<(u32, i64, i64)> = s
        .clocks
        .iter()
        .filter_map(|c| {
            let id = c.clock_id?;
            let mult = mult_of(c.unit_multiplier_ns);
            Some((id, scale(c.timestamp.unwrap_or(0), mult), mult))
        })
        .collect();
    let primary = s.primary_trace_clock.and_then(|p| u32::try_from(p).ok());
    (readings, primary)
}

fn desc_name(d: &TrackDescriptor) -> Option<&[u8]> {
    d.name
        .as_deref()
        .or(d.static_name.as_deref())
        .or(d.atrace_name.as_deref())
        .filter(|n| !n.is_empty())
}

fn mult_of(m: Option<u64>) -> i64 {
    m.filter(|&m| m > 0)
        .and_then(|m| i64::try_from(m).ok())
        .unwrap_or(1)
}

/// `v × mult` as i64, saturating.
fn scale(v: u64, mult: i64) -> i64 {
    let r = i128::from(v) * i128::from(mult);
    r.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

fn scale_i(v: i64, mult: i64) -> i64 {
    let r = i128::from(v) * i128::from(mult);
    r.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

// ------------------------------------------------------------------------------------------
// Pass 2
// ------------------------------------------------------------------------------------------

/// A resolved interned source location.
#[derive(Clone, Copy)]
struct SrcLoc {
    file: StrId,
    function: StrId,
    line: Option<u32>,
}

/// The first sequence-scoped clock id ([`clock::is_sequence_scoped`]: 64–127).
const SEQ_CLOCK_BASE: u32 = 64;

/// A sequence-scoped clock (ids 64–127) of one sequence.
#[derive(Clone, Copy)]
struct SeqClock {
    incremental: bool,
    mult: i64,
    /// Last value of this clock in ns (incremental accumulator).
    last_ns: i64,
    /// Value of this clock (ns) in its latest snapshot.
    snap_ns: i64,
    /// A machine-wide clock read at the same instant, and its value in ns.
    reference: Option<(u32, i64)>,
}

/// An interning table of one sequence: iids are small dense integers in practice, so they
/// index a vector; a sparse (large) iid goes to a map.
struct IidTable<T> {
    dense: Vec<Option<T>>,
    sparse: FastMap<u64, T>,
}

impl<T> Default for IidTable<T> {
    fn default() -> Self {
        IidTable {
            dense: Vec::new(),
            sparse: FastMap::default(),
        }
    }
}

/// Largest iid held in the dense vector.
const MAX_DENSE_IID: u64 = 1 << 20;

impl<T: Copy> IidTable<T> {
    #[inline]
    fn get(&self, iid: &u64) -> Option<&T> {
        if *iid < MAX_DENSE_IID {
            if let Some(Some(v)) = self.dense.get(*iid as usize) {
                return Some(v);
            }
        }
        if self.sparse.is_empty() {
            None
        } else {
            self.sparse.get(iid)
        }
    }

    /// Sets `iid` to `v`; returns the value it had.
    fn insert(&mut self, iid: u64, v: T) -> Option<T> {
        // Dense while the vector would stay within twice the entries seen (plus slack).
        if iid < MAX_DENSE_IID && (iid as usize) < 2 * self.dense.len() + 4096 {
            let i = iid as usize;
            if i >= self.dense.len() {
                self.dense.resize(i + 1, None);
            }
            let old = self.dense[i].replace(v);
            if self.sparse.is_empty() {
                old
            } else {
                self.sparse.remove(&iid).or(old)
            }
        } else {
            // Never in `dense`: the iid lies beyond its length.
            self.sparse.insert(iid, v)
        }
    }

    fn clear(&mut self) {
        self.dense.clear();
        self.sparse.clear();
    }

    fn heap_bytes(&self) -> usize {
        self.dense.capacity() * std::mem::size_of::<Option<T>>()
            + self.sparse.capacity() * (std::mem::size_of::<(u64, T)>() + 1)
    }
}

/// Per-`trusted_packet_sequence_id` incremental state (trace-formats.md §5.1).
#[derive(Default)]
struct SeqState {
    /// `None` until the first packet decides (lenient when the sequence sets no flag).
    valid: Option<bool>,
    default_clock: Option<u32>,
    default_track: Option<u64>,
    default_extra_counters: Vec<u64>,
    default_extra_double_counters: Vec<u64>,
    names: IidTable<StrId>,
    categories: IidTable<StrId>,
    annotation_names: IidTable<StrId>,
    annotation_strings: IidTable<StrId>,
    source_locations: IidTable<SrcLoc>,
    log_bodies: IidTable<StrId>,
    /// Sequence-scoped clocks (ids 64–127), indexed by `id - 64`.
    clocks: Vec<Option<SeqClock>>,
    /// Running values of incremental counter tracks, by series index (below
    /// [`DENSE_COUNTER_SERIES`]; others in `counter_values_sparse`).
    counter_values: Vec<Option<f64>>,
    counter_values_sparse: FastMap<usize, f64>,
    /// Legacy thread association (pid, tid).
    thread: Option<(i64, i64)>,
    /// Legacy µs running timestamp (MONOTONIC).
    legacy_us: Option<i64>,
    /// Legacy running thread time (µs) and instruction count.
    legacy_thread_time_us: Option<i64>,
    legacy_instructions: Option<i64>,
    /// Last timestamp (trace clock ns) of a packet on this sequence.
    last_ts: i64,
    /// This sequence's key space in [`Importer::args_cache`]: 0 until its first event with
    /// debug annotations, a fresh number after every change that can alter what the same
    /// annotation bytes mean here (incremental state cleared, an annotation name or string
    /// iid given a different string).
    args_gen: u64,
    /// The counter track this sequence's last sample went to, as
    /// [`Importer::counter_tracks`] resolved it (that entry never changes once made): a
    /// sequence's samples mostly go to one track (Chromium: one per thread), so most skip the
    /// map.
    last_counter: Option<(u64, CounterInfo)>,
}

impl SeqState {
    fn clear(&mut self) {
        self.valid = Some(true);
        self.default_clock = None;
        self.default_track = None;
        self.default_extra_counters.clear();
        self.default_extra_double_counters.clear();
        self.names.clear();
        self.categories.clear();
        self.annotation_names.clear();
        self.annotation_strings.clear();
        self.args_gen = 0;
        self.source_locations.clear();
        self.log_bodies.clear();
        self.clocks.clear();
        self.counter_values.clear();
        self.counter_values_sparse.clear();
    }
}

/// Sequence ids below this index a vector (Chromium's are small integers); others a map.
const DENSE_SEQUENCES: u32 = 1024;

/// The incremental state of each packet sequence, by `trusted_packet_sequence_id`: taken out
/// for a packet and put back after it, without hashing for the common small ids.
#[derive(Default)]
struct Seqs {
    dense: Vec<Option<Box<SeqState>>>,
    sparse: FastMap<u32, Box<SeqState>>,
    len: usize,
}

impl Seqs {
    #[inline]
    fn contains_key(&self, id: &u32) -> bool {
        if *id < DENSE_SEQUENCES {
            self.dense.get(*id as usize).is_some_and(Option::is_some)
        } else {
            self.sparse.contains_key(id)
        }
    }

    /// Sequences held.
    fn len(&self) -> usize {
        self.len
    }

    /// Takes sequence `id` out (once per packet: the dense case inline, as wasm32's opt-level
    /// "s" would otherwise leave a call).
    #[inline(always)]
    fn remove(&mut self, id: &u32) -> Option<Box<SeqState>> {
        if let Some(slot) = self.dense.get_mut(*id as usize) {
            let s = slot.take();
            self.len -= usize::from(s.is_some());
            return s;
        }
        self.remove_sparse(id)
    }

    #[cold]
    #[inline(never)]
    fn remove_sparse(&mut self, id: &u32) -> Option<Box<SeqState>> {
        let s = if *id < DENSE_SEQUENCES {
            None
        } else {
            self.sparse.remove(id)
        };
        if s.is_some() {
            self.len -= 1;
        }
        s
    }

    /// Puts sequence `id` back (once per packet: the dense case inline, as for `remove`).
    #[inline(always)]
    fn insert(&mut self, id: u32, s: Box<SeqState>) {
        if let Some(slot) = self.dense.get_mut(id as usize) {
            let had = slot.replace(s).is_some();
            self.len += usize::from(!had);
            return;
        }
        self.insert_new(id, s);
    }

    #[cold]
    #[inline(never)]
    fn insert_new(&mut self, id: u32, s: Box<SeqState>) {
        let had = if id < DENSE_SEQUENCES {
            let i = id as usize;
            if i >= self.dense.len() {
                self.dense.resize_with(i + 1, || None);
            }
            self.dense[i].replace(s).is_some()
        } else {
            self.sparse.insert(id, s).is_some()
        };
        if !had {
            self.len += 1;
        }
    }

    /// Sequence `id`'s [`SeqState::args_gen`], 0 when it has none or is not held yet.
    #[inline(always)]
    fn args_gen(&self, id: u32) -> u64 {
        match self.dense.get(id as usize) {
            Some(s) => s.as_ref().map_or(0, |s| s.args_gen),
            None => self.sparse.get(&id).map_or(0, |s| s.args_gen),
        }
    }

    fn values(&self) -> impl Iterator<Item = &SeqState> {
        self.dense
            .iter()
            .flatten()
            .chain(self.sparse.values())
            .map(|b| &**b)
    }
}

/// Counter series whose running value a sequence keeps in a vector (a few KB at most per
/// sequence); the rest in a map.
const DENSE_COUNTER_SERIES: usize = 512;

/// A counter track's conversion rules (CounterDescriptor).
#[derive(Clone, Copy)]
struct CounterInfo {
    series: usize,
    multiplier: f64,
    incremental: bool,
}

/// First placeholder track id (far above [`limits::MAX_TRACKS`]).
const PLACEHOLDER_BASE: u32 = 1 << 31;

/// A track uuid used before its descriptor came (one-pass mode).
struct Placeholder {
    uuid: u64,
    /// Tracks that existed at its first event (its track is numbered after them).
    tracks_before: usize,
    /// The first non-empty name of a slice on it (an unnamed track takes it).
    first_name: StrId,
    /// Where its first event was (for the diagnostic when it stays undescribed).
    offset: u64,
    index: u64,
}

struct Importer<'m> {
    model: &'m mut Model,
    builder: SliceSink,
    clocks: ClockGraph,
    descriptors: FastMap<u64, TrackDescriptor>,
    seqs: Seqs,
    uuid_tracks: FastMap<u64, TrackId>,
    counter_tracks: FastMap<u64, CounterInfo>,
    /// Thread, process, global and legacy async tracks; async keys are (scope pid — -1 for a
    /// global id —, id, id scope).
    tracker: TrackTracker<(i64, u64, StrId), BuildHasherDefault<FastHasher>>,
    /// Legacy thread counters: (tid, series name) → index in `model.counters`.
    legacy_counters: FastMap<(i64, &'static str), usize>,
    /// Frames already interned, by projection (saves hashing into the model's table).
    frame_cache: FastMap<FrameKey, FrameId>,
    /// Frames of keys with only a name and a category (nearly every TrackEvent slice), by
    /// `name << 32 | category`: one hash of a `u64` instead of the whole [`FrameKey`]'s.
    named_frames: FastMap<u64, FrameId>,
    /// Joined category of two to four interned categories, by their ids (32 bits each, in
    /// wire order).
    category_sets: FastMap<u128, StrId>,
    packets: u64,
    bundle_budget: u64,
    /// One-pass mode: snapshots and descriptors are collected as packets come.
    collect: bool,
    /// A snapshot or descriptor came too late for the one pass: from then on only snapshots and
    /// descriptors are collected, and [`import_stream`] imports again.
    late: bool,
    /// Track uuids looked up before any descriptor defined them (one-pass mode).
    missed: FastMap<u64, ()>,
    /// Tracks of uuids not described yet when their first event came (one-pass mode), settled
    /// at the end; their events carry `TrackId(PLACEHOLDER_BASE + index)` until then.
    placeholders: Vec<Placeholder>,
    placeholder_of: FastMap<u64, u32>,
    /// Inflation budget of bundles read only for their snapshots and descriptors.
    prescan_budget: u64,
    /// The import stopped at a budget (memory): the rest of the stream is not read.
    stopped: bool,
    /// Offset (top-level stream) and index of the packet being imported, for diagnostics.
    cur_offset: u64,
    cur_index: u64,
    /// Scratch buffer for encoding one nested annotation (reused, no allocation per event).
    nested_buf: Vec<u8>,
    /// Arg sets already built, by the debug annotations' bytes on a sequence: see
    /// [`ArgsCache`].
    args_cache: ArgsCache,
    /// What [`Importer::vouch`] found for the current packet's deferred debug annotations
    /// ([`view::EventView::deferred_annotations`]), for [`Importer::args`].
    vouched: Option<Vouched>,
    /// Diagnostics counted so far (every [`Importer::diag`]): an arg set whose building
    /// counted one is not cached, so that each occurrence counts again.
    diags: u64,
}

impl<'m> Importer<'m> {
    fn new(model: &'m mut Model) -> Self {
        Importer {
            model,
            builder: SliceSink::new(),
            clocks: ClockGraph::default(),
            descriptors: FastMap::default(),
            seqs: Seqs::default(),
            uuid_tracks: FastMap::default(),
            counter_tracks: FastMap::default(),
            tracker: TrackTracker::new(LAYOUT),
            legacy_counters: FastMap::default(),
            frame_cache: FastMap::default(),
            named_frames: FastMap::default(),
            category_sets: FastMap::default(),
            packets: 0,
            bundle_budget: MAX_TOTAL_BUNDLE_BYTES,
            collect: false,
            late: false,
            missed: FastMap::default(),
            placeholders: Vec::new(),
            placeholder_of: FastMap::default(),
            prescan_budget: MAX_TOTAL_BUNDLE_BYTES,
            stopped: false,
            cur_offset: 0,
            cur_index: 0,
            nested_buf: Vec::new(),
            args_cache: ArgsCache::default(),
            vouched: None,
            diags: 0,
        }
    }

    fn diag(&mut self, kind: Diag, detail: impl FnOnce() -> Option<String>) {
        self.diags += 1;
        let (o, i) = (self.cur_offset, self.cur_index);
        self.model.diagnostics.add(kind, Some(o), Some(i), detail);
    }

    /// Interns bytes lossily, counting a repair.
    fn text(&mut self, bytes: &[u8]) -> StrId {
        let (id, repaired) = self.model.strings.intern_lossy(bytes);
        if repaired {
            self.diag(Diag::InvalidUtf8Repaired, || None);
        }
        id
    }

    /// Reads the `Trace` records of a stream window: packets (framed across chunk boundaries,
    /// one buffered at a time), other top-level fields skipped by wire type.
    fn run_window(&mut self, win: &mut super::stream::Window<'_>, progress: &mut dyn FnMut(f64)) {
        let mut next_report = 1u64 << 20;
        let mut next_check = BUDGET_CHECK_EVERY;
        loop {
            if win.data().len() < 20 && !win.at_eof() {
                win.fill(20);
            }
            let offset = win.offset();
            if offset >= next_report {
                next_report = offset + (1 << 20);
                progress(win.fraction());
            }
            if self.packets >= next_check {
                next_check = self.packets + BUDGET_CHECK_EVERY;
                let budget = limits::model_budget(win.decoded_bytes());
                let used = self.heap_bytes();
                if used > budget {
                    self.cur_offset = offset;
                    self.diag(Diag::MemoryBudgetReached, || {
                        Some(format!(
                            "the model reached {used} bytes after {} decompressed bytes (limit {budget} = {} + {} × input)",
                            win.decoded_bytes(),
                            limits::BASE_MEMORY_BYTES,
                            limits::MEMORY_PER_INPUT_BYTE
                        ))
                    });
                    self.stopped = true;
                    return;
                }
            }
            let d = win.data();
            if d.is_empty() {
                return;
            }
            // The common record, read as the general case below reads it: a packet (field 1,
            // length-delimited) of 1–127 bytes, whole in the window.
            if let [0x0a, len @ 1..=0x7f, ..] = *d {
                let total = 2 + usize::from(len);
                if total <= d.len() {
                    self.packet_bytes(&d[2..total], 0, offset);
                    win.consume(total);
                    continue;
                }
            }
            let Some((tag, p)) = read_varint(d, 0) else {
                self.bad_varint(d, 0, offset);
                return;
            };
            let wt = tag & 7;
            let num = tag >> 3;
            if num == 0 || wt == 3 || wt == 4 || wt > 5 {
                self.cur_offset = offset;
                self.diag(Diag::TraceFramingError, || {
                    Some(format!("at byte {offset}"))
                });
                return;
            }
            // (header length, value length)
            let (hdr, len) = match wt {
                0 => match read_varint(d, p) {
                    Some((_, q)) => (q, 0u64),
                    None => {
                        self.bad_varint(d, p, offset);
                        return;
                    }
                },
                1 => (p, 8),
                5 => (p, 4),
                _ => match read_varint(d, p) {
                    Some((len, q)) => (q, len),
                    None => {
                        self.bad_varint(d, p, offset);
                        return;
                    }
                },
            };
            let is_packet = num == 1 && wt == 2;
            let fits = usize::try_from(len)
                .ok()
                .filter(|&l| l <= limits::MAX_EVENT_BYTES)
                .and_then(|l| l.checked_add(hdr));
            let Some(total) = fits else {
                // Longer than any packet we buffer: skip it as it streams past.
                if is_packet {
                    self.cur_offset = offset;
                    self.diag(Diag::PacketTooLarge, || {
                        Some(format!(
                            "{len} bytes at byte {offset} (limit {} bytes)",
                            limits::MAX_EVENT_BYTES
                        ))
                    });
                }
                let mut left = u64::try_from(hdr).unwrap_or(u64::MAX).saturating_add(len);
                loop {
                    let n = (win.data().len() as u64).min(left);
                    win.consume(n as usize);
                    left -= n;
                    if left == 0 {
                        break;
                    }
                    if !win.more() {
                        self.truncated(offset);
                        return;
                    }
                }
                continue;
            };
            if win.fill(total) < total {
                self.truncated(offset);
                let n = win.data().len();
                win.consume(n);
                return;
            }
            if is_packet && total > hdr {
                let body = &win.data()[hdr..total];
                self.packet_bytes(body, 0, offset);
            }
            win.consume(total);
        }
    }

    /// A record's varint at `at` of the window data `d` did not read (the window holds 20
    /// bytes unless the stream ends): overlong is corrupt framing, else the file is cut off.
    fn bad_varint(&mut self, d: &[u8], at: usize, offset: u64) {
        if varint_overlong(d, at) {
            self.cur_offset = offset;
            self.diag(Diag::TraceFramingError, || {
                Some(format!(
                    "a varint longer than 10 bytes at byte {}",
                    offset + at as u64
                ))
            });
        } else {
            self.truncated(offset);
        }
    }

    fn truncated(&mut self, offset: u64) {
        self.cur_offset = offset;
        self.diag(Diag::TruncatedPacket, || Some(format!("at byte {offset}")));
    }

    /// Reads the `Trace` records of an inflated `compressed_packets` bundle.
    fn run_slice(&mut self, data: &[u8], depth: u32, top_offset: u64) {
        for rec in Records::new(data) {
            match rec {
                Record::Packet { body, .. } => {
                    if !body.is_empty() {
                        self.packet_bytes(body, depth, top_offset);
                    }
                }
                Record::Truncated { offset } => {
                    self.cur_offset = top_offset;
                    self.diag(Diag::TruncatedPacket, || Some(format!("at byte {offset}")));
                }
                Record::Garbage { offset } => {
                    self.cur_offset = top_offset;
                    self.diag(Diag::TraceFramingError, || {
                        Some(format!("at byte {offset}"))
                    });
                }
            }
        }
    }

    /// One packet's bytes (`top_offset`: where its top-level record starts).
    fn packet_bytes(&mut self, body: &[u8], depth: u32, top_offset: u64) {
        self.packets += 1;
        self.cur_offset = top_offset;
        self.cur_index = self.packets - 1;
        if self.late {
            self.prescan_packet(body, depth);
            return;
        }
        let mut p = view::PacketView::default();
        match view::PacketView::parse_into(&mut p, body).and_then(|()| self.vouch(&p)) {
            Ok(()) => self.packet(&p, depth, top_offset),
            Err(e) => {
                let e = p.first_error(e);
                if self.collect {
                    self.prescan_packet(body, depth);
                }
                self.diag(Diag::PacketDecodeError, || Some(e.to_string()));
            }
        }
    }

    /// Validates a walked packet's deferred debug annotations
    /// ([`view::EventView::deferred_annotations`]), unless their bytes are those of an arg set
    /// cached for the packet's sequence ([`ArgsCache`]): that set was built from bytes
    /// validated before. Notes their hash for [`Importer::args`]. Errors: the first
    /// annotation's that is not valid.
    #[inline]
    fn vouch(&mut self, p: &view::PacketView<'_>) -> Result<(), view::DecodeError> {
        self.vouched = None;
        let Some(ev) = &p.track_event else {
            return Ok(());
        };
        let annotations = ev.deferred_annotations();
        let Some(first) = annotations.first() else {
            return Ok(());
        };
        if ev.n_debug_annotations <= view::INLINE_ANNOTATIONS {
            let hash = self.args_cache.hash(annotations);
            let gen = self
                .seqs
                .args_gen(p.trusted_packet_sequence_id.unwrap_or(0));
            let hit = (gen != 0)
                .then(|| self.args_cache.get(&(gen, hash), annotations))
                .flatten();
            self.vouched = Some(Vouched {
                at: first.as_ptr() as usize,
                hash,
                hit: hit.map(|id| (gen, id)),
            });
            if hit.is_some() {
                return Ok(());
            }
        }
        view::validate_annotations(annotations)
    }

    /// Collects the clock snapshots and track descriptors of one packet (nested bundles
    /// included), as a first pass would: each occurrence on its own, malformed ones skipped.
    fn prescan_packet(&mut self, body: &[u8], depth: u32) {
        for f in FieldIter::new(body) {
            match f {
                Some((6, Field::Len(b))) => {
                    if let Ok(s) = ClockSnapshot::decode(b) {
                        let (readings, primary) = snapshot_readings(&s);
                        self.clocks.add_snapshot(&readings, primary);
                    }
                }
                Some((60, Field::Len(b))) => {
                    if let Ok(d) = TrackDescriptor::decode(b) {
                        add_descriptor(&mut self.descriptors, &d);
                    }
                }
                Some((50, Field::Len(b))) if depth < MAX_BUNDLE_DEPTH => {
                    self.prescan_bundle(b, depth);
                }
                None => break,
                _ => {}
            }
        }
    }

    fn prescan_bundle(&mut self, bundle: &[u8], depth: u32) {
        let limit = self.prescan_budget.min(MAX_BUNDLE_BYTES);
        if let Ok(inner) = inflate(bundle, limit) {
            self.prescan_budget = self.prescan_budget.saturating_sub(inner.len() as u64);
            for rec in Records::new(&inner) {
                let Record::Packet { body, .. } = rec else {
                    break;
                };
                self.prescan_packet(body, depth + 1);
            }
        }
    }

    /// One-pass mode: applies a packet's snapshots and descriptors before the packet itself,
    /// and notes when one comes too late for the one pass.
    fn collect_packet(&mut self, p: &view::PacketView<'_>) {
        let Some(cold) = p.cold() else {
            return;
        };
        for b in cold.snapshot_parts.iter() {
            if let Ok(s) = ClockSnapshot::decode(b) {
                let (readings, primary) = snapshot_readings(&s);
                if self.clocks.add_snapshot_late(&readings, primary) {
                    self.note_late(|| format!("clock snapshot {readings:?}"));
                    self.late = true;
                }
            }
        }
        // One occurrence (the usual case): the walk's merged descriptor is that occurrence's
        // decode, so it is not decoded again.
        let single = cold
            .track_descriptor
            .as_ref()
            .filter(|_| cold.descriptor_parts.is_single());
        let mut decoded = None;
        for b in cold.descriptor_parts.iter() {
            let d = match single {
                Some(d) => d,
                None => match TrackDescriptor::decode(b) {
                    Ok(d) => decoded.insert(d),
                    Err(_) => continue,
                },
            };
            let uuid = d.uuid.unwrap_or(0);
            if add_descriptor(&mut self.descriptors, d)
                && (self.uuid_tracks.contains_key(&uuid) || self.missed.contains_key(&uuid))
            {
                let missed = self.missed.contains_key(&uuid);
                self.note_late(|| format!("descriptor {uuid} (missed before: {missed})"));
                self.late = true;
            }
        }
    }

    /// Says why the one pass is not enough (debug builds, `TRIALSCOPE_DEBUG_PASSES` set).
    fn note_late(&self, why: impl FnOnce() -> String) {
        if cfg!(debug_assertions) && std::env::var_os("TRIALSCOPE_DEBUG_PASSES").is_some() {
            eprintln!("perfetto: packet {}: late {}", self.packets, why());
        }
    }

    /// Heap bytes of the model so far and of what the import holds for it, for the memory
    /// budget's check (the slice builder's part as at the previous check:
    /// [`SliceSink::heap_bytes_at_last_check`](crate::model::SliceSink::heap_bytes_at_last_check)).
    fn heap_bytes(&mut self) -> u64 {
        let seqs: usize = self
            .seqs
            .values()
            .map(|s| {
                s.names.heap_bytes()
                    + s.categories.heap_bytes()
                    + s.annotation_names.heap_bytes()
                    + s.annotation_strings.heap_bytes()
                    + s.source_locations.heap_bytes()
                    + s.log_bodies.heap_bytes()
            })
            .sum();
        (self.model.heap_bytes()
            + self.builder.heap_bytes_at_last_check()
            + seqs
            + self.args_cache.heap_bytes()) as u64
    }

    fn packet(&mut self, p: &view::PacketView<'_>, depth: u32, top_offset: u64) {
        if self.collect {
            self.collect_packet(p);
            if self.late {
                if let Some(bundle) = p.compressed_packets.filter(|_| depth < MAX_BUNDLE_DEPTH) {
                    self.prescan_bundle(bundle, depth);
                }
                return;
            }
        }
        if let Some(bundle) = p.compressed_packets {
            if depth >= MAX_BUNDLE_DEPTH {
                self.diag(Diag::CompressedPacketsTooDeep, || None);
                return;
            }
            let limit = self.bundle_budget.min(MAX_BUNDLE_BYTES);
            match inflate(bundle, limit) {
                Ok(inner) => {
                    self.bundle_budget = self.bundle_budget.saturating_sub(inner.len() as u64);
                    self.run_slice(&inner, depth + 1, top_offset);
                }
                Err(e) => self.diag(Diag::CompressedPacketsCorrupt, || Some(e.to_string())),
            }
            return;
        }
        if p.zstd_compressed_packets {
            self.diag(Diag::ZstdCompressedPacketsUnsupported, || None);
            return;
        }
        let seq_id = p.trusted_packet_sequence_id.unwrap_or(0);
        let cold = p.cold();
        if !self.seqs.contains_key(&seq_id) && self.seqs.len() >= MAX_SEQUENCES {
            self.diag(Diag::TooManySequences, || None);
            return;
        }
        let flags = p.sequence_flags.unwrap_or(0);
        let cleared =
            flags & SEQ_INCREMENTAL_STATE_CLEARED != 0 || p.incremental_state_cleared == Some(true);
        let needs = flags & SEQ_NEEDS_INCREMENTAL_STATE != 0;
        let dropped = p.previous_packet_dropped.unwrap_or(0) != 0;
        let mut seq = self.seqs.remove(&seq_id).unwrap_or_default();
        let first_seen = seq.valid.is_none();
        // §5.1 step 1–2. The service sets previous_packet_dropped on the first packet of every
        // sequence, so only later packets count as loss.
        if cleared {
            seq.clear();
        } else if first_seen {
            // Lenient: a sequence that sets no flag is valid from the start; one that needs
            // incremental state without ever clearing it is not (TP semantics).
            seq.valid = Some(!needs);
        } else if dropped {
            self.diag(Diag::PacketLoss, || Some(format!("sequence {seq_id}")));
            seq.valid = Some(false);
            seq.legacy_us = None;
            seq.legacy_thread_time_us = None;
            seq.legacy_instructions = None;
        }
        let valid = seq.valid == Some(true);
        // Step 3: defaults.
        if let Some(d) = cold.and_then(|c| c.trace_packet_defaults.as_ref()) {
            seq.default_clock = d.timestamp_clock_id;
            match &d.track_event_defaults {
                Some(t) => {
                    seq.default_track = t.track_uuid;
                    seq.default_extra_counters = t.extra_counter_track_uuids.clone();
                    seq.default_extra_double_counters = t.extra_double_counter_track_uuids.clone();
                }
                None => {
                    seq.default_track = None;
                    seq.default_extra_counters.clear();
                    seq.default_extra_double_counters.clear();
                }
            }
        }
        // Step 4: interned data.
        if valid {
            for interned in p.interned_data.iter() {
                self.intern(&mut seq, interned);
            }
        }
        // Step 5: clock snapshot (sequence-scoped clocks only; machine-wide ones are in the
        // graph from pass 1).
        if let Some(snap) = cold.and_then(|c| c.clock_snapshot.as_ref()) {
            self.sequence_clocks(&mut seq, snap);
        }
        // Step 6.
        if needs && !valid {
            self.diag(Diag::IncrementalStateInvalidPacketDropped, || {
                Some(format!("sequence {seq_id}"))
            });
            self.seqs.insert(seq_id, seq);
            return;
        }
        // Step 7: payload.
        let ts = self.packet_ts(&mut seq, p.timestamp, p.timestamp_clock_id);
        if let Some(ts) = ts {
            seq.last_ts = ts;
        }
        if let Some(pd) = cold.and_then(|c| c.process_descriptor.as_ref()) {
            self.process_info(pd);
            if let Some(pid) = pd.pid {
                let tid = seq.thread.map(|t| t.1).unwrap_or(0);
                seq.thread = Some((i64::from(pid), tid));
            }
        }
        if let Some(td) = cold.and_then(|c| c.thread_descriptor.as_ref()) {
            self.thread_info(td);
            seq.thread = Some((i64::from(td.pid.unwrap_or(0)), td.tid.unwrap_or(0)));
            seq.legacy_us = td.reference_timestamp_us;
            seq.legacy_thread_time_us = td.reference_thread_time_us;
            seq.legacy_instructions = td.reference_thread_instruction_count;
        }
        if let Some(d) = cold.and_then(|c| c.track_descriptor.as_ref()) {
            if let Some(pd) = &d.process {
                self.process_info(pd);
            }
            if let Some(td) = &d.thread {
                self.thread_info(td);
                if valid {
                    seq.thread = Some((i64::from(td.pid.unwrap_or(0)), td.tid.unwrap_or(0)));
                    if td.reference_timestamp_us.is_some() {
                        seq.legacy_us = td.reference_timestamp_us;
                        seq.legacy_thread_time_us = td.reference_thread_time_us;
                        seq.legacy_instructions = td.reference_thread_instruction_count;
                    }
                }
            }
        }
        if let Some(tree) = cold.and_then(|c| c.process_tree.as_ref()) {
            for pr in &tree.processes {
                if let Some(pid) = pr.pid {
                    let cmd: Vec<StrId> = pr.cmdline.iter().map(|c| self.text(c)).collect();
                    let e = self.model.processes.entry(i64::from(pid)).or_default();
                    if e.cmdline.is_empty() {
                        e.cmdline = cmd;
                    }
                }
            }
            for th in &tree.threads {
                if let Some(tid) = th.tid {
                    let name = th.name.as_deref().map(|n| self.text(n));
                    let e = self.model.threads.entry(i64::from(tid)).or_default();
                    if let Some(n) = name {
                        e.name = n;
                    }
                    if let Some(pid) = th.tgid {
                        e.pid = Some(i64::from(pid));
                    }
                }
            }
        }
        if let Some(ev) = &p.track_event {
            self.track_event(&mut seq, ev, ts);
        }
        self.seqs.insert(seq_id, seq);
    }

    fn intern(&mut self, seq: &mut SeqState, d: &[u8]) {
        view::InternedView::each(d, |e| match e {
            view::Interned::Name { table, iid, name } => {
                let Some(iid) = iid else { return };
                let s = self.text(name.unwrap_or(b""));
                let (map, of_args) = match table {
                    view::Table::EventNames => (&mut seq.names, false),
                    view::Table::EventCategories => (&mut seq.categories, false),
                    view::Table::AnnotationNames => (&mut seq.annotation_names, true),
                    view::Table::AnnotationStrings => (&mut seq.annotation_strings, true),
                    view::Table::LogBodies => (&mut seq.log_bodies, false),
                };
                let old = map.insert(iid, s);
                if of_args && old.is_some_and(|o| o != s) {
                    // Cached arg sets may name the old string.
                    seq.args_gen = 0;
                }
            }
            view::Interned::Location(b) => {
                let Ok(loc) = SourceLocation::decode(b) else {
                    return;
                };
                let Some(iid) = loc.iid else { return };
                let l = self.src_loc(&loc);
                seq.source_locations.insert(iid, l);
            }
        });
    }

    fn src_loc(&mut self, loc: &SourceLocation) -> SrcLoc {
        let file = match &loc.file_name {
            Some(f) => {
                let s = String::from_utf8_lossy(f);
                if matches!(s, std::borrow::Cow::Owned(_)) {
                    self.text(f); // counts the repair
                }
                self.model.strings.intern(&normalize_path(&s))
            }
            None => StrId(0),
        };
        let function = match &loc.function_name {
            Some(f) => self.text(f),
            None => StrId(0),
        };
        SrcLoc {
            file,
            function,
            line: loc.line_number,
        }
    }

    fn sequence_clocks(&mut self, seq: &mut SeqState, snap: &ClockSnapshot) {
        let trace_clock = self.clocks.note_trace_clock();
        let mut reference: Option<(u32, i64)> = None;
        for c in &snap.clocks {
            let Some(id) = c.clock_id else { continue };
            if id == 0 || clock::is_sequence_scoped(id) {
                continue;
            }
            let v = scale(c.timestamp.unwrap_or(0), mult_of(c.unit_multiplier_ns));
            if reference.is_none() || Some(id) == trace_clock {
                reference = Some((id, v));
            }
        }
        for c in &snap.clocks {
            let Some(id) = c.clock_id else { continue };
            if !clock::is_sequence_scoped(id) {
                continue;
            }
            let mult = mult_of(c.unit_multiplier_ns);
            let v = scale(c.timestamp.unwrap_or(0), mult);
            let slot = (id - SEQ_CLOCK_BASE) as usize;
            if slot >= seq.clocks.len() {
                seq.clocks.resize(slot + 1, None);
            }
            seq.clocks[slot] = Some(SeqClock {
                incremental: c.is_incremental == Some(true),
                mult,
                last_ns: v,
                snap_ns: v,
                reference,
            });
        }
    }

    /// Converts a packet timestamp to trace-clock ns (trace-formats.md §5.4–5.5).
    fn packet_ts(
        &mut self,
        seq: &mut SeqState,
        ts: Option<u64>,
        clock_id: Option<u32>,
    ) -> Option<i64> {
        let ts = ts?;
        let clock = clock_id.or(seq.default_clock).unwrap_or(0);
        if clock == 0 {
            return Some(i64::try_from(ts).unwrap_or(i64::MAX));
        }
        if clock::is_sequence_scoped(clock) {
            let slot = (clock - SEQ_CLOCK_BASE) as usize;
            let Some(Some(c)) = seq.clocks.get_mut(slot) else {
                self.diag(Diag::ClockUnknown, || Some(format!("clock {clock}")));
                return None;
            };
            let v = if c.incremental {
                c.last_ns = c.last_ns.saturating_add(scale(ts, c.mult));
                c.last_ns
            } else {
                scale(ts, c.mult)
            };
            let c = *c;
            let Some((g, g_ns)) = c.reference else {
                self.diag(Diag::ClockSyncFailure, || {
                    Some(format!(
                        "sequence-scoped clock {clock} has no machine-wide clock in its snapshot"
                    ))
                });
                return None;
            };
            return self.global_ts(g, g_ns.saturating_add(v.saturating_sub(c.snap_ns)));
        }
        let mult = self.clocks.multiplier(clock);
        self.global_ts(clock, scale(ts, mult))
    }

    fn global_ts(&mut self, clock: u32, ns: i64) -> Option<i64> {
        match self.clocks.to_trace(clock, ns) {
            Some(v) => Some(v),
            None => {
                self.diag(Diag::ClockSyncFailure, || Some(format!("clock {clock}")));
                None
            }
        }
    }

    fn process_info(&mut self, pd: &ProcessDescriptor) {
        let Some(pid) = pd.pid else { return };
        let name = pd.process_name.as_deref().map(|n| self.text(n));
        let labels: Vec<StrId> = pd.process_labels.iter().map(|l| self.text(l)).collect();
        let cmdline: Vec<StrId> = pd.cmdline.iter().map(|l| self.text(l)).collect();
        let e: &mut ProcessInfo = self.model.processes.entry(i64::from(pid)).or_default();
        if let Some(n) = name.filter(|n| n.0 != 0) {
            e.name = n;
        }
        if !labels.is_empty() {
            e.labels = labels;
        }
        if !cmdline.is_empty() {
            e.cmdline = cmdline;
        }
        if let Some(s) = pd.legacy_sort_index {
            e.sort_index = Some(i64::from(s));
        }
    }

    fn thread_info(&mut self, td: &ThreadDescriptor) {
        let Some(tid) = td.tid else { return };
        let name = td.thread_name.as_deref().map(|n| self.text(n));
        let e: &mut ThreadInfo = self.model.threads.entry(tid).or_default();
        if let Some(n) = name.filter(|n| n.0 != 0) {
            e.name = n;
        }
        if let Some(pid) = td.pid {
            e.pid = Some(i64::from(pid));
        }
        if let Some(s) = td.legacy_sort_index {
            e.sort_index = Some(i64::from(s));
        }
    }

    fn thread_track(&mut self, pid: i64, tid: i64) -> TrackId {
        self.tracker.thread(self.model, pid, tid).id
    }

    fn process_track(&mut self, pid: i64) -> TrackId {
        self.tracker.process(self.model, pid).id
    }

    fn global(&mut self) -> TrackId {
        self.tracker.global(self.model)
    }

    /// The model track of a described uuid (created on first use), or `None` when the uuid was
    /// never described.
    fn uuid_track(&mut self, uuid: u64, depth: u32, note_miss: bool) -> Option<TrackId> {
        if let Some(&t) = self.uuid_tracks.get(&uuid) {
            return Some(t);
        }
        if depth > 32 || self.model.tracks.len() >= limits::MAX_TRACKS {
            return None;
        }
        let Some(d) = self.descriptors.get(&uuid) else {
            if self.collect && note_miss {
                self.missed.insert(uuid, ());
            }
            return None;
        };
        let name_bytes = desc_name(d).map(|n| n.to_vec());
        let process = d.process.as_ref().and_then(|p| p.pid);
        let thread = d
            .thread
            .as_ref()
            .map(|t| (t.pid.unwrap_or(0), t.tid.unwrap_or(0)));
        let counter = d.counter.clone();
        let parent_uuid = d.parent_uuid.filter(|&p| p != 0 && p != uuid);
        let name = match &name_bytes {
            Some(n) => self.text(n),
            None => StrId(0),
        };
        let track = if let Some((pid, tid)) = thread {
            self.thread_track(i64::from(pid), tid)
        } else if let (Some(pid), None) = (process, &counter) {
            let t = self.process_track(i64::from(pid));
            if name.0 != 0 && self.model.tracks[t.0 as usize].name.0 == 0 {
                self.model.tracks[t.0 as usize].name = name;
            }
            t
        } else {
            let parent = parent_uuid.and_then(|p| self.uuid_track(p, depth + 1, true));
            let (pid, tid) = match parent {
                Some(pt) => {
                    let t = self.model.track(pt);
                    (t.pid, if counter.is_some() { t.tid } else { None })
                }
                None => (process.map(i64::from), None),
            };
            let t = if counter.is_some() {
                self.tracker.counter(self.model, name, pid, tid, parent)
            } else {
                self.tracker.custom(self.model, name, pid, parent)
            };
            if let Some(c) = &counter {
                let unit = match (c.unit.unwrap_or(0), c.r#type.unwrap_or(0)) {
                    (1, _) | (_, 1) => self.model.strings.intern("ns"),
                    (2, _) | (_, 2) => self.model.strings.intern("count"),
                    (3, _) => self.model.strings.intern("bytes"),
                    _ => match &c.unit_name {
                        Some(u) => self.text(u),
                        None => StrId(0),
                    },
                };
                let series_name = if name.0 != 0 {
                    name
                } else {
                    match c.r#type.unwrap_or(0) {
                        1 => self.model.strings.intern("thread_time"),
                        2 => self.model.strings.intern("thread_instruction_count"),
                        _ => StrId(0),
                    }
                };
                self.model.counters.push(CounterSeries {
                    track: t,
                    name: series_name,
                    unit,
                    pid,
                    ts_ns: Vec::new(),
                    value: Vec::new(),
                });
                let multiplier = match c.unit_multiplier {
                    Some(m) if m != 0 => m as f64,
                    _ => 1.0,
                };
                self.counter_tracks.insert(
                    uuid,
                    CounterInfo {
                        series: self.model.counters.len() - 1,
                        multiplier,
                        incremental: c.is_incremental == Some(true),
                    },
                );
            }
            t
        };
        self.uuid_tracks.insert(uuid, track);
        Some(track)
    }

    /// The counter track of `uuid`, resolved on first use; `None` (with a diagnostic) when
    /// no descriptor makes it a counter track.
    fn counter_info(&mut self, uuid: u64) -> Option<CounterInfo> {
        // A uuid is in `counter_tracks` only once `uuid_track` resolved it.
        if let Some(&info) = self.counter_tracks.get(&uuid) {
            return Some(info);
        }
        if self.uuid_track(uuid, 0, true).is_none() {
            self.diag(Diag::TrackUuidUnknown, || Some(format!("uuid {uuid}")));
            return None;
        }
        let info = self.counter_tracks.get(&uuid).copied();
        if info.is_none() {
            self.diag(Diag::CounterWithoutTrack, || {
                Some(format!("track uuid {uuid} is not a counter track"))
            });
        }
        info
    }

    fn counter_sample(&mut self, seq: &mut SeqState, uuid: u64, ts: i64, raw: f64) {
        let info = match seq.last_counter {
            Some((u, info)) if u == uuid => info,
            _ => {
                let Some(info) = self.counter_info(uuid) else {
                    return;
                };
                seq.last_counter = Some((uuid, info));
                info
            }
        };
        let mut v = raw * info.multiplier;
        if info.incremental {
            let acc = if info.series < DENSE_COUNTER_SERIES {
                if info.series >= seq.counter_values.len() {
                    seq.counter_values.resize(info.series + 1, None);
                }
                seq.counter_values[info.series].get_or_insert(0.0)
            } else {
                seq.counter_values_sparse.entry(info.series).or_insert(0.0)
            };
            *acc += v;
            v = *acc;
        }
        let s = &mut self.model.counters[info.series];
        grow_by_half(&mut s.ts_ns);
        grow_by_half(&mut s.value);
        s.ts_ns.push(ts);
        s.value.push(v);
    }

    fn resolve_name(&mut self, seq: &SeqState, iid: u64) -> StrId {
        match seq.names.get(&iid) {
            Some(&s) => s,
            None => {
                self.unknown_iid("event_names", iid);
                StrId(0)
            }
        }
    }

    fn unknown_iid(&mut self, table: &'static str, iid: u64) {
        self.diag(Diag::InternedIdUnknown, || {
            Some(format!("iid {iid} in {table}"))
        });
    }

    fn track_event(
        &mut self,
        seq: &mut SeqState,
        ev: &view::EventView<'_>,
        packet_ts: Option<i64>,
    ) {
        // Timestamp: legacy µs fields first, else the packet timestamp.
        let invalid_ts = |imp: &mut Self| {
            imp.diag(Diag::TrackEventInvalidTimestamp, || None);
            None
        };
        let ts = if let Some(abs) = ev.timestamp_absolute_us {
            match abs.checked_mul(1000) {
                Some(ns) => self.global_ts(clock::MONOTONIC, ns),
                None => invalid_ts(self),
            }
        } else if let Some(delta) = ev.timestamp_delta_us {
            match seq.legacy_us {
                Some(base) => match base
                    .checked_add(delta)
                    .and_then(|now| Some((now, now.checked_mul(1000)?)))
                {
                    Some((now, ns)) => {
                        seq.legacy_us = Some(now);
                        self.global_ts(clock::MONOTONIC, ns)
                    }
                    None => invalid_ts(self),
                },
                None => {
                    self.diag(Diag::LegacyTimestampWithoutReference, || None);
                    None
                }
            }
        } else {
            packet_ts.or(Some(seq.last_ts))
        };
        let Some(ts) = ts else { return };
        // Beyond ±2^61 ns nothing computed from two timestamps (a duration, an end) can
        // overflow; such events are dropped and counted, as in the JSON importer.
        if !(-MAX_ABS_TS_NS..=MAX_ABS_TS_NS).contains(&ts) {
            self.diag(Diag::TimestampOutOfRange, || Some(format!("{ts} ns")));
            return;
        }
        seq.last_ts = ts;
        if ev.thread_time_delta_us.is_some()
            || ev.thread_time_absolute_us.is_some()
            || ev.thread_instruction_count_delta.is_some()
            || ev.thread_instruction_count_absolute.is_some()
        {
            self.legacy_thread_counters(seq, ev, ts);
        }

        let ty = ev.r#type.unwrap_or(0);
        let legacy = ev.legacy_event();
        let phase = legacy.and_then(|l| l.phase).unwrap_or(0);

        // Extra counter values ride on any event type.
        if ev.n_extra_counter_values > 0 || ev.n_extra_double_counter_values > 0 {
            self.extra_counters(seq, ev, ts);
        }

        if ty == track_event_type::COUNTER {
            let value = match (ev.counter_value, ev.double_counter_value) {
                (Some(v), _) => v as f64,
                (None, Some(v)) => v,
                (None, None) => {
                    self.diag(Diag::CounterWithoutValue, || None);
                    return;
                }
            };
            let uuid = ev.track_uuid.or(seq.default_track).unwrap_or(0);
            if uuid == 0 {
                self.diag(Diag::CounterWithoutTrack, || {
                    Some("a TYPE_COUNTER event has no track uuid".to_string())
                });
                return;
            }
            self.counter_sample(seq, uuid, ts, value);
            return;
        }

        // Which kind of slice event?
        enum Op {
            Begin,
            End,
            Instant,
            Complete(i64),
        }
        let op = match ty {
            track_event_type::SLICE_BEGIN => Op::Begin,
            track_event_type::SLICE_END => Op::End,
            track_event_type::INSTANT => Op::Instant,
            track_event_type::UNSPECIFIED => match u8::try_from(phase).unwrap_or(0) {
                b'B' => Op::Begin,
                b'E' => Op::End,
                b'X' => {
                    let d = legacy.and_then(|l| l.duration_us).unwrap_or(0);
                    if d < 0 {
                        self.diag(Diag::NegativeDuration, || None);
                        return;
                    }
                    let d = scale_i(d, 1000);
                    if ts.checked_add(d).is_none_or(|end| end > MAX_ABS_TS_NS) {
                        self.diag(Diag::TimestampOutOfRange, || {
                            Some(format!("end of a {d} ns complete event at {ts} ns"))
                        });
                        return;
                    }
                    Op::Complete(d)
                }
                b'I' | b'i' | b'R' | b'n' | b'T' | b'p' => Op::Instant,
                b'b' | b'S' => Op::Begin,
                b'e' | b'F' => Op::End,
                _ => {
                    self.diag(Diag::LegacyPhaseUnsupported, || {
                        Some(format!(
                            "phase {:?}",
                            char::from(u8::try_from(phase).unwrap_or(b'?'))
                        ))
                    });
                    return;
                }
            },
            other => {
                self.diag(Diag::TrackEventTypeUnknown, || {
                    Some(format!("type {other}"))
                });
                return;
            }
        };

        // Track (§3.5).
        let Some(track) = self.event_track(seq, ev, ty, phase) else {
            return;
        };

        if let Op::End = op {
            let args = self.args(seq, ev);
            self.builder.end(track, ts, None, args);
            return;
        }

        // Name.
        let name = if let Some(iid) = ev.name_iid {
            self.resolve_name(seq, iid)
        } else if let Some(n) = ev.name {
            self.text(n)
        } else if let Some(iid) = legacy.and_then(|l| l.name_iid) {
            self.resolve_name(seq, iid)
        } else {
            StrId(0)
        };
        let category = self.categories(seq, ev);
        let args = self.args(seq, ev);

        let mut key = FrameKey::named(Provider::PerfettoTrackEvent, name, category);
        let loc = if let Some(l) = ev.source_location() {
            Some(self.src_loc(l))
        } else if let Some(iid) = ev.source_location_iid {
            match seq.source_locations.get(&iid) {
                Some(&l) => Some(l),
                None => {
                    self.unknown_iid("source_locations", iid);
                    None
                }
            }
        } else {
            None
        };
        if let Some(l) = loc {
            key.file = Some(l.file).filter(|f| f.0 != 0);
            key.function = Some(l.function).filter(|f| f.0 != 0);
            key.line = l.line;
        }
        if let Some(iid) = ev.task_execution.as_ref().and_then(|t| t.posted_from_iid) {
            match seq.source_locations.get(&iid) {
                Some(&l) => {
                    key.posted_from_file = Some(l.file).filter(|f| f.0 != 0);
                    key.posted_from_function = Some(l.function).filter(|f| f.0 != 0);
                }
                None => self.unknown_iid("source_locations", iid),
            }
        }
        let mut args = args;
        if let Some(iid) = ev.log_message.as_ref().and_then(|lm| lm.body_iid) {
            match seq.log_bodies.get(&iid) {
                Some(&body) => {
                    let key = self.model.strings.intern("log_message.body");
                    let extra = self.model.args.add(vec![(key, ArgValue::Str(body))]);
                    args = self.model.args.merge(args, extra);
                }
                None => self.unknown_iid("log_message_body", iid),
            }
        }
        // An unnamed custom track is named after its first slice (as trace_processor does).
        if track.0 >= PLACEHOLDER_BASE {
            let p = &mut self.placeholders[(track.0 - PLACEHOLDER_BASE) as usize];
            if p.first_name.0 == 0 {
                p.first_name = name;
            }
        } else if let Some(t) = self.model.tracks.get_mut(track.0 as usize) {
            if t.kind == TrackKind::Async && t.name.0 == 0 && t.overflow_of.is_none() {
                t.name = name;
            }
        }
        let frame = self.frame(key);
        match op {
            Op::Begin => self
                .builder
                .begin(track, ts, name, category, frame, args, 0),
            Op::Instant => self
                .builder
                .instant(track, ts, name, category, frame, args, 0),
            Op::Complete(d) => self
                .builder
                .complete(track, ts, d, name, category, frame, args, 0),
            Op::End => {}
        }
    }

    /// The model frame of `key`, interned once per distinct key.
    fn frame(&mut self, key: FrameKey) -> FrameId {
        if key == FrameKey::named(Provider::PerfettoTrackEvent, key.name, key.category) {
            let packed = u64::from(key.name.0) << 32 | u64::from(key.category.0);
            if let Some(&f) = self.named_frames.get(&packed) {
                return f;
            }
            let f = self.model.frames.intern(key, &self.model.strings);
            self.named_frames.insert(packed, f);
            return f;
        }
        match self.frame_cache.get(&key) {
            Some(&f) => f,
            None => {
                let f = self.model.frames.intern(key.clone(), &self.model.strings);
                self.frame_cache.insert(key, f);
                f
            }
        }
    }

    fn event_track(
        &mut self,
        seq: &SeqState,
        ev: &view::EventView<'_>,
        ty: i32,
        phase: i32,
    ) -> Option<TrackId> {
        let legacy = ev.legacy_event();
        if let Some(l) = legacy {
            if l.pid_override.is_some() || l.tid_override.is_some() {
                let pid = l
                    .pid_override
                    .map(i64::from)
                    .or(seq.thread.map(|t| t.0))
                    .unwrap_or(0);
                let tid = l
                    .tid_override
                    .map(i64::from)
                    .or(seq.thread.map(|t| t.1))
                    .unwrap_or(0);
                return Some(self.thread_track(pid, tid));
            }
            let ph = u8::try_from(phase).unwrap_or(0);
            if matches!(ph, b'b' | b'e' | b'n' | b'S' | b'T' | b'p' | b'F') {
                let (scope_pid, id) = match (l.unscoped_id, l.local_id, l.global_id) {
                    (Some(id), _, _) => (seq.thread.map(|t| t.0).unwrap_or(0), id),
                    (None, Some(id), _) => (seq.thread.map(|t| t.0).unwrap_or(0), id),
                    (None, None, Some(id)) => (-1, id),
                    _ => (seq.thread.map(|t| t.0).unwrap_or(0), 0),
                };
                let scope = match &l.id_scope {
                    Some(s) => self.text(s),
                    None => StrId(0),
                };
                let pid = (scope_pid >= 0).then_some(scope_pid);
                let key = (scope_pid, id, scope);
                return Some(self.tracker.async_track(self.model, key, scope, pid).id);
            }
            if matches!(ph, b'I' | b'i' | b'R') && ev.track_uuid.is_none() {
                match l.instant_event_scope.unwrap_or(0) {
                    1 => return Some(self.global()),
                    2 => {
                        if let Some((pid, _)) = seq.thread {
                            return Some(self.process_track(pid));
                        }
                    }
                    _ => {}
                }
            }
        }
        let uuid = ev.track_uuid.or(seq.default_track).unwrap_or(0);
        if uuid != 0 {
            if !self.placeholder_of.is_empty() {
                if let Some(&i) = self.placeholder_of.get(&uuid) {
                    return Some(TrackId(PLACEHOLDER_BASE + i));
                }
            }
            // The common case, a track made before: what `uuid_track` would return (and
            // `waits_for_parent` is false for it).
            if let Some(&t) = self.uuid_tracks.get(&uuid) {
                return Some(t);
            }
            let wait = self.collect && self.waits_for_parent(uuid);
            if !wait {
                if let Some(t) = self.uuid_track(uuid, 0, !self.collect) {
                    return Some(t);
                }
            }
            if self.collect {
                // Its descriptor may still come: the track is settled at the end.
                let i = self.placeholders.len() as u32;
                self.placeholders.push(Placeholder {
                    uuid,
                    tracks_before: self.model.tracks.len(),
                    first_name: StrId(0),
                    offset: self.cur_offset,
                    index: self.cur_index,
                });
                self.placeholder_of.insert(uuid, i);
                return Some(TrackId(PLACEHOLDER_BASE + i));
            }
            self.undescribed_track(uuid)
        } else {
            self.default_event_track(seq, ty, ev.track_uuid.is_none())
        }
    }

    /// One-pass mode: true when the track of `uuid` would hang under an ancestor no descriptor
    /// defines yet (its track is then settled at the end, when the ancestor may be known).
    fn waits_for_parent(&self, uuid: u64) -> bool {
        let mut cur = uuid;
        for _ in 0..=32 {
            if self.uuid_tracks.contains_key(&cur) {
                return false;
            }
            let Some(d) = self.descriptors.get(&cur) else {
                return cur != uuid;
            };
            let own = d.thread.is_some() || (d.process.is_some() && d.counter.is_none());
            match d.parent_uuid.filter(|&p| p != 0 && p != cur) {
                Some(p) if !own => cur = p,
                _ => return false,
            }
        }
        false
    }

    /// The track of events on a uuid no descriptor defines: an unnamed track of its own (or
    /// none past the tracks limit).
    fn undescribed_track(&mut self, uuid: u64) -> Option<TrackId> {
        let tracks = self.model.tracks.len();
        if tracks >= limits::MAX_TRACKS {
            self.diag(Diag::TracksOverLimit, || {
                Some(format!(
                    "uuid {uuid}: the file already has {tracks} tracks (limit {})",
                    limits::MAX_TRACKS
                ))
            });
            return None;
        }
        // TP keeps such events on a track of their own (difftest
        // track_event_monotonic_trace_clock_slices).
        self.diag(Diag::TrackUuidUndescribed, || Some(format!("uuid {uuid}")));
        let t = self.tracker.custom(self.model, StrId(0), None, None);
        self.uuid_tracks.insert(uuid, t);
        Some(t)
    }

    /// The track of an event with no track uuid (nor a default one).
    fn default_event_track(&mut self, seq: &SeqState, ty: i32, no_uuid: bool) -> Option<TrackId> {
        if let Some((pid, tid)) = seq.thread {
            if no_uuid || ty == track_event_type::UNSPECIFIED {
                return Some(self.thread_track(pid, tid));
            }
        }
        Some(self.global())
    }

    /// Legacy per-thread counters (`thread_time_*_us`, `thread_instruction_count_*`), as TP's
    /// `thread_time` (ns) and `thread_instruction_count` series of the sequence's thread.
    fn legacy_thread_counters(&mut self, seq: &mut SeqState, ev: &view::EventView<'_>, ts: i64) {
        let Some((pid, tid)) = seq.thread else {
            return;
        };
        let time = match (ev.thread_time_absolute_us, ev.thread_time_delta_us) {
            (Some(a), _) => Some(a),
            (None, Some(d)) => seq.legacy_thread_time_us.map(|b| b.saturating_add(d)),
            _ => None,
        };
        if ev.thread_time_delta_us.is_some() {
            seq.legacy_thread_time_us = time;
        }
        let instr = match (
            ev.thread_instruction_count_absolute,
            ev.thread_instruction_count_delta,
        ) {
            (Some(a), _) => Some(a),
            (None, Some(d)) => seq.legacy_instructions.map(|b| b.saturating_add(d)),
            _ => None,
        };
        if ev.thread_instruction_count_delta.is_some() {
            seq.legacy_instructions = instr;
        }
        for (which, value) in [
            ("thread_time", time.map(|us| scale_i(us, 1000))),
            ("thread_instruction_count", instr),
        ] {
            let Some(v) = value else { continue };
            let idx = match self.legacy_counters.get(&(tid, which)) {
                Some(&i) => i,
                None => {
                    let track = self.thread_track(pid, tid);
                    let name = self.model.strings.intern(which);
                    self.model.counters.push(CounterSeries {
                        track,
                        name,
                        unit: StrId(0),
                        pid: Some(pid),
                        ts_ns: Vec::new(),
                        value: Vec::new(),
                    });
                    let i = self.model.counters.len() - 1;
                    self.legacy_counters.insert((tid, which), i);
                    i
                }
            };
            let s = &mut self.model.counters[idx];
            s.ts_ns.push(ts);
            s.value.push(v as f64);
        }
    }

    fn categories(&mut self, seq: &SeqState, ev: &view::EventView<'_>) -> StrId {
        let n = ev.n_category_iids + ev.n_categories;
        if n == 0 {
            return StrId(0);
        }
        if n == 1 {
            let (one, text) = if ev.n_category_iids == 1 {
                (ev.first_category_iid, None)
            } else {
                (None, ev.first_category)
            };
            if let Some(iid) = one {
                return match seq.categories.get(&iid) {
                    Some(&s) => s,
                    None => {
                        self.unknown_iid("event_categories", iid);
                        StrId(0)
                    }
                };
            }
            return self.text(text.unwrap_or(b""));
        }
        // Two to four interned categories (Chromium's flow and toplevel events): the joined id
        // is a function of their ids (in wire order, packed 32 bits each), cached.
        let set = (ev.n_category_iids <= 4 && ev.n_categories == 0)
            .then(|| {
                let iids = if ev.n_category_iids == 2 {
                    [ev.first_category_iid?, ev.second_category_iid?, 0, 0]
                } else {
                    let all = SmallU64s::of(ev, 3);
                    std::array::from_fn(|i| all.get(i).unwrap_or(0))
                };
                let mut key = 0u128;
                for (i, iid) in iids.iter().take(ev.n_category_iids).enumerate() {
                    let s = *seq.categories.get(iid)?;
                    key |= u128::from(s.0) << (32 * i);
                }
                Some(key)
            })
            .flatten();
        if let Some(key) = set {
            if let Some(&joined) = self.category_sets.get(&key) {
                return joined;
            }
        }
        let joined = self.join_categories(seq, ev, n);
        if let Some(key) = set {
            self.category_sets.insert(key, joined);
        }
        joined
    }

    /// The canonical category list of an event with several categories: the parts (each split
    /// at commas) sorted, deduplicated and joined with commas.
    fn join_categories(&mut self, seq: &SeqState, ev: &view::EventView<'_>, n: usize) -> StrId {
        let mut parts: Vec<String> = Vec::with_capacity(n);
        for iid in ev.u64s(3) {
            match seq.categories.get(&iid) {
                Some(&s) => parts.push(self.model.str(s).to_string()),
                None => self.unknown_iid("event_categories", iid),
            }
        }
        let mut texts: Vec<&[u8]> = Vec::new();
        ev.each(22, |r| {
            if let view::Rep::Bytes(b) = r {
                texts.push(b);
            }
        });
        for c in texts {
            let s = self.text(c);
            parts.push(self.model.str(s).to_string());
        }
        // A category string may itself be a comma list; split so the join is canonical.
        let mut all: Vec<&str> = parts
            .iter()
            .flat_map(|p| p.split(','))
            .filter(|s| !s.is_empty())
            .collect();
        all.sort_unstable();
        all.dedup();
        let joined = all.join(",");
        self.model.strings.intern(&joined)
    }

    fn extra_counters(&mut self, seq: &mut SeqState, ev: &view::EventView<'_>, ts: i64) {
        // Each walk of the event is made only when its field occurs (the counts are known).
        let of = |n: usize, num: u32| {
            if n == 0 {
                SmallU64s::default()
            } else {
                SmallU64s::of(ev, num)
            }
        };
        let int_uuids = of(ev.n_extra_counter_track_uuids, 31);
        let double_uuids = of(ev.n_extra_double_counter_track_uuids, 45);
        // Samples are added in wire order, integer values first (no buffer per event).
        let mut i = 0usize;
        if ev.n_extra_counter_values > 0 {
            ev.extra_counter_values(|v| {
                let uuid = if int_uuids.is_empty() {
                    seq.default_extra_counters.get(i).copied()
                } else {
                    int_uuids.get(i)
                };
                self.extra_counter_sample(seq, uuid, ts, v as i64 as f64);
                i += 1;
            });
        }
        let mut j = 0usize;
        if ev.n_extra_double_counter_values > 0 {
            ev.each(46, |r| {
                if let view::Rep::F64(v) = r {
                    let uuid = if double_uuids.is_empty() {
                        seq.default_extra_double_counters.get(j).copied()
                    } else {
                        double_uuids.get(j)
                    };
                    self.extra_counter_sample(seq, uuid, ts, v);
                    j += 1;
                }
            });
        }
    }

    fn extra_counter_sample(&mut self, seq: &mut SeqState, uuid: Option<u64>, ts: i64, v: f64) {
        match uuid {
            Some(u) => self.counter_sample(seq, u, ts, v),
            None => self.diag(Diag::CounterWithoutTrack, || {
                Some("an extra counter value has no track uuid (more values than uuids)".into())
            }),
        }
    }

    /// The event's debug annotations as an arg set: the first [`limits::MAX_ARGS_PER_EVENT`]
    /// are kept, the rest counted (`annotations_over_limit`). Flat annotations are read from
    /// the wire without allocation; nested ones are decoded with prost.
    fn args(&mut self, seq: &mut SeqState, ev: &view::EventView<'_>) -> ArgsId {
        let n = ev.n_debug_annotations;
        if n == 0 {
            return ArgsId(0);
        }
        if n > view::INLINE_ANNOTATIONS {
            return self.build_args(seq, ev);
        }
        let annotations = &ev.annotations[..n];
        if seq.args_gen == 0 {
            seq.args_gen = self.args_cache.next_gen();
        }
        let h = match self.vouched.take() {
            Some(v) if v.at == annotations[0].as_ptr() as usize => {
                // Found by `vouch` under the generation the sequence still has: the entry is
                // still there (only this function inserts, which may empty the cache).
                if let Some((_, id)) = v.hit.filter(|&(gen, _)| gen == seq.args_gen) {
                    return id;
                }
                v.hash
            }
            _ => self.args_cache.hash(annotations),
        };
        let key = (seq.args_gen, h);
        if let Some(id) = self.args_cache.get(&key, annotations) {
            return id;
        }
        let diags = self.diags;
        let id = self.build_args(seq, ev);
        if self.diags == diags {
            self.args_cache.insert(key, annotations, id);
        }
        id
    }

    /// The arg set of an event's debug annotations, built from their bytes.
    fn build_args(&mut self, seq: &SeqState, ev: &view::EventView<'_>) -> ArgsId {
        let n = ev.n_debug_annotations;
        let keep = n.min(limits::MAX_ARGS_PER_EVENT);
        // Entries go straight into the model's columnar arg sets (no Vec per event).
        let one = |imp: &mut Self, b: &[u8]| {
            let a = view::AnnView::parse(b);
            if a.complex && (a.has_leaf() || a.n_nested > 1) {
                // A leaf value beside nested ones, or a repeated nested_value (merged as
                // prost merges it): the rare cases read through the decoded message.
                let full = DebugAnnotation::decode(b).unwrap_or_default();
                let key = imp.annotation_name(seq, &full);
                let value = imp.annotation_value(seq, &full, 0);
                imp.model.args.push_entry(key, value);
            } else if a.complex {
                let key = imp.flat_annotation_name(seq, &a);
                let mut buf = std::mem::take(&mut imp.nested_buf);
                buf.clear();
                imp.encode_wire(seq, &a, b, 0, &mut buf);
                let id = imp.model.args.add_nested(&buf);
                imp.nested_buf = buf;
                imp.model.args.push_entry(key, ArgValue::Nested(id));
            } else {
                let key = imp.flat_annotation_name(seq, &a);
                match imp.flat_leaf(seq, &a) {
                    FlatLeaf::Value(value) => imp.model.args.push_entry(key, value),
                    FlatLeaf::Pointer(p) => {
                        let mut hex = [0u8; 18];
                        imp.model
                            .args
                            .push_text_entry(key, pointer_text(p, &mut hex));
                    }
                }
            }
        };
        if n <= view::INLINE_ANNOTATIONS {
            for b in &ev.annotations[..n] {
                one(self, b);
            }
        } else {
            let mut i = 0usize;
            ev.each(4, |r| {
                let view::Rep::Bytes(b) = r else { return };
                if i < keep {
                    one(self, b);
                }
                i += 1;
            });
        }
        if n > keep {
            self.diag(Diag::AnnotationsOverLimit, || {
                Some(format!(
                    "{n} debug annotations on one event, {keep} kept (limit {})",
                    limits::MAX_ARGS_PER_EVENT
                ))
            });
        }
        self.model.args.finish_set()
    }

    fn flat_annotation_name(&mut self, seq: &SeqState, a: &view::AnnView<'_>) -> StrId {
        if let Some(iid) = a.name_iid {
            match seq.annotation_names.get(&iid) {
                Some(&s) => s,
                None => {
                    self.unknown_iid("debug_annotation_names", iid);
                    StrId(0)
                }
            }
        } else if let Some(n) = a.name {
            self.text(n)
        } else {
            StrId(0)
        }
    }

    /// As [`Importer::annotation_value`] for an annotation without nested values; a pointer
    /// is kept as its number, for the caller to write as "0x…" text without a `String`.
    fn flat_leaf(&mut self, seq: &SeqState, a: &view::AnnView<'_>) -> FlatLeaf {
        let v = |v| FlatLeaf::Value(v);
        if let Some(b) = a.bool_value {
            return v(ArgValue::Bool(b));
        }
        if let Some(x) = a.uint_value {
            return v(ArgValue::UInt(x));
        }
        if let Some(x) = a.int_value {
            return v(ArgValue::Int(x));
        }
        if let Some(x) = a.double_value {
            return v(ArgValue::Double(x));
        }
        if let Some(t) = a.string_value {
            return v(ArgValue::Str(self.text(t)));
        }
        if let Some(iid) = a.string_value_iid {
            return v(match seq.annotation_strings.get(&iid) {
                Some(&s) => ArgValue::Str(s),
                None => {
                    self.unknown_iid("debug_annotation_string_values", iid);
                    ArgValue::Str(StrId(0))
                }
            });
        }
        if let Some(p) = a.pointer_value {
            return FlatLeaf::Pointer(p);
        }
        if let Some(t) = a.legacy_json_value {
            return v(ArgValue::Text(String::from_utf8_lossy(t).into_owned()));
        }
        v(ArgValue::Text(String::new()))
    }

    fn annotation_name(&mut self, seq: &SeqState, a: &DebugAnnotation) -> StrId {
        if let Some(iid) = a.name_iid {
            match seq.annotation_names.get(&iid) {
                Some(&s) => s,
                None => {
                    self.unknown_iid("debug_annotation_names", iid);
                    StrId(0)
                }
            }
        } else if let Some(n) = &a.name {
            self.text(n)
        } else {
            StrId(0)
        }
    }

    fn annotation_value(&mut self, seq: &SeqState, a: &DebugAnnotation, depth: u32) -> ArgValue {
        if let Some(v) = a.bool_value {
            return ArgValue::Bool(v);
        }
        if let Some(v) = a.uint_value {
            return ArgValue::UInt(v);
        }
        if let Some(v) = a.int_value {
            return ArgValue::Int(v);
        }
        if let Some(v) = a.double_value {
            return ArgValue::Double(v);
        }
        if let Some(v) = &a.string_value {
            return ArgValue::Str(self.text(v));
        }
        if let Some(iid) = a.string_value_iid {
            return match seq.annotation_strings.get(&iid) {
                Some(&s) => ArgValue::Str(s),
                None => {
                    self.unknown_iid("debug_annotation_string_values", iid);
                    ArgValue::Str(StrId(0))
                }
            };
        }
        if let Some(v) = a.pointer_value {
            return ArgValue::Text(format!("0x{v:x}"));
        }
        if let Some(v) = &a.legacy_json_value {
            return ArgValue::Text(String::from_utf8_lossy(v).into_owned());
        }
        if a.nested_value.is_some() || !a.dict_entries.is_empty() || !a.array_values.is_empty() {
            let mut buf = std::mem::take(&mut self.nested_buf);
            buf.clear();
            self.encode_annotation(seq, a, depth, &mut buf);
            let id = self.model.args.add_nested(&buf);
            self.nested_buf = buf;
            return ArgValue::Nested(id);
        }
        ArgValue::Text(String::new())
    }

    /// Appends a leaf annotation value to a nested encoding (as its JSON text had it: pointers
    /// and legacy JSON as strings).
    fn encode_leaf(value: ArgValue, buf: &mut Vec<u8>) {
        match value {
            ArgValue::Int(v) => enc::int(buf, v),
            ArgValue::UInt(v) => enc::uint(buf, v),
            ArgValue::Double(v) => enc::double(buf, v),
            ArgValue::Bool(v) => enc::bool(buf, v),
            ArgValue::Str(s) => enc::str(buf, s),
            ArgValue::Text(t) => enc::text(buf, &t),
            // A leaf has no nested value.
            ArgValue::Nested(_) => enc::null(buf),
        }
    }

    /// Encodes a decoded nested annotation ([`crate::model::nested`]): its dict entries, else
    /// its array values, else its `NestedValue`, else its leaf value; null past 32 levels.
    fn encode_annotation(
        &mut self,
        seq: &SeqState,
        a: &DebugAnnotation,
        depth: u32,
        buf: &mut Vec<u8>,
    ) {
        if depth > 32 {
            return enc::null(buf);
        }
        if !a.dict_entries.is_empty() {
            enc::dict(buf, a.dict_entries.len());
            for e in &a.dict_entries {
                let k = self.annotation_name(seq, e);
                enc::key(buf, k);
                self.encode_annotation(seq, e, depth + 1, buf);
            }
            return;
        }
        if !a.array_values.is_empty() {
            enc::array(buf, a.array_values.len());
            for e in &a.array_values {
                self.encode_annotation(seq, e, depth + 1, buf);
            }
            return;
        }
        if let Some(n) = &a.nested_value {
            return encode_nested(n, 0, buf);
        }
        let v = self.annotation_value(seq, a, depth + 1);
        Self::encode_leaf(v, buf);
    }

    /// As [`Importer::encode_annotation`], read from the wire: `b` is a validated
    /// `DebugAnnotation` and `a` its top-level fields (no decoded message, no allocation).
    fn encode_wire(
        &mut self,
        seq: &SeqState,
        a: &view::AnnView<'_>,
        b: &[u8],
        depth: u32,
        buf: &mut Vec<u8>,
    ) {
        if depth > 32 {
            return enc::null(buf);
        }
        if a.n_dict > 0 {
            enc::dict(buf, a.n_dict);
            view::each_len(b, 11, |e| {
                let ea = view::AnnView::parse(e);
                let k = self.flat_annotation_name(seq, &ea);
                enc::key(buf, k);
                self.encode_child(seq, &ea, e, depth + 1, buf);
            });
            return;
        }
        if a.n_array > 0 {
            enc::array(buf, a.n_array);
            view::each_len(b, 12, |e| {
                let ea = view::AnnView::parse(e);
                self.encode_child(seq, &ea, e, depth + 1, buf);
            });
            return;
        }
        if a.n_nested > 0 {
            let mut one = None;
            view::each_len(b, 8, |n| one = Some(n));
            return encode_nested_wire(one.unwrap_or(b""), 0, buf);
        }
        match self.flat_leaf(seq, a) {
            FlatLeaf::Value(v) => Self::encode_leaf(v, buf),
            FlatLeaf::Pointer(p) => enc::text(buf, pointer_text(p, &mut [0u8; 18])),
        }
    }

    /// A dict entry or array value: read from the wire unless it repeats `nested_value`
    /// (merged as prost merges it, through the decoded message).
    fn encode_child(
        &mut self,
        seq: &SeqState,
        a: &view::AnnView<'_>,
        b: &[u8],
        depth: u32,
        buf: &mut Vec<u8>,
    ) {
        if a.n_nested > 1 && a.n_dict == 0 && a.n_array == 0 && depth <= 32 {
            let full = DebugAnnotation::decode(b).unwrap_or_default();
            self.encode_annotation(seq, &full, depth, buf);
        } else {
            self.encode_wire(seq, a, b, depth, buf);
        }
    }

    /// Settles the tracks of uuids that had no descriptor when their first event came: the
    /// described track when the descriptor came later, else an unnamed track of their own.
    fn settle_placeholders(&mut self) {
        let placeholders = std::mem::take(&mut self.placeholders);
        if placeholders.is_empty() {
            return;
        }
        let mut real: Vec<Option<TrackId>> = Vec::with_capacity(placeholders.len());
        // (tracks that existed at the first event, tracks created for it now)
        let mut groups: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
        for p in &placeholders {
            self.cur_offset = p.offset;
            self.cur_index = p.index;
            let before = self.model.tracks.len();
            let t = match self.uuid_track(p.uuid, 0, false) {
                Some(t) => Some(t),
                None => self.undescribed_track(p.uuid),
            };
            if let Some(t) = t.and_then(|t| self.model.tracks.get_mut(t.0 as usize)) {
                if t.kind == TrackKind::Async && t.name.0 == 0 && t.overflow_of.is_none() {
                    t.name = p.first_name;
                }
            }
            groups.push((p.tracks_before, before..self.model.tracks.len()));
            real.push(t);
        }
        // Number the tracks as two passes would have: a settled track and its ancestors made
        // after its first event go where that event was (ancestors first).
        let total = self.model.tracks.len();
        let mut assigned = vec![false; total];
        let mut placed: Vec<(usize, Vec<usize>)> = Vec::with_capacity(groups.len());
        for ((at, created), t) in groups.iter().zip(&real) {
            let mut chain = Vec::new();
            let mut cur = *t;
            while let Some(c) = cur {
                if chain.len() > 64 {
                    break;
                }
                chain.push(c.0 as usize);
                cur = self.model.tracks[c.0 as usize].parent;
            }
            chain.reverse();
            let mut group = Vec::new();
            for i in chain.into_iter().chain(created.clone()) {
                if i >= *at && !assigned[i] {
                    assigned[i] = true;
                    group.push(i);
                }
            }
            placed.push((*at, group));
        }
        let mut order: Vec<usize> = Vec::with_capacity(total);
        let mut g = placed.iter().peekable();
        for (old, &moved) in assigned.iter().enumerate() {
            while let Some((_, r)) = g.next_if(|(at, _)| *at <= old) {
                order.extend(r.iter().copied());
            }
            if !moved {
                order.push(old);
            }
        }
        for (_, r) in g {
            order.extend(r.iter().copied());
        }
        let identity = order.iter().enumerate().all(|(i, &o)| i == o);
        let mut new_of = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of[old] = new as u32;
        }
        let remap = |t: TrackId| TrackId(new_of[t.0 as usize]);
        if !identity {
            let mut old_tracks: Vec<Option<crate::model::Track>> =
                std::mem::take(&mut self.model.tracks)
                    .into_iter()
                    .map(Some)
                    .collect();
            self.model.tracks = order
                .iter()
                .filter_map(|&o| old_tracks[o].take())
                .map(|mut t| {
                    t.parent = t.parent.map(remap);
                    t.overflow_of = t.overflow_of.map(remap);
                    t
                })
                .collect();
            for c in &mut self.model.counters {
                c.track = remap(c.track);
            }
        }
        self.builder.retarget(move |t| {
            let t = if t.0 >= PLACEHOLDER_BASE {
                real[(t.0 - PLACEHOLDER_BASE) as usize]?
            } else {
                t
            };
            Some(if identity {
                t
            } else {
                TrackId(new_of[t.0 as usize])
            })
        });
    }

    fn finish(mut self) {
        self.settle_placeholders();
        let builder = std::mem::take(&mut self.builder);
        self.model.stats.events = self.packets;
        // The slices' finish starts first: natively, on the builder's thread, it overlaps what
        // follows here, which needs neither the builder nor the rest of the model.
        let mut counters = std::mem::take(&mut self.model.counters);
        let finishing = builder.finish_start(self.model);
        // The importer's own state (descriptors, interned data, track maps: 6 MB of
        // descriptors alone on Chromium's 59 MB trace) is freed, and the counters sorted and
        // trimmed (their growth room given back), while the slices are built, where the import
        // peaks, or (the builder on this thread, as in wasm32) before they are.
        let model = self.into_model();
        for s in &mut counters {
            s.sort_by_time();
        }
        finishing.wait(model);
        model.counters = counters;
        model.args.shrink_to_fit();
    }

    /// The model, the rest of the importer dropped.
    fn into_model(self) -> &'m mut Model {
        self.model
    }
}

/// The values of a repeated varint field of an event, the first 8 held inline (an event's extra
/// counter track uuids: a handful, read for every event that carries counter values).
#[derive(Default)]
struct SmallU64s {
    inline: [u64; 8],
    len: usize,
    more: Vec<u64>,
}

impl SmallU64s {
    fn of(ev: &view::EventView<'_>, num: u32) -> SmallU64s {
        let mut s = SmallU64s {
            inline: [0; 8],
            len: 0,
            more: Vec::new(),
        };
        ev.each(num, |r| {
            if let view::Rep::U64(x) = r {
                if s.len < s.inline.len() {
                    s.inline[s.len] = x;
                } else {
                    s.more.push(x);
                }
                s.len += 1;
            }
        });
        s
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn get(&self, i: usize) -> Option<u64> {
        if i >= self.len {
            None
        } else if i < self.inline.len() {
            Some(self.inline[i])
        } else {
            self.more.get(i - self.inline.len()).copied()
        }
    }
}

/// A flat annotation's value ([`Importer::flat_leaf`]).
enum FlatLeaf {
    Value(ArgValue),
    /// `pointer_value`, written as [`pointer_text`].
    Pointer(u64),
}

/// `v` as `format!("0x{v:x}")` writes it, in `buf` (18 bytes hold `u64::MAX`).
fn pointer_text(v: u64, buf: &mut [u8; 18]) -> &str {
    use std::io::Write;
    let mut rest = &mut buf[..];
    let len = match write!(rest, "0x{v:x}") {
        Ok(()) => 18 - rest.len(),
        Err(_) => 0,
    };
    std::str::from_utf8(&buf[..len]).unwrap_or("")
}

/// Makes room for one more element growing by half, not doubling, when full (counter series
/// are the model's longest columns: at most a third spare instead of a half).
fn grow_by_half<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len() / 2 + 8);
    }
}

/// Encodes a decoded `NestedValue` tree (its JSON: dict keys zipped with values, null past 32
/// levels).
fn encode_nested(n: &NestedValue, depth: u32, buf: &mut Vec<u8>) {
    if depth > 32 {
        return enc::null(buf);
    }
    match n.nested_type.unwrap_or(0) {
        1 => {
            enc::dict_text(buf, n.dict_keys.len().min(n.dict_values.len()));
            for (k, v) in n.dict_keys.iter().zip(&n.dict_values) {
                enc::key_text(buf, &String::from_utf8_lossy(k));
                encode_nested(v, depth + 1, buf);
            }
        }
        2 => {
            enc::array(buf, n.array_values.len());
            for v in &n.array_values {
                encode_nested(v, depth + 1, buf);
            }
        }
        _ => {
            if let Some(v) = n.int_value {
                enc::int(buf, v)
            } else if let Some(v) = n.double_value {
                enc::double(buf, v)
            } else if let Some(v) = n.bool_value {
                enc::bool(buf, v)
            } else if let Some(v) = &n.string_value {
                enc::text(buf, &String::from_utf8_lossy(v))
            } else {
                enc::null(buf)
            }
        }
    }
}

/// `b` as text, invalid UTF-8 replaced by U+FFFD: as [`String::from_utf8_lossy`], whose
/// chunked scan costs more than [`std::str::from_utf8`] on the valid text nearly all traces hold.
fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// As [`encode_nested`], read from the wire (`b`: a validated `NestedValue`).
fn encode_nested_wire(b: &[u8], depth: u32, buf: &mut Vec<u8>) {
    if depth > 32 {
        return enc::null(buf);
    }
    let n = view::NestedView::parse(b);
    match n.nested_type.unwrap_or(0) {
        1 => {
            let m = n.n_dict_keys.min(n.n_dict_values);
            enc::dict_text(buf, m);
            view::each_pair(b, (2, 3), m, |k, v| {
                enc::key_text(buf, &lossy(k));
                encode_nested_wire(v, depth + 1, buf);
            });
        }
        2 => {
            enc::array(buf, n.n_array_values);
            view::each_len(b, 4, |v| encode_nested_wire(v, depth + 1, buf));
        }
        _ => {
            if let Some(v) = n.int_value {
                enc::int(buf, v)
            } else if let Some(v) = n.double_value {
                enc::double(buf, v)
            } else if let Some(v) = n.bool_value {
                enc::bool(buf, v)
            } else if let Some(v) = n.string_value {
                enc::text(buf, &lossy(v))
            } else {
                enc::null(buf)
            }
        }
    }
}

#[cfg(test)]
mod tests;
