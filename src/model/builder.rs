//! The one slice builder every importer feeds (Perfetto `slice_tracker` role): begin/end pairs,
//! complete and instant events in any order become nested, columnar [`Slices`].
//!
//! Two phases, both per track:
//! 1. Pairing: events sorted by (ts, arrival order); an END closes the innermost open BEGIN
//!    (with a name, the innermost open BEGIN of that name — Chrome JSON `E` semantics). An END
//!    with nothing to close is counted (`end_without_begin`) and dropped; a BEGIN never closed
//!    becomes an incomplete slice (`dur_ns = -1`).
//! 2. Nesting: intervals sorted by (ts ascending, duration descending, arrival order) and nested
//!    with a stack. A slice that partly overlaps the open slice is never dropped: it moves to an
//!    overflow lane of its track (`slice_overlap_overflow_lane`).
//!
//! Architecture Invariant: nesting logic exists only here.

use std::cell::Cell;
use std::collections::BTreeMap;

use super::diagnostics::Kind as Diag;
use super::{slice_flags, ArgsId, FrameId, Model, SliceId, Slices, StrId, Track, TrackId};

#[derive(Clone, Copy, Debug)]
enum Kind {
    Begin,
    /// An END; `Some(name)` matches by name (JSON), `None` closes the innermost open slice.
    End(Option<StrId>),
    Complete(i64),
    Instant,
}

#[derive(Clone, Debug)]
struct Pending {
    track: TrackId,
    ts_ns: i64,
    order: u64,
    kind: Kind,
    name: StrId,
    category: StrId,
    frame: FrameId,
    args: ArgsId,
    flags: u8,
}

/// A finished interval before nesting.
#[derive(Clone, Debug)]
struct Interval {
    ts_ns: i64,
    /// -1 for incomplete.
    dur_ns: i64,
    order: u64,
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

/// Drops events before the Unix epoch by more than the trace's own span (issue #10; the
/// CUPTI/Kineto corruption of HTA PR #325 writes such timestamps among good ones): with
/// `lo..=hi` the range of the non-negative timestamps, an event at `ts < 0` is implausible when
/// `-ts > hi - lo`. Kept, it would stretch the timeline over decades. A trace with no
/// non-negative timestamp (an all-relative clock) keeps everything. Counted as
/// `timestamp_implausible` with the first one's time.
fn drop_implausible(events: &mut Vec<Pending>, model: &mut Model) {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for e in events.iter().filter(|e| e.ts_ns >= 0) {
        lo = lo.min(e.ts_ns);
        hi = hi.max(e.ts_ns);
    }
    if lo > hi {
        return;
    }
    let span = hi - lo;
    let implausible = |ts: i64| ts < 0 && ts.checked_neg().is_none_or(|m| m > span);
    let Some(first) = events
        .iter()
        .find(|e| implausible(e.ts_ns))
        .map(|e| e.ts_ns)
    else {
        return;
    };
    let before = events.len();
    events.retain(|e| !implausible(e.ts_ns));
    let n = (before - events.len()) as u64;
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
#[derive(Debug, Default)]
pub struct SliceBuilder {
    events: Vec<Pending>,
    next_order: u64,
}

impl SliceBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        track: TrackId,
        ts_ns: i64,
        kind: Kind,
        name: StrId,
        category: StrId,
        frame: FrameId,
        args: ArgsId,
        flags: u8,
    ) {
        let order = self.next_order;
        self.next_order += 1;
        self.events.push(Pending {
            track,
            ts_ns,
            order,
            kind,
            name,
            category,
            frame,
            args,
            flags,
        });
    }

    /// A slice begins at `ts_ns` on `track`.
    #[allow(clippy::too_many_arguments)]
    pub fn begin(
        &mut self,
        track: TrackId,
        ts_ns: i64,
        name: StrId,
        category: StrId,
        frame: FrameId,
        args: ArgsId,
        flags: u8,
    ) {
        self.push(
            track,
            ts_ns,
            Kind::Begin,
            name,
            category,
            frame,
            args,
            flags,
        );
    }

