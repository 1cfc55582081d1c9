//! Collective-communication token rules (`collective-memory.md`, "Collective markers"): shared by
//! the importers (to tag slices with [`slice_flags::COLLECTIVE`](super::slice_flags::COLLECTIVE))
//! and the collective-memory analysis (to find markers).

/// Tokens that mark collective communication, compared after lower-casing and removing `-`
/// and `_` (so `all_reduce`, `allreduce` and `All-Reduce` all match `allreduce`).
pub const COLLECTIVE_TOKENS: &[&str] = &[
    "nccl",
    "collective",
    "communication",
    "allreduce",
    "allgather",
    "reducescatter",
    "broadcast",
    "barrier",
    "gloo",
    "rccl",
    "recordparamcomms",
];

/// Lower-cases `text` and drops `-` and `_`.
pub fn fold(text: &str) -> String {
    text.chars()
        .filter(|&c| c != '-' && c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// True when `text` contains a collective token (after [`fold`]).
pub fn has_collective_token(text: &str) -> bool {
    let f = fold(text);
    COLLECTIVE_TOKENS.iter().any(|t| f.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_match_across_spellings() {
        for s in [
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
            "ncclKernel_AllGather_RING_LL_Sum_int8_t",
            "gloo:all_reduce",
            "c10d::allreduce_",
            "record_param_comms",
            "nccl:_all_gather_base",
            "Reduce-Scatter",
            "c10d::barrier",
        ] {
            assert!(has_collective_token(s), "{s}");
        }
        for s in ["aten::mm", "Layout", "ProfilerStep#3", "all_to_one_copy"] {
            assert!(!has_collective_token(s), "{s}");
        }
    }
}
