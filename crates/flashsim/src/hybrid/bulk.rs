//! Device history without simulating it write by write: the hybrid FTL's state after every
//! logical unit has been written once, in order. A sequential pass fills each logical block's
//! sequential log from offset 0 to the end, and each full log becomes the data block (a switch
//! merge, no copy): so every logical block ends up with a data block holding all its units, on
//! the die the sequential log was taken from. Set up in one pass; the NAND timeline, the
//! counters and the wear are untouched.

use super::{HybridFtl, Kind, DATA, NIL, UNMAPPED};
use crate::Error;

impl HybridFtl {
    /// Map every logical unit as one sequential pass would. Fails (changing nothing) unless
    /// the FTL is new.
    pub(crate) fn map_all_sequential(&mut self) -> Result<(), Error> {
        if self.l2p.iter().any(|&v| v != UNMAPPED) || self.sw.is_some() || self.rw_active != NIL {
            return Err(Error::NotNew);
        }
        for l in 0..self.data.len() as u32 {
            let (b, _) = self.take_block(l % self.geo.dies, 0, Kind::Data);
            self.data[l as usize] = b;
            self.data_live[l as usize] = self.upb;
            let first = (l * self.upb) as usize;
            self.l2p[first..first + self.upb as usize].fill(DATA);
        }
        self.written.set_all();
        Ok(())
    }
}
