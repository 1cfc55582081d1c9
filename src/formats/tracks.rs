//! Track creation shared by the trace importers (Perfetto's process/track tracker role): the
//! get-or-create maps from (pid, tid), pid, the global scope and async keys to [`TrackId`]s, and
//! what each kind of track looks like when it is created.
//!
//! Rules both importers share: thread and process tracks carry no name of their own (their label
//! comes from the threads/processes tables, [`Model::track_label`]); one thread track per
//! (pid, tid), one process track per pid, one global track per trace; an async track per key
//! the importer defines, named by the importer (JSON: the first event, Perfetto: the scope);
//! counter tracks are created once per series by the importer that keys them. What differs is
//! a [`Layout`]: whether thread tracks are children of their process's track, and the global
//! track's name.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use crate::model::{Model, StrId, Track, TrackId, TrackKind};

/// How an importer lays out its tracks (the only differences between the importers).
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// Thread tracks are children of their process's track, which is created with them
    /// (Perfetto); otherwise thread tracks have no parent (Chrome JSON).
    pub threads_under_processes: bool,
    /// Name of the trace-global track (`""` leaves it unnamed).
    pub global_name: &'static str,
}

/// The result of a get-or-create: the track and whether this call created it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Got {
    /// The track.
    pub id: TrackId,
    /// True when the track did not exist before this call.
    pub created: bool,
}

/// Owns the track maps of one import; `A` is the importer's async-track key and `S` the maps'
/// hasher (Perfetto uses its fast one).
#[derive(Debug)]
pub(super) struct TrackTracker<A, S = RandomState> {
    layout: Layout,
    threads: HashMap<(i64, i64), TrackId, S>,
    processes: HashMap<i64, TrackId, S>,
    global: Option<TrackId>,
    asyncs: HashMap<A, TrackId, S>,
}

impl<A: Hash + Eq, S: BuildHasher + Default> TrackTracker<A, S> {
    /// An empty tracker with the importer's `layout`.
    pub fn new(layout: Layout) -> Self {
        TrackTracker {
            layout,
            threads: HashMap::default(),
            processes: HashMap::default(),
            global: None,
            asyncs: HashMap::default(),
        }
    }

    /// The thread track of (`pid`, `tid`), created on first use (with its process track first
    /// when [`Layout::threads_under_processes`]).
    pub fn thread(&mut self, model: &mut Model, pid: i64, tid: i64) -> Got {
        if let Some(&id) = self.threads.get(&(pid, tid)) {
            return Got { id, created: false };
        }
        let parent = if self.layout.threads_under_processes {
            Some(self.process(model, pid).id)
        } else {
            None
        };
        let id = add(
            model,
            StrId(0),
            TrackKind::Thread,
            Some(pid),
            Some(tid),
            parent,
        );
        self.threads.insert((pid, tid), id);
        Got { id, created: true }
    }

    /// The thread track of (`pid`, `tid`) if it exists.
    pub fn find_thread(&self, pid: i64, tid: i64) -> Option<TrackId> {
        self.threads.get(&(pid, tid)).copied()
    }

    /// Every (pid, tid) that has a thread track, in no particular order.
    pub fn thread_keys(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.threads.keys().copied()
    }

    /// The process track of `pid`, created on first use.
    pub fn process(&mut self, model: &mut Model, pid: i64) -> Got {
        if let Some(&id) = self.processes.get(&pid) {
            return Got { id, created: false };
        }
        let id = add(model, StrId(0), TrackKind::Process, Some(pid), None, None);
        self.processes.insert(pid, id);
        Got { id, created: true }
    }

    /// The trace-global track, created (named [`Layout::global_name`]) on first use.
    pub fn global(&mut self, model: &mut Model) -> TrackId {
        if let Some(id) = self.global {
            return id;
        }
        let name = model.strings.intern(self.layout.global_name);
        let id = add(model, name, TrackKind::Global, None, None, None);
        self.global = Some(id);
        id
    }

    /// The async track of `key`, created on first use with `name` in process `pid` (`None`:
    /// a global async track). `name` and `pid` are ignored once the track exists.
    pub fn async_track(&mut self, model: &mut Model, key: A, name: StrId, pid: Option<i64>) -> Got {
        if let Some(&id) = self.asyncs.get(&key) {
            return Got { id, created: false };
        }
        let id = add(model, name, TrackKind::Async, pid, None, None);
        self.asyncs.insert(key, id);
        Got { id, created: true }
    }

    /// A new async track that no key names (a Perfetto custom track from a descriptor, or an
    /// anonymous lane), optionally under `parent`.
    pub fn custom(
        &mut self,
        model: &mut Model,
        name: StrId,
        pid: Option<i64>,
        parent: Option<TrackId>,
    ) -> TrackId {
        add(model, name, TrackKind::Async, pid, None, parent)
    }

    /// A new counter track for one series; the importer keys its series itself.
    pub fn counter(
        &mut self,
        model: &mut Model,
        name: StrId,
        pid: Option<i64>,
        tid: Option<i64>,
        parent: Option<TrackId>,
    ) -> TrackId {
        add(model, name, TrackKind::Counter, pid, tid, parent)
    }
}

fn add(
    model: &mut Model,
    name: StrId,
    kind: TrackKind,
    pid: Option<i64>,
    tid: Option<i64>,
    parent: Option<TrackId>,
) -> TrackId {
    model.add_track(Track {
        name,
        kind,
        pid,
        tid,
        parent,
        overflow_of: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_or_create_and_layouts() {
        let mut m = Model::default();
        let mut t: TrackTracker<u64> = TrackTracker::new(Layout {
            threads_under_processes: true,
            global_name: "",
        });
        let a = t.thread(&mut m, 1, 2);
        assert!(a.created);
        assert_eq!(m.tracks.len(), 2, "the process track comes first");
        assert_eq!(m.track(a.id).parent, Some(TrackId(0)));
        assert!(!t.thread(&mut m, 1, 2).created);
        assert!(!t.process(&mut m, 1).created);
        let g = t.global(&mut m);
        assert_eq!((m.track(g).name, t.global(&mut m)), (StrId(0), g));
        assert_eq!(t.find_thread(1, 2), Some(a.id));
        assert_eq!(t.find_thread(1, 3), None);
        let x = t.async_track(&mut m, 7, StrId(0), None);
        assert!(x.created && !t.async_track(&mut m, 7, StrId(0), Some(1)).created);
        assert_eq!(m.track(x.id).pid, None);

        let mut m = Model::default();
        let mut t: TrackTracker<u64> = TrackTracker::new(Layout {
            threads_under_processes: false,
            global_name: "Global",
        });
        let a = t.thread(&mut m, 1, 2);
        assert_eq!((m.tracks.len(), m.track(a.id).parent), (1, None));
        let g = t.global(&mut m);
        assert_eq!(m.str(m.track(g).name), "Global");
        let c = t.counter(&mut m, StrId(0), Some(1), None, None);
        assert_eq!(m.track(c).kind, TrackKind::Counter);
        assert_eq!(t.thread_keys().collect::<Vec<_>>(), vec![(1, 2)]);
    }
}
