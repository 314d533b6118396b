//! Foreground GC pacing of the page-mapped FTL: how much of a die's incremental GC each host
//! write command carries. It changes when cleaning is done, not what is cleaned: greedy, FIFO,
//! random and cost-benefit keep their write amplification (the `waf` tests against the
//! analytic references).
//!
//! A controller that cleans a victim block a few pages per host command must clean it at the
//! rate the host consumes what the victim gives back, or it falls behind and some command has
//! to clean whole blocks at once (seconds on 8 MiB blocks, far past the eMMC write timeout).
//! A victim with `V` valid units out of `U` frees `U - V` units net (its erase frees `U`, its
//! copies take `V`), and needs `L` page copies (its pages holding valid data). So while the
//! host writes `U - V` units to the die, the die must copy `L` pages: `L / (U - V)` page copies
//! per host unit, which grows without bound as victims fill with valid data (a full device).
//!
//! - **Rate.** Each die with a victim in progress accrues a debt of page copies per host unit
//!   the command writes (host pages are striped over the dies, so each die takes
//!   `units / dies` of them): that steady rate, fixed when the victim is chosen, times one
//!   plus the number of blocks the die is below its zone (a die that fell behind climbs back
//!   within about a block of host writes).
//! - **Per command.** A command pays the whole pages of its dies' debts, up to the profile's
//!   pages per command in all and never a page that would end past the busy-time ceiling;
//!   what it cannot pay stays owed to the next commands. A victim with nothing valid left is
//!   erased at once (it owes no copies).
//! - **When.** A die needs a victim when the host opens a block on it and leaves it with at
//!   most `gc_min_free_blocks + 1` free blocks (the threshold incremental GC always had), and
//!   starts the next one as soon as one is erased only while it is below that zone. Holding
//!   more blocks free would take them from the over-provisioning that cleaning works with,
//!   and raise write amplification (by 1-3 % on the `waf` devices, far more on a part with
//!   little spare).
//! - **Which victim, and when chosen.** The one the forced path would clean (only greedy
//!   declines one full of valid data). FIFO, random and cost-benefit choose it when the die
//!   needs it. Greedy chooses when the paced work must start: once the host has written as
//!   many units to the die since it needed a victim as the best candidate holds valid (`V` of
//!   `U`), the `U - V` units left before the die needs its next block are what that victim
//!   frees net, so at the rate below it is done just in time. Before that it watches the
//!   candidate: a new best one is watched for a command, and one the host is emptying itself
//!   fast enough to be empty by the need (a sequential overwrite of the data it holds) is
//!   left to the moment of need, when greedy erases it without a copy. Choosing a block ahead
//!   of need copies data the host is about to overwrite (on `age_shapes`' toy, 3417 units in
//!   the sequential write after fill 2 against 2627 with the choice deferred). Once chosen,
//!   greedy still changes its mind while the host overwrites: a closed block that now holds
//!   fewer valid units than the victim has left to copy is cleaned instead.
//! - **The last free block.** A paced step may go on at the die's last free block while GC's
//!   open block has room for the page, since it then takes no block. Below that the forced
//!   path (clean to the end in one command) remains the fallback.

use super::{Ftl, INVALID, MAX_UPP, NIL};
use crate::timeline::Ns;

/// A die needs a paced victim when the host opens a block on it and leaves it with at most
/// `gc_min_free_blocks` plus this many free blocks.
const ZONE_ABOVE_MIN: usize = 1;

/// Per-die pacing state: flat arrays, no allocation per command.
#[derive(Debug, Clone)]
pub(crate) struct Pacing {
    /// Steady rate of the die's victim, shared over the dies: page copies per host unit a
    /// command writes in all (host pages are striped, so the die takes `1 / dies` of them).
    /// Divided once when the victim is chosen, not at every command.
    share: Vec<f64>,
    /// Page copies the die owes (whole pages are paid by commands, the fraction carried).
    debt: Vec<f64>,
    /// A die keeps a victim in progress while it has at most this many free blocks.
    pub(crate) zone: usize,
    /// Greedy dies that need a victim but have not chosen one yet, and the host units written
    /// to each since (the victim is chosen when the paced work must start).
    armed: Vec<bool>,
    since: Vec<f64>,
    /// The armed die's best candidate when first seen, its valid units then, and `since` then:
    /// how fast the host itself is emptying it.
    seen: Vec<u32>,
    seen_valid: Vec<u32>,
    seen_since: Vec<f64>,
    /// How many dies are armed (a command with no armed die and no victim skips the dies).
    pub(crate) n_armed: u32,
    /// Scratch for [`Ftl::paced_gc`]: the dies that owe GC work this command, in order.
    due: Vec<u32>,
}

