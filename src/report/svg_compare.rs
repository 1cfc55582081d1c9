//! The comparison plots and flame graphs of issue 13 as standalone SVG documents ("download as
//! SVG" / "PNG" next to each plot, issue 11 point 7): the geometry of [`crate::plot::flame`] and
//! [`crate::plot::compare`] mapped to SVG elements with presentation attributes inline (no page
//! CSS, no script, no external reference), so a file looks like the page without the app's
//! style sheet. Every text from a trace (frame names, hover text, file names) goes through
//! [`escape`]: never markup.

use std::fmt::Write;

use super::svg::{axis, escape, palette, text};
use crate::plot::compare::{Forest, Strip};
use crate::plot::flame::FlameLayout;
use crate::plot::geom::Rect;

/// Height of the note line under a flame graph, px.
const NOTE_HEIGHT: f64 = 18.0;

fn open(o: &mut String, width: f64, height: f64, font: &str, title: &str) {
    let _ = write!(
        o,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" font-family="{font}" font-size="11"><title>{t}</title><rect width="{width}" height="{height}" fill="#ffffff"/>"##,
        t = escape(title)
    );
}

/// A flame graph ([`crate::plot::flame::layout`]) `width` px wide as one `<svg>` element
/// (`title` as its accessible name): one `<g>` per rectangle of `layout` (so
/// `layout.rects.len()` of them) holding the node's hover text as `<title>`, its `<rect>` with
/// the layout's fill, and its label (already cut to fit by the layout) clipped to the rectangle
/// by a nested `<svg>` viewport. Search matches are outlined in purple and the zoomed node's
/// ancestors faded, as on the page. `note` (e.g. the colour legend in words; empty = none) is
/// one line of text under the graph.
pub fn flame(layout: &FlameLayout, width: f64, title: &str, note: &str) -> String {
    let graph_h = layout.height.max(1.0);
    let height = if note.is_empty() {
        graph_h
    } else {
        graph_h + NOTE_HEIGHT
    };
    let mut o = String::new();
    open(&mut o, width, height, "ui-monospace, monospace", title);
    for r in &layout.rects {
        let stroke = if r.matched {
            r##" stroke="#7b1fa2" stroke-width="2""##
        } else {
            r##" stroke="#ffffff" stroke-width="0.5""##
        };
        let faded = if r.ancestor {
            r#" fill-opacity="0.45""#
        } else {
            ""
        };
        let _ = write!(
            o,
            r#"<g><title>{}</title><rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{}"{stroke}{faded}/>"#,
            escape(&r.hover),
            r.x,
            r.y,
            r.width,
            r.height,
            escape(&r.fill)
        );
        if let Some(label) = &r.label {
            let _ = write!(
                o,
                r##"<svg x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}"><text x="3" y="{:.1}" fill="#1d1f23">{}</text></svg>"##,
                r.x,
                r.y,
                r.width,
                r.height,
                (r.height - 4.0).max(0.0),
                escape(label)
            );
        }
        o.push_str("</g>");
    }
    if !note.is_empty() {
        let _ = write!(
            o,
            r##"<text x="2" y="{:.1}" font-family="sans-serif" fill="#555">{}</text>"##,
            graph_h + NOTE_HEIGHT - 5.0,
            escape(note)
        );
    }
    o.push_str("</svg>");
    o
}

