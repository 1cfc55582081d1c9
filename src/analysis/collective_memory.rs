//! Rank memory timelines and collective attribution of hidden-memory spikes
//! (`/work/shared/reference/collective-memory.md`).
//!
//! Pipeline:
//! 1. [`series_from_model`] reads one rank's memory counters (matched by name through a
//!    [`Mapping`]), its collective markers (the spec's token rule,
//!    [`crate::model::collective::has_collective_token`]) and its phase annotations out of a
//!    [`Model`] → [`RankSeries`].
//! 2. The caller resolves each rank's identity ([`crate::model::facts::rank_from_file_name`] when the content has
//!    none) and builds [`RankInput`]s.
//! 3. [`run`] aligns the ranks' clocks and runs the spec's attribution algorithm (steps 1–11) →
//!    [`Report`].
//!
//! Units: times are ns, memory is bytes, ratios are fractions (0..1). Pure and deterministic:
//! the same inputs give the same report (no clock, no I/O, no hash-map order in outputs).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

pub use crate::analysis::kept_counter::KeptCounter;
use crate::analysis::stats;
use crate::model::collective::{fold, has_collective_token, has_collective_token_in};
use crate::model::facts::{rank_in_text, Facts};
use crate::model::{slice_flags, ArgRef, Leaf, Model, NestedId, NestedValues, StrId, StringTable};

const MIB: u64 = 1 << 20;
const MS: i64 = 1_000_000;

// ---------------------------------------------------------------------------------------------
// Series mapping
// ---------------------------------------------------------------------------------------------

/// Which memory series a counter name stands for (collective-memory.md, "Per-rank series").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeriesKind {
    /// Memory used on the device as the driver sees it (NVML), bytes.
    DeviceUsed,
    /// Memory held by the framework's caching allocator, bytes.
    AllocatorReserved,
    /// Live tensors, bytes.
    AllocatorAllocated,
    /// Device capacity, bytes.
    DeviceTotal,
}

impl SeriesKind {
    /// Every kind, in the spec's order.
    pub const ALL: [SeriesKind; 4] = [
        SeriesKind::DeviceUsed,
        SeriesKind::AllocatorReserved,
        SeriesKind::AllocatorAllocated,
        SeriesKind::DeviceTotal,
    ];

    /// The spec's series name (`device_used_bytes`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            SeriesKind::DeviceUsed => "device_used_bytes",
            SeriesKind::AllocatorReserved => "allocator_reserved_bytes",
            SeriesKind::AllocatorAllocated => "allocator_allocated_bytes",
            SeriesKind::DeviceTotal => "device_total_bytes",
        }
    }
}

/// One value per memory series kind (collective-memory.md, "Per-rank series"): the patterns of
/// a [`Mapping`], the series of a [`RankSeries`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerKind<T> {
    /// Device memory used as the driver sees it (NVML), bytes.
    pub device_used: T,
    /// Caching allocator's reserved memory, bytes.
    pub allocator_reserved: T,
    /// Live tensors, bytes.
    pub allocator_allocated: T,
    /// Device capacity, bytes.
    pub device_total: T,
}

impl<T> PerKind<T> {
    /// The value of kind `k`.
    pub fn get(&self, k: SeriesKind) -> &T {
        match k {
            SeriesKind::DeviceUsed => &self.device_used,
            SeriesKind::AllocatorReserved => &self.allocator_reserved,
            SeriesKind::AllocatorAllocated => &self.allocator_allocated,
            SeriesKind::DeviceTotal => &self.device_total,
        }
    }

    /// The value of kind `k`, mutably.
    pub fn get_mut(&mut self, k: SeriesKind) -> &mut T {
        match k {
            SeriesKind::DeviceUsed => &mut self.device_used,
            SeriesKind::AllocatorReserved => &mut self.allocator_reserved,
            SeriesKind::AllocatorAllocated => &mut self.allocator_allocated,
            SeriesKind::DeviceTotal => &mut self.device_total,
        }
    }

    /// `(kind, value)` in the spec's order (device used, reserved, allocated, total).
    pub fn iter(&self) -> impl Iterator<Item = (SeriesKind, &T)> {
        SeriesKind::ALL.into_iter().map(move |k| (k, self.get(k)))
    }
}

impl Default for PerKind<Option<Series>> {
    fn default() -> Self {
        PerKind {
            device_used: None,
            allocator_reserved: None,
            allocator_allocated: None,
            device_total: None,
        }
    }
}

/// A user-editable mapping from counter names to memory series.
///
/// A counter matches a pattern when its name, lower-cased with `-` and `_` removed
/// ([`fold`]), contains the pattern folded the same way. Kinds are tried in the order
/// reserved → allocated → total → device-used, so `Total Reserved` is reserved memory and
/// `device_used_bytes` is device-used memory. Defaults:
///
/// | kind | patterns |
/// |---|---|
/// | allocator_reserved | `reserved` |
/// | allocator_allocated | `allocated` |
/// | device_total | `device_total`, `total_bytes`, `mem_total`, `memory total`, `capacity` |
/// | device_used | `device_used`, `nvml`, `used`, `gpu memory`, `device memory` |
///
/// Kineto `[memory]` events arrive (from the Chrome JSON importer) as `"<device> allocated"`
/// and `"<device> reserved"`, which the defaults match. When several counters of a model match
/// one kind, a non-`cpu` one wins, then the one with more samples, then the first.
pub type Mapping = PerKind<Vec<String>>;

impl Default for Mapping {
    fn default() -> Self {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
        Mapping {
            device_used: v(&["device_used", "nvml", "used", "gpu memory", "device memory"]),
            allocator_reserved: v(&["reserved"]),
            allocator_allocated: v(&["allocated"]),
            device_total: v(&[
                "device_total",
                "total_bytes",
                "mem_total",
                "memory total",
                "capacity",
            ]),
        }
    }
}

impl Mapping {
    /// The series kind a counter named `name` maps to, if any.
    pub fn classify(&self, name: &str) -> Option<SeriesKind> {
        let f = fold(name);
        let hit = |pats: &[String]| {
            pats.iter().any(|p| {
                let p = fold(p);
                !p.is_empty() && f.contains(&p)
            })
        };
        if hit(&self.allocator_reserved) {
            Some(SeriesKind::AllocatorReserved)
        } else if hit(&self.allocator_allocated) {
            Some(SeriesKind::AllocatorAllocated)
        } else if hit(&self.device_total) {
            Some(SeriesKind::DeviceTotal)
        } else if hit(&self.device_used) {
            Some(SeriesKind::DeviceUsed)
        } else {
            None
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Per-rank data
// ---------------------------------------------------------------------------------------------

/// One memory series: samples in time order. `ts_ns` in ns on the trace's clock, `value` in
/// bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// The counter name the series came from.
    pub name: String,
    /// Sample times, ns, ascending.
    pub ts_ns: Vec<i64>,
    /// Sample values, bytes.
    pub value: Vec<f64>,
}

impl Series {
    /// The value in force at `t` (sample-and-hold: the last sample at or before `t`; before the
    /// first sample, the first sample). `None` for an empty series.
    pub fn value_at(&self, t: i64) -> Option<f64> {
        if self.ts_ns.is_empty() {
            return None;
        }
        let i = self.ts_ns.partition_point(|&x| x <= t);
        Some(self.value[i.saturating_sub(1)])
    }

    fn shifted(&self, by: i64) -> Series {
        Series {
            name: self.name.clone(),
            ts_ns: self.ts_ns.iter().map(|t| t.saturating_add(by)).collect(),
            value: self.value.clone(),
        }
    }
}

/// A collective marker: `[start_ns, end_ns]` (a point marker has `start_ns == end_ns`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns (≥ start).
    pub end_ns: i64,
    /// The event's name (or telemetry event type).
    pub name: String,
}

/// A phase annotation (`ProfilerStep#N`, `train_step`, forward/backward/optimizer): `[start_ns,
/// end_ns]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phase {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns (≥ start).
    pub end_ns: i64,
    /// Name as the trace gives it.
    pub name: String,
}

/// Everything the attribution needs from one rank's trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RankSeries {
    /// Rank stated by the content (Kineto `distributedInfo.rank`, a process label such as
    /// `rank 3`, a `rank` arg, telemetry `rank`); `None` when the content does not say.
    pub rank: Option<u32>,
    /// World size stated by the content.
    pub world_size: Option<u32>,
    /// The four memory series (bytes), each when the trace has it. (Not `#[serde(flatten)]`:
    /// this type crosses the worker boundary in a non-self-describing binary form,
    /// `crate::workspace::wire`.)
    pub kinds: PerKind<Option<Series>>,
    /// Collective markers, sorted by start.
    pub markers: Vec<Marker>,
    /// Phase annotations, sorted by start.
    pub phases: Vec<Phase>,
    /// True when the timestamps are on a clock shared by the job's ranks: wall-clock time since
    /// the Unix epoch (first timestamp ≥ 10^17 ns, i.e. after 1973) or a trace stating
    /// `baseTimeNanoseconds`.
    pub shared_clock: bool,
}

impl RankSeries {
    /// The spec names of the series present.
    pub fn series_present(&self) -> Vec<&'static str> {
        self.kinds
            .iter()
            .filter(|(_, s)| s.as_ref().is_some_and(|s| !s.ts_ns.is_empty()))
            .map(|(k, _)| k.as_str())
            .collect()
    }

    /// Number of samples on the rank's timeline: those of device_used when present, else the
    /// largest count among the other series.
    pub fn samples(&self) -> usize {
        if let Some(s) = &self.kinds.device_used {
            return s.ts_ns.len();
        }
        self.kinds
            .iter()
            .filter_map(|(_, s)| s.as_ref().map(|s| s.ts_ns.len()))
            .max()
            .unwrap_or(0)
    }

    fn first_ts(&self) -> Option<i64> {
        self.kinds
            .iter()
            .filter_map(|(_, s)| s.as_ref().and_then(|s| s.ts_ns.first().copied()))
            .min()
    }

    fn earliest_record(&self) -> Option<i64> {
        let m = self.markers.iter().map(|m| m.start_ns).min();
        let p = self.phases.iter().map(|p| p.start_ns).min();
        [self.first_ts(), m, p].into_iter().flatten().min()
    }

    fn shifted(&self, by: i64) -> RankSeries {
        if by == 0 {
            return self.clone();
        }
        let sh = |s: &Option<Series>| s.as_ref().map(|s| s.shifted(by));
        RankSeries {
            rank: self.rank,
            world_size: self.world_size,
            kinds: PerKind {
                device_used: sh(&self.kinds.device_used),
                allocator_reserved: sh(&self.kinds.allocator_reserved),
                allocator_allocated: sh(&self.kinds.allocator_allocated),
                device_total: sh(&self.kinds.device_total),
            },
            markers: self
                .markers
                .iter()
                .map(|m| Marker {
                    start_ns: m.start_ns.saturating_add(by),
                    end_ns: m.end_ns.saturating_add(by),
                    name: m.name.clone(),
                })
                .collect(),
            phases: self
                .phases
                .iter()
                .map(|p| Phase {
                    start_ns: p.start_ns.saturating_add(by),
                    end_ns: p.end_ns.saturating_add(by),
                    name: p.name.clone(),
                })
                .collect(),
            shared_clock: self.shared_clock,
        }
    }
}

