//! Facts about one loaded file that a file cannot always tell alone: its name and sibling
//! group, host, rank and world size. The [`crate::workspace`] derives them across files (the only
//! place that does); analyses read them through their `extract(&Model, &Facts)`.
//!
//! Also the name rules every layer shares: [`base_name`], [`dir_name`],
//! [`rank_from_file_name`] (collective-memory.md, "Rank identity"; quirk B10) and
//! [`hostname_from_file_name`] (trace-formats.md §10.1/§10.5).

use serde::{Deserialize, Serialize};

/// Where a file's rank came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankSource {
    /// The content states it (Kineto `distributedInfo.rank`, a telemetry record's `rank`).
    Content,
    /// The file name states it ([`rank_from_file_name`]).
    FileName,
    /// Neither says: the smallest number not taken by the other files of the sibling group was
    /// assigned (a `rank_assigned` warning), so ranks of one job stay distinct.
    Assigned,
}

impl RankSource {
    /// Stable lower-case name (`content`, `file_name`, `assigned`).
    pub fn as_str(self) -> &'static str {
        match self {
            RankSource::Content => "content",
            RankSource::FileName => "file_name",
            RankSource::Assigned => "assigned",
        }
    }
}

/// The facts of one file (or one rank part of a telemetry file) as the workspace derived them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// The name as given: the path as typed on the command line, or the file's relative path
    /// inside a dropped folder (a bare name for loose files).
    pub name: String,
    /// `sha256:…` of the file's bytes as dropped (empty when unknown).
    pub artifact_id: String,
    /// The sibling group: [`dir_name`] of `name` (empty for loose files). Files of one group
    /// are siblings, on the command line and in the web app alike.
    pub group: String,
    /// Host name: the trace's own, else (JAX `perfetto_trace.json.gz`) the one named by its
    /// siblings' file names.
    pub hostname: Option<String>,
    /// True when `hostname` came from the siblings' file names (trace-formats.md §10.5).
    pub hostname_from_siblings: bool,
    /// Distributed rank, when the content or the file name states it, or one was assigned.
    pub rank: Option<u32>,
    /// Where `rank` came from; `None` when there is no rank.
    pub rank_source: Option<RankSource>,
    /// World size, when the trace states it.
    pub world_size: Option<u32>,
}

impl Facts {
    /// Facts of a file seen alone: its name and group, nothing derived from other files.
    pub fn alone(name: &str) -> Facts {
        Facts {
            name: name.to_string(),
            group: dir_name(name).to_string(),
            ..Facts::default()
        }
    }

    /// The environment-key part these facts add to a trial's own environment key (scaling.md,
    /// "Environment"): `host=<h>` when the host came from the siblings, else nothing (a host the
    /// trace names is already in its own key).
    pub fn environment_prefix(&self) -> Option<String> {
        match (&self.hostname, self.hostname_from_siblings) {
            (Some(h), true) => Some(format!("host={h}")),
            _ => None,
        }
    }
}

/// True for a base name like `pins.json`, `baseline_pins.json`, `x as pins.json`: the name
/// tie-breaker [`crate::formats::load`] uses for a bare JSON array (pins, not records).
pub fn is_pins_name(name: &str) -> bool {
    let b = base_name(name).to_ascii_lowercase();
    b.contains("pins") && b.ends_with(".json")
}

/// The last path component of `name` (`/` or `\` separated): files inside dropped folders and
/// paths on the command line carry `dir/…/file`.
pub fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// The directory part of `name` (`""` for a bare file name): files sharing it are siblings.
pub fn dir_name(name: &str) -> &str {
    name.rfind(['/', '\\']).map_or("", |i| &name[..i])
}

/// Parses a rank out of text such as `rank 3`, `rank=3`, `rank_3`, `Rank:3` (case-insensitive,
/// `rank` not preceded by a letter, at most three separators, at most 9 digits).
pub fn rank_in_text(text: &str) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(p) = lower[from..].find("rank") {
        let i = from + p;
        from = i + 4;
        if i > 0 && b[i - 1].is_ascii_alphabetic() {
            continue;
        }
        let mut j = i + 4;
        while j < b.len() && matches!(b[j], b' ' | b'_' | b'-' | b':' | b'=' | b'#') && j < i + 7 {
            j += 1;
        }
        let start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > start && j - start <= 9 {
            if let Ok(r) = lower[start..j].parse() {
                return Some(r);
            }
        }
    }
    None
}

