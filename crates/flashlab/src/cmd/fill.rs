//! `flashlab fill`: write latency percentiles while filling a simulated system the way fio
//! fills it, or the published phone procedure (test /data, fill the shared storage, test /data).

use crate::cli::FillArgs;
use crate::cmd::fill_args::Procedure;
use crate::error::Error;
use crate::progress::Progress;
use crate::{out, outln};
use flashlab_lab::experiments::fill::{run_fill, run_phone_procedure, FillResult, Layout};
use flashlab_lab::stack::{Stack, TrimPolicy};
use flashlab_results::body::FillBody;
use flashlab_results::{Body, Document};

/// `flashlab fill`: the fill (or the phone procedure) on a simulated system.
pub fn fill(a: &FillArgs) -> Result<(), Error> {
    let profile = crate::target::sim_profile(&a.common.target)?;
    let stack = Stack::from_profile(&profile, &a.common.target)?;
    let r = a.fill.resolve(a.iodepth.max(1), a.common.seed, stack)?;
    let mut fs_args = a.common.sim_fs.clone();
    fs_args.discard |= r.stack.trim == TrimPolicy::Discard;
    // A lived-in device has had the system's periodic fstrim run since its deletions.
    let fstrim = matches!(r.stack.trim, TrimPolicy::Fstrim { .. } | TrimPolicy::Android);
    let cfg = super::fs_config(&fs_args, &profile, &a.common.target)?;
    let (mut sys, pre) =
        flashlab_lab::precondition::system_with_trim(&profile, a.common.seed, cfg, fs_args.precondition, fstrim)
            .map_err(Error::at("--precondition"))?;
    out!("{}", super::banner("fill", &a.common, &profile, &sys));
    if pre.precondition != flashlab_lab::precondition::Precondition::Fresh {
        outln!("{}", pre.summary());
    }
    outln!("system stack: {}", r.stack.label());
    let bar = Progress::new("fill");
    let spec = &r.spec;
    let layout = match spec.layout {
        Layout::Allocate => "file fallocated, then",
        Layout::Write => "file written sequentially (fio overwrite=1), then",
    };
    let fsync = match spec.fsync_every {
        0 => String::new(),
        1 => ", fsync after every write".into(),
        n => format!(", fsync after every {n} writes"),
    };
    let map = if spec.random_map { "each block once (fio's random map)" } else { "offsets without a random map" };
    let (fill, tests) = match r.procedure {
        Procedure::Fill => (run_fill(&mut sys, spec, |x| bar.set(x, ""))?, None),
        Procedure::Phone => {
            let p = run_phone_procedure(&mut sys, spec, r.test_bytes, |what, x| bar.set(x, what))?;
            (p.fill, Some((p.before, p.after, p.test_bytes)))
        }
    };
    bar.finish();
    let body = FillBody {
        procedure: Some(if tests.is_some() { "phone" } else { "fill" }.into()),
        filesystem: Some(sys.fs().config().label()),
        stack: serde_json::to_value(r.stack).map_err(|source| Error::Json { what: "the system stack", source })?,
        precondition: Some(
            serde_json::to_value(&pre).map_err(|source| Error::Json { what: "the device's history", source })?,
        ),
        bytes: fill.bytes,
        deciles: flashlab_results::typed("the fill's deciles", &fill.deciles)?,
        data_before: tests.as_ref().map(|t| flashlab_results::typed("the /data test before", &t.0)).transpose()?,
        data_after: tests.as_ref().map(|t| flashlab_results::typed("the /data test after", &t.1)).transpose()?,
        test_bytes: tests.as_ref().map(|t| t.2),
        result: {
            let mut rest: flashlab_results::Extra = flashlab_results::typed("the fill's results", &fill)?;
            rest.remove("deciles");
            rest
        },
    };
    let doc = Document::new(Body::Fill(body))
        .target(&a.common.target)
        .seed(a.common.seed)
        .profile(&profile.name, &profile.description)
        .param("iodepth", a.iodepth)
        .param("procedure", if tests.is_some() { "phone" } else { "fill" });
    let tables = doc.tables();
    let fill_line = format!(
        "{layout} 4 KiB random writes at QD{}, {map}{fsync}; {} bytes; percentiles per tenth of the fill; MB/s = 10^6 bytes/s over busy time",
        spec.iodepth, fill.bytes
    );
    match &tests {
        None => {
            crate::output_args::table(&tables[0]);
            crate::proseln!("{fill_line}");
        }
        Some((_, _, test_bytes)) => {
            outln!("/data (no shared-storage layer): {test_bytes} bytes test file, 4 KiB random writes, {map}{fsync}");
            crate::output_args::table(&tables[1]);
            outln!(
                "fill of /storage/emulated/0 through {} ({} bytes): {layout} 4 KiB random writes at QD{}, {map}{fsync}",
                r.stack.shared_storage,
                fill.bytes,
                spec.iodepth
            );
            crate::output_args::table(&tables[0]);
        }
    }
    print_sessions(&fill);
    if tests.is_some() {
        crate::proseln!("MB/s = 10^6 bytes/s over busy time; WAF = NAND writes / host writes within the row");
    }
    a.out.write(&doc, &format!("fill {}", a.common.target))
}

fn print_sessions(f: &FillResult) {
    if f.spec.sessions > 1 || !f.fstrims.is_empty() {
        crate::proseln!(
            "{} sessions, {:.1} h idle between them; {} fstrim(s) during the fill{}; virtual time {:.1} h",
            f.spec.sessions,
            f.spec.gap_ns as f64 / 3.6e12,
            f.fstrims.len(),
            f.fstrims
                .iter()
                .map(|t| format!(" at {:.0} % ({} bytes)", t.filled_pct, t.bytes))
                .collect::<Vec<_>>()
                .join(","),
            f.virtual_s / 3600.0
        );
    }
}
