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
const VERIFY: &str = "this verify option is not implemented (verify, do_verify, verify_fatal, verify_backlog, verify_backlog_batch, verify_interval, verify_pattern, verify_write_sequence, verify_dump and verify_async are)";
const RATE: &str =
    "this rate-limit detail is not implemented (rate, rate_iops, rate_min, rate_iops_min and rate_process are)";
const BS_MIX: &str = "block sizes by sequential/random are not supported (bssplit and bsrange are)";
const ZONES: &str = "this zoned-mode detail is not implemented (zonemode, zonesize, zonerange, zoneskip, zonecapacity, max_open_zones, job_max_open_zones, ignore_zone_limits, zone_reset_threshold, zone_reset_frequency and read_beyond_wp are)";
const MULTIFILE: &str =
    "the files of a directory tree are not taken as a job's files (nrfiles, filename=a:b and filename_format are)";
const IOLOG: &str = "I/O log replay/recording is not supported; use a flashlab trace";
const PROFILE_OPT: &str =
    "an option of fio's built-in act/tiobench profiles; without profile= fio does nothing with it";
const PI: &str = "NVMe metadata and protection information are not modelled";
const PASSTHRU: &str = "an option of fio's NVMe/SCSI passthrough engines (io_uring_cmd, sg); flashlab runs its own engine without passthrough";
const OTHER_ENGINE: &str = "an option of one of fio's special-purpose engines (network, cloud, GPU, exec, ...); flashlab runs its own engine, so it does nothing here";
const XNVME: &str = "an option of fio's xNVMe engine; flashlab runs its own engine";
const LIBBLKIO: &str = "an option of fio's libblkio engine; flashlab runs its own engine";
const DEPRECATED: &str = "deprecated in fio, which ignores it too";
const CPUIO: &str = "the cpuio engine is not supported";