/// First timestamp (ns) from which a clock is taken to be wall-clock time since the Unix epoch.
pub const EPOCH_CLOCK_MIN_NS: i64 = 100_000_000_000_000_000;

/// True for a step/phase annotation: a name containing `step`, `forward`, `backward` or
/// `optimizer` (after [`fold`]; `ProfilerStep#N`, `train_step`, `DistributedDataParallel.forward`,
/// `Optimizer.step#SGD.step`) that is not a Python stack frame (`file.py(line): fn`,
/// `<built-in …>`), an operator (`aten::`, `autograd::`) or an autograd node (`…Backward0`).
pub fn is_phase_name(name: &str) -> bool {
    if name.contains(".py(")
        || name.starts_with('<')
        || name.contains("aten::")
        || name.contains("autograd::")
    {
        return false;
    }
    let t = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if t.len() < name.len() && t.ends_with("Backward") {
        return false;
    }
    let f = fold(name);
    f.starts_with("profilerstep")
        || f.contains("step")
        || f.contains("forward")
        || f.contains("backward")
        || f.contains("optimizer")
}

/// Collective tokens in arg text, as [`has_collective_token`] finds them, folding into one
/// reused buffer ([`has_collective_token_in`]). Eleven `str::contains` calls per value, each
/// building its searcher, over a lower-cased copy were 12 % of the import worker's `prepare` in
/// wasm (`tools/bench/wasm_stages.sh`, README "Build profiles").
struct TokenScan {
    buf: Vec<u8>,
}

impl TokenScan {
    fn new() -> Self {
        TokenScan { buf: Vec::new() }
    }

    /// True when `t` contains a collective token after [`fold`].
    fn has_token(&mut self, t: &str) -> bool {
        has_collective_token_in(t, &mut self.buf)
    }
}

/// True when the JSON text of nested value `id` ([`NestedValues::text`]) contains a collective
/// token, as [`TokenScan::has_token`] finds it, mostly without making the text. First each key
/// and string leaf is asked of `flag` (true for a string that holds a token or that JSON
/// escapes): in the JSON text a token lies within one string (quotes stay after [`fold`];
/// `null`, `true`, `false` and numbers hold none), so no flagged string means no token in the
/// text. A string that JSON escapes (an escape adds letters), a token found (it may be under a
/// key a duplicate overwrites, absent from the text) or a malformed value take the text.
fn nested_token(
    nested: &NestedValues,
    strings: &StringTable,
    id: NestedId,
    scan: &mut TokenScan,
    flag: &mut dyn FnMut(Leaf<'_>) -> bool,
) -> bool {
    nested.any_string(id, flag) != Some(false) && scan.has_token(&nested.text(id, strings))
}

/// True when JSON writes `t` with an escape (a quote, a backslash or a control character).
fn json_escapes(t: &str) -> bool {
    t.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20)
}

/// Reads one rank's memory series, collective markers and phases out of an imported model.
///
/// * Series: every counter of `model.counters` is classified by name through `mapping`
///   (see [`Mapping`]); per kind one counter is kept.
/// * Markers: every slice whose name, category or args (keys and values; JSON text values are
///   searched as text, so nested keys count) contains a collective token, or that the importer
///   flagged [`slice_flags::COLLECTIVE`]. A slice gives `[ts, ts + dur]`; an instant or an
///   incomplete slice gives a point.
/// * Phases: non-collective slices named `ProfilerStep#N` or containing `step`, `forward`,
///   `backward` or `optimizer` (after [`fold`]).
/// * Rank: `model.info.rank`, else a process name/label such as `rank 3`, else a slice arg
///   keyed `rank`. World size: `model.info.world_size`, else a slice arg keyed `world_size`.
pub fn series_from_model(model: &Model, mapping: &Mapping) -> RankSeries {
    let mut out = RankSeries::default();
    // Series.
    let mut best: BTreeMap<SeriesKind, (bool, usize, usize)> = BTreeMap::new();
    for (ci, c) in model.counters.iter().enumerate() {
        let name = model.str(c.name);
        let Some(kind) = mapping.classify(name) else {
            continue;
        };
        let not_cpu = !fold(name).contains("cpu");
        let key = (not_cpu, c.ts_ns.len(), usize::MAX - ci);
        if best.get(&kind).is_none_or(|b| key > *b) {
            best.insert(kind, key);
        }
    }
    for (kind, (_, _, inv)) in best {
        let c = &model.counters[usize::MAX - inv];
        *out.kinds.get_mut(kind) = Some(series_of(model, c));
    }

    // Markers and phases. Per-string facts are computed once (memo bits, indexed by StrId).
    const T_DONE: u16 = 1;
    const T_YES: u16 = 2;
    const K_DONE: u16 = 4;
    const K_RANK: u16 = 8;
    const K_WORLD: u16 = 16;
    const P_DONE: u16 = 32;
    const P_YES: u16 = 64;
    const E_DONE: u16 = 128;
    const E_YES: u16 = 256;
    let mut memo: Vec<u16> = vec![0; model.strings.len()];
    let mut fact = |id: StrId, done: u16, compute: &dyn Fn(&str) -> u16| -> u16 {
        let Some(m) = memo.get_mut(id.0 as usize) else {
            return compute(model.str(id));
        };
        if *m & done == 0 {
            *m |= done | compute(model.str(id));
        }
        *m
    };
    let token_of = |t: &str| if has_collective_token(t) { T_YES } else { 0 };
    let key_of = |k: &str| {
        if k.eq_ignore_ascii_case("rank") {
            K_RANK
        } else if fold(k) == "worldsize" {
            K_WORLD
        } else {
            0
        }
    };
    let phase_of = |n: &str| if is_phase_name(n) { P_YES } else { 0 };
    let escape_of = |t: &str| if json_escapes(t) { E_YES } else { 0 };
    let number = |v: ArgRef<'_>| match v {
        ArgRef::Int(x) => u32::try_from(x).ok(),
        ArgRef::UInt(x) => u32::try_from(x).ok(),
        ArgRef::Str(s) => model.str(s).trim().parse().ok(),
        ArgRef::Text(s) => s.trim().parse().ok(),
        ArgRef::Nested(n) => model
            .args
            .nested_text(n, &model.strings)
            .trim()
            .parse()
            .ok(),
        _ => None,
    };
    // Structured args are searched in their JSON text, once per distinct value (0: not yet,
    // 1: no token, 2: a token).
    let mut nested_memo: Vec<u8> = vec![0; model.args.nested().len()];
    // Text args (JSON blobs): one pass to fold, one to search (`TokenScan`).
    let mut scan = TokenScan::new();
    let mut leaf_scan = TokenScan::new();
    let sl = &model.slices;
    let mut arg_rank: Option<u32> = None;
    let mut arg_world: Option<u32> = None;
    // What each arg set held, once read (slices share a set when their args repeat): 0 not
    // read yet; SET_READ its rank and world keys were looked at but not its tokens (the slice
    // was a hit already); SET_NO_TOKEN / SET_TOKEN both were.
    const SET_READ: u8 = 1;
    const SET_NO_TOKEN: u8 = 2;
    const SET_TOKEN: u8 = 3;
    let mut set_memo: Vec<u8> = vec![0; model.args.set_count() + 1];
    for i in 0..sl.len() {
        let mut hit = sl.flags[i] & slice_flags::COLLECTIVE != 0
            || fact(sl.name[i], T_DONE, &token_of) & T_YES != 0
            || fact(sl.category[i], T_DONE, &token_of) & T_YES != 0;
        let known = set_memo.get(sl.args[i].0 as usize).copied().unwrap_or(0);
        if known >= SET_NO_TOKEN || (known == SET_READ && hit) {
            // Read before: its rank and world keys gave what they could, and its tokens are
            // known (or not needed).
            hit |= known == SET_TOKEN;
        } else {
            let hit_before = hit;
            for (k, v) in model.args.get(sl.args[i]) {
                if arg_rank.is_none() || arg_world.is_none() {
                    let kind = fact(k, K_DONE, &key_of);
                    if kind & K_RANK != 0 && arg_rank.is_none() {
                        arg_rank = number(v);
                    } else if kind & K_WORLD != 0 && arg_world.is_none() {
                        arg_world = number(v);
                    }
                }
                if hit {
                    continue;
                }
                hit = fact(k, T_DONE, &token_of) & T_YES != 0
                    || match v {
                        ArgRef::Str(s) => fact(s, T_DONE, &token_of) & T_YES != 0,
                        ArgRef::Text(t) => scan.has_token(t),
                        ArgRef::Nested(n) => match nested_memo.get_mut(n.0 as usize) {
                            Some(m) if *m != 0 => *m == 2,
                            m => {
                                // A key or string leaf is flagged when it holds a token or
                                // JSON escapes it; interned ones are looked at once per string.
                                let hit = nested_token(
                                    model.args.nested(),
                                    &model.strings,
                                    n,
                                    &mut scan,
                                    &mut |leaf| match leaf {
                                        Leaf::Interned(s) => {
                                            fact(s, T_DONE, &token_of) & T_YES != 0
                                                || fact(s, E_DONE, &escape_of) & E_YES != 0
                                        }
                                        Leaf::Text(t) => json_escapes(t) || leaf_scan.has_token(t),
                                    },
                                );
                                if let Some(m) = m {
                                    *m = 1 + u8::from(hit);
                                }
                                hit
                            }
                        },
                        _ => false,
                    };
            }
            if let Some(m) = set_memo.get_mut(sl.args[i].0 as usize) {
                *m = if hit_before {
                    SET_READ
                } else if hit {
                    SET_TOKEN
                } else {
                    SET_NO_TOKEN
                };
            }
        }
        let ts = sl.ts_ns[i];
        let d = sl.dur_ns[i];
        let end = if d > 0 { ts.saturating_add(d) } else { ts };
        if hit {
            out.markers.push(Marker {
                start_ns: ts,
                end_ns: end,
                name: model.str(sl.name[i]).to_string(),
            });
        } else if d > 0 && fact(sl.name[i], P_DONE, &phase_of) & P_YES != 0 {
            out.phases.push(Phase {
                start_ns: ts,
                end_ns: end,
                name: model.str(sl.name[i]).to_string(),
            });
        }
    }
    out.markers.sort_by_key(|m| (m.start_ns, m.end_ns));
    out.phases.sort_by_key(|p| (p.start_ns, p.end_ns));

    // Identity.
    out.rank = model.info.rank.or_else(|| {
        model.processes.values().find_map(|p| {
            std::iter::once(p.name)
                .chain(p.labels.iter().copied())
                .find_map(|s| rank_in_text(model.str(s)))
        })
    });
    out.rank = out.rank.or(arg_rank);
    out.world_size = model.info.world_size.or(arg_world);
    out.shared_clock = model.info.metadata.contains_key("baseTimeNanoseconds")
        || out
            .earliest_record()
            .is_some_and(|t| t >= EPOCH_CLOCK_MIN_NS);
    out
}

