//! Charts as standalone SVG text (the static HTML report, "download as SVG"): the geometry of
//! [`crate::plot`] mapped to SVG elements with presentation attributes inline, so a file looks
//! the same without the app's style sheet. Every text is escaped ([`escape`]): names from
//! traces are never markup.

use std::fmt::Write;

use crate::plot::{Axis, Label, Scatter};

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by entities: safe as XML/HTML text and
/// inside a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn text(out: &mut String, l: &Label, extra: &str) {
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="{}"{extra}>{}</text>"#,
        l.x,
        l.y,
        l.anchor.as_str(),
        escape(&l.text)
    );
}

fn axis(out: &mut String, a: &Axis) {
    for tk in &a.ticks {
        let l = tk.line;
        let stroke = if tk.grid { "#e6e6e6" } else { "#999" };
        let _ = write!(
            out,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}"/>"#,
            l.x1, l.y1, l.x2, l.y2
        );
        text(out, &tk.label, r##" fill="#555""##);
    }
}

/// The scatter plot (see [`super::hotspot::hotspot_scatter`]) as one `<svg>` element:
/// `title` as its accessible name, one `<circle>` per point with its `<title>`, whiskers and
/// medians as lines, the fitted curve as a dashed path.
pub fn scatter(s: &Scatter, title: &str) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" font-family="sans-serif" font-size="11"><title>{t}</title>"#,
        w = s.width,
        h = s.height,
        t = escape(title)
    );
    let r = s.area.rect();
    let _ = write!(
        o,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#ccc"/>"##,
        r.x, r.y, r.width, r.height
    );
    axis(&mut o, &s.y_axis);
    axis(&mut o, &s.x_axis);
    if !s.curve_path.is_empty() {
        let _ = write!(
            o,
            r##"<path d="{}" fill="none" stroke="#c60" stroke-width="1.5" stroke-dasharray="5 3"/>"##,
            escape(&s.curve_path)
        );
    }
    for w in &s.whiskers {
        for l in w.bars.iter().chain(std::iter::once(&w.median)) {
            let width = if std::ptr::eq(l, &w.median) { 2 } else { 1 };
            let _ = write!(
                o,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-width="{width}"/>"##,
                l.x1, l.y1, l.x2, l.y2
            );
        }
    }
    for p in &s.points {
        let _ = write!(
            o,
            r##"<circle cx="{:.1}" cy="{:.1}" r="4" fill="#2563eb" fill-opacity="0.65" stroke="#fff"><title>{}</title></circle>"##,
            p.cx,
            p.cy,
            escape(&p.title)
        );
    }
    if let Some(t) = &s.x_axis.title {
        text(&mut o, t, r##" fill="#333""##);
    }
    o.push_str("</svg>");
    o
}
