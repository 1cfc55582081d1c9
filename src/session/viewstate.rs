//! The view a link reproduces (README "Links that reproduce a view"), independent of the
//! browser so it is tested natively: [`ViewState`] ↔ the URL's hash (fragment).
//!
//! Format: `key=value` pairs joined by `&`, each key and value percent-encoded (every byte
//! but `A–Z a–z 0–9 - . _ ~` as `%XX`; `+` is also read as a space, as in a query string), in
//! a fixed order; only values that differ from the defaults are written, so a plain view has an
//! empty hash. A fragment never reaches a server, so the view (file names, frame names) stays
//! in the browser when a link is opened. Keys:
//!
//! | key | value |
//! | --- | --- |
//! | `tab` | `scaling`, `triage`, `memory` or `compare` |
//! | `metric` | `inclusive`, `self` or `count` |
//! | `sel`, `selv` | the selected hotspot's semantic frame id and its variant (`selv` only when not empty) |
//! | `sort` | a hotspot-table column (`name`, `rho`, `q`, `trials`, `range`, `median`), `-` first for descending |
//! | `filter` | the hotspot table's filter text |
//! | `input` | the input pattern |
//! | `in.<file name>` | a trial row's input override (repeatable, one per file) |
//! | `var.<file name>` | a trial row's variant label (repeatable, one per file) |
//! | `ex.<file name>` | `1`: the trial row is excluded (repeatable, one per file) |
//! | `ratio`, `abs`, `load`, `percore` | triage thresholds: drift ratio, absolute floor (s), host load, per core (`1`/`0`) |
//! | `preset`, `knobs` | the memory preset (`low`, `medium`, `high`) and its `knob=value` overrides |
//! | `map.<kind>` | the memory tab's counter-name patterns of one series kind (`device_used`, `allocator_reserved`, `allocator_allocated`, `device_total`), comma-separated, as typed, when not the default |
//! | `base`, `cand` | the Compare tab's baseline and candidate file-name globs |
//! | `file` | `<artifact id>:<file name>` of each file the view was made from (repeatable; the artifact id is `<algorithm>:<hex digest>`, e.g. `sha256:…`) |
//!
//! Parsing never fails: an unknown key, a malformed number or an unknown enum value is left out
//! (that part of the view keeps its default). Links written before a key existed read as
//! before (the part keeps its default). The hash is bounded: only its first
//! [`MAX_HASH_BYTES`] are read, a value over [`MAX_VALUE_BYTES`] is left out, and each
//! repeatable key keeps at most [`MAX_ENTRIES`] entries. Everything read is plain text for the
//! page (never HTML).

use crate::analysis::scaling::Metric;

/// A file the view was made from: its name (as shown in the trial table) and artifact id
/// (`sha256:<hex>` of its bytes, as in the import report).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpectedFile {
    pub name: String,
    pub artifact_id: String,
}

/// Hotspot-table columns a view can be sorted by (their [`SortKey::as_str`] names are the
/// hash's `sort` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKey {
    Name,
    Rho,
    Q,
    Trials,
    Range,
    Median,
}

impl SortKey {
    const ALL: [SortKey; 6] = [
        SortKey::Name,
        SortKey::Rho,
        SortKey::Q,
        SortKey::Trials,
        SortKey::Range,
        SortKey::Median,
    ];