/// Every option flashlab recognises. Anything else in a job file is an error.
pub static OPTIONS: &[OptionInfo] = &[
    // ---- Supported: read into Job ------------------------------------------------------
    sup("rw", &["readwrite"]),
    sup("rwmixread", &[]),
    sup("rwmixwrite", &[]),
    sup("bs", &["blocksize"]),
    sup("size", &[]),
    sup("offset", &["fileoffset"]),
    sup("offset_increment", &[]),
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
    sup("randrepeat", &["allrandrepeat"]),
    sup("filename", &[]),
    sup("directory", &[]),
    sup("ioengine", &[]),
    sup("stonewall", &["wait_for_previous"]),
    sup("startdelay", &[]),
    sup("wait_for", &[]),
    sup("exitall", &[]),
    sup("exit_what", &[]),
    sup("fsync_on_close", &[]),
    sup("atomic", &[]),
    sup("io_submit_mode", &[]),
    sup("flow", &[]),
    sup("flow_id", &[]),
    sup("flow_sleep", &[]),
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
    sup("random_sequence_stride", &[]),
    sup("percentage_random", &[]),
    sup("norandommap", &[]),
    sup("rw_sequencer", &[]),
    sup("rate", &[]),
    sup("rate_min", &["ratemin"]),
    sup("rate_iops", &[]),
    sup("rate_iops_min", &[]),
    sup("rate_process", &[]),
    sup("loops", &[]),
    sup("buffer_compress_percentage", &[]),
    sup("dedupe_percentage", &[]),
    sup("steadystate", &["ss"]),
    sup("steadystate_duration", &["ss_dur"]),
    sup("steadystate_ramp_time", &["ss_ramp"]),
    sup("steadystate_check_interval", &["ss_interval"]),
    // fio's data verification (crate::verify).
    sup("verify", &[]),
    sup("do_verify", &[]),
    sup("verify_fatal", &[]),
    sup("verify_backlog", &[]),
    sup("verify_backlog_batch", &[]),
    sup("verify_interval", &[]),
    sup("verify_pattern", &[]),
    sup("continue_on_error", &[]),
    sup("verify_write_sequence", &[]),
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
    sup("unified_rw_reporting", &[]),
    sup("new_group", &[]),
    harmless("unit_base", &[], REPORTING),
    harmless("significant_figures", &[], REPORTING),
    harmless("disk_util", &[], REPORTING),
    harmless("stats", &[], REPORTING),
    harmless("per_job_logs", &[], LOGS),
    harmless("log_avg_msec", &[], LOGS),
    harmless("log_hist_msec", &[], LOGS),
    harmless("log_window_value", &["log_max_value"], LOGS),
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
    sup("prio", &[]),
    sup("prioclass", &[]),
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
    harmless("exitall_on_error", &[], "flashlab stops the run on any I/O error"),
    // ---- Unsupported: errors -------------------------------------------------------------
    // verify=, do_verify, verify_fatal, verify_backlog(_batch), verify_interval and
    // verify_pattern are supported (crate::verify); these are not.
    unsup("verify_only", &[], VERIFY, &["0"]),
    unsup("verify_offset", &[], VERIFY, &["0"]),
    sup("verify_dump", &[]),
    harmless(
        "verify_async",
        &[],
        "fio checks the blocks on N offload threads instead of the submitting one: the same blocks, the same outcome; flashlab checks them in its job loop",
    ),
    unsup("verify_state_save", &[], VERIFY, &["0", "1"]),
    unsup("verify_state_load", &[], VERIFY, &[]),
    unsup("experimental_verify", &[], VERIFY, &["0"]),
    unsup("trim_percentage", &[], VERIFY, &["0"]),
    unsup("trim_verify_zero", &[], VERIFY, &[]),
    unsup("trim_backlog", &[], VERIFY, &[]),
    unsup("trim_backlog_batch", &[], VERIFY, &[]),
    unsup("rate_cycle", &["ratecycle"], RATE, &[]),
    unsup("rate_ignore_thinktime", &[], RATE, &["0"]),
    unsup("bs_is_seq_rand", &[], BS_MIX, &["0"]),
    // fio's zoned modes (crate::zoned).
    sup("zonemode", &[]),
    sup("zonesize", &[]),
    sup("zonerange", &[]),
    sup("zoneskip", &[]),
    sup("zonecapacity", &[]),
    sup("max_open_zones", &[]),
    sup("nrfiles", &["nr_files"]),
    sup("openfiles", &[]),
    sup("file_service_type", &[]),
    sup("filename_format", &[]),
    unsup("opendir", &[], MULTIFILE, &[]),
    unsup("lockfile", &[], "file locking between jobs is not supported", &["none"]),
    unsup("offset_align", &[], "offset alignment other than the block size is not supported", &["0"]),
    unsup(
        "sync",
        &[],
        "synchronous (O_SYNC/O_DSYNC) writes are not supported; use fsync=N or fdatasync=N",
        &["0", "none"],
    ),
    unsup("write_barrier", &[], "barrier writes are not supported", &["0"]),
    unsup("sync_file_range", &[], "sync_file_range is not supported; use fsync=N or fdatasync=N", &[]),
    unsup("thinktime_blocks_type", &[], "think time counts completed blocks only", &["complete"]),
    unsup("thinktime_iotime", &[], "think time by blocks only", &["0"]),
    sup("fill_device", &["fill_fs"]),
    unsup("create_only", &[], "set-up-only jobs are not supported", &["0"]),
    unsup("pre_read", &[], "pre-reading files into the page cache is not supported", &["0"]),
    unsup("serialize_overlap", &[], "overlap serialization is not supported", &["0"]),
    harmless("flow_watermark", &[], DEPRECATED),
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
    sup("ignore_error", &[]),
    unsup("write_hint", &[], "write lifetime hints are not supported", &["none"]),
    unsup("cpuload", &[], CPUIO, &[]),
    unsup("cpuchunks", &[], CPUIO, &[]),
    unsup("cpumode", &[], CPUIO, &[]),
    unsup("exit_on_io_done", &[], CPUIO, &["0"]),
    // ---- The rest of fio's HOWTO ---------------------------------------------------------
    harmless("job_start_clock_id", &[], TIMING),
    harmless("comm", &[], "the process name of fio's workers"),
    harmless("filetype", &[], "a hint that saves fio a stat() per file; flashlab knows its files"),
    unsup("ramp_size", &[], "a ramp measured in bytes is not implemented; use ramp_time", &["0"]),
    unsup(
        "end_syncfs",
        &[],
        "syncfs at the end of a write stage is not implemented; end_fsync=1 flushes the job's files",
        &["0"],
    ),
    unsup(
        "file_append",
        &[],
        "I/O after the end of an existing file is not implemented; give offset= the file's size",
        &["0"],
    ),
    sup("dedupe_mode", &[]),
    sup("dedupe_working_set_percentage", &[]),
    sup("dedupe_global", &[]),
    unsup("thinkcycles", &[], "think time in CPU cycles is not implemented; use thinktime", &["0"]),
    unsup("max_latency", &[], "failing a job on one slow I/O is not implemented (latency_target is)", &["0"]),
    harmless("verify_async_cpus", &[], CPU),
    unsup("verify_pattern_interval", &[], VERIFY, &["0"]),
    unsup("verify_policy", &[], VERIFY, &["completed"]),
    unsup("verify_header_seed", &[], VERIFY, &["1"]),
    harmless("error_dump", &[], "fio prints every I/O error with it; flashlab reports errors its own way"),
    harmless("log_entries", &[], LOGS),
    harmless("log_hist_coarseness", &[], LOGS),
    harmless("log_prio", &[], LOGS),
    harmless("log_issue_time", &[], LOGS),
    harmless("log_compression", &[], LOGS),
    harmless("log_compression_cpus", &[], LOGS),
    harmless("log_store_compressed", &[], LOGS),
    harmless("log_alternate_epoch", &["log_unix_epoch"], LOGS),
    harmless("log_alternate_epoch_clock_id", &[], LOGS),
    harmless("bwavgtime", &[], "the averaging window of fio's bandwidth figures; flashlab samples every 500 ms"),
    harmless("iopsavgtime", &[], "the averaging window of fio's IOPS figures; flashlab samples every 500 ms"),
    harmless("block_error_percentiles", &[], REPORTING),
    harmless("cgroup_nodelete", &[], "only matters with cgroup=, which flashlab refuses"),
    sup("priohint", &[]),
    unsup("read_iolog_chunked", &[], IOLOG, &["0"]),
    unsup("merge_blktrace_file", &[], IOLOG, &[]),
    unsup("merge_blktrace_scalars", &[], IOLOG, &[]),
    unsup("merge_blktrace_iters", &[], IOLOG, &[]),
    unsup("replay_time_scale", &[], IOLOG, &["100"]),
    unsup("replay_skip", &[], IOLOG, &[]),
    // Zoned block devices, FDP and sprandom (their own issue).
    sup("read_beyond_wp", &[]),
    sup("job_max_open_zones", &[]),
    sup("ignore_zone_limits", &[]),
    sup("zone_reset_threshold", &[]),
    sup("zone_reset_frequency", &[]),
    unsup("recover_zbd_write_error", &[], ZONES, &["0"]),
    unsup("write_zone_remainders", &[], ZONES, &["0"]),
    // Data placement (crate::placement): FDP on `[fdp]` profiles, streams on multi-stream ones.
    sup("fdp", &[]),
    sup("dataplacement", &["data_placement"]),
    sup("plid_select", &["fdp_pli_select"]),
    sup("plids", &["fdp_pli"]),
    sup("dp_scheme", &[]),
    sup("sprandom", &[]),
    sup("spr_num_regions", &[]),
    sup("spr_op", &[]),
    sup("spr_cs", &[]),
    // Options of fio's built-in profiles (registered globally by fio, so accepted anywhere).
    unsup("profile", &[], "fio's built-in job profiles (act, tiobench) are not supported; write the jobs out", &[]),
    harmless("device-names", &[], PROFILE_OPT),
    harmless("load", &[], PROFILE_OPT),
    harmless("test-duration", &[], PROFILE_OPT),
    harmless("threads-per-queue", &[], PROFILE_OPT),
    harmless("read-req-num-512-blocks", &[], PROFILE_OPT),
    harmless("large-block-op-kbytes", &[], PROFILE_OPT),
    harmless("prep", &[], PROFILE_OPT),
    harmless("block", &[], PROFILE_OPT),
    harmless("numruns", &[], PROFILE_OPT),
    harmless("dir", &[], PROFILE_OPT),
    harmless("threads", &[], PROFILE_OPT),
    // io_uring / libaio / pvsync2 options (the engines flashlab's real targets stand in for).
    // Per-command priorities (crate::prio).
    sup("cmdprio_percentage", &[]),
    sup("cmdprio_class", &[]),
    sup("cmdprio_hint", &[]),
    sup("cmdprio", &[]),
    sup("cmdprio_bssplit", &[]),
    harmless("nonvectored", &[], ENGINE),
    harmless("force_async", &[], ENGINE),
    harmless("libaio_vectored", &[], ENGINE),
    harmless("hipri_percentage", &[], ENGINE),
    harmless("nowait", &[], "RWF_NOWAIT only changes what happens when an I/O would block; flashlab's engines wait"),
    unsup(
        "uncached",
        &[],
        "uncached buffered I/O (RWF_DONTCACHE) is not implemented; use direct=1 or buffered I/O",
        &["0"],
    ),
    unsup("md_per_io_size", &[], PI, &["0"]),
    unsup("pi_act", &[], PI, &[]),
    unsup("pi_chk", &[], PI, &[]),
    unsup("apptag", &[], PI, &[]),
    unsup("apptag_mask", &[], PI, &[]),
    // Passthrough engines.
    harmless("cmd_type", &[], PASSTHRU),
    harmless("cdb_len", &[], PASSTHRU),
    harmless("num_range", &[], PASSTHRU),
    harmless("readfua", &[], PASSTHRU),
    harmless("writefua", &[], PASSTHRU),
    harmless("write_mode", &[], PASSTHRU),
    harmless("read_mode", &[], PASSTHRU),
    harmless("verify_mode", &[], PASSTHRU),
    harmless("verify_bytchk", &[], PASSTHRU),
    harmless("sg_write_mode", &[], PASSTHRU),
    harmless("stream_id", &[], PASSTHRU),
    // xNVMe and libblkio.
    harmless("xnvme_async", &[], XNVME),
    harmless("xnvme_sync", &[], XNVME),
    harmless("xnvme_admin", &[], XNVME),
    harmless("xnvme_dev_nsid", &[], XNVME),
    harmless("xnvme_dev_subnqn", &[], XNVME),
    harmless("xnvme_mem", &[], XNVME),
    harmless("xnvme_iovec", &[], XNVME),
    harmless("libblkio_driver", &[], LIBBLKIO),
    harmless("libblkio_path", &[], LIBBLKIO),
    harmless("libblkio_pre_connect_props", &[], LIBBLKIO),
    harmless("libblkio_num_entries", &[], LIBBLKIO),
    harmless("libblkio_queue_size", &[], LIBBLKIO),
    harmless("libblkio_pre_start_props", &[], LIBBLKIO),
    harmless("libblkio_vectored", &[], LIBBLKIO),
    harmless("libblkio_write_zeroes_on_trim", &[], LIBBLKIO),
    harmless("libblkio_wait_mode", &[], LIBBLKIO),
    harmless("libblkio_force_enable_completion_eventfd", &[], LIBBLKIO),
    // Special-purpose engines (network, distributed storage, HTTP, GPU, exec, ...).
    harmless("namenode", &[], OTHER_ENGINE),
    harmless("hdfsdirectory", &[], OTHER_ENGINE),
    harmless("chunk_size", &[], OTHER_ENGINE),
    harmless("port", &[], OTHER_ENGINE),
    harmless("hostname", &[], OTHER_ENGINE),
    harmless("interface", &[], OTHER_ENGINE),
    harmless("ttl", &[], OTHER_ENGINE),
    harmless("nodelay", &[], OTHER_ENGINE),
    harmless("protocol", &["proto"], OTHER_ENGINE),
    harmless("listen", &[], OTHER_ENGINE),
    harmless("pingpong", &[], OTHER_ENGINE),
    harmless("window_size", &[], OTHER_ENGINE),
    harmless("mss", &[], OTHER_ENGINE),
    harmless("donorname", &[], OTHER_ENGINE),
    harmless("inplace", &[], OTHER_ENGINE),
    harmless("clustername", &[], OTHER_ENGINE),
    harmless("rbdname", &[], OTHER_ENGINE),
    harmless("clientname", &[], OTHER_ENGINE),
    harmless("conf", &[], OTHER_ENGINE),
    harmless("busy_poll", &[], OTHER_ENGINE),
    harmless("touch_objects", &[], OTHER_ENGINE),
    harmless("rbd_encryption_format", &[], OTHER_ENGINE),
    harmless("rbd_encryption_passphrase", &[], OTHER_ENGINE),
    harmless("pool", &[], OTHER_ENGINE),
    harmless("cont", &[], OTHER_ENGINE),
    harmless("object_class", &[], OTHER_ENGINE),
    harmless("skip_bad", &[], OTHER_ENGINE),
    harmless("verb", &[], OTHER_ENGINE),
    harmless("bindname", &[], OTHER_ENGINE),
    harmless("stat_type", &[], OTHER_ENGINE),
    harmless("http_host", &[], OTHER_ENGINE),
    harmless("http_user", &[], OTHER_ENGINE),
    harmless("http_pass", &[], OTHER_ENGINE),
    harmless("https", &[], OTHER_ENGINE),
    harmless("http_mode", &[], OTHER_ENGINE),
    harmless("http_s3_region", &[], OTHER_ENGINE),
    harmless("http_s3_key", &[], OTHER_ENGINE),
    harmless("http_s3_keyid", &[], OTHER_ENGINE),
    harmless("http_s3_security_token", &[], OTHER_ENGINE),
    harmless("http_s3_sse_customer_key", &[], OTHER_ENGINE),
    harmless("http_s3_sse_customer_algorithm", &[], OTHER_ENGINE),
    harmless("http_s3_storage_class", &[], OTHER_ENGINE),
    harmless("http_swift_auth_token", &[], OTHER_ENGINE),
    harmless("http_verbose", &[], OTHER_ENGINE),
    harmless("http_object_mode", &[], OTHER_ENGINE),
    harmless("uri", &[], OTHER_ENGINE),
    harmless("gpu_dev_ids", &["gpu_dev_id"], OTHER_ENGINE),
    harmless("cuda_io", &[], OTHER_ENGINE),
    harmless("rocm_io", &[], OTHER_ENGINE),
    harmless("nfs_url", &[], OTHER_ENGINE),
    harmless("program", &[], OTHER_ENGINE),
    harmless("arguments", &[], OTHER_ENGINE),
    harmless("grace_time", &[], OTHER_ENGINE),
    harmless("std_redirect", &[], OTHER_ENGINE),
    harmless("no_completion_thread", &[], OTHER_ENGINE),
    // In fio's options.c but deprecated: fio warns and ignores them.
    harmless("percentage_sequential", &[], DEPRECATED),
    harmless("rwmixcycle", &[], DEPRECATED),
    harmless("verifysort", &[], DEPRECATED),
    harmless("verifysort_nr", &[], DEPRECATED),
];

