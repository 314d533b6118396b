//! Where a job's next I/O goes: sequential with wrap-around, or random. Random offsets follow
//! fio's default "random map": every block of the span is visited once per pass, in a random
//! order, before any is visited again. It is a full-period linear congruential sequence over
//! the next power of two, skipping values past the span: no memory per block. Without the map
//! (fio's `norandommap`) every I/O picks a block uniformly, repeats allowed.

use crate::rng::Rng;

/// Where a job's next block is, one policy per job.
#[derive(Debug, Clone)]
pub enum Offsets {
    /// One block after the other, wrapping at the end of the span.
    Sequential {
        /// The next block.
        next: u64,
    },
    /// Every block once per pass, in a random order (fio's random map).
    Random(Permutation),
    /// Blocks picked uniformly, repeats allowed (fio's `norandommap`).
    Uniform {
        /// Blocks in the span.
        blocks: u64,
        /// The generator of the picks.
        rng: Rng,
    },
}

impl Offsets {
    /// Offsets for blocks of `bs` bytes in a span of `span` bytes.
    pub fn new(random: bool, random_map: bool, span: u64, bs: u64, rng: &mut Rng) -> Offsets {
        match (random, random_map) {
            (false, _) => Offsets::Sequential { next: 0 },
            (true, true) => Offsets::Random(Permutation::new((span / bs).max(1), rng)),
            (true, false) => Offsets::Uniform { blocks: (span / bs).max(1), rng: Rng::new(rng.next_u64()) },
        }
    }

    /// Offset (relative to the span) of the next I/O of `bs` bytes.
    #[inline]
    pub fn next(&mut self, span: u64, bs: u64) -> u64 {
        match self {
            Offsets::Sequential { next } => {
                if *next + bs > span {
                    *next = 0;
                }
                let off = *next;
                *next += bs;
                off
            }
            Offsets::Random(p) => p.next_index() * bs,
            Offsets::Uniform { blocks, rng } => rng.below(*blocks) * bs,
        }
    }
}

/// A random permutation of 0..n, endlessly repeated (a new order each pass).
#[derive(Debug, Clone)]
pub struct Permutation {
    n: u64,
    mask: u64,
    mult: u64,
    inc: u64,
    state: u64,
    left_in_pass: u64,
    rng_state: Rng,
}

impl Permutation {
    /// A permutation of `0..n` drawn from `rng`.
    pub fn new(n: u64, rng: &mut Rng) -> Permutation {
        let bits = 64 - (n.max(2) - 1).leading_zeros();
        let mut p = Permutation {
            n,
            mask: if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 },
            mult: 0,
            inc: 0,
            state: 0,
            left_in_pass: 0,
            rng_state: Rng::new(rng.next_u64()),
        };
        p.new_pass();
        p
    }

    fn new_pass(&mut self) {
        // Full period mod 2^k: increment odd, multiplier = 1 mod 4 (Hull-Dobell); avoid the
        // multiplier 1, which would only rotate the span.
        self.mult = ((self.rng_state.next_u64() << 2) | 1) & self.mask;
        if self.mult == 1 && self.mask >= 7 {
            self.mult = 5;
        }
        self.inc = (self.rng_state.next_u64() & self.mask) | 1;
        self.state = self.rng_state.next_u64() & self.mask;
        self.left_in_pass = self.n;
    }

    /// The next index of the permutation (a new permutation each pass).
    #[inline]
    pub(crate) fn next_index(&mut self) -> u64 {
        if self.left_in_pass == 0 {
            self.new_pass();
        }
        loop {
            self.state = self.state.wrapping_mul(self.mult).wrapping_add(self.inc) & self.mask;
            if self.state < self.n {
                self.left_in_pass -= 1;
                return self.state;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_visits_each_once_per_pass() {
        for n in [1u64, 2, 3, 7, 64, 1000, 4097] {
            let mut rng = Rng::new(n);
            let mut p = Permutation::new(n, &mut rng);
            for _pass in 0..3 {
                let mut seen = vec![false; n as usize];
                for _ in 0..n {
                    let v = p.next_index() as usize;
                    assert!(!seen[v], "n={n}: {v} twice in a pass");
                    seen[v] = true;
                }
            }
        }
    }

    #[test]
    fn sequential_wraps() {
        let mut o = Offsets::Sequential { next: 0 };
        let got: Vec<u64> = (0..4).map(|_| o.next(10, 4)).collect();
        assert_eq!(got, vec![0, 4, 0, 4]);
    }
}