    /// The name in the hash: `name`, `rho`, `q`, `trials`, `range`, `median`.
    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Rho => "rho",
            SortKey::Q => "q",
            SortKey::Trials => "trials",
            SortKey::Range => "range",
            SortKey::Median => "median",
        }
    }

    /// The column named `s`, if any.
    pub fn parse(s: &str) -> Option<SortKey> {
        SortKey::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Everything of a view a link carries. `None` (or empty) = the default of that part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewState {
    /// `scaling`, `triage`, `memory` or `compare` (other values are dropped when parsing).
    pub tab: Option<String>,
    pub metric: Option<Metric>,
    /// The selected hotspot: (variant, semantic frame id).
    pub selected: Option<(String, String)>,
    /// Hotspot-table sort: column and descending.
    pub sort: Option<(SortKey, bool)>,
    /// Hotspot-table filter text.
    pub filter: Option<String>,
    /// The input pattern (regex with one capture group).
    pub input: Option<String>,
    /// Input overrides by file name, in trial-table order, as typed.
    pub overrides: Vec<(String, String)>,
    /// Variant labels by file name (non-empty), in trial-table order.
    pub variants: Vec<(String, String)>,
    /// File names of the excluded trial rows, in trial-table order.
    pub excluded: Vec<String>,
    /// Triage: drift ratio threshold (×).
    pub min_ratio: Option<f64>,
    /// Triage: absolute floor, seconds.
    pub min_abs_s: Option<f64>,
    /// Triage: host load threshold.
    pub load_threshold: Option<f64>,
    /// Triage: compare the load per core.
    pub load_per_core: Option<bool>,
    /// Memory preset: `low`, `medium` or `high`.
    pub preset: Option<String>,
    /// Memory knob overrides (`knob=value`, separated by commas or spaces).
    pub knobs: Option<String>,
    /// The memory counter mapping's patterns that differ from the default: (kind of
    /// [`MAPPING_KINDS`], comma-separated patterns as typed), in that order.
    pub mapping: Vec<(String, String)>,
    /// The Compare tab's side globs over file names (`*`, `?`).
    pub baseline: Option<String>,
    pub candidate: Option<String>,
    /// The files the view was made from.
    pub files: Vec<ExpectedFile>,
}

const TABS: [&str; 4] = ["scaling", "triage", "memory", "compare"];

/// The series kinds of the memory tab's counter mapping, as the hash's `map.<kind>` names them
/// (the order of the tab's fields).
pub const MAPPING_KINDS: [&str; 4] = [
    "device_used",
    "allocator_reserved",
    "allocator_allocated",
    "device_total",
];

/// Bytes of a hash [`ViewState::parse`] reads (256 KiB; the pairs that end past it are
/// ignored). A browser keeps URLs of a few MB; a view of thousands of files fits.
pub const MAX_HASH_BYTES: usize = 256 << 10;

/// Longest value (decoded bytes) [`ViewState::parse`] takes; a longer one is left out.
pub const MAX_VALUE_BYTES: usize = 4096;

/// Most entries [`ViewState::parse`] keeps per repeatable key (`in.`, `var.`, `ex.`, `file`).
pub const MAX_ENTRIES: usize = 10_000;
const PRESETS: [&str; 3] = ["low", "medium", "high"];

/// Percent-encodes `s`: every byte but `A–Z a–z 0–9 - . _ ~` becomes `%XX`.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            // Not `format!`: a view names every imported file, and this runs on the page's
            // thread whenever the view changes.
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
    out
}

/// A finite, non-negative number as written by [`ViewState::to_hash`].
fn parse_number(s: &str) -> Option<f64> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

