//! Loading files and folders from disk into a [`Workspace`] (native only): what every CLI
//! subcommand starts with.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use super::{Entry, FileId, Workspace};
use crate::formats;
use crate::model::facts::dir_name;

/// Most files a folder argument expands to (a guard against pointing at `/`).
pub const MAX_FILES_PER_FOLDER: usize = 100_000;

/// True when a file found inside a folder argument that fails with `error` is skipped (listed
/// in [`Workspace::skipped`]) rather than failed: it is no format this tool reads
/// ([`formats::ImportError::NotATrace`]: a README, a log, a `package.json`) or it is empty
/// ([`formats::ImportError::Empty`]: a placeholder, a run that wrote nothing). Named on the
/// command line, such a file fails with its name.
pub fn skipped_in_folder(error: &formats::ImportError) -> bool {
    matches!(
        error,
        formats::ImportError::NotATrace { .. } | formats::ImportError::Empty
    )
}

/// `paths` with every folder replaced by the regular files below it (recursively, sorted by
/// path, hidden files skipped). A path that is neither is kept, so reading it reports the
/// error.
pub fn expand_paths(paths: &[PathBuf]) -> Vec<PathBuf> {
    expand_marked(paths).into_iter().map(|(p, _)| p).collect()
}

/// [`expand_paths`], each path marked true when it was found inside a folder argument.
fn expand_marked(paths: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found, &mut HashSet::new());
            found.sort();
            out.extend(found.into_iter().map(|f| (f, true)));
        } else {
            out.push((p.clone(), false));
        }
    }
    out
}

/// `files` in order without repeats of one file, told by its canonical path (the same file
/// named twice, matched by two globs, or reached through a symlink); each repeat as
/// `(repeat, first)`. A path that cannot be resolved (a missing file) is compared as given,
/// so reading it still reports the error.
pub fn distinct_files(files: Vec<PathBuf>) -> (Vec<PathBuf>, Repeats) {
    let (kept, repeats) = distinct(files.into_iter().map(|p| (p, false)).collect());
    (kept.into_iter().map(|(p, _)| p).collect(), repeats)
}

/// Each repeat of a file and the path that named it first ([`distinct_files`]).
pub type Repeats = Vec<(PathBuf, PathBuf)>;

/// The note for a path naming a file already named: `<repeat>: the same file as <first>: read
/// once` (the one wording of [`Workspace::repeats`], `summarize` and `compare`).
pub fn repeat_note(repeat: &Path, first: &Path) -> String {
    format!(
        "{}: the same file as {}: read once",
        repeat.display(),
        first.display()
    )
}

/// [`distinct_files`] for marked paths (true: found inside a folder argument).
pub(crate) fn distinct(files: Vec<(PathBuf, bool)>) -> (Vec<(PathBuf, bool)>, Repeats) {
    let mut first: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut kept = Vec::with_capacity(files.len());
    let mut repeats = Vec::new();
    for (p, marked) in files {
        let key = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        match first.get(&key) {
            Some(f) => repeats.push((p, f.clone())),
            None => {
                first.insert(key, p.clone());
                kept.push((p, marked));
            }
        }
    }
    (kept, repeats)
}

