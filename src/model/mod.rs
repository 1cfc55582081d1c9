//! The trace model: interned strings, tracks, columnar slices, counters, frames, args and
//! import diagnostics. Depends on no other module of this crate; every format importer produces
//! it and every analysis reads it.
//!
//! Architecture Invariant: timestamps are integer nanoseconds on one timeline per model
//! (`ts_ns`, `dur_ns`); no wire-format detail (interning ids, sequence ids, clock ids) survives
//! into the model.

pub mod args;
pub mod builder;
pub mod chunks;
pub mod collective;
pub mod compile_record;
pub mod diagnostics;
pub mod facts;
pub mod frame;
pub mod nested;
pub mod sink;
pub mod strings;

use std::collections::BTreeMap;

use chunks::Chunks;

use serde::Serialize;

pub use args::{ArgRef, ArgSets, Args, ArgsIter};
pub use builder::{SliceBuilder, SliceEvents};
pub use diagnostics::{Diagnostic, Diagnostics, Severity};
pub use frame::{
    frame_record_id, normalize_path, Frame, FrameId, FrameKey, FrameTable, Provider,
    SemanticFrameId, UnmatchedReason,
};
pub use nested::{Leaf, NestedId, NestedValues};
pub use sink::SliceSink;
pub use strings::{StrId, StringTable};

/// Index of a track in [`Model::tracks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize)]
pub struct TrackId(pub u32);

/// Index of a slice in [`Model::slices`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SliceId(pub u32);

/// Index of an argument set in [`Model::args`]; `ArgsId(0)` is the empty set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ArgsId(pub u32);

/// What a track carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackKind {
    /// Slices of one thread (pid, tid known).
    Thread,
    /// Process-scoped slices (e.g. process-scoped instants or process tracks).
    Process,
    /// Async slices keyed by an id (JSON b/e, Perfetto custom tracks).
    Async,
    /// The trace-global track.
    Global,
    /// A counter track; its samples are in [`Model::counters`].
    Counter,
}

/// One track (a timeline lane).
#[derive(Clone, Debug)]
pub struct Track {
    pub name: StrId,
    pub kind: TrackKind,
    pub pid: Option<i64>,
    pub tid: Option<i64>,
    /// Enclosing track (Perfetto `parent_uuid`), when any.
    pub parent: Option<TrackId>,
    /// For an overflow lane: the track whose partly overlapping slices it holds.
    pub overflow_of: Option<TrackId>,
}

/// Names of a process.
#[derive(Clone, Debug, Default)]
pub struct ProcessInfo {
    pub name: StrId,
    pub labels: Vec<StrId>,
    pub cmdline: Vec<StrId>,
    pub sort_index: Option<i64>,
}

/// Names of a thread.
#[derive(Clone, Debug, Default)]
pub struct ThreadInfo {
    pub pid: Option<i64>,
    pub name: StrId,
    pub sort_index: Option<i64>,
}

/// An argument value (debug annotation or JSON `args` entry).
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    Int(i64),
    UInt(u64),
    Double(f64),
    Bool(bool),
    Str(StrId),
    /// Text kept verbatim: JSON blobs, integers beyond 64 bits.
    Text(String),
    /// A structured value (a Perfetto nested debug annotation: dict, array or `NestedValue`
    /// tree) in [`ArgSets::nested`]; its JSON text is [`ArgSets::nested_text`].
    Nested(NestedId),
}

/// Bit flags of a slice.
pub mod slice_flags {
    /// The slice never ended inside the trace (`dur_ns` is -1).
    pub const INCOMPLETE: u8 = 1;
    /// A zero-duration instant event.
    pub const INSTANT: u8 = 2;
    /// A collective communication operation (NCCL/gloo/RCCL, `record_param_comms`).
    pub const COLLECTIVE: u8 = 4;
    /// Moved to an overflow lane because it partly overlapped a slice on its own track.
    pub const OVERFLOW: u8 = 8;
    /// A compile phase (XLA/JAX/torch.compile) usable by the compile-triage analysis.
    pub const COMPILE: u8 = 16;
}

