//! Chrome Trace Event JSON importer, including Kineto (PyTorch profiler) and JAX/XProf exports
//! (trace-formats.md §8–10).
//!
//! Streaming and tolerant: the decompressed stream is read one element of `traceEvents` at a
//! time (memory holds one event, at most [`MAX_EVENT_BYTES`]); [`lexer`] reads each event's
//! members straight from the buffered bytes (no value tree: `args` members are kept as
//! borrowed scalars and spans, within the per-event budget of `formats::limits`), and every
//! event goes to the one [`SliceSink`] (its `SliceBuilder`). Nothing in an event can fail the import: malformed events are counted in
//! [`Model::diagnostics`] (kind, severity, count, first byte offset / event index). Only a
//! container that is not a JSON object or array, or an object without `traceEvents`, is an
//! [`ImportError`].
//!
//! Mapping (see the spec sections for the wire meaning):
//! * `ts`/`dur` are µs (numbers or numeric strings) converted exactly to integer ns by
//!   [`lexer::us_text_to_ns`]; `displayTimeUnit` is display-only and stored as metadata.
//!   Kineto `baseTimeNanoseconds` is added to every timestamp, so new (relative) and old
//!   (absolute µs) Kineto files both end on the Unix-epoch ns timeline.
//! * `pid`/`tid`: numbers (64-bit, kept distinct) or strings (each distinct string gets its own
//!   synthetic id ≤ [`STRING_ID_BASE`], and the process/thread is named by the string). A
//!   missing or zero `tid` with a non-zero `pid` uses the pid (Perfetto's rule).
//! * Tracks: one thread track per (pid, tid); process tracks for `s:"p"` instants; one global
//!   track for `s:"g"` instants; async tracks for `b`/`e`/`n` (and legacy `S`/`F`) keyed by
//!   (pid — none for `id2.global` —, cat, id/id2, scope); one counter track per series. All are
//!   created through the tracker shared with the Perfetto importer (`formats::tracks`).
//! * `C` counters: one [`CounterSeries`] per (pid, name, id, arg key), named `"<name> <key>"`
//!   without an id and `"<name>[<id>]"` (plus `" <key>"` unless the key is `value`) with one.
//! * Kineto `[memory]` instants become counter series `"<device> allocated"` /
//!   `"<device> reserved"` (unit `bytes`, device `cpu` or `cuda:<id>`); the 2021 schema without
//!   `Total Allocated` is reconstructed as the running sum of `Bytes` per device.
//! * Flags: [`slice_flags::COLLECTIVE`] when name, category or a `Collective name` arg carries a
//!   collective token ([`has_collective_token`]); [`slice_flags::COMPILE`] by
//!   [`is_compile_slice`].
//! * Frames: [`Provider::ChromeJson`] + name + sorted category list; Python frames
//!   (`python_function` / JAX `$file.py:line func`) add normalized file, line and function.

pub mod kineto;
pub mod lexer;
pub mod synthetic;

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

use super::limits::{
    MAX_ARGS_PER_EVENT, MAX_ARG_BYTES_PER_EVENT, MAX_EVENT_BYTES, MAX_JSON_NODES_PER_EVENT,
};
use super::stream::Window;
use super::tracks::{Layout, TrackTracker};
use super::ImportError;
use crate::model::collective::has_collective_token;
use crate::model::diagnostics::Kind as Diag;
use crate::model::facts::{hostname_from_file_name, rank_from_file_name};
use crate::model::{
    normalize_path, slice_flags, ArgValue, CounterSeries, FrameId, FrameKey, Model, ProcessInfo,
    Provider, SliceEvents, SliceSink, StrId, ThreadInfo, TrackId,
};
pub use kineto::{is_compile_slice, parse_python_frame};
use lexer::{number_of, us_text_to_ns, JVal, Lexer, SyntaxError};

/// Synthetic pids/tids for string ids count down from here (far below any real negative id).
pub const STRING_ID_BASE: i64 = -(1 << 48);

/// Durations above this (7 days in ns) are treated as corrupt: excluded and counted
/// (`slice_absurd_duration`), so one bad value never stretches the time axis.
pub const MAX_PLAUSIBLE_DUR_NS: i64 = 7 * 24 * 3600 * 1_000_000_000;

/// Timestamps beyond ±2^61 ns (±73 years around 1970) are corrupt: dropped and counted
/// (`timestamp_out_of_range`), so durations computed from them never overflow.
pub const MAX_ABS_TS_NS: i64 = 1 << 61;

/// Imports decompressed Chrome JSON (object or array form) into `model`. `name` is the file
/// name (used for the JAX host name and the Kineto rank when the trace lacks them).
/// `progress` receives fractions in [0, 1].
///
/// Errors: [`ImportError::Malformed`] when the text is neither a JSON object nor an array, or an
/// object that has no `traceEvents` key. Everything else is a diagnostic.
pub fn import(
    data: &[u8],
    name: &str,
    model: &mut Model,
    progress: &mut dyn FnMut(f64),
) -> Result<(), ImportError> {
    let mut win = Window::from_bytes(data);
    import_stream(&mut win, name, model, progress)
}

/// Imports Chrome JSON from a decompressed stream (see [`import`]), one element of
/// `traceEvents` at a time: memory holds one event (at most [`MAX_EVENT_BYTES`]; a longer one
/// is skipped without being buffered and counted), never the whole text.
pub(crate) fn import_stream(
    win: &mut Window<'_>,
    name: &str,
    model: &mut Model,
    progress: &mut dyn FnMut(f64),
) -> Result<(), ImportError> {
    let mut inp = Input {
        win,
        lines: 0,
        end: Cell::new(None),
    };
    inp.win.fill(3);
    if inp.data().starts_with(&[0xef, 0xbb, 0xbf]) {
        inp.consume(3);
    }
    let mut imp = Importer::new(name, model);
    match inp.peek() {
        Some(b'[') => {
            inp.consume(1);
            imp.events(&mut inp, progress);
        }
        Some(b'{') => {
            inp.consume(1);
            if !imp.top_object(&mut inp, progress) {
                return Err(ImportError::Malformed(
                    "a JSON object without a \"traceEvents\" array".into(),
                ));
            }
        }
        _ => {
            return Err(ImportError::Malformed(
                "the text is neither a JSON object nor a JSON array".into(),
            ))
        }
    }
    imp.trailing(&mut inp);
    imp.flush_lexer_issues();
    imp.finish();
    progress(1.0);
    Ok(())
}

/// Looks for a `"traceEvents"` member at the top level of a JSON object, past the sniffer's head:
/// the loader then streams the file as a trace instead of reading it whole to try it as a
/// compile-record file first (a trace with a long member, say `otherData`, before
/// `traceEvents` was held whole, up to 256 MiB).
///
/// Fed the text in pieces of any size ([`TopLevelScan::feed`]), a byte at a time through the
/// strings and the nesting, holding nothing. It decides at the member (a trace), at the object's
/// end, at a `"records"` member before it (a compile-record file: the record reader decides),
/// or at a text that does not start with `{` (no trace member). A key spelled with escapes is
/// not recognised (no member: the loader's record-file path still reads such a trace right).
#[derive(Debug, Default)]
pub(crate) struct TopLevelScan {
    started: bool,
    depth: u32,
    in_str: bool,
    esc: bool,
    /// A top-level key may start next (after `{` or `,`).
    key_next: bool,
    /// Bytes of the key being read that still match `traceEvents` / `records`.
    trace_key: Option<usize>,
    records_key: Option<usize>,
    /// The key just read was `traceEvents` / `records` (a `:` confirms it).
    was: Option<bool>,
}

impl TopLevelScan {
    /// Feeds the next bytes of the text (a leading BOM is skipped). `Some(true)`: the object has a
    /// top-level `traceEvents` member; `Some(false)`: it has none before its end or a
    /// `records` member, or the text is no object; `None`: not decided yet.
    pub(crate) fn feed(&mut self, data: &[u8]) -> Option<bool> {
        const TRACE: &[u8] = b"traceEvents";
        const RECORDS: &[u8] = b"records";
        let step = |k: Option<usize>, key: &[u8], b: u8| {
            k.and_then(|k| (key.get(k) == Some(&b)).then_some(k + 1))
        };
        for &b in data {
            if self.in_str {
                if self.esc {
                    self.esc = false;
                    (self.trace_key, self.records_key) = (None, None);
                } else if b == b'\\' {
                    self.esc = true;
                } else if b == b'"' {
                    self.in_str = false;
                    self.was = if self.trace_key == Some(TRACE.len()) {
                        Some(true)
                    } else if self.records_key == Some(RECORDS.len()) {
                        Some(false)
                    } else {
                        None
                    };
                    (self.trace_key, self.records_key) = (None, None);
                } else {
                    self.trace_key = step(self.trace_key, TRACE, b);
                    self.records_key = step(self.records_key, RECORDS, b);
                }
                continue;
            }
            if b.is_ascii_whitespace() {
                continue;
            }
            if !self.started {
                // A byte-order mark before the text is skipped as white space is.
                if matches!(b, 0xef | 0xbb | 0xbf) {
                    continue;
                }
                if b != b'{' {
                    return Some(false);
                }
                (self.started, self.depth, self.key_next) = (true, 1, true);
                continue;
            }
            if b == b':' && self.depth == 1 {
                if let Some(trace) = self.was {
                    return Some(trace);
                }
            }
            self.was = None;
            match b {
                b'"' => {
                    self.in_str = true;
                    let key = self.depth == 1 && self.key_next;
                    (self.trace_key, self.records_key) = if key {
                        (Some(0), Some(0))
                    } else {
                        (None, None)
                    };
                    self.key_next = false;
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(false);
                    }
                }
                b',' => self.key_next = self.depth == 1,
                _ => {}
            }
        }
        None
    }

    /// Feeds the rest of `win` (consumed as it goes, one chunk held) until decided; false at the
    /// stream's end undecided or once past `cap` bytes (checked between reads).
    pub(crate) fn finish(mut self, win: &mut Window<'_>, cap: u64) -> bool {
        let start = win.offset();
        loop {
            if win.data().is_empty() && !win.more() {
                return false;
            }
            let data = win.data();
            let n = data.len();
            if let Some(d) = self.feed(data) {
                return d;
            }
            win.consume(n);
            if win.offset() - start > cap {
                return false;
            }
        }
    }
}

/// Bytes kept buffered after a syntax error, so the unescaped-quote repair and the search for
/// the broken element's end see what follows it.
const LOOKAHEAD: usize = 64 << 10;

/// The decompressed stream as the importer reads it: the window and the number of lines
/// consumed before its first byte (for line numbers in diagnostics).
struct Input<'w, 'r> {
    win: &'w mut Window<'r>,
    lines: u64,
    /// Once the source is exhausted: the stream offset just after its last byte that is not
    /// white space (set on the first [`Input::data`] call at the end).
    end: Cell<Option<u64>>,
}

