//! fio's token-based flow control between jobs (`flow`, `flow_id`, `flow_sleep`; fio's
//! `flow.c`), shared by the simulated engine and the real runner: the jobs of one `flow_id`
//! share a counter of the I/Os they have issued (it starts at 1) and the sum of their
//! weights. Before each I/O a job compares its own share of the counter with its share of
//! the weights; while it is ahead it is held back (it retries at once, or after its I/Os in
//! flight have completed and `flow_sleep` has passed), so the jobs' I/O counts keep the
//! ratio of their weights. A job that ends takes its I/Os and its weight out of the flow.
//!
//! fio counts every job of the run into its flow when it reads the job file; flashlab counts
//! the jobs of one group (those that run together): a job whose flow partners all run in a
//! later group would be held back for ever in fio.

/// One flow's shared state (fio's `struct fio_flow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// I/Os issued by the flow's jobs, plus one (fio starts it at 1).
    pub counter: u64,
    /// Sum of the weights of the flow's jobs.
    pub weight: u64,
}

impl Default for Flow {
    fn default() -> Self {
        Flow { counter: 1, weight: 0 }
    }
}

impl Flow {
    /// A job of `weight` joins the flow.
    pub fn join(&mut self, weight: u32) {
        self.weight += u64::from(weight);
    }

    /// fio's `flow_threshold_exceeded`: may a job of `weight` that has issued `mine` of the
    /// flow's I/Os issue one more? If so it is counted (in `mine` and the flow's counter) and
    /// true is returned; false: the job is ahead of its share and must wait.
    pub fn go(&mut self, mine: &mut u64, weight: u32) -> bool {
        // mine / counter > weight / total, in integers: mine * total > weight * counter.
        if u128::from(*mine) * u128::from(self.weight) > u128::from(weight) * u128::from(self.counter) {
            return false;
        }
        self.counter += 1;
        *mine += 1;
        true
    }

    /// A job of `weight` that issued `mine` I/Os leaves the flow (fio's `flow_exit_job`).
    pub fn leave(&mut self, mine: u64, weight: u32) {
        self.counter = self.counter.saturating_sub(mine).max(1);
        self.weight = self.weight.saturating_sub(u64::from(weight));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two jobs that always want to issue, taking turns as a scheduler would: their counts
    /// keep the ratio of their weights.
    #[test]
    fn counts_follow_the_weights() {
        for (wa, wb) in [(1u32, 1u32), (2, 2), (3, 1), (1, 8)] {
            let mut f = Flow::default();
            f.join(wa);
            f.join(wb);
            let (mut a, mut b) = (0u64, 0u64);
            for _ in 0..9000 {
                f.go(&mut a, wa);
                f.go(&mut b, wb);
            }
            let share = a as f64 / (a + b) as f64;
            let want = f64::from(wa) / f64::from(wa + wb);
            assert!((share - want).abs() < 0.01, "weights {wa}:{wb}: {a} vs {b}");
        }
    }

    #[test]
    fn a_job_alone_is_never_held_back_and_leaving_restores_the_flow() {
        let mut f = Flow::default();
        f.join(2);
        f.join(2);
        let (mut a, mut b) = (0u64, 0u64);
        // The counter starts at 1, so a goes twice before it is ahead of its half.
        assert!(f.go(&mut a, 2) && f.go(&mut a, 2));
        assert!(!f.go(&mut a, 2), "a is ahead of its half");
        assert!(f.go(&mut b, 2));
        f.leave(b, 2);
        for _ in 0..100 {
            assert!(f.go(&mut a, 2), "alone in its flow, a always goes");
        }
        f.leave(a, 2);
        assert_eq!(f, Flow::default());
    }
}
