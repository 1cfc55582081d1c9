//! A counter series kept for re-mapping ([`super::collective_memory::apply_mapping`]) in a
//! packed form: what a workspace holds of every counter of every trace, and what an import
//! worker hands to the session worker (`src/workspace/wire.rs`).
//!
//! A [`Series`] costs 16 bytes a sample (an `i64` time, an `f64` value) in memory and 9–18 in
//! postcard. Counter samples are close in time and mostly integral (bytes, ns of thread time),
//! so the packed form stores the differences: the times as zigzag LEB128 varints of each
//! sample's distance from the one before (the first from 0); the values the same way when every
//! value is an integer that an `f64` holds exactly (not `-0.0`), else as the values' `f64` bits,
//! little-endian. Chromium's `thread_time` counters (µs-spaced times, ns values) take ~4 bytes a
//! sample. Lossless: [`KeptCounter::series`] gives back the exact samples, bit for bit.
//!
//! Layout of the packed bytes: one mode byte (`0` = integral value deltas, `1` = raw `f64`
//! values), then per sample its time delta and its value. Deserializing checks that the bytes
//! hold exactly the stated number of samples, so a kept counter read from untrusted bytes
//! always unpacks whole.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::collective_memory::Series;
use crate::model::nested::enc::{varint as put_varint, zigzag};

const MODE_INT: u8 = 0;
const MODE_F64: u8 = 1;

/// One counter series, packed (module doc). Build with [`KeptCounter::new`] or
/// [`KeptCounter::from_columns`]; read back with [`KeptCounter::series`].
#[derive(Clone, Debug, PartialEq)]
pub struct KeptCounter {
    name: String,
    len: usize,
    packed: Vec<u8>,
}

/// `v` as an `i64` when the `f64` is exactly that integer (not `-0.0`, not beyond ±2⁶³).
fn exact_int(v: f64) -> Option<i64> {
    // `as` saturates; the round trip through the bits rejects saturation, fractions, NaN and -0.
    let i = v as i64;
    ((i as f64).to_bits() == v.to_bits()).then_some(i)
}

/// The packed form with integral value deltas; `None` at the first value that is not an
/// exact integer.
fn pack_ints(ts_ns: &[i64], value: &[f64]) -> Option<Vec<u8>> {
    let mut packed = Vec::with_capacity(1 + ts_ns.len() * 4);
    packed.push(MODE_INT);
    let (mut last_ts, mut last_v) = (0i64, 0i64);
    for (&t, &v) in ts_ns.iter().zip(value) {
        let i = exact_int(v)?;
        put_varint(&mut packed, zigzag(t.wrapping_sub(last_ts)));
        put_varint(&mut packed, zigzag(i.wrapping_sub(last_v)));
        (last_ts, last_v) = (t, i);
    }
    packed.shrink_to_fit();
    Some(packed)
}

/// The packed form with the values' `f64` bits.
fn pack_raw(ts_ns: &[i64], value: &[f64]) -> Vec<u8> {
    let mut packed = Vec::with_capacity(1 + ts_ns.len() * 10);
    packed.push(MODE_F64);
    let mut last_ts = 0i64;
    for (&t, &v) in ts_ns.iter().zip(value) {
        put_varint(&mut packed, zigzag(t.wrapping_sub(last_ts)));
        packed.extend_from_slice(&v.to_le_bytes());
        last_ts = t;
    }
    packed.shrink_to_fit();
    packed
}

/// The inverse of [`zigzag`].
fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// Reads the packed samples one by one; `None` at the end or at a malformed byte.
struct Samples<'a> {
    bytes: &'a [u8],
    pos: usize,
    raw: bool,
    ts: i64,
    value: i64,
}

impl<'a> Samples<'a> {
    /// `None` when `packed` has no valid mode byte.
    fn new(packed: &'a [u8]) -> Option<Self> {
        let raw = match *packed.first()? {
            MODE_INT => false,
            MODE_F64 => true,
            _ => return None,
        };
        Some(Samples {
            bytes: packed,
            pos: 1,
            raw,
            ts: 0,
            value: 0,
        })
    }

    /// One varint; bits beyond the 64th of an over-long one are dropped (the packer writes
    /// none), so every byte below 0x80 ends exactly one varint.
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let b = *self.bytes.get(self.pos)?;
            self.pos += 1;
            v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Some(v);
            }
            shift = shift.saturating_add(7);
        }
    }

    fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