/// Slices as parallel columns, ordered by (track, ts_ns, longer first).
/// `dur_ns` is -1 for incomplete slices; `parent` is the enclosing slice on the same track.
#[derive(Clone, Debug, Default)]
pub struct Slices {
    pub ts_ns: Chunks<i64>,
    pub dur_ns: Chunks<i64>,
    pub track: Chunks<TrackId>,
    pub name: Chunks<StrId>,
    pub category: Chunks<StrId>,
    pub frame: Chunks<FrameId>,
    pub depth: Chunks<u32>,
    pub parent: Parents,
    pub args: Chunks<ArgsId>,
    pub flags: Chunks<u8>,
}

impl Slices {
    /// No slices, with room for `n` in every column's first chunk (at most a full one): a
    /// model of up to 16,384 slices is built without growing a column.
    pub fn with_capacity(n: usize) -> Self {
        Slices {
            ts_ns: Chunks::with_capacity(n),
            dur_ns: Chunks::with_capacity(n),
            track: Chunks::with_capacity(n),
            name: Chunks::with_capacity(n),
            category: Chunks::with_capacity(n),
            frame: Chunks::with_capacity(n),
            depth: Chunks::with_capacity(n),
            parent: Parents(Chunks::with_capacity(n)),
            args: Chunks::with_capacity(n),
            flags: Chunks::with_capacity(n),
        }
    }

    /// Appends `more`'s slices after these, column by column, each of `more`'s columns freed
    /// once copied (so at most two columns are held twice). Slice ids in `more`'s `parent`
    /// column are kept as they are: they must already count from the start of `self`.
    ///
    /// `meanwhile` runs first, here, given the `args` and `track` columns of `self` and of
    /// `more` (in that order) to change; natively the other eight columns are copied on a
    /// thread of their own at the same time (here, after `meanwhile`, where no thread can be
    /// started). [`SliceBuilder::finish`](builder::SliceBuilder::finish) gives its two runs'
    /// arg-set and track ids there: on Chromium's 59 MB trace the copy was ~4 ms and the ids
    /// ~6 ms, one after the other, while the rest of the import waited. Gives `meanwhile`'s
    /// result.
    pub fn append_beside<R>(
        &mut self,
        more: Slices,
        meanwhile: impl FnOnce([&mut Chunks<ArgsId>; 2], [&mut Chunks<TrackId>; 2]) -> R,
    ) -> R {
        fn add<T: Copy>(to: &mut Chunks<T>, from: Chunks<T>) {
            to.append(from);
        }
        let Slices {
            ts_ns,
            dur_ns,
            mut track,
            name,
            category,
            frame,
            depth,
            parent,
            mut args,
            flags,
        } = more;
        let Slices {
            ts_ns: to_ts,
            dur_ns: to_dur,
            track: to_track,
            name: to_name,
            category: to_category,
            frame: to_frame,
            depth: to_depth,
            parent: to_parent,
            args: to_args,
            flags: to_flags,
        } = self;
        let columns = std::sync::Mutex::new(Some(move || {
            add(to_ts, ts_ns);
            add(to_dur, dur_ns);
            add(to_name, name);
            add(to_category, category);
            add(to_frame, frame);
            add(to_depth, depth);
            add(&mut to_parent.0, parent.0);
            add(to_flags, flags);
        }));
        let copy = || {
            let job = columns.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(job) = job {
                job();
            }
        };
        let out = std::thread::scope(|s| {
            let other = std::thread::Builder::new()
                .name("trialscope-append".into())
                .spawn_scoped(s, copy);
            let out = meanwhile([to_args, &mut args], [to_track, &mut track]);
            if let Ok(Err(panic)) = other.map(|h| h.join()) {
                std::panic::resume_unwind(panic);
            }
            out
        });
        // Not started (wasm32, or no thread to be had): copied here.
        copy();
        add(to_args, args);
        add(to_track, track);
        out
    }

    /// Gives back the columns' spare capacity (a model sized for its data).
    pub fn shrink_to_fit(&mut self) {
        self.ts_ns.shrink_to_fit();
        self.dur_ns.shrink_to_fit();
        self.track.shrink_to_fit();
        self.name.shrink_to_fit();
        self.category.shrink_to_fit();
        self.frame.shrink_to_fit();
        self.depth.shrink_to_fit();
        self.parent.0.shrink_to_fit();
        self.args.shrink_to_fit();
        self.flags.shrink_to_fit();
    }

