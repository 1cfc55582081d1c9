//! Where an importer's slice events go: a [`SliceBuilder`] on the importer's thread, which
//! natively moves to a thread of its own once the trace proves large.
//!
//! Pairing and nesting (the builder's work as events stream in) is about a tenth of a Perfetto
//! import's CPU time; on a second core it overlaps the decoding. The events reach the builder
//! in the order the importer gives them, so the model is the one the builder makes on the
//! importer's thread, bit for bit (`tests/it/perfetto_chunks.rs` compares model dumps). The
//! builder's heap size, which the importers check against their memory budget, is the one it
//! had at the importer's previous check ([`SliceSink::heap_bytes_at_last_check`]): a builder on
//! its own thread measures it once it has taken every event given until then and answers while
//! the importer goes on, so the importer does not wait for it, and an import stops at the same
//! event on either path (and in the browser, whose wasm has no threads and keeps the builder
//! here).

use std::cell::Cell;

use super::builder::{Op, SliceBuilder, SliceEvents};
use super::{Model, TrackId};

/// Events given to the builder on the importer's thread before it moves to its own: below
/// this, a trace (most of the corpus) never starts a thread.
const PIPE_AFTER: u64 = 1 << 15;

thread_local! {
    /// A test's override of [`PIPE_AFTER`] for sinks made on this thread.
    static PIPE_AFTER_HERE: Cell<Option<u64>> = const { Cell::new(None) };
    /// Builder threads started by sinks made on this thread.
    static PIPES_STARTED: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` with sinks made on this thread moving their builder to its own thread once it
/// has taken `events` events (at least one: 0 moves it after the first; `u64::MAX`: never),
/// instead of after [`PIPE_AFTER`]; gives `f`'s result and the number of builder threads
/// started meanwhile. A test hook: both paths must give
/// the same model.
#[doc(hidden)]
pub fn with_pipe_after<T>(events: u64, f: impl FnOnce() -> T) -> (T, u64) {
    let old = PIPE_AFTER_HERE.with(|c| c.replace(Some(events)));
    let started = PIPES_STARTED.with(Cell::get);
    let out = f();
    PIPE_AFTER_HERE.with(|c| c.set(old));
    (out, PIPES_STARTED.with(Cell::get) - started)
}

/// An importer's [`SliceBuilder`], on its thread or (natively) on a thread of its own: the
/// builder's [`SliceEvents`], [`heap_bytes`](SliceSink::heap_bytes),
/// [`retarget`](SliceSink::retarget) and [`finish`](SliceSink::finish) with the same results.
///
/// On its own thread, the builder takes events in batches of 4,096 (40 bytes each), at most 4
/// batches queued: about 1 MB beyond the builder's own heap, left out of `heap_bytes` so that
/// the budget check matches the browser's. When no thread can be started the builder stays
/// where it is.
pub struct SliceSink {
    here: Option<SliceBuilder>,
    #[cfg(not(target_arch = "wasm32"))]
    pipe: Option<pipe::Pipe>,
    /// Events given while the builder is here.
    given: u64,
    pipe_after: u64,
    /// The builder's heap bytes at the last [`SliceSink::heap_bytes_at_last_check`] (0 before
    /// the first), once known here.
    heap_then: usize,
}

impl Default for SliceSink {
    fn default() -> Self {
        SliceSink {
            here: Some(SliceBuilder::new()),
            #[cfg(not(target_arch = "wasm32"))]
            pipe: None,
            given: 0,
            pipe_after: PIPE_AFTER_HERE.with(Cell::get).unwrap_or(PIPE_AFTER),
            heap_then: 0,
        }
    }
}

impl SliceSink {
    /// An empty sink, its builder on this thread.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the builder to its own thread (natively; where no thread can be started, and in
    /// wasm, it stays here for good).
    fn start_pipe(&mut self) {
        self.pipe_after = u64::MAX;
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(p) = pipe::Pipe::start(&mut self.here) {
            PIPES_STARTED.with(|c| c.set(c.get() + 1));
            self.pipe = Some(p);
        }
    }

    /// The builder on this thread (called only while it has not moved).
    #[inline]
    fn builder_here(&mut self) -> &mut SliceBuilder {
        self.here.get_or_insert_with(SliceBuilder::new)
    }

    /// The builder's heap bytes ([`SliceBuilder::heap_bytes`]) once it has taken every event
    /// given so far: waits for a builder on its own thread to catch up.
    pub fn heap_bytes(&mut self) -> usize {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(p) = &mut self.pipe {
            if let Some(n) = p.answer_heap() {
                self.heap_then = n;
            }
            return p.heap_bytes();
        }
        self.here.as_ref().map_or(0, SliceBuilder::heap_bytes)
    }

    /// The builder's heap bytes ([`SliceBuilder::heap_bytes`]) as they were at this sink's
    /// previous call (0 at the first), once it had taken every event given until then; and
    /// notes them as they are now for the next call. The importers' memory-budget checks (every
    /// 65,536 events or packets) read this one: a builder on its own thread measures itself
    /// while the importer goes on, and is always done by the next check (it runs at most
    /// 4 batches behind), so the importer never waits for it. Waiting at each check (as
    /// [`SliceSink::heap_bytes`] does) held Chromium's 59 MB trace up 18 times, ~8 ms in all
    /// (~3 % of its import; `perf`, 2026-12-06). The value depends only on the events given,
    /// so an import stops at the same event wherever the builder is.
    pub fn heap_bytes_at_last_check(&mut self) -> usize {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(p) = &mut self.pipe {
            if let Some(n) = p.answer_heap() {
                self.heap_then = n;
            }
            p.ask_heap();
            return self.heap_then;
        }
        let then = self.heap_then;
        self.heap_then = self.here.as_ref().map_or(0, SliceBuilder::heap_bytes);
        then
    }

    /// [`SliceBuilder::retarget`], where the builder is (on its own thread after every event
    /// given so far).
    pub fn retarget(&mut self, map: impl FnMut(TrackId) -> Option<TrackId> + Send + 'static) {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(p) = &mut self.pipe {
            p.retarget(Box::new(map));
            return;
        }
        self.builder_here().retarget(map);
    }

    /// [`SliceBuilder::finish`]: on the builder's own thread when it has one (the model
    /// goes there and back), on this thread otherwise.
    pub fn finish(self, model: &mut Model) {
        self.finish_start(model).wait(model);
    }

    /// Starts [`SliceSink::finish`]: a builder on its own thread takes `model` there (left
    /// empty here until [`Finishing::wait`]) and finishes while this thread goes on; a builder
    /// here finishes in [`Finishing::wait`]. Work that needs neither the model nor the
    /// builder (the Perfetto importer sorts its counters and frees its own state) goes
    /// between the two: natively it then overlaps the slices' finish (~9 ms on Chromium's
    /// 59 MB trace), and where the builder is here it comes first, as before a plain finish.
    #[cfg_attr(target_arch = "wasm32", allow(unused_variables))]
    pub fn finish_start(mut self, model: &mut Model) -> Finishing {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(p) = self.pipe.take() {
            return Finishing(Away::Thread(p.finish_start(model)));
        }
        Finishing(Away::Here(std::mem::take(self.builder_here())))
    }
}

/// A [`SliceSink`]'s finish under way ([`SliceSink::finish_start`]).
#[must_use = "the slices are made (or given back) by `wait`"]
pub struct Finishing(Away);

enum Away {
    Here(SliceBuilder),
    #[cfg(not(target_arch = "wasm32"))]
    Thread(pipe::Pipe),
}

impl Finishing {
    /// Ends the finish: `model` (the one given to [`SliceSink::finish_start`]) gets its slices.
    pub fn wait(self, model: &mut Model) {
        match self.0 {
            Away::Here(b) => b.finish(model),
            #[cfg(not(target_arch = "wasm32"))]
            Away::Thread(p) => p.finish_wait(model),
        }
    }
}

impl SliceEvents for SliceSink {
    fn give(&mut self, op: Op) {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(p) = &mut self.pipe {
            p.give(op);
            return;
        }
        self.builder_here().push(&op);
        self.given += 1;
        if self.given >= self.pipe_after {
            self.start_pipe();
        }
    }
}

/// The builder on a thread of its own (not in wasm).
#[cfg(not(target_arch = "wasm32"))]
mod pipe {
    use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
    use std::thread::JoinHandle;

    use super::super::args::ArgSets;
    use super::super::builder::{add_lane_steps, lane_steps_on_this_thread, Op, SliceBuilder};
    use super::super::{Model, TrackId};

    /// Events per batch handed to the builder's thread (160 KiB).
    const BATCH: usize = 4096;
    /// Batches queued for the builder's thread at most; the importer waits beyond.
    pub(super) const IN_FLIGHT: usize = 4;

    type Retarget = Box<dyn FnMut(TrackId) -> Option<TrackId> + Send>;

    enum ToBuilder {
        Ops(Vec<Op>),
        /// Reply with the builder's heap bytes.
        Heap,
        /// [`SliceBuilder::retarget`] with this map.
        Retarget(Retarget),
        /// Build the slices into this model and give it back (the last message).
        Finish(Box<Model>),
    }

    /// What the builder's thread ends with.
    enum Done {
        /// The importer hung up: the builder, to go on with here.
        Builder(SliceBuilder),
        /// The model with its slices built.
        Model(Box<Model>),
    }

    /// The builder's thread's result, and the test hooks' operation counts it made there
    /// (lane-search steps, arg-merge probes), added to the importer's thread's at the end.
    type Ended = (Done, u64, u64);

    enum FromBuilder {
        /// A batch taken, for reuse.
        Spent(Vec<Op>),
        Heap(usize),
    }

    pub(super) struct Pipe {
        batch: Vec<Op>,
        spare: Vec<Vec<Op>>,
        /// A [`Pipe::ask_heap`] not answered yet by [`Pipe::answer_heap`].
        heap_asked: bool,
        /// Its answer, when it came while looking for a spent batch.
        heap_answer: Option<usize>,
        /// Batches made (each one 160 KiB; spent ones are reused).
        pub(super) made: usize,
        /// `None` once hung up.
        tx: Option<SyncSender<ToBuilder>>,
        rx: Receiver<FromBuilder>,
        /// `None` once joined.
        thread: Option<JoinHandle<Ended>>,
    }

    impl Pipe {
        /// Starts a thread for the builder in `here` and moves it there; `None` (the builder
        /// left in `here`) when no thread can be started.
        pub(super) fn start(here: &mut Option<SliceBuilder>) -> Option<Pipe> {
            let (tx, rx) = sync_channel::<ToBuilder>(IN_FLIGHT);
            let (back_tx, back_rx) = channel::<FromBuilder>();
            // The builder goes over once the thread runs, so a failed spawn keeps it.
            let (give_tx, give_rx) = channel::<SliceBuilder>();
            let thread = std::thread::Builder::new()
                .name("trialscope-slices".into())
                .spawn(move || run(give_rx, rx, back_tx))
                .ok()?;
            // The thread waits for the builder, so the send succeeds.
            let _ = give_tx.send(here.take()?);
            Some(Pipe {
                batch: Vec::with_capacity(BATCH),
                spare: Vec::new(),
                heap_asked: false,
                heap_answer: None,
                made: 1,
                tx: Some(tx),
                rx: back_rx,
                thread: Some(thread),
            })
        }

        pub(super) fn give(&mut self, op: Op) {
            self.batch.push(op);
            if self.batch.len() == BATCH {
                self.flush();
            }
        }

        /// Sends `m` to the builder's thread; when that thread is gone (it panicked), passes
        /// its panic on here, at most one batch after it happened.
        fn send(&mut self, m: ToBuilder) {
            let sent = self.tx.as_ref().map(|tx| tx.send(m));
            if !matches!(sent, Some(Ok(()))) {
                self.fail();
            }
        }

        /// Joins the builder's thread that stopped answering and passes its panic on.
        fn fail(&mut self) -> ! {
            self.tx = None;
            if let Some(t) = self.thread.take() {
                if let Err(panic) = t.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            panic!("the slice builder's thread stopped before the import did");
        }

        /// Sends the batch being filled (when it holds events).
        fn flush(&mut self) {
            if self.batch.is_empty() {
                return;
            }
            // A spent batch back from the builder's thread, past a heap answer waiting before
            // it (else a new batch per budget check, 160 KiB each).
            let next = self.spare.pop().or_else(|| loop {
                match self.rx.try_recv() {
                    Ok(FromBuilder::Spent(v)) => break Some(v),
                    Ok(FromBuilder::Heap(n)) => self.heap_answer = Some(n),
                    Err(_) => break None,
                }
            });
            let next = next.unwrap_or_else(|| {
                self.made += 1;
                Vec::with_capacity(BATCH)
            });
            let full = std::mem::replace(&mut self.batch, next);
            self.send(ToBuilder::Ops(full));
        }

        /// Sends `map` for the builder to retarget its tracks with after every event given
        /// so far.
        pub(super) fn retarget(&mut self, map: Retarget) {
            self.flush();
            self.send(ToBuilder::Retarget(map));
        }

        /// The builder's heap bytes after every event given so far (an earlier
        /// [`Pipe::ask_heap`] must have been answered).
        pub(super) fn heap_bytes(&mut self) -> usize {
            debug_assert!(!self.heap_asked, "an earlier question is not answered");
            self.ask_heap();
            self.answer_heap().unwrap_or_else(|| self.fail())
        }

        /// Asks the builder for its heap bytes after every event given so far, without
        /// waiting for the answer ([`Pipe::answer_heap`]).
        pub(super) fn ask_heap(&mut self) {
            self.flush();
            self.send(ToBuilder::Heap);
            self.heap_asked = true;
        }

        /// The answer to the last [`Pipe::ask_heap`] (waiting for it if need be), `None` when
        /// none is outstanding.
        pub(super) fn answer_heap(&mut self) -> Option<usize> {
            if !std::mem::take(&mut self.heap_asked) {
                return None;
            }
            if let Some(n) = self.heap_answer.take() {
                return Some(n);
            }
            loop {
                match self.rx.recv() {
                    Ok(FromBuilder::Spent(v)) => self.spare.push(v),
                    Ok(FromBuilder::Heap(n)) => return Some(n),
                    Err(_) => self.fail(),
                }
            }
        }

        /// Hangs up and joins the builder's thread: what it ended with, its operation counts
        /// added to this thread's, its panic passed on.
        fn end(&mut self) -> Done {
            self.tx = None;
            let Some(t) = self.thread.take() else {
                return Done::Builder(SliceBuilder::new());
            };
            match t.join() {
                Ok((done, steps, probes)) => {
                    add_lane_steps(steps);
                    ArgSets::add_merge_probes(probes);
                    done
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }

        /// [`SliceBuilder::finish`] into `model` on the builder's thread, after every event
        /// given; `model` is moved there and back. Should the builder panic there, `model` is
        /// left empty (on this thread it would be left partly built; either way the import
        /// fails).
        pub(super) fn finish_start(mut self, model: &mut Model) -> Pipe {
            self.flush();
            self.send(ToBuilder::Finish(Box::new(std::mem::take(model))));
            self
        }

        /// The model sent by [`Pipe::finish_start`], finished, back in `model`.
        pub(super) fn finish_wait(mut self, model: &mut Model) {
            match self.end() {
                Done::Model(m) => *model = *m,
                // Not reached: the thread answers a Finish with the model.
                Done::Builder(b) => b.finish(model),
            }
        }
    }

    impl Drop for Pipe {
        /// An import dropped before its end (a first pass that found a late descriptor) waits
        /// for the builder's thread to free the builder, as it would have been freed here.
        fn drop(&mut self) {
            self.tx = None;
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
    }

    /// The builder's thread: takes the builder, then batches until the importer hangs up or
    /// asks for the slices.
    fn run(
        give: Receiver<SliceBuilder>,
        rx: Receiver<ToBuilder>,
        back: Sender<FromBuilder>,
    ) -> Ended {
        let Ok(mut b) = give.recv() else {
            return (Done::Builder(SliceBuilder::new()), 0, 0);
        };
        let (steps, probes) = (
            lane_steps_on_this_thread(),
            ArgSets::merge_probes_on_this_thread(),
        );
        let counts = || {
            (
                lane_steps_on_this_thread() - steps,
                ArgSets::merge_probes_on_this_thread() - probes,
            )
        };
        while let Ok(m) = rx.recv() {
            match m {
                ToBuilder::Ops(mut ops) => {
                    for op in &ops {
                        b.push(op);
                    }
                    ops.clear();
                    let _ = back.send(FromBuilder::Spent(ops));
                }
                ToBuilder::Heap => {
                    let _ = back.send(FromBuilder::Heap(b.heap_bytes()));
                }
                ToBuilder::Retarget(map) => b.retarget(map),
                ToBuilder::Finish(mut model) => {
                    b.finish(&mut model);
                    let (s, p) = counts();
                    return (Done::Model(model), s, p);
                }
            }
        }
        let (s, p) = counts();
        (Done::Builder(b), s, p)
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::model::{ArgsId, FrameId, StrId, Track, TrackKind};

    /// A model with `n` thread tracks and a few names.
    fn model(n: u32) -> Model {
        let mut m = Model::default();
        for i in 0..n {
            m.add_track(Track {
                name: StrId(0),
                kind: TrackKind::Thread,
                pid: Some(1),
                tid: Some(i64::from(i)),
                parent: None,
                overflow_of: None,
            });
        }
        for s in ["a", "b", "c"] {
            m.strings.intern(s);
        }
        m
    }

    /// 30,517 events over 40 tracks: mostly in time order, some late (re-streamed and raw
    /// tracks), partly overlapping complete events (overflow lanes), named and unnamed ends,
    /// ends with nothing open, instants, and a few implausible negative timestamps.
    fn events<T: SliceEvents>(t: &mut T, mut every_1000: impl FnMut(&mut T)) {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut ts = 1_000i64;
        let none = StrId(0);
        let no_frame = FrameId(0);
        for i in 0..30_517u32 {
            let r = next();
            let track = TrackId((r % 40) as u32);
            ts += (r >> 8) as i64 % 50;
            let at = match r >> 20 & 31 {
                0 => ts - 5_000,
                1 if i % 1000 == 0 => -(1 << 50),
                _ => ts,
            };
            let name = StrId(1 + (r >> 30) as u32 % 3);
            let args = ArgsId(0);
            match r >> 40 & 7 {
                0 | 1 => t.begin(track, at, name, none, no_frame, args, 0),
                2 | 3 => t.end(track, at, None, args),
                4 => t.end(track, at, Some(name), args),
                5 => t.instant(track, at, name, none, no_frame, args, 0),
                _ => {
                    let dur = (r >> 50) as i64 % 400;
                    t.complete(track, at, dur, name, none, no_frame, args, 1)
                }
            }
            if i % 1000 == 999 {
                every_1000(t);
            }
        }
    }

    /// Everything the builder puts into a model, as text.
    fn dump(m: &Model) -> String {
        let s = &m.slices;
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            s.ts_ns,
            s.dur_ns,
            s.track,
            s.name,
            s.depth,
            (0..s.len()).map(|i| s.parent.get(i)).collect::<Vec<_>>(),
            s.flags,
            m.tracks.len(),
            m.tracks.iter().map(|t| t.overflow_of).collect::<Vec<_>>(),
            m.diagnostics.entries()
        )
    }

    /// The builder alone, on this thread: the reference. Gives the model and the heap bytes
    /// every 1,000 events.
    fn reference(retarget: bool) -> (String, Vec<usize>) {
        let mut m = model(40);
        let mut b = SliceBuilder::new();
        let mut heaps = Vec::new();
        events(&mut b, |b| heaps.push(b.heap_bytes()));
        if retarget {
            b.retarget(|t| (t.0 != 7).then_some(TrackId(t.0 % 20)));
        }
        b.finish(&mut m);
        (dump(&m), heaps)
    }

    /// A sink that moves its builder after `after` events: the model, the heap bytes every
    /// 1,000 events, the builder threads started and the lane-search steps counted here.
    fn through_sink(after: u64, retarget: bool) -> (String, Vec<usize>, u64, u64) {
        let steps = super::super::builder::lane_steps_on_this_thread();
        let ((m, heaps), started) = with_pipe_after(after, || {
            let mut m = model(40);
            let mut s = SliceSink::new();
            let mut heaps = Vec::new();
            events(&mut s, |s| heaps.push(s.heap_bytes()));
            if retarget {
                s.retarget(|t| (t.0 != 7).then_some(TrackId(t.0 % 20)));
            }
            s.finish(&mut m);
            (m, heaps)
        });
        let steps = super::super::builder::lane_steps_on_this_thread() - steps;
        (dump(&m), heaps, started, steps)
    }

    /// The budget checks' heap bytes ([`SliceSink::heap_bytes_at_last_check`]), every 1,000
    /// events, with the builder moved to its own thread at the first event, after 5,000 or
    /// never: each is the builder's exact heap at the check before (0 at the first), and the
    /// model is the same. Asked between exact reads ([`SliceSink::heap_bytes`]) too, as a
    /// question left unanswered must not be taken for the answer to another.
    #[test]
    fn budget_checks_read_the_heap_of_the_check_before_on_every_path() {
        let (want, exact) = reference(false);
        let lagged: Vec<usize> = std::iter::once(0)
            .chain(exact[..exact.len() - 1].iter().copied())
            .collect();
        assert!(
            lagged.windows(2).any(|w| w[0] != w[1]),
            "the heap changes between checks"
        );
        for after in [0, 5_000, u64::MAX] {
            for mixed in [false, true] {
                let (m, heaps, made) = with_pipe_after(after, || {
                    let mut m = model(40);
                    let mut s = SliceSink::new();
                    let mut heaps = Vec::new();
                    let mut k = 0;
                    events(&mut s, |s| {
                        heaps.push(s.heap_bytes_at_last_check());
                        k += 1;
                        if mixed && k % 3 == 0 {
                            // An exact read in between answers the open question first.
                            let _ = s.heap_bytes();
                        }
                    });
                    let made = s.pipe.as_ref().map_or(0, |p| p.made);
                    s.finish(&mut m);
                    (m, heaps, made)
                })
                .0;
                assert_eq!(heaps, lagged, "moved after {after}, mixed {mixed}");
                if after == 0 {
                    assert!((1..=pipe::IN_FLIGHT + 4).contains(&made), "{made} batches");
                }
                assert!(dump(&m) == want, "moved after {after}: model differs");
            }
        }
    }

    /// Budget checks a few batches apart, as an import makes them (one per 65,536 events), do
    /// not make batches: a heap answer the importer meets while looking for a spent batch is
    /// kept, and the spent batch behind it taken, so the batches in flight are reused (a new
    /// 160 KiB batch per check raised `heavy_default`'s peak RSS by ~1.5 MB).
    #[test]
    fn budget_checks_reuse_the_batches_in_flight() {
        with_pipe_after(0, || {
            let mut m = model(4);
            let mut s = SliceSink::new();
            let (name, none, frame, args) = (StrId(1), StrId(0), FrameId(0), ArgsId(0));
            let mut checks = 0;
            for i in 0..12 * 65_536u32 {
                s.complete(
                    TrackId(i % 4),
                    i64::from(i) * 10,
                    5,
                    name,
                    none,
                    frame,
                    args,
                    0,
                );
                if i % 65_536 == 65_535 {
                    s.heap_bytes_at_last_check();
                    checks += 1;
                }
            }
            let made = s.pipe.as_ref().map_or(0, |p| p.made);
            assert_eq!(checks, 12);
            // At most the batches queued, the one the builder reads, the one being filled and
            // two on their way back.
            assert!(
                (1..=pipe::IN_FLIGHT + 4).contains(&made),
                "{made} batches made for 192 batches sent and {checks} checks"
            );
            s.finish(&mut m);
            assert_eq!(m.slices.len(), 12 * 65_536);
        });
    }

    /// Moved to its own thread at the first event, after 5,000 or never, the builder gives
    /// the same slices, lanes and diagnostics, and the same heap bytes at every check (so a
    /// budget stops an import at the same event), with and without a retarget; the
    /// lane-search steps are counted on the importer's thread either way.
    #[test]
    fn a_builder_on_its_own_thread_gives_the_same_model() {
        for retarget in [false, true] {
            let (want, want_heaps) = reference(retarget);
            assert!(want.len() > 10_000, "the events make slices");
            let (_, _, _, steps_here) = through_sink(u64::MAX, retarget);
            assert!(steps_here > 0, "overlapping events search lanes");
            for (after, threads) in [(0, 1), (5_000, 1), (u64::MAX, 0)] {
                let (got, heaps, started, steps) = through_sink(after, retarget);
                assert_eq!(started, threads, "threads started, moved after {after}");
                assert!(
                    got == want,
                    "moved after {after}, retarget {retarget}: model differs"
                );
                assert_eq!(heaps, want_heaps, "moved after {after}: heap bytes differ");
                assert_eq!(steps, steps_here, "moved after {after}: lane steps");
            }
        }
    }
}