impl ViewState {
    /// Parses a hash (with or without its leading `#`); see the module doc.
    pub fn parse(hash: &str) -> ViewState {
        let hash = hash.strip_prefix('#').unwrap_or(hash);
        // Bounded: the pairs that end within the first MAX_HASH_BYTES.
        let hash = if hash.len() > MAX_HASH_BYTES {
            let mut end = MAX_HASH_BYTES;
            while !hash.is_char_boundary(end) {
                end -= 1;
            }
            let head = &hash[..end];
            match hash.as_bytes().get(end) {
                Some(b'&') => head,
                _ => head.rsplit_once('&').map_or("", |(h, _)| h),
            }
        } else {
            hash
        };
        let mut v = ViewState::default();
        let mut sel = None;
        let mut selv = String::new();
        for pair in hash.split('&').filter(|p| !p.is_empty()) {
            let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
            let k = super::link::decode_component(k);
            let val = super::link::decode_component(val);
            if k.len() > MAX_VALUE_BYTES || val.len() > MAX_VALUE_BYTES {
                continue;
            }
            match k.as_str() {
                "tab" if TABS.contains(&val.as_str()) => v.tab = Some(val),
                "metric" => v.metric = Metric::parse(&val).or(v.metric),
                "sel" if !val.is_empty() => sel = Some(val),
                "selv" => selv = val,
                "sort" => {
                    let (desc, name) = match val.strip_prefix('-') {
                        Some(n) => (true, n),
                        None => (false, val.as_str()),
                    };
                    v.sort = SortKey::parse(name).map(|k| (k, desc)).or(v.sort);
                }
                "filter" if !val.is_empty() => v.filter = Some(val),
                "input" if !val.is_empty() => v.input = Some(val),
                "ratio" => v.min_ratio = parse_number(&val).or(v.min_ratio),
                "abs" => v.min_abs_s = parse_number(&val).or(v.min_abs_s),
                "load" => v.load_threshold = parse_number(&val).or(v.load_threshold),
                "percore" => match val.as_str() {
                    "1" => v.load_per_core = Some(true),
                    "0" => v.load_per_core = Some(false),
                    _ => {}
                },
                "preset" if PRESETS.contains(&val.as_str()) => v.preset = Some(val),
                "knobs" if !val.is_empty() => v.knobs = Some(val),
                "base" if !val.is_empty() => v.baseline = Some(val),
                "cand" if !val.is_empty() => v.candidate = Some(val),
                "file" => {
                    // `<algorithm>:<hex digest>:<name>`; the name may hold `:` itself.
                    let parts = val.split_once(':').and_then(|(algo, rest)| {
                        let (hex, name) = rest.split_once(':')?;
                        let algo_ok =
                            !algo.is_empty() && algo.bytes().all(|b| b.is_ascii_alphanumeric());
                        let hex_ok = !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
                        (algo_ok && hex_ok && !name.is_empty()).then_some((algo, hex, name))
                    });
                    if let Some((algo, hex, name)) = parts.filter(|_| v.files.len() < MAX_ENTRIES) {
                        v.files.push(ExpectedFile {
                            name: name.to_string(),
                            artifact_id: format!("{algo}:{}", hex.to_ascii_lowercase()),
                        });
                    }
                }
                other => {
                    // A per-file entry: the later value wins; at most MAX_ENTRIES per key.
                    fn put(list: &mut Vec<(String, String)>, name: &str, val: String) {
                        list.retain(|(n, _)| n != name);
                        if list.len() < MAX_ENTRIES {
                            list.push((name.to_string(), val));
                        }
                    }
                    if let Some(name) = other.strip_prefix("in.").filter(|n| !n.is_empty()) {
                        put(&mut v.overrides, name, val);
                    } else if let Some(name) = other.strip_prefix("var.").filter(|n| !n.is_empty())
                    {
                        v.variants.retain(|(n, _)| n != name);
                        if !val.is_empty() {
                            put(&mut v.variants, name, val);
                        }
                    } else if let Some(name) = other.strip_prefix("ex.").filter(|n| !n.is_empty()) {
                        v.excluded.retain(|n| n != name);
                        if val == "1" && v.excluded.len() < MAX_ENTRIES {
                            v.excluded.push(name.to_string());
                        }
                    } else if let Some(kind) = other
                        .strip_prefix("map.")
                        .filter(|k| MAPPING_KINDS.contains(k))
                    {
                        put(&mut v.mapping, kind, val);
                    }
                }
            }
        }
        v.selected = sel.map(|frame| (selv, frame));
        v.mapping
            .sort_by_key(|(k, _)| MAPPING_KINDS.iter().position(|m| m == k));
        v
    }