impl Input<'_, '_> {
    /// The buffered, unconsumed bytes. At the end of the stream, without its trailing white
    /// space: an element cut by the end of the file reads the same whether or not spaces or
    /// newlines follow the cut (a number or literal running into the end is truncated either
    /// way, found by the `chrome_json` fuzz target).
    fn data(&self) -> &[u8] {
        let d = self.win.data();
        if !self.win.at_eof() {
            return d;
        }
        let at = self.win.offset();
        let end = match self.end.get() {
            Some(e) => e,
            None => {
                let keep = d
                    .iter()
                    .rposition(|&b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
                    .map_or(0, |i| i + 1);
                let e = at + keep as u64;
                self.end.set(Some(e));
                e
            }
        };
        let keep = usize::try_from(end.saturating_sub(at)).unwrap_or(usize::MAX);
        &d[..keep.min(d.len())]
    }

    fn eof(&self) -> bool {
        self.win.at_eof()
    }

    fn offset(&self) -> u64 {
        self.win.offset()
    }

    /// 1-based line of the next unconsumed byte.
    fn line(&self) -> u64 {
        self.lines + 1
    }

    fn consume(&mut self, n: usize) {
        let d = self.win.data();
        let n = n.min(d.len());
        self.lines += newlines(&d[..n]);
        self.win.consume(n);
    }

    /// Skips white space; the next byte (not consumed), `None` at the end of the stream.
    fn peek(&mut self) -> Option<u8> {
        loop {
            let d = self.win.data();
            let ws = d
                .iter()
                .position(|&b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'));
            match ws {
                Some(k) => {
                    let b = d[k];
                    self.consume(k);
                    return Some(b);
                }
                None => {
                    let all = d.len();
                    self.consume(all);
                    if !self.win.more() {
                        return None;
                    }
                }
            }
        }
    }

    /// Buffers more of the current element (about twice as much, so re-reading an element
    /// after each growth stays linear). False when the element would pass
    /// [`MAX_EVENT_BYTES`] or the stream has ended.
    fn grow(&mut self) -> bool {
        let have = self.data().len();
        if have >= MAX_EVENT_BYTES || self.eof() {
            return false;
        }
        // At least 1 MiB: each refill of the window costs a buffer resize of its chunk size.
        let want = (have.max(1 << 19) * 2).min(MAX_EVENT_BYTES);
        self.win.fill(want);
        true
    }
}

fn newlines(d: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', d).count() as u64
}

/// 1-based line of byte `pos` of a buffer whose first byte is on line `first_line`.
fn line_in(data: &[u8], first_line: u64, pos: usize) -> u64 {
    first_line + newlines(&data[..pos.min(data.len())])
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum AsyncScope {
    Process(i64),
    Global,
}

/// An async track's key: (pid — none for `id2.global` —, cat, id/id2, scope).
type AsyncKey = (AsyncScope, StrId, Vec<u8>, StrId);

/// JSON thread tracks have no parent; the `s:"g"` instants' track is named "Global".
const LAYOUT: Layout = Layout {
    threads_under_processes: false,
    global_name: "Global",
};

struct CounterAcc {
    track: TrackId,
    samples: Vec<(i64, f64)>,
}

#[derive(Default)]
struct MemoryAcc {
    pid: Option<i64>,
    allocated: Vec<(i64, f64)>,
    reserved: Vec<(i64, f64)>,
    /// (ts, bytes) of 2021-schema events that carry only `Bytes`.
    deltas: Vec<(i64, f64)>,
}

/// Lexer irregularities over the whole file: (count, first stream offset and its line).
type IssueTotals = [(u64, Option<(u64, u64)>); 5];

struct Importer<'a, 'm> {
    file_name: &'a str,
    model: &'m mut Model,
    builder: SliceSink,
    events: u64,
    cur_index: u64,
    /// Stream offset and line of byte 0 of the buffer being read (offsets in diagnostics are
    /// stream offsets: buffer positions plus `base`).
    base: u64,
    first_line: u64,
    issues: IssueTotals,
    string_pids: HashMap<Vec<u8>, i64>,
    /// The inverse of `string_pids`: synthetic pid → its string (a process's name).
    string_pid_names: HashMap<i64, Vec<u8>>,
    string_tids: HashMap<Vec<u8>, i64>,
    next_string_id: i64,
    tracker: TrackTracker<AsyncKey>,
    thread_names: BTreeMap<(i64, i64), (StrId, Option<i64>)>,
    counters: BTreeMap<(i64, StrId), CounterAcc>,
    memory: BTreeMap<String, MemoryAcc>,
    /// Per-string-id caches (ids are dense, so an index, not a hash lookup, per event):
    /// a category's sorted frame category (`u32::MAX` when not yet computed); whether a name
    /// or category carries a collective token (0 unknown, 1 no, 2 yes); per name, the frame
    /// and the compile flag of the last (name, category) seen (category `u32::MAX`: none).
    frame_cat: Vec<u32>,
    collective: Vec<u8>,
    frame_cache: Vec<(u32, FrameId)>,
    compile_cache: Vec<(u32, bool)>,
    base_time_ns: Option<i64>,
    /// Set when a broken event's brackets never balance again: recovery then resumes at the
    /// next `{` that looks like an event start (see `skip_lost`).
    structure_lost: bool,
    saw_kineto_keys: bool,
    python_cat: StrId,
    memory_name: StrId,
    /// The allocation of the last event's `args` list, reused by the next event.
    spare_args: ArgList<'static>,
}

/// The byte span of an `args` / `id2` value in the buffer, how many JSON nodes it holds and
/// whether it is an object (anything else reads as "no members").
#[derive(Clone, Copy, Default)]
struct Span {
    a: usize,
    nodes: usize,
    obj: bool,
}

/// One event's fields, read from its object without building the object: scalars borrowed
/// from the buffer, `args` and `id2` as spans read when (and as far as) needed.
#[derive(Default)]
struct Ev<'d> {
    ph: Option<u8>,
    name: Option<Cow<'d, [u8]>>,
    cat: Option<Cow<'d, [u8]>>,
    /// Scalars as read; arrays/objects as empty `Arr`/`Obj` with their span.
    ts: Option<JVal<'d>>,
    dur: Option<JVal<'d>>,
    pid: Option<JVal<'d>>,
    tid: Option<JVal<'d>>,
    id: Option<JVal<'d>>,
    args: Option<Span>,
    id2: Option<Span>,
    scope: Option<Cow<'d, [u8]>>,
    s: Option<Cow<'d, [u8]>>,
    /// Read with the unescaped-quote repair (values must be re-read the same way).
    repair: bool,
    members: usize,
    /// The members of an object `args`, read on the first pass (nested values shallow, as
    /// their span), up to the per-event budget.
    arg_list: Vec<(Cow<'d, [u8]>, JVal<'d>)>,
    /// `args` members past the budget (skipped unbuilt), and the limit that was reached.
    args_dropped: u64,
    args_limit: Option<&'static str>,
}

/// Running totals of one event's `args` against the per-event budget.
#[derive(Default)]
struct ArgBudget {
    nodes: usize,
    bytes: usize,
}

fn str_of(v: JVal<'_>) -> Option<Cow<'_, [u8]>> {
    match v {
        JVal::Str(s) => Some(s),
        _ => None,
    }
}

fn span_of(v: &JVal<'_>, nodes: usize) -> Span {
    match v {
        JVal::Obj(_, (a, _)) => Span {
            a: *a,
            nodes,
            obj: true,
        },
        JVal::Arr(_, (a, _)) => Span {
            a: *a,
            nodes,
            obj: false,
        },
        _ => Span {
            nodes,
            ..Span::default()
        },
    }
}

/// Nodes of a built value.
fn nodes_of(v: &JVal<'_>) -> usize {
    match v {
        JVal::Arr(items, _) => 1 + items.iter().map(nodes_of).sum::<usize>(),
        JVal::Obj(members, _) => 1 + members.iter().map(|(_, x)| nodes_of(x)).sum::<usize>(),
        _ => 1,
    }
}

impl<'d> Ev<'d> {
    /// Stores member `key` (last one wins, as in a parsed object).
    fn set(&mut self, key: &[u8], v: JVal<'d>, nodes: usize) {
        if let Some(f) = Field::of(key) {
            self.set_field(f, v, nodes);
        }
    }

    /// Stores the member of field `f`.
    fn set_field(&mut self, f: Field, v: JVal<'d>, nodes: usize) {
        match f {
            Field::Ph => self.ph = v.as_bytes().and_then(|b| b.first().copied()),
            Field::Name => self.name = str_of(v),
            Field::Cat => self.cat = str_of(v),
            Field::Ts => self.ts = Some(v),
            Field::Dur => self.dur = Some(v),
            Field::Pid => self.pid = Some(v),
            Field::Tid => self.tid = Some(v),
            Field::Args => {
                self.args = Some(span_of(&v, nodes));
                self.arg_list.clear();
                self.args_dropped = 0;
                self.args_limit = None;
                if let JVal::Obj(members, _) = v {
                    // Only from the repair path (the strict reader fills `arg_list` itself).
                    let mut budget = ArgBudget { nodes: 1, bytes: 0 };
                    for (k, x) in members {
                        let n = nodes_of(&x);
                        let x = match x {
                            JVal::Arr(_, span) => JVal::Arr(Vec::new(), span),
                            JVal::Obj(_, span) => JVal::Obj(Vec::new(), span),
                            other => other,
                        };
                        self.add_arg(k, x, n, &mut budget);
                    }
                }
            }
            Field::Id => self.id = Some(v),
            Field::Id2 => self.id2 = Some(span_of(&v, nodes)),
            Field::Scope => self.scope = str_of(v),
            Field::S => self.s = str_of(v),
        }
    }

    /// Keeps one `args` member unless the budget is reached (then it and all later members
    /// are counted as dropped).
    fn add_arg(&mut self, k: Cow<'d, [u8]>, x: JVal<'d>, n: usize, budget: &mut ArgBudget) {
        if self.args_limit.is_some() {
            self.args_dropped += 1;
            return;
        }
        budget.nodes += n;
        budget.bytes += k.len()
            + match &x {
                JVal::Str(s) => s.len(),
                JVal::Num(t) => t.len(),
                JVal::Arr(_, (a, b)) | JVal::Obj(_, (a, b)) => b - a,
                _ => 0,
            };
        self.args_limit = if self.arg_list.len() >= MAX_ARGS_PER_EVENT {
            Some("MAX_ARGS_PER_EVENT")
        } else if budget.nodes > MAX_JSON_NODES_PER_EVENT {
            Some("MAX_JSON_NODES_PER_EVENT")
        } else if budget.bytes > MAX_ARG_BYTES_PER_EVENT {
            Some("MAX_ARG_BYTES_PER_EVENT")
        } else {
            None
        };
        if self.args_limit.is_some() {
            self.args_dropped += 1;
        } else {
            self.arg_list.push((k, x));
        }
    }

    /// Reads an object `args` value (at its `{`) member by member into `arg_list`.
    fn parse_args(&mut self, lx: &mut Lexer<'d>) -> Result<(), SyntaxError> {
        let start = lx.pos;
        lx.pos += 1; // {
        self.arg_list.clear();
        self.arg_list.reserve(16);
        self.args_dropped = 0;
        self.args_limit = None;
        let mut budget = ArgBudget { nodes: 1, bytes: 0 };
        let mut need_comma = false;
        while !lx.member_sep(&mut need_comma)? {
            let k = lx.key()?;
            if self.args_limit.is_some() {
                budget.nodes += lx.skip_value(2, false)?;
                self.args_dropped += 1;
            } else {
                let (x, n) = lx.shallow_value(2, false)?;
                self.add_arg(k, x, n, &mut budget);
            }
            need_comma = true;
        }
        self.args = Some(Span {
            a: start,
            nodes: budget.nodes,
            obj: true,
        });
        Ok(())
    }

    /// Reads the event object at the lexer's position (its `{`) strictly, member by member;
    /// `arg_list` is an empty list whose allocation the event's `args` may reuse.
    fn parse(lx: &mut Lexer<'d>, arg_list: ArgList<'d>) -> Result<Ev<'d>, SyntaxError> {
        let mut e = Ev {
            arg_list,
            ..Ev::default()
        };
        lx.pos += 1; // {
        let mut need_comma = false;
        while !lx.member_sep(&mut need_comma)? {
            let key = lx.key()?;
            match Field::of(&key) {
                Some(Field::Args) if lx.peek() == Some(b'{') => e.parse_args(lx)?,
                Some(f) => {
                    let (v, nodes) = lx.shallow_value(1, false)?;
                    e.set_field(f, v, nodes);
                }
                None => {
                    lx.skip_value(1, false)?;
                }
            }
            e.members += 1;
            need_comma = true;
        }
        Ok(e)
    }

    /// The fields of an event object built by the lexer (the unescaped-quote repair path).
    fn of_value(v: &JVal<'d>) -> Ev<'d> {
        let mut e = Ev {
            repair: true,
            ..Ev::default()
        };
        if let JVal::Obj(members, _) = v {
            e.members = members.len();
            for (k, x) in members {
                let shallow = match x {
                    // `set` reads the members of `args` itself.
                    JVal::Obj(..) if &k[..] == b"args" => x.clone(),
                    JVal::Arr(_, span) => JVal::Arr(Vec::new(), *span),
                    JVal::Obj(_, span) => JVal::Obj(Vec::new(), *span),
                    other => other.clone(),
                };
                e.set(k, shallow, nodes_of(x));
            }
        }
        e
    }
}

/// An event's `args` members as read (see [`Ev::arg_list`]).
type ArgList<'d> = Vec<(Cow<'d, [u8]>, JVal<'d>)>;

/// `list` emptied, as a list for another buffer: the allocation is kept (an in-place collect
/// of an empty list into elements of the same layout), so events do not allocate one each.
// `filter_map`, not the `filter` clippy suggests: the element type changes (its lifetime).
#[allow(clippy::unnecessary_filter_map)]
fn recycle<'b>(mut list: ArgList<'_>) -> ArgList<'b> {
    list.clear();
    if list.capacity() > 1024 {
        return Vec::new(); // not kept after an event with very many args
    }
    list.into_iter().filter_map(|_| None).collect()
}

/// The event members the importer reads (others are skipped unbuilt).
#[derive(Clone, Copy)]
enum Field {
    Ph,
    Name,
    Cat,
    Ts,
    Dur,
    Pid,
    Tid,
    Args,
    Id,
    Id2,
    Scope,
    S,
}

impl Field {
    /// The field of member key `k` (one comparison per key: by length, then the bytes).
    fn of(k: &[u8]) -> Option<Field> {
        Some(match (k.len(), k.first()) {
            (1, Some(b's')) => Field::S,
            (2, _) => match k {
                b"ph" => Field::Ph,
                b"ts" => Field::Ts,
                b"id" => Field::Id,
                _ => return None,
            },
            (3, _) => match k {
                b"cat" => Field::Cat,
                b"dur" => Field::Dur,
                b"pid" => Field::Pid,
                b"tid" => Field::Tid,
                b"id2" => Field::Id2,
                _ => return None,
            },
            (4, _) => match k {
                b"name" => Field::Name,
                b"args" => Field::Args,
                _ => return None,
            },
            (5, _) if k == b"scope" => Field::Scope,
            _ => return None,
        })
    }
}

/// What became of one attempt at reading an element from the buffered bytes.
enum Step {
    /// The element may continue past the buffered bytes: buffer more and read it again.
    More,
    /// Read (imported or counted); `usize` bytes consumed; whether a comma is now expected.
    Done(usize, bool),
    /// The stream ended inside the element: everything buffered was consumed.
    End,
    /// A syntax error whose brackets never balance again: resynchronise on the stream.
    Resync,
}

impl<'a, 'm> Importer<'a, 'm> {
    fn new(file_name: &'a str, model: &'m mut Model) -> Self {
        let python_cat = model.strings.intern("python_function");
        let memory_name = model.strings.intern("[memory]");
        Importer {
            file_name,
            model,
            builder: SliceSink::new(),
            events: 0,
            cur_index: 0,
            base: 0,
            first_line: 1,
            issues: Default::default(),
            string_pids: HashMap::new(),
            string_pid_names: HashMap::new(),
            string_tids: HashMap::new(),
            next_string_id: STRING_ID_BASE,
            tracker: TrackTracker::new(LAYOUT),
            thread_names: BTreeMap::new(),
            counters: BTreeMap::new(),
            memory: BTreeMap::new(),
            frame_cat: Vec::new(),
            collective: Vec::new(),
            frame_cache: Vec::new(),
            compile_cache: Vec::new(),
            base_time_ns: None,
            structure_lost: false,
            saw_kineto_keys: false,
            python_cat,
            memory_name,
            spare_args: Vec::new(),
        }
    }

