//! The trace model: interned strings, tracks, columnar slices, counters, frames, args and
//! import diagnostics. Depends on no other module of this crate; every format importer produces
//! it and every analysis reads it.
//!
//! Architecture Invariant: timestamps are integer nanoseconds on one timeline per model
//! (`ts_ns`, `dur_ns`); no wire-format detail (interning ids, sequence ids, clock ids) survives
//! into the model.

pub mod builder;
pub mod collective;
pub mod compile_record;
pub mod diagnostics;
pub mod facts;
pub mod frame;
pub mod nested;
pub mod strings;

use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

pub use builder::SliceBuilder;
pub use diagnostics::{Diagnostic, Diagnostics, Severity};
pub use frame::{
    frame_record_id, normalize_path, Frame, FrameId, FrameKey, FrameTable, Provider,
    SemanticFrameId, UnmatchedReason,
};
pub use nested::{NestedId, NestedValues};
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

/// Entries per chunk of [`ArgSets`] once its first chunk has grown to that size (32 bytes
/// each: 1 MiB a chunk).
const ARG_CHUNK: usize = 1 << 15;

/// All argument sets of a model, columnar: every set's entries in one sequence, a set being
/// the range between two offsets (no allocation per set). Set 0 is empty.
///
/// The sequence is stored in chunks of `ARG_CHUNK` (32,768) entries that never move once full (a
/// set never spans two chunks: one that would is moved whole to the next chunk), so the
/// column grows without ever copying itself — in wasm32 a growing `Vec` is copied, its old
/// and new blocks live at once.
#[derive(Clone)]
pub struct ArgSets {
    /// `starts[i]..starts[i + 1]` are the entries of set `i` (positions in the whole
    /// sequence); the entries after the last offset belong to the set being built
    /// ([`ArgSets::push_entry`]).
    starts: Vec<u32>,
    /// The sequence: chunk `c` holds positions `chunk_starts[c]..` (`chunks[c].len()` of them).
    chunks: Vec<Vec<(StrId, ArgValue)>>,
    /// Position of each chunk's first entry (strictly increasing).
    chunk_starts: Vec<u32>,
    /// Entries over all chunks.
    len: u32,
    /// Heap bytes of the `Text` values, kept as entries are added.
    text_bytes: usize,
    /// The structured values [`ArgValue::Nested`] entries refer to.
    nested: NestedValues,
}

/// Formats the chunks as the one list of entries they hold.
struct FlatEntries<'a>(&'a [Vec<(StrId, ArgValue)>]);

impl std::fmt::Debug for FlatEntries<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().flatten()).finish()
    }
}

/// As derived over one list of entries, with the structured values only when there are any
/// (so a model without them prints as it did before they existed).
impl std::fmt::Debug for ArgSets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ArgSets");
        d.field("starts", &self.starts)
            .field("entries", &FlatEntries(&self.chunks))
            .field("text_bytes", &self.text_bytes);
        if !self.nested.is_empty() {
            d.field("nested", &self.nested);
        }
        d.finish()
    }
}

impl Default for ArgSets {
    fn default() -> Self {
        ArgSets {
            starts: vec![0, 0],
            chunks: Vec::new(),
            chunk_starts: Vec::new(),
            len: 0,
            text_bytes: 0,
            nested: NestedValues::default(),
        }
    }
}

impl ArgSets {
    /// Stores a set and returns its id ([`ArgsId(0)`](ArgsId) for an empty set). Entries
    /// pushed with [`ArgSets::push_entry`] and not finished yet become part of this set.
    pub fn add(&mut self, args: Vec<(StrId, ArgValue)>) -> ArgsId {
        for (k, v) in args {
            self.push_entry(k, v);
        }
        self.finish_set()
    }

    /// Appends one entry to the set being built (closed by [`ArgSets::finish_set`]).
    pub fn push_entry(&mut self, key: StrId, value: ArgValue) {
        if let ArgValue::Text(t) = &value {
            self.text_bytes += t.capacity();
        }
        self.chunk_for_one_more().push((key, value));
        self.len += 1;
    }

