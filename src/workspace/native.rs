//! Loading files and folders from disk into a [`Workspace`] (native only): what every CLI
//! subcommand starts with.

use std::path::{Path, PathBuf};

use super::{FileId, Workspace};

/// Most files a folder argument expands to (a guard against pointing at `/`).
pub const MAX_FILES_PER_FOLDER: usize = 100_000;

/// `paths` with every folder replaced by the regular files below it (recursively, sorted by
/// path, hidden files skipped). A path that is neither is kept, so reading it reports the
/// error.
pub fn expand_paths(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found);
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
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
    /// it happens.
    pub fn from_paths(paths: &[PathBuf], on_error: &mut dyn FnMut(&str)) -> Workspace {
        let mut ws = Workspace::new();
        ws.add_paths(paths, on_error);
        ws
    }

    /// Adds `paths` as [`Workspace::from_paths`] does, with ids after the ones in use.
    pub fn add_paths(&mut self, paths: &[PathBuf], on_error: &mut dyn FnMut(&str)) {
        let first: FileId = self
            .entries
            .iter()
            .map(|e| e.id)
            .chain(self.failed.iter().map(|f| f.id))
            .max()
            .map_or(0, |m| m + 1);
        let before: Vec<FileId> = self.entries.iter().map(|e| e.id).collect();
        for (p, id) in expand_paths(paths).into_iter().zip(first..) {
            let name = p.display().to_string();
            match std::fs::read(&p) {
                Ok(bytes) => {
                    if !self.load_one(id, &name, &bytes, &mut |_| {}) {
                        if let Some(f) = self.failed.last() {
                            on_error(&f.message);
                        }
                    }
                }
                Err(e) => {
                    let message = format!("{name}: cannot read the file: {e}");
                    on_error(&message);
                    self.failed.push(super::Failed {
                        id,
                        name: name.clone(),
                        message,
                    });
                }
            }
        }
        // The facts across files, once for the whole batch; only files that were here before
        // it count as changed.
        self.derive();
        self.changed.retain(|c| before.contains(c));
    }
}