    /// A diagnostic at buffer position `offset` (a stream offset once `base` is added).
    fn diag(&mut self, kind: Diag, offset: Option<usize>, detail: impl FnOnce() -> Option<String>) {
        let at = offset.map(|o| self.base + o as u64);
        self.diag_abs(kind, at, detail);
    }

    /// A diagnostic at stream offset `at`.
    fn diag_abs(&mut self, kind: Diag, at: Option<u64>, detail: impl FnOnce() -> Option<String>) {
        // 0-based index of the event being read (non-empty events before it).
        let idx = self.cur_index;
        self.model.diagnostics.add(kind, at, Some(idx), detail);
    }

    fn intern(&mut self, bytes: &[u8], offset: usize) -> StrId {
        self.intern_abs(bytes, self.base + offset as u64)
    }

    fn intern_abs(&mut self, bytes: &[u8], at: u64) -> StrId {
        let (id, repaired) = self.model.strings.intern_lossy(bytes);
        if repaired {
            self.diag_abs(Diag::InvalidUtf8Repaired, Some(at), || None);
        }
        id
    }

    /// Sets the buffer the next diagnostics refer to.
    fn at_buffer(&mut self, inp: &Input<'_, '_>) {
        self.base = inp.offset();
        self.first_line = inp.line();
    }

    /// Line of buffer position `pos`.
    fn line(&self, data: &[u8], pos: usize) -> u64 {
        line_in(data, self.first_line, pos)
    }

    /// Adds a finished lexer's irregularities to the file's totals.
    fn merge_issues(&mut self, lx: &Lexer<'_>) {
        let i = &lx.issues;
        let items = [
            i.control_chars,
            i.invalid_escapes,
            i.extra_commas,
            i.non_finite_tokens,
            i.lone_surrogates,
        ];
        for (tot, (n, first)) in self.issues.iter_mut().zip(items) {
            tot.0 += n;
            if tot.1.is_none() {
                if let Some(p) = first {
                    tot.1 = Some((self.base + p as u64, line_in(lx.data, self.first_line, p)));
                }
            }
        }
    }
    // ----- containers -------------------------------------------------------------------

    /// After the top-level value: whatever else the stream holds is read past (streamed,
    /// nothing kept) and, unless it is only white space and NUL padding, counted as
    /// `json_trailing_data` with its byte count: a second trace appended to the first
    /// (`{…}{…}`, `[…]\n[…]`) lost its events silently.
    fn trailing(&mut self, inp: &mut Input<'_, '_>) {
        if inp.peek().is_none() {
            return;
        }
        let at = inp.offset();
        let (mut bytes, mut content) = (0u64, false);
        loop {
            let d = inp.win.data();
            content |= d
                .iter()
                .any(|&b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0));
            bytes += d.len() as u64;
            let n = d.len();
            inp.consume(n);
            if !inp.win.more() {
                break;
            }
        }
        if content {
            self.diag_abs(Diag::JsonTrailingData, Some(at), || {
                Some(format!("{bytes} bytes from byte {at}"))
            });
        }
    }

    /// Reads the members of the top-level object; returns whether `traceEvents` was found.
    fn top_object(&mut self, inp: &mut Input<'_, '_>, progress: &mut dyn FnMut(f64)) -> bool {
        let mut found = false;
        loop {
            match inp.peek() {
                None => break,
                Some(b'}') => {
                    inp.consume(1);
                    break;
                }
                Some(b',') => {
                    inp.consume(1);
                    continue;
                }
                Some(b'"') => {}
                Some(_) => {
                    self.at_buffer(inp);
                    let line = inp.line();
                    self.diag(Diag::JsonTopLevelSyntaxError, Some(0), || {
                        Some(format!(
                            "unexpected character at line {line} in the top-level object"
                        ))
                    });
                    if !self.skip_to_trace_events(inp) {
                        break;
                    }
                    continue;
                }
            }
            // The key, read whole (a key is a short string; a longer one is buffered too).
            let key = loop {
                let eof = inp.eof();
                let mut lx = Lexer::new(inp.data(), 0);
                match lx.value(0, false) {
                    Err(e) if e.eof && !eof => {
                        if !inp.grow() {
                            return found;
                        }
                    }
                    Ok(JVal::Str(k)) => {
                        let k = k.into_owned();
                        let n = lx.pos;
                        self.at_buffer(inp);
                        self.merge_issues(&lx);
                        inp.consume(n);
                        break Some(k);
                    }
                    _ => {
                        self.at_buffer(inp);
                        self.merge_issues(&lx);
                        break None;
                    }
                }
            };
            let Some(key) = key else { break };
            if inp.peek() != Some(b':') {
                // Re-read from just after the key's opening quote (as the whole-text reader did,
                // which only looks for a later `"traceEvents"`).
                if !self.skip_to_trace_events(inp) {
                    break;
                }
                continue;
            }
            inp.consume(1);
            if key == b"traceEvents" && inp.peek() == Some(b'[') {
                inp.consume(1);
                found = true;
                self.events(inp, progress);
                continue;
            }
            if !self.top_value(inp, &key) {
                break;
            }
        }
        found
    }

    /// Reads one top-level value after its key and applies it; false when the stream ended
    /// inside it (reading stops).
    fn top_value(&mut self, inp: &mut Input<'_, '_>, key: &[u8]) -> bool {
        loop {
            self.at_buffer(inp);
            let eof = inp.eof();
            let data = inp.data();
            let mut lx = Lexer::new(data, 0);
            let res = lx.skip_value(0, false);
            match res {
                Err(e) if e.eof && !eof => {
                    if inp.grow() {
                        continue;
                    }
                    if inp.eof() {
                        continue;
                    }
                    // Longer than an event may be: skipped without buffering it.
                    let start = inp.offset();
                    let end = skip_unbuffered(inp);
                    self.diag_abs(Diag::JsonValueTooLarge, Some(start), || {
                        Some(format!(
                            "top-level key {:?}, bytes {start}..{end} (limit MAX_EVENT_BYTES = {MAX_EVENT_BYTES})",
                            String::from_utf8_lossy(key)
                        ))
                    });
                    return true;
                }
                Ok(nodes) => {
                    let n = lx.pos;
                    self.merge_issues(&lx);
                    if nodes > MAX_JSON_NODES_PER_EVENT {
                        self.diag(Diag::JsonValueTooLarge, Some(0), || {
                            Some(format!(
                                "top-level key {:?}: {nodes} JSON nodes (limit MAX_JSON_NODES_PER_EVENT = {MAX_JSON_NODES_PER_EVENT})",
                                String::from_utf8_lossy(key)
                            ))
                        });
                    } else {
                        let mut lx = Lexer::new(data, 0);
                        if let Ok(v) = lx.value(0, false) {
                            self.top_level_key(key, &v);
                        }
                    }
                    inp.consume(n);
                    return true;
                }
                Err(e) => {
                    self.merge_issues(&lx);
                    if e.eof {
                        self.diag(Diag::JsonTruncated, Some(e.pos), || None);
                        let all = data.len();
                        inp.consume(all);
                        return false;
                    }
                    let line = self.line(data, e.pos);
                    self.diag(Diag::JsonTopLevelSyntaxError, Some(e.pos), || {
                        Some(format!(
                            "{} at line {line} (top-level key {:?})",
                            e.what,
                            String::from_utf8_lossy(key)
                        ))
                    });
                    return self.skip_to_trace_events(inp);
                }
            }
        }
    }

    /// After a broken top-level value: jump to a later `"traceEvents"` key, if any (the stream
    /// is consumed up to it, or to its end).
    fn skip_to_trace_events(&mut self, inp: &mut Input<'_, '_>) -> bool {
        const KEY: &[u8] = b"\"traceEvents\"";
        loop {
            let d = inp.data();
            if let Some(p) = find(d, KEY) {
                inp.consume(p);
                return true;
            }
            // Keep a tail that may start the key.
            let keep = d.len().min(KEY.len() - 1);
            let n = d.len() - keep;
            inp.consume(n);
            if !inp.win.more() {
                let all = inp.data().len();
                inp.consume(all);
                return false;
            }
        }
    }

