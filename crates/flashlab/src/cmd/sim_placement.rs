//! `flashlab sim placement`: one multi-stream workload under conventional, streams, FDP
//! (initially and persistently isolated) and zoned placement on the same NAND
//! (docs/placement.md).

use crate::cli::PlacementArgs;
use crate::error::Error;
use crate::progress::Progress;
use crate::target::sim_profile;
use flashlab_lab::experiments::placement::{run_placements, Family, PlacementConfig};
use flashlab_results::{Body, Document};
use flashsim::Profile;
use std::time::Instant;

/// `profile` with the NAND shrunk as the flags say (0: the profile's own), checked again.
fn shrunk(mut p: Profile, a: &PlacementArgs) -> Result<Profile, Error> {
    if a.blocks_per_plane > 0 {
        p.nand.blocks_per_plane = a.blocks_per_plane;
    }
    if a.pages_per_block > 0 {
        // A zone's capacity and size, when the profile states them, shrink with its blocks.
        let f = f64::from(a.pages_per_block) / f64::from(p.nand.pages_per_block);
        if let Some(z) = &mut p.zoned {
            let scale = |mib: f64| ((mib * f * 256.0).floor() / 256.0).max(1.0 / 256.0);
            z.zone_capacity_mib = z.zone_capacity_mib.map(scale);
            z.zone_size_mib = z.zone_size_mib.map(scale);
        }
        p.nand.pages_per_block = a.pages_per_block;
    }
    let name = p.name.clone();
    p.validate(&name).map_err(|e| {
        Error::flag("--blocks-per-plane / --pages-per-block", format!("{name} cannot be made that small: {e}"))
    })?;
    Ok(p)
}

/// `flashlab sim placement`.
pub fn placement(a: &PlacementArgs) -> Result<(), Error> {
    let family = Family::parse(&a.family)?;
    let conventional = shrunk(sim_profile(&a.conventional)?, a)?;
    let zoned = shrunk(sim_profile(&a.zoned)?, a)?;
    // The FDP twin: named, or the built-in `<conventional>-fdp`.
    let fdp_target = match a.fdp.as_deref() {
        Some("none") => None,
        Some(t) => Some(t.to_string()),
        None => {
            let twin = format!("{}-fdp", a.conventional.strip_prefix("sim:").unwrap_or(&a.conventional));
            flashsim::builtin::text(&twin).map(|_| format!("sim:{twin}"))
        }
    };
    let fdp = fdp_target.as_deref().map(|t| sim_profile(t).and_then(|p| shrunk(p, a))).transpose()?;
    let nand = |p: &Profile| {
        let n = &p.nand;
        (
            format!("{:?}", n.cell),
            [n.channels, n.dies_per_channel, n.planes_per_die, n.blocks_per_plane, n.pages_per_block, n.page_kib],
            [n.t_read_us, n.t_prog_us, n.t_erase_us, n.channel_mb_s],
        )
    };
    if nand(&conventional) != nand(&zoned) {
        return Err(Error::flag(
            "--conventional / --zoned",
            format!("{} and {} are not on the same NAND ([nand] differs)", conventional.name, zoned.name),
        ));
    }
    if let Some(f) = fdp.as_ref().filter(|f| nand(f) != nand(&conventional)) {
        return Err(Error::flag(
            "--conventional / --fdp",
            format!("{} and {} are not on the same NAND ([nand] differs)", conventional.name, f.name),
        ));
    }
    let cell = format!("{:?}", conventional.nand.cell).to_lowercase();
    let pe_cycles = a.pe_cycles.unwrap_or_else(|| flashlab_life::series::default_pe_cycles(&cell));
    let cfg =
        PlacementConfig { conventional, zoned, fdp, family, live: a.live, passes: a.passes, pe_cycles, seed: a.seed };
    let bar = Progress::new("sim placement");
    let wall = Instant::now();
    let r = run_placements(&cfg, |f| bar.set(f, ""))?;
    bar.finish();
    crate::proseln!(
        "{} workload, {} streams (data share / write share: {}), {:.2} GiB live on {:.2} GiB of NAND, {} passes, seed {}",
        r.family,
        r.streams.len(),
        r.streams.iter().map(|(d, w)| format!("{:.0}/{:.0} %", 100.0 * d, 100.0 * w)).collect::<Vec<_>>().join(", "),
        r.live_bytes as f64 / (1u64 << 30) as f64,
        r.nand_bytes as f64 / (1u64 << 30) as f64,
        r.passes,
        r.seed
    );
    let mut table = format!(
        "{:<14} {:>7} {:>7} {:>8} {:>8} {:>8} {:>6} {:>6} {:>7} {:>8} {:>8} {:>8}",
        "placement",
        "dev WAF",
        "e2e WAF",
        "data WAF",
        "host GC",
        "dev GC",
        "resets",
        "p50 µs",
        "p99 µs",
        "p99.9 µs",
        "max ms",
        "life TBW"
    );
    for row in &r.rows {
        table += &format!(
            "\n{:<14} {:>7.3} {:>7.3} {:>8.3} {:>8} {:>8} {:>6} {:>6.1} {:>7.1} {:>8.1} {:>8.1} {:>8.1}",
            row.placement,
            row.device_waf,
            row.end_to_end_waf,
            row.data_waf,
            row.host_gc_copies,
            row.device_gc_copies,
            row.zone_resets,
            row.p50_us,
            row.p99_us,
            row.p999_us,
            row.max_us / 1e3,
            row.lifetime_tbw
        );
    }
    for row in r.rows.iter().filter(|r| !r.handle_waf.is_empty()) {
        table += &format!(
            "\n{} per handle (media / host bytes): {}",
            row.placement,
            row.handle_waf.iter().map(|w| format!("{w:.3}")).collect::<Vec<_>>().join(" ")
        );
    }
    crate::output_args::emit_text(&(table + "\n"));
    crate::proseln!(
        "measured over the second half: {} application writes of 4 KiB at QD1; GC copies in 4 KiB units; data WAF = (device writes + device GC copies) / application writes, the rest of the end-to-end WAF is the mapping table's pages and padding; lifetime = {} P/E cycles x the NAND / end-to-end WAF; simulated in {:.1} s",
        r.rows[0].app_writes,
        r.pe_cycles,
        wall.elapsed().as_secs_f64()
    );
    let doc = Document::new(Body::SimPlacement(flashlab_results::typed("sim placement's results", &r)?))
        .seed(a.seed)
        .param("family", &a.family)
        .param("conventional", &a.conventional)
        .param("zoned", &a.zoned)
        .param("fdp", fdp_target.as_deref().unwrap_or("none"))
        .param("blocks_per_plane", a.blocks_per_plane)
        .param("pages_per_block", a.pages_per_block)
        .param("live", a.live)
        .param("passes", a.passes)
        .param("pe_cycles", pe_cycles);
    a.out.write(&doc, "sim placement")
}
