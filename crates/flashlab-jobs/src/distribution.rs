//! fio's `random_distribution` (and `percentage_random`): which block a random I/O goes to.
//!
//! Read from fio's source (`lib/zipf.c`, `lib/gauss.c`, `zone-dist.c`, `io_u.c`, the
//! `random_distribution` and `zoned` parsing in `options.c`) and kept to its semantics:
//!
//! | spelling | meaning |
//! |---|---|
//! | `random` | uniform (fio's default; fio then also keeps its random map) |
//! | `zipf:θ[:center]` | Zipf over the block ranks, θ ≠ 1 (fio's default θ 1.1) |
//! | `pareto:h[:center]` | Pareto, 0 < h < 1 (fio's default 0.2) |
//! | `normal:σ[:center]` | fio's "normal": a 12-draw Irwin–Hall sum centred on the region plus a uniform deviation of σ % of the region (0 ≤ σ < 100) |
//! | `zoned:a/s:a/s...` | a % of accesses go to the next s % of the region (uniform inside) |
//! | `zoned_abs:a/size:...` | the same with absolute zone sizes |
//!
//! Zipf, Pareto and normal draw a *rank*; as fio does, the rank is scattered over the region
//! by multiplying with the 64-bit golden ratio (fio's `__hash_u64`) and shifted by a random
//! offset (or by `center` × N when a centre is given), so hot blocks are spread over the
//! region rather than packed at its start. Zones are given per direction like `bssplit`
//! (`zoned:60/10:40/90,100/100` = reads skewed, writes uniform).
//!
//! The [`Sampler`] allocates nothing per draw; constructing a Zipf sampler sums the zeta
//! constant over min(N, 10⁷) terms, as fio does.

use rand_core::RngCore;
use serde::{Deserialize, Serialize};

use crate::job::IoDir;
use crate::units::parse_size;

/// fio's default Zipf θ (`FIO_DEF_ZIPF`).
pub const FIO_DEF_ZIPF: f64 = 1.1;
/// fio's default Pareto h (`FIO_DEF_PARETO`).
pub const FIO_DEF_PARETO: f64 = 0.2;
/// fio caps the Zipf normalisation sum at this many terms (`ZIPF_MAX_GEN`).
pub const ZIPF_MAX_GEN: u64 = 10_000_000;
/// fio's `__hash_u64` multiplier (`GOLDEN_RATIO_64`).
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;
/// fio's limit on zones per direction.
const ZONES_MAX: usize = 256;

/// A `random_distribution` value that could not be read; the job-file parser adds file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DistributionError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, DistributionError> {
    Err(DistributionError(msg.into()))
}

/// One zone of a `zoned`/`zoned_abs` distribution: `access_pct` % of the accesses fall
/// uniformly into the zone, which is `size_pct` % of the region (`zoned`) or `size` bytes
/// (`zoned_abs`). Zones follow each other from the start of the region.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    /// Percentage of accesses (the zones' sum is 100).
    pub access_pct: u32,
    /// Zone size in percent of the region (`zoned`), 0 for `zoned_abs`.
    pub size_pct: u32,
    /// Zone size in bytes (`zoned_abs`), 0 for `zoned`.
    pub size: u64,
}

/// Zones for reads, writes and trims (fio: one set given applies to all three).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZoneSplit {
    /// Zones of reads.
    pub read: Vec<Zone>,
    /// Zones of writes.
    pub write: Vec<Zone>,
    /// Zones of trims.
    pub trim: Vec<Zone>,
}

impl ZoneSplit {
    /// The zones of direction `dir`.
    pub fn for_dir(&self, dir: IoDir) -> &[Zone] {
        match dir {
            IoDir::Read => &self.read,
            IoDir::Write => &self.write,
            IoDir::Trim => &self.trim,
        }
    }
}

