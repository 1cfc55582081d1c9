//! Chrome Trace Event JSON importer (trace-formats.md §8–10). STUB: being written.

use super::ImportError;
use crate::model::Model;

/// Imports decompressed Chrome JSON (object or array form) into `model`.
pub fn import(
    _data: &[u8],
    _name: &str,
    _model: &mut Model,
    _progress: &mut dyn FnMut(f64),
) -> Result<(), ImportError> {
    Err(ImportError::Malformed(
        "Chrome JSON import is not implemented yet".into(),
    ))
}
