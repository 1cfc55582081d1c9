//! SVG primitives shared by every chart's geometry: the plot area, rectangles, line segments,
//! text labels and polyline point strings, all in pixels with the origin at the top left.

use std::fmt::Write as _;

/// The plot area of a chart (the region inside the axes), in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

impl Area {
    /// The area as a rectangle (`x = left`, `y = top`, width and height ≥ 0).
    pub fn rect(&self) -> Rect {
        Rect {
            x: self.left,
            y: self.top,
            width: (self.right - self.left).max(0.0),
            height: (self.bottom - self.top).max(0.0),
        }
    }

    /// Horizontal middle of the area, px.
    pub fn center_x(&self) -> f64 {
        (self.left + self.right) / 2.0
    }
}

/// An SVG `<rect>`: top-left corner and size, px.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// An SVG `<line>` from `(x1, y1)` to `(x2, y2)`, px.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
}

impl Line {
    /// A horizontal segment at height `y` from `x1` to `x2`.
    pub fn horizontal(y: f64, x1: f64, x2: f64) -> Line {
        Line {
            x1,
            y1: y,
            x2,
            y2: y,
        }
    }

    /// A vertical segment at `x` from `y1` to `y2`.
    pub fn vertical(x: f64, y1: f64, y2: f64) -> Line {
        Line {
            x1: x,
            y1,
            x2: x,
            y2,
        }
    }
}

/// Horizontal alignment of a text label (SVG `text-anchor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    /// The `text-anchor` attribute value.
    pub fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// An SVG `<text>`: baseline position `(x, y)` in px, alignment and the text itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub x: f64,
    pub y: f64,
    pub anchor: Anchor,
    pub text: String,
}

/// Appends `x,y ` with one decimal (the SVG `points` format of polylines and polygons).
pub(crate) fn push_point(out: &mut String, x: f64, y: f64) {
    let _ = write!(out, "{x:.1},{y:.1} ");
}
