//! Closed-form write amplification of garbage collection under uniform random writes, and under
//! skewed (hot/cold, Zipf) writes for LRW cleaning, for checking the simulator
//! (docs/reference.md section 3; docs/hotcold.md).

/// Principal branch of the Lambert W function, for x in [-1/e, 0] (Halley's iteration).
fn lambert_w0(x: f64) -> f64 {
    assert!((-1.0 / std::f64::consts::E - 1e-12..=0.0).contains(&x), "lambert_w0 domain: {x}");
    // Start from the branch-point series near -1/e, else from x.
    let p = (2.0 * (std::f64::consts::E * x + 1.0)).max(0.0).sqrt();
    let mut w = if x < -0.25 { -1.0 + p - p * p / 3.0 } else { x };
    for _ in 0..64 {
        let ew = w.exp();
        let f = w * ew - x;
        let d = ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0);
        if d == 0.0 {
            break;
        }
        let next = w - f / d;
        if (next - w).abs() < 1e-15 {
            return next;
        }
        w = next;
    }
    w
}

/// FIFO/LRU cleaning (Desnoyers; Hu et al.): WA = alpha / (alpha + W0(-alpha e^-alpha)),
/// alpha = 1 / (1 - spare factor).
pub fn waf_fifo(spare_factor: f64) -> f64 {
    let alpha = 1.0 / (1.0 - spare_factor);
    alpha / (alpha + lambert_w0(-alpha * (-alpha).exp()))
}

/// Random victim selection (Van Houdt): WA ~ 1 / spare factor.
pub fn waf_random(spare_factor: f64) -> f64 {
    1.0 / spare_factor
}

/// FIFO/LRW cleaning under non-uniform random writes, one write frontier (Desnoyers, "Analytic
/// models of SSD write performance", ACM TOS 10(2), 2014: the LRW model for non-uniform
/// traffic, which its simulations show to be exact). Unit `i` receives the fraction `rates[i]`
/// of host writes, relative to the mean (`rates` averages 1 over the logical units). A unit
/// written at the head of the log reaches the tail after one rotation of the physical space,
/// during which the host writes `x` times the logical space; it is still valid with probability
/// `exp(-rate x)`, so it is written `rate x / (1 - exp(-rate x))` times per rotation (host and
/// GC copies), and the physical space is one rotation: mean over units of that = alpha. WA is
/// then alpha / x. With all rates 1 this is [`waf_fifo`].
///
/// `rates` yields (share of the logical units, relative rate) pairs, so a hot/cold workload
/// is two pairs and a Zipf one is one pair per unit or per group of equal units.
pub fn waf_fifo_skewed(spare_factor: f64, rates: &[(f64, f64)]) -> f64 {
    let alpha = 1.0 / (1.0 - spare_factor);
    let lhs = |x: f64| -> f64 {
        rates
            .iter()
            .map(|&(share, r)| {
                let y = r * x;
                if y < 1e-12 {
                    share
                } else {
                    share * y / -(-y).exp_m1()
                }
            })
            .sum()
    };
    // lhs rises from 1 (x -> 0) past alpha (at x = alpha): bisect.
    let (mut lo, mut hi) = (0.0, alpha);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if lhs(mid) < alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    alpha / (0.5 * (lo + hi))
}

/// The (share, relative rate) pairs of a Zipf(theta) workload over `n` units: unit of rank `k`
/// gets a share of writes proportional to 1 / k^theta.
pub fn zipf_rates(theta: f64, n: u64) -> Vec<(f64, f64)> {
    let w: Vec<f64> = (1..=n).map(|k| (k as f64).powf(-theta)).collect();
    let total: f64 = w.iter().sum();
    let share = 1.0 / n as f64;
    w.into_iter().map(|x| (share, x / total * n as f64)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The (share of units, relative rate) pairs of a hot/cold workload: `hot_writes` of the writes
    /// go to `hot_space` of the logical space, uniformly within each part (fio's `zoned`).
    fn hot_cold_rates(hot_writes: f64, hot_space: f64) -> [(f64, f64); 2] {
        [(hot_space, hot_writes / hot_space), (1.0 - hot_space, (1.0 - hot_writes) / (1.0 - hot_space))]
    }

    #[test]
    fn skewed_model_reduces_to_the_uniform_formula() {
        for sf in [0.07, 0.1, 0.2, 0.28] {
            let u = waf_fifo_skewed(sf, &[(1.0, 1.0)]);
            assert!((u - waf_fifo(sf)).abs() < 1e-9, "sf {sf}: {u} vs {}", waf_fifo(sf));
            // Two halves with the same rate are still uniform.
            let h = waf_fifo_skewed(sf, &hot_cold_rates(0.5, 0.5));
            assert!((h - waf_fifo(sf)).abs() < 1e-9);
        }
    }

    #[test]
    fn skew_raises_lrw_write_amplification() {
        // LRW gains nothing from skew: cold data is copied on every rotation (Desnoyers).
        let u = waf_fifo(0.1);
        let hc = waf_fifo_skewed(0.1, &hot_cold_rates(0.8, 0.2));
        assert!(hc > u, "{hc} vs {u}");
    }

    #[test]
    fn fifo_formula_matches_published_column() {
        // docs/reference.md section 3, FIFO column.
        for (sf, wa) in [(0.07, 7.32), (0.10, 5.18), (0.20, 2.69), (0.28, 1.99)] {
            let got = waf_fifo(sf);
            assert!((got - wa).abs() < 0.01, "sf {sf}: {got} vs {wa}");
        }
    }

    #[test]
    fn lambert_w_inverts() {
        for x in [-0.36, -0.3, -0.1, -0.01, 0.0] {
            let w = lambert_w0(x);
            assert!((w * w.exp() - x).abs() < 1e-12, "{x}");
        }
    }
}
