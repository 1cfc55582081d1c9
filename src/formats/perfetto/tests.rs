//! Unit tests of the Perfetto importer on small traces encoded with the [`super::proto`] structs.

use super::proto::*;
use crate::model::Model;

fn import(packets: &[TracePacket]) -> Model {
    let mut m = Model::default();
    super::import(&encode_trace(packets), &mut m, &mut |_| {});
    m
}

#[test]
fn empty_packet_list_gives_empty_model() {
    let m = import(&[TracePacket::default()]);
    assert_eq!(m.slices.len(), 0);
}
