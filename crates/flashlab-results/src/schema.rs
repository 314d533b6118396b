//! The JSON Schema of [`crate::Document`], generated from the types (schemars), and where it is
//! published in the repository.

/// The published schema's path, from the workspace root.
pub const PUBLISHED: &str = "docs/schema/results.schema.json";

/// The command that rewrites the published schema from the types.
pub const REGENERATE: &str = "FLASHLAB_WRITE_SCHEMA=1 cargo test -p flashlab-results --test schema";

/// The schema of the results document, as pretty JSON ending in a newline.
pub fn generate() -> String {
    let schema = schemars::schema_for!(crate::Document);
    let mut s = serde_json::to_string_pretty(&schema).expect("a schema is JSON");
    s.push('\n');
    s
}
