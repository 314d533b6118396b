//! One block request as the device received it, from either side: the kernel's
//! `block_rq_issue` events (after the block layer merged and split bios) and the model's
//! recorded requests (split at the loop queue's largest request, as the block layer would).

use flashlab_breakdown::events::{flags, BlockEvent, Kind};
use flashlab_simfs::disk::Traced;
use flashsim::Op;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ReqOp {
    Read,
    Write,
    Discard,
    Flush,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Req {
    pub op: ReqOp,
    /// Byte offset on the device.
    pub offset: u64,
    pub bytes: u64,
    /// Sent with PREFLUSH (or is itself a flush).
    pub preflush: bool,
    pub fua: bool,
    /// When it was issued (ns; the kernel's trace clock, the model's virtual time).
    #[serde(default)]
    pub at_ns: u64,
}

/// The issued requests among `events` (of any device: the caller filtered them).
pub fn from_kernel(events: &[BlockEvent]) -> Vec<Req> {
    let mut v: Vec<&BlockEvent> = events.iter().filter(|e| e.kind == Kind::Issue).collect();
    v.sort_by_key(|e| e.ts);
    v.into_iter()
        .map(|e| {
            let op = if e.flags & flags::FLUSH != 0 {
                ReqOp::Flush
            } else if e.flags & flags::DISCARD != 0 {
                ReqOp::Discard
            } else if e.write {
                ReqOp::Write
            } else {
                ReqOp::Read
            };
            Req {
                op,
                offset: e.sector * 512,
                bytes: u64::from(e.nr_sector) * 512,
                preflush: e.flags & (flags::PREFLUSH | flags::FLUSH) != 0,
                fua: e.flags & flags::FUA != 0,
                at_ns: e.ts,
            }
        })
        .collect()
}

/// The model's requests, writes and reads split at `max_request` bytes.
pub fn from_model(trace: &[Traced], max_request: u64) -> Vec<Req> {
    from_model_logged(trace, max_request).0
}

/// [`from_model`], with the F2FS log each request went to ([`Traced::log`]).
pub fn from_model_logged(trace: &[Traced], max_request: u64) -> (Vec<Req>, Vec<Option<u8>>) {
    let mut out = Vec::with_capacity(trace.len());
    let mut logs = Vec::with_capacity(trace.len());
    for t in trace {
        let op = match t.op {
            Op::Read => ReqOp::Read,
            Op::Write => ReqOp::Write,
            Op::Trim => ReqOp::Discard,
            Op::Flush => ReqOp::Flush,
        };
        if matches!(op, ReqOp::Read | ReqOp::Write) && max_request > 0 {
            let (mut off, mut left) = (t.offset, t.len);
            while left > 0 {
                let n = left.min(max_request);
                out.push(Req { op, offset: off, bytes: n, preflush: false, fua: false, at_ns: t.t });
                logs.push(t.log);
                off += n;
                left -= n;
            }
        } else {
            out.push(Req { op, offset: t.offset, bytes: t.len, preflush: op == ReqOp::Flush, fua: false, at_ns: t.t });
            logs.push(t.log);
        }
    }
    (out, logs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_writes_split_at_the_queue_limit() {
        let completion = flashsim::Completion { submitted: 0, device_start: 0, device_done: 0, done: 0, idle_exit: 0 };
        let t = [
            Traced { t: 0, op: Op::Write, offset: 0, len: 3 << 20, purpose: None, log: None, completion },
            Traced { t: 0, op: Op::Flush, offset: 0, len: 0, purpose: None, log: None, completion },
        ];
        let r = from_model(&t, 1280 << 10);
        assert_eq!(r.len(), 4);
        assert_eq!(r.iter().filter(|q| q.op == ReqOp::Write).map(|q| q.bytes).sum::<u64>(), 3 << 20);
        assert!(r[3].op == ReqOp::Flush && r[3].preflush);
    }

    #[test]
    fn kernel_flags_become_ops() {
        let ev = |ts, rwbs: &[u8], write| BlockEvent {
            kind: Kind::Issue,
            ts,
            dev: 1,
            sector: 8,
            nr_sector: if write { 8 } else { 0 },
            write,
            read: false,
            flags: flags::from_rwbs(rwbs),
        };
        let r = from_kernel(&[ev(2, b"FF", false), ev(1, b"WSM", true)]);
        assert_eq!(r[0].op, ReqOp::Write);
        assert_eq!((r[0].offset, r[0].bytes), (4096, 4096));
        assert_eq!(r[1].op, ReqOp::Flush);
    }
}
