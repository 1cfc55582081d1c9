//! Checks of downloaded files with well-kept parsers: an SVG must parse as XML (roxmltree)
//! with an `<svg>` root and nothing active in it; a PNG must decode (png) and not be blank.

/// Parses `svg` as XML (roxmltree; any well-formedness error fails), with an `<svg>` root, no
/// `<script>` element and no `href` attribute of any namespace (a download must not run or
/// fetch anything).
pub fn assert_well_formed_svg(svg: &str) {
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{}", &svg[..svg.len().min(400)]));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    for n in doc.descendants().filter(|n| n.is_element()) {
        assert_ne!(n.tag_name().name(), "script", "a script element");
        assert!(
            n.attributes().all(|a| a.name() != "href"),
            "an href on <{}>",
            n.tag_name().name()
        );
    }
}

/// Decodes `png` (the png crate) and checks that its pixels are not all one colour. Returns
/// (width, height) in pixels.
pub fn assert_png(png: &[u8]) -> (u32, u32) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("the PNG's header decodes");
    let size = reader.output_buffer_size().expect("a PNG of a sane size");
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .expect("the PNG's pixels decode");
    let (w, h) = (info.width, info.height);
    assert!(w > 0 && h > 0, "{w}x{h}");
    let pixel = info.color_type.samples() * usize::from(info.bit_depth as u8).div_ceil(8);
    let pixels = &buf[..info.buffer_size()];
    let first = &pixels[..pixel];
    assert!(
        pixels.chunks(pixel).any(|p| p != first),
        "the PNG is blank (every pixel {first:?})"
    );
    (w, h)
}
