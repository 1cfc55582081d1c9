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

/// True when `text` contains a collective token (after [`fold`]). ASCII text (the usual case)
/// is folded byte by byte and searched for every token in one pass of one automaton, built
/// once; other text is folded by `char` and searched token by token.
pub fn has_collective_token(text: &str) -> bool {
    has_collective_token_in(text, &mut Vec::new())
}

/// [`has_collective_token`] with `buf` as the room ASCII text is folded into, reused from call
/// to call by a caller that searches many values (no allocation per value).
pub fn has_collective_token_in(text: &str, buf: &mut Vec<u8>) -> bool {
    static TOKENS: std::sync::OnceLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::OnceLock::new();
    if text.is_ascii() {
        if let Some(ac) = TOKENS
            .get_or_init(|| aho_corasick::AhoCorasick::new(COLLECTIVE_TOKENS).ok())
            .as_ref()
        {
            buf.clear();
            buf.extend(
                text.bytes()
                    .filter(|&b| b != b'-' && b != b'_')
                    .map(|b| b.to_ascii_lowercase()),
            );
            return ac.is_match(buf.as_slice());
        }
    }
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

    /// The automaton answers what the definition (fold, then `contains` per token) answers, on
    /// text made of token pieces, separators, case changes and non-ASCII letters; both answers
    /// occur.
    #[test]
    fn automaton_answers_as_the_definition() {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "all",
            "Re",
            "duce",
            "-",
            "_",
            "NC",
            "cl",
            "gl",
            "oo",
            "bar",
            "RIER",
            "x",
            "é",
            "K",
            " ",
            "reduce",
            "scatter",
            "broad",
            "cast",
            "comm",
            "unication",
            "record",
            "param",
            "All_Gather",
            "NCCL",
            "gLoo",
            "r-ccl",
            "Barrier",
        ]);
        let seen = [std::cell::Cell::new(0usize), std::cell::Cell::new(0)];
        proptest!(ProptestConfig::with_cases(2000), |(parts in prop::collection::vec(piece, 0..8))| {
            let t: String = parts.concat();
            let f = fold(&t);
            let want = COLLECTIVE_TOKENS.iter().any(|tok| f.contains(tok));
            seen[usize::from(want)].set(seen[usize::from(want)].get() + 1);
            prop_assert_eq!(has_collective_token(&t), want, "{}", t);
        });
        let seen = seen.map(|c| c.get());
        assert!(seen[0] > 100 && seen[1] > 100, "{seen:?}");
    }
}
