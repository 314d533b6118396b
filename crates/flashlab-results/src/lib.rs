//! flashlab's results document: the one typed, versioned record every command writes, its JSON
//! Schema, the tables it shows, and the exporters (JSON, CSV, Markdown, terminal) — in one
//! place, as hyperfine's `export/` module keeps its formats.
//!
//! What it is for: a command fills a [`Document`] (common header + one typed [`Body`] per
//! command) and hands it to [`export`]; scripts read the JSON and can check it against
//! `docs/schema/results.schema.json`, generated from these types by [`schema::generate`].
//! What it is not for: running anything, or fio's own JSON (`flashlab run --output-format
//! json` stays fio's format, separate from this document).
//!
//! ```
//! use flashlab_results::{Body, Document, body::WafBody};
//! let body: WafBody = serde_json::from_value(serde_json::json!({
//!     "policy": "greedy", "spare_factor": 0.07, "write_amplification": 3.1})).unwrap();
//! let doc = Document::new(Body::SimWaf(body));
//! let json = flashlab_results::export::json(&doc).unwrap();
//! assert!(json.contains("\"command\": \"sim waf\""));
//! ```
//!
//! Versioning (docs/results.md): [`SCHEMA_VERSION`] changes only when a field is removed,
//! renamed or changes meaning. New commands and new fields are added without a new version;
//! every body keeps the fields it does not type yet in `extra`-style open objects, so readers
//! must ignore fields they do not know.

pub mod body;
mod error;
pub mod export;
pub mod legacy;
pub mod schema;
pub mod table;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use body::Body;
pub use error::Error;

/// The version of the document's layout (see the crate documentation for when it changes).
pub const SCHEMA_VERSION: u32 = 1;

/// Fields a body carries beyond those typed here (other fields of the library's result, kept
/// as they are so nothing measured is dropped); typed fields move out of it over time.
pub type Extra = BTreeMap<String, serde_json::Value>;

/// One command's results: the header every command has, and the command's typed body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Document {
    /// [`SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// The flashlab version that wrote the document. Every document has it; only a file written
    /// before the results document existed (which `flashlab report` reads, moved into this
    /// layout by the `legacy` module) may not say, and then it is absent, not guessed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flashlab_version: Option<String>,
    /// `command` (the subcommand, e.g. `age`, `sim waf`) and `results` (its typed body).
    #[serde(flatten)]
    pub body: Body,
    /// `--target` as given (`sim:PROFILE`, a directory, a device); absent where the command has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The simulated device's profile, on simulated targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileInfo>,
    /// The seed of every random choice of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The run's settings (the command line, resolved), by option name without the dashes.
    #[serde(default)]
    pub parameters: BTreeMap<String, serde_json::Value>,
}

impl Document {
    /// A document for `body`, written by this version of flashlab, with no header fields yet.
    pub fn new(body: Body) -> Document {
        Document {
            schema_version: SCHEMA_VERSION,
            flashlab_version: Some(env!("CARGO_PKG_VERSION").to_string()),
            body,
            target: None,
            profile: None,
            seed: None,
            parameters: BTreeMap::new(),
        }
    }

    /// The subcommand's name as it appears in `command` (`age`, `sim waf`, ...).
    pub fn command(&self) -> &'static str {
        self.body.command()
    }

    /// Builder: the target.
    pub fn target(mut self, t: impl Into<String>) -> Document {
        self.target = Some(t.into());
        self
    }

    /// Builder: the seed.
    pub fn seed(mut self, s: u64) -> Document {
        self.seed = Some(s);
        self
    }

    /// Builder: the profile.
    pub fn profile(mut self, name: impl Into<String>, description: impl Into<String>) -> Document {
        self.profile = Some(ProfileInfo { name: name.into(), description: description.into() });
        self
    }

    /// Builder: one parameter (any serializable value; a value that cannot be serialized is
    /// recorded as null).
    pub fn param(mut self, name: &str, value: impl Serialize) -> Document {
        self.parameters.insert(name.to_string(), serde_json::to_value(value).unwrap_or(serde_json::Value::Null));
        self
    }

    /// The tables of this document, as the terminal, CSV and Markdown show them.
    pub fn tables(&self) -> Vec<table::Table> {
        self.body.tables()
    }
}

/// A simulated device's profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProfileInfo {
    /// The profile's name (`nexus7-2012`, or a file's).
    pub name: String,
    /// What the profile models, in words.
    pub description: String,
}

/// A typed view of a library result: serialize `value` and read it back as `T` (the typed
/// fields of `T`; the rest lands in `T`'s `extra`). An error names what did not fit.
pub fn typed<T: serde::de::DeserializeOwned>(what: &str, value: &impl Serialize) -> Result<T, Error> {
    let v = serde_json::to_value(value).map_err(|source| Error::Encode { what: what.to_string(), source })?;
    serde_json::from_value(v).map_err(|source| Error::Fit { what: what.to_string(), source })
}