impl Pacing {
    pub(crate) fn new(dies: u32, gc_min_free: u32) -> Pacing {
        let n = dies as usize;
        Pacing {
            share: vec![0.0; n],
            debt: vec![0.0; n],
            zone: gc_min_free as usize + ZONE_ABOVE_MIN,
            armed: vec![false; n],
            since: vec![0.0; n],
            seen: vec![NIL; n],
            seen_valid: vec![0; n],
            seen_since: vec![0.0; n],
            n_armed: 0,
            due: vec![0; n],
        }
    }

    /// Heap bytes (for the memory accounting).
    pub(crate) fn memory_bytes(&self) -> u64 {
        super::heap_bytes(&self.share)
            + super::heap_bytes(&self.debt)
            + super::heap_bytes(&self.armed)
            + super::heap_bytes(&self.since)
            + super::heap_bytes(&self.seen)
            + super::heap_bytes(&self.seen_valid)
            + super::heap_bytes(&self.seen_since)
            + super::heap_bytes(&self.due)
    }
}

impl Ftl {
    /// Greedy: when a closed block now holds fewer valid units than are left to copy in `die`'s
    /// victim (the host has overwritten it meanwhile), clean that one instead and put the
    /// victim back with what it still holds, as greedy cleaning at the moment of need would.
    /// Starting a victim a block ahead of need must not make GC copy more than greedy does.
    fn reconsider(&mut self, die: u32) {
        let v = self.job_victim[die as usize];
        // No closed block can hold fewer valid units than the die's lower bound on them: the
        // usual case once the victim's copies are under way, settled without a look.
        if self.victims.min_valid_bound(die) >= self.valid[v as usize] {
            return;
        }
        // A peek, not a select: nearly always the victim stays.
        let Some(b) = self.victims.peek_greedy(die) else {
            return;
        };
        if self.valid[b as usize] >= self.valid[v as usize] {
            return;
        }
        self.state[v as usize] = super::BlockState::Closed;
        self.victims.put_back(v, self.valid[v as usize]);
        self.job_victim[die as usize] = NIL;
        self.jobs -= 1;
        self.start_paced_job(die, 0.0);
    }

    /// `die`'s GC frontier can take one more victim page without opening a block: a paced
    /// step may go on at the die's last free block, which it leaves alone.
    pub(super) fn gc_room(&self, die: u32) -> bool {
        if self.gc_slots > 1 {
            return false;
        }
        let b = self.active[(die * self.frontiers + self.gc_frontier) as usize];
        b != NIL && self.next_page[b as usize] + 2 <= self.geo.pages_per_block
    }

    /// `die` needs its next victim within a block of host writes. Greedy waits to choose it
    /// until the paced work must start ([`Ftl::armed_step`]); the other policies choose now
    /// (the victim they draw does not depend on when).
    pub(super) fn arm_paced(&mut self, die: u32) {
        let d = die as usize;
        if self.job_victim[d] != NIL {
            return;
        }
        if !self.greedy {
            self.start_paced_job(die, 0.0);
            return;
        }
        if !self.pace.armed[d] {
            self.pace.armed[d] = true;
            self.pace.n_armed += 1;
        }
        // A new block opened: the next need is a block of host writes away again.
        self.pace.since[d] = 0.0;
        self.pace.seen[d] = NIL;
    }

    /// An armed greedy die, after the host wrote `share` more units to it: choose the victim
    /// once the host has written as many units since the die was armed as the best candidate
    /// holds valid (`V` of `U`). From then on `U - V` host units are left before the die needs
    /// its next block, which is what the victim frees net: paced at `L / (U - V)`, it is done
    /// just in time. Choosing earlier copies data the host may still overwrite (a sequential
    /// overwrite empties blocks while it runs, and greedy at the moment of need would take
    /// those for free); choosing later concentrates the copies on fewer commands. A die that
    /// fell below its zone chooses at once; one that background GC lifted above it disarms.
    fn armed_step(&mut self, die: u32, share: f64) {
        let d = die as usize;
        if self.free[d].len() > self.pace.zone {
            // Background GC cleaned meanwhile: no victim is needed now.
            self.pace.armed[d] = false;
            self.pace.n_armed -= 1;
            return;
        }
        self.pace.since[d] += share;
        let urgent = self.free[d].len() < self.pace.zone;
        if !urgent {
            let Some(b) = self.victims.peek_greedy(die) else {
                return;
            };
            let v = self.valid[b as usize];
            let since = self.pace.since[d];
            if self.pace.seen[d] != b {
                // A new best candidate: watch it for a command before choosing it.
                self.pace.seen[d] = b;
                self.pace.seen_valid[d] = v;
                self.pace.seen_since[d] = since;
                return;
            }
            if since < f64::from(v) {
                return;
            }
            // The host is emptying the candidate itself (a sequential overwrite of the data it
            // holds): if at the rate seen it is empty by the time the die needs the block, wait,
            // and greedy at the moment of need erases it without a copy.
            let seen_for = since - self.pace.seen_since[d];
            if seen_for > 0.0 {
                let falling = f64::from(self.pace.seen_valid[d].saturating_sub(v)) / seen_for;
                let left = f64::from(self.geo.units_per_block) - since;
                if falling * left >= f64::from(v) {
                    return;
                }
            }
        }
        self.pace.armed[d] = false;
        self.pace.n_armed -= 1;
        let since = self.pace.since[d];
        self.start_paced_job(die, since);
    }

