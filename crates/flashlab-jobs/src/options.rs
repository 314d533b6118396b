//! The one table of fio job options flashlab recognises, and what it does with each:
//! **Supported** (read into [`crate::Job`]), **Harmless** (accepted and ignored, with a warning
//! naming option, file and line) or **Unsupported** (an error, because ignoring it would make
//! the run measure something other than what the job file asks for). An option that is not in
//! this table is an error too.
//!
//! Names and aliases are fio's (`options.c`); matching is case-sensitive, as in fio.

/// What flashlab does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionClass {
    /// Read into the job model.
    Supported,
    /// Accepted and ignored with a warning; the text says why ignoring it is harmless.
    Harmless(&'static str),
    /// Rejected with an error; `why` says what it would change. A value listed in
    /// `default_ok` (fio's default, compared case-insensitively) is a no-op and is accepted
    /// silently, so `loops=1` or `verify=0` do not fail.
    Unsupported {
        /// What the option would change.
        why: &'static str,
        /// Values that are fio's default and so accepted.
        default_ok: &'static [&'static str],
    },
}

/// One recognised option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionInfo {
    /// fio's canonical name.
    pub name: &'static str,
    /// fio's other names for it.
    pub aliases: &'static [&'static str],
    /// Whether flashlab supports, ignores or refuses it.
    pub class: OptionClass,
}

const fn sup(name: &'static str, aliases: &'static [&'static str]) -> OptionInfo {
    OptionInfo { name, aliases, class: OptionClass::Supported }
}

const fn harmless(name: &'static str, aliases: &'static [&'static str], why: &'static str) -> OptionInfo {
    OptionInfo { name, aliases, class: OptionClass::Harmless(why) }
}

const fn unsup(
    name: &'static str,
    aliases: &'static [&'static str],
    why: &'static str,
    default_ok: &'static [&'static str],
) -> OptionInfo {
    OptionInfo { name, aliases, class: OptionClass::Unsupported { why, default_ok } }
}

const REPORTING: &str = "it only changes fio's own output; flashlab writes its own reports";
const LOGS: &str = "fio's log files; flashlab records its own time series";
const TIMING: &str = "fio's clock bookkeeping; flashlab always measures every I/O";
const CPU: &str = "CPU/NUMA placement of fio's workers; flashlab places its own";
const FILES: &str = "file set-up detail; flashlab creates and removes its own files";
const BUFFERS: &str = "data contents of the buffers; flashlab does not model compression or deduplication";
const ENGINE: &str = "an I/O engine tuning knob; flashlab chooses its own engine settings";
const VERIFY: &str = "this verify option is not implemented (verify, do_verify, verify_fatal, verify_backlog, verify_backlog_batch, verify_interval and verify_pattern are)";
const RATE: &str =
    "this rate-limit detail is not implemented (rate, rate_iops, rate_min, rate_iops_min and rate_process are)";
const BS_MIX: &str = "block sizes by sequential/random are not supported (bssplit and bsrange are)";
const ZONES: &str = "zoned-device modes are not supported";
const MULTIFILE: &str =
    "the files of a directory tree are not taken as a job's files (nrfiles, filename=a:b and filename_format are)";
const IOLOG: &str = "I/O log replay/recording is not supported; use a flashlab trace";