    /// The hash (without `#`) that [`ViewState::parse`] reads back as `self`; empty for the
    /// default view.
    pub fn to_hash(&self) -> String {
        let mut parts: Vec<(String, String)> = Vec::new();
        let mut add = |k: &str, v: &str| parts.push((k.to_string(), v.to_string()));
        if let Some(t) = &self.tab {
            add("tab", t);
        }
        if let Some(m) = self.metric {
            add("metric", m.as_str());
        }
        if let Some((variant, frame)) = &self.selected {
            add("sel", frame);
            if !variant.is_empty() {
                add("selv", variant);
            }
        }
        if let Some((k, desc)) = self.sort {
            let name = if desc {
                format!("-{}", k.as_str())
            } else {
                k.as_str().to_string()
            };
            add("sort", &name);
        }
        if let Some(f) = &self.filter {
            add("filter", f);
        }
        if let Some(p) = &self.input {
            add("input", p);
        }
        for (name, value) in &self.overrides {
            add(&format!("in.{name}"), value);
        }
        for (name, label) in &self.variants {
            add(&format!("var.{name}"), label);
        }
        for name in &self.excluded {
            add(&format!("ex.{name}"), "1");
        }
        for (k, v) in [
            ("ratio", self.min_ratio),
            ("abs", self.min_abs_s),
            ("load", self.load_threshold),
        ] {
            if let Some(v) = v {
                add(k, &v.to_string());
            }
        }
        if let Some(p) = self.load_per_core {
            add("percore", if p { "1" } else { "0" });
        }
        if let Some(p) = &self.preset {
            add("preset", p);
        }
        if let Some(k) = &self.knobs {
            add("knobs", k);
        }
        for (kind, patterns) in &self.mapping {
            add(&format!("map.{kind}"), patterns);
        }
        if let Some(b) = &self.baseline {
            add("base", b);
        }
        if let Some(c) = &self.candidate {
            add("cand", c);
        }
        for f in &self.files {
            add("file", &format!("{}:{}", f.artifact_id, f.name));
        }
        parts
            .iter()
            .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The [`ViewState::files`] that no loaded file matches; `loaded` holds the artifact ids of
    /// the loaded files (a file matches by artifact id: the same bytes under any name).
    pub fn missing<'a>(&'a self, loaded: &[&str]) -> Vec<&'a ExpectedFile> {
        self.files
            .iter()
            .filter(|f| !loaded.contains(&f.artifact_id.as_str()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> ViewState {
        ViewState {
            tab: Some("triage".into()),
            metric: Some(Metric::SelfTime),
            selected: Some(("patched".into(), "blink::Document::build#a=b&c".into())),
            sort: Some((SortKey::Rho, true)),
            filter: Some("build dom".into()),
            input: Some(r"_n(\d+)_".into()),
            overrides: vec![
                ("a n1000.pb.gz".into(), "1200".into()),
                ("b&c=d.json".into(), "".into()),
            ],
            min_ratio: Some(3.5),
            min_abs_s: Some(0.25),
            load_threshold: Some(4.0),
            load_per_core: Some(true),
            variants: vec![
                ("a n1000.pb.gz".into(), "patched <b>".into()),
                ("c.pb".into(), "base".into()),
            ],
            excluded: vec!["warm&up=1.pb".into()],
            preset: Some("high".into()),
            knobs: Some("gap_floor_bytes=1000, min_interval_s=0.5".into()),
            mapping: vec![
                ("device_used".into(), "hbm_used, bytes in use".into()),
                ("device_total".into(), "".into()),
            ],
            baseline: Some("base_*".into()),
            candidate: Some("cand_?&x".into()),
            files: vec![ExpectedFile {
                name: "a:b n1000.pb.gz".into(),
                artifact_id: format!("sha256:{}", "ab".repeat(32)),
            }],
        }
    }

    #[test]
    fn every_part_round_trips() {
        let v = full();
        let hash = v.to_hash();
        assert_eq!(ViewState::parse(&hash), v);
        assert_eq!(ViewState::parse(&format!("#{hash}")), v);
        // Only unreserved characters, `%XX`, `=` and `&`: safe in any URL fragment.
        assert!(
            hash.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~%=&".contains(&b)),
            "{hash}"
        );
    }

    #[test]
    fn the_default_view_has_an_empty_hash() {
        assert_eq!(ViewState::default().to_hash(), "");
        assert_eq!(ViewState::parse(""), ViewState::default());
        assert_eq!(ViewState::parse("#"), ViewState::default());
    }

    #[test]
    fn the_hash_is_in_a_fixed_readable_form() {
        let v = ViewState {
            tab: Some("memory".into()),
            metric: Some(Metric::Count),
            selected: Some((String::new(), "f 1".into())),
            overrides: vec![("x_n4.pb".into(), "4".into())],
            ..ViewState::default()
        };
        assert_eq!(
            v.to_hash(),
            "tab=memory&metric=count&sel=f%201&in.x_n4.pb=4"
        );
        // UTF-8 bytes each as `%XX`, upper-case hex.
        assert_eq!(encode_component("µs é/~"), "%C2%B5s%20%C3%A9%2F~");
    }

    #[test]
    fn the_compare_tab_and_its_sides_are_kept() {
        let v = ViewState::parse("tab=compare&base=base_%2A&cand=&x=1");
        assert_eq!(v.tab.as_deref(), Some("compare"));
        assert_eq!(v.baseline.as_deref(), Some("base_*"));
        assert_eq!(v.candidate, None);
        assert_eq!(v.to_hash(), "tab=compare&base=base_%2A");
    }

    #[test]
    fn malformed_parts_are_left_out() {
        let v = ViewState::parse(
            "tab=plot&metric=wall&sort=-size&ratio=-1&abs=NaN&load=x&percore=yes&preset=max\
             &file=sha256:nothex:a.pb&file=sha256:abc:&file=sha256:abc&file=abc:a.pb&file=s-1:ab:a.pb&in.=3&unknown=1&%ZZ&sel=",
        );
        assert_eq!(v, ViewState::default());
        // `+` reads as a space, and a later value wins.
        let v = ViewState::parse("filter=a+b&metric=self&metric=count&in.f=1&in.f=2");
        assert_eq!(v.filter.as_deref(), Some("a b"));
        assert_eq!(v.metric, Some(Metric::Count));
        assert_eq!(v.overrides, vec![("f".to_string(), "2".to_string())]);
    }

    #[test]
    fn missing_files_are_matched_by_artifact_id() {
        let mut v = full();
        v.files.push(ExpectedFile {
            name: "other.pb".into(),
            artifact_id: format!("sha256:{}", "cd".repeat(32)),
        });
        let ab = format!("sha256:{}", "ab".repeat(32));
        let missing = v.missing(&[ab.as_str()]);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].name, "other.pb");
        assert_eq!(v.missing(&[]).len(), 2);
    }

