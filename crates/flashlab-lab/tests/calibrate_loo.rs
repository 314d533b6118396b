//! Leave-one-out calibration error on a small case (a vendor profile: four cells, seven design
//! points, about a second).

use flashlab_lab::calibrate::{calibrate, CalibrationSpec};
use flashlab_lab::calibrate_loo::leave_one_out;
use flashlab_lab::profiles::builtin;
use flashsim::Profile;

#[test]
fn every_cell_gets_an_in_sample_and_a_left_out_error() {
    let text = builtin("sd-card").unwrap();
    let r = leave_one_out(text, "sd-card", 1, |_| {}).unwrap().expect("sd-card names its knobs");
    let p = Profile::from_toml("sd-card", text).unwrap();
    let own = calibrate(&p, &CalibrationSpec::of(&p, "sd-card").unwrap(), 1, |_, _| {}).unwrap();
    assert_eq!(r.cells.len(), own.cells.len());
    assert_eq!(r.design_points, 1 + 2 * r.knobs.len());
    for (l, c) in r.cells.iter().zip(&own.cells) {
        assert_eq!(l.in_sample, c.simulated, "{}: in-sample is the profile's own value", l.metric);
        assert!((l.left_out_error - (l.left_out - l.published) / l.published).abs() < 1e-12);
        assert!(l.left_out > 0.0);
    }
    // The knobs move the simulation: some cell's prediction comes from a moved knob, or the
    // profile's own point wins every fit (then every LOO error equals the in-sample one).
    let moved = r.cells.iter().any(|c| c.chosen != "profile");
    assert!(moved || r.cells.iter().all(|c| c.left_out == c.in_sample));
}

#[test]
fn a_knob_that_names_nothing_is_a_clear_error() {
    let text = builtin("sd-card").unwrap().replace("knobs = [\"nand.t_prog_us\"", "knobs = [\"nand.nosuch\"");
    let e = leave_one_out(&text, "sd.toml", 1, |_| {}).unwrap_err().to_string();
    assert!(e.contains("sd.toml") && e.contains("nand.nosuch"), "{e}");
}