/// fio's `random_distribution`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Uniform (`random`, fio's default).
    #[default]
    Random,
    /// `zipf:θ[:center]`.
    Zipf {
        /// The exponent θ.
        theta: f64,
        /// Where the hottest block lies, as a fraction of the region (fio's `:center`).
        center: Option<f64>,
    },
    /// `pareto:h[:center]`.
    Pareto {
        /// The shape h (0 < h < 1).
        h: f64,
        /// Where the hottest block lies, as a fraction of the region (fio's `:center`).
        center: Option<f64>,
    },
    /// `normal:σ[:center]` (fio's Gaussian; σ in percent of the region).
    Normal {
        /// The standard deviation σ, percent of the region.
        dev_pct: f64,
        /// Where the mean lies, as a fraction of the region (fio's `:center`).
        center: Option<f64>,
    },
    /// `zoned:...`: zone sizes in percent of the region.
    Zoned(ZoneSplit),
    /// `zoned_abs:...`: zone sizes in bytes.
    ZonedAbs(ZoneSplit),
    /// `sequence:b0,b1,...`: these block indices (of the block alignment), in this order, over
    /// and over (with `random_sequence_stride`, each round moves on by the sequence's length).
    Sequence(Vec<u32>),
}

/// fio's most elements of a `sequence` distribution (`FIO_SEQ_MAX`).
pub const SEQUENCE_MAX: usize = 64;

impl Distribution {
    /// Reads fio's spelling. `kb_base` is the job's (for `zoned_abs` sizes).
    ///
    /// ```
    /// use flashlab_jobs::distribution::Distribution;
    /// assert_eq!(Distribution::parse("zipf:0.9", 1024).unwrap(),
    ///            Distribution::Zipf { theta: 0.9, center: None });
    /// assert!(Distribution::parse("zipf:1", 1024).is_err());
    /// ```
    pub fn parse(text: &str, kb_base: u32) -> Result<Distribution, DistributionError> {
        let s = text.trim();
        // fio accepts `zoned_abs=...` as well as `zoned_abs:...` (its HOWTO shows both).
        let (kind, rest) = match s.find([':', '=']) {
            Some(i) => (&s[..i], Some(s[i + 1..].trim())),
            None => (s, None),
        };
        match kind {
            "random" => match rest {
                None => Ok(Distribution::Random),
                Some(_) => err("'random' takes no parameter"),
            },
            "zipf" => {
                let (theta, center) = value_center(rest, FIO_DEF_ZIPF, "zipf theta")?;
                if theta <= 0.0 || theta == 1.0 {
                    return err(format!("zipf theta must be > 0 and different from 1.0 (got {theta})"));
                }
                Ok(Distribution::Zipf { theta, center })
            }
            "pareto" => {
                let (h, center) = value_center(rest, FIO_DEF_PARETO, "pareto h")?;
                if !(h > 0.0 && h < 1.0) {
                    return err(format!("pareto h out of range (0 < h < 1; got {h})"));
                }
                Ok(Distribution::Pareto { h, center })
            }
            "normal" | "gauss" => {
                let (dev_pct, center) = value_center(rest, 0.0, "normal deviation")?;
                if !(0.0..100.0).contains(&dev_pct) {
                    return err(format!("normal deviation out of range (0 <= σ < 100; got {dev_pct})"));
                }
                Ok(Distribution::Normal { dev_pct, center })
            }
            "zoned" | "zoned_abs" => {
                let abs = kind == "zoned_abs";
                let Some(rest) = rest.filter(|r| !r.is_empty()) else {
                    return err(format!(
                        "'{kind}' needs zones, e.g. {kind}:60/{}:40/{}",
                        if abs { "1g" } else { "10" },
                        if abs { "9g" } else { "90" }
                    ));
                };
                let split = parse_zone_split(rest, abs, kb_base)?;
                Ok(if abs { Distribution::ZonedAbs(split) } else { Distribution::Zoned(split) })
            }
            "sequence" => {
                let Some(rest) = rest.filter(|r| !r.is_empty()) else {
                    return err("'sequence' needs block indices, e.g. sequence:2,0,1");
                };
                let mut seq = Vec::new();
                for part in rest.split(',') {
                    let part = part.trim();
                    let b: u32 = part.parse().map_err(|_| {
                        DistributionError(format!("bad sequence element '{part}' (a block index: 0 or more)"))
                    })?;
                    seq.push(b);
                }
                if seq.len() > SEQUENCE_MAX {
                    return err(format!("a sequence has at most {SEQUENCE_MAX} elements (got {})", seq.len()));
                }
                Ok(Distribution::Sequence(seq))
            }
            "" => err("empty random_distribution"),
            other => {
                err(format!("unknown random_distribution '{other}' (random, zipf, pareto, normal, zoned, zoned_abs)"))
            }
        }
    }