    /// Reads events of the `traceEvents` array (after its `[`) up to its `]` or the end, and
    /// on past a stray `]` that events still follow (`[E1], E2, E3]`, counted as
    /// `json_stray_close_bracket`).
    fn events(&mut self, inp: &mut Input<'_, '_>, progress: &mut dyn FnMut(f64)) {
        while self.events_to_close(inp, progress) && self.events_go_on(inp) {}
    }

    /// After the event array's `]`: whether `, {` follows, i.e. a stray or early `]` closed
    /// the array while events go on; if so the `]` is counted and the comma consumed. (A `[`
    /// or a key there is what it seems: a second trace appended, or the next top-level key.)
    fn events_go_on(&mut self, inp: &mut Input<'_, '_>) -> bool {
        let at = inp.offset();
        if inp.peek() != Some(b',') {
            return false;
        }
        loop {
            let d = inp.data();
            match d[1..]
                .iter()
                .position(|&b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
            {
                Some(k) if d[1 + k] == b'{' => break,
                Some(_) => return false,
                None if d.len() < LOOKAHEAD && inp.grow() => {}
                None => return false,
            }
        }
        let line = inp.line();
        self.diag_abs(
            Diag::JsonStrayCloseBracket,
            Some(at.saturating_sub(1)),
            || Some(format!("line {line}")),
        );
        inp.consume(1);
        true
    }

    /// [`Importer::events`] up to the array's `]` (true) or the end of what can be read.
    fn events_to_close(&mut self, inp: &mut Input<'_, '_>, progress: &mut dyn FnMut(f64)) -> bool {
        let mut need_comma = false;
        let mut after_comma = false;
        loop {
            let Some(b) = inp.peek() else {
                self.at_buffer(inp);
                self.diag(Diag::JsonUnterminatedArray, Some(0), || None);
                return false;
            };
            self.at_buffer(inp);
            match b {
                b']' => {
                    if after_comma {
                        self.diag(Diag::JsonExtraComma, Some(0), || {
                            Some("a trailing comma before ']'".to_string())
                        });
                    }
                    inp.consume(1);
                    return true;
                }
                b',' => {
                    after_comma = true;
                    if !need_comma {
                        self.diag(Diag::JsonExtraComma, Some(0), || {
                            Some("a stray comma".to_string())
                        });
                    }
                    inp.consume(1);
                    need_comma = false;
                }
                _ => {
                    after_comma = false;
                    let object = b == b'{';
                    if object {
                        self.cur_index = self.events;
                    }
                    let step = loop {
                        self.at_buffer(inp);
                        let eof = inp.eof();
                        let step = if object {
                            self.event_at(inp.data(), eof)
                        } else {
                            self.non_object_at(inp.data(), eof)
                        };
                        match step {
                            Step::More => {
                                if inp.grow() || inp.eof() {
                                    continue;
                                }
                                break self.too_large(inp);
                            }
                            other => break other,
                        }
                    };
                    match step {
                        Step::Done(n, comma) => {
                            inp.consume(n);
                            need_comma = comma;
                        }
                        Step::End => {
                            let all = inp.data().len();
                            inp.consume(all);
                            return false;
                        }
                        Step::Resync => {
                            self.resync_stream(inp);
                            need_comma = false;
                        }
                        Step::More => unreachable!("handled above"),
                    }
                    if object && self.events % 65_536 == 0 {
                        progress(inp.win.fraction());
                        // The per-file memory budget: past it the import stops, counted
                        // (the slice builder's part as at the previous check).
                        let used = (self.model.heap_bytes()
                            + self.builder.heap_bytes_at_last_check())
                            as u64;
                        let read = inp.win.decoded_bytes();
                        let budget = super::limits::model_budget(read);
                        if used > budget {
                            let at = inp.offset();
                            self.diag_abs(Diag::MemoryBudgetReached, Some(at), || {
                                Some(format!(
                                    "the model reached {used} bytes after {read} decompressed \
                                     bytes (limit {budget} = {} + {} × input); the rest of the \
                                     file was not read",
                                    super::limits::BASE_MEMORY_BYTES,
                                    super::limits::MEMORY_PER_INPUT_BYTE
                                ))
                            });
                            return false;
                        }
                    }
                }
            }
        }
    }

    /// An element longer than [`MAX_EVENT_BYTES`]: skipped on the stream without buffering it,
    /// and counted.
    fn too_large(&mut self, inp: &mut Input<'_, '_>) -> Step {
        let start = inp.offset();
        let line = inp.line();
        let end = skip_unbuffered(inp);
        self.diag_abs(Diag::JsonEventTooLarge, Some(start), || {
            Some(format!(
                "bytes {start}..{end} from line {line} (limit MAX_EVENT_BYTES = {MAX_EVENT_BYTES})"
            ))
        });
        Step::Done(0, true)
    }

    /// Reads the non-object element at the start of `data` (counted and skipped as one element).
    fn non_object_at(&mut self, data: &[u8], eof: bool) -> Step {
        let mut lx = Lexer::new(data, 0);
        let res = lx.shallow_value(0, false);
        let next = lx.peek();
        if next.is_none() && !eof {
            return Step::More;
        }
        match res {
            Ok((v, _)) if matches!(next, None | Some(b',') | Some(b']')) => {
                self.merge_issues(&lx);
                let line = self.line(data, 0);
                self.diag(Diag::EventNotAnObject, Some(0), || {
                    Some(format!(
                        "{} at line {line}",
                        match v {
                            JVal::Null => "null",
                            JVal::Bool(_) => "a boolean",
                            JVal::Num(_) => "a number",
                            JVal::Str(_) => "a string",
                            JVal::Arr(..) => "an array",
                            JVal::Obj(..) => "an object",
                        },
                    ))
                });
                Step::Done(lx.pos, true)
            }
            Err(e) if e.eof => {
                self.merge_issues(&lx);
                let line = self.line(data, 0);
                self.diag(Diag::JsonTruncatedEvent, Some(0), || {
                    Some(format!("line {line}"))
                });
                Step::End
            }
            _ => {
                let Some(lost) = self.lost_extent(data, eof) else {
                    return Step::More;
                };
                self.merge_issues(&lx);
                let line = self.line(data, 0);
                self.diag(Diag::JsonSyntaxError, Some(0), || {
                    Some(format!("unexpected character at line {line}"))
                });
                self.lost(data, lost)
            }
        }
    }

    /// Where the broken element at the start of `data` ends: `Some(Some(end))` at its end at the
    /// array's level, `Some(None)` when its brackets never balance (resynchronise), `None` when
    /// more must be buffered to tell.
    fn lost_extent(&self, data: &[u8], eof: bool) -> Option<Option<usize>> {
        if self.structure_lost {
            return Some(None);
        }
        match skip_element(data, 0) {
            Some(end) if eof || data.len() - end >= 1 => Some(Some(end)),
            None if eof || data.len() >= MAX_EVENT_BYTES => Some(None),
            _ => None,
        }
    }

    /// Counts the element at the start of `data` as lost, up to `end` (or resynchronising).
    fn lost(&mut self, data: &[u8], end: Option<usize>) -> Step {
        let Some(end) = end else {
            self.structure_lost = true;
            return Step::Resync;
        };
        let (start, stop) = (self.base, self.base + end as u64);
        let (l0, l1) = (self.line(data, 0), self.line(data, end));
        self.model.diagnostics.add_n(
            Diag::JsonEventsLost,
            1,
            Some(start),
            Some(self.cur_index),
            || Some(format!("bytes {start}..{stop} (lines {l0}-{l1})")),
        );
        // The lost element ends where `,` or `]` follows: that comma is expected, not extra.
        Step::Done(end, true)
    }

    /// After an element whose brackets never balance again: the next `{` that looks like an
    /// event start (see [`resync`]), found on the stream; the event starts passed over are
    /// counted as `json_events_lost`.
    fn resync_stream(&mut self, inp: &mut Input<'_, '_>) {
        /// Bytes kept across a buffer refill (look-behind and look-ahead of the tests).
        const KEEP: usize = 256;
        let start = inp.offset();
        let first_line = inp.line();
        let mut from = 1; // the search starts after the broken element's first byte
        let mut counted = 0; // boundaries are counted in [counted, …)
        let mut passed = 0u64;
        let at_end = loop {
            let d = inp.data();
            let r = resync(d, from);
            if r < d.len() {
                passed += count_boundaries(d, counted, r);
                inp.consume(r);
                break false;
            }
            if inp.eof() {
                passed += count_boundaries(d, counted, d.len());
                let all = d.len();
                inp.consume(all);
                break true;
            }
            let cut = d.len().saturating_sub(KEEP).max(counted);
            passed += count_boundaries(d, counted, cut);
            let len = d.len();
            inp.consume(cut);
            counted = 0;
            from = len - cut;
            inp.win.more();
        };
        let end = inp.offset();
        let last_line = inp.line();
        // Each skipped event ends at a `}, {` boundary, except a last one at the end.
        let lost = if at_end { passed + 1 } else { passed.max(1) };
        self.model.diagnostics.add_n(
            Diag::JsonEventsLost,
            lost,
            Some(start),
            Some(self.cur_index),
            || {
                Some(format!(
                    "bytes {start}..{end} (lines {first_line}-{last_line})"
                ))
            },
        );
    }

    /// Reads the event object at the start of `data` (strictly, then with the unescaped-quote
    /// repair) and imports it. The object must be followed by `,`, `]` or the end of the data.
    fn event_at(&mut self, data: &[u8], eof: bool) -> Step {
        let mut lx = Lexer::new(data, 0);
        let spare = recycle(std::mem::take(&mut self.spare_args));
        let strict_err = match Ev::parse(&mut lx, spare) {
            Ok(ev) => match lx.peek() {
                None if !eof => {
                    self.spare_args = recycle(ev.arg_list);
                    return Step::More;
                }
                None | Some(b',') | Some(b']') => {
                    self.merge_issues(&lx);
                    self.event(&ev, data, 0);
                    self.spare_args = recycle(ev.arg_list);
                    return Step::Done(lx.pos, true);
                }
                _ => SyntaxError {
                    pos: lx.pos,
                    what: "expected ',' or ']' after an event",
                    eof: false,
                },
            },
            Err(e) => e,
        };
        if strict_err.eof {
            if !eof {
                return Step::More;
            }
            self.merge_issues(&lx);
            let line = self.line(data, 0);
            self.diag(Diag::JsonTruncatedEvent, Some(0), || {
                Some(format!("line {line}"))
            });
            return Step::End;
        }
        // The repair and the search for the element's end look past the error.
        if !eof && data.len() < strict_err.pos.saturating_add(LOOKAHEAD) {
            return Step::More;
        }
        let mut lx2 = Lexer::new(data, 0);
        if let Ok(v) = lx2.value(0, true) {
            let next = lx2.peek();
            if next.is_none() && !eof {
                return Step::More;
            }
            if matches!(next, None | Some(b',') | Some(b']')) {
                self.merge_issues(&lx);
                self.merge_issues(&lx2);
                let line = self.line(data, 0);
                self.diag(Diag::JsonUnescapedQuoteRepaired, Some(0), || {
                    Some(format!("line {line}"))
                });
                let ev = Ev::of_value(&v);
                self.event(&ev, data, 0);
                return Step::Done(lx2.pos, true);
            }
        }
        let Some(lost) = self.lost_extent(data, eof) else {
            return Step::More;
        };
        self.merge_issues(&lx);
        self.merge_issues(&lx2);
        let e = strict_err;
        let line = self.line(data, e.pos);
        self.diag(Diag::JsonSyntaxError, Some(e.pos), || {
            Some(format!("{} at line {line}", e.what))
        });
        self.lost(data, lost)
    }
    // ----- top-level metadata -----------------------------------------------------------

    fn top_level_key(&mut self, key: &[u8], v: &JVal<'_>) {
        let key_s = String::from_utf8_lossy(key).into_owned();
        match key_s.as_str() {
            "distributedInfo" => {
                self.saw_kineto_keys = true;
                if let Some(r) = v.get("rank").and_then(JVal::as_i64) {
                    self.model.info.rank = u32::try_from(r).ok();
                }
                if let Some(w) = v.get("world_size").and_then(JVal::as_i64) {
                    self.model.info.world_size = u32::try_from(w).ok();
                }
                if let Some(b) = v.get("backend").and_then(JVal::as_bytes) {
                    self.model.info.backend = Some(String::from_utf8_lossy(b).into_owned());
                }
                for k in ["nccl_version", "pg_count"] {
                    if let Some(t) = v.get(k).and_then(|x| scalar_text(x)) {
                        self.model
                            .info
                            .metadata
                            .insert(format!("distributedInfo.{k}"), t);
                    }
                }
            }
            "deviceProperties" => {
                self.saw_kineto_keys = true;
                if let JVal::Arr(items, _) = v {
                    self.model
                        .info
                        .metadata
                        .insert("deviceProperties.count".into(), items.len().to_string());
                    for d in items {
                        let id = d.get("id").and_then(JVal::as_i64).unwrap_or(-1);
                        for k in [
                            "name",
                            "totalGlobalMem",
                            "computeMajor",
                            "computeMinor",
                            "numSms",
                        ] {
                            if let Some(t) = d.get(k).and_then(|x| scalar_text(x)) {
                                self.model
                                    .info
                                    .metadata
                                    .insert(format!("device.{id}.{k}"), t);
                            }
                        }
                    }
                }
            }
            "baseTimeNanoseconds" => {
                self.saw_kineto_keys = true;
                self.base_time_ns = v.as_i64();
                if let Some(b) = self
                    .base_time_ns
                    .filter(|b| b.unsigned_abs() > MAX_ABS_TS_NS as u64)
                {
                    // Added to every timestamp: beyond ±2^61 ns it would overflow them.
                    self.diag(Diag::TimestampOutOfRange, None, || {
                        Some(format!("baseTimeNanoseconds {b} was ignored"))
                    });
                    self.base_time_ns = None;
                }
                if let Some(t) = scalar_text(v) {
                    self.model.info.metadata.insert(key_s, t);
                }
            }
            "host_name" | "hostname" => {
                if let Some(b) = v.as_bytes() {
                    self.model.info.hostname = Some(String::from_utf8_lossy(b).into_owned());
                }
            }
            "metadata" | "otherData" => {
                if let JVal::Obj(members, _) = v {
                    for (k, x) in members {
                        if let Some(t) = scalar_text(x) {
                            let k = String::from_utf8_lossy(k);
                            if k == "hostname" || k == "host_name" {
                                self.model.info.hostname = Some(t.clone());
                            }
                            self.model.info.metadata.insert(format!("{key_s}.{k}"), t);
                        }
                    }
                }
            }
            "systemTraceEvents" | "stackFrames" | "samples" => {
                self.diag(Diag::JsonSectionNotModelled, None, || {
                    Some(format!("\"{key_s}\""))
                });
            }
            _ => {
                if matches!(
                    key_s.as_str(),
                    "schemaVersion" | "traceName" | "profile_memory"
                ) {
                    self.saw_kineto_keys = true;
                }
                if let Some(t) = scalar_text(v) {
                    self.model.info.metadata.insert(key_s, t);
                }
            }
        }
    }

    // ----- events -----------------------------------------------------------------------

    /// Imports one event read from buffer `d` at position `offset`.
    fn event(&mut self, e: &Ev<'_>, d: &[u8], offset: usize) {
        if e.members == 0 {
            // JAX/TSL end their array with `{}`; Perfetto skips these silently.
            return;
        }
        self.events += 1;
        self.model.stats.events += 1;
        let Some(ph) = e.ph else {
            self.diag(Diag::EventWithoutPhase, Some(offset), || None);
            return;
        };
        match ph {
            b'M' => self.metadata_event(e, d, offset),
            b'B' | b'E' | b'X' | b'i' | b'I' | b'R' | b'b' | b'e' | b'n' | b'S' | b'F' | b'C' => {
                self.timed_event(ph, e, d, offset)
            }
            b's' | b't' | b'f' => {
                self.diag(Diag::FlowEventNotModelled, Some(offset), || None);
            }
            _ => {
                let kind = phase_not_modelled(ph);
                self.diag(kind, Some(offset), || {
                    (kind == Diag::PhaseUnknownNotModelled).then(|| format!("ph {:?}", ph as char))
                });
            }
        }
    }

    /// The event's `args` (or `id2`) value built, for the rare events that look members up
    /// (metadata, counters, memory): `None` when absent or past the node budget (counted).
    fn built<'d>(
        &mut self,
        sp: Option<Span>,
        repair: bool,
        d: &'d [u8],
        offset: usize,
    ) -> Option<JVal<'d>> {
        let sp = sp?;
        if !sp.obj {
            return Some(JVal::Null);
        }
        if sp.nodes > MAX_JSON_NODES_PER_EVENT {
            self.diag(Diag::JsonArgsOverLimit, Some(offset), || {
                Some(format!(
                    "{} JSON nodes (limit MAX_JSON_NODES_PER_EVENT = {MAX_JSON_NODES_PER_EVENT}); all args dropped",
                    sp.nodes
                ))
            });
            return None;
        }
        let mut lx = Lexer::new(d, sp.a);
        lx.value(1, repair).ok()
    }
    fn pid_of(&mut self, v: Option<&JVal<'_>>, d: &[u8]) -> Option<i64> {
        match v? {
            JVal::Str(s) => Some(self.string_id(s, true)),
            other => other
                .as_i64()
                .or_else(|| self.non_integer_id(other, d, true)),
        }
    }

    /// A pid/tid that is neither an integer nor a string (`1.5`, `true`, `[1]`): reported, and
    /// kept distinct by mapping its text like a string id (`null` stays "missing").
    fn non_integer_id(&mut self, v: &JVal<'_>, d: &[u8], pid: bool) -> Option<i64> {
        let text: Cow<'_, [u8]> = match v {
            JVal::Null => return None,
            JVal::Num(t) => Cow::Borrowed(t),
            JVal::Bool(b) => Cow::Borrowed(if *b { b"true" } else { b"false" }),
            JVal::Str(s) => Cow::Borrowed(&s[..]),
            JVal::Arr(_, (a, b)) | JVal::Obj(_, (a, b)) => Cow::Borrowed(&d[*a..*b]),
        };
        let at = match v {
            JVal::Arr(_, (a, _)) | JVal::Obj(_, (a, _)) => Some(*a),
            _ => None,
        };
        self.diag(Diag::PidTidNotInteger, at, || {
            Some(format!(
                "{} {}",
                if pid { "pid" } else { "tid" },
                String::from_utf8_lossy(&text[..text.len().min(64)])
            ))
        });
        Some(self.string_id(&text, pid))
    }

    fn string_id(&mut self, s: &[u8], pid: bool) -> i64 {
        let map = if pid {
            &mut self.string_pids
        } else {
            &mut self.string_tids
        };
        if let Some(&id) = map.get(s) {
            return id;
        }
        self.next_string_id -= 1;
        let id = self.next_string_id;
        map.insert(s.to_vec(), id);
        if pid {
            self.string_pid_names.insert(id, s.to_vec());
        }
        id
    }

    /// (pid, tid) of an event with Perfetto's defaults.
    fn pid_tid(&mut self, e: &Ev<'_>, d: &[u8]) -> (i64, i64) {
        let pid = self.pid_of(e.pid.as_ref(), d).unwrap_or(0);
        let tid = match &e.tid {
            Some(JVal::Str(s)) => self.string_id(s, false),
            Some(t) => t
                .as_i64()
                .or_else(|| self.non_integer_id(t, d, false))
                .unwrap_or(0),
            None => 0,
        };
        let tid = if tid == 0 && pid != 0 { pid } else { tid };
        (pid, tid)
    }

    fn ensure_process(&mut self, pid: i64) {
        if self.model.processes.contains_key(&pid) {
            return;
        }
        let mut info = ProcessInfo::default();
        if let Some(s) = self.string_pid_names.get(&pid) {
            let s = s.clone();
            info.name = self.intern_abs(&s, 0);
        }
        self.model.processes.insert(pid, info);
    }

    fn thread_track(&mut self, pid: i64, tid: i64) -> TrackId {
        let got = self.tracker.thread(self.model, pid, tid);
        if got.created {
            self.ensure_process(pid);
        }
        got.id
    }

    fn process_track(&mut self, pid: i64) -> TrackId {
        let got = self.tracker.process(self.model, pid);
        if got.created {
            self.ensure_process(pid);
        }
        got.id
    }

    /// The frame of (name, cat) (see `frame_for`), cached per name.
    fn frame_cached(&mut self, name: StrId, cat: StrId) -> FrameId {
        let i = name.0 as usize;
        if let Some(&(c, f)) = self.frame_cache.get(i) {
            if c == cat.0 {
                return f;
            }
        }
        let frame = self.frame_for(name, cat);
        if self.frame_cache.len() <= i {
            self.frame_cache.resize(i + 1, (u32::MAX, FrameId(0)));
        }
        self.frame_cache[i] = (cat.0, frame);
        frame
    }

    /// [`is_compile_slice`] of (name, cat), cached per name.
    fn compile_cached(&mut self, name: StrId, cat: StrId) -> bool {
        let i = name.0 as usize;
        if let Some(&(c, comp)) = self.compile_cache.get(i) {
            if c == cat.0 {
                return comp;
            }
        }
        let comp = is_compile_slice(self.model.str(name), self.model.str(cat));
        if self.compile_cache.len() <= i {
            self.compile_cache.resize(i + 1, (u32::MAX, false));
        }
        self.compile_cache[i] = (cat.0, comp);
        comp
    }

    fn frame_for(&mut self, name: StrId, cat: StrId) -> FrameId {
        let cached = self
            .frame_cat
            .get(cat.0 as usize)
            .copied()
            .filter(|&c| c != u32::MAX);
        let fcat = match cached {
            Some(c) => StrId(c),
            None => {
                let raw = self.model.str(cat);
                let mut parts: Vec<&str> = raw
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect();
                parts.sort_unstable();
                parts.dedup();
                let joined = parts.join(",");
                let id = self.model.strings.intern(&joined);
                let i = cat.0 as usize;
                if self.frame_cat.len() <= i {
                    self.frame_cat.resize(i + 1, u32::MAX);
                }
                self.frame_cat[i] = id.0;
                id
            }
        };
        let mut key = FrameKey::named(Provider::ChromeJson, name, fcat);
        let nm = self.model.str(name);
        if cat == self.python_cat || nm.starts_with('$') {
            if let Some((file, line, func)) = parse_python_frame(nm) {
                let file = normalize_path(file);
                let func = func.to_string();
                key.file = Some(self.model.strings.intern(&file));
                key.line = Some(line);
                key.function = Some(self.model.strings.intern(&func));
            }
        }
        self.model.frames.intern(key, &self.model.strings)
    }

    /// Whether the name or category `id` carries a collective token (cached per id).
    fn is_collective(&mut self, id: StrId) -> bool {
        let i = id.0 as usize;
        match self.collective.get(i) {
            Some(1) => false,
            Some(2) => true,
            _ => {
                let c = has_collective_token(self.model.str(id));
                if self.collective.len() <= i {
                    self.collective.resize(i + 1, 0);
                }
                self.collective[i] = 1 + u8::from(c);
                c
            }
        }
    }

    fn flags_for(&mut self, name: StrId, cat: StrId, args: &[(StrId, ArgValue)]) -> u8 {
        let mut flags = 0;
        let coll = self.is_collective(name);
        let coll_cat = self.is_collective(cat);
        let coll_arg = args.iter().any(|(k, v)| {
            self.model.str(*k) == "Collective name"
                || matches!(v, ArgValue::Str(s) if self.model.str(*k) == "Process Group Name" && !self.model.str(*s).is_empty())
        });
        if coll || coll_cat || coll_arg {
            flags |= slice_flags::COLLECTIVE;
        }
        if self.compile_cached(name, cat) {
            flags |= slice_flags::COMPILE;
        }
        flags
    }

    /// The event's `args` members as model arguments (read on the first pass, no value tree):
    /// scalars converted, nested arrays/objects kept as their text; members past the budget
    /// were skipped unbuilt and are counted here (`json_args_over_limit`).
    fn args_of(&mut self, e: &Ev<'_>, d: &[u8], offset: usize) -> Vec<(StrId, ArgValue)> {
        if !e.args.is_some_and(|s| s.obj) {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(e.arg_list.len());
        for (k, x) in &e.arg_list {
            let key = self.intern(k, offset);
            let val = match x {
                JVal::Null => continue,
                JVal::Bool(b) => ArgValue::Bool(*b),
                JVal::Num(t) => num_arg(t),
                JVal::Str(s) => ArgValue::Str(self.intern(s, offset)),
                JVal::Arr(_, (a, b)) | JVal::Obj(_, (a, b)) => {
                    ArgValue::Text(String::from_utf8_lossy(&d[*a..*b]).into_owned())
                }
            };
            out.push((key, val));
        }
        if let Some(limit) = e.args_limit {
            let (dropped, kept) = (e.args_dropped, out.len());
            self.diag(Diag::JsonArgsOverLimit, Some(offset), || {
                Some(format!(
                    "{dropped} args dropped after {kept} kept: past {limit} (members {MAX_ARGS_PER_EVENT}, nodes {MAX_JSON_NODES_PER_EVENT}, bytes {MAX_ARG_BYTES_PER_EVENT})"
                ))
            });
        }
        out
    }

    fn ts_of(&mut self, e: &Ev<'_>, offset: usize) -> Option<i64> {
        let text = match e.ts.as_ref() {
            Some(JVal::Num(t)) => Some(*t),
            Some(JVal::Str(s)) => Some(&s[..]),
            _ => None,
        };
        match text.map(lexer::us_text_to_ns_checked) {
            Some(Ok(t)) if (-MAX_ABS_TS_NS..=MAX_ABS_TS_NS).contains(&t) => Some(t),
            Some(Ok(t)) => {
                self.diag(Diag::TimestampOutOfRange, Some(offset), || {
                    Some(format!("{t} ns"))
                });
                None
            }
            Some(Err(lexer::NsTextError::OutOfRange)) => {
                let t = text.unwrap_or_default();
                self.diag(Diag::TimestampOutOfRange, Some(offset), || {
                    Some(format!(
                        "{} µs",
                        String::from_utf8_lossy(&t[..t.len().min(64)])
                    ))
                });
                None
            }
            _ => {
                self.diag(Diag::EventInvalidTimestamp, Some(offset), || None);
                None
            }
        }
    }

    fn timed_event(&mut self, ph: u8, e: &Ev<'_>, d: &[u8], offset: usize) {
        let Some(ts) = self.ts_of(e, offset) else {
            return;
        };
        if ph == b'C' {
            self.counter_event(e, ts, d, offset);
            return;
        }
        let name = match &e.name {
            Some(n) => self.intern(n, offset),
            None => StrId(0),
        };
        let cat = match &e.cat {
            Some(c) => self.intern(c, offset),
            None => StrId(0),
        };
        if name == self.memory_name && matches!(ph, b'i' | b'I') {
            self.memory_event(e, ts, d, offset);
            return;
        }
        let (pid, tid) = self.pid_tid(e, d);
        let args_v = self.args_of(e, d, offset);
        let flags = self.flags_for(name, cat, &args_v);
        let args = self.model.args.add(args_v);
        match ph {
            b'X' => {
                let Some(dur) = e.dur.as_ref().and_then(time_ns) else {
                    self.diag(Diag::CompleteEventInvalidDuration, Some(offset), || None);
                    return;
                };
                if dur < 0 {
                    self.diag(Diag::SliceNegativeDuration, Some(offset), || {
                        Some(format!("{dur} ns"))
                    });
                    return;
                }
                if dur > MAX_PLAUSIBLE_DUR_NS || ts.checked_add(dur).is_none() {
                    self.diag(Diag::SliceAbsurdDuration, Some(offset), || {
                        Some(format!("{dur} ns"))
                    });
                    return;
                }
                let track = self.thread_track(pid, tid);
                let frame = self.frame_cached(name, cat);
                self.builder
                    .complete(track, ts, dur, name, cat, frame, args, flags);
            }
            b'B' => {
                let track = self.thread_track(pid, tid);
                let frame = self.frame_cached(name, cat);
                self.builder.begin(track, ts, name, cat, frame, args, flags);
            }
            b'E' => {
                let track = self.thread_track(pid, tid);
                let n = (name.0 != 0).then_some(name);
                self.builder.end(track, ts, n, args);
            }
            b'i' | b'I' | b'R' => {
                let scope =
                    e.s.as_ref()
                        .and_then(|s| s.first().copied())
                        .unwrap_or(b't');
                let track = match scope {
                    b'g' => self.tracker.global(self.model),
                    b'p' => self.process_track(pid),
                    _ => self.thread_track(pid, tid),
                };
                let frame = self.frame_cached(name, cat);
                self.builder
                    .instant(track, ts, name, cat, frame, args, flags);
            }
            _ => {
                // b / e / n and legacy S / F: async tracks.
                let Some((scope, id)) = self.async_id(e, pid, d, offset) else {
                    self.diag(Diag::AsyncEventWithoutId, Some(offset), || None);
                    return;
                };
                let scope_name = match &e.scope {
                    Some(s) => self.intern(s, offset),
                    None => StrId(0),
                };
                let pid = match scope {
                    AsyncScope::Process(p) => Some(p),
                    AsyncScope::Global => None,
                };
                let key = (scope, cat, id, scope_name);
                let got = self.tracker.async_track(self.model, key, name, pid);
                if let (true, Some(p)) = (got.created, pid) {
                    self.ensure_process(p);
                }
                let track = got.id;
                match ph {
                    b'b' | b'S' => {
                        let frame = self.frame_cached(name, cat);
                        self.builder.begin(track, ts, name, cat, frame, args, flags);
                    }
                    b'e' | b'F' => {
                        let n = (name.0 != 0).then_some(name);
                        self.builder.end(track, ts, n, args);
                    }
                    _ => {
                        let frame = self.frame_cached(name, cat);
                        self.builder
                            .instant(track, ts, name, cat, frame, args, flags);
                    }
                }
            }
        }
    }

    fn async_id(
        &mut self,
        e: &Ev<'_>,
        pid: i64,
        d: &[u8],
        offset: usize,
    ) -> Option<(AsyncScope, Vec<u8>)> {
        if let Some(JVal::Obj(m, _)) = self.built(e.id2, e.repair, d, offset) {
            // `{"local": x}` or `{"global": x}` (any other key counts as global, as Perfetto).
            if let Some((k, v)) = m.first() {
                let text = id_text(v)?;
                let global = &k[..] != b"local";
                let mut key = if global {
                    b"g:".to_vec()
                } else {
                    b"l:".to_vec()
                };
                key.extend_from_slice(&text);
                let scope = if global {
                    AsyncScope::Global
                } else {
                    AsyncScope::Process(pid)
                };
                return Some((scope, key));
            }
            return None;
        }
        let text = id_text(e.id.as_ref()?)?;
        let mut key = b"i:".to_vec();
        key.extend_from_slice(&text);
        Some((AsyncScope::Process(pid), key))
    }

    fn counter_event(&mut self, e: &Ev<'_>, ts: i64, d: &[u8], offset: usize) {
        let pid = self.pid_of(e.pid.as_ref(), d).unwrap_or(0);
        let base = String::from_utf8_lossy(e.name.as_deref().unwrap_or(b"")).into_owned();
        let id = e.id.as_ref().and_then(id_text);
        let Some(JVal::Obj(members, _)) = self.built(e.args, e.repair, d, offset) else {
            self.diag(Diag::CounterWithoutValues, Some(offset), || None);
            return;
        };
        for (k, v) in &members {
            let Some(value) = number_of(v) else {
                self.diag(Diag::CounterValueNotNumeric, Some(offset), || {
                    Some(format!(
                        "counter {base:?} arg {:?}",
                        String::from_utf8_lossy(k)
                    ))
                });
                continue;
            };
            let key = String::from_utf8_lossy(k);
            let series = match &id {
                Some(id) => {
                    let id = String::from_utf8_lossy(id);
                    if key == "value" {
                        format!("{base}[{id}]")
                    } else {
                        format!("{base}[{id}] {key}")
                    }
                }
                None => format!("{base} {key}"),
            };
            let sid = self.intern(series.as_bytes(), offset);
            self.push_counter(pid, sid, ts, value);
        }
    }

    fn push_counter(&mut self, pid: i64, name: StrId, ts: i64, value: f64) {
        if !self.counters.contains_key(&(pid, name)) {
            self.ensure_process(pid);
            let track = self
                .tracker
                .counter(self.model, name, Some(pid), None, None);
            self.counters.insert(
                (pid, name),
                CounterAcc {
                    track,
                    samples: Vec::new(),
                },
            );
        }
        if let Some(acc) = self.counters.get_mut(&(pid, name)) {
            acc.samples.push((ts, value));
        }
    }

    fn memory_event(&mut self, e: &Ev<'_>, ts: i64, d: &[u8], offset: usize) {
        let pid = self.pid_of(e.pid.as_ref(), d);
        let args = self.built(e.args, e.repair, d, offset);
        let args = args.as_ref();
        let num = |k: &str| args.and_then(|a| a.get(k)).and_then(number_of);
        let dev_type = num("Device Type").map(|v| v as i64);
        let dev_id = num("Device Id").map(|v| v as i64).unwrap_or(-1);
        let device = match dev_type {
            Some(0) | None if dev_id < 0 => "cpu".to_string(),
            Some(0) => "cpu".to_string(),
            Some(1) => format!("cuda:{}", dev_id.max(0)),
            Some(t) => format!("device{t}:{dev_id}"),
            None => format!("cuda:{dev_id}"),
        };
        let acc = self.memory.entry(device).or_default();
        if acc.pid.is_none() {
            acc.pid = pid;
        }
        let alloc = num("Total Allocated");
        if let Some(a) = alloc {
            acc.allocated.push((ts, a));
            if let Some(r) = num("Total Reserved") {
                acc.reserved.push((ts, r));
            }
        } else if let Some(b) = num("Bytes") {
            acc.deltas.push((ts, b));
        } else {
            self.diag(Diag::MemoryEventWithoutSizes, Some(offset), || None);
        }
    }

    fn metadata_event(&mut self, e: &Ev<'_>, d: &[u8], offset: usize) {
        let (pid, tid) = self.pid_tid(e, d);
        let args = self.built(e.args, e.repair, d, offset);
        let name: &[u8] = e.name.as_deref().unwrap_or(b"");
        let arg = |k: &str| args.as_ref().and_then(|a| a.get(k));
        match name {
            b"process_name" => {
                self.ensure_process(pid);
                if let Some(n) = arg("name").and_then(JVal::as_bytes) {
                    let id = self.intern(n, offset);
                    if let Some(p) = self.model.processes.get_mut(&pid) {
                        p.name = id;
                    }
                }
            }
            b"process_labels" => {
                self.ensure_process(pid);
                if let Some(n) = arg("labels").and_then(JVal::as_bytes) {
                    let labels: Vec<StrId> = String::from_utf8_lossy(n)
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .map(|s| self.model.strings.intern(&s))
                        .collect();
                    if let Some(p) = self.model.processes.get_mut(&pid) {
                        p.labels = labels;
                    }
                }
            }
            b"process_sort_index" => {
                self.ensure_process(pid);
                let v = arg("sort_index").and_then(JVal::as_i64);
                if let Some(p) = self.model.processes.get_mut(&pid) {
                    p.sort_index = v;
                }
            }
            b"thread_name" => {
                if let Some(n) = arg("name").and_then(JVal::as_bytes) {
                    let id = self.intern(n, offset);
                    self.thread_track(pid, tid);
                    let entry = self
                        .thread_names
                        .entry((pid, tid))
                        .or_insert((StrId(0), None));
                    entry.0 = id;
                }
            }
            b"thread_sort_index" => {
                let v = arg("sort_index").and_then(JVal::as_i64);
                let entry = self
                    .thread_names
                    .entry((pid, tid))
                    .or_insert((StrId(0), None));
                entry.1 = v;
            }
            b"num_cpus" => {
                if let Some(t) = arg("number").and_then(scalar_text) {
                    self.model.info.metadata.insert("num_cpus".into(), t);
                }
            }
            _ => {
                self.diag(Diag::MetadataEventNotModelled, Some(offset), || {
                    Some(format!("{:?}", String::from_utf8_lossy(name)))
                });
            }
        }
    }

    fn flush_lexer_issues(&mut self) {
        let kinds = [
            Diag::JsonControlCharInString,
            Diag::JsonInvalidEscape,
            Diag::JsonExtraCommaInValue,
            Diag::JsonNonFiniteNumber,
            Diag::JsonLoneSurrogateEscape,
        ];
        for (kind, (n, first)) in kinds.into_iter().zip(self.issues) {
            self.model
                .diagnostics
                .add_n(kind, n, first.map(|(p, _)| p), None, || {
                    first.map(|(_, line)| format!("first at line {line}"))
                });
        }
    }

    // ----- finishing --------------------------------------------------------------------

    fn finish(mut self) {
        let builder = std::mem::take(&mut self.builder);
        builder.finish(self.model);
        // Counters.
        let counters = std::mem::take(&mut self.counters);
        for ((pid, name), acc) in counters {
            self.push_series(acc.track, name, StrId(0), Some(pid), acc.samples);
        }
        let memory = std::mem::take(&mut self.memory);
        let bytes = self.model.strings.intern("bytes");
        let mut reconstructed = 0u64;
        for (device, mut acc) in memory {
            if !acc.deltas.is_empty() {
                reconstructed += acc.deltas.len() as u64;
                acc.deltas.sort_by_key(|s| s.0);
                let mut sum = 0.0;
                // Allocations recorded with totals come first in the same series; 2021-schema
                // deltas are only used when no totals exist for the device.
                if acc.allocated.is_empty() {
                    for (ts, b) in acc.deltas {
                        sum += b;
                        acc.allocated.push((ts, sum));
                    }
                }
            }
            for (suffix, samples) in [("allocated", acc.allocated), ("reserved", acc.reserved)] {
                if samples.is_empty() {
                    continue;
                }
                let name = self.model.strings.intern(&format!("{device} {suffix}"));
                let track = self.tracker.counter(self.model, name, acc.pid, None, None);
                self.push_series(track, name, bytes, acc.pid, samples);
            }
        }
        if reconstructed > 0 {
            self.model.diagnostics.add_n(
                Diag::MemoryTotalReconstructed,
                reconstructed,
                None,
                None,
                || None,
            );
        }
        // Kineto base time: everything onto the Unix-epoch ns timeline — unless that would put
        // a time beyond ±2^61 ns (the bound every timestamp is held to), when the base is
        // ignored and the times stay relative, counted.
        let beyond = |t: i64, base: i64| {
            t.checked_add(base)
                .is_none_or(|v| v.unsigned_abs() > MAX_ABS_TS_NS as u64)
        };
        if let Some(base) = self.base_time_ns {
            let n = self
                .model
                .slices
                .ts_ns
                .iter()
                .filter(|&&t| beyond(t, base))
                .count()
                + self
                    .model
                    .counters
                    .iter()
                    .map(|c| c.ts_ns.iter().filter(|&&t| beyond(t, base)).count())
                    .sum::<usize>();
            if n > 0 {
                self.model
                    .diagnostics
                    .add(Diag::TimestampOutOfRange, None, None, || {
                        Some(format!(
                            "baseTimeNanoseconds {base} was ignored: added, it would put {n} \
                         timestamps beyond ±2^61 ns"
                        ))
                    });
                self.base_time_ns = None;
            }
        }
        if let Some(base) = self.base_time_ns {
            for t in self.model.slices.ts_ns.iter_mut() {
                *t = t.saturating_add(base);
            }
            for c in &mut self.model.counters {
                for t in &mut c.ts_ns {
                    *t = t.saturating_add(base);
                }
            }
        }
        // Threads: names onto tracks; the threads table keyed by tid (first pid wins).
        let mut tid_owner: BTreeMap<i64, i64> = BTreeMap::new();
        let mut keys: Vec<(i64, i64)> = self.tracker.thread_keys().collect();
        keys.sort_unstable();
        for &(pid, tid) in &keys {
            tid_owner.entry(tid).or_insert(pid);
        }
        let mut overflow_lanes: HashMap<TrackId, Vec<usize>> = HashMap::new();
        for (i, t) in self.model.tracks.iter().enumerate() {
            if let Some(of) = t.overflow_of {
                overflow_lanes.entry(of).or_default().push(i);
            }
        }
        let tid_strings: HashMap<i64, Vec<u8>> = self
            .string_tids
            .iter()
            .map(|(s, &id)| (id, s.clone()))
            .collect();
        for &(pid, tid) in &keys {
            let (mut name, sort) = self
                .thread_names
                .get(&(pid, tid))
                .copied()
                .unwrap_or((StrId(0), None));
            if name.0 == 0 {
                if let Some(s) = tid_strings.get(&tid) {
                    name = self.intern_abs(s, 0);
                }
            }
            let owner = tid_owner.get(&tid).copied() == Some(pid);
            if let Some(track) = self.tracker.find_thread(pid, tid) {
                let label = if name.0 != 0 {
                    name
                } else if !owner {
                    self.model.strings.intern(&format!("thread {tid}"))
                } else {
                    StrId(0)
                };
                self.model.tracks[track.0 as usize].name = label;
                if let Some(lanes) = overflow_lanes.get(&track) {
                    for &i in lanes {
                        self.model.tracks[i].name = label;
                    }
                }
            }
            if owner {
                self.model.threads.insert(
                    tid,
                    ThreadInfo {
                        pid: Some(pid),
                        name,
                        sort_index: sort,
                    },
                );
            }
        }
        // Host and rank from the file name when the trace does not say.
        let jax_like = self.model.processes.values().any(|p| {
            let n = self.model.str(p.name);
            n.starts_with("/host:") || n.starts_with("/device:")
        });
        if self.model.info.hostname.is_none() && jax_like {
            self.model.info.hostname = hostname_from_file_name(self.file_name);
        }
        if self.model.info.rank.is_none() && self.saw_kineto_keys {
            match rank_from_file_name(self.file_name) {
                Some(r) => {
                    self.model.info.rank = Some(r);
                    self.model
                        .diagnostics
                        .add(Diag::RankFromFileName, None, None, || {
                            Some(format!("rank {r}"))
                        });
                }
                None => {
                    self.model
                        .diagnostics
                        .add(Diag::RankUnknown, None, None, || None);
                }
            }
        }
    }

    fn push_series(
        &mut self,
        track: TrackId,
        name: StrId,
        unit: StrId,
        pid: Option<i64>,
        mut samples: Vec<(i64, f64)>,
    ) {
        samples.sort_by_key(|s| s.0);
        self.model.counters.push(CounterSeries {
            track,
            name,
            unit,
            pid,
            ts_ns: samples.iter().map(|s| s.0).collect(),
            value: samples.iter().map(|s| s.1).collect(),
        });
    }
}