impl Iterator for Samples<'_> {
    type Item = (i64, f64);

    fn next(&mut self) -> Option<(i64, f64)> {
        if self.at_end() {
            return None;
        }
        self.ts = self.ts.wrapping_add(unzigzag(self.varint()?));
        let value = if self.raw {
            let b = self.bytes.get(self.pos..self.pos + 8)?;
            self.pos += 8;
            f64::from_le_bytes(b.try_into().ok()?)
        } else {
            self.value = self.value.wrapping_add(unzigzag(self.varint()?));
            self.value as f64
        };
        Some((self.ts, value))
    }
}

impl KeptCounter {
    /// Packs `series` (its samples as they are: [`series`](Self::series) gives them back).
    pub fn new(series: &Series) -> Self {
        Self::from_columns(series.name.clone(), &series.ts_ns, &series.value)
    }

    /// Packs the samples `(ts_ns[i], value[i])` (ns, the counter's unit) under `name`; the
    /// longer column's extra entries are ignored.
    pub fn from_columns(name: String, ts_ns: &[i64], value: &[f64]) -> Self {
        let len = ts_ns.len().min(value.len());
        let (ts_ns, value) = (&ts_ns[..len], &value[..len]);
        let packed = pack_ints(ts_ns, value).unwrap_or_else(|| pack_raw(ts_ns, value));
        KeptCounter { name, len, packed }
    }

    /// The counter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the series has no sample.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size of the packed samples, bytes.
    pub fn packed_bytes(&self) -> usize {
        self.packed.len()
    }

    /// The samples unpacked: exactly those it was built from.
    pub fn series(&self) -> Series {
        let mut ts_ns = Vec::with_capacity(self.len);
        let mut value = Vec::with_capacity(self.len);
        // Built by `from_columns` or checked on deserializing, so every sample reads.
        for (t, v) in Samples::new(&self.packed).into_iter().flatten() {
            ts_ns.push(t);
            value.push(v);
        }
        Series {
            name: self.name.clone(),
            ts_ns,
            value,
        }
    }
}

/// The packed bytes hold exactly `len` samples and nothing after them.
fn holds_exactly(packed: &[u8], len: usize) -> bool {
    let Some(mut s) = Samples::new(packed) else {
        return false;
    };
    // Every sample takes at least 2 bytes: no long walk over a count the bytes cannot hold.
    if len > packed.len() / 2 {
        return false;
    }
    if !s.raw {
        // Two varints a sample, each ended by the one byte of it below 0x80: a count of those
        // bytes (a loop the compiler vectorizes) and a last byte that ends a varint.
        let body = &packed[1..];
        return body.iter().filter(|&&b| b < 0x80).count() == 2 * len
            && body.last().is_none_or(|&b| b < 0x80);
    }
    (0..len).all(|_| s.next().is_some()) && s.at_end()
}

