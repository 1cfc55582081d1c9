//! [`Chunks`]: a sequence stored in fixed-size blocks instead of one contiguous buffer, for the
//! large per-slice and per-node sequences of an import and of its reduction.
//!
//! Why: in wasm32 (dlmalloc in one linear memory that never shrinks) a `Vec` that grows is
//! copied, its old and new blocks alive at once, and one large block needs one free run that
//! large. After an import the memory is full of holes left by freed columns and importer
//! state; a sequence made of blocks fits into those holes where one block of the same total
//! size would grow the memory by its whole size (the 1 GB Perfetto trace's call tree, 8.4 M
//! nodes × 40 B: docs/benchmarks.md "Targets, session by session", session 13 of the 1 GB
//! browser target). A block is taken by a hole at least its size, so what is made later
//! uses chunks no larger than those of what is freed before it: the slice builder's pairs
//! (16,384 × 48 B), freed track by track as the slice columns are made, hold the columns'
//! chunks (16,384 × 1–8 B), and the call tree's nodes, made once most columns are freed, come
//! in chunks of 1,024 (40 KiB; session 27).

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Elements of a full chunk of [`Chunks`] by default: 16,384.
pub const CHUNK: usize = 1 << 14;

/// A sequence that grows in chunks of `N` elements (a power of two; [`CHUNK`] by default),
/// never moving one: appending never copies the sequence, and the spare room is at most one
/// chunk. Every chunk but the last is full, so element `i` is in chunk `i / N` at `i % N`.
///
/// Serializes as a sequence, exactly as a `Vec<T>` of the same elements does (postcard: a
/// varint length then the elements; JSON: an array), so a field can change from `Vec<T>` to
/// `Chunks<T>` without changing its encoding.
#[derive(Clone, PartialEq, Eq)]
pub struct Chunks<T, const N: usize = CHUNK> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T, const N: usize> Default for Chunks<T, N> {
    fn default() -> Self {
        Chunks {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T, const N: usize> Chunks<T, N> {
    /// Elements of a full chunk.
    pub const CHUNK: usize = {
        assert!(N.is_power_of_two());
        N
    };

    /// An empty sequence with room for `n` elements in its first chunk (at most a full one), so
    /// that one of up to [`Chunks::CHUNK`] elements never grows.
    pub fn with_capacity(n: usize) -> Self {
        if n == 0 {
            return Self::default();
        }
        Chunks {
            chunks: vec![Vec::with_capacity(n.min(Self::CHUNK))],
            len: 0,
        }
    }

    /// Appends `v`. The first chunk grows by half from one element (a track with a few
    /// slices holds little, as there may be millions of tracks), the others are made full
    /// size.
    pub fn push(&mut self, v: T) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < Self::CHUNK => {
                if c.len() == c.capacity() {
                    c.reserve_exact((c.len() / 2 + 1).min(Self::CHUNK - c.len()));
                }
                c.push(v)
            }
            _ => {
                let mut c = if self.chunks.is_empty() {
                    self.chunks.reserve_exact(1);
                    Vec::with_capacity(1)
                } else {
                    Vec::with_capacity(Self::CHUNK)
                };
                c.push(v);
                self.chunks.push(c);
            }
        }
        self.len += 1;
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`; `None` past the end.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / Self::CHUNK)?.get(i % Self::CHUNK)
    }

    /// Element `i`, to change; `None` past the end.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.chunks
            .get_mut(i / Self::CHUNK)?
            .get_mut(i % Self::CHUNK)
    }

    /// The elements in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    /// The elements in order, to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.chunks.iter_mut().flatten()
    }

    /// The chunks in order, as slices (every one but the last [`Chunks::CHUNK`] elements long): for a
    /// loop over a whole sequence without indexing each element.
    pub fn as_slices(&self) -> impl DoubleEndedIterator<Item = &[T]> {
        self.chunks.iter().map(Vec::as_slice)
    }

    /// True when `v` is one of the elements.
    pub fn contains(&self, v: &T) -> bool
    where
        T: PartialEq,
    {
        self.iter().any(|x| x == v)
    }

    /// Removes every element, freeing the chunks.
    pub fn clear(&mut self) {
        *self = Chunks::default();
    }

    /// Gives back the spare room of the last chunk and of the chunk list.
    pub fn shrink_to_fit(&mut self) {
        if let Some(c) = self.chunks.last_mut() {
            c.shrink_to_fit();
        }
        self.chunks.shrink_to_fit();
    }

    /// Appends the elements of `more`: its chunks are moved when these end on a chunk
    /// boundary, else copied into full chunks, each of `more`'s freed once copied.
    pub fn append(&mut self, more: Chunks<T, N>)
    where
        T: Copy,
    {
        if self.len % Self::CHUNK == 0 && self.chunks.last().is_none_or(|c| c.len() == Self::CHUNK)
        {
            self.len += more.len;
            self.chunks.extend(more.chunks);
            return;
        }
        for c in more.chunks {
            self.extend_from_slice(&c);
        }
    }

    /// Appends copies of `xs`, filling the last chunk first.
    pub fn extend_from_slice(&mut self, mut xs: &[T])
    where
        T: Copy,
    {
        while !xs.is_empty() {
            let room = match self.chunks.last_mut() {
                Some(c) if c.len() < Self::CHUNK => {
                    let n = xs.len().min(Self::CHUNK - c.len());
                    c.reserve_exact(n);
                    c.extend_from_slice(&xs[..n]);
                    n
                }
                _ => {
                    let n = xs.len().min(Self::CHUNK);
                    // A first chunk is made at the size it takes (as `push` grows it).
                    let cap = if self.chunks.is_empty() {
                        n
                    } else {
                        Self::CHUNK
                    };
                    let mut c = Vec::with_capacity(cap);
                    c.extend_from_slice(&xs[..n]);
                    self.chunks.push(c);
                    n
                }
            };
            self.len += room;
            xs = &xs[room..];
        }
    }

    /// The chunks in order, each given up as it is reached (each is freed once its elements
    /// are consumed).
    pub fn into_chunks(self) -> impl Iterator<Item = Vec<T>> {
        self.chunks.into_iter()
    }

    /// Bytes held on the heap (the chunks' capacities and the chunk list).
    pub fn heap_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<T>())
            .sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Vec<T>>()
    }
}

impl<T: Clone, const N: usize> Chunks<T, N> {
    /// `n` copies of `v`, every chunk made at its final size at once (no growth).
    pub fn filled(n: usize, v: T) -> Self {
        let mut chunks = Vec::with_capacity(n.div_ceil(Self::CHUNK));
        let mut left = n;
        while left > 0 {
            let k = left.min(Self::CHUNK);
            chunks.push(vec![v.clone(); k]);
            left -= k;
        }
        Chunks { chunks, len: n }
    }
}

/// Panics when `i` is out of range, like indexing a slice.
impl<T, const N: usize> std::ops::Index<usize> for Chunks<T, N> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

/// Panics when `i` is out of range, like indexing a slice.
impl<T, const N: usize> std::ops::IndexMut<usize> for Chunks<T, N> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

impl<T, const N: usize> FromIterator<T> for Chunks<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Chunks::default();
        for v in iter {
            out.push(v);
        }
        out
    }
}

/// Equal to an array of the same elements.
impl<T: PartialEq, const M: usize, const N: usize> PartialEq<[T; M]> for Chunks<T, N> {
    fn eq(&self, other: &[T; M]) -> bool {
        self.len == M && self.iter().eq(other.iter())
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a Chunks<T, N> {
    type Item = &'a T;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Vec<T>>>;
    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter().flatten()
    }
}

/// Equal to a `Vec` of the same elements.
impl<T: PartialEq, const N: usize> PartialEq<Vec<T>> for Chunks<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.len == other.len() && self.iter().eq(other.iter())
    }
}

/// Prints as the list of its elements (as a `Vec<T>` would).
impl<T: std::fmt::Debug, const N: usize> std::fmt::Debug for Chunks<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Serialize, const N: usize> Serialize for Chunks<T, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        // The length up front: postcard needs it (a flattened iterator's size hint is not
        // exact, so `collect_seq` would leave it out).
        let mut seq = s.serialize_seq(Some(self.len))?;
        for v in self.iter() {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for Chunks<T, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Seq<T, const N: usize>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for Seq<T, N> {
            type Value = Chunks<T, N>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            // The length a payload states is not trusted for an allocation: the chunks grow
            // as elements actually arrive.
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Chunks<T, N>, A::Error> {
                let mut out = Chunks::default();
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Seq::<T, N>(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushing, `filled`, indexing, `get`, iteration and `into_chunks` agree with a `Vec` at
    /// lengths around the chunk boundaries; every chunk but the last is full.
    #[test]
    fn chunks_behave_as_a_vec_across_chunk_boundaries() {
        for n in [
            0,
            1,
            2,
            3,
            Chunks::<u64>::CHUNK - 1,
            Chunks::<u64>::CHUNK,
            Chunks::<u64>::CHUNK + 1,
            3 * Chunks::<u64>::CHUNK + 7,
        ] {
            let want: Vec<u64> = (0..n as u64).map(|i| i * 3 + 1).collect();
            let mut pushed = Chunks::default();
            for &v in &want {
                pushed.push(v);
            }
            let mut filled = Chunks::filled(n, 0u64);
            for (i, &v) in want.iter().enumerate() {
                filled[i] = v;
            }
            for c in [&pushed, &filled] {
                assert_eq!(c.len(), n);
                assert_eq!(c.is_empty(), n == 0);
                assert_eq!(c.iter().copied().collect::<Vec<_>>(), want, "n {n}");
                assert_eq!(c.iter().rev().count(), n);
                for i in [0, n / 2, n.saturating_sub(1)] {
                    if i < n {
                        assert_eq!(c[i], want[i]);
                        assert_eq!(c.get(i), Some(&want[i]));
                    }
                }
                assert_eq!(c.get(n), None);
                let chunks: Vec<Vec<u64>> = c.clone().into_chunks().collect();
                let k = chunks.len();
                assert!(chunks[..k.saturating_sub(1)]
                    .iter()
                    .all(|x| x.len() == Chunks::<u64>::CHUNK));
                assert_eq!(chunks.concat(), want);
            }
            assert_eq!(pushed, filled);
            assert_eq!(want.iter().copied().collect::<Chunks<u64>>(), pushed);
            assert_eq!(format!("{pushed:?}"), format!("{want:?}"));
            if let Some(v) = filled.get_mut(n.wrapping_sub(1)) {
                *v = 0;
                assert_ne!(pushed, filled);
            }
        }
    }

    /// A chunk length other than the default keeps the layout (every chunk but the last
    /// full) and reads back as a `Vec`.
    #[test]
    fn a_smaller_chunk_length_keeps_the_layout() {
        let want: Vec<u32> = (0..2_500).collect();
        let c: Chunks<u32, 1024> = want.iter().copied().collect();
        let lens: Vec<usize> = c.as_slices().map(<[u32]>::len).collect();
        assert_eq!(lens, [1024, 1024, 452]);
        assert_eq!(c, want);
        assert_eq!(c[1024], 1024);
    }

    /// `append` (chunks moved on a chunk boundary, copied otherwise), `extend_from_slice`,
    /// `iter_mut`, `as_slices` and `shrink_to_fit` give what a `Vec` gives, with every chunk
    /// but the last full.
    #[test]
    fn appending_keeps_the_chunk_layout() {
        let full = Chunks::<u64>::CHUNK;
        for (a, b) in [
            (0, 5),
            (5, 0),
            (full, full + 3),
            (full - 1, 2 * full),
            (3, full + 1),
        ] {
            let va: Vec<u64> = (0..a as u64).collect();
            let vb: Vec<u64> = (0..b as u64).map(|i| i + 1_000_000).collect();
            let mut x: Chunks<u64> = va.iter().copied().collect();
            x.append(vb.iter().copied().collect());
            let mut y: Chunks<u64> = va.iter().copied().collect();
            y.extend_from_slice(&vb);
            let want = [va.clone(), vb.clone()].concat();
            for c in [&mut x, &mut y] {
                assert_eq!(*c, want, "a {a} b {b}");
                let slices: Vec<&[u64]> = c.as_slices().collect();
                let k = slices.len();
                assert!(slices[..k.saturating_sub(1)]
                    .iter()
                    .all(|s| s.len() == full));
                for v in c.iter_mut() {
                    *v += 1;
                }
                c.shrink_to_fit();
                assert_eq!(c.len(), want.len());
                assert_eq!(
                    c.iter().copied().collect::<Vec<_>>(),
                    want.iter().map(|v| v + 1).collect::<Vec<_>>()
                );
            }
        }
    }

    /// `with_capacity` sizes the first chunk: up to a full chunk nothing grows, beyond it the
    /// layout is the pushed one's.
    #[test]
    fn with_capacity_sizes_the_first_chunk() {
        for n in [0, 1, 100, Chunks::<u64>::CHUNK, Chunks::<u64>::CHUNK + 5] {
            let mut c = Chunks::<u64>::with_capacity(n);
            let held = c.heap_bytes();
            for i in 0..n as u64 {
                c.push(i);
            }
            if n <= Chunks::<u64>::CHUNK {
                assert_eq!(c.heap_bytes(), held, "n {n}: no growth");
            }
            assert_eq!(c, (0..n as u64).collect::<Vec<_>>());
            let pushed: Chunks<u64> = (0..n as u64).collect();
            let lens = |c: &Chunks<u64>| c.as_slices().map(<[u64]>::len).collect::<Vec<_>>();
            assert_eq!(lens(&c), lens(&pushed));
        }
    }

    /// The encoding is a `Vec`'s, in postcard (the wire form) and JSON, both ways.
    #[test]
    fn chunks_encode_as_a_vec() {
        let want: Vec<(u32, i64)> = (0..Chunks::<(u32, i64)>::CHUNK as u32 + 5)
            .map(|i| (i, -(i as i64)))
            .collect();
        let c: Chunks<(u32, i64)> = want.iter().copied().collect();
        let bytes = postcard::to_allocvec(&c).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&want).unwrap());
        let back: Chunks<(u32, i64)> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, c);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, serde_json::to_string(&want).unwrap());
        assert_eq!(
            serde_json::from_str::<Chunks<(u32, i64)>>(&json).unwrap(),
            c
        );
        // A stated length far beyond the bytes that follow fails without allocating it.
        let mut lying = postcard::to_allocvec(&(u32::MAX as usize)).unwrap();
        lying.extend_from_slice(&bytes[3..]);
        assert!(postcard::from_bytes::<Chunks<(u32, i64)>>(&lying).is_err());
    }
}
