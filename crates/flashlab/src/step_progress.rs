//! A protocol's progress reports turned into what its bar shows: a position that never goes
//! back, and each step labelled by what it does. `run_protocol` reports (step, steps, what,
//! fraction of what); inside a four-corner step each test restarts at 0, and a step without
//! reports of its own (fstrim, delete, idle) sends none until its end, so the raw numbers would
//! run backwards (6 → 9 → 1 %) and a step would show the previous one's "done".

use flashlab_lab::protocol::{Protocol, Step};

/// The bar's state for one protocol run.
pub struct StepProgress {
    /// What each step does, for its label.
    labels: Vec<String>,
    /// Whether each step is a four-corner run (made of `runs` tests that each report 0..1).
    four_corner: Vec<bool>,
    /// Tests (job runs) in one four-corner step.
    runs: usize,
    /// The step of the last report (1-based; 0: none yet), the test within it, and that
    /// report's `what` and fraction.
    step: usize,
    part: usize,
    what: String,
    fraction: f64,
    /// The furthest position shown, 0..1, and the message shown with it.
    shown: f64,
    message: String,
}

/// What a step does, as its progress label says it.
pub fn step_label(step: &Step) -> String {
    match step {
        Step::FourCorner { label } => format!("four-corner '{label}'"),
        Step::Fill { .. } => "fill".into(),
        Step::Thin { .. } => "thin (delete fill files at random)".into(),
        Step::RandomWrites { .. } => "random writes".into(),
        Step::DeleteFill => "delete the fill files".into(),
        Step::Fstrim => "fstrim".into(),
        Step::Idle { duration } => format!("idle {duration}"),
    }
}

impl StepProgress {
    /// For `proto`, whose four-corner steps run `runs` tests each.
    pub fn new(proto: &Protocol, runs: usize) -> StepProgress {
        StepProgress {
            labels: proto.steps.iter().map(step_label).collect(),
            four_corner: proto.steps.iter().map(|s| matches!(s, Step::FourCorner { .. })).collect(),
            runs: runs.max(1),
            step: 0,
            part: 0,
            what: String::new(),
            fraction: 0.0,
            shown: 0.0,
            message: String::new(),
        }
    }

    fn message(&self, step: usize, what: Option<&str>) -> String {
        let n = self.labels.len();
        let label = self.labels.get(step.saturating_sub(1)).map(String::as_str).unwrap_or("");
        match what {
            // A four-corner report names its test (`new: seq read`); others repeat the step's kind.
            Some(w) if self.four_corner.get(step - 1).copied().unwrap_or(false) => {
                format!("step {step}/{n}: {label}, {}", w.rsplit(": ").next().unwrap_or(w))
            }
            _ => format!("step {step}/{n}: {label}"),
        }
    }

    /// A report of `run_protocol` (step `i` of `n`, `what`, fraction `f` of it): the bar's
    /// position (0..1, never less than before) and message.
    pub fn update(&mut self, i: usize, n: usize, what: &str, f: f64) -> (f64, String) {
        let f = if f.is_finite() { f.clamp(0.0, 1.0) } else { 0.0 };
        let n = n.max(1);
        if i < self.step {
            // A late report of a step already over (a four-corner run's last test reports its
            // end twice): nothing new.
            return (self.shown, self.message.clone());
        }
        if what == "done" {
            self.next_step(i, n);
            return (self.shown, self.message.clone());
        }
        if i != self.step {
            self.step = i;
            self.part = 0;
        } else if !self.what.is_empty() && (what != self.what || f < self.fraction) {
            // The next test of a four-corner run (its name changed, or it restarted at 0).
            self.part += 1;
        }
        self.what = what.to_string();
        self.fraction = f;
        let four_corner = self.four_corner.get(i.saturating_sub(1)).copied().unwrap_or(false);
        let within = if four_corner { (self.part.min(self.runs - 1) as f64 + f) / self.runs as f64 } else { f };
        let pos = ((i.saturating_sub(1)) as f64 + within) / n as f64;
        self.shown = self.shown.max(pos).min(1.0);
        if four_corner && self.part + 1 >= self.runs && f >= 1.0 {
            // A four-corner step sends no "done": its last test's end is the step's end.
            self.next_step(i, n);
        } else {
            self.message = self.message(i, Some(what));
        }
        (self.shown, self.message.clone())
    }

