//! What a link to the app asks for, independent of the browser so it is tested natively: the
//! page's query string (`?trace=URL&variant=V&demo=0&input=REGEX&embed=1&baseline=GLOB&candidate=GLOB`) parsed into a
//! [`Link`]. The app fetches exactly the [`Link::traces`] named here and nothing else.

/// One `trace=` of a link, with the `variant=` that follows it (if any, before the next
/// `trace=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkTrace {
    /// As written in the link: relative to the page, or absolute.
    pub url: String,
    pub variant: Option<String>,
}

/// A parsed query string.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// Every `trace=`, in link order (empty values are skipped).
    pub traces: Vec<LinkTrace>,
    /// `demo=1|true` or `demo=0|false`; `None` when absent or anything else.
    pub demo: Option<bool>,
    /// `input=REGEX`: the input pattern (one capture group).
    pub input: Option<String>,
    /// `embed=1|true`: hide the chrome, answer the parent frame's messages.
    pub embed: bool,
    /// `baseline=GLOB` / `candidate=GLOB`: the Compare tab's side patterns (file-name globs,
    /// [`crate::workspace::glob_match`]); either opens the Compare tab.
    pub baseline: Option<String>,
    pub candidate: Option<String>,
}

impl Link {
    /// Whether the demo loads: when asked (`demo=1`), or by default on a plain visit (no
    /// `trace=`, not embedded, no `demo=0`).
    pub fn wants_demo(&self) -> bool {
        self.demo.unwrap_or(self.traces.is_empty() && !self.embed)
    }
}

/// Decodes one `application/x-www-form-urlencoded` component (`+` is a space, `%XX` a byte);
/// a malformed escape is kept as written, invalid UTF-8 is replaced.
pub fn decode_component(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn flag(v: &str) -> Option<bool> {
    match v {
        "1" | "true" | "yes" => Some(true),
        "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// Parses a query string (with or without its leading `?`). Unknown keys are ignored.
pub fn parse_query(query: &str) -> Link {
    let mut link = Link::default();
    for pair in query.trim_start_matches('?').split('&') {
        if pair.is_empty() {
            continue;
        }
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = decode_component(v);
        match decode_component(k).as_str() {
            "trace" if !v.trim().is_empty() => link.traces.push(LinkTrace {
                url: v.trim().to_string(),
                variant: None,
            }),
            "variant" => {
                if let Some(t) = link.traces.last_mut() {
                    t.variant = Some(v);
                }
            }
            "demo" => link.demo = flag(&v),
            "input" if !v.is_empty() => link.input = Some(v),
            "embed" => link.embed = flag(&v).unwrap_or(false),
            "baseline" if !v.trim().is_empty() => link.baseline = Some(v.trim().to_string()),
            "candidate" if !v.trim().is_empty() => link.candidate = Some(v.trim().to_string()),
            _ => {}
        }
    }
    link
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_in_order_with_their_variants() {
        let l = parse_query(
            "?trace=a%2Fn1.pb&variant=base&trace=http%3A%2F%2Fh%3A1%2Fn2.pb&trace=&trace=n3+x.pb&variant=new",
        );
        assert_eq!(
            l.traces,
            vec![
                LinkTrace {
                    url: "a/n1.pb".into(),
                    variant: Some("base".into())
                },
                LinkTrace {
                    url: "http://h:1/n2.pb".into(),
                    variant: None
                },
                LinkTrace {
                    url: "n3 x.pb".into(),
                    variant: Some("new".into())
                },
            ]
        );
        assert!(!l.wants_demo());
    }

    #[test]
    fn demo_input_and_embed() {
        assert!(parse_query("").wants_demo());
        assert!(!parse_query("?demo=0").wants_demo());
        assert!(parse_query("?trace=x&demo=1").wants_demo());
        assert!(!parse_query("?embed=1").wants_demo());
        let l = parse_query("input=%28%3Fi%29n%28%5Cd%2B%29&embed=true");
        assert_eq!(l.input.as_deref(), Some(r"(?i)n(\d+)"));
        assert!(l.embed);
    }

    #[test]
    fn compare_sides() {
        let l = parse_query("?trace=a.pb&baseline=base_%2A&candidate=cand_%3F.pb");
        assert_eq!(l.baseline.as_deref(), Some("base_*"));
        assert_eq!(l.candidate.as_deref(), Some("cand_?.pb"));
        let none = parse_query("?baseline=&candidate=+");
        assert_eq!((none.baseline, none.candidate), (None, None));
    }

    #[test]
    fn malformed_escapes_are_kept() {
        assert_eq!(decode_component("100%"), "100%");
        assert_eq!(decode_component("%zz%4"), "%zz%4");
        assert_eq!(decode_component("%E2%9C%93"), "✓");
        assert_eq!(decode_component("%FF"), "\u{FFFD}");
    }
}
