//! Garbage-collection victim selection: greedy, cost-benefit, FIFO and random, each over the
//! closed (full) blocks of one die.
//!
//! Greedy keeps per-die buckets of blocks by valid count (intrusive doubly linked lists over
//! flat arrays), so that both updates and selection are O(1) amortised. FIFO keeps blocks in
//! the order they were closed; random and cost-benefit keep an unordered list with positions.

use crate::nand::FastDiv;
use crate::profile::GcPolicy;
use rand_core::RngCore;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) struct Victims {
    policy: GcPolicy,
    blocks_per_die: FastDiv,
    units_per_block: u32,
    // Greedy buckets: head[die * (upb + 1) + valid] -> first block; next/prev per block.
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Lowest bucket that may be non-empty, per die.
    min_hint: Vec<u32>,
    // FIFO: closed blocks per die in close order.
    fifo: Vec<VecDeque<u32>>,
    // Random / cost-benefit: closed blocks per die, and each block's index in it.
    list: Vec<Vec<u32>>,
    pos: Vec<u32>,
    /// Cost-benefit: the host-write clock when each block was closed.
    closed_at: Vec<u64>,
    rng: Xoshiro256PlusPlus,
}

impl Victims {
    pub(crate) fn new(
        policy: GcPolicy,
        dies: u32,
        blocks_per_die: u32,
        units_per_block: u32,
        rng: Xoshiro256PlusPlus,
    ) -> Victims {
        let blocks = (dies * blocks_per_die) as usize;
        let greedy = policy == GcPolicy::Greedy;
        let listed = matches!(policy, GcPolicy::Random | GcPolicy::CostBenefit);
        Victims {
            policy,
            blocks_per_die: FastDiv::new(blocks_per_die),
            units_per_block,
            head: if greedy { vec![NIL; dies as usize * (units_per_block as usize + 1)] } else { Vec::new() },
            next: if greedy { vec![NIL; blocks] } else { Vec::new() },
            prev: if greedy { vec![NIL; blocks] } else { Vec::new() },
            min_hint: vec![0; dies as usize],
            fifo: if policy == GcPolicy::Fifo { vec![VecDeque::new(); dies as usize] } else { Vec::new() },
            list: if listed { vec![Vec::new(); dies as usize] } else { Vec::new() },
            pos: if listed { vec![NIL; blocks] } else { Vec::new() },
            closed_at: if policy == GcPolicy::CostBenefit { vec![0; blocks] } else { Vec::new() },
            rng,
        }
    }

    #[inline]
    fn die(&self, block: u32) -> usize {
        self.blocks_per_die.quotient(block) as usize
    }

    #[inline]
    fn bucket(&self, die: usize, valid: u32) -> usize {
        die * (self.units_per_block as usize + 1) + valid as usize
    }

    fn link(&mut self, block: u32, valid: u32) {
        let die = self.die(block);
        let h = self.bucket(die, valid);
        let first = self.head[h];
        self.next[block as usize] = first;
        self.prev[block as usize] = NIL;
        if first != NIL {
            self.prev[first as usize] = block;
        }
        self.head[h] = block;
        if valid < self.min_hint[die] {
            self.min_hint[die] = valid;
        }
    }

