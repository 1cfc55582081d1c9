//! The one slice builder every importer feeds (Perfetto `slice_tracker` role): begin/end pairs,
//! complete and instant events in any order become nested, columnar [`Slices`].
//!
//! Events are kept per track as they come (no global sort). Two phases, both per track:
//! 1. Pairing: events sorted by (ts, arrival order); an END closes the innermost open BEGIN
//!    (with a name, the innermost open BEGIN of that name — Chrome JSON `E` semantics). An END
//!    with nothing to close is counted (`end_without_begin`) and dropped; a BEGIN never closed
//!    becomes an incomplete slice (`dur_ns = -1`). A track whose events come in timestamp
//!    order (as Perfetto sequences write them) is paired while streaming, 48 bytes a slice and
//!    nothing for an END; any other track keeps its raw events (40 bytes each) and is paired
//!    at [`SliceBuilder::finish`], with the same result either way.
//! 2. Nesting: intervals sorted by (ts ascending, duration descending, arrival order) and nested
//!    with a stack. A slice that partly overlaps the open slice is never dropped: it moves to an
//!    overflow lane of its track (`slice_overlap_overflow_lane`).
//!
//! Architecture Invariant: nesting logic exists only here.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};

use super::chunks::Chunks;
use super::diagnostics::Kind as Diag;
use super::{slice_flags, ArgsId, FrameId, Model, SliceId, Slices, StrId, Track, TrackId};

/// Event kinds, kept in the top byte of [`Pending::order_kind`].
const BEGIN: u8 = 0;
const END: u8 = 1;
const END_NAMED: u8 = 2;
const COMPLETE: u8 = 3;
const INSTANT: u8 = 4;

/// One slice event as an importer gives it (40 bytes; opaque outside the model): what
/// [`SliceEvents::give`] takes.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    track: TrackId,
    kind: u8,
    flags: u8,
    ts_ns: i64,
    /// COMPLETE: the duration (≥ 0); END_NAMED: the name to match.
    x: i64,
    name: StrId,
    category: StrId,
    frame: FrameId,
    args: ArgsId,
}

const _: () = assert!(std::mem::size_of::<Op>() == 40);

/// What an importer gives a slice builder ([`SliceBuilder`], or a
/// [`SliceSink`](super::sink::SliceSink) that may run one on another thread): begin/end pairs,
/// complete slices and instants, filed in the order given.
pub trait SliceEvents {
    /// Files one event (the other methods make it).
    fn give(&mut self, op: Op);

    /// A slice begins at `ts_ns` on `track`.
    #[allow(clippy::too_many_arguments)]
    fn begin(
        &mut self,
        track: TrackId,
        ts_ns: i64,
        name: StrId,
        category: StrId,
        frame: FrameId,
        args: ArgsId,
        flags: u8,
    ) {
        let kind = BEGIN;
        self.give(Op {
            track,
            kind,
            flags,
            ts_ns,
            x: 0,
            name,
            category,
            frame,
            args,
        });
    }

    /// A slice ends at `ts_ns` on `track`. With `name`, the innermost open slice of that name is
    /// closed (Chrome JSON); without, the innermost open slice (Perfetto). `args` are merged into
    /// the begin's args.
    fn end(&mut self, track: TrackId, ts_ns: i64, name: Option<StrId>, args: ArgsId) {
        let (kind, x) = match name {
            Some(n) => (END_NAMED, i64::from(n.0)),
            None => (END, 0),
        };
        let none = StrId(0);
        self.give(Op {
            track,
            kind,
            flags: 0,
            ts_ns,
            x,
            name: none,
            category: none,
            frame: FrameId(0),
            args,
        });
    }

    /// A complete slice of `dur_ns` (must be ≥ 0; the caller counts and drops negative ones).
    #[allow(clippy::too_many_arguments)]
    fn complete(
        &mut self,
        track: TrackId,
        ts_ns: i64,
        dur_ns: i64,
        name: StrId,
        category: StrId,
        frame: FrameId,
        args: ArgsId,
        flags: u8,
    ) {
        let x = dur_ns.max(0);
        self.give(Op {
            kind: COMPLETE,
            x,
            track,
            flags,
            ts_ns,
            name,
            category,
            frame,
            args,
        });
    }

    /// A zero-duration instant.
    #[allow(clippy::too_many_arguments)]
    fn instant(
        &mut self,
        track: TrackId,
        ts_ns: i64,
        name: StrId,
        category: StrId,
        frame: FrameId,
        args: ArgsId,
        flags: u8,
    ) {
        let flags = flags | slice_flags::INSTANT;
        self.give(Op {
            kind: INSTANT,
            flags,
            track,
            ts_ns,
            x: 0,
            name,
            category,
            frame,
            args,
        });
    }
}

impl SliceEvents for SliceBuilder {
    fn give(&mut self, op: Op) {
        self.push(&op);
    }
}

/// Bits of [`Pending::order_kind`] below the kind and flags: the arrival order (2^48 events).
const ORDER_BITS: u32 = 48;
const ORDER_MASK: u64 = (1 << ORDER_BITS) - 1;

/// One event waiting for pairing, 40 bytes (its track is the bucket it is in).
#[derive(Clone, Copy, Debug)]
struct Pending {
    ts_ns: i64,
    /// Arrival order (low 48 bits), flags (next 8), kind (top 8).
    order_kind: u64,
    /// COMPLETE: the duration (≥ 0); END_NAMED: the name to match.
    x: i64,
    name: StrId,
    category: StrId,
    frame: FrameId,
    args: ArgsId,
}

impl Pending {
    fn order(&self) -> u64 {
        self.order_kind & ORDER_MASK
    }
    fn kind(&self) -> u8 {
        (self.order_kind >> 56) as u8
    }
    fn flags(&self) -> u8 {
        (self.order_kind >> ORDER_BITS) as u8
    }
}

/// A finished interval before nesting (in (ts, arrival order) order within its track).
#[derive(Clone, Debug)]
struct Interval {
    ts_ns: i64,
    /// -1 for incomplete.
    dur_ns: i64,
    name: StrId,
    category: StrId,
    frame: FrameId,
    args: ArgsId,
    flags: u8,
}

impl Interval {
    /// End time used for nesting; incomplete slices extend to the end of time.
    fn end(&self) -> i64 {
        if self.dur_ns < 0 {
            i64::MAX
        } else {
            self.ts_ns.saturating_add(self.dur_ns)
        }
    }
}

/// A slice paired while streaming: a BEGIN (with its END once one closed it), a COMPLETE or an
/// INSTANT, holding what it takes to give back both events (48 bytes for a BEGIN/END pair).
#[derive(Clone, Copy, Debug)]
struct Pair {
    ts_ns: i64,
    /// COMPLETE: the duration; a closed BEGIN: its END's timestamp.
    x: i64,
    /// The BEGIN, COMPLETE or INSTANT event's order, flags and kind.
    order_kind: u64,
    name: StrId,
    category: StrId,
    frame: FrameId,
    args: ArgsId,
    end_args: ArgsId,
    /// A closed BEGIN: its END's arrival order minus its own (≥ 1; an END streams only
    /// when that fits); [`OPEN`] while none closed it. The END itself is an unnamed END
    /// without flags (a named END never streams).
    end_after: u32,
}

const _: () = assert!(std::mem::size_of::<Pair>() == 48);
// `pair` turns a buffer of events into one of intervals in place: same size and alignment.
const _: () = assert!(
    std::mem::size_of::<Pending>() == std::mem::size_of::<Interval>()
        && std::mem::align_of::<Pending>() == std::mem::align_of::<Interval>()
);

/// [`Pair::end_after`] of a BEGIN no END has closed.
const OPEN: u32 = 0;

impl Pair {
    fn closed(&self) -> bool {
        self.end_after != OPEN
    }

    /// The closing END's arrival order (for a closed BEGIN).
    fn end_order(&self) -> u64 {
        (self.order_kind & ORDER_MASK) + u64::from(self.end_after)
    }
}

/// Events a re-streamed bucket holds back, in (ts, arrival order) order, before pairing them
/// (an event may arrive this many events late in timestamp order and the track still
/// streams); each further re-streaming holds back [`WINDOW_GROWTH`] times more.
const WINDOW: usize = 4096;
/// How much each re-streaming of a bucket widens its window.
const WINDOW_GROWTH: usize = 4;
/// Re-streamings a bucket may take before it turns raw (windows of 4096, 16 384, 65 536
/// events: at most 2.6 MB held back).
const RESTREAMS: u8 = 3;

/// The pending events of one track.
///
/// Streaming (the common case: a track whose events come in timestamp order with unnamed
/// ENDs and no negative timestamps, as Perfetto sequences write them): events are paired as
/// they come, which is what pairing them sorted would do; an END costs no entry of its own.
/// Raw: the events in arrival order, paired at [`SliceBuilder::finish`].
///
/// At the first event that breaks the timestamp order, a streaming bucket is re-streamed:
/// its events are given back exactly, sorted by (ts, arrival order) and paired again, all but
/// the last [`WINDOW`], which are held back in a reorder window (`window`); later events are
/// inserted there in order and the earliest is paired when it is full. Tracks whose events
/// come slightly out of order (Chromium's 59 MB trace: µs-rounded timestamps a few ns before
/// ns-precise ones of the same thread, 633 468 events) so stay at 48 bytes a slice instead of
/// 40 bytes an event. An event earlier than one already paired re-streams the bucket again
/// with a window [`WINDOW_GROWTH`] times wider (one track of that trace: 8 ms back, ~6 000
/// events), [`RESTREAMS`] times at most; then the bucket turns raw, giving back its events
/// exactly.
#[derive(Debug, Default)]
struct Bucket {
    track: TrackId,
    raw: bool,
    /// Streaming: times re-streamed (from 1 on, new events go through `window`).
    restreams: u8,
    /// Re-streamed: events `window` holds at most.
    window_len: usize,
    /// Windowed: events not paired yet, in (ts, arrival order) order, all at or after
    /// `last_ts`.
    window: VecDeque<Pending>,
    /// Raw: the events in arrival order. Streaming: the ENDs that found nothing open
    /// (counted as `end_without_begin` at the end).
    events: Vec<Pending>,
    /// Raw: the events arrived in non-decreasing timestamp order (no sort needed).
    sorted: bool,
    /// Streaming: slices in arrival order and the open BEGINs (indices into `pairs`).
    pairs: Chunks<Pair>,
    open: Vec<u32>,
    /// Streaming: the pairs whose END brought args, in the order they were closed (indices
    /// into `pairs`): the order their END args are merged in.
    end_merges: Vec<u32>,
    /// Streaming: the latest timestamp so far.
    last_ts: i64,
}