/// The entry for `name` (canonical name or alias), if flashlab recognises it.
pub fn lookup(name: &str) -> Option<&'static OptionInfo> {
    OPTIONS.iter().find(|o| o.name == name || o.aliases.contains(&name))
}

/// The option table as Markdown, one row per option in alphabetical order: its name, fio's
/// aliases, and what flashlab does with it. docs/jobs.md holds this text between the
/// `<!-- options-table:begin -->` and `<!-- options-table:end -->` markers; a test in this
/// crate (`tests/options_doc.rs`) fails when the two differ.
pub fn markdown_table() -> String {
    let mut rows: Vec<&OptionInfo> = OPTIONS.iter().collect();
    rows.sort_by_key(|o| o.name);
    let mut out = String::from("| option | aliases | flashlab |\n|---|---|---|\n");
    for o in rows {
        let aliases: Vec<String> = o.aliases.iter().map(|a| format!("`{a}`")).collect();
        let what = match o.class {
            OptionClass::Supported => "supported".to_string(),
            OptionClass::Harmless(why) => format!("ignored, with a warning: {why}"),
            OptionClass::Unsupported { why, default_ok } => {
                let ok = if default_ok.is_empty() {
                    String::new()
                } else {
                    let v: Vec<String> = default_ok.iter().map(|d| format!("`{d}`")).collect();
                    format!(" (fio's default {} is accepted)", v.join(", "))
                };
                format!("an error: {why}{ok}")
            }
        };
        out.push_str(&format!("| `{}` | {} | {} |\n", o.name, aliases.join(", "), what.replace('|', "\\|")));
    }
    out
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