    /// Choose `die`'s next victim for incremental GC (if it has none) and set its steady rate
    /// from what it holds: its pages with valid data over the units it frees net, or over the
    /// host units left before the die needs a block when fewer (`since`: host units written
    /// to the die since it needed a victim).
    pub(super) fn start_paced_job(&mut self, die: u32, since: f64) {
        if self.job_victim[die as usize] != NIL {
            return;
        }
        self.start_job(die);
        let v = self.job_victim[die as usize];
        if v == NIL {
            return;
        }
        let upb = self.geo.units_per_block;
        let upp = self.geo.units_per_page as usize;
        let base = (v * upb) as usize;
        let live_pages =
            (0..upb as usize / upp).filter(|&i| self.p2l.any(base + i * upp, base + (i + 1) * upp)).count();
        let gain = f64::from(upb - self.valid[v as usize]).min(f64::from(upb) - since);
        let rate = live_pages as f64 / gain.max(1.0);
        self.pace.share[die as usize] = rate / f64::from(self.geo.dies);
    }

    /// The first pass of [`Ftl::paced_gc`], in die order: an armed die's step, a greedy die's
    /// second look at its victim, then the debt of every die with a victim, for a command of
    /// `units` host units. Lists the dies that owe a page (or an erase) in `pace.due` and
    /// returns how many. The dies that need neither step, nearly all of them on nearly every
    /// command, go through [`Ftl::accrue_plain`]; the others through the steps one at a time.
    fn accrue(&mut self, units: u32) -> usize {
        let dies = self.geo.dies as usize;
        let mut n_due = 0;
        let mut d = self.accrue_plain(0, units, &mut n_due);
        while d < dies {
            let die = d as u32;
            if self.pace.armed[d] {
                self.armed_step(die, f64::from(units) / f64::from(self.geo.dies));
            }
            if self.job_victim[d] != NIL {
                if self.greedy {
                    self.reconsider(die);
                }
                let debt = self.accrued(d, units);
                self.pace.debt[d] = debt;
                // `reconsider` may have replaced the victim, or found none.
                let v = self.job_victim[d];
                if v != NIL {
                    self.pace.due[n_due] = die;
                    n_due += usize::from((self.valid[v as usize] == 0) | (debt >= 1.0));
                }
            }
            d = self.accrue_plain(d + 1, units, &mut n_due);
        }
        n_due
    }

    /// `die`'s debt after a command of `units` host units. Below the zone it gains one block
    /// more than the host takes per block it writes, for each block missing: the die climbs
    /// back within about a block of host writes. It never owes more than a block's pages:
    /// beyond that the forced path cleans anyway.
    #[inline(always)]
    fn accrued(&self, d: usize, units: u32) -> f64 {
        accrual(
            self.pace.debt[d],
            self.pace.share[d],
            self.pace.zone.saturating_sub(self.free[d].len()),
            units,
            self.geo.pages_per_block,
        )
    }

