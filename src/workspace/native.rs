//! Loading files and folders from disk into a [`Workspace`] (native only): what every CLI
//! subcommand starts with.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
            walk(p, &mut found);
            found.sort();
            out.extend(found.into_iter().map(|f| (f, true)));
        } else {
            out.push((p.clone(), false));
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
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
            walk(&p, out);
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
        let marked = expand_marked(paths);
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
        for (k, (p, name, id)) in files.iter().enumerate() {
            match formats::FileSource::new(p) {
                Ok(src) => match super::prepare_file(name, &src, &self.options, &mut |_| {}) {
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