/// Whether `c`'s samples are in time order and every value is finite (the common case): then
/// they are what [`series_of`]'s filtering and stable sort would give.
fn in_order_and_finite(c: &crate::model::CounterSeries) -> bool {
    c.value.iter().all(|v| v.is_finite()) && c.ts_ns.windows(2).all(|w| w[0] <= w[1])
}

/// One counter of `model` as a model-free [`Series`]: its name, its samples sorted by time,
/// non-finite values dropped.
fn series_of(model: &Model, c: &crate::model::CounterSeries) -> Series {
    // The common case is a copy, without pairing, sorting and splitting again.
    if in_order_and_finite(c) {
        return Series {
            name: model.str(c.name).to_string(),
            ts_ns: c.ts_ns.clone(),
            value: c.value.clone(),
        };
    }
    let mut pairs: Vec<(i64, f64)> = c
        .ts_ns
        .iter()
        .copied()
        .zip(c.value.iter().copied())
        .filter(|(_, v)| v.is_finite())
        .collect();
    pairs.sort_by_key(|p| p.0);
    Series {
        name: model.str(c.name).to_string(),
        ts_ns: pairs.iter().map(|p| p.0).collect(),
        value: pairs.iter().map(|p| p.1).collect(),
    }
}

/// Every counter of `model` as a [`Series`] (name, samples sorted by time, non-finite values
/// dropped), packed ([`KeptCounter`]), in model order: what [`apply_mapping`] needs to map the
/// counters again without the model (the browser worker keeps these, not the slices). Memory:
/// the packed samples, ~4 bytes a sample for integral values close in time, at most 18.
pub fn counters_from_model(model: &Model) -> Vec<KeptCounter> {
    counters_from_model_where(model, |_, _| true)
}

/// The counters of `model` that `keep` admits, packed as [`counters_from_model`] packs them, in
/// model order. `keep(name, samples)` is called once per counter, in model order, before that
/// counter is packed: `samples` is the count the packed counter will hold (its finite values,
/// [`KeptCounter::len`]), so a budget of samples can be kept without packing what it refuses.
pub fn counters_from_model_where(
    model: &Model,
    mut keep: impl FnMut(&str, usize) -> bool,
) -> Vec<KeptCounter> {
    model
        .counters
        .iter()
        .filter_map(|c| {
            let name = model.str(c.name);
            let common = in_order_and_finite(c);
            let samples = if common {
                c.value.len()
            } else {
                c.value.iter().filter(|v| v.is_finite()).count()
            };
            if !keep(name, samples) {
                return None;
            }
            // The common case packs the model's columns as they are, without the copy
            // `series_of` would make.
            Some(if common {
                KeptCounter::from_columns(name.to_string(), &c.ts_ns, &c.value)
            } else {
                KeptCounter::new(&series_of(model, c))
            })
        })
        .collect()
}

/// Replaces the four memory series of `out` by the ones `mapping` selects among `counters`
/// (from [`counters_from_model`]), with the rule of [`series_from_model`]: per kind, a non-`cpu`
/// counter wins, then the one with more samples, then the first. A kind no counter maps to
/// becomes `None`. Markers, phases and identity stay. Only the picked counters are unpacked.
pub fn apply_mapping(out: &mut RankSeries, counters: &[KeptCounter], mapping: &Mapping) {
    let mut best: BTreeMap<SeriesKind, (bool, usize, usize)> = BTreeMap::new();
    for (ci, c) in counters.iter().enumerate() {
        let Some(kind) = mapping.classify(c.name()) else {
            continue;
        };
        let key = (!fold(c.name()).contains("cpu"), c.len(), usize::MAX - ci);
        if best.get(&kind).is_none_or(|b| key > *b) {
            best.insert(kind, key);
        }
    }
    let pick = |k: SeriesKind| {
        best.get(&k)
            .and_then(|b| counters.get(usize::MAX - b.2))
            .map(KeptCounter::series)
    };
    for k in SeriesKind::ALL {
        *out.kinds.get_mut(k) = pick(k);
    }
}

/// The memory analysis's input: one rank ([`RankInput`]): the series [`extract`]ed from its
/// trace or telemetry part, with the rank the workspace resolved for it.
pub type Input = RankInput;

/// One rank handed to [`run`]: its resolved rank number, a label (file name) and its data.
#[derive(Clone, Debug, PartialEq)]
pub struct RankInput {
    /// Rank number.
    pub rank: u32,
    /// Where the rank came from (file name), for messages.
    pub label: String,
    /// The rank's memory series, markers and phases.
    pub series: RankSeries,
}

/// The memory analysis's input from one trace or telemetry rank part (collective-memory.md,
/// "Per-rank series"): its series with the default [`Mapping`] ([`series_from_model`]), markers,
/// phases and the rank the content states. The rank [`run`] uses is the workspace's (content,
/// file name, or assigned: `crate::workspace::facts`), given in [`RankInput::rank`].
pub fn extract(model: &Model, _facts: &Facts) -> RankSeries {
    series_from_model(model, &Mapping::default())
}

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

/// Sensitivity presets (collective-memory.md, "Attribution algorithm"); medium is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Fewest, surest attributions.
    Low,
    /// The default.
    #[default]
    Medium,
    /// Most sensitive.
    High,
}

impl std::str::FromStr for Preset {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.to_ascii_lowercase().as_str() {
            "low" => Ok(Preset::Low),
            "medium" => Ok(Preset::Medium),
            "high" => Ok(Preset::High),
            _ => Err(Error::InvalidValue {
                knob: "preset".into(),
                value: s.into(),
                expected: "low, medium or high",
            }),
        }
    }
}

/// An invalid parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The knob does not exist.
    #[error("unknown knob `{knob}` (known: {known})")]
    UnknownKnob {
        /// The knob as given.
        knob: String,
        /// The knob names accepted.
        known: String,
    },
    /// The value does not parse or is out of range for the knob.
    #[error("invalid value `{value}` for `{knob}`: expected {expected}")]
    InvalidValue {
        /// The knob.
        knob: String,
        /// The value as given.
        value: String,
        /// What the knob accepts.
        expected: &'static str,
    },
}

/// The knobs of the attribution. Windows in ns, bytes in bytes, ratios as fractions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// A rank with fewer samples yields nothing (≥ 3).
    pub min_samples_per_rank: usize,
    /// A gap this large (bytes) is significant.
    pub min_gap_bytes: u64,
    /// Fraction of device total (≥ 0).
    pub min_gap_ratio: f64,
    /// > 0.
    pub robust_zscore_threshold: f64,
    /// Markers within ± this of a spike are attached to it, ns.
    pub marker_window_ns: i64,
    /// Added on both sides of an interval, ns.
    pub interval_padding_ns: i64,
    /// Spikes of other ranks within ± this are synchronized, ns.
    pub synchrony_window_ns: i64,
    /// 0..=1.
    pub min_synchrony_ratio: f64,
    /// 0..=1.
    pub min_confidence: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params::preset(Preset::Medium)
    }
}

/// Knob names accepted by [`Params::with_override`].
pub const KNOBS: &[&str] = &[
    "min_samples_per_rank",
    "min_gap_bytes",
    "min_gap_ratio",
    "robust_zscore_threshold",
    "marker_window",
    "interval_padding",
    "synchrony_window",
    "min_synchrony_ratio",
    "min_confidence",
];

impl Params {
    /// The spec's table for `p`.
    pub fn preset(p: Preset) -> Params {
        match p {
            Preset::Low => Params {
                min_samples_per_rank: 8,
                min_gap_bytes: 256 * MIB,
                min_gap_ratio: 0.06,
                robust_zscore_threshold: 3.0,
                marker_window_ns: 120 * MS,
                interval_padding_ns: 100 * MS,
                synchrony_window_ns: 100 * MS,
                min_synchrony_ratio: 0.6,
                min_confidence: 0.7,
            },
            Preset::Medium => Params {
                min_samples_per_rank: 6,
                min_gap_bytes: 128 * MIB,
                min_gap_ratio: 0.04,
                robust_zscore_threshold: 2.5,
                marker_window_ns: 150 * MS,
                interval_padding_ns: 120 * MS,
                synchrony_window_ns: 120 * MS,
                min_synchrony_ratio: 0.5,
                min_confidence: 0.5,
            },
            Preset::High => Params {
                min_samples_per_rank: 5,
                min_gap_bytes: 64 * MIB,
                min_gap_ratio: 0.025,
                robust_zscore_threshold: 1.8,
                marker_window_ns: 180 * MS,
                interval_padding_ns: 160 * MS,
                synchrony_window_ns: 180 * MS,
                min_synchrony_ratio: 0.34,
                min_confidence: 0.35,
            },
        }
    }

    /// Returns `self` with one knob set from text. Knob names are those of the spec table
    /// ([`KNOBS`]). Values: windows take a duration with unit `ns`, `us`, `ms` or `s` (a bare
    /// number is ms); `min_gap_bytes` takes bytes with optional unit `B`, `KiB`, `MiB`, `GiB`,
    /// `KB`, `MB`, `GB`; the others a number. Errors: [`Error::UnknownKnob`] or
    /// [`Error::InvalidValue`] naming the knob, when the value does not parse or is out of range
    /// (`min_samples_per_rank` ≥ 3; thresholds > 0; ratios and confidence in 0..=1; windows,
    /// bytes and `min_gap_ratio` ≥ 0).
    pub fn with_override(mut self, knob: &str, value: &str) -> Result<Params, Error> {
        let v = value.trim();
        let bad = |expected: &'static str| Error::InvalidValue {
            knob: knob.to_string(),
            value: value.to_string(),
            expected,
        };
        let num = |expected| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(expected))
        };
        match knob {
            "min_samples_per_rank" => {
                self.min_samples_per_rank = v
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n >= 3)
                    .ok_or_else(|| bad("an integer ≥ 3"))?
            }
            "min_gap_bytes" => {
                self.min_gap_bytes = parse_bytes(v).ok_or_else(|| {
                    bad("a byte count ≥ 0, optionally with unit B, KiB, MiB, GiB, KB, MB, GB")
                })?
            }
            "min_gap_ratio" => {
                let x = num("a number ≥ 0")?;
                if x < 0.0 {
                    return Err(bad("a number ≥ 0"));
                }
                self.min_gap_ratio = x
            }
            "robust_zscore_threshold" => {
                let x = num("a number > 0")?;
                if x <= 0.0 {
                    return Err(bad("a number > 0"));
                }
                self.robust_zscore_threshold = x
            }
            "marker_window" | "interval_padding" | "synchrony_window" => {
                let d = parse_duration_ns(v).ok_or_else(|| {
                    bad("a duration ≥ 0 with unit ns, us, ms or s (bare numbers are ms)")
                })?;
                match knob {
                    "marker_window" => self.marker_window_ns = d,
                    "interval_padding" => self.interval_padding_ns = d,
                    _ => self.synchrony_window_ns = d,
                }
            }
            "min_synchrony_ratio" | "min_confidence" => {
                let x = num("a number in 0..=1")?;
                if !(0.0..=1.0).contains(&x) {
                    return Err(bad("a number in 0..=1"));
                }
                if knob == "min_confidence" {
                    self.min_confidence = x
                } else {
                    self.min_synchrony_ratio = x
                }
            }
            _ => {
                return Err(Error::UnknownKnob {
                    knob: knob.to_string(),
                    known: KNOBS.join(", "),
                })
            }
        }
        Ok(self)
    }
}

