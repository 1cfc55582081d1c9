//! One flat Parquet table in memory (named, typed, nullable columns) and its encoding with the
//! low-level column writer and the record reader of the `parquet` crate (no `arrow`): what
//! every aggregate table (`docs/parquet-schema.md`) is written and read through.
//!
//! Every file carries the key-value metadata [`super::META_SCHEMA`] (`sf1`),
//! [`super::META_TABLE`] (the table's name) and [`super::META_TABLE_VERSION`]; a file whose
//! schema or table version differs is refused by [`decode`] with a message naming both.

use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::Type;

use super::Error;

/// The values of one column (`None` = null).
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Parquet `INT64` (signed).
    I64(Vec<Option<i64>>),
    /// Parquet `DOUBLE`.
    F64(Vec<Option<f64>>),
    /// Parquet `BYTE_ARRAY` annotated `STRING` (UTF-8).
    Str(Vec<Option<String>>),
    /// Parquet `BOOLEAN`.
    Bool(Vec<Option<bool>>),
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::I64(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Str(v) => v.len(),
            Values::Bool(v) => v.len(),
        }
    }
}

/// One column: its name, whether it may hold nulls (`OPTIONAL`, else `REQUIRED`), its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: &'static str,
    pub nullable: bool,
    pub values: Values,
}

/// A table: its name (`trials`, `frames`, …) and columns of equal length.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<Column>,
}

impl Table {
    /// Rows in the table (the length of the first column; 0 without columns).
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }
}

fn pq(e: parquet::errors::ParquetError) -> Error {
    Error::Parquet(e.to_string())
}

/// Encodes `table` as one Parquet file (one row group, Snappy pages) with the schema
/// version, table name and table version in its key-value metadata.
///
/// Errors: columns of unequal length, a `REQUIRED` column with a null, or the writer's error.
pub fn encode(table: &Table, table_version: u32) -> Result<Vec<u8>, Error> {
    let rows = table.rows();
    let mut fields = Vec::new();
    for c in &table.columns {
        if c.values.len() != rows {
            return Err(Error::Parquet(format!(
                "{}.{}: {} values, expected {rows}",
                table.name,
                c.name,
                c.values.len()
            )));
        }
        let (physical, logical) = match c.values {
            Values::I64(_) => (Physical::INT64, None),
            Values::F64(_) => (Physical::DOUBLE, None),
            Values::Str(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            Values::Bool(_) => (Physical::BOOLEAN, None),
        };
        let rep = if c.nullable {
            Repetition::OPTIONAL
        } else {
            Repetition::REQUIRED
        };
        let t = Type::primitive_type_builder(c.name, physical)
            .with_repetition(rep)
            .with_logical_type(logical)
            .build()
            .map_err(pq)?;
        fields.push(Arc::new(t));
    }
    let schema = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
        .map_err(pq)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(format!("trialscope {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(vec![
            KeyValue::new(super::META_SCHEMA.into(), super::SCHEMA_VERSION.to_string()),
            KeyValue::new(super::META_TABLE.into(), table.name.to_string()),
            KeyValue::new(super::META_TABLE_VERSION.into(), table_version.to_string()),
        ]))
        .build();
    let mut out = Vec::new();
    let mut w =
        SerializedFileWriter::new(&mut out, Arc::new(schema), Arc::new(props)).map_err(pq)?;
    let mut rg = w.next_row_group().map_err(pq)?;
    for c in &table.columns {
        let Some(mut cw) = rg.next_column().map_err(pq)? else {
            return Err(Error::Parquet(format!("{}: too few columns", table.name)));
        };
        let null_in_required = || {
            Error::Parquet(format!(
                "{}.{}: null in a required column",
                table.name, c.name
            ))
        };
        macro_rules! put {
            ($ty:ty, $vals:expr, $conv:expr) => {{
                let defs: Vec<i16> = $vals.iter().map(|v| i16::from(v.is_some())).collect();
                let present: Vec<_> = $vals.iter().flatten().map($conv).collect();
                if !c.nullable && present.len() != $vals.len() {
                    return Err(null_in_required());
                }
                let defs = c.nullable.then_some(defs.as_slice());
                cw.typed::<$ty>()
                    .write_batch(&present, defs, None)
                    .map_err(pq)?;
            }};
        }
        match &c.values {
            Values::I64(v) => put!(Int64Type, v, |x: &i64| *x),
            Values::F64(v) => put!(DoubleType, v, |x: &f64| *x),
            Values::Bool(v) => put!(BoolType, v, |x: &bool| *x),
            Values::Str(v) => put!(ByteArrayType, v, |x: &String| ByteArray::from(x.as_str())),
        }
        cw.close().map_err(pq)?;
    }
    rg.close().map_err(pq)?;
    w.close().map_err(pq)?;
    Ok(out)
}