/// A forest plot ([`crate::plot::compare::forest`]) as one `<svg>` element `width` × `height`
/// px (`title` as its accessible name): the ratio axis, the dashed "no change" line at 1, per
/// row its label, CI segment and estimate (vermillion and bold when highlighted, e.g. a
/// slower / faster verdict, else grey) in a `<g>` whose `<title>` is `titles[row.item]`;
/// `x_title` is written centred under the axis.
pub fn forest(
    f: &Forest,
    titles: &[String],
    width: f64,
    height: f64,
    x_title: &str,
    title: &str,
) -> String {
    let mut o = String::new();
    open(&mut o, width, height, "sans-serif", title);
    axis(&mut o, &f.axis);
    if let Some(l) = f.reference {
        let _ = write!(
            o,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-dasharray="3 3"/>"##,
            l.x1, l.y1, l.x2, l.y2
        );
    }
    for row in &f.rows {
        let tip = titles.get(row.item).map(String::as_str).unwrap_or("");
        let (colour, weight) = if row.highlight {
            (palette::VERMILLION, r#" font-weight="bold""#)
        } else {
            ("#555555", "")
        };
        let _ = write!(o, "<g><title>{}</title>", escape(tip));
        text(&mut o, &row.label, &format!(r#" fill="{colour}"{weight}"#));
        if let Some(l) = row.ci {
            let _ = write!(
                o,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-width="1.5"/>"##,
                l.x1, l.y1, l.x2, l.y2
            );
        }
        if let Some(x) = row.x {
            let fill = if row.highlight {
                palette::VERMILLION
            } else {
                palette::GREY
            };
            let _ = write!(
                o,
                r#"<circle cx="{x:.1}" cy="{:.1}" r="4" fill="{fill}"/>"#,
                row.y
            );
        }
        o.push_str("</g>");
    }
    if !x_title.is_empty() {
        let mid = (f.axis.ticks.first().map_or(0.0, |t| t.line.x1)
            + f.axis.ticks.last().map_or(width, |t| t.line.x1))
            / 2.0;
        let _ = write!(
            o,
            r##"<text x="{mid:.1}" y="{:.1}" text-anchor="middle" fill="#333">{}</text>"##,
            height - 4.0,
            escape(x_title)
        );
    }
    o.push_str("</svg>");
    o
}

/// A strip plot ([`crate::plot::compare::strip`]) as one `<svg>` element `width` × `height` px
/// (`title` as its accessible name): the frame of `area`, the value axis, a median bar per
/// group, one circle per point (blue; hollow = white with a blue ring, a zero-filled value)
/// whose `<title>` is `titles[point.value]`, and the group labels.
pub fn strip(
    s: &Strip,
    titles: &[String],
    area: Rect,
    width: f64,
    height: f64,
    title: &str,
) -> String {
    let mut o = String::new();
    open(&mut o, width, height, "sans-serif", title);
    let _ = write!(
        o,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#cccccc"/>"##,
        area.x, area.y, area.width, area.height
    );
    axis(&mut o, &s.axis);
    for l in s.medians.iter().flatten() {
        let _ = write!(
            o,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222" stroke-width="2"/>"##,
            l.x1, l.y1, l.x2, l.y2
        );
    }
    for p in &s.points {
        let paint = if p.hollow {
            format!(
                r##"fill="#ffffff" stroke="{}" stroke-width="1.5""##,
                palette::BLUE
            )
        } else {
            format!(
                r##"fill="{}" fill-opacity="0.7" stroke="#ffffff""##,
                palette::BLUE
            )
        };
        let tip = titles.get(p.value).map(String::as_str).unwrap_or("");
        let _ = write!(
            o,
            r#"<circle cx="{:.1}" cy="{:.1}" r="4" {paint}><title>{}</title></circle>"#,
            p.x,
            p.y,
            escape(tip)
        );
    }
    for l in &s.labels {
        text(&mut o, l, r##" fill="#333""##);
    }
    o.push_str("</svg>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::compare::{ForestItem, StripValue};
    use crate::plot::flame::{layout, ColorScale, FlameItem, FlameOptions};
    use crate::plot::geom::Area;

    /// Parses `svg` as XML (roxmltree: a well-formedness error fails the test) and returns its
    /// element names in document order; the root must be `<svg>`.
    fn well_formed(svg: &str) -> Vec<String> {
        let doc = roxmltree::Document::parse(svg)
            .unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{svg}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        doc.descendants()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name().to_string())
            .collect()
    }

    const HOSTILE: &str = "<script>alert(\"x\")</script> & 'q'";

    fn hostile_tree() -> Vec<FlameItem> {
        let item = |parent, value: f64, color, name: &str| FlameItem {
            parent,
            value,
            color,
            name: name.to_string(),
            hover: format!("{name} — {value} ns"),
        };
        vec![
            item(None, 100.0, Some(0.0), "Step"),
            item(Some(0), 60.0, Some(5.0), HOSTILE),
            item(Some(0), 30.0, Some(-2.0), "a&b"),
            item(Some(1), 20.0, None, "leaf \"quoted\""),
            item(Some(1), 0.01, None, "too narrow"),
        ]
    }

    #[test]
    fn flame_svg_is_well_formed_escapes_names_and_has_one_node_per_rect() {
        let items = hostile_tree();
        for (zoom, search) in [(None, ""), (Some(1), "LEAF")] {
            let l = layout(
                &items,
                &FlameOptions {
                    width: 400.0,
                    zoom,
                    search: search.into(),
                    colors: ColorScale::Diverging { max_abs: 5.0 },
                    ..FlameOptions::default()
                },
            );
            let svg = flame(&l, 400.0, "flame & <title>", "red: slower");
            let names = well_formed(&svg);
            assert!(!svg.contains("<script"), "{svg}");
            assert!(
                svg.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;")
            );
            assert_eq!(names.iter().filter(|n| *n == "g").count(), l.rects.len());
            assert_eq!(
                names.iter().filter(|n| *n == "title").count(),
                l.rects.len() + 1
            );
            for r in &l.rects {
                assert!(svg.contains(&format!("<title>{}</title>", escape(&r.hover))));
                assert!(svg.contains(&format!(r#"fill="{}""#, r.fill)));
            }
            // Labels are clipped to their rectangle by a nested viewport.
            let labelled = l.rects.iter().filter(|r| r.label.is_some()).count();
            assert!(labelled > 0);
            assert_eq!(names.iter().filter(|n| *n == "svg").count(), labelled + 1);
            assert!(!svg.contains("class="), "no page CSS");
            assert!(!svg.contains("href"), "no external reference");
            let matched = l.rects.iter().filter(|r| r.matched).count();
            assert_eq!(svg.matches("#7b1fa2").count(), matched);
            if zoom.is_some() {
                assert_eq!(matched, 1);
                assert_eq!(
                    svg.matches("fill-opacity=\"0.45\"").count(),
                    1,
                    "Step faded"
                );
            } else {
                assert_eq!(l.hidden, 1);
                assert_eq!(l.rects.len(), 4);
            }
        }
    }

    #[test]
    fn forest_svg_is_well_formed_with_a_title_per_row() {
        let items = vec![
            ForestItem {
                label: HOSTILE.into(),
                estimate: 1.3,
                low: Some(1.2),
                high: Some(1.4),
                highlight: true,
            },
            ForestItem {
                label: "same".into(),
                estimate: 1.0,
                low: Some(0.9),
                high: Some(f64::INFINITY),
                highlight: false,
            },
        ];
        let area = Area {
            left: 230.0,
            top: 8.0,
            right: 600.0,
            bottom: 52.0,
        };
        let f = crate::plot::compare::forest(&items, &area);
        let titles = vec![format!("{HOSTILE} — ratio 1.3"), "same — ratio 1".into()];
        let svg = forest(&f, &titles, 620.0, 92.0, "ratio & co", "forest");
        let names = well_formed(&svg);
        assert!(!svg.contains("<script"));
        assert_eq!(names.iter().filter(|n| *n == "g").count(), 2);
        assert_eq!(names.iter().filter(|n| *n == "circle").count(), 2);
        assert!(svg.contains(&format!("<title>{}</title>", escape(&titles[0]))));
        assert_eq!(svg.matches(palette::VERMILLION).count(), 2, "label and dot");
        assert!(svg.contains("stroke-dasharray=\"3 3\""), "the line at 1");
        assert!(svg.contains("ratio &amp; co"));
    }

    #[test]
    fn strip_svg_is_well_formed_with_a_title_per_point() {
        let v = |group, value, key, hollow| StripValue {
            group,
            value,
            key,
            hollow,
        };
        let values = vec![
            v(0, 10.0, 0, false),
            v(0, 0.0, 1, true),
            v(1, 20.0, 2, false),
        ];
        let area = Area {
            left: 80.0,
            top: 10.0,
            right: 420.0,
            bottom: 220.0,
        };
        let s = crate::plot::compare::strip(
            &values,
            &["baseline", "candidate"],
            &[Some(5.0), Some(20.0)],
            "ns",
            &area,
        );
        let titles: Vec<String> = (0..3).map(|k| format!("{HOSTILE} trial {k}")).collect();
        let svg = strip(&s, &titles, area.rect(), 440.0, 250.0, "strip");
        let names = well_formed(&svg);
        assert!(!svg.contains("<script"));
        assert_eq!(names.iter().filter(|n| *n == "circle").count(), 3);
        assert_eq!(
            svg.matches(r##"fill="#ffffff" stroke="##).count(),
            1,
            "one hollow"
        );
        for t in &titles {
            assert!(svg.contains(&format!("<title>{}</title>", escape(t))));
        }
        assert!(svg.contains(">baseline</text>") && svg.contains(">candidate</text>"));
    }
}