impl Serialize for KeptCounter {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Bytes<'a>(&'a [u8]);
        impl Serialize for Bytes<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(self.0)
            }
        }
        let mut s = serializer.serialize_struct("KeptCounter", 3)?;
        s.serialize_field("name", &self.name)?;
        s.serialize_field("len", &(self.len as u64))?;
        s.serialize_field("packed", &Bytes(&self.packed))?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for KeptCounter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// The packed bytes, from a byte string or (self-describing formats) a sequence.
        struct Packed(Vec<u8>);
        impl<'de> Deserialize<'de> for Packed {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Packed;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("packed counter samples")
                    }
                    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Packed, E> {
                        Ok(Packed(v.to_vec()))
                    }
                    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Packed, E> {
                        Ok(Packed(v))
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Packed, A::Error> {
                        let mut v = Vec::new();
                        while let Some(b) = a.next_element::<u8>()? {
                            v.push(b);
                        }
                        Ok(Packed(v))
                    }
                }
                d.deserialize_byte_buf(V)
            }
        }
        #[derive(Deserialize)]
        #[serde(rename = "KeptCounter")]
        struct Raw {
            name: String,
            len: u64,
            packed: Packed,
        }
        let raw = Raw::deserialize(deserializer)?;
        let len = usize::try_from(raw.len).map_err(de::Error::custom)?;
        if !holds_exactly(&raw.packed.0, len) {
            return Err(de::Error::custom(format!(
                "counter {:?}: its packed samples do not hold {len} samples",
                raw.name
            )));
        }
        Ok(KeptCounter {
            name: raw.name,
            len,
            packed: raw.packed.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(ts_ns: Vec<i64>, value: Vec<f64>) -> Series {
        Series {
            name: "c".into(),
            ts_ns,
            value,
        }
    }

    fn bits(s: &Series) -> Vec<(i64, u64)> {
        s.ts_ns
            .iter()
            .zip(&s.value)
            .map(|(t, v)| (*t, v.to_bits()))
            .collect()
    }

    #[test]
    fn integral_and_raw_values_come_back_bit_for_bit() {
        let cases = [
            series(vec![], vec![]),
            series(vec![1_000, 2_000, 2_000, 9_000], vec![5.0, 7.0, 3.0, 3.0]),
            // Extremes: wrapping deltas, the largest exact integers, a negative time.
            series(
                vec![i64::MIN, i64::MAX, -5, 0],
                vec![
                    -9.007_199_254_740_992e15,
                    9.007_199_254_740_992e15,
                    -1.0,
                    0.0,
                ],
            ),
            // -0.0, a fraction, an infinity and NaN force the raw mode.
            series(vec![1, 2, 3, 4], vec![-0.0, 0.5, f64::INFINITY, f64::NAN]),
            series(vec![10, 5], vec![1e300, 2.0]),
        ];
        for s in &cases {
            let k = KeptCounter::new(s);
            assert_eq!(k.len(), s.ts_ns.len());
            assert_eq!(bits(&k.series()), bits(s), "{s:?}");
            let wire = postcard::to_allocvec(&k).unwrap();
            let back: KeptCounter = postcard::from_bytes(&wire).unwrap();
            assert_eq!(bits(&back.series()), bits(s));
            let json = serde_json::to_string(&k).unwrap();
            let back: KeptCounter = serde_json::from_str(&json).unwrap();
            assert_eq!(bits(&back.series()), bits(s));
        }
    }

    #[test]
    fn thread_time_like_samples_pack_small() {
        // µs-spaced times around 10^13 ns and growing ns values, as Chromium's thread_time.
        let ts: Vec<i64> = (0..1000).map(|i| 12_345_678_000_000 + i * 2_000).collect();
        let v: Vec<f64> = (0..1000).map(|i| (40_000_000 + i * 1_700) as f64).collect();
        let k = KeptCounter::new(&series(ts, v));
        assert!(k.packed_bytes() <= 4 * 1000 + 16, "{}", k.packed_bytes());
    }

    #[test]
    fn damaged_packed_bytes_are_refused() {
        let k = KeptCounter::new(&series(vec![1, 2, 3], vec![1.0, 2.0, 4.0]));
        let good = postcard::to_allocvec(&k).unwrap();
        // The count is the byte after the name ("c": length 1, 'c').
        let mut more = good.clone();
        more[2] = 4;
        let mut fewer = good.clone();
        fewer[2] = 2;
        let mut mode = good.clone();
        mode[4] = 7; // after the count and the bytes' length
        for bad in [more, fewer, mode] {
            assert!(postcard::from_bytes::<KeptCounter>(&bad).is_err());
        }
        // A count the bytes cannot hold is refused before any walk.
        let huge = KeptCounter {
            name: "c".into(),
            len: 1 << 40,
            packed: vec![MODE_INT, 0, 0],
        };
        let wire = postcard::to_allocvec(&huge).unwrap();
        assert!(postcard::from_bytes::<KeptCounter>(&wire).is_err());
        assert!(postcard::from_bytes::<KeptCounter>(&good).is_ok());
    }

    #[test]
    fn any_samples_come_back_bit_for_bit() {
        use proptest::prelude::*;
        // Values: mostly integers (the packed deltas), sometimes any f64 bits (the raw mode).
        let value = prop_oneof![
            3 => (-1i64 << 53..1i64 << 53).prop_map(|i| i as f64),
            1 => any::<u64>().prop_map(f64::from_bits),
        ];
        let samples = prop::collection::vec((any::<i64>(), value), 0..40);
        let modes = [std::cell::Cell::new(0usize), std::cell::Cell::new(0)];
        proptest!(ProptestConfig::with_cases(2000), |(samples in samples)| {
            let s = series(
                samples.iter().map(|p| p.0).collect(),
                samples.iter().map(|p| p.1).collect(),
            );
            let k = KeptCounter::new(&s);
            if let Some(&m) = k.packed.first() {
                modes[usize::from(m)].set(modes[usize::from(m)].get() + 1);
            }
            let back: KeptCounter = postcard::from_bytes(&postcard::to_allocvec(&k).unwrap()).unwrap();
            prop_assert_eq!(bits(&back.series()), bits(&s));
            prop_assert_eq!(back.len(), s.ts_ns.len());
        });
        let modes = modes.map(|c| c.get());
        assert!(modes[0] > 100 && modes[1] > 100, "{modes:?}");
    }
}
