//! Frames and their two identities (scaling.md, "Semantic projection by provider"):
//! the versioned, provider-qualified [`SemanticFrameId`] that joins the same code across
//! artifacts, and the artifact-local frame record id.
//!
//! Architecture Invariant: a semantic frame id is computed only from the projection below —
//! never from the artifact id, timestamps, pids, tids, track ids or interning ids — so two
//! separately captured traces of the same code give the same id.

use std::collections::HashMap;
use std::fmt;

use serde::{Serialize, Serializer};
use sha2::{Digest, Sha256};

use super::strings::{StrId, StringTable};

/// Version tag of the projection; part of every semantic frame id.
pub const SEMANTIC_VERSION: &str = "sf1";

/// Index of a frame in a model's [`FrameTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FrameId(pub u32);

/// Which importer's rules define a frame's projection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Provider {
    /// `perfetto.track_event`: a TrackEvent slice.
    #[serde(rename = "perfetto.track_event")]
    PerfettoTrackEvent,
    /// `chrome_json`: a Chrome Trace Event JSON / Kineto slice.
    #[serde(rename = "chrome_json")]
    ChromeJson,
    /// `native`: a callstack frame of a native profile.
    #[serde(rename = "native")]
    Native,
    /// `python`: a Python frame.
    #[serde(rename = "python")]
    Python,
}

impl Provider {
    /// The provider name written into the projection.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::PerfettoTrackEvent => "perfetto.track_event",
            Provider::ChromeJson => "chrome_json",
            Provider::Native => "native",
            Provider::Python => "python",
        }
    }
}

/// The provider-qualified projection of a frame: everything that identifies the code, nothing
/// that identifies the run. Strings are ids into the owning model's [`StringTable`]; `None`
/// fields are left out of the projection.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameKey {
    pub provider: Provider,
    /// Slice / function name as resolved from interning.
    pub name: StrId,
    /// Category list, sorted and joined with `,` (empty when none).
    pub category: StrId,
    /// Normalized source file (see [`normalize_path`]).
    pub file: Option<StrId>,
    pub line: Option<u32>,
    pub function: Option<StrId>,
    /// Chrome task `posted_from` file (normalized) and function.
    pub posted_from_file: Option<StrId>,
    pub posted_from_function: Option<StrId>,
    /// Native frames: hex build id (or mapping path when no build id).
    pub build_id: Option<StrId>,
    /// Native frames: module-relative pc when unsymbolized.
    pub rel_pc: Option<u64>,
    pub inline_depth: Option<u32>,
}

impl FrameKey {
    /// A key with only provider, name and category set.
    pub fn named(provider: Provider, name: StrId, category: StrId) -> FrameKey {
        FrameKey {
            provider,
            name,
            category,
            file: None,
            line: None,
            function: None,
            posted_from_file: None,
            posted_from_function: None,
            build_id: None,
            rel_pc: None,
            inline_depth: None,
        }
    }
}

/// `sf1:` + hex SHA-256 of the canonical JSON encoding of a frame's projection.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SemanticFrameId(pub [u8; 32]);

