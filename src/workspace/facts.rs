//! Facts across files, derived in exactly one place (issue "One engine"): per sibling group,
//! the host a JAX `perfetto_trace.json.gz` takes from its siblings' file names
//! (trace-formats.md §10.5) and the one rank rule for traces and telemetry (collective-memory.md,
//! "Rank identity"; quirk B10): the rank the content states, else the file name's
//! ([`rank_from_file_name`]), else — for sources that must have one (a PyTorch trace without
//! `distributedInfo`, a telemetry rank part) — the smallest number not taken in the group, with
//! a `rank_assigned` warning.

use std::collections::BTreeSet;

use super::{Content, Entry, FileId};
use crate::model::diagnostics::Kind;
use crate::model::facts::{
    base_name, dir_name, hostname_from_file_name, rank_from_file_name, Facts, RankSource,
};
use crate::model::Diagnostics;

/// The host of a JAX `perfetto_trace.json.gz` from the names of the files beside it
/// (trace-formats.md §10.5: it has no host of its own; JAX writes `<host>.xplane.pb` and
/// `<host>.trace.json.gz` into the same run directory). `None` unless exactly one host name is
/// found among `siblings`.
pub fn hostname_from_siblings<'s>(siblings: impl IntoIterator<Item = &'s str>) -> Option<String> {
    let hosts: BTreeSet<String> = siblings
        .into_iter()
        .filter_map(hostname_from_file_name)
        .collect();
    if hosts.len() == 1 {
        hosts.into_iter().next()
    } else {
        None
    }
}

/// The one assignment rule: every `None` in `stated` whose `needs` is true gets the smallest
/// number not stated by any other item and not assigned before it, in order. Returns the
/// ranks (stated, assigned or still `None`) and, per item, whether it was assigned.
pub fn assign_missing_ranks(stated: &[Option<u32>], needs: &[bool]) -> Vec<(Option<u32>, bool)> {
    let mut taken: BTreeSet<u32> = stated.iter().flatten().copied().collect();
    let mut next = 0u32;
    stated
        .iter()
        .zip(needs)
        .map(|(s, &need)| match s {
            Some(r) => (Some(*r), false),
            None if need => {
                while taken.contains(&next) {
                    next = next.saturating_add(1);
                }
                taken.insert(next);
                (Some(next), true)
            }
            None => (None, false),
        })
        .collect()
}

/// One rank-bearing source of a group: (entry index, telemetry part or `None` for a trace).
type Slot = (usize, Option<usize>);