    /// The chunk the next entry goes to: the last one, unless it is a full chunk of
    /// [`ARG_CHUNK`] entries or more — then a new chunk, with the set being built moved to
    /// it (a set that alone fills its chunk stays and its chunk grows).
    fn chunk_for_one_more(&mut self) -> &mut Vec<(StrId, ArgValue)> {
        let set_start = self.starts.last().copied().unwrap_or(0);
        let need_new = match (self.chunks.last(), self.chunk_starts.last()) {
            (Some(c), Some(&cs)) => {
                c.len() == c.capacity() && c.len() >= ARG_CHUNK && set_start > cs
            }
            _ => true,
        };
        if need_new {
            let mut next = Vec::new();
            if let (Some(c), Some(&cs)) = (self.chunks.last_mut(), self.chunk_starts.last()) {
                let at = ((set_start - cs) as usize).min(c.len());
                next.reserve_exact(ARG_CHUNK.max(2 * (c.len() - at)));
                next.extend(c.drain(at..));
            }
            self.chunks.push(next);
            self.chunk_starts.push(set_start);
        }
        let last = self.chunks.len() - 1;
        &mut self.chunks[last]
    }

    /// Closes the set built by [`ArgSets::push_entry`] and returns its id
    /// ([`ArgsId(0)`](ArgsId) when no entry was pushed).
    pub fn finish_set(&mut self) -> ArgsId {
        let start = self.starts.last().copied().unwrap_or(0);
        // Offsets are u32: past 2^32 entries (over 128 GB of them) sets would read as empty.
        let end = self.len;
        if end == start {
            return ArgsId(0);
        }
        self.starts.push(end);
        ArgsId(self.starts.len() as u32 - 2)
    }

    /// The entries of set `id` (empty for an unknown id).
    pub fn get(&self, id: ArgsId) -> &[(StrId, ArgValue)] {
        let i = id.0 as usize;
        let (Some(&a), Some(&b)) = (self.starts.get(i), self.starts.get(i + 1)) else {
            return &[];
        };
        if b <= a {
            return &[];
        }
        // The chunk holding position `a` (a set lies in one chunk).
        let c = self.chunk_starts.partition_point(|&s| s <= a);
        let Some(c) = c.checked_sub(1) else {
            return &[];
        };
        let at = (a - self.chunk_starts[c]) as usize;
        self.chunks[c].get(at..at + (b - a) as usize).unwrap_or(&[])
    }

    /// A set holding the entries of `a` followed by those of `b` whose keys `a` lacks (the first
    /// of `b`'s entries with a key, when `b` repeats it). Linear in the sizes of both sets.
    pub fn merge(&mut self, a: ArgsId, b: ArgsId) -> ArgsId {
        if b.0 == 0 {
            return a;
        }
        if a.0 == 0 {
            return b;
        }
        let (first, second) = (self.get(a), self.get(b));
        MERGE_PROBES.with(|c| c.set(c.get() + (first.len() + second.len()) as u64));
        let mut seen: HashSet<StrId> = first.iter().map(|(k, _)| *k).collect();
        let mut merged = first.to_vec();
        for (k, v) in second {
            if seen.insert(*k) {
                merged.push((*k, v.clone()));
            }
        }
        self.add(merged)
    }

    /// Stores an encoded structured value ([`nested::enc`]) for an [`ArgValue::Nested`]
    /// entry; an identical value stored before is shared.
    pub fn add_nested(&mut self, encoded: &[u8]) -> NestedId {
        self.nested.add(encoded)
    }

    /// The structured values of all sets.
    pub fn nested(&self) -> &NestedValues {
        &self.nested
    }

    /// The JSON text of structured value `id` (interned strings resolved in `strings`).
    pub fn nested_text(&self, id: NestedId, strings: &StringTable) -> String {
        self.nested.text(id, strings)
    }

    /// Number of sets, the empty set 0 included.
    pub fn set_count(&self) -> usize {
        self.starts.len() - 1
    }

    /// Number of entries over all sets.
    pub fn entry_count(&self) -> usize {
        self.len as usize
    }

    /// Estimated heap bytes of all sets, O(chunks) (one chunk per 32 768 entries).
    pub fn heap_bytes(&self) -> usize {
        self.text_bytes
            + self.nested.heap_bytes()
            + self
                .chunks
                .iter()
                .map(|c| c.capacity() * std::mem::size_of::<(StrId, ArgValue)>())
                .sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Vec<(StrId, ArgValue)>>()
            + (self.starts.capacity() + self.chunk_starts.capacity()) * std::mem::size_of::<u32>()
    }

