//! Closed-form write amplification of garbage collection under uniform random writes, for
//! checking the simulator (docs/reference.md section 3).

/// Principal branch of the Lambert W function, for x in [-1/e, 0] (Halley's iteration).
pub fn lambert_w0(x: f64) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