    /// Heap bytes of the columns (their chunks' capacities), O(chunks).
    pub fn heap_bytes(&self) -> usize {
        self.ts_ns.heap_bytes()
            + self.dur_ns.heap_bytes()
            + self.track.heap_bytes()
            + self.name.heap_bytes()
            + self.category.heap_bytes()
            + self.frame.heap_bytes()
            + self.depth.heap_bytes()
            + self.parent.0.heap_bytes()
            + self.args.heap_bytes()
            + self.flags.heap_bytes()
    }

    /// Number of slices.
    pub fn len(&self) -> usize {
        self.ts_ns.len()
    }

    /// True when there is no slice.
    pub fn is_empty(&self) -> bool {
        self.ts_ns.is_empty()
    }
}

/// The `parent` column of [`Slices`]: the enclosing slice of each slice on its track, 4 bytes a
/// slice (an `Option<SliceId>` column takes 8). Slice index `u32::MAX` is the "no parent"
/// mark, so it cannot be a parent; a model never holds that many slices (at ~110 bytes a slice
/// that would be ~470 GB).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Parents(Chunks<u32>);

impl Parents {
    const NONE: u32 = u32::MAX;

    /// The parent of slice `i`; `None` for a root. Panics when `i` is out of range, like
    /// indexing the other columns.
    #[inline]
    pub fn get(&self, i: usize) -> Option<SliceId> {
        let p = self.0[i];
        (p != Self::NONE).then_some(SliceId(p))
    }

    /// Appends the parent of the next slice.
    #[inline]
    pub fn push(&mut self, parent: Option<SliceId>) {
        self.0.push(parent.map_or(Self::NONE, |p| p.0));
    }

    /// Number of slices in the column.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when the column is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Prints as the list of `Option<SliceId>` it stands for (the same text as a
/// `Vec<Option<SliceId>>`, so model dumps compare across the change of layout).
impl std::fmt::Debug for Parents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries((0..self.len()).map(|i| self.get(i)))
            .finish()
    }
}

/// One counter series: samples of one value over time, in ts order.
#[derive(Clone, Debug)]
pub struct CounterSeries {
    pub track: TrackId,
    pub name: StrId,
    /// Unit name as the trace gives it (`bytes`, `ns`, `count`, or free text; empty if unknown).
    pub unit: StrId,
    pub pid: Option<i64>,
    pub ts_ns: Vec<i64>,
    pub value: Vec<f64>,
}

impl CounterSeries {
    /// Puts the samples in timestamp order (stable: samples of one timestamp keep their
    /// order) and gives back the columns' spare room. In place: the extra memory is an index of
    /// 4 bytes a sample (8 above 2^32 samples) and the sort's buffer of half that, never a
    /// second copy of the columns (on Chromium's 59 MB trace a copy was the import's peak).
    pub fn sort_by_time(&mut self) {
        let n = self.ts_ns.len().min(self.value.len());
        self.ts_ns.truncate(n);
        self.value.truncate(n);
        if self.ts_ns.windows(2).any(|w| w[0] > w[1]) {
            if let Ok(m) = u32::try_from(n) {
                let mut idx: Vec<u32> = (0..m).collect();
                idx.sort_by_key(|&i| self.ts_ns[i as usize]);
                self.permute(&mut idx, |i| i as usize, |i| i as u32);
            } else {
                let mut idx: Vec<usize> = (0..n).collect();
                idx.sort_by_key(|&i| self.ts_ns[i]);
                self.permute(&mut idx, |i| i, |i| i);
            }
        }
        self.ts_ns.shrink_to_fit();
        self.value.shrink_to_fit();
    }

