//! Clock snapshots and conversion of timestamps to the trace clock (trace-formats.md §5.4–5.5).
//!
//! Only machine-wide clocks (builtin ids 1–63 and global custom ids ≥ 128) live in this graph;
//! sequence-scoped clocks (64–127) are resolved per sequence by the importer, which turns them
//! into a machine-wide clock first using that sequence's own snapshot.

use std::collections::{HashMap, VecDeque};

use super::FastMap;

/// `BuiltinClock.BUILTIN_CLOCK_MONOTONIC`.
pub const MONOTONIC: u32 = 3;
/// `BuiltinClock.BUILTIN_CLOCK_BOOTTIME`.
pub const BOOTTIME: u32 = 6;

/// True for sequence-scoped clock ids (64–127, trace-formats.md §5.4).
pub fn is_sequence_scoped(clock_id: u32) -> bool {
    (64..128).contains(&clock_id)
}

/// The snapshot graph of one trace.
#[derive(Debug, Default)]
pub struct ClockGraph {
    /// `primary_trace_clock` of the first snapshot that sets it.
    primary: Option<u32>,
    /// True once any snapshot held BOOTTIME.
    saw_boottime: bool,
    /// Directed edges `from → to`: pairs of simultaneous readings `(from_ns, to_ns)`, sorted by
    /// `from_ns` after [`ClockGraph::finish`].
    edges: FastMap<(u32, u32), Vec<(i64, i64)>>,
    adjacency: FastMap<u32, Vec<u32>>,
    /// Unit multiplier (ns) per machine-wide clock, from the snapshots.
    multipliers: FastMap<u32, i64>,
    /// Cached shortest path (list of clocks, ending at the trace clock) per source clock.
    paths: FastMap<u32, Option<Vec<u32>>>,
    /// The last conversion over a path of one hop, for the next timestamps of that clock
    /// that the same reading converts (most of a trace's: snapshots are far apart). Emptied
    /// whenever readings are added.
    last: Option<LastHop>,
    /// Upper bound on stored readings, so hostile input cannot grow memory without bound.
    readings: usize,
    /// Readings were added since the edges were last sorted.
    dirty: bool,
    /// A conversion went through the graph (one-pass import).
    used: bool,
    /// A clock's multiplier was read (one-pass import).
    mult_used: bool,
    /// The trace clock as first read (one-pass import).
    first_trace_clock: Option<Option<u32>>,
}

const MAX_READINGS: usize = 4_000_000;

/// A conversion [`ClockGraph::to_trace`] made over one hop with the reading `(from, to)`,
/// which converts every value of `clock` in `lo..hi` (`hi` `None`: no end).
#[derive(Clone, Copy, Debug)]
struct LastHop {
    clock: u32,
    lo: i64,
    hi: Option<i64>,
    from: i64,
    to: i64,
}

impl ClockGraph {
    /// Adds one snapshot's machine-wide readings (already in ns). `primary` is its
    /// `primary_trace_clock` when set.
    pub fn add_snapshot(&mut self, readings: &[(u32, i64, i64)], primary: Option<u32>) {
        if self.primary.is_none() {
            if let Some(p) = primary.filter(|&p| p != 0) {
                self.primary = Some(p);
            }
        }
        let global: Vec<(u32, i64)> = readings
            .iter()
            .filter(|(id, _, _)| !is_sequence_scoped(*id) && *id != 0)
            .map(|&(id, ns, mult)| {
                self.multipliers.insert(id, mult);
                (id, ns)
            })
            .collect();
        if global.iter().any(|(id, _)| *id == BOOTTIME) {
            self.saw_boottime = true;
        }
        for (i, &(a, va)) in global.iter().enumerate() {
            for &(b, vb) in &global[i + 1..] {
                if a == b || self.readings >= MAX_READINGS {
                    continue;
                }
                self.readings += 2;
                self.dirty = true;
                self.last = None;
                for (x, vx, y, vy) in [(a, va, b, vb), (b, vb, a, va)] {
                    let e = self.edges.entry((x, y)).or_default();
                    if e.is_empty() {
                        self.adjacency.entry(x).or_default().push(y);
                    }
                    e.push((vx, vy));
                }
            }
        }
    }

