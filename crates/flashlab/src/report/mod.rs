//! Output: terminal tables, fio-style text, JSON and CSV files.

pub mod fio_text;
pub mod output;
pub mod zone_report;