/// The rows of a decoded table: column names and, per row, one [`Field`] per column.
#[derive(Clone, Debug)]
pub struct Rows {
    pub names: Vec<String>,
    pub rows: Vec<Vec<Field>>,
}

impl Rows {
    /// Index of column `name`. Errors: the column is missing (`file` names the file).
    pub fn col(&self, file: &str, name: &str) -> Result<usize, Error> {
        self.names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| Error::Column {
                file: file.to_string(),
                column: name.to_string(),
                problem: "missing".into(),
            })
    }
}

/// Decodes one Parquet file of table `table`: checks the key-value metadata (schema
/// [`super::SCHEMA_VERSION`], this table, `table_version`) and reads every row.
///
/// Errors: not Parquet, another schema or table version ([`Error::Version`], naming the
/// version found), another table, or the reader's error; `file` names the file in messages.
pub fn decode(file: &str, bytes: Vec<u8>, table: &str, table_version: u32) -> Result<Rows, Error> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).map_err(|e| Error::File {
        file: file.to_string(),
        problem: e.to_string(),
    })?;
    let kv = reader
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .cloned()
        .unwrap_or_default();
    let get = |k: &str| kv.iter().find(|e| e.key == k).and_then(|e| e.value.clone());
    let schema = get(super::META_SCHEMA);
    let found_table = get(super::META_TABLE);
    let version = get(super::META_TABLE_VERSION);
    if schema.as_deref() != Some(super::SCHEMA_VERSION)
        || version.as_deref() != Some(table_version.to_string().as_str())
    {
        return Err(Error::Version {
            file: file.to_string(),
            found: format!(
                "{} table version {}",
                schema.as_deref().unwrap_or("(none)"),
                version.as_deref().unwrap_or("(none)")
            ),
            expected: format!("{} table version {table_version}", super::SCHEMA_VERSION),
        });
    }
    if found_table.as_deref() != Some(table) {
        return Err(Error::File {
            file: file.to_string(),
            problem: format!(
                "holds table {}, expected {table}",
                found_table.as_deref().unwrap_or("(none)")
            ),
        });
    }
    let names: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let mut rows = Vec::new();
    let iter = reader.get_row_iter(None).map_err(|e| Error::File {
        file: file.to_string(),
        problem: e.to_string(),
    })?;
    for row in iter {
        let row = row.map_err(|e| Error::File {
            file: file.to_string(),
            problem: e.to_string(),
        })?;
        rows.push(row.get_column_iter().map(|(_, f)| f.clone()).collect());
    }
    Ok(Rows { names, rows })
}

/// A nullable text cell. Errors: another type.
pub fn opt_str(file: &str, column: &str, f: &Field) -> Result<Option<String>, Error> {
    match f {
        Field::Null => Ok(None),
        Field::Str(s) => Ok(Some(s.clone())),
        other => Err(bad(file, column, "text", other)),
    }
}

/// A text cell that must be present.
pub fn req_str(file: &str, column: &str, f: &Field) -> Result<String, Error> {
    opt_str(file, column, f)?.ok_or_else(|| bad(file, column, "text", f))
}