    /// Sample `k` becomes the sample at `idx[k]`, following each cycle of the permutation
    /// (an entry of `idx` is set to its own position once its cycle is done).
    fn permute<I: Copy>(
        &mut self,
        idx: &mut [I],
        get: impl Fn(I) -> usize,
        put: impl Fn(usize) -> I,
    ) {
        for start in 0..idx.len() {
            if get(idx[start]) == start {
                continue;
            }
            let (ts, value) = (self.ts_ns[start], self.value[start]);
            let mut j = start;
            loop {
                let k = get(idx[j]);
                idx[j] = put(j);
                if k == start {
                    self.ts_ns[j] = ts;
                    self.value[j] = value;
                    break;
                }
                self.ts_ns[j] = self.ts_ns[k];
                self.value[j] = self.value[k];
                j = k;
            }
        }
    }
}

/// Facts about the trace as a whole (what the writer said about itself).
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct TraceInfo {
    /// Distributed rank, when the trace says (Kineto `distributedInfo.rank`).
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    /// Collective backend (`nccl`, `gloo`, …).
    pub backend: Option<String>,
    pub hostname: Option<String>,
    /// Other writer metadata (key → value text), sorted by key.
    pub metadata: BTreeMap<String, String>,
}

/// Counts of what an importer read.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ImportStats {
    /// Bytes after decompression.
    pub decompressed_bytes: u64,
    /// Perfetto packets (including nested ones) or JSON events read.
    pub events: u64,
}

/// Everything imported from one artifact.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub strings: StringTable,
    pub tracks: Vec<Track>,
    pub slices: Slices,
    pub args: ArgSets,
    pub frames: FrameTable,
    pub counters: Vec<CounterSeries>,
    pub processes: BTreeMap<i64, ProcessInfo>,
    /// Threads keyed by tid (Perfetto tids are system-wide; JSON tids are keyed with their pid
    /// folded into the track, see the JSON importer).
    pub threads: BTreeMap<i64, ThreadInfo>,
    pub info: TraceInfo,
    pub stats: ImportStats,
    pub diagnostics: Diagnostics,
}

