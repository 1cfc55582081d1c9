//! A deterministic pseudo-random generator for resampling: SplitMix64 (Steele, Lea & Flood,
//! "Fast splittable pseudorandom number generators", OOPSLA 2014; the constants of Vigna's
//! public-domain `splitmix64.c`). Tiny, seedable, and identical on every target, so the same
//! seed gives byte-identical reports in the browser and on the command line. Not
//! cryptographic; its streams differ from NumPy's, so bootstrap intervals agree with SciPy's only
//! up to Monte-Carlo error.

/// SplitMix64 state. `SplitMix64::new(seed)` then [`next_u64`](Self::next_u64) /
/// [`below`](Self::below).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed` (any value, including 0, is a valid seed).
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 uniformly distributed bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` by Lemire's multiply-shift (`(u64 · n) >> 64`); the bias is at
    /// most n / 2⁶⁴, negligible for resampling. Returns 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_splitmix64_stream() {
        // First outputs of Vigna's splitmix64.c with x = 0 (widely published test vector).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(7);
        let mut seen = [0u32; 5];
        for _ in 0..10_000 {
            let i = r.below(5);
            assert!(i < 5);
            seen[i] += 1;
        }
        assert!(seen.iter().all(|&c| c > 1_700 && c < 2_300), "{seen:?}");
        assert_eq!(r.below(0), 0);
    }
}
