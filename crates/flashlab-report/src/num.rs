//! Numbers as flashlab prints them: a fixed number of significant figures, never an exponent.
//! Every table, chart label and report cell goes through [`sig`], so a value reads the same in
//! the terminal and in the HTML report.

/// `v` with `digits` significant figures in fixed notation (0.112, 7.62, 25.2, 1230); zero and
/// non-finite values are printed as Rust prints them (`0`, `NaN`, `inf`).
pub fn sig(v: f64, digits: usize) -> String {
    sig_max_decimals(v, digits, usize::MAX)
}

/// As [`sig`], but with at most `max_decimals` digits after the point (0.01234 with 3 digits
/// and 3 decimals is `0.012`).
pub fn sig_max_decimals(v: f64, digits: usize, max_decimals: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i32;
    let decimals = ((digits as i32 - 1 - mag).max(0) as usize).min(max_decimals);
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_figures() {
        assert_eq!(sig(0.11234, 3), "0.112");
        assert_eq!(sig(7.6249, 3), "7.62");
        assert_eq!(sig(25.24, 3), "25.2");
        assert_eq!(sig(1234.0, 3), "1234");
        assert_eq!(sig(0.0, 3), "0");
        assert_eq!(sig(f64::NAN, 3), "NaN");
        assert_eq!(sig(-0.5, 2), "-0.50");
        assert_eq!(sig_max_decimals(0.01234, 3, 3), "0.012");
        assert_eq!(sig_max_decimals(12.345, 3, 3), "12.3");
    }
}