impl Bucket {
    fn new(track: TrackId) -> Bucket {
        Bucket {
            track,
            sorted: true,
            last_ts: i64::MIN,
            ..Bucket::default()
        }
    }

    fn is_empty(&self) -> bool {
        self.events.is_empty() && self.pairs.is_empty() && self.window.is_empty()
    }

    /// Events held (an END paired into a [`Pair`] counts).
    fn len(&self) -> usize {
        self.events.len()
            + self.window.len()
            + self
                .pairs
                .iter()
                .map(|p| 1 + usize::from(p.closed()))
                .sum::<usize>()
    }

    /// Slices this bucket gives: a streaming one's pairs, a raw one's events but ENDs.
    fn slice_count(&self) -> usize {
        if self.raw {
            self.events
                .iter()
                .filter(|e| e.kind() != END && e.kind() != END_NAMED)
                .count()
        } else {
            self.pairs.len()
                + self
                    .window
                    .iter()
                    .filter(|e| e.kind() != END && e.kind() != END_NAMED)
                    .count()
        }
    }

    fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.events.capacity() * size_of::<Pending>()
            + self.pairs.heap_bytes()
            + self.open.capacity() * 4
            + self.end_merges.capacity() * 4
            + self.window.capacity() * size_of::<Pending>()
    }

    /// Every timestamp held (for the plausibility range).
    fn each_ts(&self, mut f: impl FnMut(i64)) {
        for e in self.events.iter().chain(&self.window) {
            f(e.ts_ns);
        }
        for p in self.pairs.iter() {
            f(p.ts_ns);
            if p.closed() {
                f(p.x);
            }
        }
    }

    /// A streaming bucket's events given back exactly, in arrival order (the bucket is left
    /// empty: no pairs, no open BEGINs, no window).
    fn take_events(&mut self) -> Vec<Pending> {
        let mut events = Vec::with_capacity(self.len());
        // The ENDs that found nothing open, and the events held back.
        events.append(&mut self.events);
        events.extend(std::mem::take(&mut self.window));
        // The pairs' own events first, then their ENDs, each chunk of pairs freed once its ENDs
        // are given back (`events` holds room for all from the start, so keeping the pairs
        // through the first pass raises no peak). Pairs come in the order their first events
        // were paired, so those form one run, and the ENDs runs of their own: the run-adaptive
        // stable sort merges them (interleaved, they were 4.5 % of the demo trials' import in
        // wasm under an unstable sort). Orders are unique: any sort gives the same result.
        let pairs = std::mem::take(&mut self.pairs);
        for p in pairs.iter() {
            let complete = (p.order_kind >> 56) as u8 == COMPLETE;
            events.push(Pending {
                ts_ns: p.ts_ns,
                order_kind: p.order_kind,
                x: if complete { p.x } else { 0 },
                name: p.name,
                category: p.category,
                frame: p.frame,
                args: p.args,
            });
        }
        for p in pairs.into_chunks().flatten() {
            if p.closed() {
                events.push(Pending {
                    ts_ns: p.x,
                    order_kind: p.end_order() | u64::from(END) << 56,
                    x: 0,
                    name: StrId(0),
                    category: StrId(0),
                    frame: FrameId(0),
                    args: p.end_args,
                });
            }
        }
        events.sort_by_key(Pending::order);
        self.open = Vec::new();
        self.end_merges = Vec::new();
        events
    }

    /// Turns a streaming bucket raw: its events back, in arrival order.
    fn make_raw(&mut self) {
        if self.raw {
            return;
        }
        self.events = self.take_events();
        self.mark_raw();
    }

    /// Raw from now on, `events` in arrival order: `sorted` is set from them.
    fn mark_raw(&mut self) {
        self.sorted = self.events.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns);
        self.raw = true;
    }

    /// A break of the timestamp order (`e` earlier than the latest event paired): every
    /// event so far and `e` sorted by (ts, arrival order), paired again but the last
    /// `window`, which stay in the window.
    fn restream(&mut self, e: Pending, window: usize) {
        let mut events = self.take_events();
        events.push(e);
        // Stable: equal timestamps keep arrival order.
        events.sort_by_key(|e| e.ts_ns);
        self.restreams += 1;
        self.window_len = window;
        self.last_ts = i64::MIN;
        let keep = events.len().saturating_sub(window);
        let mut rest = events.into_iter();
        for e in rest.by_ref().take(keep) {
            self.stream(e);
            if self.raw {
                break;
            }
        }
        if self.raw {
            // Over 2^32 events between a BEGIN and its END: raw after all, in arrival order.
            self.events.extend(rest);
            self.events.sort_unstable_by_key(Pending::order);
            self.mark_raw();
            return;
        }
        self.window.extend(rest);
    }

    /// Pairs the events held back (the bucket may turn raw doing so).
    fn flush(&mut self) {
        while !self.raw {
            let Some(e) = self.window.pop_front() else {
                break;
            };
            self.stream(e);
        }
    }

    /// Windowed: `e` (at or after `last_ts`) into the window in (ts, arrival order) order,
    /// pairing the window's earliest event when it holds more than `window_len`.
    fn hold(&mut self, e: Pending) {
        // After every held event of the same timestamp: `e` arrived last. Most events come
        // in order and go at the back.
        match self.window.back() {
            Some(last) if last.ts_ns > e.ts_ns => {
                let at = self.window.partition_point(|w| w.ts_ns <= e.ts_ns);
                self.window.insert(at, e);
            }
            _ => self.window.push_back(e),
        }
        if self.window.len() > self.window_len {
            if let Some(first) = self.window.pop_front() {
                self.stream(first);
            }
        }
    }

    /// Streaming: one event, paired as it comes.
    fn stream(&mut self, e: Pending) {
        self.last_ts = e.ts_ns;
        match e.kind() {
            BEGIN | COMPLETE | INSTANT => {
                if e.kind() == BEGIN {
                    self.open.push(self.pairs.len() as u32);
                }
                self.pairs.push(Pair {
                    ts_ns: e.ts_ns,
                    x: e.x,
                    order_kind: e.order_kind,
                    end_after: OPEN,
                    name: e.name,
                    category: e.category,
                    frame: e.frame,
                    args: e.args,
                    end_args: ArgsId(0),
                });
            }
            _ => match self.open.pop() {
                Some(k) => {
                    let p = &mut self.pairs[k as usize];
                    let after = e.order().wrapping_sub(p.order_kind & ORDER_MASK);
                    match u32::try_from(after) {
                        Ok(after) if after != OPEN => {
                            p.x = e.ts_ns;
                            p.end_after = after;
                            p.end_args = e.args;
                            if e.args.0 != 0 {
                                self.end_merges.push(k);
                            }
                        }
                        // Over 2^32 events apart (or, re-streamed, an END that arrived before
                        // the BEGIN it closes): the bucket keeps its events raw.
                        _ => {
                            self.events.push(e);
                            self.make_raw();
                        }
                    }
                }
                None => self.events.push(e),
            },
        }
    }

    /// Streaming: the intervals, as [`pair`] makes them from the same events, with the
    /// diagnostics pairing them gives. When they already come in nesting order (ts ascending,
    /// end descending: the usual case, a track's slices paired in timestamp order), they are
    /// made one by one as [`nest`] takes them, each chunk of pairs freed once read, so a
    /// track's pairs and its intervals (40 bytes a slice) are never held at once.
    fn intervals(self, fx: &mut Effects) -> Intervals {
        debug_assert!(self.window.is_empty(), "flushed first");
        // END args merge in the order pairing sorted events meets the ENDs: (ts, order). The
        // pairs to merge are listed by index (4 bytes each: a track may hold hundreds of
        // thousands) in the order streaming closed them, which is that order: streaming pairs
        // events in (ts, order) order (the window holds back those that come slightly late).
        // The order is checked, and the list sorted by that key looked up should it not hold
        // (sorting it always was ~5 ms of the finish's longer run on Chromium's 59 MB trace).
        let mut pairs = self.pairs;
        let mut merges = self.end_merges;
        let key = |pairs: &Chunks<Pair>, i: u32| {
            let p = &pairs[i as usize];
            (p.x, p.end_order())
        };
        if !merges.is_sorted_by_key(|&i| key(&pairs, i)) {
            merges.sort_unstable_by_key(|&i| key(&pairs, i));
        }
        debug_assert_eq!(
            merges.len(),
            pairs
                .iter()
                .filter(|p| p.closed() && p.end_args.0 != 0)
                .count(),
            "every END with args is listed once"
        );
        for i in merges {
            let p = &mut pairs[i as usize];
            p.args = fx.merge(p.args, p.end_args);
        }
        for e in &self.events {
            fx.diagnostics()
                .add(Diag::EndWithoutBegin, None, Some(e.order()), || {
                    Some(format!("at {} ns", e.ts_ns))
                });
        }
        if !self.open.is_empty() {
            fx.diagnostics().add_n(
                Diag::SliceNeverEnded,
                self.open.len() as u64,
                None,
                None,
                || None,
            );
        }
        let mut last: Option<(i64, i64)> = None;
        let in_order = pairs.iter().all(|p| {
            let iv = p.interval();
            let key = (iv.ts_ns, iv.end());
            let ok = last.is_none_or(|(ts, end)| ts < key.0 || (ts == key.0 && end >= key.1));
            last = Some(key);
            ok
        });
        if in_order {
            Intervals::InOrder(pairs)
        } else {
            let mut out = Vec::with_capacity(pairs.len());
            // Each chunk is freed once its intervals are made.
            for chunk in pairs.into_chunks() {
                out.extend(chunk.iter().map(Pair::interval));
            }
            Intervals::ToSort(out)
        }
    }
}