    #[test]
    fn an_old_link_reads_as_it_did() {
        // A link written before variants, exclusions and the counter mapping were carried
        // (the README's example form): every part it has, the new ones at their defaults.
        let hex = "0f".repeat(32);
        let old = format!(
            "#tab=triage&metric=self&sel=f%201&selv=base&sort=-rho&in.trace_n1000.pb.gz=1200\
             &ratio=3.5&preset=low&knobs=min_confidence%3D0.6&base=base_%2A\
             &file=sha256%3A{hex}%3Atrace_n1000.pb.gz"
        );
        let v = ViewState::parse(&old);
        assert_eq!(
            v,
            ViewState {
                tab: Some("triage".into()),
                metric: Some(Metric::SelfTime),
                selected: Some(("base".into(), "f 1".into())),
                sort: Some((SortKey::Rho, true)),
                overrides: vec![("trace_n1000.pb.gz".into(), "1200".into())],
                min_ratio: Some(3.5),
                preset: Some("low".into()),
                knobs: Some("min_confidence=0.6".into()),
                baseline: Some("base_*".into()),
                files: vec![ExpectedFile {
                    name: "trace_n1000.pb.gz".into(),
                    artifact_id: format!("sha256:{hex}"),
                }],
                ..ViewState::default()
            }
        );
        assert!(v.variants.is_empty() && v.excluded.is_empty() && v.mapping.is_empty());
        // Written again, it is the same link (the new keys add nothing to an old view).
        assert_eq!(format!("#{}", v.to_hash()), old);
    }

    #[test]
    fn variants_exclusions_and_the_mapping_in_a_fixed_form() {
        let v = ViewState {
            variants: vec![("a_n1.pb".into(), "patched".into())],
            excluded: vec!["warm_n1.pb".into()],
            mapping: vec![("allocator_reserved".into(), "reserved, pool".into())],
            ..ViewState::default()
        };
        let hash = v.to_hash();
        assert_eq!(
            hash,
            "var.a_n1.pb=patched&ex.warm_n1.pb=1&map.allocator_reserved=reserved%2C%20pool"
        );
        assert_eq!(ViewState::parse(&hash), v);
        // An empty label, `ex.` other than 1 and an unknown kind are left out; a later value
        // wins; the mapping is kept in the tab's order.
        let v = ViewState::parse(
            "var.a=x&var.a=&ex.b=0&ex.c=yes&map.gpu=x&map.device_total=t&map.device_used=u",
        );
        assert!(v.variants.is_empty() && v.excluded.is_empty(), "{v:?}");
        assert_eq!(
            v.mapping,
            vec![
                ("device_used".to_string(), "u".to_string()),
                ("device_total".to_string(), "t".to_string())
            ]
        );
    }

    #[test]
    fn the_hash_is_read_within_its_bounds() {
        // A value over MAX_VALUE_BYTES is left out, the rest kept.
        let long = "x".repeat(MAX_VALUE_BYTES + 1);
        let v = ViewState::parse(&format!("var.a={long}&filter=f&var.{long}=1"));
        assert!(v.variants.is_empty());
        assert_eq!(v.filter.as_deref(), Some("f"));
        // At most MAX_ENTRIES per repeatable key.
        let many: Vec<String> = (0..MAX_ENTRIES + 5).map(|i| format!("ex.f{i}=1")).collect();
        let v = ViewState::parse(&many.join("&"));
        assert_eq!(v.excluded.len(), MAX_ENTRIES);
        // Only the pairs within the first MAX_HASH_BYTES; a pair cut by the bound is dropped.
        let filler = format!(
            "x={}",
            "p".repeat(MAX_HASH_BYTES - 2 - "&tab=memory".len() - 2)
        );
        let hash = format!("{filler}&tab=memory&metric=count");
        assert!(hash.find("&metric").unwrap() < MAX_HASH_BYTES);
        assert!(hash.len() > MAX_HASH_BYTES);
        let v = ViewState::parse(&hash);
        assert_eq!(
            v.tab.as_deref(),
            Some("memory"),
            "the pair within the bound"
        );
        assert_eq!(v.metric, None, "the pair past the bound");
        // Hostile text stays text: it round-trips unchanged, never interpreted.
        let v = ViewState {
            variants: vec![(
                "<img src=x onerror=alert(1)>".into(),
                "<script>x</script>".into(),
            )],
            ..ViewState::default()
        };
        assert_eq!(ViewState::parse(&v.to_hash()), v);
    }
}