    /// Gives back spare capacity (a model sized for its data).
    pub fn shrink_to_fit(&mut self) {
        for c in &mut self.chunks {
            c.shrink_to_fit();
        }
        self.starts.shrink_to_fit();
        self.nested.shrink_to_fit();
    }

    /// Key lookups [`ArgSets::merge`] has made on this thread. A test hook for the complexity
    /// tests: merging sets of n and m entries costs n + m.
    #[doc(hidden)]
    pub fn merge_probes_on_this_thread() -> u64 {
        MERGE_PROBES.with(Cell::get)
    }
}

thread_local! {
    static MERGE_PROBES: Cell<u64> = const { Cell::new(0) };
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
    pub ts_ns: Vec<i64>,
    pub dur_ns: Vec<i64>,
    pub track: Vec<TrackId>,
    pub name: Vec<StrId>,
    pub category: Vec<StrId>,
    pub frame: Vec<FrameId>,
    pub depth: Vec<u32>,
    pub parent: Vec<Option<SliceId>>,
    pub args: Vec<ArgsId>,
    pub flags: Vec<u8>,
}

impl Slices {
    /// Reserves room for `n` more slices in every column.
    pub fn reserve(&mut self, n: usize) {
        self.ts_ns.reserve_exact(n);
        self.dur_ns.reserve_exact(n);
        self.track.reserve_exact(n);
        self.name.reserve_exact(n);
        self.category.reserve_exact(n);
        self.frame.reserve_exact(n);
        self.depth.reserve_exact(n);
        self.parent.reserve_exact(n);
        self.args.reserve_exact(n);
        self.flags.reserve_exact(n);
    }

    /// Makes room for `n` more slices in every column of a model that will hold `total`:
    /// exactly, or by half the length when that is more (never past `total`), so slices
    /// appended track by track cost a few reallocations per column (amortized O(1) a slice)
    /// and no room is left spare at `total`. Columns grow one after another, so a growth that
    /// copies (wasm32) holds one column twice, never all of them.
    pub fn grow_for(&mut self, n: usize, total: usize) {
        fn grow<T>(v: &mut Vec<T>, n: usize, total: usize) {
            if v.capacity() - v.len() < n {
                let more = (v.len() / 2).min(total.saturating_sub(v.len())).max(n);
                v.reserve_exact(more);
            }
        }
        grow(&mut self.ts_ns, n, total);
        grow(&mut self.dur_ns, n, total);
        grow(&mut self.track, n, total);
        grow(&mut self.name, n, total);
        grow(&mut self.category, n, total);
        grow(&mut self.frame, n, total);
        grow(&mut self.depth, n, total);
        grow(&mut self.parent, n, total);
        grow(&mut self.args, n, total);
        grow(&mut self.flags, n, total);
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
        self.parent.shrink_to_fit();
        self.args.shrink_to_fit();
        self.flags.shrink_to_fit();
    }

    /// Heap bytes of the columns (their capacities), O(1).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.ts_ns.capacity() * size_of::<i64>()
            + self.dur_ns.capacity() * size_of::<i64>()
            + self.track.capacity() * size_of::<TrackId>()
            + self.name.capacity() * size_of::<StrId>()
            + self.category.capacity() * size_of::<StrId>()
            + self.frame.capacity() * size_of::<FrameId>()
            + self.depth.capacity() * size_of::<u32>()
            + self.parent.capacity() * size_of::<Option<SliceId>>()
            + self.args.capacity() * size_of::<ArgsId>()
            + self.flags.capacity()
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
    /// children, floored at 0 (scaling.md, "metric"). Incomplete slices get 0.
    pub fn self_times_ns(&self) -> Vec<i64> {
        let s = &self.slices;
        let mut self_ns: Vec<i64> = s.dur_ns.iter().map(|&d| d.max(0)).collect();
        for i in 0..s.len() {
            if let Some(p) = s.parent[i] {
                let d = s.dur_ns[i].max(0);
                let p = p.0 as usize;
                self_ns[p] = self_ns[p].saturating_sub(d);
            }
        }
        for v in &mut self_ns {
            *v = (*v).max(0);
        }
        self_ns
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