    /// Step `i` of `n` is over: the next one starts now, labelled by what it does (a step
    /// without reports of its own, fstrim or delete, shows as itself while it runs).
    fn next_step(&mut self, i: usize, n: usize) {
        self.step = i + 1;
        self.part = 0;
        self.what.clear();
        self.fraction = 0.0;
        self.shown = self.shown.max(i as f64 / n as f64).min(1.0);
        self.message = if i < n { self.message(i + 1, None) } else { format!("step {n}/{n}: done") };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;
    use flashlab_lab::protocol_run::{ProtocolCommand, Resolved};
    use flashlab_lab::sim_run::{self, SimProtocolRun};
    use indicatif::{ProgressDrawTarget, TermLike};
    use std::sync::{Arc, Mutex};

    /// A terminal that keeps every line the bar writes (the rendered frames).
    #[derive(Debug, Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<String>>>);

    impl TermLike for Recorder {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            if !s.trim().is_empty() {
                self.0.lock().unwrap().push(s.to_string());
            }
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Every progress report of the `age-small` protocol on `sim:toy`, as `run_protocol` sends
    /// them.
    fn reports(proto: &Protocol) -> Vec<(usize, usize, String, f64)> {
        let profile = flashlab_lab::profiles::load("toy").unwrap();
        let fs = flashlab_simfs::FsConfig::from_profile(&profile, "sim:toy").unwrap();
        let r = SimProtocolRun {
            target: "sim:toy",
            profile: &profile,
            fs,
            protocol: proto,
            seed: 1,
            rand_io: None,
            span: None,
            precondition: flashlab_lab::precondition::Precondition::Fresh,
            check: None,
            command: ProtocolCommand::Age,
        };
        let mut v = Vec::new();
        sim_run::run(&r, &mut |i, n, what, f| v.push((i, n, what.to_string(), f))).unwrap();
        v
    }

    fn percent(frame: &str) -> Option<u32> {
        let end = frame.find('%')?;
        frame[..end].rsplit(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    }

    #[test]
    fn age_progress_never_goes_back_and_names_each_step() {
        let proto = Protocol::builtin("age-small").unwrap();
        let runs = Resolved::new(&proto, 1, None, None).unwrap().tests_per_bench();
        let reports = reports(&proto);
        let n = proto.steps.len();
        // The raw reports do go back (each four-corner test restarts at 0): the test can fail.
        let raw: Vec<f64> = reports.iter().map(|(i, n, _, f)| ((i - 1) as f64 + f) / *n as f64).collect();
        assert!(raw.windows(2).any(|w| w[1] < w[0]), "the raw reports never go back");

        let mut steps = StepProgress::new(&proto, runs);
        let mut last = 0.0;
        let mut shown = Vec::new();
        for (i, n, what, f) in &reports {
            let (pos, msg) = steps.update(*i, *n, what, *f);
            assert!(pos >= last, "went back from {last} to {pos} at step {i} {what} {f}");
            last = pos;
            // The step the message names is the one running: a step's own reports, or after a
            // step's "done" the next step, labelled by what it does (not "done").
            // The message names the step reporting or, once it is over, the next one, by what
            // that step does; never a "done" while steps remain.
            let named = (*i..=*i + 1)
                .find(|&r| r <= *n && msg.starts_with(&format!("step {r}/{n}: {}", step_label(&proto.steps[r - 1]))));
            assert!(named.is_some() || msg == format!("step {n}/{n}: done"), "step {i} {what}: '{msg}'");
            shown.push((pos, msg));
        }
        assert!((last - 1.0).abs() < 1e-9, "ends at {last}");
        // Every step is shown by what it does while it runs, those without reports of their own
        // (delete, fstrim) too: announced when the step before them ends.
        for (k, step) in proto.steps.iter().enumerate() {
            let want = format!("step {}/{n}: {}", k + 1, step_label(step));
            assert!(shown.iter().any(|(_, m)| m.starts_with(&want)), "'{want}' never shown");
        }
        let fstrim = proto.steps.iter().position(|s| matches!(s, Step::Fstrim)).unwrap() + 1;
        assert!(shown.iter().any(|(_, m)| m == &format!("step {fstrim}/{n}: fstrim")), "{shown:?}");

        // The rendered frames: nothing before the first update (the header keeps its line),
        // then percentages that never go back.
        let rec = Recorder::default();
        let bar =
            Progress::with_target("age-small", Some(ProgressDrawTarget::term_like_with_hz(Box::new(rec.clone()), 250)));
        assert!(rec.0.lock().unwrap().is_empty(), "drawn before the first update: {:?}", rec.0.lock().unwrap());
        // Paced so that the bar's rate limit (250 Hz here) lets each new message be drawn.
        let every = (shown.len() / 200).max(1);
        let mut previous = "";
        for (k, (pos, msg)) in shown.iter().enumerate() {
            if msg != previous || k % every == 0 {
                std::thread::sleep(std::time::Duration::from_millis(6));
            }
            bar.set(*pos, msg);
            previous = msg;
        }
        let frames = rec.0.lock().unwrap().clone();
        assert!(frames.len() >= 20, "too few frames to judge: {frames:?}");
        let pcts: Vec<u32> = frames.iter().filter_map(|f| percent(f)).collect();
        assert_eq!(pcts.len(), frames.len(), "a frame without a percentage: {frames:?}");
        assert!(pcts.windows(2).all(|w| w[1] >= w[0]), "the rendered bar went back: {pcts:?}");
        assert!(frames.iter().any(|f| f.contains("fstrim")), "no frame names fstrim: {frames:?}");
        assert!(frames.iter().all(|f| f.contains("step ")), "{frames:?}");
    }
}
