//! `ftl.sequential_log = "single-stream"` (flashsim/src/hybrid/stream.rs): a file written in
//! 256 KiB records, each followed by a one-unit write elsewhere (a journal commit), costs
//! nothing extra where the file's blocks hold no data, and a partial merge per logical block
//! where they hold old data (deleted, never trimmed). FAST's rule (`fast`) keeps the run open
//! through the commits in both cases. No command passes the busy-time ceiling.

use flashsim::{builtin, Device, Op, Profile, Request, SequentialLog, MAP_UNIT};

const FILE_BLOCKS: u64 = 16;
const FILE_START: u64 = 100;
const JOURNAL_BLOCK: u64 = 400;

fn profile(log: SequentialLog) -> Profile {
    let mut p = Profile::from_toml("nexus7-2012.toml", builtin::text("nexus7-2012").expect("built-in")).unwrap();
    p.ftl.sequential_log = log;
    // A fixed log area of `log_blocks`, as on a full device (`hybrid/area.rs`).
    p.ftl.max_log_blocks = 0;
    p
}

fn upb(p: &Profile) -> u64 {
    u64::from(p.nand.pages_per_block) * u64::from(p.nand.page_kib) * u64::from(p.nand.planes_per_die) * 1024 / MAP_UNIT
}

/// Units copied by merges while the file is written as records with a commit after each, on a
/// device whose file and journal blocks were written before (`old_data`) or never; and the
/// longest command, ns.
fn records_with_commits(log: SequentialLog, old_data: bool) -> (u64, u64) {
    let p = profile(log);
    let upb = upb(&p);
    let mut dev = Device::new(&p, 1);
    let mut now = 0;
    if old_data {
        for b in (FILE_START..FILE_START + FILE_BLOCKS).chain([JOURNAL_BLOCK]) {
            for part in 0..upb / 64 {
                let r = Request::new(Op::Write, (b * upb + part * 64) * MAP_UNIT, 64 * MAP_UNIT);
                now = dev.submit(now, &r).unwrap().done;
            }
        }
    }
    let before = dev.counters().gc_units_copied;
    let mut worst = 0;
    let mut journal = JOURNAL_BLOCK * upb + 1;
    for rec in 0..FILE_BLOCKS * upb / 64 {
        let r = Request::new(Op::Write, (FILE_START * upb + rec * 64) * MAP_UNIT, 64 * MAP_UNIT);
        let c = dev.submit(now, &r).unwrap();
        worst = worst.max(c.device_done - c.device_start);
        let c = dev.submit(c.done, &Request::new(Op::Write, journal * MAP_UNIT, MAP_UNIT)).unwrap();
        worst = worst.max(c.device_done - c.device_start);
        now = c.done;
        journal += 1;
        if journal.is_multiple_of(upb) {
            journal = JOURNAL_BLOCK * upb + 1;
        }
    }
    dev.check_invariants().unwrap();
    (dev.counters().gc_units_copied - before, worst)
}

#[test]
fn one_stream_costs_a_partial_merge_per_block_only_over_old_data() {
    let p = profile(SequentialLog::SingleStream);
    let ceiling = (p.busy_ceiling_ms() * 1e6) as u64;
    let file_units = FILE_BLOCKS * upb(&p);
    let (fast_new, w1) = records_with_commits(SequentialLog::Fast, false);
    let (one_new, w2) = records_with_commits(SequentialLog::SingleStream, false);
    let (fast_old, w3) = records_with_commits(SequentialLog::Fast, true);
    let (one_old, w4) = records_with_commits(SequentialLog::SingleStream, true);
    eprintln!(
        "units copied for {file_units} file units: new device fast {fast_new}, single-stream {one_new}; \
         over old data fast {fast_old}, single-stream {one_old}"
    );
    // Nothing past the run on a new device: the log stays open, as with FAST.
    assert_eq!(one_new, fast_new, "single-stream on never-written blocks copies what FAST copies");
    // Over old data every block's log is ended by the first commit: its old data is copied
    // (most of a block) and the block's other records go through the random logs, whose merges
    // copy the block again.
    assert!(one_old >= file_units, "single-stream over old data copied {one_old} units for {file_units} written");
    assert!(one_old >= 4 * fast_old.max(1), "single-stream {one_old} against FAST {fast_old} units copied");
    for w in [w1, w2, w3, w4] {
        assert!(
            w <= ceiling,
            "a command was busy {:.1} ms, past the {} ms ceiling",
            w as f64 / 1e6,
            p.busy_ceiling_ms()
        );
    }
}

/// Units copied after a 64-unit run at the start of a never-written block, an optional write
/// into that block's tail, and 32 one-unit writes elsewhere.
fn run_then_tail_write(tail_write: bool) -> u64 {
    let p = profile(SequentialLog::SingleStream);
    let upb = upb(&p);
    let mut dev = Device::new(&p, 1);
    let mut now = 0;
    let mut write = |dev: &mut Device, unit: u64, units: u64| {
        now = dev.submit(now, &Request::new(Op::Write, unit * MAP_UNIT, units * MAP_UNIT)).unwrap().done;
    };
    write(&mut dev, FILE_START * upb, 64);
    if tail_write {
        write(&mut dev, FILE_START * upb + upb - 1, 1);
    }
    for i in 0..32 {
        write(&mut dev, JOURNAL_BLOCK * upb + 1 + i, 1);
    }
    dev.check_invariants().unwrap();
    dev.counters().gc_units_copied
}

#[test]
fn a_write_past_the_run_into_an_empty_block_ends_the_run_at_the_next_interruption() {
    // Nothing past the run: the log keeps its erased pages, nothing is copied.
    assert_eq!(run_then_tail_write(false), 0);
    // The tail write is data past the run: the next write elsewhere ends the run, and the
    // partial merge copies that unit into the log.
    let copied = run_then_tail_write(true);
    assert!(copied >= 1, "the run was not ended: {copied} units copied");
}

#[test]
fn a_page_mapped_profile_refuses_the_setting() {
    let text = flashsim::builtin::TOY.replacen("[ftl]", "[ftl]\nsequential_log = \"single-stream\"", 1);
    let e = Profile::from_toml("toy.toml", &text).unwrap_err().to_string();
    assert!(e.contains("ftl.sequential_log"), "{e}");
}