/// One track's intervals for [`nest`]: already in nesting order (a streaming track's pairs,
/// made into intervals as they are read), or to be sorted first.
enum Intervals {
    InOrder(Chunks<Pair>),
    ToSort(Vec<Interval>),
}

impl Pair {
    /// The interval this paired slice is.
    #[inline]
    fn interval(&self) -> Interval {
        let flags = (self.order_kind >> ORDER_BITS) as u8;
        let (dur_ns, flags) = match (self.order_kind >> 56) as u8 {
            BEGIN if !self.closed() => (-1, flags | slice_flags::INCOMPLETE),
            BEGIN => (
                (self.x - self.ts_ns).max(0),
                flags & !slice_flags::INCOMPLETE,
            ),
            COMPLETE => (self.x, flags),
            _ => (0, flags),
        };
        Interval {
            ts_ns: self.ts_ns,
            dur_ns,
            name: self.name,
            category: self.category,
            frame: self.frame,
            args: self.args,
            flags,
        }
    }
}

/// Makes room for one more element growing by half, not doubling, when full: at most a third
/// of a long column is spare.
fn grow_by_half<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len() / 2 + 1);
    }
}

/// Track ids below this are indexed densely; higher ones (an importer's placeholders) by a map.
const DENSE_TRACKS: u32 = 1 << 22;

/// Drops events before the Unix epoch by more than the trace's own span (issue #10; the
/// CUPTI/Kineto corruption of HTA PR #325 writes such timestamps among good ones): with
/// `lo..=hi` the range of the non-negative timestamps, an event at `ts < 0` is implausible when
/// `-ts > hi - lo`. Kept, it would stretch the timeline over decades. A trace with no
/// non-negative timestamp (an all-relative clock) keeps everything. Counted as
/// `timestamp_implausible` with the first one's time (first in arrival order).
fn drop_implausible(b: &mut SliceBuilder, model: &mut Model) {
    let (lo, hi) = (b.lo, b.hi);
    if lo > hi || b.min_ts >= 0 {
        return;
    }
    let span = hi - lo;
    let implausible = |ts: i64| ts < 0 && ts.checked_neg().is_none_or(|m| m > span);
    let mut first: Option<(u64, i64)> = None;
    let mut n = 0u64;
    for bucket in &mut b.buckets {
        for e in bucket.events.iter().filter(|e| implausible(e.ts_ns)) {
            if first.is_none_or(|(o, _)| e.order() < o) {
                first = Some((e.order(), e.ts_ns));
            }
        }
        let before = bucket.events.len();
        bucket.events.retain(|e| !implausible(e.ts_ns));
        n += (before - bucket.events.len()) as u64;
    }
    let Some((_, first)) = first else {
        return;
    };
    model.diagnostics.add_n(
        crate::model::diagnostics::Kind::TimestampImplausible,
        n,
        None,
        None,
        || {
            Some(format!(
                "first at {first} ns, before 1970 by more than the trace's span of {span} ns"
            ))
        },
    );
}

/// Collects slice events of one import and builds [`Slices`] into a [`Model`].
#[derive(Debug)]
pub struct SliceBuilder {
    buckets: Vec<Bucket>,
    /// Bucket of each track id below [`DENSE_TRACKS`] (`u32::MAX`: none yet).
    dense: Vec<u32>,
    /// Bucket of each track id from [`DENSE_TRACKS`] up.
    sparse: HashMap<u32, u32>,
    next_order: u64,
    /// Range of the non-negative timestamps, and the smallest timestamp.
    lo: i64,
    hi: i64,
    min_ts: i64,
    /// Pair in-order tracks while streaming (off: every bucket raw, the reference in tests).
    stream: bool,
    /// Events a re-streamed bucket holds back ([`WINDOW`]; smaller in tests).
    window: usize,
    /// Slices from which [`SliceBuilder::finish`] builds the tracks in two runs side by side
    /// ([`SPLIT_AT_LEAST`]; a test's own with [`with_finish_split_at_least`]).
    split_at_least: usize,
}

impl Default for SliceBuilder {
    fn default() -> Self {
        SliceBuilder {
            buckets: Vec::new(),
            dense: Vec::new(),
            sparse: HashMap::new(),
            next_order: 0,
            lo: i64::MAX,
            hi: i64::MIN,
            min_ts: i64::MAX,
            stream: true,
            window: WINDOW,
            split_at_least: SPLIT_HERE.with(Cell::get).unwrap_or(SPLIT_AT_LEAST),
        }
    }
}

impl SliceBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bucket index of `track`, made when missing (once per event: a known dense track
    /// inline, as wasm32's opt-level "s" would otherwise leave a call).
    #[inline(always)]
    fn bucket_of(&mut self, track: TrackId) -> usize {
        if let Some(&b) = self.dense.get(track.0 as usize) {
            if b != u32::MAX {
                return b as usize;
            }
        }
        self.bucket_of_slow(track)
    }

    #[cold]
    #[inline(never)]
    fn bucket_of_slow(&mut self, track: TrackId) -> usize {
        let next = self.buckets.len() as u32;
        let slot = if track.0 < DENSE_TRACKS {
            let i = track.0 as usize;
            if i >= self.dense.len() {
                self.dense.resize(i + 1, u32::MAX);
            }
            &mut self.dense[i]
        } else {
            self.sparse.entry(track.0).or_insert(u32::MAX)
        };
        if *slot == u32::MAX {
            *slot = next;
            grow_by_half(&mut self.buckets);
            self.buckets.push(Bucket::new(track));
        }
        *slot as usize
    }

    /// Files one event under its track (the arrival order is the order of the calls).
    pub(super) fn push(&mut self, op: &Op) {
        let Op {
            track,
            ts_ns,
            kind,
            x,
            name,
            category,
            frame,
            args,
            flags,
        } = *op;
        let order = self.next_order & ORDER_MASK;
        self.next_order += 1;
        if ts_ns >= 0 {
            self.lo = self.lo.min(ts_ns);
            self.hi = self.hi.max(ts_ns);
        }
        self.min_ts = self.min_ts.min(ts_ns);
        let b = self.bucket_of(track);
        let bucket = &mut self.buckets[b];
        let e = Pending {
            ts_ns,
            order_kind: order | u64::from(flags) << ORDER_BITS | u64::from(kind) << 56,
            x,
            name,
            category,
            frame,
            args,
        };
        if !bucket.raw {
            if self.stream && ts_ns >= 0 && kind != END_NAMED {
                if ts_ns >= bucket.last_ts {
                    if bucket.restreams > 0 {
                        bucket.hold(e);
                    } else {
                        bucket.stream(e);
                    }
                    return;
                }
                if bucket.restreams < RESTREAMS {
                    let window = if bucket.restreams == 0 {
                        self.window
                    } else {
                        bucket.window_len.saturating_mul(WINDOW_GROWTH)
                    };
                    bucket.restream(e, window);
                    return;
                }
            }
            bucket.make_raw();
        }
        if let Some(last) = bucket.events.last() {
            if ts_ns < last.ts_ns {
                bucket.sorted = false;
            }
        }
        grow_by_half(&mut bucket.events);
        bucket.events.push(e);
    }

    /// Moves every pending event of track `t` to `map(t)`, dropping it when `map` gives `None`
    /// (an importer that learns a track's identity only after its events: Perfetto track
    /// uuids described late). Event order is kept (tracks that map to one are merged in
    /// arrival order). `map` is called once or twice per track, so it must give the same
    /// answer each time.
    pub fn retarget(&mut self, mut map: impl FnMut(TrackId) -> Option<TrackId>) {
        // Nothing moves (the usual case): the buckets stay where they are, not copied.
        if self.buckets.iter().all(|b| map(b.track) == Some(b.track)) {
            return;
        }
        let old = std::mem::take(&mut self.buckets);
        self.dense.clear();
        self.sparse.clear();
        for mut b in old {
            let Some(t) = map(b.track) else {
                continue;
            };
            let i = self.bucket_of(t);
            let into = &mut self.buckets[i];
            if into.is_empty() {
                b.track = t;
                *into = b;
                continue;
            }
            // Merge two arrival-ordered runs by arrival order.
            into.make_raw();
            b.make_raw();
            let a = std::mem::take(&mut into.events);
            let mut merged = Vec::with_capacity(a.len() + b.events.len());
            let (mut x, mut y) = (a.into_iter().peekable(), b.events.drain(..).peekable());
            loop {
                let take_x = match (x.peek(), y.peek()) {
                    (Some(p), Some(q)) => p.order() < q.order(),
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (None, None) => break,
                };
                let e = if take_x { x.next() } else { y.next() };
                merged.extend(e);
            }
            into.sorted = merged.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns);
            into.events = merged;
        }
    }

    /// Heap bytes held by the pending events and slices paired so far and the track index.
    pub fn heap_bytes(&self) -> usize {
        self.buckets.iter().map(Bucket::heap_bytes).sum::<usize>()
            + self.buckets.capacity() * std::mem::size_of::<Bucket>()
            + self.dense.capacity() * 4
            + self.sparse.capacity() * 8
    }

    /// Number of events pending (pushed and not dropped by [`SliceBuilder::retarget`]).
    pub fn len(&self) -> usize {
        self.buckets.iter().map(Bucket::len).sum()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.buckets.iter().all(Bucket::is_empty)
    }

    /// Pairs, nests and appends all slices to `model.slices` (replacing what was there), adding
    /// overflow-lane tracks and diagnostics to `model` as needed. Tracks are paired and nested
    /// in track id order; each track's events are freed once paired. Natively, from 65,536
    /// slices over two or more tracks, the tracks are built in two runs on two threads, with
    /// the same model as one run (Chromium's 59 MB trace, 2026-12-06: its import
    /// 0.285–0.297 → 0.263–0.276 s).
    pub fn finish(mut self, model: &mut Model) {
        if self.min_ts < 0 {
            // The range of the events that stayed (retarget may have dropped some).
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for b in &self.buckets {
                b.each_ts(|ts| {
                    if ts >= 0 {
                        lo = lo.min(ts);
                        hi = hi.max(ts);
                    }
                });
            }
            self.lo = lo;
            self.hi = hi;
            drop_implausible(&mut self, model);
        }
        let split_at_least = self.split_at_least;
        let mut buckets = std::mem::take(&mut self.buckets);
        drop(self);
        buckets.sort_unstable_by_key(|b| b.track);
        buckets.retain(|b| !b.is_empty());
        // One track at a time (in each run): its events are paired and freed, its intervals
        // nested into the slice columns and freed, before the next track's are made, so the
        // pending events of the tracks not done yet and the slices of those done are what is
        // held.
        // Pairing makes no track and nesting no arg set, so ids come out as pairing every
        // track first would make them; the overflow diagnostic is added after all pairing
        // diagnostics, as then.
        let counts: Vec<usize> = buckets.iter().map(Bucket::slice_count).collect();
        let total: usize = counts.iter().sum();
        // The columns grow in chunks (`Chunks`), which take the room of the chunks of pairs
        // freed track by track before them: in wasm32, whose memory never shrinks, one block
        // per column (even reserved at its final size at once) came on top of all the pairs,
        // freed or not (the 1 GB Perfetto trace: 1412 MB of memory after the import).
        let mut out = Slices::with_capacity(total);
        // Natively, a big enough model is built in two runs of tracks side by side: the
        // first into `out`, the second (on a thread of its own) into columns of its own,
        // appended after. What a run changes in the model besides its slices (END-arg
        // merges, overflow-lane tracks, diagnostics) is recorded and applied in track order,
        // so ids and diagnostics come out as one run would make them.
        // (Ids a run records are marked with `RECORDED`: real ones must stay below it.)
        let marks_fit = |n: usize| n.saturating_add(total) < RECORDED as usize;
        let k = if marks_fit(model.args.set_count()) && marks_fit(model.tracks.len()) {
            split_point(&counts, split_at_least)
        } else {
            counts.len()
        };
        let overflowed = if k == counts.len() {
            build_run(buckets, 0, &mut Effects::Direct(model), &mut out)
        } else {
            let second = buckets.split_off(k);
            let base = counts[..k].iter().sum::<usize>();
            let (first, (second, more)) = build_runs(buckets, second, base, model, &mut out);
            SPLITS.with(|c| c.set(c.get() + 1));
            out.append_beside(more, |[args, more_args], [track, more_track]| {
                first.apply(model, args, track) + second.apply(model, more_args, more_track)
            })
        };
        add_overflowed(model, overflowed);
        debug_assert_eq!(out.len(), total, "slices made vs counted");
        out.shrink_to_fit();
        model.slices = out;
    }
}

