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
        let mut out = Slices::default();
        for (track, mut intervals) in per_track {
            intervals.sort_by(|a, b| {
                a.ts_ns
                    .cmp(&b.ts_ns)
                    .then(b.end().cmp(&a.end()))
                    .then(a.order.cmp(&b.order))
            });
            nest(track, intervals, model, &mut out);
        }
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
fn nest(track: TrackId, intervals: Vec<Interval>, model: &mut Model, out: &mut Slices) {
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
}
