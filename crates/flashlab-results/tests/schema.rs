//! The published schema (docs/schema/results.schema.json) is the one the types generate; with
//! FLASHLAB_WRITE_SCHEMA=1 this test rewrites it instead.

use flashlab_results::schema::{generate, PUBLISHED, REGENERATE};
use std::path::PathBuf;

fn published() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(PUBLISHED)
}

#[test]
fn published_schema_is_generated_from_the_types() {
    let generated = generate();
    if std::env::var_os("FLASHLAB_WRITE_SCHEMA").is_some() {
        std::fs::create_dir_all(published().parent().unwrap()).unwrap();
        std::fs::write(published(), &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(published()).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{PUBLISHED} differs from the schema the types generate; regenerate it with: {REGENERATE}"
    );
}

#[test]
fn a_document_validates_and_a_broken_one_does_not() {
    let schema: serde_json::Value = serde_json::from_str(&generate()).unwrap();
    let v = jsonschema::JSONSchema::compile(&schema).unwrap();
    let doc = flashlab_results::Document::new(flashlab_results::Body::Sweep(flashlab_results::body::SweepBody {
        cases: 2,
        ran: 2,
        skipped: 0,
        failed: 0,
        threads: 1,
        wall_s: 0.5,
        csv: "a.csv".into(),
        parquet: "a.parquet".into(),
    }))
    .seed(3);
    let json = serde_json::to_value(&doc).unwrap();
    assert!(v.is_valid(&json), "{json}");
    assert_eq!(json["command"], "sweep");
    assert_eq!(json["results"]["cases"], 2);
    let back: flashlab_results::Document = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, doc);
    let mut broken = json.clone();
    broken["results"]["cases"] = serde_json::json!("two");
    assert!(!v.is_valid(&broken));
    let mut unknown = json;
    unknown["command"] = serde_json::json!("frobnicate");
    assert!(!v.is_valid(&unknown));
}