fn split_unit(v: &str) -> (&str, &str) {
    let p = v.find(|c: char| c.is_alphabetic()).unwrap_or(v.len());
    (v[..p].trim(), v[p..].trim())
}

fn parse_duration_ns(v: &str) -> Option<i64> {
    let (n, u) = split_unit(v);
    let x: f64 = n
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite() && *x >= 0.0)?;
    let mult = match u {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "" | "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    let ns = x * mult;
    (ns <= 1e18).then_some(ns.round() as i64)
}

fn parse_bytes(v: &str) -> Option<u64> {
    let (n, u) = split_unit(v);
    let x: f64 = n
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite() && *x >= 0.0)?;
    let mult = match u.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kib" => 1024.0,
        "mib" => 1048576.0,
        "gib" => 1073741824.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        _ => return None,
    };
    let b = x * mult;
    (b <= 1.8e19).then_some(b.round() as u64)
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

/// Class of an attributed interval (step 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Classification {
    /// confidence < 0.6.
    CollectiveSuspect,
    /// 0.6 ≤ confidence < 0.8.
    CollectiveLikely,
    /// confidence ≥ 0.8.
    CollectiveConfident,
}

impl Classification {
    /// The spec's name (= the serde form): `collective_suspect`, `collective_likely`,
    /// `collective_confident`.
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::CollectiveSuspect => "collective_suspect",
            Classification::CollectiveLikely => "collective_likely",
            Classification::CollectiveConfident => "collective_confident",
        }
    }

    /// Step 8 of the spec.
    pub fn from_confidence(c: f64) -> Classification {
        if c >= 0.8 {
            Classification::CollectiveConfident
        } else if c >= 0.6 {
            Classification::CollectiveLikely
        } else {
            Classification::CollectiveSuspect
        }
    }
}

/// A reason code of an interval (collective-memory.md, step 9). Reports list an interval's
/// codes in this declaration order (which is also `Ord`); serialized as the spec's snake_case
/// name ([`ReasonCode::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// The gap is a robust-z outlier (always present).
    GapSpikeStatisticalOutlier,
    /// A collective marker of the rank is attached to the spike (step 5); always together
    /// with [`ReasonCode::MarkerSpikeOverlap`].
    MarkerCollectiveToken,
    /// The attached marker lies within ± marker_window of the spike (step 5); always together
    /// with [`ReasonCode::MarkerCollectiveToken`].
    MarkerSpikeOverlap,
    /// No marker is attached; dropped when a merged interval has
    /// [`ReasonCode::MarkerSpikeOverlap`].
    WeakMarkerSignal,
    /// synchrony_ratio ≥ min_synchrony_ratio.
    CrossRankSynchrony,
    /// The divergence strength is ≥ 0.5.
    AllocatorDeviceDivergence,
    /// World ≤ 1 or no other rank synchronized; dropped when a merged interval has
    /// [`ReasonCode::CrossRankSynchrony`].
    SingleRankOnly,
}

impl ReasonCode {
    /// Every code, in report order.
    pub const ALL: [ReasonCode; 7] = [
        ReasonCode::GapSpikeStatisticalOutlier,
        ReasonCode::MarkerCollectiveToken,
        ReasonCode::MarkerSpikeOverlap,
        ReasonCode::WeakMarkerSignal,
        ReasonCode::CrossRankSynchrony,
        ReasonCode::AllocatorDeviceDivergence,
        ReasonCode::SingleRankOnly,
    ];

    /// The spec's name, e.g. `gap_spike_statistical_outlier` (= the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            ReasonCode::GapSpikeStatisticalOutlier => "gap_spike_statistical_outlier",
            ReasonCode::MarkerCollectiveToken => "marker_collective_token",
            ReasonCode::MarkerSpikeOverlap => "marker_spike_overlap",
            ReasonCode::WeakMarkerSignal => "weak_marker_signal",
            ReasonCode::CrossRankSynchrony => "cross_rank_synchrony",
            ReasonCode::AllocatorDeviceDivergence => "allocator_device_divergence",
            ReasonCode::SingleRankOnly => "single_rank_only",
        }
    }
}

/// Evidence of an interval (the spec's list; merged intervals keep the maximum of each).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Markers within ± marker_window of the spike.
    pub marker_hits: usize,
    /// Ranks with a spike within ± synchrony_window, the rank itself included.
    pub synchronized_ranks: usize,
    /// World size the synchrony ratio is computed against.
    pub expected_world_size: u32,
    /// (synchronized_ranks − 1)/(world − 1), 0 when world ≤ 1.
    pub synchrony_ratio: f64,
    /// Peak gap = device_used − allocator_reserved, bytes.
    pub peak_gap_bytes: f64,
    /// Peak gap / device total; `None` when the total is unknown.
    pub peak_gap_ratio: Option<f64>,
    /// Robust z-score of the peak (step 3).
    pub robust_zscore: f64,
}

/// An attributed interval of one rank (steps 7–11).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Rank number.
    pub rank: u32,
    /// On the aligned timeline (see [`ClockReport`]), ns.
    pub start_ns: i64,
    /// End, ns (≥ start).
    pub end_ns: i64,
    /// Step 8 class.
    pub classification: Classification,
    /// 0..=1.
    pub confidence: f64,
    /// Step 9 codes, each once, in [`ReasonCode`] order.
    pub reason_codes: Vec<ReasonCode>,
    /// Step 10 evidence.
    pub evidence: Evidence,
    /// The innermost phase annotation containing the interval's peak spike, when any.
    pub phase: Option<String>,
}

/// What one rank contributed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankSummary {
    /// Rank number.
    /// Rank number.
    pub rank: u32,
    /// File name (and rank, for telemetry).
    pub label: String,
    /// See [`RankSeries::samples`].
    pub samples: usize,
    /// Spec names of the series present.
    pub series: Vec<String>,
    /// Collective markers (count).
    pub markers: usize,
    /// Shift added to this rank's timestamps to align it, ns (0 on a shared clock).
    pub offset_ns: i64,
    /// Whether a hidden-memory gap was computed for this rank.
    pub gap_computed: bool,
}

/// How the ranks' timelines were aligned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockReport {
    /// True when every rank's timestamps are on a shared clock (left as they are); false when
    /// each rank was aligned on its first sample.
    pub shared_clock: bool,
    /// Spread (max − min) of the ranks' first-sample times before alignment, ns.
    pub skew_ns: i64,
}

/// The result of [`run`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The parameters used.
    pub params: Params,
    /// Ranks in rank order.
    pub ranks: Vec<RankSummary>,
    /// Largest `world_size` seen, else the number of distinct ranks (at least 1; 0 with no
    /// input).
    pub world_size: u32,
    /// How the ranks were aligned.
    pub clock: ClockReport,
    /// Earliest record of the job on the aligned timeline, ns.
    pub trace_start_ns: Option<i64>,
    /// Merged intervals, sorted by (rank, start).
    pub intervals: Vec<Interval>,
    /// Plain-language warnings (missing device-used memory, too few samples, clock skew, …).
    pub warnings: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// The algorithm
// ---------------------------------------------------------------------------------------------

/// Step 3: robust z-scores of `gaps` (bytes; the scores are unitless) — 0.6745·(x − median)/MAD
/// with [`stats::median`] and the raw [`stats::mad`] (`numpy.median`,
/// `scipy.stats.median_abs_deviation`); when MAD = 0 the plain z-score (x − mean)/s with the
/// sample standard deviation s (0 when s = 0); all 0 with fewer than 3 values or when a value is
/// NaN (never the case in [`run`]: a gap is `max(used − reserved, 0)`, which is never NaN);
/// floored at 0. (Iglewicz & Hoaglin's modified z-score.)
pub fn robust_zscores(gaps: &[f64]) -> Vec<f64> {
    let n = gaps.len();
    if n < 3 {
        return vec![0.0; n];
    }
    let (Some(med), Some(mad)) = (stats::median(gaps), stats::mad(gaps)) else {
        return vec![0.0; n];
    };
    if mad > 0.0 {
        return gaps
            .iter()
            .map(|g| (0.6745 * (g - med) / mad).max(0.0))
            .collect();
    }
    let mean = gaps.iter().sum::<f64>() / n as f64;
    let var = gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    if sd.is_nan() || sd <= 0.0 {
        return vec![0.0; n];
    }
    gaps.iter().map(|g| ((g - mean) / sd).max(0.0)).collect()
}

/// Step 5's distance from `t` to a marker `[start, end]`: 0 inside, else to the nearer end.
pub fn marker_distance(t: i64, m: &Marker) -> i64 {
    if t < m.start_ns {
        m.start_ns.saturating_sub(t)
    } else if t > m.end_ns {
        t.saturating_sub(m.end_ns)
    } else {
        0
    }
}

/// Step 6: (synchrony ratio) = (count − 1)/(world − 1), 0 when world ≤ 1; capped at 1.
pub fn synchrony_ratio(synchronized: usize, world: u32) -> f64 {
    if world <= 1 {
        return 0.0;
    }
    (synchronized.saturating_sub(1) as f64 / (world - 1) as f64).min(1.0)
}

/// Step 7's divergence strength: max(min(1, gap/min_gap_bytes), min(1, ratio/min_gap_ratio));
/// the ratio term is 0 when the ratio is unknown; otherwise a knob of 0 makes its term 1.
pub fn divergence_strength(gap: f64, ratio: Option<f64>, p: &Params) -> f64 {
    let bytes_term = if p.min_gap_bytes == 0 {
        1.0
    } else {
        (gap / p.min_gap_bytes as f64).min(1.0)
    };
    let ratio_term = match ratio {
        None => 0.0,
        Some(_) if p.min_gap_ratio == 0.0 => 1.0,
        Some(r) => (r / p.min_gap_ratio).min(1.0),
    };
    bytes_term.max(ratio_term).max(0.0)
}