    fn unlink(&mut self, block: u32, valid: u32) {
        let (n, p) = (self.next[block as usize], self.prev[block as usize]);
        if p != NIL {
            self.next[p as usize] = n;
        } else {
            let h = self.bucket(self.die(block), valid);
            self.head[h] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
    }

    fn list_push(&mut self, block: u32) {
        let die = self.die(block);
        self.pos[block as usize] = self.list[die].len() as u32;
        self.list[die].push(block);
    }

    fn list_remove(&mut self, die: usize, idx: usize) -> u32 {
        let block = self.list[die].swap_remove(idx);
        if let Some(&moved) = self.list[die].get(idx) {
            self.pos[moved as usize] = idx as u32;
        }
        self.pos[block as usize] = NIL;
        block
    }

    /// A block was filled and closed with `valid` valid units at host-write clock `clock`.
    pub(crate) fn insert(&mut self, block: u32, valid: u32, clock: u64) {
        match self.policy {
            GcPolicy::Greedy => self.link(block, valid),
            GcPolicy::Fifo => {
                let die = self.die(block);
                self.fifo[die].push_back(block)
            }
            GcPolicy::Random => self.list_push(block),
            GcPolicy::CostBenefit => {
                self.closed_at[block as usize] = clock;
                self.list_push(block)
            }
        }
    }

    /// A closed block's valid count changed from `old` to `new`.
    #[inline]
    pub(crate) fn update(&mut self, block: u32, old: u32, new: u32) {
        if self.policy == GcPolicy::Greedy {
            self.unlink(block, old);
            self.link(block, new);
        }
    }

    /// Choose and remove a victim on `die`. `valid` gives each block's valid count; `clock` is
    /// the current host-write clock (cost-benefit's notion of age).
    pub(crate) fn select(&mut self, die: u32, valid: &[u32], clock: u64) -> Option<u32> {
        let d = die as usize;
        match self.policy {
            GcPolicy::Greedy => {
                let mut v = self.min_hint[d];
                while v <= self.units_per_block {
                    let b = self.head[self.bucket(d, v)];
                    if b != NIL {
                        self.min_hint[d] = v;
                        self.unlink(b, v);
                        return Some(b);
                    }
                    v += 1;
                }
                self.min_hint[d] = 0;
                None
            }
            GcPolicy::Fifo => self.fifo[d].pop_front(),
            GcPolicy::Random => {
                let n = self.list[d].len();
                if n == 0 {
                    return None;
                }
                let idx = (self.rng.next_u64() % n as u64) as usize;
                Some(self.list_remove(d, idx))
            }
            GcPolicy::CostBenefit => {
                let upb = f64::from(self.units_per_block);
                let mut best: Option<(f64, usize)> = None;
                for (i, &b) in self.list[d].iter().enumerate() {
                    let u = f64::from(valid[b as usize]) / upb;
                    let age = (clock.saturating_sub(self.closed_at[b as usize]) + 1) as f64;
                    let score = if u == 0.0 { f64::INFINITY } else { (1.0 - u) / (2.0 * u) * age };
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, i));
                    }
                }
                best.map(|(_, i)| self.list_remove(d, i))
            }
        }
    }

    /// Greedy: a lower bound on the valid units of `die`'s closed blocks (the first bucket
    /// a search starts at; every block linked below it lowered it).
    #[inline]
    pub(crate) fn min_valid_bound(&self, die: u32) -> u32 {
        self.min_hint[die as usize]
    }

    /// Greedy: [`Victims::min_valid_bound`] of every die, in die order.
    #[inline]
    pub(crate) fn min_valid_bounds(&self) -> &[u32] {
        &self.min_hint
    }

    /// Greedy: the block [`Victims::select`] would return on `die`, left in the index (a
    /// select followed by a put-back, which restores the same bucket order, without the
    /// unlink and link). Pacing asks this of every die on every host command.
    #[inline]
    pub(crate) fn peek_greedy(&mut self, die: u32) -> Option<u32> {
        debug_assert!(self.policy == GcPolicy::Greedy);
        let d = die as usize;
        let mut v = self.min_hint[d];
        let mut h = self.bucket(d, v);
        while v <= self.units_per_block {
            let b = self.head[h];
            if b != NIL {
                self.min_hint[d] = v;
                return Some(b);
            }
            v += 1;
            h += 1;
        }
        self.min_hint[d] = 0;
        None
    }

    /// Choose and remove the block on `die` with the fewest valid units, whatever the policy
    /// (GC's way out when the policy's victims gain nothing). O(closed blocks) except greedy.
    pub(crate) fn select_fewest_valid(&mut self, die: u32, valid: &[u32]) -> Option<u32> {
        let d = die as usize;
        match self.policy {
            GcPolicy::Greedy => self.select(die, valid, 0),
            GcPolicy::Fifo => {
                let idx = (0..self.fifo[d].len()).min_by_key(|&i| valid[self.fifo[d][i] as usize])?;
                self.fifo[d].remove(idx)
            }
            GcPolicy::Random | GcPolicy::CostBenefit => {
                let idx = (0..self.list[d].len()).min_by_key(|&i| valid[self.list[d][i] as usize])?;
                Some(self.list_remove(d, idx))
            }
        }
    }

    /// Bytes of heap held by the victim index.
    pub(crate) fn memory_bytes(&self) -> u64 {
        let fifo: usize = self.fifo.iter().map(|f| f.capacity() * 4).sum();
        let list: usize = self.list.iter().map(|l| l.capacity() * 4).sum();
        ((self.head.capacity()
            + self.next.capacity()
            + self.prev.capacity()
            + self.min_hint.capacity()
            + self.pos.capacity())
            * 4
            + self.closed_at.capacity() * 8
            + fifo
            + list
            + self.fifo.capacity() * std::mem::size_of::<VecDeque<u32>>()
            + self.list.capacity() * std::mem::size_of::<Vec<u32>>()) as u64
    }

    /// Put back a block that `select` returned but GC decided not to clean.
    pub(crate) fn put_back(&mut self, block: u32, valid: u32) {
        match self.policy {
            GcPolicy::Greedy => self.link(block, valid),
            GcPolicy::Fifo => {
                let die = self.die(block);
                self.fifo[die].push_front(block)
            }
            GcPolicy::Random | GcPolicy::CostBenefit => self.list_push(block),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;

    /// Greedy's bucket index under random closes, invalidations, selections and put-backs:
    /// `min_valid_bound` never exceeds the fewest valid units of a die's indexed blocks (pacing
    /// skips its look for a better victim on it), and a peek finds a block holding that many.
    #[test]
    fn greedy_bound_is_a_lower_bound() {
        let (dies, per_die, upb) = (2u32, 64u32, 32u32);
        let mut v = Victims::new(GcPolicy::Greedy, dies, per_die, upb, Xoshiro256PlusPlus::seed_from_u64(1));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        // Valid units of each block in the index (None: not in it).
        let mut indexed: Vec<Option<u32>> = vec![None; (dies * per_die) as usize];
        let mut valid = vec![0u32; indexed.len()];
        for step in 0..200_000 {
            let b = (rng.next_u64() % indexed.len() as u64) as u32;
            let die = b / per_die;
            match (rng.next_u64() % 4, indexed[b as usize]) {
                (0, None) => {
                    let n = (rng.next_u64() % u64::from(upb + 1)) as u32;
                    v.insert(b, n, 0);
                    (indexed[b as usize], valid[b as usize]) = (Some(n), n);
                }
                (1, Some(n)) if n > 0 => {
                    v.update(b, n, n - 1);
                    (indexed[b as usize], valid[b as usize]) = (Some(n - 1), n - 1);
                }
                (2, _) => {
                    if let Some(s) = v.select(die, &valid, 0) {
                        indexed[s as usize] = None;
                        if rng.next_u64() % 2 == 0 {
                            v.put_back(s, valid[s as usize]);
                            indexed[s as usize] = Some(valid[s as usize]);
                        }
                    }
                }
                _ => {}
            }
            let least = (die * per_die..(die + 1) * per_die).filter_map(|b| indexed[b as usize]).min();
            if let Some(least) = least {
                assert!(v.min_valid_bound(die) <= least, "step {step}: bound above {least}");
                let p = v.peek_greedy(die).expect("an indexed block");
                assert_eq!(indexed[p as usize], Some(least), "step {step}");
            } else {
                assert_eq!(v.peek_greedy(die), None, "step {step}");
            }
        }
    }
}