impl fmt::Display for SemanticFrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One write of the 64 hex digits: a `write!` per byte took 57 of `workspace::keep`'s
        // 733 ms in V8's profile of the 18 demo trials (`flame::extract` keys frames by it).
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut hex = [0u8; 64];
        for (pair, b) in hex.chunks_exact_mut(2).zip(self.0) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 15)];
        }
        f.write_str(SEMANTIC_VERSION)?;
        f.write_str(":")?;
        f.write_str(std::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for SemanticFrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for SemanticFrameId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a frame is not joined across artifacts (scaling.md: "unmatched").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnmatchedReason {
    /// The name is empty (missing or an unresolvable interned id).
    NoName,
    /// The name is only a hex address such as `0x7f3a12`.
    AddressOnly,
    /// A native frame with neither symbol nor build id / mapping.
    NoBuildId,
}

/// One frame of a model: its projection, semantic id, and whether it can be joined.
#[derive(Clone, Debug)]
pub struct Frame {
    pub key: FrameKey,
    pub semantic_id: SemanticFrameId,
    /// `Some` when the identity is unknown or partial: never joined across artifacts.
    pub unmatched: Option<UnmatchedReason>,
}

/// All frames of one model, deduplicated by projection.
#[derive(Clone, Debug, Default)]
pub struct FrameTable {
    frames: Vec<Frame>,
    index: HashMap<FrameKey, FrameId>,
}

impl FrameTable {
    /// Returns the frame for `key`, adding it (and computing its semantic id) on first use.
    pub fn intern(&mut self, key: FrameKey, strings: &StringTable) -> FrameId {
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = FrameId(self.frames.len() as u32);
        let semantic_id = semantic_id(&key, strings);
        let unmatched = unmatched_reason(&key, strings);
        self.frames.push(Frame {
            key: key.clone(),
            semantic_id,
            unmatched,
        });
        self.index.insert(key, id);
        id
    }

    /// Estimated heap bytes of the table (frames and index; strings are the model's), O(1).
    pub fn heap_bytes(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.index.capacity() * (std::mem::size_of::<(FrameKey, FrameId)>() + 1)
    }

    /// The frame with `id`. Panics only on an id not made by this table (a programming error).
    pub fn get(&self, id: FrameId) -> &Frame {
        &self.frames[id.0 as usize]
    }

    /// All frames in id order.
    pub fn iter(&self) -> impl Iterator<Item = (FrameId, &Frame)> {
        self.frames
            .iter()
            .enumerate()
            .map(|(i, f)| (FrameId(i as u32), f))
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when the table has no frame.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// The canonical JSON text of a projection: an object with sorted keys (RFC 8785 for the
/// string and small-integer values used here), including `provider` and `v` (the version).
pub fn canonical_projection(key: &FrameKey, strings: &StringTable) -> String {
    let mut m = serde_json::Map::new(); // BTreeMap-backed: keys come out sorted
    let s = |id: StrId| serde_json::Value::String(strings.get(id).to_string());
    m.insert("v".into(), SEMANTIC_VERSION.into());
    m.insert("provider".into(), key.provider.as_str().into());
    m.insert("name".into(), s(key.name));
    m.insert("category".into(), s(key.category));
    if let Some(f) = key.file {
        m.insert("file".into(), s(f));
    }
    if let Some(l) = key.line {
        m.insert("line".into(), l.into());
    }
    if let Some(f) = key.function {
        m.insert("function".into(), s(f));
    }
    if let Some(f) = key.posted_from_file {
        m.insert("posted_from_file".into(), s(f));
    }
    if let Some(f) = key.posted_from_function {
        m.insert("posted_from_function".into(), s(f));
    }
    if let Some(b) = key.build_id {
        m.insert("build_id".into(), s(b));
    }
    if let Some(pc) = key.rel_pc {
        m.insert("rel_pc".into(), pc.into());
    }
    if let Some(d) = key.inline_depth {
        m.insert("inline_depth".into(), d.into());
    }
    serde_json::Value::Object(m).to_string()
}

/// Computes the semantic frame id of a projection.
pub fn semantic_id(key: &FrameKey, strings: &StringTable) -> SemanticFrameId {
    let digest = Sha256::digest(canonical_projection(key, strings).as_bytes());
    SemanticFrameId(digest.into())
}

/// The artifact-local frame record id: `fr1:` + hex SHA-256 of `artifact_id`, a NUL byte, and
/// the semantic frame id's text. Unique inside one artifact; differs between artifacts.
pub fn frame_record_id(artifact_id: &str, semantic: &SemanticFrameId) -> String {
    let mut h = Sha256::new();
    h.update(artifact_id.as_bytes());
    h.update([0u8]);
    h.update(semantic.to_string().as_bytes());
    let d = h.finalize();
    let mut out = String::with_capacity(4 + 64);
    out.push_str("fr1:");
    for b in d {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn unmatched_reason(key: &FrameKey, strings: &StringTable) -> Option<UnmatchedReason> {
    let name = strings.get(key.name).trim();
    if key.provider == Provider::Native && key.build_id.is_none() && key.function.is_none() {
        return Some(UnmatchedReason::NoBuildId);
    }
    if name.is_empty() && key.function.is_none() {
        return Some(UnmatchedReason::NoName);
    }
    if is_hex_address(name) && key.function.is_none() && key.file.is_none() {
        return Some(UnmatchedReason::AddressOnly);
    }
    None
}

/// True for names that are only a hex address (`0x7f3a12`, `7f3a12ab` of ≥ 8 digits).
pub fn is_hex_address(name: &str) -> bool {
    let digits = name.strip_prefix("0x").or_else(|| name.strip_prefix("0X"));
    match digits {
        Some(d) => !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit()),
        None => name.len() >= 8 && name.bytes().all(|b| b.is_ascii_hexdigit()),
    }
}

/// Normalizes a source path for the projection (scaling.md, "Path normalization"): `\` becomes
/// `/`; everything up to and including the last `site-packages/` or `dist-packages/` is
/// stripped, else a `/home/<user>/`, `/Users/<user>/` or `/root/` prefix and any virtualenv
/// prefix (`…/lib/pythonX.Y/`). The file name itself is never removed.
pub fn normalize_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    for marker in ["site-packages/", "dist-packages/"] {
        if let Some(i) = p.rfind(marker) {
            let rest = &p[i + marker.len()..];
            if !rest.is_empty() {
                return rest.to_string();
            }
        }
    }
    if let Some(i) = p.find("/lib/python") {
        // …/venv/lib/python3.11/foo.py → foo.py
        if let Some(j) = p[i + 1..]
            .find('/')
            .and_then(|a| p[i + 1 + a + 1..].find('/').map(|b| i + 1 + a + 1 + b))
        {
            let rest = &p[j + 1..];
            if !rest.is_empty() {
                return rest.to_string();
            }
        }
    }
    for home in ["/home/", "/Users/"] {
        if let Some(rest) = p.strip_prefix(home) {
            if let Some(k) = rest.find('/') {
                let r = &rest[k + 1..];
                if !r.is_empty() {
                    return r.to_string();
                }
            }
        }
    }
    if let Some(rest) = p.strip_prefix("/root/") {
        if !rest.is_empty() {
            return rest.to_string();
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_strips_site_packages_and_home() {
        assert_eq!(
            normalize_path("/usr/lib/python3/dist-packages/torch/nn/mod.py"),
            "torch/nn/mod.py"
        );
        assert_eq!(
            normalize_path("/home/ann/venv/lib/python3.11/site-packages/jax/_src/api.py"),
            "jax/_src/api.py"
        );
        assert_eq!(normalize_path("/home/ann/proj/train.py"), "proj/train.py");
        assert_eq!(normalize_path("C:\\src\\a.cc"), "C:/src/a.cc");
        assert_eq!(
            normalize_path("base/task/sequence_manager.cc"),
            "base/task/sequence_manager.cc"
        );
        assert_eq!(normalize_path("/x/site-packages/"), "/x/site-packages/");
    }

    #[test]
    fn semantic_id_ignores_table_layout_but_not_line() {
        let mut a = StringTable::default();
        let mut b = StringTable::default();
        b.intern("padding so ids differ");
        let ka = FrameKey {
            line: Some(3),
            file: Some(a.intern("f.cc")),
            ..FrameKey::named(
                Provider::PerfettoTrackEvent,
                a.intern("Run"),
                a.intern("cat"),
            )
        };
        let kb = FrameKey {
            line: Some(3),
            file: Some(b.intern("f.cc")),
            ..FrameKey::named(
                Provider::PerfettoTrackEvent,
                b.intern("Run"),
                b.intern("cat"),
            )
        };
        assert_eq!(semantic_id(&ka, &a), semantic_id(&kb, &b));
        let kc = FrameKey {
            line: Some(4),
            ..kb.clone()
        };
        assert_ne!(semantic_id(&ka, &a), semantic_id(&kc, &b));
        let kd = FrameKey {
            provider: Provider::ChromeJson,
            ..kb
        };
        assert_ne!(semantic_id(&ka, &a), semantic_id(&kd, &b));
        assert!(semantic_id(&ka, &a).to_string().starts_with("sf1:"));
        // Every byte value, both nibbles, as `{:02x}` writes them.
        let mut bytes = [0u8; 32];
        for chunk in 0..8u8 {
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = chunk * 32 + i as u8;
            }
            let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(SemanticFrameId(bytes).to_string(), format!("sf1:{want}"));
        }
        assert_eq!(semantic_id(&ka, &a).to_string().len(), 4 + 64);
    }

    #[test]
    fn hex_addresses_are_unmatched() {
        assert!(is_hex_address("0x7f00aa"));
        assert!(is_hex_address("deadbeef00"));
        assert!(!is_hex_address("Layout"));
        assert!(!is_hex_address("0x"));
        let mut s = StringTable::default();
        let mut t = FrameTable::default();
        let k = FrameKey::named(Provider::ChromeJson, s.intern("0xdeadbeef"), s.intern(""));
        let id = t.intern(k, &s);
        assert_eq!(t.get(id).unmatched, Some(UnmatchedReason::AddressOnly));
    }
}