    /// A slice ends at `ts_ns` on `track`. With `name`, the innermost open slice of that name is
    /// closed (Chrome JSON); without, the innermost open slice (Perfetto). `args` are merged into
    /// the begin's args.
    pub fn end(&mut self, track: TrackId, ts_ns: i64, name: Option<StrId>, args: ArgsId) {
        self.push(
            track,
            ts_ns,
            Kind::End(name),
            StrId(0),
            StrId(0),
            FrameId(0),
            args,
            0,
        );
    }

    /// A complete slice of `dur_ns` (must be ≥ 0; the caller counts and drops negative ones).
    #[allow(clippy::too_many_arguments)]
    pub fn complete(
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
        self.push(
            track,
            ts_ns,
            Kind::Complete(dur_ns.max(0)),
            name,
            category,
            frame,
            args,
            flags,
        );
    }

    /// A zero-duration instant.
    #[allow(clippy::too_many_arguments)]
    pub fn instant(
        &mut self,
        track: TrackId,
        ts_ns: i64,
        name: StrId,
        category: StrId,
        frame: FrameId,
        args: ArgsId,
        flags: u8,
    ) {
        self.push(
            track,
            ts_ns,
            Kind::Instant,
            name,
            category,
            frame,
            args,
            flags | slice_flags::INSTANT,
        );
    }

    /// Moves every pending event of track `t` to `map(t)`, dropping it when `map` gives `None`
    /// (an importer that learns a track's identity only after its events: Perfetto track
    /// uuids described late). Event order is kept.
    pub fn retarget(&mut self, mut map: impl FnMut(TrackId) -> Option<TrackId>) {
        self.events.retain_mut(|e| match map(e.track) {
            Some(t) => {
                e.track = t;
                true
            }
            None => false,
        });
    }

    /// Heap bytes held by the pending events (`len` events of a few dozen bytes each).
    pub fn heap_bytes(&self) -> usize {
        self.events.capacity() * std::mem::size_of::<Pending>()
    }

    /// Number of events pushed so far.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when no event was pushed.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Pairs, nests and appends all slices to `model.slices` (replacing what was there), adding
    /// overflow-lane tracks and diagnostics to `model` as needed.
    pub fn finish(self, model: &mut Model) {
        let mut events = self.events;
        drop_implausible(&mut events, model);
        events.sort_by_key(|e| (e.track, e.ts_ns, e.order));
        let mut per_track: BTreeMap<TrackId, Vec<Interval>> = BTreeMap::new();
        let mut i = 0;
        while i < events.len() {
            let track = events[i].track;
            let mut j = i;
            while j < events.len() && events[j].track == track {
                j += 1;
            }
            let intervals = pair(&events[i..j], model);
            per_track.insert(track, intervals);
            i = j;
        }
        // The events are paired: free them before the slices are built.
        drop(events);
        let mut out = Slices::default();
        out.reserve(per_track.values().map(Vec::len).sum());
        for (track, mut intervals) in per_track {
            intervals.sort_by(|a, b| {
                a.ts_ns
                    .cmp(&b.ts_ns)
                    .then(b.end().cmp(&a.end()))
                    .then(a.order.cmp(&b.order))
            });
            nest(track, intervals, model, &mut out);
        }
        out.shrink_to_fit();
        model.slices = out;
    }
}

