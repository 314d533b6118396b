//! The results document of a life run (`flashlab life --json`, a sweep's life case, the Python
//! package): one typed shape (`flashlab_results::body::LifeBody`), built in one place. No
//! wall-clock time in it.

use crate::error::LifeError;
use crate::runner::LifeResult;
use flashlab_results::body::LifeBody;
use flashlab_results::{Body, Document};
use flashsim::Profile;

/// The document of `runs` (one per trim policy) of `duration` (as given) on `profile`.
/// `usage` is the usage model (or, for a trace replay, what was replayed). The caller adds
/// the settings it was given as parameters.
pub fn life_document(
    target: &str,
    profile: &Profile,
    seed: u64,
    duration: &str,
    usage: serde_json::Value,
    runs: &[LifeResult],
) -> Result<Document, LifeError> {
    Ok(Document::new(Body::Life(LifeBody {
        duration: duration.to_string(),
        usage,
        runs: flashlab_results::typed("the runs", &runs)?,
        extra: Default::default(),
    }))
    .target(target)
    .seed(seed)
    .profile(&profile.name, &profile.description))
}