/// Every option flashlab recognises. Anything else in a job file is an error.
pub static OPTIONS: &[OptionInfo] = &[
    // ---- Supported: read into Job ------------------------------------------------------
    sup("rw", &["readwrite"]),
    sup("rwmixread", &[]),
    sup("rwmixwrite", &[]),
    sup("bs", &["blocksize"]),
    sup("size", &[]),
    sup("offset", &["fileoffset"]),
    sup("filesize", &[]),
    sup("iodepth", &[]),
    sup("numjobs", &[]),
    sup("io_size", &["io_limit"]),
    sup("number_ios", &[]),
    sup("runtime", &["timeout"]),
    sup("time_based", &[]),
    sup("ramp_time", &[]),
    sup("fsync", &[]),
    sup("fdatasync", &[]),
    sup("end_fsync", &[]),
    sup("direct", &[]),
    sup("buffered", &[]),
    sup("percentile_list", &[]),
    sup("randseed", &[]),
    sup("randrepeat", &[]),
    sup("filename", &[]),
    sup("directory", &[]),
    sup("ioengine", &[]),
    sup("stonewall", &["wait_for_previous"]),
    sup("group_reporting", &[]),
    sup("thinktime", &[]),
    sup("thinktime_spin", &[]),
    sup("thinktime_blocks", &[]),
    sup("kb_base", &[]),
    sup("bssplit", &[]),
    sup("bsrange", &["blocksize_range"]),
    sup("bs_unaligned", &["blocksize_unaligned"]),
    sup("blockalign", &["ba"]),
    sup("random_distribution", &[]),
    sup("percentage_random", &[]),
    sup("norandommap", &[]),
    sup("rw_sequencer", &[]),
    sup("rate", &[]),
    sup("rate_min", &[]),
    sup("rate_iops", &[]),
    sup("rate_iops_min", &[]),
    sup("rate_process", &[]),
    sup("loops", &[]),
    sup("buffer_compress_percentage", &[]),
    sup("dedupe_percentage", &[]),
    sup("steadystate", &["ss"]),
    sup("steadystate_duration", &["ss_dur"]),
    sup("steadystate_ramp_time", &["ss_ramp"]),
    // fio's data verification (crate::verify).
    sup("verify", &[]),
    sup("do_verify", &[]),
    sup("verify_fatal", &[]),
    sup("verify_backlog", &[]),
    sup("verify_backlog_batch", &[]),
    sup("verify_interval", &[]),
    sup("verify_pattern", &[]),
    sup("continue_on_error", &[]),
    // ---- Harmless: ignored with a warning ---------------------------------------------
    harmless("description", &[], "a free-text description"),
    harmless("name", &[], "flashlab names each job after its [section]"),
    harmless("thread", &[], "flashlab runs jobs in its own workers, not fio's processes or threads"),
    harmless("invalidate", &[], "page-cache invalidation before the job; flashlab prepares targets itself"),
    harmless(
        "softrandommap",
        &[],
        "fio's random-offset coverage map; flashlab's engine decides how random offsets cover the region",
    ),
    harmless("random_generator", &[], "flashlab uses its own seeded generator"),
    harmless("lat_percentiles", &[], "flashlab always reports latency percentiles"),
    harmless("clat_percentiles", &[], "flashlab always reports latency percentiles"),
    harmless("slat_percentiles", &[], "flashlab always reports latency percentiles"),
    harmless("unified_rw_reporting", &[], REPORTING),
    harmless("new_group", &[], REPORTING),
    harmless("unit_base", &[], REPORTING),
    harmless("significant_figures", &[], REPORTING),
    harmless("disk_util", &[], REPORTING),
    harmless("stats", &[], REPORTING),
    harmless("per_job_logs", &[], LOGS),
    harmless("log_avg_msec", &[], LOGS),
    harmless("log_hist_msec", &[], LOGS),
    harmless("log_max_value", &[], LOGS),
    harmless("log_offset", &[], LOGS),
    harmless("write_bw_log", &[], LOGS),
    harmless("write_lat_log", &[], LOGS),
    harmless("write_iops_log", &[], LOGS),
    harmless("write_hist_log", &[], LOGS),
    harmless("gtod_reduce", &[], TIMING),
    harmless("gtod_cpu", &[], TIMING),
    harmless("clocksource", &[], TIMING),
    harmless("disable_lat", &[], TIMING),
    harmless("disable_clat", &[], TIMING),
    harmless("disable_slat", &[], TIMING),
    harmless("disable_bw_measurement", &["disable_bw"], TIMING),
    harmless("cpus_allowed", &[], CPU),
    harmless("cpus_allowed_policy", &[], CPU),
    harmless("cpumask", &[], CPU),
    harmless("numa_cpu_nodes", &[], CPU),
    harmless("numa_mem_policy", &[], CPU),
    harmless("nice", &[], CPU),
    harmless("prio", &[], "I/O priority of fio's workers"),
    harmless("prioclass", &[], "I/O priority of fio's workers"),
    harmless("allow_mounted_write", &[], "flashlab has its own safety rules for real targets"),
    harmless("allow_file_create", &[], FILES),
    harmless("create_on_open", &[], FILES),
    harmless("create_serialize", &[], FILES),
    harmless("create_fsync", &[], FILES),
    harmless("overwrite", &[], FILES),
    harmless("fallocate", &[], FILES),
    harmless("unlink", &[], FILES),
    harmless("unlink_each_loop", &[], FILES),
    harmless("unique_filename", &[], FILES),
    harmless("fadvise_hint", &[], "a page-cache hint"),
    harmless("refill_buffers", &[], BUFFERS),
    harmless("scramble_buffers", &[], BUFFERS),
    harmless("zero_buffers", &[], BUFFERS),
    harmless("buffer_compress_chunk", &[], BUFFERS),
    harmless("buffer_pattern", &[], BUFFERS),
    sup("iodepth_batch", &["iodepth_batch_submit"]),
    sup("iodepth_batch_complete_min", &["iodepth_batch_complete"]),
    sup("iodepth_batch_complete_max", &[]),
    sup("iodepth_low", &[]),
    harmless("mem", &["iomem"], "how fio allocates its I/O buffers"),
    harmless("iomem_align", &["mem_align"], "how fio allocates its I/O buffers"),
    harmless("hugepage-size", &[], "how fio allocates its I/O buffers"),
    harmless("lockmem", &[], "how fio allocates its I/O buffers"),
    harmless("hipri", &[], ENGINE),
    sup("fixedbufs", &[]),
    harmless("registerfiles", &[], ENGINE),
    harmless("sqthread_poll", &[], ENGINE),
    harmless("sqthread_poll_cpu", &[], ENGINE),
    harmless("userspace_reap", &[], ENGINE),
    harmless("ioscheduler", &[], "flashlab does not switch the kernel I/O scheduler"),
    harmless("exitall", &[], "all of flashlab's jobs end with the run"),
    harmless("exitall_on_error", &[], "flashlab stops the run on any I/O error"),
    // ---- Unsupported: errors -------------------------------------------------------------
    // verify=, do_verify, verify_fatal, verify_backlog(_batch), verify_interval and
    // verify_pattern are supported (crate::verify); these are not.
    unsup("verify_only", &[], VERIFY, &["0"]),
    unsup("verify_offset", &[], VERIFY, &["0"]),
    unsup("verify_dump", &[], VERIFY, &["0"]),
    unsup("verify_async", &[], VERIFY, &["0"]),
    unsup("verify_state_save", &[], VERIFY, &["0", "1"]),
    unsup("verify_state_load", &[], VERIFY, &[]),
    unsup("experimental_verify", &[], VERIFY, &["0"]),
    unsup("trim_percentage", &[], VERIFY, &["0"]),
    unsup("trim_verify_zero", &[], VERIFY, &[]),
    unsup("trim_backlog", &[], VERIFY, &[]),
    unsup("trim_backlog_batch", &[], VERIFY, &[]),
    unsup("rate_cycle", &[], RATE, &[]),
    unsup("rate_ignore_thinktime", &[], RATE, &["0"]),
    unsup("bs_is_seq_rand", &[], BS_MIX, &["0"]),
    unsup("zonemode", &[], ZONES, &["none"]),
    unsup("zonesize", &[], ZONES, &[]),
    unsup("zonerange", &[], ZONES, &[]),
    unsup("zoneskip", &[], ZONES, &["0"]),
    unsup("zonecapacity", &[], ZONES, &[]),
    unsup("max_open_zones", &[], ZONES, &[]),
    sup("nrfiles", &["nr_files"]),
    sup("openfiles", &[]),
    sup("file_service_type", &[]),
    sup("filename_format", &[]),
    unsup("opendir", &[], MULTIFILE, &[]),
    unsup("lockfile", &[], "file locking between jobs is not supported", &["none"]),
    unsup("startdelay", &[], "delayed job starts are not supported", &["0"]),
    unsup("offset_increment", &[], "per-clone offsets are not supported", &["0"]),
    unsup("offset_align", &[], "offset alignment other than the block size is not supported", &["0"]),
    unsup("io_submit_mode", &[], "offloaded submission is not supported", &["inline"]),
    unsup(
        "sync",
        &[],
        "synchronous (O_SYNC/O_DSYNC) writes are not supported; use fsync=N or fdatasync=N",
        &["0", "none"],
    ),
    unsup("write_barrier", &[], "barrier writes are not supported", &["0"]),
    unsup("sync_file_range", &[], "sync_file_range is not supported; use fsync=N or fdatasync=N", &[]),
    unsup("fsync_on_close", &[], "fsync on close is not supported; use end_fsync=1", &["0"]),
    unsup("atomic", &[], "atomic writes are not supported", &["0"]),
    unsup("thinktime_blocks_type", &[], "think time counts completed blocks only", &["complete"]),
    unsup("thinktime_iotime", &[], "think time by blocks only", &["0"]),
    unsup("fill_device", &["fill_fs"], "use a flashlab fill step to fill a device", &["0"]),
    unsup("create_only", &[], "set-up-only jobs are not supported", &["0"]),
    unsup("pre_read", &[], "pre-reading files into the page cache is not supported", &["0"]),
    unsup("serialize_overlap", &[], "overlap serialization is not supported", &["0"]),
    unsup("flow", &[], "flow control between jobs is not supported", &["0"]),
    unsup("flow_id", &[], "flow control between jobs is not supported", &[]),
    unsup("flow_watermark", &[], "flow control between jobs is not supported", &[]),
    unsup("flow_sleep", &[], "flow control between jobs is not supported", &[]),
    unsup("read_iolog", &[], IOLOG, &[]),
    unsup("write_iolog", &[], IOLOG, &[]),
    unsup("replay_no_stall", &[], IOLOG, &[]),
    unsup("replay_redirect", &[], IOLOG, &[]),
    unsup("replay_scale", &[], IOLOG, &[]),
    unsup("replay_align", &[], IOLOG, &[]),
    unsup("exec_prerun", &[], "running commands from a job file is not supported", &[]),
    unsup("exec_postrun", &[], "running commands from a job file is not supported", &[]),
    sup("latency_target", &[]),
    sup("latency_window", &[]),
    sup("latency_percentile", &[]),
    sup("latency_run", &[]),
    unsup("cgroup", &[], "cgroups are not supported", &[]),
    unsup("cgroup_weight", &[], "cgroups are not supported", &[]),
    unsup("uid", &[], "switching user is not supported", &[]),
    unsup("gid", &[], "switching user is not supported", &[]),
    unsup("ignore_error", &[], "flashlab stops the run on any I/O error", &[]),
    unsup("write_hint", &[], "write lifetime hints are not supported", &["none"]),
    unsup("cpuload", &[], "the cpuio engine is not supported", &[]),
    unsup("cpuchunks", &[], "the cpuio engine is not supported", &[]),
];