/// Phase 1: turn one track's events (sorted by ts, order) into intervals.
fn pair(events: &[Pending], model: &mut Model) -> Vec<Interval> {
    let mut out: Vec<Interval> = Vec::with_capacity(events.len());
    let mut open: Vec<usize> = Vec::new(); // indices into `out`
    for e in events {
        match e.kind {
            Kind::Begin => {
                open.push(out.len());
                out.push(Interval {
                    ts_ns: e.ts_ns,
                    dur_ns: -1,
                    order: e.order,
                    name: e.name,
                    category: e.category,
                    frame: e.frame,
                    args: e.args,
                    flags: e.flags | slice_flags::INCOMPLETE,
                });
            }
            Kind::Complete(d) => out.push(Interval {
                ts_ns: e.ts_ns,
                dur_ns: d,
                order: e.order,
                name: e.name,
                category: e.category,
                frame: e.frame,
                args: e.args,
                flags: e.flags,
            }),
            Kind::Instant => out.push(Interval {
                ts_ns: e.ts_ns,
                dur_ns: 0,
                order: e.order,
                name: e.name,
                category: e.category,
                frame: e.frame,
                args: e.args,
                flags: e.flags,
            }),
            Kind::End(name) => {
                let pos = match name {
                    None => open.len().checked_sub(1),
                    Some(n) => open.iter().rposition(|&k| out[k].name == n),
                };
                match pos {
                    Some(p) => {
                        if p + 1 != open.len() {
                            model.diagnostics.add(
                                Diag::EndClosedNonInnermost,
                                None,
                                Some(e.order),
                                || Some(format!("at {} ns", e.ts_ns)),
                            );
                        }
                        let k = open.remove(p);
                        let iv = &mut out[k];
                        iv.dur_ns = (e.ts_ns - iv.ts_ns).max(0);
                        iv.flags &= !slice_flags::INCOMPLETE;
                        if e.args.0 != 0 {
                            let merged = model.args.merge(iv.args, e.args);
                            out[k].args = merged;
                        }
                    }
                    None => {
                        let kind = if name.is_some() && !open.is_empty() {
                            Diag::EndNameMismatch
                        } else {
                            Diag::EndWithoutBegin
                        };
                        let strings = &model.strings;
                        model.diagnostics.add(kind, None, Some(e.order), || {
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
        model
            .diagnostics
            .add_n(Diag::SliceNeverEnded, open.len() as u64, None, None, || {
                None
            });
    }
    out
}

/// Phase 2: nest sorted intervals of one track, spilling partial overlaps to overflow lanes.
///
/// Lane choice: the first lane (the track itself, then its overflow lanes in creation order)
/// whose open slices, after closing those that ended by `ts_ns`, are none or enclose the
/// interval; else a new lane. [`LaneIndex`] finds that lane in O(log lanes), so N mutually
/// overlapping slices cost O(N log N), not O(N²).
fn nest(track: TrackId, intervals: Vec<Interval>, model: &mut Model, out: &mut Slices) {
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
                let lane_track = model.add_track(Track {
                    name: model.track(track).name,
                    kind: model.track(track).kind,
                    pid: model.track(track).pid,
                    tid: model.track(track).tid,
                    parent: model.track(track).parent,
                    overflow_of: Some(track),
                });
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
                let id = SliceId(out.len() as u32);
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

thread_local! {
    static LANE_STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Steps the overflow-lane search has taken on this thread (segment-tree levels visited by
/// lookups and updates). A test hook for the complexity tests: N overlapping slices take
/// O(N log N) steps.
#[doc(hidden)]
pub fn lane_steps_on_this_thread() -> u64 {
    LANE_STEPS.with(Cell::get)
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
    use crate::model::{Track, TrackKind};

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
        assert_eq!(m.slices.parent[1], Some(SliceId(0)));
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
            .map(|i| {
                let ts_ns = next(60);
                let dur_ns = if next(20) == 0 { -1 } else { next(25) };
                Interval {
                    ts_ns,
                    dur_ns,
                    order: i as u64,
                    name: StrId(0),
                    category: StrId(0),
                    frame: FrameId(0),
                    args: ArgsId(0),
                    flags: 0,
                }
            })
            .collect();
        v.sort_by(|a, b| {
            a.ts_ns
                .cmp(&b.ts_ns)
                .then(b.end().cmp(&a.end()))
                .then(a.order.cmp(&b.order))
        });
        v
    }

    #[test]
    fn lane_index_chooses_the_lanes_the_linear_scan_chose() {
        let mut most_lanes = 0;
        for seed in 0..300 {
            let intervals = random_intervals(seed, 1 + (seed as usize % 80));
            let (mut m1, t) = setup();
            let (mut m2, _) = setup();
            let (mut s1, mut s2) = (Slices::default(), Slices::default());
            nest(t, intervals.clone(), &mut m1, &mut s1);
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
