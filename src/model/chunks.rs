//! [`Chunks`]: a sequence stored in fixed-size blocks instead of one contiguous buffer, for the
//! large per-slice and per-node sequences of an import and of its reduction.
//!
//! Why: in wasm32 (dlmalloc in one linear memory that never shrinks) a `Vec` that grows is
//! copied, its old and new blocks alive at once, and one large block needs one free run that
//! large. After an import the memory is full of holes left by freed columns and importer
//! state; a sequence made of [`CHUNK`]-element blocks fits into those holes where one block
//! of the same total size would grow the memory by its whole size (the 1 GB Perfetto trace's
//! call tree, 8.4 M nodes × 40 B: docs/benchmarks.md "Targets, session by session", session 13
//! of the 1 GB browser target).

use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Elements per chunk of [`Chunks`] (the first chunk grows up to this size).
pub const CHUNK: usize = 1 << 14;

/// A sequence that grows in chunks of [`CHUNK`] elements, never moving one: appending never
/// copies the sequence, and the spare room is at most one chunk. Every chunk but the last is
/// full, so element `i` is in chunk `i / CHUNK` at `i % CHUNK`.
///
/// Serializes as a sequence, exactly as a `Vec<T>` of the same elements does (postcard: a
/// varint length then the elements; JSON: an array), so a field can change from `Vec<T>` to
/// `Chunks<T>` without changing its encoding.
#[derive(Clone, PartialEq, Eq)]
pub struct Chunks<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Chunks {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunks<T> {
    /// Appends `v`. The first chunk grows by half from one element (a track with a few
    /// slices holds little, as there may be millions of tracks), the others are made full
    /// size.
    pub fn push(&mut self, v: T) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => {
                if c.len() == c.capacity() {
                    c.reserve_exact((c.len() / 2 + 1).min(CHUNK - c.len()));
                }
                c.push(v)
            }
            _ => {
                let mut c = if self.chunks.is_empty() {
                    self.chunks.reserve_exact(1);
                    Vec::with_capacity(1)
                } else {
                    Vec::with_capacity(CHUNK)
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
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    /// Element `i`, to change; `None` past the end.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.chunks.get_mut(i / CHUNK)?.get_mut(i % CHUNK)
    }

    /// The elements in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.chunks.iter().flatten()
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

impl<T: Clone> Chunks<T> {
    /// `n` copies of `v`, every chunk made at its final size at once (no growth).
    pub fn filled(n: usize, v: T) -> Self {
        let mut chunks = Vec::with_capacity(n.div_ceil(CHUNK));
        let mut left = n;
        while left > 0 {
            let k = left.min(CHUNK);
            chunks.push(vec![v.clone(); k]);
            left -= k;
        }
        Chunks { chunks, len: n }
    }
}

/// Panics when `i` is out of range, like indexing a slice.
impl<T> std::ops::Index<usize> for Chunks<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

/// Panics when `i` is out of range, like indexing a slice.
impl<T> std::ops::IndexMut<usize> for Chunks<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl<T> FromIterator<T> for Chunks<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Chunks::default();
        for v in iter {
            out.push(v);
        }
        out
    }
}

/// Prints as the list of its elements (as a `Vec<T>` would).
impl<T: std::fmt::Debug> std::fmt::Debug for Chunks<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Serialize> Serialize for Chunks<T> {
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

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Chunks<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Seq<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Seq<T> {
            type Value = Chunks<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            // The length a payload states is not trusted for an allocation: the chunks grow
            // as elements actually arrive.
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Chunks<T>, A::Error> {
                let mut out = Chunks::default();
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Seq(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushing, `filled`, indexing, `get`, iteration and `into_chunks` agree with a `Vec` at
    /// lengths around the chunk boundaries; every chunk but the last is full.
    #[test]
    fn chunks_behave_as_a_vec_across_chunk_boundaries() {
        for n in [0, 1, 2, 3, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7] {
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
                    .all(|x| x.len() == CHUNK));
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

    /// The encoding is a `Vec`'s, in postcard (the wire form) and JSON, both ways.
    #[test]
    fn chunks_encode_as_a_vec() {
        let want: Vec<(u32, i64)> = (0..CHUNK as u32 + 5).map(|i| (i, -(i as i64))).collect();
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
