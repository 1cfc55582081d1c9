//! Flame-graph geometry (issue 13): rectangles (x, width, depth) of a tree of values, the
//! diverging colour scale of a differential or scaling flame graph, zoom to a node, search
//! matches and keyboard navigation. Plot-owned input ([`FlameItem`]); the UI adapts an
//! `analysis::flame::FlameTree` into it (value = node width, colour = shift or ρ, hover text).
//!
//! Layout: roots side by side from x = 0, each node's children left to right from the node's x,
//! in input order. Width ∝ value. Aggregated (median) trees are not additive: when a node's
//! children sum to more than the node, they are scaled down together to fit inside it, so a
//! child never sticks out of its parent. Depth 0 is the top row (icicle order); the UI may flip
//! rows for a bottom-up flame graph with `y = height − (depth + 1)·row_height`.

/// One node of the tree to draw. Items are in depth-first order: `parent < index`.
#[derive(Clone, Debug, PartialEq)]
pub struct FlameItem {
    /// Index of the parent item; `None` for a root.
    pub parent: Option<usize>,
    /// Width value (≥ 0; negative and non-finite values count as 0), e.g. ns.
    pub value: f64,
    /// Colour value for [`ColorScale::Diverging`] (shift in ns, or ρ); `None` = neutral.
    pub color: Option<f64>,
    /// Frame name, drawn inside the rectangle when it fits and used by search.
    pub name: String,
    /// Hover / accessible text (e.g. "name — shift +3.1 ms, q 0.004").
    pub hover: String,
}

/// How rectangles are filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColorScale {
    /// The classic warm flame palette, a deterministic hue per name (no meaning).
    Warm,
    /// Diverging around 0: red for positive (slower, or cost growing with the input), blue for
    /// negative, light grey at 0 and for items without a colour value; saturation reaches its
    /// maximum at |value| ≥ `max_abs` (> 0).
    Diverging { max_abs: f64 },
}

/// Layout options.
#[derive(Clone, Debug, PartialEq)]
pub struct FlameOptions {
    /// Drawing width, px.
    pub width: f64,
    /// Row height, px.
    pub row_height: f64,
    /// Zoomed item: it spans the whole width, its ancestors are drawn full-width above it
    /// (`ancestor: true`), items outside its subtree are not drawn. `None` = the whole tree.
    pub zoom: Option<usize>,
    /// Case-insensitive substring matched against names; empty = no search.
    pub search: String,
    pub colors: ColorScale,
    /// Rectangles narrower than this are not drawn (counted in [`FlameLayout::hidden`]), px.
    pub min_width: f64,
    /// A label is drawn when the rectangle is at least this wide, px; it is cut to fit with an
    /// ellipsis at ~`char_width` px per character.
    pub min_label_width: f64,
    pub char_width: f64,
}

impl Default for FlameOptions {
    fn default() -> Self {
        FlameOptions {
            width: 1000.0,
            row_height: 18.0,
            zoom: None,
            search: String::new(),
            colors: ColorScale::Warm,
            min_width: 0.5,
            min_label_width: 24.0,
            char_width: 7.0,
        }
    }
}

/// One drawn rectangle.
#[derive(Clone, Debug, PartialEq)]
pub struct FlameRect {
    /// Index of the item.
    pub item: usize,
    /// Left edge and width, px.
    pub x: f64,
    pub width: f64,
    /// Row (0 = top; the zoomed item's ancestors take the first rows).
    pub depth: u32,
    /// Top edge (`depth · row_height`) and height (`row_height − 1`, a 1 px gap), px.
    pub y: f64,
    pub height: f64,
    /// CSS colour `#rrggbb`.
    pub fill: String,
    /// The label drawn inside (cut to fit), `None` when too narrow.
    pub label: Option<String>,
    /// The item's hover text.
    pub hover: String,
    /// The name matches the search.
    pub matched: bool,
    /// An ancestor of the zoomed item (drawn full-width above it, usually faded).
    pub ancestor: bool,
}