/// The regular files below `dir`; a folder reached again (a symlink loop, or a link to a
/// folder already walked) is not walked twice (`visited` holds canonical folder paths).
fn walk(dir: &Path, out: &mut Vec<PathBuf>, visited: &mut HashSet<PathBuf>) {
    if let Ok(c) = std::fs::canonicalize(dir) {
        if !visited.insert(c) {
            return;
        }
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut items: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    items.sort();
    for p in items {
        if out.len() >= MAX_FILES_PER_FOLDER {
            return;
        }
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            walk(&p, out, visited);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

impl Workspace {
    /// A workspace holding `paths` (files and folders, expanded recursively and sorted) in order, each named
    /// by its path as given (`dir/file` for a folder's files): the files of one directory are
    /// siblings, as the files of one dropped folder are in the web app. A file that cannot be
    /// read or loaded is kept as failed (its message names it); `on_error` sees each message as
    /// it happens. A file found inside a folder that is no format this tool reads, or empty
    /// ([`skipped_in_folder`]), is listed in [`Workspace::skipped`] instead; named itself, it
    /// fails.
    pub fn from_paths(paths: &[PathBuf], on_error: &mut dyn FnMut(&str)) -> Workspace {
        let mut ws = Workspace::new();
        ws.add_paths(paths, on_error);
        ws
    }

    /// Adds `paths` as [`Workspace::from_paths`] does, with ids after the ones in use.
    pub fn add_paths(&mut self, paths: &[PathBuf], on_error: &mut dyn FnMut(&str)) {
        self.add_paths_each(paths, on_error, &mut |_| {});
    }

    /// Adds `paths` as [`Workspace::add_paths`] does, and hands each loaded file to `on_ready`
    /// as soon as its facts are final: when every file of its sibling group (its directory,
    /// [`dir_name`]) among `paths` has been read, loaded or failed, the facts of that group
    /// are derived (by the rules of [`super::facts`], as for the whole batch) and the group's files are
    /// handed over. `on_ready` sees the files in the order of `paths` (a file waits for the
    /// earlier ones), so a caller can print each result as soon as it is known, before the
    /// later files are read. `on_error` sees each failure as it happens.
    ///
    /// So a file waits for its later siblings (one can change its rank or host) and, to keep
    /// the order, for the files before it; a slow file holds back its own group, the files
    /// after it, and an earlier file only when that file's group has members after it (paths
    /// that interleave directories). With each group's files in a row, a slow file holds back
    /// nothing of the groups before it.
    pub fn add_paths_each(
        &mut self,
        paths: &[PathBuf],
        on_error: &mut dyn FnMut(&str),
        on_ready: &mut dyn FnMut(&Entry),
    ) {
        let first: FileId = self
            .entries
            .iter()
            .map(|e| e.id)
            .chain(self.failed.iter().map(|f| f.id))
            .max()
            .map_or(0, |m| m + 1);
        let before: Vec<FileId> = self.entries.iter().map(|e| e.id).collect();
        let (marked, repeats) = distinct(expand_marked(paths));
        self.repeats
            .extend(repeats.iter().map(|(r, f)| repeat_note(r, f)));
        let files: Vec<(PathBuf, String, FileId)> = marked
            .iter()
            .zip(first..)
            .map(|((p, _), id)| (p.clone(), p.display().to_string(), id))
            .collect();
        // Files of each sibling group not read yet.
        let mut pending: HashMap<&str, usize> = HashMap::new();
        for (_, name, _) in &files {
            *pending.entry(dir_name(name)).or_default() += 1;
        }
        // The next file to hand to `on_ready` (files before it were handed over or failed),
        // and where its entry is if it loaded: the batch's entries are appended in file order
        // (its ids are new) and deriving keeps their order.
        let mut next = 0;
        let mut at = self.entries.len();
        let options = self.options.clone();
        let paths: Vec<&Path> = files.iter().map(|(p, _, _)| p.as_path()).collect();
        let load = |k: usize| -> Load {
            let (p, name, _) = &files[k];
            formats::FileSource::new(p)
                .map(|src| super::prepare_file(name, &src, &options, &mut |_| {}))
        };
        std::thread::scope(|scope| {
            let mut prepared = Prepared::new(scope, &paths, &load);
            for (k, (_, name, id)) in files.iter().enumerate() {
                match prepared.next_one() {
                    Ok(res) => match res {
                        // A file in a folder that is no format this tool reads, or empty (a
                        // placeholder, a run that wrote nothing), is skipped and listed.
                        Err(e) if marked[k].1 && skipped_in_folder(&e.error) => {
                            self.skipped.push(super::Failed {
                                id: *id,
                                name: name.clone(),
                                message: e.to_string(),
                            });
                        }
                        res => {
                            self.entries.retain(|e| e.id != *id);
                            self.failed.retain(|f| f.id != *id);
                            if !self.insert(*id, name, res.map_err(|e| e.to_string())) {
                                if let Some(f) = self.failed.last() {
                                    on_error(&f.message);
                                }
                            }
                        }
                    },
                    Err(e) => {
                        let message = format!("{name}: cannot read the file: {e}");
                        on_error(&message);
                        self.failed.push(super::Failed {
                            id: *id,
                            name: name.clone(),
                            message,
                        });
                    }
                }
                let group = dir_name(name);
                let left = pending.get_mut(group).map_or(0, |n| {
                    *n -= 1;
                    *n
                });
                if left > 0 {
                    continue;
                }
                self.derive_group(group);
                while next <= k && pending.get(dir_name(&files[next].1)) == Some(&0) {
                    if let Some(e) = self.entries.get(at).filter(|e| e.id == files[next].2) {
                        on_ready(e);
                        at += 1;
                    }
                    next += 1;
                }
            }
        });
        // The facts across files for the whole batch (every group was derived as it was
        // completed, so this changes nothing); only files that were here before it count as
        // changed.
        self.derive();
        self.changed.retain(|c| before.contains(c));
    }

    /// Derives the facts of sibling group `group` only ([`super::facts::derive`] on its
    /// entries, which is what a derive of every group does for this one), in time linear in
    /// the number of files.
    fn derive_group(&mut self, group: &str) {
        let all = std::mem::take(&mut self.entries);
        let mut in_group = Vec::new();
        let mut rest = Vec::new();
        let mut from_group = Vec::with_capacity(all.len());
        for e in all {
            let mine = dir_name(e.name()) == group;
            from_group.push(mine);
            if mine {
                in_group.push(e);
            } else {
                rest.push(e);
            }
        }
        let failed: Vec<&str> = self
            .failed
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| dir_name(n) == group)
            .collect();
        let changed = super::facts::derive(&mut in_group, &failed);
        let (mut g, mut r) = (in_group.into_iter(), rest.into_iter());
        self.entries = from_group
            .into_iter()
            .filter_map(|mine| if mine { g.next() } else { r.next() })
            .collect();
        for id in changed {
            if !self.changed.contains(&id) {
                self.changed.push(id);
            }
        }
    }
}

/// One file's load as [`Workspace::add_paths_each`] takes it: the file could not be opened, or
/// [`super::prepare_file`]'s result.
type Load = std::io::Result<Result<super::Prepared, formats::FileError>>;

/// Files loaded at once at most ([`Prepared`]): each import uses a second thread of its own
/// (reading, and building slices), so two keep a 2-core machine busy.
const PARALLEL_FILES: usize = 2;

/// Files up to this size (as stored) are loaded beside another one; a batch with a larger
/// file is loaded one file at a time. Each load keeps to its own memory budget
/// (`formats::limits::model_budget`, of its decompressed bytes: a small gzip file can still
/// be large), so a batch peaks at two loads' budgets at most (README "Limits").
const PARALLEL_MAX_BYTES: u64 = 256 << 20;

/// Loads of a batch of files in file order, made by up to [`PARALLEL_FILES`] threads ahead of
/// the caller (at most [`PARALLEL_FILES`] + 1 files beyond the one it waits for): what each
/// load gives depends on its file alone, so the workspace is the one loading them one by one
/// would make. One file, or a file larger than [`PARALLEL_MAX_BYTES`], and the loads are
/// made on the caller's thread as it asks for them.
struct Prepared<'e> {
    load: &'e (dyn Fn(usize) -> Load + Sync),
    n: usize,
    /// The next file handed out.
    next: usize,
    pool: Option<Pool>,
}

/// The loading threads' ends: jobs (file indices) out, loads (or a thread's panic) back.
struct Pool {
    jobs: Sender<usize>,
    /// Set when the pool is dropped: a thread starts no load queued before (the caller stopped
    /// early, or passes a panic on), so no file is read that loading one by one would not.
    stop: Arc<AtomicBool>,
    done: Receiver<(usize, std::thread::Result<Load>)>,
    early: BTreeMap<usize, std::thread::Result<Load>>,
}

impl<'e> Prepared<'e> {
    /// Starts the loading threads in `scope` (they end with it, once the jobs sender is
    /// dropped with `self`) when the batch is worth it.
    fn new<'s>(
        scope: &'s std::thread::Scope<'s, 'e>,
        paths: &[&Path],
        load: &'e (dyn Fn(usize) -> Load + Sync),
    ) -> Prepared<'e> {
        let n = paths.len();
        let small = paths
            .iter()
            .all(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= PARALLEL_MAX_BYTES));
        let workers = std::thread::available_parallelism()
            .map_or(1, |c| c.get())
            .min(PARALLEL_FILES)
            .min(n);
        let pool = (small && workers > 1).then(|| Pool::start(scope, workers, n, load));
        Prepared {
            load,
            n,
            next: 0,
            pool,
        }
    }

    /// The next file's load. A panic of a loading thread is passed on here, as it would have
    /// happened loading here.
    fn next_one(&mut self) -> Load {
        let k = self.next;
        self.next += 1;
        let Some(pool) = &mut self.pool else {
            return (self.load)(k);
        };
        let got = match pool.take(k) {
            Some(Ok(load)) => Some(load),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            // No loading thread could be started.
            None => None,
        };
        if k + PARALLEL_FILES + 1 < self.n {
            let _ = pool.jobs.send(k + PARALLEL_FILES + 1);
        }
        got.unwrap_or_else(|| (self.load)(k))
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Pool {
    /// Starts `workers` loading threads over `load` in `scope`, the first files queued.
    fn start<'s, 'e>(
        scope: &'s std::thread::Scope<'s, 'e>,
        workers: usize,
        n: usize,
        load: &'e (dyn Fn(usize) -> Load + Sync),
    ) -> Pool {
        let (jobs, job_rx) = channel::<usize>();
        let (done_tx, done) = channel();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let stop = Arc::new(AtomicBool::new(false));
        for _ in 0..workers {
            let (job_rx, done_tx, stop) = (job_rx.clone(), done_tx.clone(), stop.clone());
            let spawned = std::thread::Builder::new()
                .name("trialscope-load".into())
                .spawn_scoped(scope, move || loop {
                    let k = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok(k) = k else { return };
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load(k)));
                    if done_tx.send((k, r)).is_err() {
                        return;
                    }
                });
            if spawned.is_err() {
                break;
            }
        }
        for k in 0..n.min(PARALLEL_FILES + 1) {
            let _ = jobs.send(k);
        }
        Pool {
            jobs,
            stop,
            done,
            early: BTreeMap::new(),
        }
    }

    /// File `k`'s load, waiting for it; `None` when no loading thread is left to make it.
    fn take(&mut self, k: usize) -> Option<std::thread::Result<Load>> {
        loop {
            if let Some(r) = self.early.remove(&k) {
                return Some(r);
            }
            let (j, r) = self.done.recv().ok()?;
            self.early.insert(j, r);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::time::Duration;

    use super::*;

    /// `n` small files in a fresh folder.
    fn small_files(tag: &str, n: usize) -> (PathBuf, Vec<PathBuf>) {
        let dir = std::env::temp_dir().join(format!("trialscope-par-{tag}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let paths = (0..n)
            .map(|k| {
                let p = dir.join(format!("f{k}"));
                let _ = std::fs::write(&p, b"x");
                p
            })
            .collect();
        (dir, paths)
    }

    /// Loads that finish out of order (every even file is slow) come back in file order, made
    /// on more than one thread when the machine has two cores; a load's panic is passed on
    /// when its file's turn comes, after the files before it.
    #[test]
    fn loads_come_back_in_file_order_and_a_panic_in_its_turn() {
        let (dir, paths) = small_files("order", 9);
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let threads = Mutex::new(HashSet::new());
        let load = |k: usize| -> Load {
            if let Ok(mut t) = threads.lock() {
                t.insert(std::thread::current().id());
            }
            if k % 2 == 0 {
                std::thread::sleep(Duration::from_millis(20));
            }
            if k == 7 {
                panic!("load 7 failed");
            }
            Err(std::io::Error::other(format!("file {k}")))
        };
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut seen = Vec::new();
            std::thread::scope(|scope| {
                let mut p = Prepared::new(scope, &refs, &load);
                for _ in 0..refs.len() {
                    seen.push(p.next_one().err().map(|e| e.to_string()));
                    // What came back before the panic.
                    if seen.len() == 7 {
                        assert_eq!(
                            seen,
                            (0..7)
                                .map(|k| Some(format!("file {k}")))
                                .collect::<Vec<_>>()
                        );
                    }
                }
            });
            seen
        }));
        let panic = got.expect_err("load 7's panic reaches the caller");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"load 7 failed"));
        if std::thread::available_parallelism().map_or(1, |c| c.get()) > 1 {
            let n = threads.lock().map(|t| t.len()).unwrap_or(0);
            assert!(n >= 2, "the loads ran on {n} thread(s)");
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A batch with a file larger than [`PARALLEL_MAX_BYTES`] is loaded on the caller's
    /// thread, one file at a time.
    #[test]
    fn a_batch_with_a_large_file_loads_here() {
        let (dir, paths) = small_files("large", 3);
        let big = std::fs::File::create(&paths[1]).and_then(|f| f.set_len(PARALLEL_MAX_BYTES + 1));
        assert!(big.is_ok(), "a sparse file");
        let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
        let here = std::thread::current().id();
        let load = |k: usize| -> Load {
            assert_eq!(
                std::thread::current().id(),
                here,
                "file {k} loaded elsewhere"
            );
            Err(std::io::Error::other(format!("file {k}")))
        };
        std::thread::scope(|scope| {
            let mut p = Prepared::new(scope, &refs, &load);
            for k in 0..3 {
                assert_eq!(
                    p.next_one().err().map(|e| e.to_string()),
                    Some(format!("file {k}"))
                );
            }
        });
        let _ = std::fs::remove_dir_all(dir);
    }
}