    /// Sorts the readings; call once after all snapshots were added.
    /// [`ClockGraph::add_snapshot`] during a one-pass import: true when the snapshot comes too
    /// late, i.e. it may change a conversion already made (it changes the trace clock after it
    /// was read, or it adds readings after a conversion went through the graph).
    pub fn add_snapshot_late(
        &mut self,
        readings: &[(u32, i64, i64)],
        primary: Option<u32>,
    ) -> bool {
        let before = self.readings;
        let mults: Vec<Option<i64>> = readings
            .iter()
            .map(|(id, _, _)| self.multipliers.get(id).copied())
            .collect();
        self.add_snapshot(readings, primary);
        let mult_changed = readings
            .iter()
            .zip(&mults)
            .any(|((id, _, _), old)| self.multipliers.get(id).copied() != *old);
        let clock_changed = self
            .first_trace_clock
            .is_some_and(|first| first != self.trace_clock());
        clock_changed
            || (self.used && self.readings != before)
            || ((self.used || self.mult_used) && mult_changed)
    }

    pub fn finish(&mut self) {
        self.dirty = false;
        for v in self.edges.values_mut() {
            v.sort_unstable();
        }
        for v in self.adjacency.values_mut() {
            v.sort_unstable();
        }
    }

    /// The trace clock: `primary_trace_clock`, else BOOTTIME when any snapshot has it, else
    /// `None` (timestamps used as they are).
    pub fn trace_clock(&self) -> Option<u32> {
        self.primary.or(if self.saw_boottime {
            Some(BOOTTIME)
        } else {
            None
        })
    }

    /// Unit multiplier (ns per tick) of a machine-wide clock, 1 when the snapshots don't say.
    /// [`ClockGraph::trace_clock`], remembering the first answer (a one-pass import checks
    /// that later snapshots do not change it).
    pub fn note_trace_clock(&mut self) -> Option<u32> {
        let t = self.trace_clock();
        if self.first_trace_clock.is_none() {
            self.first_trace_clock = Some(t);
        }
        t
    }

    pub fn multiplier(&mut self, clock: u32) -> i64 {
        self.mult_used = true;
        self.multipliers.get(&clock).copied().unwrap_or(1).max(1)
    }

    /// Converts `ns` on machine-wide clock `clock` to the trace clock. Per hop, the latest
    /// reading whose source value is ≤ `ns` is used (the first one when all are later).
    /// `None` when no path of snapshots connects the two clocks.
    pub fn to_trace(&mut self, clock: u32, ns: i64) -> Option<i64> {
        let Some(target) = self.note_trace_clock() else {
            return Some(ns);
        };
        if clock == target {
            return Some(ns);
        }
        self.used = true;
        if let Some(h) = self.last {
            if h.clock == clock && h.lo <= ns && h.hi.is_none_or(|hi| ns < hi) {
                return Some(h.to.saturating_add(ns.saturating_sub(h.from)));
            }
        }
        if self.dirty {
            self.finish();
        }
        if !self.paths.contains_key(&clock) {
            let p = self.bfs(clock, target);
            self.paths.insert(clock, p);
        }
        let path = self.paths.get(&clock)?.as_ref()?;
        if let [to] = path[..] {
            let readings = self.edges.get(&(clock, to))?;
            let idx = readings.partition_point(|&(f, _)| f <= ns);
            let (f, t) = readings[idx.saturating_sub(1)];
            self.last = Some(LastHop {
                clock,
                lo: if idx == 0 { i64::MIN } else { f },
                hi: readings.get(idx).map(|r| r.0),
                from: f,
                to: t,
            });
            return Some(t.saturating_add(ns.saturating_sub(f)));
        }
        let mut v = ns;
        let mut from = clock;
        for &to in path {
            let readings = self.edges.get(&(from, to))?;
            let idx = readings.partition_point(|&(f, _)| f <= v);
            let (f, t) = readings[idx.saturating_sub(1)];
            v = t.saturating_add(v.saturating_sub(f));
            from = to;
        }
        Some(v)
    }