/// A nullable INT64 cell.
pub fn opt_i64(file: &str, column: &str, f: &Field) -> Result<Option<i64>, Error> {
    match f {
        Field::Null => Ok(None),
        Field::Long(v) => Ok(Some(*v)),
        Field::Int(v) => Ok(Some(i64::from(*v))),
        other => Err(bad(file, column, "an integer", other)),
    }
}

/// An INT64 cell that must be present.
pub fn req_i64(file: &str, column: &str, f: &Field) -> Result<i64, Error> {
    opt_i64(file, column, f)?.ok_or_else(|| bad(file, column, "an integer", f))
}

/// A nullable DOUBLE cell.
pub fn opt_f64(file: &str, column: &str, f: &Field) -> Result<Option<f64>, Error> {
    match f {
        Field::Null => Ok(None),
        Field::Double(v) => Ok(Some(*v)),
        other => Err(bad(file, column, "a double", other)),
    }
}

/// A BOOLEAN cell that must be present.
pub fn req_bool(file: &str, column: &str, f: &Field) -> Result<bool, Error> {
    match f {
        Field::Bool(b) => Ok(*b),
        other => Err(bad(file, column, "a boolean", other)),
    }
}

fn bad(file: &str, column: &str, want: &str, got: &Field) -> Error {
    Error::Column {
        file: file.to_string(),
        column: column.to_string(),
        problem: format!("expected {want}, found {got}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        Table {
            name: "frames",
            columns: vec![
                Column {
                    name: "semantic_frame_id",
                    nullable: false,
                    values: Values::Str(vec![Some("sf1:aa".into()), Some("sf1:bb".into())]),
                },
                Column {
                    name: "line",
                    nullable: true,
                    values: Values::I64(vec![None, Some(42)]),
                },
                Column {
                    name: "x",
                    nullable: true,
                    values: Values::F64(vec![Some(1.5), None]),
                },
                Column {
                    name: "flag",
                    nullable: true,
                    values: Values::Bool(vec![Some(true), None]),
                },
            ],
        }
    }

    #[test]
    fn a_table_reads_back_with_its_nulls() {
        let bytes = encode(&sample(), 1).unwrap();
        assert_eq!(&bytes[..4], b"PAR1");
        let rows = decode("f", bytes, "frames", 1).unwrap();
        assert_eq!(rows.names, ["semantic_frame_id", "line", "x", "flag"]);
        assert_eq!(rows.rows.len(), 2);
        assert_eq!(req_str("f", "id", &rows.rows[1][0]).unwrap(), "sf1:bb");
        assert_eq!(opt_i64("f", "line", &rows.rows[0][1]).unwrap(), None);
        assert_eq!(opt_i64("f", "line", &rows.rows[1][1]).unwrap(), Some(42));
        assert_eq!(opt_f64("f", "x", &rows.rows[0][2]).unwrap(), Some(1.5));
        assert!(matches!(rows.rows[1][3], Field::Null));
        // Another table's name is refused.
        let e = decode("f", encode(&sample(), 1).unwrap(), "trials", 1).unwrap_err();
        assert!(
            e.to_string()
                .contains("holds table frames, expected trials"),
            "{e}"
        );
    }

    #[test]
    fn another_schema_version_is_refused_naming_it() {
        let mut bytes = encode(&sample(), 1).unwrap();
        // The schema value sits in the footer's key-value metadata, after its key.
        let key = super::super::META_SCHEMA.as_bytes();
        let at = bytes
            .windows(key.len())
            .rposition(|w| w == key)
            .expect("the key in the footer");
        let v = at
            + key.len()
            + bytes[at + key.len()..]
                .windows(3)
                .position(|w| w == b"sf1")
                .unwrap();
        bytes[v + 2] = b'7';
        let e = decode("DIR/frames/k.parquet", bytes, "frames", 1).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("DIR/frames/k.parquet: written with schema sf7 table version 1")
                && msg.contains("reads sf1 table version 1"),
            "{msg}"
        );
        // A REQUIRED column with a null is not written.
        let mut t = sample();
        t.columns[0].values = Values::Str(vec![None, Some("x".into())]);
        assert!(encode(&t, 1).is_err());
    }
}