/// Step 7's confidence, clamped to [0, 1].
pub fn confidence(
    has_markers: bool,
    sync_ratio: f64,
    z: f64,
    divergence: f64,
    single_rank: bool,
    ratio_unknown: bool,
    p: &Params,
) -> f64 {
    let mut c = 0.34 * f64::from(u8::from(has_markers))
        + 0.34 * sync_ratio
        + 0.16 * (z / p.robust_zscore_threshold).min(1.0)
        + 0.16 * divergence;
    if !has_markers {
        c -= 0.15;
    }
    if single_rank {
        c -= 0.15;
    }
    if ratio_unknown {
        c -= 0.05;
    }
    c.clamp(0.0, 1.0)
}

/// One spike before merging.
#[derive(Clone, Debug)]
struct Spike {
    t: i64,
    gap: f64,
    ratio: Option<f64>,
    z: f64,
}

/// One rank's gap timeline (steps 1–4).
struct RankGaps {
    spikes: Vec<Spike>,
}

fn rank_gaps(s: &RankSeries, p: &Params) -> Option<RankGaps> {
    let used = s.kinds.device_used.as_ref()?;
    let reserved = s.kinds.allocator_reserved.as_ref();
    let n = used.ts_ns.len();
    let mut gaps = Vec::with_capacity(n);
    let mut ratios = Vec::with_capacity(n);
    for (i, &t) in used.ts_ns.iter().enumerate() {
        let r = reserved.and_then(|r| r.value_at(t)).unwrap_or(0.0);
        let g = (used.value[i] - r).max(0.0);
        gaps.push(g);
        let total = s.kinds.device_total.as_ref().and_then(|d| d.value_at(t));
        ratios.push(total.filter(|&x| x > 0.0).map(|x| g / x));
    }
    let z = robust_zscores(&gaps);
    let spikes = (0..n)
        .filter_map(|i| {
            let significant = ratios[i].is_some_and(|r| r >= p.min_gap_ratio)
                || gaps[i] >= p.min_gap_bytes as f64;
            (significant && z[i] >= p.robust_zscore_threshold).then(|| Spike {
                t: used.ts_ns[i],
                gap: gaps[i],
                ratio: ratios[i],
                z: z[i],
            })
        })
        .collect();
    Some(RankGaps { spikes })
}

/// Runs the attribution (collective-memory.md, steps 1–11) over ranks.
///
/// Alignment: when every rank is on a shared clock ([`RankSeries::shared_clock`]) timestamps
/// are kept; otherwise each rank is shifted so that its first sample (its earliest record when
/// it has no memory sample) lands on the earliest such time among the ranks, and the spread is
/// reported as skew (a warning when it is over 1 s on a shared clock; always a warning when
/// aligned). Ranks with no device-used series get a warning and no gap; a rank with fewer than
/// `min_samples_per_rank` device-used samples yields nothing. Ranks appearing twice are
/// analysed separately under the same number, with a warning.
pub fn run(inputs: &[RankInput], p: &Params) -> Report {
    let mut warnings = Vec::new();
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| (inputs[i].rank, i));
    {
        let mut seen = BTreeSet::new();
        for &i in &order {
            if !seen.insert(inputs[i].rank) {
                warnings.push(format!(
                    "rank {} appears more than once ({}); each file is analysed separately",
                    inputs[i].rank, inputs[i].label
                ));
            }
        }
    }
    let distinct: BTreeSet<u32> = inputs.iter().map(|r| r.rank).collect();
    let world = inputs
        .iter()
        .filter_map(|r| r.series.world_size)
        .max()
        .unwrap_or(distinct.len() as u32)
        .max(u32::from(!inputs.is_empty()));

    // Clock alignment.
    let shared = !inputs.is_empty() && inputs.iter().all(|r| r.series.shared_clock);
    // A rank without memory samples is aligned on its earliest record (marker or phase).
    let firsts: Vec<Option<i64>> = inputs
        .iter()
        .map(|r| r.series.first_ts().or_else(|| r.series.earliest_record()))
        .collect();
    let min_first = firsts.iter().flatten().min().copied();
    let max_first = firsts.iter().flatten().max().copied();
    let skew_ns = match (min_first, max_first) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => 0,
    };
    let offsets: Vec<i64> = firsts
        .iter()
        .map(|f| match (shared, f, min_first) {
            (false, Some(f), Some(m)) => m.saturating_sub(*f),
            _ => 0,
        })
        .collect();
    if !shared && inputs.len() > 1 {
        warnings.push(format!(
            "no shared clock across ranks: each rank was aligned on its first sample (skew {:.3} ms)",
            skew_ns as f64 / 1e6
        ));
    } else if shared && skew_ns > 1_000_000_000 {
        warnings.push(format!(
            "ranks' first samples differ by {:.3} s on the shared clock",
            skew_ns as f64 / 1e9
        ));
    }
    let aligned: Vec<RankSeries> = inputs
        .iter()
        .zip(&offsets)
        .map(|(r, &o)| {
            let mut s = r.series.shifted(o);
            s.markers.sort_by_key(|m| (m.start_ns, m.end_ns));
            s.phases.sort_by_key(|p| (p.start_ns, p.end_ns));
            s
        })
        .collect();
    let trace_start = aligned.iter().filter_map(|s| s.earliest_record()).min();

    // Steps 1–4 per rank.
    let mut gaps: Vec<Option<RankGaps>> = Vec::with_capacity(inputs.len());
    let mut summaries = Vec::with_capacity(inputs.len());
    for &i in &order {
        let (r, s) = (&inputs[i], &aligned[i]);
        let samples = s.samples();
        let g = if s.kinds.device_used.is_none() {
            warnings.push(format!(
                "rank {} ({}): no device-used memory series (series present: {}); the hidden-memory gap is not computed from allocator data alone",
                r.rank,
                r.label,
                if s.series_present().is_empty() { "none".to_string() } else { s.series_present().join(", ") }
            ));
            None
        } else if samples < p.min_samples_per_rank {
            warnings.push(format!(
                "rank {} ({}): {} samples, fewer than min_samples_per_rank = {}; no attribution",
                r.rank, r.label, samples, p.min_samples_per_rank
            ));
            None
        } else {
            if s.kinds.allocator_reserved.is_none() {
                warnings.push(format!(
                    "rank {} ({}): no allocator-reserved series; the gap is device-used memory itself",
                    r.rank, r.label
                ));
            }
            rank_gaps(s, p)
        };
        summaries.push(RankSummary {
            rank: r.rank,
            label: r.label.clone(),
            samples,
            series: s.series_present().into_iter().map(str::to_string).collect(),
            markers: s.markers.len(),
            offset_ns: offsets[i],
            gap_computed: g.is_some(),
        });
        gaps.push(g);
    }
    if order
        .iter()
        .all(|&i| aligned[i].kinds.device_used.is_none())
        && !inputs.is_empty()
    {
        warnings.insert(
            0,
            "device-used memory is absent from every rank: no hidden-memory gap was computed"
                .to_string(),
        );
    }

    // Spike times per rank number, for synchrony.
    let mut spike_times: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    for (k, &i) in order.iter().enumerate() {
        if let Some(g) = &gaps[k] {
            let v = spike_times.entry(inputs[i].rank).or_default();
            v.extend(g.spikes.iter().map(|s| s.t));
        }
    }
    for v in spike_times.values_mut() {
        v.sort_unstable();
    }

    // Steps 5–10.
    let mut intervals = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let Some(g) = &gaps[k] else { continue };
        let rank = inputs[i].rank;
        let s = &aligned[i];
        // Longest marker and phase: bounds the binary searches of steps 5 and 11.
        let max_marker = s
            .markers
            .iter()
            .map(|m| m.end_ns.saturating_sub(m.start_ns))
            .max()
            .unwrap_or(0);
        let max_phase = s
            .phases
            .iter()
            .map(|m| m.end_ns.saturating_sub(m.start_ns))
            .max()
            .unwrap_or(0);
        let mut raw: Vec<(Interval, i64, f64)> = Vec::new();
        for sp in &g.spikes {
            // Step 5.
            // Candidates start in [t − window − longest marker, t + window].
            let from =
                sp.t.saturating_sub(p.marker_window_ns)
                    .saturating_sub(max_marker);
            let a = s.markers.partition_point(|m| m.start_ns < from);
            let b = s
                .markers
                .partition_point(|m| m.start_ns <= sp.t.saturating_add(p.marker_window_ns));
            let attached: Vec<&Marker> = s.markers[a..b.max(a)]
                .iter()
                .filter(|m| marker_distance(sp.t, m) <= p.marker_window_ns)
                .collect();
            // Step 6.
            let lo = sp.t.saturating_sub(p.synchrony_window_ns);
            let hi = sp.t.saturating_add(p.synchrony_window_ns);
            let synced = spike_times
                .values()
                .filter(|ts| {
                    let j = ts.partition_point(|&x| x < lo);
                    j < ts.len() && ts[j] <= hi
                })
                .count()
                .max(1);
            let sync = synchrony_ratio(synced, world);
            // Step 7.
            let div = divergence_strength(sp.gap, sp.ratio, p);
            let single = world <= 1 || synced <= 1;
            let has_m = !attached.is_empty();
            let c = confidence(has_m, sync, sp.z, div, single, sp.ratio.is_none(), p);
            if c <= 0.0 || c < p.min_confidence {
                continue;
            }
            // Step 9.
            let mut codes = vec![ReasonCode::GapSpikeStatisticalOutlier];
            if has_m {
                codes.push(ReasonCode::MarkerCollectiveToken);
                codes.push(ReasonCode::MarkerSpikeOverlap);
            } else {
                codes.push(ReasonCode::WeakMarkerSignal);
            }
            if sync >= p.min_synchrony_ratio {
                codes.push(ReasonCode::CrossRankSynchrony);
            }
            if div >= 0.5 {
                codes.push(ReasonCode::AllocatorDeviceDivergence);
            }
            if single {
                codes.push(ReasonCode::SingleRankOnly);
            }
            // Step 10.
            let first = attached.iter().map(|m| m.start_ns).min().unwrap_or(sp.t);
            let last = attached.iter().map(|m| m.end_ns).max().unwrap_or(sp.t);
            let mut start = first.min(sp.t).saturating_sub(p.interval_padding_ns);
            if let Some(ts) = trace_start {
                start = start.max(ts);
            }
            let end = last.max(sp.t).saturating_add(p.interval_padding_ns);
            raw.push((
                Interval {
                    rank,
                    start_ns: start,
                    end_ns: end,
                    classification: Classification::from_confidence(c),
                    confidence: c,
                    reason_codes: codes,
                    evidence: Evidence {
                        marker_hits: attached.len(),
                        synchronized_ranks: synced,
                        expected_world_size: world,
                        synchrony_ratio: sync,
                        peak_gap_bytes: sp.gap,
                        peak_gap_ratio: sp.ratio,
                        robust_zscore: sp.z,
                    },
                    phase: None,
                },
                sp.t,
                sp.gap,
            ));
        }
        for (mut iv, peak_t, _) in merge_intervals(raw) {
            // Step 11.
            let a = s
                .phases
                .partition_point(|ph| ph.start_ns < peak_t.saturating_sub(max_phase));
            let b = s.phases.partition_point(|ph| ph.start_ns <= peak_t);
            iv.phase = s.phases[a..b.max(a)]
                .iter()
                .filter(|ph| ph.start_ns <= peak_t && peak_t <= ph.end_ns)
                .min_by_key(|ph| (ph.end_ns.saturating_sub(ph.start_ns), ph.start_ns))
                .map(|ph| ph.name.clone());
            intervals.push(iv);
        }
    }

    Report {
        params: p.clone(),
        ranks: summaries,
        world_size: world,
        clock: ClockReport {
            shared_clock: shared,
            skew_ns,
        },
        trace_start_ns: trace_start,
        intervals,
        warnings,
    }
}

