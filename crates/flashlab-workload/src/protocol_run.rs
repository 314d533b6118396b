//! A protocol run on any target, from settings to its typed results document: the one place
//! the four-corner settings of a run are resolved (the protocol's own, then `--rand-io` and
//! `--span` over them, and the protocol stripped of them so they do not apply twice), and the
//! one place a protocol's result becomes a `flashlab_results::Document` (`age`, `bench`,
//! sweeps, the Python package; simulated and real targets alike).

use crate::fourcorner::FourCornerConfig;
use crate::protocol::{block_multiple, run_protocol, Protocol, ProtocolResult, ProtocolTarget};
use crate::Error;
use flashlab_results::body::AgeBody;
use flashlab_results::{Body, Document};

/// Which command's document a protocol run makes: `age` (any protocol) or `bench` (one
/// four-corner run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolCommand {
    /// `flashlab age` (and a sweep's protocol case).
    #[default]
    Age,
    /// `flashlab bench`.
    Bench,
}

impl ProtocolCommand {
    /// The document body of this command around `b`.
    pub fn body(self, b: AgeBody) -> Body {
        match self {
            ProtocolCommand::Age => Body::Age(b),
            ProtocolCommand::Bench => Body::Bench(b),
        }
    }
}

/// A protocol with its four-corner settings resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The protocol, without the four-corner settings `four_corner` already holds.
    pub protocol: Protocol,
    /// The four-corner settings: the protocol's, then `rand_io` and `span` over them.
    pub four_corner: FourCornerConfig,
}

impl Resolved {
    /// Resolve `protocol`'s four-corner settings for `seed`, with `rand_io` and `span` (bytes,
    /// whole 4 KiB blocks; errors name them) over the protocol's own.
    pub fn new(protocol: &Protocol, seed: u64, rand_io: Option<u64>, span: Option<u64>) -> Result<Resolved, Error> {
        let mut fc = protocol.four_corner(&FourCornerConfig { seed, ..Default::default() });
        if let Some(r) = rand_io {
            fc.rand_io = block_multiple(r).map_err(Error::within("rand_io"))?;
        }
        if let Some(sp) = span {
            fc.span = block_multiple(sp).map_err(Error::within("span"))?;
        }
        // The settings are resolved into `fc`; the protocol's own must not apply twice.
        let protocol = Protocol { four_corner_span: None, four_corner_rand_io: None, ..protocol.clone() };
        Ok(Resolved { protocol, four_corner: fc })
    }

    /// Tests (job runs) in one four-corner step of this run, for a progress bar.
    pub fn tests_per_bench(&self) -> usize {
        self.protocol.four_corner(&self.four_corner).steps().len()
    }

    /// Run the protocol on `target`. `progress` gets (step, steps, what, fraction of the step).
    pub fn run(
        &self,
        target: &mut impl ProtocolTarget,
        progress: &mut dyn FnMut(usize, usize, &str, f64),
    ) -> Result<ProtocolResult, Error> {
        run_protocol(target, &self.protocol, &self.four_corner, progress)
    }

    /// The results document of `result` on `target` (as given, `sim:toy` or a directory):
    /// the four-corner rows and the step log, the device's history before the protocol where
    /// there is one (a simulated target's precondition report, as JSON), the seed, and the resolved settings as parameters.
    /// The caller adds what only it knows (the profile, the filesystem, the I/O engine).
    pub fn document(
        &self,
        command: ProtocolCommand,
        target: &str,
        result: &ProtocolResult,
        precondition: Option<serde_json::Value>,
    ) -> Result<Document, Error> {
        let mut body: AgeBody = flashlab_results::typed("the protocol's results", result)?;
        body.precondition = precondition;
        let fc = &self.four_corner;
        Ok(Document::new(command.body(body))
            .target(target)
            .seed(fc.seed)
            .param("protocol", &self.protocol.name)
            .param("rand_io", fc.rand_io)
            .param("span", fc.span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_resolve_once_and_errors_name_them() {
        let proto = Protocol::builtin("age-small").expect("built in");
        let r = Resolved::new(&proto, 5, Some(1 << 20), None).unwrap();
        assert_eq!(r.four_corner.rand_io, 1 << 20);
        assert_eq!(r.four_corner.seed, 5);
        assert!(r.protocol.four_corner_rand_io.is_none() && r.protocol.four_corner_span.is_none());
        // The stripped protocol leaves the resolved settings as they are.
        assert_eq!(r.protocol.four_corner(&r.four_corner).rand_io, 1 << 20);
        let e = Resolved::new(&proto, 5, Some(1000), None).unwrap_err().to_string();
        assert!(e.contains("rand_io") && e.contains("1000"), "{e}");
        let e = Resolved::new(&proto, 5, None, Some(0)).unwrap_err().to_string();
        assert!(e.contains("span"), "{e}");
    }

    #[test]
    fn bench_and_age_name_their_command() {
        assert_eq!(ProtocolCommand::Bench.body(AgeBody::default()).command(), "bench");
        assert_eq!(ProtocolCommand::Age.body(AgeBody::default()).command(), "age");
    }
}