/// Slices from which [`SliceBuilder::finish`] builds the tracks in two runs side by side
/// (natively): below, a second thread costs more than it saves. Chromium's 59 MB trace has
/// 614,919.
const SPLIT_AT_LEAST: usize = 1 << 16;

thread_local! {
    /// A test's override of [`SPLIT_AT_LEAST`] for builders made on this thread.
    static SPLIT_HERE: Cell<Option<usize>> = const { Cell::new(None) };
    /// Finishes built in two runs on this thread.
    static SPLITS: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` with builders made on this thread finishing in two runs of tracks from `slices`
/// slices (at least 1) instead of from [`SPLIT_AT_LEAST`] (`usize::MAX`: never); gives `f`'s
/// result and the finishes split on this thread meanwhile (a builder finished on another
/// thread, a [`SliceSink`]'s, counts there). A test hook: both ways must give the same model.
///
/// [`SliceSink`]: super::sink::SliceSink
#[doc(hidden)]
pub fn with_finish_split_at_least<T>(slices: usize, f: impl FnOnce() -> T) -> (T, u64) {
    let old = SPLIT_HERE.with(|c| c.replace(Some(slices.max(1))));
    let before = SPLITS.with(Cell::get);
    let out = f();
    SPLIT_HERE.with(|c| c.set(old));
    (out, SPLITS.with(Cell::get) - before)
}

/// Where [`SliceBuilder::finish`] splits the tracks (their slice `counts`, in track order)
/// into two runs: the index that makes the larger run smallest, or `counts.len()` (one run)
/// when there are fewer than `at_least` slices, fewer than two tracks, or in wasm (one thread).
fn split_point(counts: &[usize], at_least: usize) -> usize {
    let total: usize = counts.iter().sum();
    if cfg!(target_arch = "wasm32") || counts.len() < 2 || total < at_least {
        return counts.len();
    }
    let mut best = (total, counts.len());
    let mut before = 0usize;
    for (k, c) in counts.iter().enumerate().take(counts.len() - 1) {
        before += c;
        let larger = before.max(total - before);
        if larger < best.0 {
            best = (larger, k + 1);
        }
    }
    best.1
}

/// Builds the first run's tracks into `out` on this thread and the second's into columns of
/// their own on another, their slice ids counted from `base`; reads `model` only. Where no
/// thread can be started the second run is built here after the first. Gives each run's
/// recorded effects (and the second's slices).
fn build_runs(
    first: Vec<Bucket>,
    second: Vec<Bucket>,
    base: usize,
    model: &Model,
    out: &mut Slices,
) -> (Recorded, (Recorded, Slices)) {
    let run = |buckets: Vec<Bucket>, base: usize, out: &mut Slices| {
        let mut rec = Recorded::default();
        rec.overflowed = build_run(buckets, base, &mut Effects::Recording(model, &mut rec), out);
        rec
    };
    let second_run = |buckets: Vec<Bucket>| {
        let mut more = Slices::with_capacity(buckets.iter().map(Bucket::slice_count).sum());
        let rec = run(buckets, base, &mut more);
        (rec, more)
    };
    // The second run's tracks stay here when the thread cannot be started (as in wasm32, where
    // `split_point` never splits anyway).
    let slot = std::sync::Mutex::new(Some(second));
    let (first, from_thread) = std::thread::scope(|s| {
        let other = std::thread::Builder::new()
            .name("trialscope-finish".into())
            .spawn_scoped(s, || {
                let buckets = slot
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                    .unwrap_or_default();
                let done = second_run(buckets);
                (done, lane_steps_on_this_thread())
            });
        let first = run(first, 0, out);
        match other.map(|h| h.join()) {
            Ok(Ok((done, steps))) => {
                add_lane_steps(steps);
                (first, Some(done))
            }
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => (first, None),
        }
    });
    let second = from_thread.unwrap_or_else(|| {
        let buckets = slot
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .unwrap_or_default();
        second_run(buckets)
    });
    (first, second)
}

/// Pairs and nests `buckets` (non-empty, in track order) into `out`, slice ids counted from
/// `base + out.len()`, what else the model gains going to `fx`; returns the slices moved to
/// overflow lanes.
fn build_run(buckets: Vec<Bucket>, base: usize, fx: &mut Effects, out: &mut Slices) -> u64 {
    let mut overflowed = 0;
    for mut b in buckets {
        let track = b.track;
        b.flush();
        let intervals = if !b.raw {
            b.intervals(fx)
        } else {
            let mut events = std::mem::take(&mut b.events);
            if !b.sorted {
                // The events are in arrival order, so a stable sort by timestamp gives the
                // (ts, order) order; it merges the few sorted runs such a track is made of
                // instead of partitioning them (8 ms instead of 37 ms for all tracks of
                // Chromium's 59 MB trace when its busiest track was raw).
                events.sort_by_key(|e| e.ts_ns);
            }
            Intervals::ToSort(pair(events, fx))
        };
        overflowed += match intervals {
            Intervals::InOrder(pairs) => {
                // Each chunk of pairs is freed once nested.
                let each = pairs
                    .into_chunks()
                    .flat_map(|c| c.into_iter().map(|p| p.interval()));
                nest(track, each, fx, base, out)
            }
            Intervals::ToSort(mut intervals) => {
                // Stable: equal (ts, end) keep arrival order, as `pair` made them in
                // (ts, order).
                intervals.sort_by(|a, b| a.ts_ns.cmp(&b.ts_ns).then(b.end().cmp(&a.end())));
                nest(track, intervals, fx, base, out)
            }
        };
    }
    overflowed
}

/// Marks an id a recording run of [`build_run`] made until [`Recorded::apply`] makes the real
/// one; [`SliceBuilder::finish`] records only while the model's arg sets and tracks, plus one
/// per slice, stay below it.
const RECORDED: u32 = 1 << 31;

/// Where a run of tracks puts what it adds to the model besides its slices (END-arg merges,
/// overflow-lane tracks, diagnostics): straight into the model (one run), or recorded against
/// the model read only (two runs side by side), to be applied in track order.
enum Effects<'m> {
    Direct(&'m mut Model),
    Recording(&'m Model, &'m mut Recorded),
}

/// What building a run of tracks changes in the model besides its slices, to be applied in
/// track order: END-arg merges and overflow-lane tracks (their ids in the run's slices are
/// `RECORDED | k` until applied) and diagnostics.
#[derive(Default)]
struct Recorded {
    merges: Vec<(ArgsId, ArgsId)>,
    tracks: Vec<Track>,
    diagnostics: super::Diagnostics,
    /// Slices the run moved to overflow lanes.
    overflowed: u64,
}

impl Effects<'_> {
    /// The model the run reads.
    fn model(&self) -> &Model {
        match self {
            Effects::Direct(m) => m,
            Effects::Recording(m, _) => m,
        }
    }

    /// The diagnostics the run adds to.
    fn diagnostics(&mut self) -> &mut super::Diagnostics {
        match self {
            Effects::Direct(m) => &mut m.diagnostics,
            Effects::Recording(_, rec) => &mut rec.diagnostics,
        }
    }

    /// Counts one `kind` at event `order`, its detail made from the model's strings (only
    /// for a kind's first occurrence).
    fn diagnose(
        &mut self,
        kind: Diag,
        order: u64,
        detail: impl FnOnce(&super::StringTable) -> Option<String>,
    ) {
        let (strings, diagnostics) = match self {
            Effects::Direct(m) => (&m.strings, &mut m.diagnostics),
            Effects::Recording(m, rec) => (&m.strings, &mut rec.diagnostics),
        };
        diagnostics.add(kind, None, Some(order), || detail(strings));
    }

    /// [`ArgSets::merge`](super::args::ArgSets::merge) of `a` and `b`; recording, made when
    /// applied (the empty set merged is the other set, at once, as there).
    fn merge(&mut self, a: ArgsId, b: ArgsId) -> ArgsId {
        match self {
            Effects::Direct(m) => m.args.merge(a, b),
            Effects::Recording(..) if b.0 == 0 => a,
            Effects::Recording(..) if a.0 == 0 => b,
            Effects::Recording(_, rec) => {
                rec.merges.push((a, b));
                ArgsId(RECORDED | (rec.merges.len() as u32 - 1))
            }
        }
    }

    /// An overflow lane of `track`; recording, added when applied.
    fn add_lane(&mut self, track: TrackId) -> TrackId {
        let t = self.model().track(track);
        let lane = Track {
            name: t.name,
            kind: t.kind,
            pid: t.pid,
            tid: t.tid,
            parent: t.parent,
            overflow_of: Some(track),
        };
        match self {
            Effects::Direct(m) => m.add_track(lane),
            Effects::Recording(_, rec) => {
                rec.tracks.push(lane);
                TrackId(RECORDED | (rec.tracks.len() as u32 - 1))
            }
        }
    }
}

impl Recorded {
    /// Makes the merges and tracks in `model` (in the order recorded), gives the ids to the
    /// run's slices (their `args` and `track` columns), adds the diagnostics after the model's
    /// own; returns the slices the run moved to overflow lanes.
    fn apply(
        self,
        model: &mut Model,
        args: &mut Chunks<ArgsId>,
        track: &mut Chunks<TrackId>,
    ) -> u64 {
        let Recorded {
            merges,
            tracks,
            diagnostics,
            overflowed,
        } = self;
        if !merges.is_empty() {
            let mut made: Vec<ArgsId> = Vec::with_capacity(merges.len());
            let real = |made: &[ArgsId], id: ArgsId| {
                if id.0 & RECORDED != 0 {
                    made[(id.0 & !RECORDED) as usize]
                } else {
                    id
                }
            };
            for (a, b) in merges {
                let (a, b) = (real(&made, a), real(&made, b));
                made.push(model.args.merge(a, b));
            }
            for id in args.iter_mut() {
                *id = real(&made, *id);
            }
        }
        if !tracks.is_empty() {
            let made: Vec<TrackId> = tracks.into_iter().map(|t| model.add_track(t)).collect();
            for id in track.iter_mut() {
                if id.0 & RECORDED != 0 {
                    *id = made[(id.0 & !RECORDED) as usize];
                }
            }
        }
        model.diagnostics.absorb(diagnostics);
        overflowed
    }
}

/// Phase 1: turn one track's events (sorted by ts, order) into intervals, in that order.
///
/// In place: each interval is written over the events already read (an interval takes the
/// place of its BEGIN, COMPLETE or INSTANT, so the write position never passes the read
/// position; an END only updates an interval written before it), and the buffer then becomes
/// the intervals' (`Pending` and `Interval` are both 40 bytes, so the final `collect` reuses
/// the block). A raw track's events and its intervals are never held at once: on Chromium's
/// 59 MB trace that was a 28.2 MB block of events beside a 13.6 MB one of intervals.
fn pair(mut events: Vec<Pending>, fx: &mut Effects) -> Vec<Interval> {
    let mut w = 0usize; // intervals written, as `Pending`s: x = duration, kind unused
    let mut open: Vec<usize> = Vec::new(); // indices of written intervals
    for r in 0..events.len() {
        let e = events[r];
        let as_interval = |dur_ns: i64, flags: u8| Pending {
            ts_ns: e.ts_ns,
            order_kind: u64::from(flags) << ORDER_BITS,
            x: dur_ns,
            name: e.name,
            category: e.category,
            frame: e.frame,
            args: e.args,
        };
        match e.kind() {
            BEGIN => {
                open.push(w);
                events[w] = as_interval(-1, e.flags() | slice_flags::INCOMPLETE);
                w += 1;
            }
            COMPLETE => {
                events[w] = as_interval(e.x, e.flags());
                w += 1;
            }
            INSTANT => {
                events[w] = as_interval(0, e.flags());
                w += 1;
            }
            _ => {
                let name = (e.kind() == END_NAMED).then_some(StrId(e.x as u32));
                let pos = match name {
                    None => open.len().checked_sub(1),
                    Some(n) => open.iter().rposition(|&k| events[k].name == n),
                };
                match pos {
                    Some(p) => {
                        if p + 1 != open.len() {
                            fx.diagnostics().add(
                                Diag::EndClosedNonInnermost,
                                None,
                                Some(e.order()),
                                || Some(format!("at {} ns", e.ts_ns)),
                            );
                        }
                        let k = open.remove(p);
                        let iv = &mut events[k];
                        iv.x = (e.ts_ns - iv.ts_ns).max(0);
                        iv.order_kind &= !(u64::from(slice_flags::INCOMPLETE) << ORDER_BITS);
                        if e.args.0 != 0 {
                            let merged = fx.merge(iv.args, e.args);
                            events[k].args = merged;
                        }
                    }
                    None => {
                        let kind = if name.is_some() && !open.is_empty() {
                            Diag::EndNameMismatch
                        } else {
                            Diag::EndWithoutBegin
                        };
                        fx.diagnose(kind, e.order(), |strings| {
                            Some(match name {
                                Some(n) => format!("'{}' at {} ns", strings.get(n), e.ts_ns),
                                None => format!("at {} ns", e.ts_ns),
                            })
                        });
                    }
                }
            }
        }
    }
    if !open.is_empty() {
        fx.diagnostics()
            .add_n(Diag::SliceNeverEnded, open.len() as u64, None, None, || {
                None
            });
    }
    events.truncate(w);
    // Gives back the ENDs' room (in place: a shrinking block is not copied).
    events.shrink_to_fit();
    events
        .into_iter()
        .map(|e| Interval {
            ts_ns: e.ts_ns,
            dur_ns: e.x,
            name: e.name,
            category: e.category,
            frame: e.frame,
            args: e.args,
            flags: e.flags(),
        })
        .collect()
}

/// Phase 2: nest sorted intervals of one track, spilling partial overlaps to overflow lanes.
///
/// Lane choice: the first lane (the track itself, then its overflow lanes in creation order)
/// whose open slices, after closing those that ended by `ts_ns`, are none or enclose the
/// interval; else a new lane. [`LaneIndex`] finds that lane in O(log lanes), so N mutually
/// overlapping slices cost O(N log N), not O(N²).
///
/// Slice ids count from `base + out.len()` (`out` holds the slices from `base` on). Overflow
/// lanes are recorded in `fx`. Returns the number of slices moved to overflow lanes (for
/// [`add_overflowed`]).
fn nest(
    track: TrackId,
    intervals: impl IntoIterator<Item = Interval>,
    fx: &mut Effects,
    base: usize,
    out: &mut Slices,
) -> u64 {
    // lanes[0] is the track itself; lanes[k] its k-th overflow lane.
    let mut lanes: Vec<(TrackId, Vec<(SliceId, i64)>)> = vec![(track, Vec::new())];
    let mut index = LaneIndex::default();
    index.set(0, None);
    let mut overflowed = 0u64;
    // Slices for overflow lanes are buffered so each lane's slices stay contiguous.
    let mut spill: Vec<Vec<(Interval, u32, Option<usize>)>> = Vec::new();
    for iv in intervals {
        let end = iv.end();
        loop {
            let Some(lane_idx) = index.first(iv.ts_ns, end) else {
                let lane_track = fx.add_lane(track);
                spill.push(vec![(iv.clone(), 0, None)]);
                lanes.push((lane_track, vec![(SliceId(0), end)]));
                index.set(lanes.len() - 1, Some(end));
                overflowed += 1;
                break;
            };
            let stack = &mut lanes[lane_idx].1;
            // The lane's innermost open slice ended by `ts_ns`: close it and look again.
            if let Some(&(_, top)) = stack.last() {
                if top <= iv.ts_ns {
                    stack.pop();
                    index.set(lane_idx, stack.last().map(|&(_, e)| e));
                    continue;
                }
            }
            // Empty, or the innermost open slice encloses the interval.
            let depth = stack.len() as u32;
            if lane_idx == 0 {
                let id = SliceId((base + out.len()) as u32);
                let parent = stack.last().map(|&(p, _)| p);
                push_slice(out, track, &iv, depth, parent, 0);
                stack.push((id, end));
            } else {
                let lane_buf = &mut spill[lane_idx - 1];
                let parent = stack.last().map(|&(p, _)| p.0 as usize);
                let local = SliceId(lane_buf.len() as u32);
                stack.push((local, end));
                lane_buf.push((iv.clone(), depth, parent));
                overflowed += 1;
            }
            index.set(lane_idx, Some(end));
            break;
        }
    }
    for (k, buf) in spill.into_iter().enumerate() {
        let lane_track = lanes[k + 1].0;
        let first = base + out.len();
        for (iv, depth, parent) in buf {
            push_slice(
                out,
                lane_track,
                &iv,
                depth,
                parent.map(|p| SliceId((first + p) as u32)),
                slice_flags::OVERFLOW,
            );
        }
    }
    overflowed
}

/// Counts slices [`nest`] moved to overflow lanes (`slice_overlap_overflow_lane`).
fn add_overflowed(model: &mut Model, overflowed: u64) {
    if overflowed > 0 {
        model.diagnostics.add_n(
            Diag::SliceOverlapOverflowLane,
            overflowed,
            None,
            None,
            || None,
        );
    }
}

thread_local! {
    static LANE_STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Steps the overflow-lane search has taken for imports run on this thread (those taken on an
/// import's slice-builder thread included: segment-tree levels visited by lookups and
/// updates). A test hook for the complexity tests: N overlapping slices take
/// O(N log N) steps.
#[doc(hidden)]
pub fn lane_steps_on_this_thread() -> u64 {
    LANE_STEPS.with(Cell::get)
}

/// Adds lane-search steps taken for this thread's import on another (a [`SliceSink`]'s
/// builder thread, a finish's second run), so [`lane_steps_on_this_thread`] counts them where
/// the import ran.
///
/// [`SliceSink`]: super::sink::SliceSink
pub(super) fn add_lane_steps(n: u64) {
    LANE_STEPS.with(|c| c.set(c.get() + n));
}

/// The lanes of one track as a segment tree over lane indices: a leaf holds the end of the
/// lane's innermost open slice (`i64::MAX` when the lane has none open), each inner node the
/// max and min of its leaves, so the first lane that is stale (`end ≤ ts`) or encloses an
/// interval (`end ≥ its end`) is found in O(log lanes). Padding leaves match nothing that a
/// real lane does not match first.
struct LaneIndex {
    /// Leaves (a power of two); leaf `k` is node `cap + k`, node 1 is the root.
    cap: usize,
    /// Lanes in use.
    len: usize,
    max: Vec<i64>,
    min: Vec<i64>,
}

impl Default for LaneIndex {
    fn default() -> Self {
        LaneIndex {
            cap: 1,
            len: 0,
            max: vec![i64::MIN; 2],
            min: vec![i64::MAX; 2],
        }
    }
}

impl LaneIndex {
    fn levels(&self) -> u64 {
        u64::from(self.cap.trailing_zeros()) + 1
    }

    /// Sets lane `lane`'s innermost open end (`None`: nothing open); `lane ≤ len`.
    fn set(&mut self, lane: usize, end: Option<i64>) {
        while lane >= self.cap {
            self.grow();
        }
        self.len = self.len.max(lane + 1);
        let end = end.unwrap_or(i64::MAX);
        let mut i = self.cap + lane;
        self.max[i] = end;
        self.min[i] = end;
        while i > 1 {
            i /= 2;
            self.max[i] = self.max[2 * i].max(self.max[2 * i + 1]);
            self.min[i] = self.min[2 * i].min(self.min[2 * i + 1]);
        }
        LANE_STEPS.with(|c| c.set(c.get() + self.levels()));
    }

    fn grow(&mut self) {
        let old = self.cap;
        let cap = old * 2;
        let mut max = vec![i64::MIN; 2 * cap];
        let mut min = vec![i64::MAX; 2 * cap];
        max[cap..cap + old].copy_from_slice(&self.max[old..]);
        min[cap..cap + old].copy_from_slice(&self.min[old..]);
        for i in (1..cap).rev() {
            max[i] = max[2 * i].max(max[2 * i + 1]);
            min[i] = min[2 * i].min(min[2 * i + 1]);
        }
        LANE_STEPS.with(|c| c.set(c.get() + cap as u64));
        *self = LaneIndex {
            cap,
            len: self.len,
            max,
            min,
        };
    }

    /// The first lane whose innermost open end `e` has `e ≤ ts` (stale) or `e ≥ end`
    /// (empty lanes included), if any.
    fn first(&self, ts: i64, end: i64) -> Option<usize> {
        let hit = |i: usize| self.max[i] >= end || self.min[i] <= ts;
        LANE_STEPS.with(|c| c.set(c.get() + self.levels()));
        if !hit(1) {
            return None;
        }
        let mut i = 1;
        while i < self.cap {
            i = if hit(2 * i) { 2 * i } else { 2 * i + 1 };
        }
        let lane = i - self.cap;
        (lane < self.len).then_some(lane)
    }
}

fn push_slice(
    out: &mut Slices,
    track: TrackId,
    iv: &Interval,
    depth: u32,
    parent: Option<SliceId>,
    extra_flags: u8,
) {
    out.ts_ns.push(iv.ts_ns);
    out.dur_ns.push(iv.dur_ns);
    out.track.push(track);
    out.name.push(iv.name);
    out.category.push(iv.category);
    out.frame.push(iv.frame);
    out.depth.push(depth);
    out.parent.push(parent);
    out.args.push(iv.args);
    out.flags.push(iv.flags | extra_flags);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArgValue, Track, TrackKind};

    fn setup() -> (Model, TrackId) {
        let mut m = Model::default();
        let t = m.add_track(Track {
            name: StrId(0),
            kind: TrackKind::Thread,
            pid: Some(1),
            tid: Some(1),
            parent: None,
            overflow_of: None,
        });
        (m, t)
    }

    #[test]
    fn pairs_in_time_order_not_arrival_order() {
        let (mut m, t) = setup();
        let a = m.strings.intern("a");
        let mut b = SliceBuilder::new();
        // END arrives before its BEGIN in file order (two sequences writing one track).
        b.end(t, 30, None, ArgsId(0));
        b.begin(t, 10, a, StrId(0), FrameId(0), ArgsId(0), 0);
        b.finish(&mut m);
        assert_eq!(m.slices.ts_ns, vec![10]);
        assert_eq!(m.slices.dur_ns, vec![20]);
    }

    #[test]
    fn equal_ts_complete_events_nest_longer_first_and_identical_pairs_both_kept() {
        let (mut m, t) = setup();
        let inner = m.strings.intern("inner");
        let outer = m.strings.intern("outer");
        let mut b = SliceBuilder::new();
        b.complete(t, 100, 5, inner, StrId(0), FrameId(0), ArgsId(0), 0);
        b.complete(t, 100, 10, outer, StrId(0), FrameId(0), ArgsId(0), 0);
        b.complete(t, 200, 4, inner, StrId(0), FrameId(0), ArgsId(0), 0);
        b.complete(t, 200, 4, outer, StrId(0), FrameId(0), ArgsId(0), 0);
        b.finish(&mut m);
        assert_eq!(m.slices.name, vec![outer, inner, inner, outer]);
        assert_eq!(m.slices.depth, vec![0, 1, 0, 1]);
        assert_eq!(m.slices.parent.get(1), Some(SliceId(0)));
        assert_eq!(m.diagnostics.count("slice_overlap_overflow_lane"), 0);
    }

    #[test]
    fn partial_overlap_goes_to_overflow_lane() {
        let (mut m, t) = setup();
        let n = m.strings.intern("n");
        let mut b = SliceBuilder::new();
        b.complete(t, 0, 10, n, StrId(0), FrameId(0), ArgsId(0), 0);
        b.complete(t, 5, 10, n, StrId(0), FrameId(0), ArgsId(0), 0);
        b.finish(&mut m);
        assert_eq!(m.slices.len(), 2);
        assert_eq!(m.tracks.len(), 2);
        assert_eq!(m.slices.track[1], TrackId(1));
        assert_eq!(m.tracks[1].overflow_of, Some(t));
        assert_eq!(m.diagnostics.count("slice_overlap_overflow_lane"), 1);
    }

    #[test]
    fn named_end_matches_by_name_and_unmatched_ends_are_counted() {
        let (mut m, t) = setup();
        let alpha = m.strings.intern("alpha");
        let beta = m.strings.intern("beta");
        let gamma = m.strings.intern("gamma");
        let mut b = SliceBuilder::new();
        b.begin(t, 0, alpha, StrId(0), FrameId(0), ArgsId(0), 0);
        b.begin(t, 1, beta, StrId(0), FrameId(0), ArgsId(0), 0);
        b.end(t, 2, Some(gamma), ArgsId(0));
        b.end(t, 9, Some(beta), ArgsId(0));
        b.end(t, 10, Some(alpha), ArgsId(0));
        b.end(t, 11, Some(alpha), ArgsId(0));
        b.finish(&mut m);
        assert_eq!(m.slices.dur_ns, vec![10, 8]);
        assert_eq!(m.slices.depth, vec![0, 1]);
        assert_eq!(m.diagnostics.count("end_name_mismatch"), 1);
        assert_eq!(m.diagnostics.count("end_without_begin"), 1);
    }

    #[test]
    fn unclosed_begin_is_incomplete_and_contains_later_slices() {
        let (mut m, t) = setup();
        let n = m.strings.intern("n");
        let mut b = SliceBuilder::new();
        b.begin(t, 0, n, StrId(0), FrameId(0), ArgsId(0), 0);
        b.complete(t, 5, 3, n, StrId(0), FrameId(0), ArgsId(0), 0);
        b.finish(&mut m);
        assert_eq!(m.slices.dur_ns, vec![-1, 3]);
        assert_eq!(m.slices.depth, vec![0, 1]);
        assert_ne!(m.slices.flags[0] & slice_flags::INCOMPLETE, 0);
    }

    /// The nesting before [`LaneIndex`]: every lane scanned in order (O(N²) for N overlapping
    /// slices). The reference the lane choice must keep.
    fn nest_linear_scan(
        track: TrackId,
        intervals: Vec<Interval>,
        model: &mut Model,
        out: &mut Slices,
    ) {
        // lanes[0] is the track itself; lanes[k] its k-th overflow lane.
        let mut lanes: Vec<(TrackId, Vec<(SliceId, i64)>)> = vec![(track, Vec::new())];
        let mut overflowed = 0u64;
        // Slices for overflow lanes are buffered so each lane's slices stay contiguous.
        let mut spill: Vec<Vec<(Interval, u32, Option<usize>)>> = Vec::new();
        for iv in intervals {
            let mut placed = false;
            for (lane_idx, (_, stack)) in lanes.iter_mut().enumerate() {
                while let Some(&(_, end)) = stack.last() {
                    if end <= iv.ts_ns {
                        stack.pop();
                    } else {
                        break;
                    }
                }
                let fits = match stack.last() {
                    None => true,
                    Some(&(_, end)) => iv.end() <= end,
                };
                if !fits {
                    continue;
                }
                let depth = stack.len() as u32;
                if lane_idx == 0 {
                    let id = SliceId(out.len() as u32);
                    let parent = stack.last().map(|&(p, _)| p);
                    push_slice(out, track, &iv, depth, parent, 0);
                    stack.push((id, iv.end()));
                } else {
                    let lane_buf = &mut spill[lane_idx - 1];
                    let parent = stack.last().map(|&(p, _)| p.0 as usize);
                    let local = SliceId(lane_buf.len() as u32);
                    stack.push((local, iv.end()));
                    lane_buf.push((iv.clone(), depth, parent));
                    overflowed += 1;
                }
                placed = true;
                break;
            }
            if !placed {
                let lane_track = model.add_track(Track {
                    name: model.track(track).name,
                    kind: model.track(track).kind,
                    pid: model.track(track).pid,
                    tid: model.track(track).tid,
                    parent: model.track(track).parent,
                    overflow_of: Some(track),
                });
                spill.push(vec![(iv.clone(), 0, None)]);
                lanes.push((lane_track, vec![(SliceId(0), iv.end())]));
                overflowed += 1;
            }
        }
        for (k, buf) in spill.into_iter().enumerate() {
            let lane_track = lanes[k + 1].0;
            let base = out.len();
            for (iv, depth, parent) in buf {
                push_slice(
                    out,
                    lane_track,
                    &iv,
                    depth,
                    parent.map(|p| SliceId((base + p) as u32)),
                    slice_flags::OVERFLOW,
                );
            }
        }
        if overflowed > 0 {
            model.diagnostics.add_n(
                Diag::SliceOverlapOverflowLane,
                overflowed,
                None,
                None,
                || None,
            );
        }
    }

    /// Pseudo-random intervals (LCG) on one track, sorted as `finish` sorts them.
    fn random_intervals(seed: u64, n: usize) -> Vec<Interval> {
        let mut x = seed;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % m) as i64
        };
        let mut v: Vec<Interval> = (0..n)
            .map(|_| {
                let ts_ns = next(60);
                let dur_ns = if next(20) == 0 { -1 } else { next(25) };
                Interval {
                    ts_ns,
                    dur_ns,
                    name: StrId(0),
                    category: StrId(0),
                    frame: FrameId(0),
                    args: ArgsId(0),
                    flags: 0,
                }
            })
            .collect();
        // Stable, as `finish` sorts them (arrival order among equals).
        v.sort_by(|a, b| a.ts_ns.cmp(&b.ts_ns).then(b.end().cmp(&a.end())));
        v
    }

    /// Everything `finish` gives, as text (args resolved).
    fn built(m: &Model) -> String {
        let s = &m.slices;
        let mut out = format!("{:?}\n", m.diagnostics.entries());
        for i in 0..s.len() {
            out += &format!(
                "{} {} {:?} {:?} {} {:?} {} {:?} {:?}\n",
                s.ts_ns[i],
                s.dur_ns[i],
                s.track[i],
                s.name[i],
                s.depth[i],
                s.parent.get(i),
                s.flags[i],
                s.args[i],
                m.args.get(s.args[i])
            );
        }
        out + &format!("{}", m.tracks.len())
    }

    #[test]
    fn pairing_while_streaming_gives_what_pairing_sorted_events_gives() {
        let mut turned_raw = 0;
        for seed in 0..400u64 {
            let mut next = crate::model::testing::xorshift(seed, 0x9e3779b97f4a7c15);
            let (mut ms, names) = two_models(3, &["a", "b", "c"]);
            let mut bs = [SliceBuilder::new(), SliceBuilder::new()];
            bs[1].stream = false;
            // Per track a clock that mostly moves forward; some seeds go back in time or
            // below zero, name their ENDs, or merge tracks.
            let mut clock = [0i64; 3];
            let n = 1 + next(60);
            for _ in 0..n {
                let t = next(3) as usize;
                let back = seed % 4 == 0 && next(10) == 0;
                clock[t] += if back {
                    -(next(30) as i64)
                } else {
                    next(4) as i64
                };
                if seed % 7 == 0 && next(15) == 0 {
                    clock[t] = -(next(1000) as i64) - 1;
                }
                let ts = clock[t];
                let name = names[next(3) as usize];
                let a = next(3);
                let k = next(5);
                for (b, m) in bs.iter_mut().zip(ms.iter_mut()) {
                    let args = if a == 0 {
                        ArgsId(0)
                    } else {
                        m.args.add(vec![
                            (name, ArgValue::Int(a as i64)),
                            (names[0], ArgValue::Bool(true)),
                        ])
                    };
                    let tr = TrackId(t as u32);
                    match k {
                        0 | 1 => b.begin(tr, ts, name, StrId(0), FrameId(0), args, 0),
                        2 => b.end(tr, ts, (seed % 5 == 0).then_some(name), args),
                        3 => b.complete(tr, ts, a as i64 * 3, name, StrId(0), FrameId(0), args, 0),
                        _ => b.instant(tr, ts, name, StrId(0), FrameId(0), args, 0),
                    }
                }
            }
            for (b, m) in bs.into_iter().zip(ms.iter_mut()) {
                let mut b = b;
                if seed % 3 == 0 {
                    // Track 2 folds into track 0.
                    b.retarget(|t| Some(if t.0 == 2 { TrackId(0) } else { t }));
                }
                if b.buckets.iter().any(|k| k.raw) && b.stream {
                    turned_raw += 1;
                }
                b.finish(m);
            }
            assert_eq!(built(&ms[0]), built(&ms[1]), "seed {seed}");
        }
        assert!(turned_raw > 20, "some tracks turn raw ({turned_raw})");
    }

    /// Tracks whose events come slightly out of timestamp order are re-streamed through the
    /// reorder window; the result is what pairing the sorted events gives (slices, arg set
    /// ids, diagnostics in order), whether the track stays streaming or turns raw later.
    #[test]
    fn reordered_tracks_stream_through_the_window_as_sorted_pairing_would() {
        let (mut stayed, mut turned_raw) = (0, 0);
        for seed in 0..600u64 {
            let mut next = crate::model::testing::xorshift(seed, 0x2545f4914f6cdd1d);
            let (mut ms, names) = two_models(2, &["a", "b"]);
            let mut bs = [SliceBuilder::new(), SliceBuilder::new()];
            bs[0].window = next(6) as usize;
            bs[1].stream = false;
            // A clock that moves forward; each event lands up to `jitter` before it (as
            // µs-rounded timestamps land before ns-precise ones), now and then far before.
            let jitter = 1 + next(8) as i64;
            let mut clock = [100i64; 2];
            for _ in 0..1 + next(80) {
                let t = next(2) as usize;
                clock[t] += next(5) as i64;
                let mut ts = clock[t] - next(jitter as u64 + 1) as i64;
                if next(60) == 0 {
                    ts -= 50;
                }
                let name = names[next(2) as usize];
                let a = next(3);
                let k = next(5);
                for (b, m) in bs.iter_mut().zip(ms.iter_mut()) {
                    let args = if a == 0 {
                        ArgsId(0)
                    } else {
                        m.args.add(vec![(name, ArgValue::Int(a as i64))])
                    };
                    let tr = TrackId(t as u32);
                    match k {
                        0 | 1 => b.begin(tr, ts, name, StrId(0), FrameId(0), args, 0),
                        2 => b.end(tr, ts, None, args),
                        3 => b.complete(tr, ts, a as i64 * 2, name, StrId(0), FrameId(0), args, 0),
                        _ => b.instant(tr, ts, name, StrId(0), FrameId(0), args, 0),
                    }
                }
            }
            for (b, m) in bs.into_iter().zip(ms.iter_mut()) {
                let mut b = b;
                if seed % 5 == 0 {
                    b.retarget(|t| Some(if t.0 == 1 { TrackId(0) } else { t }));
                }
                if b.stream {
                    stayed += b
                        .buckets
                        .iter()
                        .filter(|k| k.restreams > 0 && !k.raw)
                        .count();
                    turned_raw += b.buckets.iter().filter(|k| k.raw).count();
                }
                b.finish(m);
            }
            assert_eq!(built(&ms[0]), built(&ms[1]), "seed {seed}");
        }
        assert!(
            stayed > 100,
            "tracks re-streamed and still streaming: {stayed}"
        );
        assert!(turned_raw > 50, "tracks that turned raw: {turned_raw}");
    }

    /// A model built in two runs of tracks side by side (the second on its own thread) is the
    /// model built in one: the same slices with the same parents, the same END-arg merges and
    /// overflow-lane tracks in the same order (so the same ids), the same diagnostics.
    #[test]
    fn finishing_in_two_runs_gives_the_one_run_model() {
        let (mut splits, mut split_merges, mut late_lanes, mut diagnosed) = (0u64, 0, 0, 0);
        for seed in 0..300u64 {
            let mut next = crate::model::testing::xorshift(seed, 0x5851f42d4c957f2d);
            let tracks = 2 + next(5) as usize;
            let (mut ms, names) = two_models(tracks, &["a", "b", "c"]);
            let mut bs = [SliceBuilder::new(), SliceBuilder::new()];
            bs[0].split_at_least = usize::MAX;
            bs[1].split_at_least = 1;
            // Overlapping completes (overflow lanes), ENDs with args (merges), ENDs with
            // nothing open (diagnostics), some tracks out of order (raw).
            let mut clock = vec![0i64; tracks];
            for _ in 0..1 + next(120) {
                let t = next(tracks as u64) as usize;
                clock[t] += next(6) as i64;
                if seed % 3 == 0 && next(12) == 0 {
                    clock[t] -= next(20) as i64;
                }
                let ts = clock[t];
                let name = names[next(3) as usize];
                let a = next(3);
                let k = next(6);
                for (b, m) in bs.iter_mut().zip(ms.iter_mut()) {
                    let args = if a == 0 {
                        ArgsId(0)
                    } else {
                        m.args.add(vec![(name, ArgValue::Int(a as i64 + t as i64))])
                    };
                    let tr = TrackId(t as u32);
                    match k {
                        0 | 1 => b.begin(tr, ts, name, StrId(0), FrameId(0), args, 0),
                        2 => b.end(tr, ts, None, args),
                        3 | 4 => b.complete(
                            tr,
                            ts,
                            1 + a as i64 * 7,
                            name,
                            StrId(0),
                            FrameId(0),
                            args,
                            0,
                        ),
                        _ => b.instant(tr, ts, name, StrId(0), FrameId(0), args, 0),
                    }
                }
            }
            let mut split_tracks = 0;
            for (i, (b, m)) in bs.into_iter().zip(ms.iter_mut()).enumerate() {
                if i == 1 {
                    let mut counts: Vec<(TrackId, usize)> = b
                        .buckets
                        .iter()
                        .filter(|k| !k.is_empty())
                        .map(|k| (k.track, k.slice_count()))
                        .collect();
                    counts.sort();
                    let c: Vec<usize> = counts.iter().map(|x| x.1).collect();
                    let k = split_point(&c, 1);
                    split_tracks = counts.get(k).map_or(u32::MAX, |x| x.0 .0);
                }
                let tracks_before = m.tracks.len();
                let sets_before = m.args.set_count();
                // The hook counts the finishes split (the field set on the builder decides).
                let ((), n) = with_finish_split_at_least(usize::MAX, || b.finish(m));
                let want = u64::from(i == 1 && split_tracks != u32::MAX);
                assert_eq!(n, want, "seed {seed}");
                splits += n;
                if i == 1 {
                    // Lanes the second run made (on tracks from its first on), and split
                    // finishes that merged END args (in either run).
                    let lanes = m.tracks[tracks_before..]
                        .iter()
                        .filter(|t| t.overflow_of.is_some_and(|o| o.0 >= split_tracks))
                        .count();
                    late_lanes += lanes;
                    if m.args.set_count() > sets_before && split_tracks != u32::MAX {
                        split_merges += 1;
                    }
                }
            }
            assert_eq!(built(&ms[0]), built(&ms[1]), "seed {seed}");
            assert_eq!(
                format!("{:?}", ms[0].tracks),
                format!("{:?}", ms[1].tracks),
                "seed {seed}"
            );
            assert_eq!(
                ms[0].args.set_count(),
                ms[1].args.set_count(),
                "seed {seed}"
            );
            diagnosed += usize::from(ms[1].diagnostics.count("end_without_begin") > 0);
        }
        assert!(diagnosed > 100, "finishes with diagnostics: {diagnosed}");
        assert!(splits > 250, "finishes split in two runs: {splits}");
        assert!(
            late_lanes > 50,
            "overflow lanes of the second run: {late_lanes}"
        );
        assert!(
            split_merges > 50,
            "split finishes with END-arg merges: {split_merges}"
        );
    }

    /// The hook sets the split for builders made under it, and counts the finishes split.
    #[test]
    fn the_split_hook_counts_finishes_made_in_two_runs() {
        let build = || {
            let (mut m, b) = completes(3, 10, 10, 5);
            b.finish(&mut m);
            m.slices.len()
        };
        assert_eq!(with_finish_split_at_least(1, build), (30, 1));
        assert_eq!(with_finish_split_at_least(31, build), (30, 0));
        assert_eq!(with_finish_split_at_least(usize::MAX, build), (30, 0));
        // Lane-search steps taken on the second run's thread count here too.
        let overlapping = || {
            let (mut m, b) = completes(2, 40, 1, 100);
            let before = lane_steps_on_this_thread();
            b.finish(&mut m);
            (lane_steps_on_this_thread() - before, m.tracks.len())
        };
        let (one, none) = with_finish_split_at_least(usize::MAX, overlapping);
        let (two, split) = with_finish_split_at_least(1, overlapping);
        assert_eq!((none, split), (0, 1));
        assert!(one.1 > 40, "overflow lanes made: {one:?}");
        assert_eq!(two, one);
        assert_eq!(split_point(&[5, 5, 5, 5], 1), 2);
        assert_eq!(split_point(&[1, 9, 1], 1), 1);
        assert_eq!(split_point(&[9], 1), 1);
        assert_eq!(split_point(&[3, 3], 7), 2);
    }

    /// A model of `tracks` thread tracks, and a builder given `n` unnamed complete events of
    /// `dur` ns on each, `step` ns apart from 0.
    fn completes(tracks: u32, n: i64, step: i64, dur: i64) -> (Model, SliceBuilder) {
        let mut m = Model::default();
        let mut b = SliceBuilder::new();
        for t in 0..tracks {
            setup_track(&mut m);
            for i in 0..n {
                let none = StrId(0);
                b.complete(
                    TrackId(t),
                    i * step,
                    dur,
                    none,
                    none,
                    FrameId(0),
                    ArgsId(0),
                    0,
                );
            }
        }
        (m, b)
    }

    /// Two equal models of `tracks` thread tracks with `names` interned (their ids).
    fn two_models(tracks: usize, names: &[&str]) -> ([Model; 2], Vec<StrId>) {
        let mut ms = [Model::default(), Model::default()];
        for m in &mut ms {
            for _ in 0..tracks {
                setup_track(m);
            }
        }
        let ids = names
            .iter()
            .map(|n| {
                let id = ms[0].strings.intern(n);
                assert_eq!(ms[1].strings.intern(n), id);
                id
            })
            .collect();
        (ms, ids)
    }

    fn setup_track(m: &mut Model) -> TrackId {
        m.add_track(Track {
            name: StrId(0),
            kind: TrackKind::Thread,
            pid: Some(1),
            tid: Some(1),
            parent: None,
            overflow_of: None,
        })
    }

    #[test]
    fn lane_index_chooses_the_lanes_the_linear_scan_chose() {
        let mut most_lanes = 0;
        for seed in 0..300 {
            let intervals = random_intervals(seed, 1 + (seed as usize % 80));
            let (mut m1, t) = setup();
            let (mut m2, _) = setup();
            let (mut s1, mut s2) = (Slices::default(), Slices::default());
            let overflowed = nest(
                t,
                intervals.clone(),
                &mut Effects::Direct(&mut m1),
                0,
                &mut s1,
            );
            add_overflowed(&mut m1, overflowed);
            nest_linear_scan(t, intervals, &mut m2, &mut s2);
            assert_eq!(s1.ts_ns, s2.ts_ns, "seed {seed}");
            assert_eq!(s1.dur_ns, s2.dur_ns, "seed {seed}");
            assert_eq!(s1.track, s2.track, "seed {seed}");
            assert_eq!(s1.depth, s2.depth, "seed {seed}");
            assert_eq!(s1.parent, s2.parent, "seed {seed}");
            assert_eq!(s1.flags, s2.flags, "seed {seed}");
            assert_eq!(m1.tracks.len(), m2.tracks.len(), "seed {seed}");
            let lanes = |m: &Model| m.diagnostics.count("slice_overlap_overflow_lane");
            assert_eq!(lanes(&m1), lanes(&m2), "seed {seed}");
            most_lanes = most_lanes.max(m1.tracks.len());
        }
        assert!(
            most_lanes > 5,
            "the cases reach several overflow lanes ({most_lanes})"
        );
    }
}