/// Derives the facts of every entry from its sibling group; `failed` are the names of files
/// that failed to load (their names still count as siblings). Returns the ids of entries whose
/// facts or derived diagnostics changed.
pub(super) fn derive(entries: &mut [Entry], failed: &[&str]) -> Vec<FileId> {
    let mut groups: Vec<String> = Vec::new();
    for e in entries.iter() {
        let g = dir_name(e.name()).to_string();
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    let mut changed = Vec::new();
    for g in groups {
        let members: Vec<usize> = (0..entries.len())
            .filter(|&i| dir_name(entries[i].name()) == g)
            // An aggregate file's name is no sibling of the traces (its trial is named by
            // `trials.path`).
            .filter(|&i| !matches!(entries[i].content, Content::Aggregate(_)))
            .collect();
        let names: Vec<&str> = members
            .iter()
            .map(|&i| base_name(entries[i].name()))
            .chain(
                failed
                    .iter()
                    .filter(|n| dir_name(n) == g)
                    .map(|n| base_name(n)),
            )
            .collect();
        let sibling_host = hostname_from_siblings(names);

        // Ranks: every trace and telemetry part of the group, in drop order.
        let mut slots: Vec<Slot> = Vec::new();
        let mut stated: Vec<Option<(u32, RankSource)>> = Vec::new();
        let mut needs: Vec<bool> = Vec::new();
        for &i in &members {
            let e = &entries[i];
            match &e.content {
                Content::Trace(t) => {
                    let from_name = t.diagnostics.count("rank_from_file_name") > 0;
                    let src = if from_name {
                        RankSource::FileName
                    } else {
                        RankSource::Content
                    };
                    slots.push((i, None));
                    stated.push(t.info.rank.map(|r| (r, src)));
                    needs.push(t.rank_unknown);
                }
                Content::Telemetry(tf) => {
                    for (p, part) in tf.parts.iter().enumerate() {
                        slots.push((i, Some(p)));
                        let s = match part.memory.rank {
                            Some(r) => Some((r, RankSource::Content)),
                            None => {
                                rank_from_file_name(e.name()).map(|r| (r, RankSource::FileName))
                            }
                        };
                        stated.push(s);
                        needs.push(true);
                    }
                }
                _ => {}
            }
        }
        let plain: Vec<Option<u32>> = stated.iter().map(|s| s.map(|x| x.0)).collect();
        let ranks = assign_missing_ranks(&plain, &needs);

        for &i in &members {
            let e = &mut entries[i];
            let mut f = Facts::alone(e.name());
            f.artifact_id = e.source.artifact_id.clone();
            let mut derived = Diagnostics::default();
            if let Content::Trace(t) = &e.content {
                let jax = base_name(e.name()).ends_with("perfetto_trace.json.gz");
                match (&t.info.hostname, &sibling_host) {
                    (Some(h), _) => f.hostname = Some(h.clone()),
                    (None, Some(h)) if jax => {
                        f.hostname = Some(h.clone());
                        f.hostname_from_siblings = true;
                        let h = h.clone();
                        derived.add(Kind::HostnameFromSiblings, None, None, || {
                            Some(format!("host {h}"))
                        });
                    }
                    _ => {}
                }
                f.world_size = t.info.world_size;
            }
            for (k, slot) in slots.iter().enumerate() {
                if slot.0 != i {
                    continue;
                }
                let (rank, assigned) = ranks[k];
                let source = if assigned {
                    Some(RankSource::Assigned)
                } else {
                    stated[k].map(|s| s.1)
                };
                match slot.1 {
                    None => {
                        f.rank = rank;
                        f.rank_source = source;
                        if let (Some(r), true) = (rank, assigned) {
                            derived
                                .add(Kind::RankAssigned, None, None, || Some(format!("rank {r}")));
                        }
                    }
                    Some(p) => {
                        if let Content::Telemetry(tf) = &mut e.content {
                            let part = &mut tf.parts[p];
                            let mut nf = Facts::alone(&f.name);
                            nf.artifact_id = f.artifact_id.clone();
                            nf.rank = rank;
                            nf.rank_source = source;
                            nf.world_size = part.memory.world_size;
                            part.facts = nf;
                        }
                    }
                }
            }
            if e.facts != f || e.derived.entries() != derived.entries() {
                e.facts = f;
                e.derived = derived;
                if let Content::Trace(t) = &mut e.content {
                    t.trial.apply_facts(&e.facts);
                }
                changed.push(e.id);
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_free_ranks_in_order() {
        let got = assign_missing_ranks(
            &[Some(1), None, None, Some(0), None],
            &[true, true, false, true, true],
        );
        assert_eq!(
            got,
            vec![
                (Some(1), false),
                (Some(2), true),
                (None, false),
                (Some(0), false),
                (Some(3), true)
            ]
        );
    }

    #[test]
    fn one_host_among_siblings() {
        assert_eq!(
            hostname_from_siblings(["perfetto_trace.json.gz", "vm.xplane.pb", "vm.trace.json.gz"]),
            Some("vm".into())
        );
        assert_eq!(hostname_from_siblings(["a.xplane.pb", "b.xplane.pb"]), None);
        assert_eq!(hostname_from_siblings(["perfetto_trace.json.gz"]), None);
    }
}
