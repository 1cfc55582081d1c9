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

pub(super) fn text(out: &mut String, l: &Label, extra: &str) {
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="{}"{extra}>{}</text>"#,
        l.x,
        l.y,
        l.anchor.as_str(),
        escape(&l.text)
    );
}

pub(super) fn axis(out: &mut String, a: &Axis) {
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

/// Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008), as the
/// standalone SVGs and the app's style sheet (`www/style.css`) draw every series.
pub mod palette {
    pub const ORANGE: &str = "#E69F00";
    pub const SKY_BLUE: &str = "#56B4E9";
    pub const BLUISH_GREEN: &str = "#009E73";
    pub const BLUE: &str = "#0072B2";
    pub const VERMILLION: &str = "#D55E00";
    pub const REDDISH_PURPLE: &str = "#CC79A7";
    pub const GREY: &str = "#999999";
}

/// One memory lane to draw in [`memory_lanes`]: its title (`rank 0 · file`), its geometry
/// ([`crate::plot::memory::lane`]) and the classification name of each interval (same order
/// as [`crate::plot::memory::Lane::intervals`]).
pub struct LaneSvg<'a> {
    pub title: &'a str,
    pub lane: &'a crate::plot::memory::Lane,
    pub classes: &'a [&'a str],
}

/// The memory lanes stacked top to bottom as one `<svg>` element (`title` as its accessible
/// name): each lane's title, byte and time ticks, intervals shaded by class, the gap band,
/// the memory lines and the collective markers, colours from [`palette`].
pub fn memory_lanes(lanes: &[LaneSvg<'_>], title: &str) -> String {
    use crate::plot::memory::{LANE_HEIGHT, LANE_WIDTH};
    const HEAD: f64 = 18.0;
    let h = lanes.len() as f64 * (LANE_HEIGHT + HEAD);
    let mut o = String::new();
    let _ = write!(
        o,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" font-family="sans-serif" font-size="11"><title>{t}</title><rect width="{w}" height="{h}" fill="#ffffff"/>"##,
        w = LANE_WIDTH,
        t = escape(title)
    );
    for (i, l) in lanes.iter().enumerate() {
        let y0 = i as f64 * (LANE_HEIGHT + HEAD);
        let g = l.lane;
        let _ = write!(
            o,
            r##"<text x="4" y="{:.1}" font-weight="bold" fill="#222">{}</text><g transform="translate(0,{:.1})">"##,
            y0 + 13.0,
            escape(l.title),
            y0 + HEAD
        );
        axis(&mut o, &g.y_axis);
        axis(&mut o, &g.x_axis);
        let b = g.baseline;
        let _ = write!(
            o,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#999"/>"##,
            b.x1, b.y1, b.x2, b.y2
        );
        for (r, class) in g.intervals.iter().zip(l.classes) {
            let Some(r) = r else { continue };
            let fill = match *class {
                "collective_confident" => palette::VERMILLION,
                "collective_likely" => palette::ORANGE,
                _ => palette::GREY,
            };
            let _ = write!(
                o,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" fill-opacity="0.18"><title>{}</title></rect>"#,
                r.x,
                r.y,
                r.width,
                r.height,
                escape(class)
            );
        }
        if let Some(p) = &g.gap {
            let _ = write!(
                o,
                r#"<polygon points="{p}" fill="{}" fill-opacity="0.35"/>"#,
                palette::ORANGE
            );
        }
        let lines = [
            (&g.allocator_reserved, palette::BLUE, ""),
            (
                &g.allocator_allocated,
                palette::BLUISH_GREEN,
                r#" stroke-dasharray="3 2""#,
            ),
            (&g.device_used, palette::VERMILLION, ""),
        ];
        for (p, colour, extra) in lines {
            if let Some(p) = p {
                let _ = write!(
                    o,
                    r#"<polyline points="{p}" fill="none" stroke="{colour}" stroke-width="1.2"{extra}/>"#
                );
            }
        }
        for r in g.markers.iter().flatten() {
            let _ = write!(
                o,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"#,
                r.x,
                r.y,
                r.width,
                r.height,
                palette::REDDISH_PURPLE
            );
        }
        o.push_str("</g>");
    }
    o.push_str("</svg>");
    o
}

/// The compile-triage chart of one key ([`crate::plot::triage::key_chart`]) as one `<svg>`
/// element (`title` as its accessible name): cold rows grey, warm rows blue, drifted rows
/// ringed in vermillion, the pin as a dashed green line; `dot_titles[i]` is the tooltip of the
/// chart's `dots[i]`.
pub fn key_chart(c: &crate::plot::triage::KeyChart, title: &str, dot_titles: &[String]) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" font-family="sans-serif" font-size="11"><title>{t}</title><rect width="{w}" height="{h}" fill="#ffffff"/>"##,
        w = c.width,
        h = c.height,
        t = escape(title)
    );
    let r = c.area.rect();
    let _ = write!(
        o,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#ccc"/>"##,
        r.x, r.y, r.width, r.height
    );
    axis(&mut o, &c.y_axis);
    axis(&mut o, &c.x_axis);
    for (p, colour) in [(&c.cold_line, palette::GREY), (&c.warm_line, palette::BLUE)] {
        let _ = write!(
            o,
            r#"<polyline points="{p}" fill="none" stroke="{colour}" stroke-width="1"/>"#
        );
    }
    if let Some(l) = c.pin_line {
        let _ = write!(
            o,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="1.5" stroke-dasharray="6 4"/>"#,
            l.x1,
            l.y1,
            l.x2,
            l.y2,
            palette::BLUISH_GREEN
        );
    }
    for (i, d) in c.dots.iter().enumerate() {
        let fill = if d.cold { palette::GREY } else { palette::BLUE };
        let ring = if d.drift {
            format!(r#" stroke="{}" stroke-width="2.5""#, palette::VERMILLION)
        } else {
            String::new()
        };
        let tip = dot_titles.get(i).map(String::as_str).unwrap_or("");
        let _ = write!(
            o,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="{fill}"{ring}><title>{}</title></circle>"#,
            d.cx,
            d.cy,
            d.r,
            escape(tip)
        );
    }
    if let Some(t) = &c.x_axis.title {
        text(&mut o, t, r##" fill="#333""##);
    }
    o.push_str("</svg>");
    o
}