/// The diagnostic kind counting events of phase `ph`, which the importer does not model: one
/// kind per phase of trace-formats.md §8.3, and one for bytes that are no phase at all.
fn phase_not_modelled(ph: u8) -> Diag {
    match ph {
        b'T' => Diag::PhaseTNotModelled,
        b'p' => Diag::PhaseLowerPNotModelled,
        b'N' => Diag::PhaseNNotModelled,
        b'O' => Diag::PhaseONotModelled,
        b'D' => Diag::PhaseDNotModelled,
        b'P' => Diag::PhasePNotModelled,
        b'V' => Diag::PhaseVNotModelled,
        b'v' => Diag::PhaseLowerVNotModelled,
        b'c' => Diag::PhaseLowerCNotModelled,
        b'(' => Diag::PhaseContextEnterNotModelled,
        b')' => Diag::PhaseContextLeaveNotModelled,
        _ => Diag::PhaseUnknownNotModelled,
    }
}

/// `ts`/`dur` value → ns (numbers and numeric strings; see [`us_text_to_ns`]).
fn time_ns(v: &JVal<'_>) -> Option<i64> {
    match v {
        JVal::Num(t) => us_text_to_ns(t),
        JVal::Str(s) => us_text_to_ns(s),
        _ => None,
    }
}