    fn bfs(&self, from: u32, to: u32) -> Option<Vec<u32>> {
        let mut prev: HashMap<u32, u32> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        prev.insert(from, from);
        while let Some(c) = queue.pop_front() {
            if c == to {
                let mut path = vec![to];
                let mut cur = to;
                while let Some(&p) = prev.get(&cur) {
                    if p == from {
                        break;
                    }
                    path.push(p);
                    cur = p;
                }
                path.reverse();
                return Some(path);
            }
            for &n in self.adjacency.get(&c).map(|v| &v[..]).unwrap_or(&[]) {
                if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(n) {
                    e.insert(c);
                    queue.push_back(n);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_through_two_hops_with_nearest_earlier_reading() {
        let mut g = ClockGraph::default();
        // BOOTTIME = MONOTONIC + 1000; REALTIME(1) = MONOTONIC + 5000 (at t<200), + 6000 later.
        g.add_snapshot(&[(BOOTTIME, 1100, 1), (MONOTONIC, 100, 1)], None);
        g.add_snapshot(&[(1, 5100, 1), (MONOTONIC, 100, 1)], None);
        g.add_snapshot(&[(1, 6200, 1), (MONOTONIC, 200, 1)], None);
        g.finish();
        assert_eq!(g.trace_clock(), Some(BOOTTIME));
        assert_eq!(g.to_trace(MONOTONIC, 150), Some(1150));
        // REALTIME 6300 → MONOTONIC 300 → BOOTTIME 1300.
        assert_eq!(g.to_trace(1, 6300), Some(1300));
        assert_eq!(g.to_trace(BOOTTIME, 7), Some(7));
        assert_eq!(g.to_trace(42, 7), None);
    }

    /// Each conversion of a graph that converted other values before (and remembers its last
    /// hop) equals the conversion by a graph that converts nothing else.
    #[test]
    fn the_remembered_hop_converts_as_a_fresh_graph_does() {
        let snapshots: Vec<Vec<(u32, i64, i64)>> = vec![
            vec![(BOOTTIME, 1_000, 1), (MONOTONIC, 100, 1)],
            vec![(BOOTTIME, 2_500, 1), (MONOTONIC, 200, 1)],
            // The same source value twice: the later reading (larger target) is used.
            vec![(BOOTTIME, 2_700, 1), (MONOTONIC, 200, 1)],
            vec![(BOOTTIME, 9_000, 1), (MONOTONIC, 400, 1)],
            vec![(1, 50, 1), (MONOTONIC, 100, 1)],
        ];
        let graph = |n: usize| {
            let mut g = ClockGraph::default();
            for s in &snapshots[..n] {
                g.add_snapshot(s, None);
            }
            g.finish();
            g
        };
        let values = [
            150,
            160,
            99,
            100,
            199,
            200,
            201,
            399,
            400,
            i64::MAX,
            i64::MIN,
            150,
            250,
            -5,
        ];
        let (mut g, mut n) = (graph(4), 4);
        let mut hits = 0;
        for (i, &v) in values.iter().cycle().take(3 * values.len()).enumerate() {
            // A clock of two hops (REALTIME, once its snapshot is in) in between: it leaves
            // the one-hop memo alone.
            let clock = if i % 5 == 4 { 1 } else { MONOTONIC };
            hits += usize::from(g.last.is_some_and(|h| h.clock == clock));
            assert_eq!(
                g.to_trace(clock, v),
                graph(n).to_trace(clock, v),
                "{clock} {v}"
            );
            if i == values.len() {
                // A snapshot added later: readings change, and so may conversions.
                g.add_snapshot(&snapshots[4], None);
                assert!(g.last.is_none());
                let mut fresh = graph(5);
                assert_eq!(g.to_trace(MONOTONIC, 300), fresh.to_trace(MONOTONIC, 300));
                (g, n) = (graph(5), 5);
            }
        }
        assert!(hits > values.len(), "the memo was used {hits} times");
    }
}
