//! Robustness: arbitrary bytes, arbitrary truncations and byte edits of real traces never panic
//! or hang the Chrome JSON importer, and whatever is imported is well formed.

use proptest::prelude::*;
use trialscope::formats::{self, testing::chrome_json_import};
use trialscope::model::Model;

use crate::support::corpus;

fn seeds() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = [
        "B01_trailing_comma.json",
        "B06_id_field_representations.json",
        "B08a_unescaped_backslash.json",
        "B08b_unescaped_quote.json",
        "B14_counters_tid_multiseries.json",
        "B15_unbalanced_begin_end.json",
        "B19_memory_events_schemas.json",
    ]
    .iter()
    .map(|f| std::fs::read(corpus("quirks").join(f)).unwrap())
    .collect();
    v.push(
        std::fs::read(corpus(
            "public/perfetto-difftests/json/json_pid_tid_zero.json",
        ))
        .unwrap(),
    );
    v
}

/// Structural invariants of any imported model.
fn check(m: &Model) {
    let s = &m.slices;
    let n = s.len();
    for col in [
        s.dur_ns.len(),
        s.track.len(),
        s.name.len(),
        s.depth.len(),
        s.parent.len(),
        s.flags.len(),
    ] {
        assert_eq!(col, n);
    }
    for i in 0..n {
        assert!((s.track[i].0 as usize) < m.tracks.len());
        assert!(s.dur_ns[i] >= -1);
        if let Some(p) = s.parent.get(i) {
            assert!((p.0 as usize) < n);
            assert_eq!(s.track[p.0 as usize], s.track[i]);
        }
    }
    for c in &m.counters {
        assert_eq!(c.ts_ns.len(), c.value.len());
        assert!(c.ts_ns.windows(2).all(|w| w[0] <= w[1]));
    }
}

fn import_json(bytes: &[u8]) {
    let mut m = Model::default();
    if chrome_json_import(bytes, "fuzz.json", &mut m, &mut |_| {}).is_ok() {
        check(&m);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = formats::import("fuzz.bin", &bytes);
        import_json(&bytes);
        // The same bytes inside an event array and inside an event object.
        let mut a = b"[{\"ph\":\"X\",\"name\":".to_vec();
        a.extend_from_slice(&bytes);
        import_json(&a);
        let mut o = b"{\"traceEvents\":[".to_vec();
        o.extend_from_slice(&bytes);
        import_json(&o);
    }

    #[test]
    fn json_like_token_soup_never_panics(toks in proptest::collection::vec(prop::sample::select(vec![
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\"ph\"", "\"X\"", "\"B\"", "\"E\"", "\"C\"",
        "\"b\"", "\"e\"", "\"ts\"", "\"dur\"", "1", "-1", "1e308", "99999999999999999999999",
        "\"args\"", "\"id2\"", "\"local\"", "\"pid\"", "\"tid\"", "\"name\"", "null", "NaN",
        "\n", "\u{1}", "\u{ff}", "\"[memory]\"", "\"Total Allocated\"", "true",
    ]), 0..200)) {
        let text: String = toks.concat();
        import_json(text.as_bytes());
        let wrapped = format!("[{text}");
        import_json(wrapped.as_bytes());
    }

    #[test]
    fn truncations_and_edits_of_real_traces_never_panic(
        which in 0usize..8,
        cut in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        let all = seeds();
        let seed = &all[which % all.len()];
        let mut b = seed[..cut.index(seed.len() + 1)].to_vec();
        for (at, byte) in edits {
            if !b.is_empty() {
                let i = at.index(b.len());
                b[i] = byte;
            }
        }
        import_json(&b);
        let _ = formats::import("cut.json", &b);
    }
}

/// Every prefix of a real trace imports without panic, and the complete events before the cut
/// are kept (never more slices than the whole file gives).
#[test]
fn every_prefix_of_a_quirk_file_imports() {
    for seed in seeds() {
        let mut full = Model::default();
        chrome_json_import(&seed, "full.json", &mut full, &mut |_| {}).unwrap();
        for cut in 1..seed.len() {
            let mut m = Model::default();
            if chrome_json_import(&seed[..cut], "cut.json", &mut m, &mut |_| {}).is_ok() {
                check(&m);
                assert!(m.slices.len() <= full.slices.len() + 1);
            }
        }
    }
}

/// Pathological inputs finish quickly (no quadratic resync, no deep recursion).
#[test]
fn pathological_inputs_finish() {
    let t = std::time::Instant::now();
    let mut deep = b"[".to_vec();
    deep.extend(std::iter::repeat_n(b'[', 1_000_000));
    import_json(&deep);
    let mut braces = b"[".to_vec();
    braces.extend(std::iter::repeat_n(b'{', 200_000));
    import_json(&braces);
    let mut quotes = b"[{\"name\":\"".to_vec();
    quotes.extend(std::iter::repeat_n(b'"', 200_000));
    import_json(&quotes);
    assert!(t.elapsed().as_secs() < 30, "{:?}", t.elapsed());
}
