//! `results.parquet`: the same table as `results.csv`, typed — `case` INT64, each setting
//! column INT64, DOUBLE, BOOLEAN or UTF-8 string by its values, every metric an optional
//! DOUBLE (null where a case has no such number), `error` an optional string when a case
//! failed. One row group, no compression: pandas, polars and pyarrow read it as is.

use crate::error::SweepError;
use crate::spec::Param;
use crate::table::{ColumnType, Table};
use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::sync::Arc;

/// The column values of one column, with definition levels (1 = present, 0 = null).
enum Column {
    Int(Vec<i64>, Vec<i16>),
    Float(Vec<f64>, Vec<i16>),
    Bool(Vec<bool>, Vec<i16>),
    Text(Vec<ByteArray>, Vec<i16>),
}

fn field(name: &str, t: ColumnType, nullable: bool) -> Result<Arc<Type>, SweepError> {
    let (phys, logical) = match t {
        ColumnType::Int => (Physical::INT64, None),
        ColumnType::Float => (Physical::DOUBLE, None),
        ColumnType::Bool => (Physical::BOOLEAN, None),
        ColumnType::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
    };
    let rep = if nullable { Repetition::OPTIONAL } else { Repetition::REQUIRED };
    Type::primitive_type_builder(name, phys)
        .with_repetition(rep)
        .with_logical_type(logical)
        .build()
        .map(Arc::new)
        .map_err(|e| SweepError::Encode { format: "parquet", message: format!("column '{name}': {e}") })
}

fn parquet_error(e: parquet::errors::ParquetError) -> SweepError {
    SweepError::Encode { format: "parquet", message: e.to_string() }
}

fn setting_column(t: ColumnType, vals: impl Iterator<Item = Option<Param>>) -> Column {
    let mut def = Vec::new();
    match t {
        ColumnType::Int => {
            let mut v = Vec::new();
            for p in vals {
                def.push(i16::from(p.is_some()));
                if let Some(Param::Int(i)) = p {
                    v.push(i);
                }
            }
            Column::Int(v, def)
        }
        ColumnType::Float => {
            let mut v = Vec::new();
            for p in vals {
                def.push(i16::from(p.is_some()));
                match p {
                    Some(Param::Float(f)) => v.push(f),
                    Some(Param::Int(i)) => v.push(i as f64),
                    _ => {}
                }
            }
            Column::Float(v, def)
        }
        ColumnType::Bool => {
            let mut v = Vec::new();
            for p in vals {
                def.push(i16::from(p.is_some()));
                if let Some(Param::Bool(b)) = p {
                    v.push(b);
                }
            }
            Column::Bool(v, def)
        }
        ColumnType::Text => {
            let mut v = Vec::new();
            for p in vals {
                def.push(i16::from(p.is_some()));
                if let Some(p) = p {
                    v.push(ByteArray::from(p.text().as_str()));
                }
            }
            Column::Text(v, def)
        }
    }
}

/// The table as a Parquet file (one column per setting and metric).
pub fn parquet_bytes(t: &Table) -> Result<Vec<u8>, SweepError> {
    let err = parquet_error;
    let mut fields = vec![field("case", ColumnType::Int, false)?];
    let mut columns = vec![Column::Int(t.rows.iter().map(|r| r.case as i64).collect(), Vec::new())];
    for (i, (name, ty)) in t.settings.iter().enumerate() {
        fields.push(field(name, *ty, true)?);
        columns.push(setting_column(*ty, t.rows.iter().map(|r| r.settings[i].clone())));
    }
    for (i, name) in t.metrics.iter().enumerate() {
        fields.push(field(name, ColumnType::Float, true)?);
        let def = t.rows.iter().map(|r| i16::from(r.metrics[i].is_some())).collect();
        columns.push(Column::Float(t.rows.iter().filter_map(|r| r.metrics[i]).collect(), def));
    }
    if t.any_error {
        fields.push(field("error", ColumnType::Text, true)?);
        let def = t.rows.iter().map(|r| i16::from(r.error.is_some())).collect();
        let v = t.rows.iter().filter_map(|r| r.error.as_deref().map(ByteArray::from)).collect();
        columns.push(Column::Text(v, def));
    }
    let schema = Type::group_type_builder("flashlab_sweep").with_fields(fields).build().map_err(err)?;
    let props = WriterProperties::builder().set_created_by(format!("flashlab {}", env!("CARGO_PKG_VERSION"))).build();
    let mut w = SerializedFileWriter::new(Vec::new(), Arc::new(schema), Arc::new(props)).map_err(err)?;
    let mut rg = w.next_row_group().map_err(err)?;
    let mut cols = columns.into_iter();
    while let Some(mut cw) = rg.next_column().map_err(err)? {
        let col = cols
            .next()
            .ok_or_else(|| SweepError::Encode { format: "parquet", message: "more schema columns than data".into() })?;
        let levels = |d: &Vec<i16>| if d.is_empty() { None } else { Some(d.clone()) };
        match &col {
            Column::Int(v, d) => cw.typed::<Int64Type>().write_batch(v, levels(d).as_deref(), None),
            Column::Float(v, d) => cw.typed::<DoubleType>().write_batch(v, levels(d).as_deref(), None),
            Column::Bool(v, d) => cw.typed::<BoolType>().write_batch(v, levels(d).as_deref(), None),
            Column::Text(v, d) => cw.typed::<ByteArrayType>().write_batch(v, levels(d).as_deref(), None),
        }
        .map_err(err)?;
        cw.close().map_err(err)?;
    }
    rg.close().map_err(err)?;
    w.into_inner().map_err(err)
}