impl Model {
    /// An estimate of the model's heap bytes: strings, tracks, slice columns, arg sets, frames,
    /// counter samples, process and thread info (diagnostics and metadata are small and not
    /// counted). O(tracks + counter series + processes + arg chunks): cheap enough to call every ~64 k
    /// events; the per-file memory budget (`formats::limits::model_budget`) is checked
    /// against it.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let counters: usize = self
            .counters
            .iter()
            .map(|c| c.ts_ns.capacity() * 8 + c.value.capacity() * 8)
            .sum::<usize>()
            + self.counters.capacity() * size_of::<CounterSeries>();
        let info = (self.processes.len() + self.threads.len())
            * (size_of::<ProcessInfo>() + 8 + 16)
            + self
                .processes
                .values()
                .map(|p| (p.labels.capacity() + p.cmdline.capacity()) * size_of::<StrId>())
                .sum::<usize>();
        self.strings.heap_bytes()
            + self.tracks.capacity() * size_of::<Track>()
            + self.slices.heap_bytes()
            + self.args.heap_bytes()
            + self.frames.heap_bytes()
            + counters
            + info
    }

    /// Adds a track and returns its id.
    pub fn add_track(&mut self, track: Track) -> TrackId {
        self.tracks.push(track);
        TrackId(self.tracks.len() as u32 - 1)
    }

    /// The track with `id`.
    pub fn track(&self, id: TrackId) -> &Track {
        &self.tracks[id.0 as usize]
    }

    /// Resolves an interned string.
    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    /// Self time of every slice in ns: duration minus the summed durations of its direct
    /// children, floored at 0 (scaling.md, "metric"). Incomplete slices get 0. Shape: one
    /// value per slice, in slice order; [`Model::for_each_self_time`] gives the same values
    /// without the per-slice column.
    pub fn self_times_ns(&self) -> Vec<i64> {
        let mut out = vec![0; self.slices.len()];
        self.for_each_self_time(|i, v| out[i] = v);
        out
    }

    /// Calls `f(slice index, self time in ns)` once for every slice, with the values of
    /// [`Model::self_times_ns`], in an unspecified order (last slice first when every parent
    /// comes before its children, as [`builder::SliceBuilder`] lays them out).
    ///
    /// Holds the children's summed durations only for the parents still waiting for their
    /// turn (the ancestors of the slice at hand on its track: a stack as deep as the
    /// nesting), not an 8-byte column over all slices (87 MB on a 10.9 M-slice trace); a
    /// model whose parent links point forward is read with that column instead. A parent
    /// link out of range counts as none.
    pub fn for_each_self_time(&self, mut f: impl FnMut(usize, i64)) {
        let s = &self.slices;
        let n = s.len();
        let parent = |i: usize| s.parent.get(i).map(|p| p.0 as usize).filter(|&p| p < n);
        let dur = |i: usize| s.dur_ns[i].max(0);
        if (0..n).any(|i| parent(i).is_some_and(|p| p >= i)) {
            let mut self_ns: Vec<i64> = (0..n).map(dur).collect();
            for i in 0..n {
                if let Some(p) = parent(i) {
                    self_ns[p] = self_ns[p].saturating_sub(dur(i));
                }
            }
            for (i, v) in self_ns.into_iter().enumerate() {
                f(i, v.max(0));
            }
            return;
        }
        // Last slice first: a slice's children (all after it) are done before it. The
        // summed durations of the children seen so far, per parent not yet reached: in
        // `stack` (indices rising to the top) while they come in the builder's layout (each
        // track's slices in depth-first order), in `rest` when not (any other layout); a
        // parent may have a share in both.
        let mut stack: Vec<(usize, i64)> = Vec::new();
        let mut rest: BTreeMap<usize, i64> = BTreeMap::new();
        for i in (0..n).rev() {
            let mut children = match stack.last() {
                Some(&(k, sum)) if k == i => {
                    stack.pop();
                    sum
                }
                _ => 0,
            };
            if !rest.is_empty() {
                if let Some(more) = rest.remove(&i) {
                    children = children.saturating_add(more);
                }
            }
            // Saturating sums of durations ≥ 0, then one subtraction: the same value as
            // subtracting each child's duration in turn (saturating) and flooring at 0.
            f(i, dur(i).saturating_sub(children).max(0));
            if let Some(p) = parent(i) {
                let d = dur(i);
                match stack.last_mut() {
                    Some((k, sum)) if *k == p => *sum = sum.saturating_add(d),
                    Some((k, _)) if *k > p => {
                        let e = rest.entry(p).or_insert(0);
                        *e = e.saturating_add(d);
                    }
                    _ => stack.push((p, d)),
                }
            }
        }
    }

    /// Display name of a track: its own name, else the thread or process name, else `pid/tid`.
    pub fn track_label(&self, id: TrackId) -> String {
        let t = self.track(id);
        let own = self.str(t.name);
        if !own.is_empty() {
            return own.to_string();
        }
        if let Some(tid) = t.tid {
            if let Some(th) = self.threads.get(&tid) {
                if th.name.0 != 0 {
                    return self.str(th.name).to_string();
                }
            }
            return format!("thread {tid}");
        }
        if let Some(pid) = t.pid {
            if let Some(p) = self.processes.get(&pid) {
                if p.name.0 != 0 {
                    return self.str(p.name).to_string();
                }
            }
            return format!("process {pid}");
        }
        format!("track {}", id.0)
    }
}