fn id_text(v: &JVal<'_>) -> Option<Vec<u8>> {
    match v {
        JVal::Num(t) => Some(t.to_vec()),
        JVal::Str(s) => Some(s.to_vec()),
        JVal::Bool(b) => Some(if *b {
            b"true".to_vec()
        } else {
            b"false".to_vec()
        }),
        _ => None,
    }
}

/// Text of a scalar (strings as written, numbers as written, booleans), at most 256 bytes.
fn scalar_text(v: &JVal<'_>) -> Option<String> {
    let t: Cow<'_, [u8]> = match v {
        JVal::Num(t) => Cow::Borrowed(t),
        JVal::Str(s) => Cow::Borrowed(&s[..]),
        JVal::Bool(b) => Cow::Borrowed(if *b { b"true" } else { b"false" }),
        _ => return None,
    };
    let s = String::from_utf8_lossy(&t[..t.len().min(256)]).into_owned();
    Some(s)
}

/// A numeric `args` value: i64, else u64, else f64; integers beyond 64 bits and unparsable
/// number text are kept verbatim as [`ArgValue::Text`].
fn num_arg(t: &[u8]) -> ArgValue {
    // The common case first: a plain integer of up to 18 digits (no UTF-8 check, no overflow).
    let (neg, digits) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    if !digits.is_empty() && digits.len() <= 18 && digits.iter().all(u8::is_ascii_digit) {
        let v = digits
            .iter()
            .fold(0i64, |v, &c| v * 10 + i64::from(c - b'0'));
        return ArgValue::Int(if neg { -v } else { v });
    }
    let s = String::from_utf8_lossy(t);
    let integral = !t.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'));
    if integral {
        if let Ok(v) = s.parse::<i64>() {
            return ArgValue::Int(v);
        }
        if let Ok(v) = s.parse::<u64>() {
            return ArgValue::UInt(v);
        }
        return ArgValue::Text(s.into_owned());
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => ArgValue::Double(f),
        _ => ArgValue::Text(s.into_owned()),
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The end of the (possibly broken) array element starting at `start`: the position of the first
/// `,` or `]` after it at the level of the event array (or a `{` there that starts the next
/// element without a comma), found by tracking strings (with escapes)
/// and a stack of open brackets (a closer pops up to its opener, a closer without one is
/// ignored). `None` when the data ends inside the element.
fn skip_element(data: &[u8], start: usize) -> Option<usize> {
    let mut open: Vec<u8> = Vec::new();
    let mut i = start;
    while i < data.len() {
        match data[i] {
            b'"' => {
                i += 1;
                while i < data.len() && data[i] != b'"' {
                    i += if data[i] == b'\\' { 2 } else { 1 };
                }
            }
            // An element starting at the array's level without a comma before it (`} {`).
            b'{' if open.is_empty() && i > start => return Some(i),
            c @ (b'{' | b'[') => open.push(c),
            c @ (b'}' | b']') => {
                let opener = if c == b'}' { b'{' } else { b'[' };
                if let Some(k) = open.iter().rposition(|&o| o == opener) {
                    open.truncate(k);
                } else if open.is_empty() && c == b']' {
                    return Some(i);
                }
            }
            b',' if open.is_empty() => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// `}` event boundaries (see [`lexer::event_boundary`]) at positions `from..to` of `d`.
fn count_boundaries(d: &[u8], from: usize, to: usize) -> u64 {
    (from..to)
        .filter(|&i| d[i] == b'}' && lexer::event_boundary(d, i))
        .count() as u64
}

/// Skips the element at the start of the stream without buffering it (strings and bracket
/// depth tracked across refills), up to the `,` or `]` that ends it at the array's level (or
/// a `{` there that starts the next element); returns the stream offset where it ended.
fn skip_unbuffered(inp: &mut Input<'_, '_>) -> u64 {
    let mut depth: u64 = 0;
    let mut in_str = false;
    let mut escaped = false;
    let mut started = false;
    loop {
        let d = inp.data();
        let mut stop = None;
        for (i, &c) in d.iter().enumerate() {
            if in_str {
                if escaped {
                    escaped = false;
                } else if c == b'\\' {
                    escaped = true;
                } else if c == b'"' {
                    in_str = false;
                }
                continue;
            }
            match c {
                b'"' => in_str = true,
                b'{' if depth == 0 && started => {
                    stop = Some(i);
                    break;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    if depth == 0 {
                        stop = Some(i);
                        break;
                    }
                    depth -= 1;
                }
                b',' if depth == 0 => {
                    stop = Some(i);
                    break;
                }
                _ => {}
            }
            started = true;
        }
        match stop {
            Some(i) => {
                inp.consume(i);
                return inp.offset();
            }
            None => {
                let n = d.len();
                inp.consume(n);
                if !inp.win.more() {
                    return inp.offset();
                }
            }
        }
    }
}

/// After a broken event: the next `{` that starts an event — preceded (ignoring white space) by
/// `[`, or by `,` which itself follows `}`. Returns the data length when there is none.
fn resync(data: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < data.len() {
        if data[i] == b'{' {
            let mut j = i;
            while j > 0 && data[j - 1].is_ascii_whitespace() {
                j -= 1;
            }
            if j > 0 && data[j - 1] == b'[' {
                return i;
            }
            if j > 0 && data[j - 1] == b',' {
                let mut k = j - 1;
                while k > 0 && data[k - 1].is_ascii_whitespace() {
                    k -= 1;
                }
                if k > 0 && data[k - 1] == b'}' {
                    return i;
                }
            }
        }
        i += 1;
    }
    data.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(json: &str) -> Model {
        let mut m = Model::default();
        import(json.as_bytes(), "t.json", &mut m, &mut |_| {}).unwrap();
        m
    }

    /// The top-level `traceEvents` member is found wherever the object has it, read in reads of
    /// any size, and not where it is no top-level key; `cap` stops the search.
    #[test]
    fn top_level_trace_events_member() {
        let pad = "x".repeat(70_000);
        let cases: &[(String, bool)] = &[
            (format!(r#"{{"otherData":"{pad}","traceEvents":[]}}"#), true),
            (
                format!("\u{feff} \n{{ \"a\" : [1,{{\"b\":\"{pad}\"}}] ,\n \"traceEvents\"\t: ["),
                true,
            ),
            // Quotes and backslashes in strings before it.
            (r#"{"a":"q\"x\\","traceEvents":[]}"#.to_string(), true),
            // Not a top-level key: nested, a value, a longer or shorter key, escaped.
            (r#"{"a":{"traceEvents":[]}}"#.to_string(), false),
            (
                r#"{"a":"traceEvents","b":["traceEvents"]}"#.to_string(),
                false,
            ),
            (r#"{"traceEventsX":[],"traceEvent":[]}"#.to_string(), false),
            (r#"{"trace\u0045vents":[]}"#.to_string(), false),
            (r#"{"records":[{"cell":"c"}]}"#.to_string(), false),
            (r#"{"records":[],"traceEvents":[]}"#.to_string(), false),
            (
                r#"{"a":1,"records" : {},"traceEvents":[]}"#.to_string(),
                false,
            ),
            (r#"{"recordsX":[],"traceEvents":[]}"#.to_string(), true),
            (r#"[{"traceEvents":[]}]"#.to_string(), false),
            // After the object's end, or the key without its colon.
            (r#"{"a":1} {"traceEvents":[]}"#.to_string(), false),
            (r#"{"traceEvents""#.to_string(), false),
        ];
        for (text, want) in cases {
            for chunk in [1, 7, 65_536, text.len().max(1)] {
                let src = crate::formats::Chunked {
                    bytes: text.as_bytes(),
                    chunk,
                };
                let (_, mut win) = crate::formats::stream::open(&src, u64::MAX, false).unwrap();
                let got = TopLevelScan::default().finish(&mut win, u64::MAX);
                let head: String = text.chars().take(60).collect();
                assert_eq!(got, *want, "{head:?}, reads of {chunk}");
            }
        }
        let late = format!(r#"{{"otherData":"{pad}","traceEvents":[]}}"#);
        let src = crate::formats::Chunked {
            bytes: late.as_bytes(),
            chunk: 4096,
        };
        let (_, mut win) = crate::formats::stream::open(&src, u64::MAX, false).unwrap();
        assert!(!TopLevelScan::default().finish(&mut win, 1 << 10));
        assert!(win.offset() < 10_000, "{}", win.offset());
        assert!(!TopLevelScan::default().finish(&mut Window::from_bytes(b""), u64::MAX));
        // Decided within a head: JSON Lines (the first object ends), undecided inside one.
        let mut scan = TopLevelScan::default();
        assert_eq!(
            scan.feed(b"{\"cell\":\"c\"}\n{\"traceEvents\":[]}"),
            Some(false)
        );
        let mut scan = TopLevelScan::default();
        assert_eq!(scan.feed(b"{\"a\":\"trace"), None);
        assert_eq!(scan.feed(b"Events\",\"traceEv"), None);
        assert_eq!(scan.feed(b"ents\"  :"), Some(true));
    }

    #[test]
    fn exact_big_timestamps_and_string_pids() {
        let m = run(
            r#"[{"ph":"X","name":"a","pid":"CPU","tid":1,"ts":"1712195495519689.047","dur":1},
                       {"ph":"X","name":"b","pid":"GPU","tid":1,"ts":1,"dur":1}]"#,
        );
        assert_eq!(m.slices.len(), 2);
        assert!(m.slices.ts_ns.contains(&1_712_195_495_519_689_047));
        let names: Vec<&str> = m.processes.values().map(|p| m.str(p.name)).collect();
        assert!(names.contains(&"CPU") && names.contains(&"GPU"));
    }

    #[test]
    fn invalid_utf8_and_control_chars_are_repaired_and_located() {
        let mut data = b"[{\"ph\":\"X\",\"name\":\"a".to_vec();
        data.extend_from_slice(&[0xff, 0xfe]);
        data.extend_from_slice(b"\tb\",\"ts\":1,\"dur\":1}]");
        let mut m = Model::default();
        import(&data, "u.json", &mut m, &mut |_| {}).unwrap();
        assert_eq!(m.str(m.slices.name[0]), "a\u{FFFD}\u{FFFD}\tb");
        let d = &m.diagnostics;
        assert_eq!(d.count("invalid_utf8_repaired"), 1);
        assert_eq!(d.count("json_control_char_in_string"), 1);
        let e = d
            .entries()
            .iter()
            .find(|e| e.kind == "json_control_char_in_string")
            .unwrap();
        // `[{"ph":"X","name":"a` is 20 bytes, then 2 invalid bytes, then the raw tab.
        assert_eq!(e.first_offset, Some(22));
    }

    #[test]
    fn negative_and_absurd_durations_are_excluded() {
        let m = run(r#"[{"ph":"X","name":"ok","ts":10,"dur":5},
                       {"ph":"X","name":"neg","ts":10,"dur":-5},
                       {"ph":"X","name":"huge","ts":10,"dur":1e15},
                       {"ph":"X","name":"far","ts":1e20,"dur":1}]"#);
        assert_eq!(m.slices.len(), 1);
        assert_eq!(m.diagnostics.count("slice_negative_duration"), 1);
        assert_eq!(m.diagnostics.count("slice_absurd_duration"), 1);
        // A number too large for i64 ns is out of range, not an invalid timestamp.
        assert_eq!(m.diagnostics.count("timestamp_out_of_range"), 1);
        assert_eq!(m.diagnostics.count("event_invalid_timestamp"), 0);
    }

    #[test]
    fn big_integers_in_args_are_text_and_labels_are_split() {
        let m = run(r#"{"traceEvents":[
            {"ph":"M","name":"process_labels","pid":3,"args":{"labels":"a, b"}},
            {"ph":"X","name":"x","pid":3,"tid":3,"ts":1,"dur":1,
             "args":{"big":123456789012345678901234,"u":18446744073709551615,"f":1.5,"o":{"k":[1,2]}}}]}"#);
        let args = m.args.get(m.slices.args[0]).to_vec();
        let get = |k: &str| {
            args.iter()
                .find(|(kk, _)| m.str(*kk) == k)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            get("big"),
            Some(ArgValue::Text("123456789012345678901234".into()))
        );
        assert_eq!(get("u"), Some(ArgValue::UInt(u64::MAX)));
        assert_eq!(get("f"), Some(ArgValue::Double(1.5)));
        assert_eq!(get("o"), Some(ArgValue::Text("{\"k\":[1,2]}".into())));
        let labels: Vec<&str> = m.processes[&3].labels.iter().map(|l| m.str(*l)).collect();
        assert_eq!(labels, vec!["a", "b"]);
    }

    #[test]
    fn numeric_args_keep_their_type_on_the_fast_path_and_off_it() {
        assert_eq!(num_arg(b"-12"), ArgValue::Int(-12));
        assert_eq!(num_arg(b"007"), ArgValue::Int(7));
        assert_eq!(
            num_arg(b"999999999999999999"),
            ArgValue::Int(999_999_999_999_999_999)
        );
        assert_eq!(num_arg(b"9223372036854775807"), ArgValue::Int(i64::MAX));
        assert_eq!(
            num_arg(b"9223372036854775808"),
            ArgValue::UInt(9_223_372_036_854_775_808)
        );
        assert_eq!(
            num_arg(b"123456789012345678901234"),
            ArgValue::Text("123456789012345678901234".into())
        );
        assert_eq!(num_arg(b"+5"), ArgValue::Int(5));
        assert_eq!(num_arg(b"1.5"), ArgValue::Double(1.5));
        assert_eq!(num_arg(b"-"), ArgValue::Text("-".into()));
    }

    #[test]
    fn resync_skips_a_broken_event() {
        let m = run("[{\"ph\":\"X\",\"name\":\"a\", 12},\n{\"ph\":\"X\",\"name\":\"b\",\"ts\":1,\"dur\":1}]");
        assert_eq!(m.slices.len(), 1);
        assert_eq!(
            m.diagnostics.count("json_syntax_error"),
            1,
            "{:?}",
            m.diagnostics
        );
    }
}
