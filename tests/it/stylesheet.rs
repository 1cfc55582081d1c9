//! The style sheet's dark mode and palette (`www/style.css`), checked on its text (the
//! browser test `browser_dark_mode` checks the rendered page with the media feature
//! emulated).
//!
//! * Both the light `:root` and the `prefers-color-scheme: dark` one define the text, muted
//!   text and ground colours; text on ground has a WCAG 2 contrast ratio of at least 7:1 and
//!   muted text at least 4.5:1 in both.
//! * The series colours are Okabe & Ito's palette, the same hex values as
//!   `trialscope::report::svg::palette` (the standalone SVGs).

use std::collections::BTreeMap;

const CSS: &str = include_str!("../../www/style.css");

/// The `--name: #rrggbb` custom properties of the first `:root { … }` block after `from`.
fn root_vars(from: usize) -> BTreeMap<String, String> {
    let at = CSS[from..].find(":root").expect(":root") + from;
    let open = CSS[at..].find('{').unwrap() + at;
    let close = CSS[open..].find('}').unwrap() + open;
    let mut body = CSS[open + 1..close].to_string();
    while let Some(a) = body.find("/*") {
        let b = body[a..].find("*/").map_or(body.len(), |b| a + b + 2);
        body.replace_range(a..b, "");
    }
    body.split(';')
        .filter_map(|d| {
            let (k, v) = d.split_once(':')?;
            let k = k.trim();
            k.starts_with("--")
                .then(|| (k.to_string(), v.trim().to_string()))
        })
        .collect()
}

/// WCAG 2 relative luminance of `#rrggbb` (or `#rgb`).
fn luminance(hex: &str) -> f64 {
    let h = hex.trim_start_matches('#');
    let long: String = h.chars().flat_map(|c| [c, c]).collect();
    let h = if h.len() == 3 { long.as_str() } else { h };
    assert_eq!(h.len(), 6, "{hex}");
    let c = |i: usize| {
        let v = u8::from_str_radix(&h[i..i + 2], 16).unwrap() as f64 / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * c(0) + 0.7152 * c(2) + 0.0722 * c(4)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn light_and_dark_mode_have_readable_contrast() {
    let light = root_vars(0);
    let dark_at = CSS
        .find("@media (prefers-color-scheme: dark)")
        .expect("a dark mode from prefers-color-scheme");
    let dark = root_vars(dark_at);
    for (mode, v) in [("light", &light), ("dark", &dark)] {
        let (fg, muted, bg) = (&v["--fg"], &v["--muted"], &v["--bg"]);
        assert!(contrast(fg, bg) >= 7.0, "{mode}: text {fg} on {bg}");
        assert!(contrast(muted, bg) >= 4.5, "{mode}: muted {muted} on {bg}");
        let plot = v.get("--plot-bg").or(light.get("--plot-bg")).unwrap();
        assert!(
            contrast(fg, plot) >= 7.0,
            "{mode}: text {fg} on plots {plot}"
        );
    }
    // Dark really is dark.
    assert!(luminance(&dark["--bg"]) < 0.05 && luminance(&light["--bg"]) > 0.9);
    // A known value: black on white is 21:1.
    assert!((contrast("#000000", "#ffffff") - 21.0).abs() < 1e-9);
}

#[test]
fn series_colours_are_the_okabe_ito_palette() {
    use trialscope::report::svg::palette;
    let light = root_vars(0);
    for (var, hex) in [
        ("--oi-orange", palette::ORANGE),
        ("--oi-sky", palette::SKY_BLUE),
        ("--oi-green", palette::BLUISH_GREEN),
        ("--oi-blue", palette::BLUE),
        ("--oi-vermillion", palette::VERMILLION),
        ("--oi-purple", palette::REDDISH_PURPLE),
    ] {
        assert_eq!(light[var].to_uppercase(), hex.to_uppercase(), "{var}");
    }
    // The memory lanes' and the triage chart's series use the palette, not fixed colours.
    for rule in [
        "polyline.used",
        "polyline.reserved",
        "polyline.allocated",
        "polygon.gap",
        "rect.marker",
        "polyline.warm",
        "circle.drift",
    ] {
        let at = CSS.find(rule).unwrap_or_else(|| panic!("{rule}"));
        let body = &CSS[at..at + CSS[at..].find('}').unwrap()];
        assert!(body.contains("var(--oi-"), "{rule}: {body}");
    }
}