fn opt_max(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Step 10's merge of one rank's intervals: overlapping or touching intervals merge; evidence
/// takes the maximum of each field, class the strongest, confidence the maximum, reason codes
/// the union minus `weak_marker_signal` when `marker_spike_overlap` is present and minus
/// `single_rank_only` when `cross_rank_synchrony` is. Items carry (interval, peak spike time,
/// peak gap); the merged item keeps the time of the largest gap.
fn merge_intervals(mut raw: Vec<(Interval, i64, f64)>) -> Vec<(Interval, i64, f64)> {
    raw.sort_by_key(|r| (r.0.start_ns, r.0.end_ns));
    let mut out: Vec<(Interval, i64, f64)> = Vec::new();
    for (iv, t, g) in raw {
        if let Some(last) = out.last_mut() {
            if iv.start_ns <= last.0.end_ns {
                let a = &mut last.0;
                a.end_ns = a.end_ns.max(iv.end_ns);
                a.confidence = a.confidence.max(iv.confidence);
                a.classification = a.classification.max(iv.classification);
                let e = &mut a.evidence;
                let f = &iv.evidence;
                e.marker_hits = e.marker_hits.max(f.marker_hits);
                e.synchronized_ranks = e.synchronized_ranks.max(f.synchronized_ranks);
                e.expected_world_size = e.expected_world_size.max(f.expected_world_size);
                e.synchrony_ratio = e.synchrony_ratio.max(f.synchrony_ratio);
                e.peak_gap_bytes = e.peak_gap_bytes.max(f.peak_gap_bytes);
                e.peak_gap_ratio = opt_max(e.peak_gap_ratio, f.peak_gap_ratio);
                e.robust_zscore = e.robust_zscore.max(f.robust_zscore);
                // The union, in ReasonCode order (a BTreeSet iterates in `Ord` order).
                let mut codes: BTreeSet<ReasonCode> = a.reason_codes.iter().copied().collect();
                codes.extend(iv.reason_codes.iter().copied());
                if codes.contains(&ReasonCode::MarkerSpikeOverlap) {
                    codes.remove(&ReasonCode::WeakMarkerSignal);
                }
                if codes.contains(&ReasonCode::CrossRankSynchrony) {
                    codes.remove(&ReasonCode::SingleRankOnly);
                }
                a.reason_codes = codes.into_iter().collect();
                if g > last.2 {
                    last.1 = t;
                    last.2 = g;
                }
                continue;
            }
        }
        out.push((iv, t, g));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::collective::COLLECTIVE_TOKENS;

    /// The codes' spec names, to compare with the spec's strings.
    fn names(codes: &[ReasonCode]) -> Vec<&'static str> {
        codes.iter().map(|c| c.as_str()).collect()
    }

    #[test]
    fn verdict_names_are_the_serde_forms() {
        for c in ReasonCode::ALL {
            let j = serde_json::to_string(&c).unwrap();
            assert_eq!(j, format!("\"{}\"", c.as_str()));
            assert_eq!(serde_json::from_str::<ReasonCode>(&j).unwrap(), c);
        }
        let codes: BTreeSet<ReasonCode> = ReasonCode::ALL.iter().rev().copied().collect();
        assert!(codes.into_iter().eq(ReasonCode::ALL), "Ord is report order");
        for c in [
            Classification::CollectiveSuspect,
            Classification::CollectiveLikely,
            Classification::CollectiveConfident,
        ] {
            let j = serde_json::to_string(&c).unwrap();
            assert_eq!(j, format!("\"{}\"", c.as_str()));
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn robust_z_matches_scipy_and_falls_back_when_mad_is_zero() {
        // np.median(x) = 12, scipy.stats.median_abs_deviation(x) = 1.0;
        // np.maximum(0, 0.6745*(x-12)/1.0) = [0,0,0,0.6745,25.631,0,0]
        let z = robust_zscores(&[10.0, 12.0, 11.0, 13.0, 50.0, 12.0, 11.0]);
        let want = [0.0, 0.0, 0.0, 0.6745, 25.631, 0.0, 0.0];
        for (a, b) in z.iter().zip(want) {
            assert!(close(*a, b), "{z:?}");
        }
        // MAD = 0: plain z-score with the sample sd.
        // np.maximum(0, scipy.stats.zscore([0,0,0,0,10], ddof=1)) = [0,0,0,0,1.7888543819998317]
        let z = robust_zscores(&[0.0, 0.0, 0.0, 0.0, 10.0]);
        assert!(close(z[4], 1.7888543819998317), "{z:?}");
        assert!(z[..4].iter().all(|&v| v == 0.0));
        // Fewer than 3 values, or no spread at all: 0.
        assert_eq!(robust_zscores(&[0.0, 1e9]), vec![0.0, 0.0]);
        assert_eq!(robust_zscores(&[5.0; 6]), vec![0.0; 6]);
        // A NaN gap (run never makes one): no scores.
        assert_eq!(robust_zscores(&[1.0, f64::NAN, 3.0]), vec![0.0; 3]);
    }

    /// The shortcut of [`nested_token`] answers what searching the JSON text answers: tokens
    /// in keys and leaves, interned or not, nested deep; none; one only under a key a duplicate
    /// overwrites; one an escape makes (`\nccl`); non-ASCII text; a malformed value.
    #[test]
    fn nested_token_finds_what_the_json_text_holds() {
        use crate::model::nested::enc;
        let mut t = StringTable::default();
        let mut vals = NestedValues::default();
        let (op, nccl, plain) = (t.intern("op"), t.intern("NCCL_x"), t.intern("aten::mm"));
        let mut cases: Vec<(Vec<u8>, bool)> = Vec::new();
        let mut b = Vec::new();
        enc::dict(&mut b, 2);
        enc::key(&mut b, op);
        enc::str(&mut b, plain);
        enc::key(&mut b, nccl);
        enc::int(&mut b, -3);
        cases.push((std::mem::take(&mut b), true));
        enc::dict(&mut b, 1);
        enc::key(&mut b, op);
        enc::array(&mut b, 3);
        enc::double(&mut b, 1e300);
        enc::bool(&mut b, false);
        enc::text(&mut b, "all-Reduce");
        cases.push((std::mem::take(&mut b), true));
        enc::dict_text(&mut b, 2);
        enc::key_text(&mut b, "a");
        enc::null(&mut b);
        enc::key_text(&mut b, "Ünïcode");
        enc::text(&mut b, "mm");
        cases.push((std::mem::take(&mut b), false));
        // The later "op" overwrites the one holding the token.
        enc::dict(&mut b, 2);
        enc::key(&mut b, op);
        enc::text(&mut b, "gloo");
        enc::key(&mut b, op);
        enc::uint(&mut b, 7);
        cases.push((std::mem::take(&mut b), false));
        enc::array(&mut b, 1);
        enc::text(&mut b, "x\nccl");
        cases.push((std::mem::take(&mut b), true));
        enc::array(&mut b, 1);
        enc::text(&mut b, "Ünïcode broad_cast");
        cases.push((std::mem::take(&mut b), true));
        // Two entries announced, one there: null.
        enc::dict_text(&mut b, 2);
        enc::key_text(&mut b, "nccl");
        enc::null(&mut b);
        cases.push((std::mem::take(&mut b), false));
        let mut scan = TokenScan::new();
        let mut leaf_scan = TokenScan::new();
        // `series_from_model`'s rule, without its per-string memo.
        let mut flag = |leaf: Leaf<'_>| {
            let s = match leaf {
                Leaf::Interned(i) => t.get(i),
                Leaf::Text(s) => s,
            };
            json_escapes(s) || leaf_scan.has_token(s)
        };
        for (enc, want) in cases {
            let id = vals.add(&enc);
            let text = vals.text(id, &t);
            assert_eq!(scan.has_token(&text), want, "{text}");
            assert_eq!(
                nested_token(&vals, &t, id, &mut scan, &mut flag),
                want,
                "{text}"
            );
        }
    }

    #[test]
    fn token_scan_finds_what_fold_and_contains_find() {
        let mut scan = TokenScan::new();
        let texts = [
            r#"{"op":"All-Reduce","bytes":4096}"#,
            r#"{"kernel":"ncclDevKernel_AllGather_RING_LL"}"#,
            r#"{"name":"c10d::barrier"}"#,
            "RE_DUCE-scatter",
            "record_param_comms",
            "all_to_one_copy",
            "aten::mm",
            r#"{"a":"nc","b":"cl"}"#,
            "NCCL",
            "GlOo",
            "broad-cast",
            "",
            "-_-_",
            "communicatio",
            "Ünïcode allreduce",
            "Ünïcode all_to_one",
            r"\u0041llReduce",
        ];
        let mut hits = 0;
        for t in texts {
            let want = COLLECTIVE_TOKENS.iter().any(|tok| fold(t).contains(tok));
            assert_eq!(scan.has_token(t), want, "{t}");
            hits += usize::from(want);
        }
        assert_eq!(hits, 9);
    }

    #[test]
    fn marker_distance_is_zero_inside_and_to_the_nearer_end_outside() {
        let m = Marker {
            start_ns: 100,
            end_ns: 200,
            name: "nccl:all_reduce".into(),
        };
        assert_eq!(marker_distance(100, &m), 0);
        assert_eq!(marker_distance(150, &m), 0);
        assert_eq!(marker_distance(200, &m), 0);
        assert_eq!(marker_distance(40, &m), 60);
        assert_eq!(marker_distance(230, &m), 30);
        let point = Marker {
            start_ns: 500,
            end_ns: 500,
            name: "barrier".into(),
        };
        assert_eq!(marker_distance(480, &point), 20);
        assert_eq!(marker_distance(520, &point), 20);
    }

    #[test]
    fn synchrony_ratio_counts_other_ranks_over_world_minus_one() {
        assert!(close(synchrony_ratio(3, 4), 2.0 / 3.0));
        assert!(close(synchrony_ratio(4, 4), 1.0));
        assert_eq!(synchrony_ratio(1, 4), 0.0);
        assert_eq!(synchrony_ratio(1, 1), 0.0);
        assert_eq!(synchrony_ratio(3, 0), 0.0);
    }

    #[test]
    fn divergence_and_confidence_terms() {
        let p = Params::default(); // 128 MiB, 0.04
        assert!(close(divergence_strength(64.0 * MIB as f64, None, &p), 0.5));
        assert!(close(
            divergence_strength(512.0 * MIB as f64, None, &p),
            1.0
        ));
        // The ratio term wins when larger: 0.03/0.04 = 0.75 > 32/128.
        assert!(close(
            divergence_strength(32.0 * MIB as f64, Some(0.03), &p),
            0.75
        ));
        let mut zero = p.clone();
        zero.min_gap_ratio = 0.0;
        assert!(close(divergence_strength(0.0, Some(0.0), &zero), 1.0));
        assert!(close(divergence_strength(0.0, None, &zero), 0.0));
        zero.min_gap_bytes = 0;
        assert!(close(divergence_strength(0.0, None, &zero), 1.0));

        // All terms full: 0.34 + 0.34 + 0.16 + 0.16 = 1.0.
        assert!(close(
            confidence(true, 1.0, 9.0, 1.0, false, false, &p),
            1.0
        ));
        // Ratio unknown: − 0.05.
        assert!(close(
            confidence(true, 1.0, 9.0, 1.0, false, true, &p),
            0.95
        ));
        // z term: min(1, 1.25/2.5) = 0.5 → 0.08.
        assert!(close(
            confidence(true, 0.0, 1.25, 0.0, false, false, &p),
            0.34 + 0.08
        ));
        // Synchrony term: 0.34·(2/3).
        assert!(close(
            confidence(false, 2.0 / 3.0, 0.0, 0.0, false, false, &p),
            0.34 * 2.0 / 3.0 - 0.15
        ));
        // No marker and single rank: 0.16 + 0.16 − 0.15 − 0.15 = 0.02.
        assert!(close(
            confidence(false, 0.0, 5.0, 1.0, true, false, &p),
            0.02
        ));
        // Clamped at 0.
        assert_eq!(confidence(false, 0.0, 0.0, 0.0, true, true, &p), 0.0);
    }

    #[test]
    fn class_thresholds() {
        use Classification::*;
        assert_eq!(Classification::from_confidence(1.0), CollectiveConfident);
        assert_eq!(Classification::from_confidence(0.8), CollectiveConfident);
        assert_eq!(Classification::from_confidence(0.7999), CollectiveLikely);
        assert_eq!(Classification::from_confidence(0.6), CollectiveLikely);
        assert_eq!(Classification::from_confidence(0.5999), CollectiveSuspect);
        assert_eq!(Classification::from_confidence(0.0), CollectiveSuspect);
    }

    #[test]
    fn presets_are_the_spec_table() {
        let l = Params::preset(Preset::Low);
        let m = Params::preset(Preset::Medium);
        let h = Params::preset(Preset::High);
        assert_eq!(Params::default(), m);
        assert_eq!(
            (
                l.min_samples_per_rank,
                m.min_samples_per_rank,
                h.min_samples_per_rank
            ),
            (8, 6, 5)
        );
        assert_eq!(
            (l.min_gap_bytes, m.min_gap_bytes, h.min_gap_bytes),
            (256 << 20, 128 << 20, 64 << 20)
        );
        assert_eq!(
            (l.min_gap_ratio, m.min_gap_ratio, h.min_gap_ratio),
            (0.06, 0.04, 0.025)
        );
        assert_eq!(
            (
                l.robust_zscore_threshold,
                m.robust_zscore_threshold,
                h.robust_zscore_threshold
            ),
            (3.0, 2.5, 1.8)
        );
        assert_eq!(
            (l.marker_window_ns, m.marker_window_ns, h.marker_window_ns),
            (120 * MS, 150 * MS, 180 * MS)
        );
        assert_eq!(
            (
                l.interval_padding_ns,
                m.interval_padding_ns,
                h.interval_padding_ns
            ),
            (100 * MS, 120 * MS, 160 * MS)
        );
        assert_eq!(
            (
                l.synchrony_window_ns,
                m.synchrony_window_ns,
                h.synchrony_window_ns
            ),
            (100 * MS, 120 * MS, 180 * MS)
        );
        assert_eq!(
            (
                l.min_synchrony_ratio,
                m.min_synchrony_ratio,
                h.min_synchrony_ratio
            ),
            (0.6, 0.5, 0.34)
        );
        assert_eq!(
            (l.min_confidence, m.min_confidence, h.min_confidence),
            (0.7, 0.5, 0.35)
        );
        assert_eq!("HIGH".parse::<Preset>().unwrap(), Preset::High);
        assert!("extreme".parse::<Preset>().is_err());
    }

    #[test]
    fn overrides_parse_units_and_reject_bad_knobs_naming_them() {
        let p = Params::default()
            .with_override("marker_window", "200ms")
            .unwrap()
            .with_override("synchrony_window", "0.5s")
            .unwrap()
            .with_override("interval_padding", "90")
            .unwrap()
            .with_override("min_gap_bytes", "300MiB")
            .unwrap()
            .with_override("min_samples_per_rank", "3")
            .unwrap()
            .with_override("min_confidence", "0")
            .unwrap();
        assert_eq!(p.marker_window_ns, 200 * MS);
        assert_eq!(p.synchrony_window_ns, 500 * MS);
        assert_eq!(p.interval_padding_ns, 90 * MS);
        assert_eq!(p.min_gap_bytes, 300 * MIB);
        assert_eq!(p.min_samples_per_rank, 3);
        assert_eq!(p.min_confidence, 0.0);

        let e = Params::default()
            .with_override("marker_windw", "1ms")
            .unwrap_err();
        assert!(matches!(&e, Error::UnknownKnob { knob, .. } if knob == "marker_windw"));
        assert!(e.to_string().contains("marker_windw"), "{e}");
        for (k, v) in [
            ("min_samples_per_rank", "2"),
            ("min_samples_per_rank", "six"),
            ("robust_zscore_threshold", "0"),
            ("min_confidence", "1.5"),
            ("min_synchrony_ratio", "-0.1"),
            ("min_gap_ratio", "NaN"),
            ("marker_window", "-5ms"),
            ("marker_window", "5 fortnights"),
            ("min_gap_bytes", "lots"),
        ] {
            let e = Params::default().with_override(k, v).unwrap_err();
            assert!(
                matches!(&e, Error::InvalidValue { knob, .. } if knob == k),
                "{k}={v}"
            );
            assert!(e.to_string().contains(k), "{e}");
        }
    }

    #[test]
    fn mapping_defaults_classify_counter_names() {
        let m = Mapping::default();
        assert_eq!(
            m.classify("cpu reserved"),
            Some(SeriesKind::AllocatorReserved)
        );
        assert_eq!(
            m.classify("cuda:0 allocated"),
            Some(SeriesKind::AllocatorAllocated)
        );
        assert_eq!(
            m.classify("Total Reserved"),
            Some(SeriesKind::AllocatorReserved)
        );
        assert_eq!(
            m.classify("device_used_bytes"),
            Some(SeriesKind::DeviceUsed)
        );
        assert_eq!(m.classify("GPU0 NVML memory"), Some(SeriesKind::DeviceUsed));
        assert_eq!(
            m.classify("device_total_bytes"),
            Some(SeriesKind::DeviceTotal)
        );
        assert_eq!(m.classify("cpu.utilization"), None);
        let mut custom = m.clone();
        custom.device_used.push("fb_mem".into());
        assert_eq!(custom.classify("FB-Mem"), Some(SeriesKind::DeviceUsed));
    }

    // ---- whole-algorithm cases on hand-computable series ----------------------------------

    /// A rank with `n` samples every 50 ms: device_used = reserved + 100 MiB, plus `spikes`
    /// (sample index → extra MiB) on the gap.
    fn rank(r: u32, n: usize, spikes: &[(usize, f64)], markers: &[(i64, i64)]) -> RankInput {
        let ts: Vec<i64> = (0..n as i64).map(|i| i * 50 * MS).collect();
        let reserved = vec![900.0 * MIB as f64; n];
        let mut used: Vec<f64> = reserved.iter().map(|r| r + 100.0 * MIB as f64).collect();
        for &(i, extra) in spikes {
            used[i] += extra * MIB as f64;
        }
        RankInput {
            rank: r,
            label: format!("rank{r}"),
            series: RankSeries {
                rank: Some(r),
                world_size: Some(4),
                kinds: PerKind {
                    device_used: Some(Series {
                        name: "device_used_bytes".into(),
                        ts_ns: ts.clone(),
                        value: used,
                    }),
                    allocator_reserved: Some(Series {
                        name: "allocator_reserved_bytes".into(),
                        ts_ns: ts,
                        value: reserved,
                    }),
                    ..PerKind::default()
                },
                markers: markers
                    .iter()
                    .map(|&(a, b)| Marker {
                        start_ns: a,
                        end_ns: b,
                        name: "nccl:all_reduce".into(),
                    })
                    .collect(),
                phases: vec![Phase {
                    start_ns: 0,
                    end_ns: 2000 * MS,
                    name: "ProfilerStep#1".into(),
                }],
                shared_clock: true,
            },
        }
    }

    /// Gives every rank a constant 80 GiB device total (so the gap ratio is known).
    fn with_total(inputs: &mut [RankInput]) {
        for r in inputs {
            let ts = r.series.kinds.device_used.as_ref().unwrap().ts_ns.clone();
            r.series.kinds.device_total = Some(Series {
                name: "device_total_bytes".into(),
                value: vec![80.0 * 1024.0 * MIB as f64; ts.len()],
                ts_ns: ts,
            });
        }
    }

    #[test]
    fn synchronized_spike_with_marker_is_confident_lone_spike_is_dropped() {
        // All four ranks: +300 MiB at sample 10 (500 ms) inside an all_reduce [480, 520] ms.
        // Rank 2 also at sample 16 (800 ms), no marker near.
        let ar = [(480 * MS, 520 * MS)];
        let inputs: Vec<RankInput> = (0..4)
            .map(|r| {
                let sp: &[(usize, f64)] = if r == 2 {
                    &[(10, 300.0), (16, 300.0)]
                } else {
                    &[(10, 300.0)]
                };
                rank(r, 20, sp, &ar)
            })
            .collect();
        let rep = run(&inputs, &Params::default());
        assert_eq!(rep.world_size, 4);
        assert_eq!(rep.intervals.len(), 4, "{:#?}", rep.intervals);
        for (r, iv) in rep.intervals.iter().enumerate() {
            assert_eq!(iv.rank, r as u32);
            // 0.34 + 0.34 + 0.16 + 0.16 − 0.05 (no device total) = 0.95.
            assert!(close(iv.confidence, 0.95), "{iv:?}");
            assert_eq!(iv.classification, Classification::CollectiveConfident);
            assert_eq!(
                names(&iv.reason_codes),
                [
                    "gap_spike_statistical_outlier",
                    "marker_collective_token",
                    "marker_spike_overlap",
                    "cross_rank_synchrony",
                    "allocator_device_divergence"
                ]
            );
            assert_eq!((iv.start_ns, iv.end_ns), (360 * MS, 640 * MS));
            assert_eq!(iv.evidence.synchronized_ranks, 4);
            assert_eq!(iv.evidence.marker_hits, 1);
            assert_eq!(iv.evidence.peak_gap_bytes, 400.0 * MIB as f64);
            assert_eq!(iv.evidence.peak_gap_ratio, None);
            assert_eq!(iv.phase.as_deref(), Some("ProfilerStep#1"));
        }
        // Rank 2's lone spike: 0.16 + 0.16 − 0.15 − 0.15 − 0.05 < 0 → dropped. With
        // min_confidence 0 and a known device total (no −0.05) it is kept as suspect.
        let mut inputs = inputs;
        with_total(&mut inputs);
        let p = Params::default()
            .with_override("min_confidence", "0")
            .unwrap();
        let rep = run(&inputs, &p);
        let lone: Vec<&Interval> = rep
            .intervals
            .iter()
            .filter(|iv| iv.rank == 2 && iv.start_ns > 640 * MS)
            .collect();
        assert_eq!(lone.len(), 1, "{:#?}", rep.intervals);
        assert_eq!(lone[0].classification, Classification::CollectiveSuspect);
        assert!(close(lone[0].confidence, 0.02), "{:?}", lone[0]);
        assert!(names(&lone[0].reason_codes).contains(&"weak_marker_signal"));
        assert!(names(&lone[0].reason_codes).contains(&"single_rank_only"));
        assert_eq!((lone[0].start_ns, lone[0].end_ns), (680 * MS, 920 * MS));
    }

    #[test]
    fn marker_window_edges() {
        // Spike at 500 ms; medium marker_window 150 ms. A marker ending exactly 150 ms before
        // is attached; one ending 150 ms + 1 ns before is not.
        let at = |end: i64| {
            let mut inputs = vec![rank(0, 20, &[(10, 300.0)], &[(end - 10 * MS, end)])];
            with_total(&mut inputs);
            run(
                &inputs,
                &Params::default()
                    .with_override("min_confidence", "0")
                    .unwrap(),
            )
        };
        let rep = at(350 * MS);
        assert_eq!(rep.intervals[0].evidence.marker_hits, 1);
        // interval starts at marker start − padding = 340 − 120 = 220 ms.
        assert_eq!(rep.intervals[0].start_ns, 220 * MS);
        let rep = at(350 * MS - 1);
        assert_eq!(rep.intervals[0].evidence.marker_hits, 0);
        assert!(names(&rep.intervals[0].reason_codes).contains(&"weak_marker_signal"));
        // Synchrony window edge: rank 1 spikes 150 ms later (sample 13): outside ± 120 ms.
        let mut inputs = vec![
            rank(0, 20, &[(10, 300.0)], &[]),
            rank(1, 20, &[(13, 300.0)], &[]),
        ];
        with_total(&mut inputs);
        let p = Params::default()
            .with_override("min_confidence", "0")
            .unwrap();
        let rep = run(&inputs, &p);
        assert!(rep
            .intervals
            .iter()
            .all(|iv| iv.evidence.synchronized_ranks == 1));
        let p = p.with_override("synchrony_window", "150ms").unwrap();
        let rep = run(&inputs, &p);
        assert!(rep
            .intervals
            .iter()
            .all(|iv| iv.evidence.synchronized_ranks == 2));
        // world 4 (stated), 2 synchronized: ratio 1/3 < 0.5: no cross_rank_synchrony, but not
        // single-rank either.
        for iv in &rep.intervals {
            assert!(close(iv.evidence.synchrony_ratio, 1.0 / 3.0));
            assert!(!names(&iv.reason_codes).contains(&"cross_rank_synchrony"));
            assert!(!names(&iv.reason_codes).contains(&"single_rank_only"));
        }
    }

    #[test]
    fn adjacent_spikes_merge_into_one_interval() {
        // Spikes at samples 10 and 11 (500, 550 ms) on every rank: intervals [380, 620] and
        // [430, 670] overlap → one [380, 670] per rank, max evidence.
        // No marker, ratio unknown: 0.34 + 0.16 + 0.16 − 0.15 − 0.05 = 0.46 → min_confidence 0.4.
        let inputs: Vec<RankInput> = (0..4)
            .map(|r| rank(r, 30, &[(10, 300.0), (11, 500.0)], &[]))
            .collect();
        let p = Params::default()
            .with_override("min_confidence", "0.4")
            .unwrap();
        let rep = run(&inputs, &p);
        assert_eq!(rep.intervals.len(), 4, "{:#?}", rep.intervals);
        for iv in &rep.intervals {
            assert_eq!((iv.start_ns, iv.end_ns), (380 * MS, 670 * MS));
            assert_eq!(iv.evidence.peak_gap_bytes, 600.0 * MIB as f64);
            assert!(names(&iv.reason_codes).contains(&"weak_marker_signal"));
            assert!(!names(&iv.reason_codes).contains(&"single_rank_only"));
        }
        // Merge rule: weak_marker_signal is dropped when merged with marker_spike_overlap.
        let a = |codes: &[&str], s: i64, e: i64| {
            let codes: Vec<ReasonCode> = codes
                .iter()
                .map(|c| {
                    ReasonCode::ALL
                        .into_iter()
                        .find(|r| r.as_str() == *c)
                        .unwrap()
                })
                .collect();
            (
                Interval {
                    rank: 0,
                    start_ns: s,
                    end_ns: e,
                    classification: Classification::CollectiveSuspect,
                    confidence: 0.5,
                    reason_codes: codes,
                    evidence: Evidence {
                        marker_hits: 0,
                        synchronized_ranks: 1,
                        expected_world_size: 2,
                        synchrony_ratio: 0.0,
                        peak_gap_bytes: 1.0,
                        peak_gap_ratio: None,
                        robust_zscore: 3.0,
                    },
                    phase: None,
                },
                s,
                1.0,
            )
        };
        let mut strong = a(
            &[
                "gap_spike_statistical_outlier",
                "marker_collective_token",
                "marker_spike_overlap",
                "cross_rank_synchrony",
            ],
            100,
            200,
        );
        strong.0.confidence = 0.9;
        strong.0.classification = Classification::CollectiveConfident;
        strong.0.evidence.marker_hits = 2;
        let weak = a(
            &[
                "gap_spike_statistical_outlier",
                "weak_marker_signal",
                "single_rank_only",
            ],
            200,
            300,
        );
        let far = a(&["gap_spike_statistical_outlier"], 301, 400);
        let m = merge_intervals(vec![weak, far, strong]);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].0.start_ns, m[0].0.end_ns), (100, 300));
        assert_eq!(m[0].0.classification, Classification::CollectiveConfident);
        assert_eq!(m[0].0.confidence, 0.9);
        assert_eq!(m[0].0.evidence.marker_hits, 2);
        assert_eq!(
            names(&m[0].0.reason_codes),
            [
                "gap_spike_statistical_outlier",
                "marker_collective_token",
                "marker_spike_overlap",
                "cross_rank_synchrony"
            ]
        );
    }

    #[test]
    fn too_few_samples_and_missing_device_used_yield_nothing_with_warnings() {
        let mut inputs = vec![
            rank(0, 5, &[(3, 300.0)], &[]),
            rank(1, 20, &[(10, 300.0)], &[]),
        ];
        inputs[1].series.kinds.device_used = None;
        let rep = run(&inputs, &Params::default());
        assert!(rep.intervals.is_empty());
        assert!(rep
            .warnings
            .iter()
            .any(|w| w.contains("rank 0") && w.contains("min_samples_per_rank")));
        assert!(rep
            .warnings
            .iter()
            .any(|w| w.contains("rank 1") && w.contains("no device-used")));
        assert!(!rep.ranks[1].gap_computed);
        // High preset accepts 5 samples.
        let rep = run(&inputs[..1], &Params::preset(Preset::High));
        assert!(rep.ranks[0].gap_computed);
    }

    #[test]
    fn ranks_without_shared_clock_align_on_first_sample_and_report_skew() {
        let mut a = rank(0, 20, &[(10, 300.0)], &[(480 * MS, 520 * MS)]);
        let mut b = rank(1, 20, &[(10, 300.0)], &[(480 * MS, 520 * MS)]);
        a.series.shared_clock = false;
        b.series.shared_clock = false;
        b.series = b.series.shifted(7_000 * MS);
        let rep = run(&[a.clone(), b.clone()], &Params::default());
        assert!(!rep.clock.shared_clock);
        assert_eq!(rep.clock.skew_ns, 7_000 * MS);
        assert_eq!(rep.ranks[1].offset_ns, -7_000 * MS);
        assert_eq!(rep.intervals.len(), 2);
        assert_eq!(rep.intervals[0].start_ns, rep.intervals[1].start_ns);
        assert!(rep
            .intervals
            .iter()
            .all(|iv| iv.evidence.synchronized_ranks == 2));
        // On a (claimed) shared clock the 7 s offset is kept and the spikes are not synchronous.
        a.series.shared_clock = true;
        b.series.shared_clock = true;
        let rep = run(
            &[a, b],
            &Params::default()
                .with_override("min_confidence", "0")
                .unwrap(),
        );
        assert!(rep.clock.shared_clock);
        assert!(rep
            .intervals
            .iter()
            .all(|iv| iv.evidence.synchronized_ranks == 1));
    }

    #[test]
    fn run_is_deterministic() {
        let inputs: Vec<RankInput> = (0..4)
            .map(|r| rank(r, 20, &[(10, 300.0)], &[(480 * MS, 520 * MS)]))
            .collect();
        let a = serde_json::to_string(&run(&inputs, &Params::default())).unwrap();
        let mut rev = inputs.clone();
        rev.reverse();
        let b = serde_json::to_string(&run(&rev, &Params::default())).unwrap();
        assert_eq!(a, b);
    }
}