/// The rank a file name states (collective-memory.md, "Rank identity"; Kineto's
/// `rank-3.Jan_01….pt.trace.json`, `trial_rank1.json`, `rank0.trace.json.gz`): `rank3`,
/// `rank_3`, `rank-3`, `rank=3` (`rank` not preceded by a letter), or the spec's `-r3`
/// followed by a non-alphanumeric character or the end. `_r3` and `.r3` are not ranks: they
/// are the usual suffix of a repetition (the corpus's scaling trials `scaling_n1000_r0` …
/// `_r2` are three runs of one input size, not ranks). Directories in `name` are ignored.
/// `None` when the name says nothing. The one rank-from-name rule of the crate.
pub fn rank_from_file_name(name: &str) -> Option<u32> {
    let base = base_name(name);
    if let Some(r) = rank_in_text(base) {
        return Some(r);
    }
    let b = base.as_bytes();
    for i in 0..b.len().saturating_sub(2) {
        if b[i] == b'-' && (b[i + 1] == b'r' || b[i + 1] == b'R') {
            let start = i + 2;
            let mut j = start;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > start && j - start <= 9 && (j == b.len() || !b[j].is_ascii_alphanumeric()) {
                if let Ok(r) = base[start..j].parse() {
                    return Some(r);
                }
            }
        }
    }
    None
}

/// The host name a JAX/XProf file name carries: `<host>.trace.json.gz`, `<host>.trace.json`
/// or `<host>.xplane.pb` (trace-formats.md §10.1/§10.5). `perfetto_trace.json.gz` and Kineto's
/// `*.pt.trace.json*` carry none. Directories in `name` are ignored.
pub fn hostname_from_file_name(name: &str) -> Option<String> {
    let base = base_name(name);
    let host = base
        .strip_suffix(".trace.json.gz")
        .or_else(|| base.strip_suffix(".trace.json"))
        .or_else(|| base.strip_suffix(".xplane.pb"))?;
    if host.is_empty() || host.ends_with(".pt") || host == "perfetto_trace" || host.contains('.') {
        return None;
    }
    Some(host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(base_name("a/b\\c.json"), "c.json");
        assert_eq!(dir_name("a/b/c.json"), "a/b");
        assert_eq!(dir_name("c.json"), "");
        assert_eq!(
            hostname_from_file_name("a/vm.trace.json.gz"),
            Some("vm".into())
        );
        assert_eq!(hostname_from_file_name("vm.xplane.pb"), Some("vm".into()));
        assert_eq!(hostname_from_file_name("perfetto_trace.json.gz"), None);
        assert_eq!(hostname_from_file_name("rank0.pt.trace.json.gz"), None);
    }

    #[test]
    fn ranks_from_names() {
        for (name, rank) in [
            ("rank-3.Jan_01_00_00_00.1234.pt.trace.json", Some(3)),
            ("trial1_coldcache_rank1.pt.trace.json.gz", Some(1)),
            ("dir/rank0.trace.json.gz", Some(0)),
            ("job_rank=12.jsonl", Some(12)),
            ("gpu-r7.json", Some(7)),
            ("scaling_n1000_r0.pb.gz", None),
            ("trial.r2.json", None),
            ("worker_a.pt.trace.json", None),
            ("franklin.json", None),
            ("frank3.json", None),
            ("x-r7b.json", None),
            ("rank1234567890.json", None),
        ] {
            assert_eq!(rank_from_file_name(name), rank, "{name}");
        }
    }

    #[test]
    fn rank_from_file_names() {
        assert_eq!(rank_from_file_name("rank3.trace.json.gz"), Some(3));
        assert_eq!(rank_from_file_name("/x/y/job_rank_12.json"), Some(12));
        assert_eq!(
            rank_from_file_name("large_integer_rank-70.pt.trace.json.gz"),
            Some(70)
        );
        assert_eq!(rank_from_file_name("trace-r5.pftrace"), Some(5));
        assert_eq!(
            rank_from_file_name("trial1_coldcache_rank0.pt.trace.json.gz"),
            Some(0)
        );
        assert_eq!(rank_from_file_name("frankfurt3.json"), None);
        assert_eq!(rank_from_file_name("trace-run2.json"), None);
        assert_eq!(rank_from_file_name("trace.json"), None);
    }
}