/// The geometry of a flame graph.
#[derive(Clone, Debug, PartialEq)]
pub struct FlameLayout {
    /// Rectangles in item order (depth-first: a parent before its children).
    pub rects: Vec<FlameRect>,
    /// Total height, px.
    pub height: f64,
    /// Items not drawn because narrower than `min_width` (or inside such an item).
    pub hidden: usize,
    /// Search: matching items (drawn or not).
    pub matches: usize,
    /// Search: the fraction of the shown total covered by matching items (nested matches
    /// counted once), in [0, 1]; 0 without a search.
    pub matched_fraction: f64,
}

fn val(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

/// Children lists of `items` (in input order).
pub fn children(items: &[FlameItem]) -> Vec<Vec<usize>> {
    let mut ch = vec![Vec::new(); items.len()];
    for (i, it) in items.iter().enumerate() {
        if let Some(p) = it.parent.filter(|&p| p < i) {
            ch[p].push(i);
        }
    }
    ch
}

/// Lays `items` out (see the module doc).
pub fn layout(items: &[FlameItem], opts: &FlameOptions) -> FlameLayout {
    let ch = children(items);
    let needle = opts.search.to_lowercase();
    let is_match = |i: usize| !needle.is_empty() && items[i].name.to_lowercase().contains(&needle);
    let mut rects = Vec::new();
    let mut hidden = 0usize;
    let rect = |i: usize, x: f64, w: f64, depth: u32, ancestor: bool| FlameRect {
        item: i,
        x,
        width: w,
        depth,
        y: depth as f64 * opts.row_height,
        height: (opts.row_height - 1.0).max(0.0),
        fill: fill(&items[i], opts.colors),
        label: label(&items[i].name, w, opts),
        hover: items[i].hover.clone(),
        matched: is_match(i),
        ancestor,
    };
    // Start: the zoomed item (after its ancestors) or the roots.
    let mut starts: Vec<usize> = Vec::new();
    let mut base_depth = 0u32;
    let zoom = opts.zoom.filter(|&z| z < items.len());
    if let Some(z) = zoom {
        let mut anc = Vec::new();
        let mut p = items[z].parent;
        while let Some(a) = p.filter(|&a| a < items.len()) {
            anc.push(a);
            p = items[a].parent.filter(|&q| q < a);
        }
        for (d, &a) in anc.iter().rev().enumerate() {
            rects.push(rect(a, 0.0, opts.width, d as u32, true));
        }
        base_depth = anc.len() as u32;
        starts.push(z);
    } else {
        starts.extend((0..items.len()).filter(|&i| items[i].parent.is_none_or(|p| p >= i)));
    }
    let total: f64 = starts.iter().map(|&i| val(items[i].value)).sum();
    let scale = if total > 0.0 { opts.width / total } else { 0.0 };
    // (item, x, px per value unit, depth)
    let mut stack: Vec<(usize, f64, f64, u32)> = Vec::new();
    let mut x = 0.0;
    let mut tops = Vec::new();
    for &s in &starts {
        tops.push((s, x, scale, base_depth));
        x += val(items[s].value) * scale;
    }
    stack.extend(tops.into_iter().rev());
    let subtree_hidden = |i: usize, hidden: &mut usize| {
        let mut st = vec![i];
        while let Some(k) = st.pop() {
            *hidden += 1;
            st.extend(&ch[k]);
        }
    };
    while let Some((i, x, sc, depth)) = stack.pop() {
        let w = val(items[i].value) * sc;
        if w < opts.min_width {
            subtree_hidden(i, &mut hidden);
            continue;
        }
        rects.push(rect(i, x, w, depth, false));
        let sum: f64 = ch[i].iter().map(|&c| val(items[c].value)).sum();
        let own = val(items[i].value);
        let csc = if sum > own && sum > 0.0 {
            sc * own / sum
        } else {
            sc
        };
        let mut cx = x;
        let mut next = Vec::new();
        for &c in &ch[i] {
            next.push((c, cx, csc, depth + 1));
            cx += val(items[c].value) * csc;
        }
        stack.extend(next.into_iter().rev());
    }
    // Search coverage within the shown subtree(s).
    let mut matches = 0usize;
    let mut covered = 0.0;
    if !needle.is_empty() {
        let mut st: Vec<(usize, bool)> = starts.iter().map(|&s| (s, false)).collect();
        while let Some((i, inside)) = st.pop() {
            let m = is_match(i);
            if m {
                matches += 1;
                if !inside {
                    covered += val(items[i].value);
                }
            }
            st.extend(ch[i].iter().map(|&c| (c, inside || m)));
        }
    }
    let max_depth = rects.iter().map(|r| r.depth + 1).max().unwrap_or(0);
    FlameLayout {
        rects,
        height: max_depth as f64 * opts.row_height,
        hidden,
        matches,
        matched_fraction: if total > 0.0 {
            (covered / total).min(1.0)
        } else {
            0.0
        },
    }
}

fn label(name: &str, w: f64, opts: &FlameOptions) -> Option<String> {
    if w < opts.min_label_width || opts.char_width <= 0.0 {
        return None;
    }
    let fit = ((w - 4.0) / opts.char_width).floor() as usize;
    let n = name.chars().count();
    if fit == 0 {
        return None;
    }
    Some(if n <= fit {
        name.to_string()
    } else if fit <= 2 {
        name.chars().take(fit).collect()
    } else {
        let mut s: String = name.chars().take(fit - 1).collect();
        s.push('…');
        s
    })
}

fn hex(r: f64, g: f64, b: f64) -> String {
    let c = |v: f64| v.round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", c(r), c(g), c(b))
}

/// Fill of one item under `scale`.
pub fn fill(item: &FlameItem, scale: ColorScale) -> String {
    match scale {
        ColorScale::Warm => warm(&item.name),
        ColorScale::Diverging { max_abs } => diverging(item.color, max_abs),
    }
}

/// The diverging colour of `v` (see [`ColorScale::Diverging`]): linear from light grey
/// `#e6e6e6` at 0 to red `#d62728` at +`max_abs` and blue `#1f77b4` at −`max_abs`.
pub fn diverging(v: Option<f64>, max_abs: f64) -> String {
    let grey = (230.0, 230.0, 230.0);
    let Some(v) = v.filter(|v| v.is_finite()) else {
        return hex(grey.0, grey.1, grey.2);
    };
    let t = if max_abs > 0.0 {
        (v / max_abs).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let to = if t >= 0.0 {
        (214.0, 39.0, 40.0)
    } else {
        (31.0, 119.0, 180.0)
    };
    let a = t.abs();
    hex(
        grey.0 + (to.0 - grey.0) * a,
        grey.1 + (to.1 - grey.1) * a,
        grey.2 + (to.2 - grey.2) * a,
    )
}

/// The warm palette colour of a name (FNV-1a hash → red 205–255, green 0–230, blue 0–55, as
/// flamegraph.pl's "hot" palette).
pub fn warm(name: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    let f = |shift: u32| f64::from((h >> shift) & 0xff) / 255.0;
    hex(205.0 + 50.0 * f(0), 230.0 * f(8), 55.0 * f(16))
}

/// The largest |colour value| of `items` (for [`ColorScale::Diverging`]'s `max_abs`); 1 when
/// none is finite and non-zero.
pub fn max_abs_color(items: &[FlameItem]) -> f64 {
    let m = items
        .iter()
        .filter_map(|i| i.color)
        .filter(|v| v.is_finite())
        .fold(0.0f64, |a, v| a.max(v.abs()));
    if m > 0.0 {
        m
    } else {
        1.0
    }
}

/// Keyboard navigation between items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nav {
    /// To the parent (↑ in an icicle).
    Parent,
    /// To the first child (↓).
    FirstChild,
    /// To the previous sibling (←).
    PrevSibling,
    /// To the next sibling (→).
    NextSibling,
}

/// The item reached from `from` by `nav`, `None` at an edge. Roots are each other's siblings.
pub fn navigate(items: &[FlameItem], from: usize, nav: Nav) -> Option<usize> {
    let it = items.get(from)?;
    let siblings: Vec<usize> = match it.parent {
        Some(p) => children(items).get(p).cloned().unwrap_or_default(),
        None => (0..items.len())
            .filter(|&i| items[i].parent.is_none())
            .collect(),
    };
    let pos = siblings.iter().position(|&s| s == from);
    match nav {
        Nav::Parent => it.parent,
        Nav::FirstChild => items
            .iter()
            .enumerate()
            .skip(from + 1)
            .find(|(_, c)| c.parent == Some(from))
            .map(|(i, _)| i),
        Nav::PrevSibling => pos.and_then(|p| p.checked_sub(1)).map(|p| siblings[p]),
        Nav::NextSibling => pos.and_then(|p| siblings.get(p + 1).copied()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(parent: Option<usize>, value: f64, name: &str, color: Option<f64>) -> FlameItem {
        FlameItem {
            parent,
            value,
            color,
            name: name.into(),
            hover: format!("{name} {value}"),
        }
    }

    fn tree() -> Vec<FlameItem> {
        vec![
            item(None, 100.0, "main", None),
            item(Some(0), 60.0, "work", Some(5.0)),
            item(Some(1), 30.0, "sort", Some(10.0)),
            item(Some(0), 20.0, "idle", Some(-10.0)),
            item(None, 100.0, "other", None),
        ]
    }

    #[test]
    fn widths_are_proportional_and_children_start_at_the_parent() {
        let l = layout(&tree(), &FlameOptions::default());
        let r = |i: usize| l.rects.iter().find(|r| r.item == i).unwrap().clone();
        assert_eq!((r(0).x, r(0).width, r(0).depth), (0.0, 500.0, 0));
        assert_eq!((r(1).x, r(1).width, r(1).depth), (0.0, 300.0, 1));
        assert_eq!((r(2).x, r(2).width, r(2).depth), (0.0, 150.0, 2));
        assert_eq!((r(3).x, r(3).width), (300.0, 100.0));
        assert_eq!((r(4).x, r(4).width), (500.0, 500.0));
        assert_eq!(l.height, 54.0);
    }

    #[test]
    fn zoom_spans_the_width_with_ancestors_above() {
        let opts = FlameOptions {
            zoom: Some(1),
            ..Default::default()
        };
        let l = layout(&tree(), &opts);
        assert_eq!(l.rects.len(), 3);
        assert!(l.rects[0].ancestor && l.rects[0].item == 0);
        assert_eq!((l.rects[1].item, l.rects[1].depth), (1, 1));
        assert!((l.rects[1].width - 1000.0).abs() < 1e-9);
        assert_eq!(l.rects[2].item, 2);
        assert!((l.rects[2].width - 500.0).abs() < 1e-9);
    }

    #[test]
    fn children_larger_than_the_parent_are_scaled_to_fit() {
        let items = vec![
            item(None, 10.0, "p", None),
            item(Some(0), 8.0, "a", None),
            item(Some(0), 12.0, "b", None),
        ];
        let l = layout(&items, &FlameOptions::default());
        let sum: f64 = l
            .rects
            .iter()
            .filter(|r| r.depth == 1)
            .map(|r| r.width)
            .sum();
        assert!((sum - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn search_marks_matches_and_their_coverage() {
        let opts = FlameOptions {
            search: "OR".into(),
            ..Default::default()
        };
        let l = layout(&tree(), &opts);
        // "work" (60) and "sort" inside it: coverage 60 / 200.
        assert_eq!(l.matches, 2);
        assert!((l.matched_fraction - 0.3).abs() < 1e-12);
        assert!(l.rects.iter().find(|r| r.item == 2).unwrap().matched);
        assert!(!l.rects.iter().find(|r| r.item == 3).unwrap().matched);
    }

    #[test]
    fn diverging_colours_red_slower_blue_faster() {
        assert_eq!(diverging(Some(10.0), 10.0), "#d62728");
        assert_eq!(diverging(Some(-10.0), 10.0), "#1f77b4");
        assert_eq!(diverging(Some(0.0), 10.0), "#e6e6e6");
        assert_eq!(diverging(None, 10.0), "#e6e6e6");
        let items = tree();
        assert_eq!(max_abs_color(&items), 10.0);
    }

    #[test]
    fn keyboard_navigation() {
        let t = tree();
        assert_eq!(navigate(&t, 1, Nav::Parent), Some(0));
        assert_eq!(navigate(&t, 0, Nav::FirstChild), Some(1));
        assert_eq!(navigate(&t, 1, Nav::NextSibling), Some(3));
        assert_eq!(navigate(&t, 3, Nav::PrevSibling), Some(1));
        assert_eq!(navigate(&t, 0, Nav::NextSibling), Some(4));
        assert_eq!(navigate(&t, 2, Nav::FirstChild), None);
    }
}