/// Helpers for the model's unit tests.
#[cfg(test)]
pub(crate) mod testing {
    /// A xorshift64 generator seeded with `seed * mul` (odd): each call `next(m)` gives a
    /// number below `m` (`m` ≥ 1).
    pub(crate) fn xorshift(seed: u64, mul: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed.wrapping_mul(mul) | 1;
        move |m| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The self time of each slice as first defined: its duration (≥ 0) minus each direct
    /// child's in slice order, saturating, floored at 0; a parent out of range is none.
    fn self_times_reference(s: &Slices) -> Vec<i64> {
        let n = s.len();
        let mut out: Vec<i64> = s.dur_ns.iter().map(|&d| d.max(0)).collect();
        for i in 0..n {
            if let Some(p) = s.parent.get(i).map(|p| p.0 as usize).filter(|&p| p < n) {
                out[p] = out[p].saturating_sub(s.dur_ns[i].max(0));
            }
        }
        out.into_iter().map(|v| v.max(0)).collect()
    }

    /// True when every slice's parent is the previous slice or one of its ancestors (the
    /// builder's depth-first layout).
    fn depth_first(s: &Slices) -> bool {
        let mut path: Vec<usize> = Vec::new();
        for i in 0..s.len() {
            match s.parent.get(i) {
                None => path.clear(),
                Some(p) => {
                    while path.last().is_some_and(|&k| k != p.0 as usize) {
                        path.pop();
                    }
                    if path.is_empty() {
                        return false;
                    }
                }
            }
            path.push(i);
        }
        true
    }

    /// `for_each_self_time` visits every slice once with the reference's value, for
    /// depth-first forests (the builder's layout), parents before children in any layout,
    /// and parent links pointing forward or out of range; durations include incomplete
    /// slices and sums that saturate.
    #[test]
    fn self_times_match_the_per_slice_definition_in_any_layout() {
        let mut layouts = [0usize; 3];
        for seed in 0..600u64 {
            let mut next = testing::xorshift(seed, 0xd1b54a32d192ed03);
            let n = 1 + next(120) as usize;
            let layout = (seed % 3) as usize;
            let mut s = Slices::default();
            let mut path: Vec<usize> = Vec::new();
            for i in 0..n {
                let parent = match layout {
                    // Depth-first: the previous slice or one of its ancestors, or a root.
                    0 => {
                        let keep = next(path.len() as u64 + 2) as usize;
                        path.truncate(keep.min(path.len()));
                        path.last().copied()
                    }
                    // Any earlier slice, or a root.
                    1 => (i > 0 && next(5) > 0).then(|| next(i as u64) as usize),
                    // Anywhere, forward and out of range too.
                    _ => (next(4) > 0).then(|| next(n as u64 + 3) as usize),
                };
                path.push(i);
                let dur = match next(10) {
                    0 => -1,
                    1 => i64::MAX / 3,
                    _ => next(1000) as i64,
                };
                s.ts_ns.push(i as i64);
                s.dur_ns.push(dur);
                s.parent.push(parent.map(|p| SliceId(p as u32)));
            }
            let depth_first = depth_first(&s);
            let forward = (0..n).any(|i| s.parent.get(i).is_some_and(|p| p.0 as usize >= i));
            layouts[if forward {
                2
            } else if depth_first {
                0
            } else {
                1
            }] += 1;
            let model = Model {
                slices: s,
                ..Model::default()
            };
            let mut got = vec![None; n];
            model.for_each_self_time(|i, v| {
                assert!(got[i].is_none(), "seed {seed}: slice {i} visited twice");
                got[i] = Some(v);
            });
            let want: Vec<Option<i64>> = self_times_reference(&model.slices)
                .into_iter()
                .map(Some)
                .collect();
            assert_eq!(got, want, "seed {seed}");
            assert_eq!(
                model.self_times_ns(),
                self_times_reference(&model.slices),
                "seed {seed}"
            );
        }
        // Each of the three paths (stack, stack and map, the full column) was taken often.
        assert!(layouts.iter().all(|&k| k > 100), "{layouts:?}");
    }

    /// `sort_by_time` gives what a stable sort of (ts, value) pairs by ts gives, for runs of
    /// ties, reversed and shuffled series.
    #[test]
    fn counter_samples_sort_stably_in_place() {
        let mut shuffled = 0;
        for seed in 0..300u64 {
            let mut next = testing::xorshift(seed, 0x9e3779b97f4a7c15);
            let n = next(200) as usize;
            let spread = 1 + next(50) as i64;
            let ts: Vec<i64> = (0..n).map(|_| next(spread as u64) as i64 - 5).collect();
            let value: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let mut want: Vec<(i64, f64)> = ts.iter().copied().zip(value.iter().copied()).collect();
            want.sort_by_key(|p| p.0);
            let mut s = CounterSeries {
                track: TrackId(0),
                name: StrId(0),
                unit: StrId(0),
                pid: None,
                ts_ns: ts.clone(),
                value,
            };
            if ts.windows(2).any(|w| w[0] > w[1]) {
                shuffled += 1;
            }
            s.sort_by_time();
            let got: Vec<(i64, f64)> = s
                .ts_ns
                .iter()
                .copied()
                .zip(s.value.iter().copied())
                .collect();
            assert_eq!(got, want, "seed {seed}");
        }
        assert!(shuffled > 200, "{shuffled} series out of order");
    }
}