    /// fio's spelling of this distribution (parameters included).
    pub fn fio_spelling(&self) -> String {
        fn c(center: &Option<f64>) -> String {
            center.map(|c| format!(":{c}")).unwrap_or_default()
        }
        fn zones(z: &ZoneSplit, abs: bool) -> String {
            let one = |v: &[Zone]| {
                v.iter()
                    .map(|z| {
                        if abs {
                            format!("{}/{}", z.access_pct, z.size)
                        } else {
                            format!("{}/{}", z.access_pct, z.size_pct)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(":")
            };
            if z.read == z.write && z.write == z.trim {
                one(&z.read)
            } else {
                format!("{},{},{}", one(&z.read), one(&z.write), one(&z.trim))
            }
        }
        match self {
            Distribution::Random => "random".into(),
            Distribution::Zipf { theta, center } => format!("zipf:{theta}{}", c(center)),
            Distribution::Pareto { h, center } => format!("pareto:{h}{}", c(center)),
            Distribution::Normal { dev_pct, center } => format!("normal:{dev_pct}{}", c(center)),
            Distribution::Zoned(z) => format!("zoned:{}", zones(z, false)),
            Distribution::ZonedAbs(z) => format!("zoned_abs:{}", zones(z, true)),
            Distribution::Sequence(v) => {
                format!("sequence:{}", v.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
            }
        }
    }

    /// Uniform (fio keeps its random map only then).
    pub fn is_uniform(&self) -> bool {
        matches!(self, Distribution::Random)
    }
}

fn value_center(rest: Option<&str>, default: f64, what: &str) -> Result<(f64, Option<f64>), DistributionError> {
    let Some(rest) = rest.filter(|r| !r.is_empty()) else { return Ok((default, None)) };
    let (v, c) = match rest.split_once(':') {
        Some((v, c)) => (v, Some(c)),
        None => (rest, None),
    };
    let v: f64 = v.trim().parse().map_err(|_| DistributionError(format!("bad {what} '{}'", v.trim())))?;
    if !v.is_finite() {
        return err(format!("bad {what} '{v}'"));
    }
    let center = match c {
        None => None,
        Some(c) => {
            let c: f64 =
                c.trim().parse().map_err(|_| DistributionError(format!("bad distribution center '{}'", c.trim())))?;
            if !(0.0..=1.0).contains(&c) {
                return err(format!("distribution center out of range (0 <= center <= 1; got {c})"));
            }
            Some(c)
        }
    };
    Ok((v, center))
}

/// fio's `str_split_parse`: `A` for all directions, `R,W` (trim = W) or `R,W,T`; an empty part
/// keeps fio's meaning of "none given" for that direction (then it is uniform).
pub(crate) fn split_per_dir(text: &str) -> (&str, &str, &str) {
    let parts: Vec<&str> = text.splitn(3, ',').collect();
    match parts.as_slice() {
        [a] => (a, a, a),
        [r, w] => (r, w, w),
        [r, w, t] => (r, w, t),
        _ => unreachable!("splitn gives 1..=3 parts"),
    }
}

fn parse_zone_split(text: &str, abs: bool, kb_base: u32) -> Result<ZoneSplit, DistributionError> {
    let (r, w, t) = split_per_dir(text);
    Ok(ZoneSplit {
        read: parse_zones(r, abs, kb_base, "read")?,
        write: parse_zones(w, abs, kb_base, "write")?,
        trim: parse_zones(t, abs, kb_base, "trim")?,
    })
}

/// One direction's zones, with fio's rules: `a/s` pairs separated by `:`; a missing, empty
/// or 0 size (in `zoned`) is "the rest of the region, divided evenly"; the access shares must add
/// up to 100 and the percentage sizes to at most 100.
fn parse_zones(text: &str, abs: bool, kb_base: u32, dir: &str) -> Result<Vec<Zone>, DistributionError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut zones = Vec::new();
    let mut missing_size = 0u32;
    for (i, part) in text.split(':').enumerate() {
        let part = part.trim();
        if part.is_empty() {
            break; // fio stops at an empty element
        }
        if i == ZONES_MAX {
            return err(format!("more than {ZONES_MAX} zones for {dir}s"));
        }
        let (a, s) = match part.split_once('/') {
            Some((a, s)) => (a.trim(), Some(s.trim())),
            None => (part, None),
        };
        let access: u32 = a.parse().map_err(|_| {
            DistributionError(format!("bad zone access percentage '{a}' in '{part}' (want access%/size)"))
        })?;
        if access > 100 {
            return err(format!("zone access percentage {access} > 100 in '{part}'"));
        }
        let z0 = Zone { access_pct: access, size_pct: 0, size: 0 };
        let mut z = z0;
        // `20/` (an empty size, as in `zoned:50/5:30/15:20/`) is a zone without a size too.
        let s = s.filter(|s| !s.is_empty());
        match (s, abs) {
            (None, false) => missing_size += 1,
            (None, true) => return err(format!("zone '{part}' has no size (want access%/size)")),
            (Some(s), false) => {
                let p: u32 = s
                    .trim_end_matches('%')
                    .parse()
                    .map_err(|_| DistributionError(format!("bad zone size percentage '{s}' in '{part}'")))?;
                if p == 0 {
                    missing_size += 1;
                } else {
                    z.size_pct = p.min(100);
                }
            }
            (Some(s), true) => {
                z.size = parse_size(s, kb_base).map_err(|e| DistributionError(format!("zone '{part}': {e}")))?;
                if z.size == 0 {
                    return err(format!("zone '{part}' has size 0"));
                }
            }
        }
        zones.push(z);
    }
    let access: u32 = zones.iter().map(|z| z.access_pct).sum();
    let sizes: u32 = zones.iter().map(|z| z.size_pct).sum();
    if access > 100 || sizes > 100 {
        return err(format!("zone percentages for {dir}s add to more than 100 (access {access}, size {sizes})"));
    }
    if missing_size > 0 && !abs {
        let each = (100 - sizes) / missing_size;
        for z in zones.iter_mut().filter(|z| z.size_pct == 0) {
            z.size_pct = each;
        }
    }
    if access != 100 {
        return err(format!("zone access percentages for {dir}s add to {access}, not 100"));
    }
    Ok(zones)
}

/// fio's `percentage_random`: the percentage of a random job's I/Os that are random (the rest
/// continue sequentially from the last one), per direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PercentageRandom {
    /// Percent of random reads.
    pub read: u32,
    /// Percent of random writes.
    pub write: u32,
    /// Percent of random trims.
    pub trim: u32,
}

impl Default for PercentageRandom {
    fn default() -> Self {
        PercentageRandom { read: 100, write: 100, trim: 100 }
    }
}

impl PercentageRandom {
    /// Reads `N`, `R,W` or `R,W,T` (0..=100 each).
    pub fn parse(text: &str) -> Result<PercentageRandom, DistributionError> {
        let one = |s: &str| -> Result<u32, DistributionError> {
            let s = s.trim().trim_end_matches('%');
            match s.parse::<u32>() {
                Ok(v) if v <= 100 => Ok(v),
                _ => err(format!("bad percentage '{s}' (0..=100)")),
            }
        };
        let (r, w, t) = split_per_dir(text);
        Ok(PercentageRandom { read: one(r)?, write: one(w)?, trim: one(t)? })
    }

    /// The percentage for direction `dir`.
    pub fn for_dir(&self, dir: IoDir) -> u32 {
        match dir {
            IoDir::Read => self.read,
            IoDir::Write => self.write,
            IoDir::Trim => self.trim,
        }
    }

    /// Draws whether the next I/O of `dir` is random (fio's `should_do_random`).
    #[inline]
    pub fn draw_random<R: RngCore + ?Sized>(&self, dir: IoDir, rng: &mut R) -> bool {
        let p = self.for_dir(dir);
        p >= 100 || (p > 0 && below(rng, 100) < u64::from(p))
    }
}

/// Uniform in [0, n) (multiply-shift).
#[inline]
pub fn below<R: RngCore + ?Sized>(rng: &mut R, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

/// Uniform in [0, 1).
#[inline]
pub fn unit<R: RngCore + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Draws block indices in `0..n` following a [`Distribution`], for one direction.
#[derive(Debug, Clone)]
pub struct Sampler {
    n: u64,
    kind: Kind,
    /// fio's `rand_off`: where rank 0 lands.
    off: u64,
    hash: bool,
}

#[derive(Debug, Clone)]
enum Kind {
    Uniform,
    Zipf {
        zetan: f64,
        zeta2_part: f64,
        alpha: f64,
        eta: f64,
    },
    Pareto {
        pow: f64,
    },
    Normal {
        stddev: u64,
    },
    /// 100 entries (one per access percent): block range [start, end) of the zone.
    Zones {
        table: Box<[(u64, u64); 100]>,
    },
}

impl Sampler {
    /// A sampler over `n` blocks of `block` bytes for direction `dir`. `seed_rng` gives the
    /// random offset fio draws at set-up (unused when a centre is given); draws are then
    /// deterministic for the rng passed to [`Sampler::next`].
    ///
    /// Errors when a `zoned_abs` zone ends past the region (fio: "zoned_abs sizes exceed
    /// file size").
    pub fn new<R: RngCore + ?Sized>(
        dist: &Distribution,
        dir: IoDir,
        n: u64,
        block: u64,
        seed_rng: &mut R,
    ) -> Result<Sampler, DistributionError> {
        let n = n.max(1);
        let block = block.max(1);
        let rand_off = seed_rng.next_u64() & 0xffff_ffff; // fio: one 32-bit draw
        let center_off = |c: Option<f64>, base: f64| -> u64 {
            match c {
                None => rand_off % n,
                Some(c) => {
                    let v = (n as f64 * (c - base)).round() as i64;
                    v.rem_euclid(n as i64) as u64
                }
            }
        };
        let (kind, off) = match dist {
            // A sequence is no draw: the offset generator takes its blocks in order.
            Distribution::Random | Distribution::Sequence(_) => (Kind::Uniform, 0),
            Distribution::Zipf { theta, center } => {
                let terms = n.min(ZIPF_MAX_GEN);
                let zetan: f64 = (1..=terms).map(|i| (1.0 / i as f64).powf(*theta)).sum();
                let zeta2 = 1.0 + 0.5f64.powf(*theta);
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                (Kind::Zipf { zetan, zeta2_part: 0.5f64.powf(*theta), alpha, eta }, center_off(*center, 0.0))
            }
            Distribution::Pareto { h, center } => {
                (Kind::Pareto { pow: h.ln() / (1.0 - h).ln() }, center_off(*center, 0.0))
            }
            Distribution::Normal { dev_pct, center } => {
                let mut stddev = if *dev_pct > 0.0 { (n as f64 * dev_pct / 100.0).ceil() as u64 } else { 0 };
                stddev = stddev.min(n / 2);
                // fio: no centre means offset 0 (the sum is already centred on n/2).
                let off = match center {
                    None => 0,
                    Some(_) => center_off(*center, 0.5),
                };
                (Kind::Normal { stddev }, off)
            }
            Distribution::Zoned(z) | Distribution::ZonedAbs(z) => {
                let abs = matches!(dist, Distribution::ZonedAbs(_));
                let zones = z.for_dir(dir);
                if zones.is_empty() {
                    (Kind::Uniform, 0)
                } else {
                    let mut table = Box::new([(0u64, n); 100]);
                    let (mut a, mut sp, mut sb) = (0usize, 0u64, 0u64);
                    for zone in zones {
                        let (start, end) = if abs {
                            let (s, e) = (sb / block, (sb + zone.size) / block);
                            if e > n {
                                return err(format!(
                                    "zoned_abs zones end at {} bytes, past the {} bytes of the region",
                                    sb + zone.size,
                                    n * block
                                ));
                            }
                            (s, e)
                        } else {
                            (sp * n / 100, (sp + u64::from(zone.size_pct)) * n / 100)
                        };
                        for slot in table.iter_mut().skip(a).take(zone.access_pct as usize) {
                            *slot = (start, end.max(start + 1).min(n.max(start + 1)));
                        }
                        a += zone.access_pct as usize;
                        sp += u64::from(zone.size_pct);
                        sb += zone.size;
                    }
                    (Kind::Zones { table }, 0)
                }
            }
        };
        Ok(Sampler { n, kind, off, hash: true })
    }

    /// fio's `*_disable_hash` (used for `file_service_type`): ranks are not scattered, rank 0
    /// is block `off`.
    pub fn without_hash(mut self) -> Sampler {
        self.hash = false;
        self
    }

    /// The number of blocks drawn over.
    pub fn blocks(&self) -> u64 {
        self.n
    }

    /// Uniform (fio keeps its random map only for these).
    pub fn is_uniform(&self) -> bool {
        matches!(self.kind, Kind::Uniform)
    }

    /// The next block index, in `0..blocks()`. No allocation.
    #[inline]
    pub fn next<R: RngCore + ?Sized>(&self, rng: &mut R) -> u64 {
        let n = self.n;
        let rank = match &self.kind {
            Kind::Uniform => return below(rng, n),
            Kind::Zones { table } => {
                let (s, e) = table[below(rng, 100) as usize];
                return s + below(rng, e - s);
            }
            Kind::Zipf { zetan, zeta2_part, alpha, eta } => {
                let u = unit(rng);
                let z = u * zetan;
                let val = if z < 1.0 {
                    1
                } else if z < 1.0 + zeta2_part {
                    2
                } else {
                    1 + (n as f64 * (eta * u - eta + 1.0).powf(*alpha)) as u64
                };
                val - 1
            }
            Kind::Pareto { pow } => ((n - 1) as f64 * unit(rng).powf(*pow)) as u64,
            Kind::Normal { stddev } => {
                let mut sum = 0u64;
                for _ in 0..12 {
                    sum += below(rng, n + 1);
                }
                let mut sum = sum.div_ceil(12);
                if *stddev > 0 {
                    let mut dev = (*stddev as f64 * unit(rng)) as i64 - (*stddev / 2) as i64;
                    while dev != 0 && (sum as i64 + dev < 0 || (sum as i64 + dev) as u64 >= n) {
                        dev /= 2;
                    }
                    sum = (sum as i64 + dev) as u64;
                }
                sum
            }
        };
        let v = if self.hash { rank.wrapping_mul(GOLDEN_RATIO_64) } else { rank };
        ((v % n) + self.off) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn rng(seed: u64) -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(seed)
    }

    fn counts(d: &str, n: u64, draws: usize) -> Vec<u64> {
        let dist = Distribution::parse(d, 1024).unwrap();
        let s = Sampler::new(&dist, IoDir::Write, n, 4096, &mut rng(1)).unwrap();
        let mut r = rng(2);
        let mut c = vec![0u64; n as usize];
        for _ in 0..draws {
            let b = s.next(&mut r);
            assert!(b < n);
            c[b as usize] += 1;
        }
        c
    }

    /// Share of the draws that hit the most popular `frac` of the blocks.
    fn top_share(c: &[u64], frac: f64) -> f64 {
        let mut v = c.to_vec();
        v.sort_unstable_by(|a, b| b.cmp(a));
        let k = ((v.len() as f64 * frac).round() as usize).max(1);
        v[..k].iter().sum::<u64>() as f64 / v.iter().sum::<u64>() as f64
    }

    #[test]
    fn parses_fio_spellings() {
        assert_eq!(Distribution::parse("random", 1024).unwrap(), Distribution::Random);
        assert_eq!(Distribution::parse("zipf", 1024).unwrap(), Distribution::Zipf { theta: 1.1, center: None });
        assert_eq!(
            Distribution::parse("zipf:1.2:0.25", 1024).unwrap(),
            Distribution::Zipf { theta: 1.2, center: Some(0.25) }
        );
        assert_eq!(Distribution::parse("pareto:0.9", 1024).unwrap(), Distribution::Pareto { h: 0.9, center: None });
        assert_eq!(Distribution::parse("normal:5", 1024).unwrap(), Distribution::Normal { dev_pct: 5.0, center: None });
        let Distribution::Zoned(z) = Distribution::parse("zoned:60/10:30/20:8/30:2/40", 1024).unwrap() else {
            panic!()
        };
        assert_eq!(z.read.len(), 4);
        assert_eq!(z.read, z.trim);
        assert_eq!(z.write[3], Zone { access_pct: 2, size_pct: 40, size: 0 });
        let Distribution::ZonedAbs(z) = Distribution::parse("zoned_abs=60/20G:30/100G:10/500g", 1024).unwrap() else {
            panic!()
        };
        assert_eq!(z.read[1].size, 100 << 30);
        let Distribution::Zoned(z) = Distribution::parse("zoned:50/10:50/90,100/100", 1024).unwrap() else { panic!() };
        assert_eq!(z.read.len(), 2);
        assert_eq!(z.write, vec![Zone { access_pct: 100, size_pct: 100, size: 0 }]);
        assert_eq!(z.trim, z.write);
        // Missing sizes split the rest evenly, as in fio.
        let Distribution::Zoned(z) = Distribution::parse("zoned:50/10:25:25", 1024).unwrap() else { panic!() };
        assert_eq!(z.read.iter().map(|z| z.size_pct).collect::<Vec<_>>(), vec![10, 45, 45]);
        // An empty size after '/' takes the rest (JESD219's `zoned:50/5:30/15:20/`).
        let Distribution::Zoned(z) = Distribution::parse("zoned:50/5:30/15:20/", 1024).unwrap() else { panic!() };
        assert_eq!(z.read.iter().map(|z| z.size_pct).collect::<Vec<_>>(), vec![5, 15, 80]);
        assert!(Distribution::parse("zoned:50/5:30/15:20/x", 1024).is_err());
        assert!(Distribution::parse("zoned_abs:50/1m:50/", 1024).is_err(), "zoned_abs zones need a size");
        for d in ["zipf:0.8", "pareto:0.2:0.5", "normal:10", "zoned:60/10:40/90"] {
            let p = Distribution::parse(d, 1024).unwrap();
            assert_eq!(Distribution::parse(&p.fio_spelling(), 1024).unwrap(), p);
        }
    }

    #[test]
    fn rejects_with_reasons() {
        for (bad, needle) in [
            ("zipf:1", "different from 1.0"),
            ("zipf:x", "bad zipf theta"),
            ("pareto:1.5", "0 < h < 1"),
            ("normal:100", "0 <= σ < 100"),
            ("zipf:1.2:2", "center out of range"),
            ("zoned:60/10:30/20", "add to 90"),
            ("zoned:60/60:40/60", "more than 100"),
            ("zoned:", "needs zones"),
            ("zoned_abs:60/1g:40", "has no size"),
            ("lognormal:3", "unknown random_distribution 'lognormal'"),
            ("sequence", "needs block indices"),
            ("sequence:1,-2", "bad sequence element '-2'"),
        ] {
            let e = Distribution::parse(bad, 1024).unwrap_err().to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn deterministic_per_seed() {
        assert_eq!(counts("zipf:1.2", 1000, 5000), counts("zipf:1.2", 1000, 5000));
    }

    /// Zipf with θ: P(rank 1) = 1 / H(N, θ). fio's generator (Gray et al.'s approximation)
    /// gives rank 1 exactly that probability.
    #[test]
    fn zipf_top_block_share_matches_theory() {
        let n = 10_000u64;
        for theta in [0.8, 1.2] {
            let c = counts(&format!("zipf:{theta}"), n, 400_000);
            let h: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
            let want = 1.0 / h;
            let got = top_share(&c, 1.0 / n as f64);
            assert!((got - want).abs() / want < 0.03, "θ {theta}: top block {got:.4} vs theory {want:.4}");
            // The top 1 % of blocks: theory sum_{i<=100} i^-θ / H.
            let want1: f64 = (1..=n / 100).map(|i| (i as f64).powf(-theta)).sum::<f64>() / h;
            let got1 = top_share(&c, 0.01);
            assert!((got1 - want1).abs() < 0.03, "θ {theta}: top 1 % {got1:.3} vs {want1:.3}");
        }
    }

    /// `pareto:0.2` puts 80 % of accesses on the first 20 % of the ranks (pow = ln h / ln(1-h):
    /// u^pow ≤ 0.2 ⇔ u ≤ 0.8). Checked on the ranks (no hash, centre 0), since sorting
    /// sampled counts would favour the lucky cold blocks.
    #[test]
    fn pareto_80_20() {
        let n = 10_000u64;
        for h in [0.2, 0.3] {
            let dist = Distribution::parse(&format!("pareto:{h}:0"), 1024).unwrap();
            let s = Sampler::new(&dist, IoDir::Read, n, 4096, &mut rng(1)).unwrap().without_hash();
            let mut r = rng(2);
            let hot = (0..200_000).filter(|_| s.next(&mut r) < (n as f64 * h) as u64).count() as f64 / 2e5;
            assert!((hot - (1.0 - h)).abs() < 0.01, "h {h}: first {h} of ranks got {hot:.3}");
        }
    }

    #[test]
    fn zoned_follows_zones_in_place() {
        let n = 1000u64;
        let c = counts("zoned:60/10:30/20:8/30:2/40", n, 200_000);
        let share = |a: usize, b: usize| c[a..b].iter().sum::<u64>() as f64 / 200_000.0;
        for (a, b, want) in [(0, 100, 0.60), (100, 300, 0.30), (300, 600, 0.08), (600, 1000, 0.02)] {
            let got = share(a, b);
            assert!((got - want).abs() < 0.01, "zone {a}..{b}: {got:.3} vs {want}");
        }
        let dist = Distribution::parse("zoned_abs:70/64k:30/192k", 1024).unwrap();
        let s = Sampler::new(&dist, IoDir::Read, 64, 4096, &mut rng(3)).unwrap();
        let mut r = rng(4);
        let hot = (0..100_000).filter(|_| s.next(&mut r) < 16).count() as f64 / 100_000.0;
        assert!((hot - 0.7).abs() < 0.01, "{hot}");
        let big = Distribution::parse("zoned_abs:70/64k:30/1m", 1024).unwrap();
        let e = Sampler::new(&big, IoDir::Read, 64, 4096, &mut rng(3)).unwrap_err();
        assert!(e.to_string().contains("past the"), "{e}");
    }

    #[test]
    fn normal_is_bell_shaped_around_the_middle() {
        let n = 1000u64;
        let dist = Distribution::parse("normal:0", 1024).unwrap();
        let s = Sampler::new(&dist, IoDir::Read, n, 4096, &mut rng(1)).unwrap().without_hash();
        let mut r = rng(2);
        let draws: Vec<u64> = (0..50_000).map(|_| s.next(&mut r)).collect();
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        let sd = (draws.iter().map(|&d| (d as f64 - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        // Mean of 12 uniforms on 0..=n: n/2, s.d. n/sqrt(12*12).
        assert!((mean - 500.0).abs() < 3.0, "{mean}");
        assert!((sd - 1000.0 / 12.0).abs() < 3.0, "{sd}");
        // With the hash, the same skew is scattered: the top 10 % of blocks keep the share.
        let hashed = counts("normal:0", n, 200_000);
        let top = top_share(&hashed, 0.1);
        assert!(top > 0.30, "{top}");
    }

    #[test]
    fn percentage_random() {
        let p = PercentageRandom::parse("30,70").unwrap();
        assert_eq!((p.read, p.write, p.trim), (30, 70, 70));
        assert!(PercentageRandom::parse("101").is_err());
        let mut r = rng(9);
        let k = (0..100_000).filter(|_| p.draw_random(IoDir::Read, &mut r)).count() as f64 / 1e5;
        assert!((k - 0.3).abs() < 0.01, "{k}");
    }
}