/// The entry for `name` (canonical name or alias), if flashlab recognises it.
pub fn lookup(name: &str) -> Option<&'static OptionInfo> {
    OPTIONS.iter().find(|o| o.name == name || o.aliases.contains(&name))
}

/// The closest recognised option name to `name`, for "did you mean" hints.
pub fn suggest(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 64 {
        return None;
    }
    let max = match name.chars().count() {
        0..=3 => 1,
        4..=7 => 2,
        _ => 3,
    };
    OPTIONS
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .map(|cand| (edit_distance(name, cand), cand))
        .filter(|&(d, _)| d <= max)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique() {
        let mut seen = HashSet::new();
        for o in OPTIONS {
            for n in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
                assert!(seen.insert(n), "duplicate option name {n}");
            }
        }
    }

    #[test]
    fn lookup_and_aliases() {
        assert_eq!(lookup("readwrite").unwrap().name, "rw");
        assert_eq!(lookup("blocksize").unwrap().name, "bs");
        assert_eq!(lookup("timeout").unwrap().name, "runtime");
        assert_eq!(lookup("iodepth_batch_submit").unwrap().name, "iodepth_batch");
        assert!(matches!(lookup("verify").unwrap().class, OptionClass::Supported));
        assert!(matches!(lookup("verify_only").unwrap().class, OptionClass::Unsupported { .. }));
        assert!(matches!(lookup("thread").unwrap().class, OptionClass::Harmless(_)));
        assert!(lookup("BS").is_none());
        assert!(lookup("frobnicate").is_none());
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("iodpeth"), Some("iodepth"));
        assert_eq!(suggest("runtme"), Some("runtime"));
        assert_eq!(suggest("blocksise"), Some("blocksize"));
        assert_eq!(suggest("zzzzzzzzzzzz"), None);
    }
}