    /// [`Ftl::accrue`] from die `from` on, for as long as a die needs no armed step and no
    /// second look at its victim (its bucket bound settles that no closed block holds fewer
    /// valid units); returns the first die that does, or the die count. The same steps as
    /// [`Ftl::accrue`]'s, over slices taken once: no bounds check or reload per die.
    #[inline(always)]
    fn accrue_plain(&mut self, from: usize, units: u32, n_due: &mut usize) -> usize {
        let Ftl { pace, job_victim, valid, free, victims, greedy, geo, .. } = self;
        let dies = geo.dies as usize;
        let jobs = &job_victim[..dies];
        let free = &free[..dies];
        let armed = &pace.armed[..dies];
        let share = &pace.share[..dies];
        let debt = &mut pace.debt[..dies];
        let due = &mut pace.due[..dies];
        let bound = &victims.min_valid_bounds()[..dies];
        for d in from..dies {
            if armed[d] {
                return d;
            }
            let v = jobs[d];
            if v == NIL {
                continue;
            }
            let left = valid[v as usize];
            if *greedy && bound[d] < left {
                return d;
            }
            let owed = accrual(debt[d], share[d], pace.zone.saturating_sub(free[d].len()), units, geo.pages_per_block);
            debt[d] = owed;
            // Owes a page, or its victim has nothing valid left (an erase, owed at once);
            // without a branch on it (a coin toss to the branch predictor).
            due[*n_due] = d as u32;
            *n_due += usize::from((left == 0) | (owed >= 1.0));
        }
        dies
    }

    /// The GC work a host write command of `units` units carries, starting at `at` for a
    /// command that started at `start` (see the module doc). Returns when it is done.
    ///
    /// Two passes over the dies, which gives the same result as one while every die's copies
    /// stay on it: a die's accrual and its payment then touch only that die's state (its
    /// blocks, victim, free list and debt), and only the payments share anything (the
    /// command's page budget, the channels, the random policy's generator), which the second
    /// pass keeps in die order. A die out of balance sends its copies to another
    /// (`Ftl::gc_target`) and its payments open GC blocks there; the accruals then see the
    /// free counts of the command's start. The first pass ([`Ftl::accrue`]) accrues every
    /// die's debt and notes the dies that owe a page; the second pays those.
    pub(super) fn paced_gc(&mut self, start: Ns, at: Ns, units: u32) -> Ns {
        let deadline = start + self.busy_ceiling;
        let mut budget = u64::from(self.pages_per_command);
        let mut end = at;
        let n_due = self.accrue(units);
        // Scratch for a victim page's logical units, filled once for all the dies paid.
        let mut lpns = [INVALID; MAX_UPP];
        for i in 0..n_due {
            let die = self.pace.due[i];
            let d = die as usize;
            while budget > 0 && self.job_victim[d] != NIL {
                // A victim with nothing valid left owes no copies, only its erase: at once.
                let empty = self.valid[self.job_victim[d] as usize] == 0;
                // A debt lies in 0..=pages per block: its whole pages through `u32` (a shorter
                // conversion than the saturating one to `u64`, same value).
                let owed = if empty { 1 } else { u64::from(self.pace.debt[d] as u32).min(budget) };
                if owed == 0 {
                    break;
                }
                let (e, n) = self.advance(die, at, owed, deadline, false, true, &mut lpns);
                end = end.max(e);
                budget -= n.min(budget);
                // `n` is at most the pages owed (a block's): through `u32`, as above.
                self.pace.debt[d] -= f64::from(n as u32);
                if self.job_victim[d] == NIL {
                    // The victim is erased: the next one starts now only if the die is below
                    // its zone (else at the next block the host opens on it, as before).
                    if self.free[d].len() < self.pace.zone {
                        self.start_paced_job(die, 0.0);
                    } else {
                        self.pace.debt[d] = 0.0;
                    }
                } else if n < owed || self.valid[self.job_victim[d] as usize] != 0 {
                    // Stopped by the ceiling or the die's last free block: the rest stays owed.
                    // Or paid in full: the whole pages owed are copied (or the budget is spent),
                    // so less than a page is left, and a victim that still holds data owes
                    // nothing more now. (The next pass of the loop would find the same, a few
                    // dozen instructions later; an emptied victim goes on to its erase.)
                    break;
                }
            }
        }
        end
    }
}

/// A die's debt of page copies after a command of `units` host units: its `share` of the
/// steady rate (page copies per host unit of the command), times one plus the `deficit` of
/// blocks below its zone, capped at a block of `block_pages`. A die in its zone (no deficit)
/// skips the multiplication by one, which changes no bit; the cap is a plain comparison, the
/// same as `f64::min` on the finite values a debt takes, without its NaN handling.
#[inline(always)]
fn accrual(debt: f64, share: f64, deficit: usize, units: u32, block_pages: u32) -> f64 {
    // A deficit is at most the zone (a few blocks): through `u32`, one instruction on x86-64,
    // where the unsigned 64-bit conversion takes seven (same value).
    let rate = if deficit == 0 { share } else { share * (1.0 + f64::from(deficit as u32)) };
    let owed = debt + f64::from(units) * rate;
    let cap = f64::from(block_pages);
    if owed < cap {
        owed
    } else {
        cap
    }
}
