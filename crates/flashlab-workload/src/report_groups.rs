//! fio's reporting groups: which jobs' results are printed as one (`group_reporting`), and
//! each job's group number (`groupid`, which `stonewall` and `new_group` advance).
//!
//! fio folds its threads' statistics before it prints them (stat.c, `__show_run_stats`): a
//! thread joins the entry before it when it has `group_reporting` set and is in the same group
//! as the thread before it; otherwise it starts a new entry. A folded entry keeps its first
//! job's name and options; latencies pool, counts add, runtime is the longest
//! ([`JobResult::merge`]). Both targets' results go through here, in job-file order (each
//! job's `numjobs` clones one after another).

use flashlab_jobs::JobFile;
use flashlab_measure::JobResult;

/// Each job's reporting group, by job-file index: fio's `groupid`, which starts at 0 and
/// goes up at every job with `stonewall` or `new_group` but the first.
pub fn group_ids(jf: &JobFile) -> Vec<u32> {
    let mut id = 0u32;
    jf.jobs
        .iter()
        .enumerate()
        .map(|(i, job)| {
            if i > 0 && (job.stonewall || job.new_group) {
                id += 1;
            }
            id
        })
        .collect()
}

/// One reported entry: the folded result, what the caller attached to its first job's result,
/// and how many job clones it holds (fio's `jobs=N`).
pub struct Reported<T> {
    /// The statistics, folded over the entry's jobs.
    pub result: JobResult,
    /// The caller's data of the entry's first result (the job's rw, block size, depth...).
    pub first: T,
    /// Job clones folded into it (1 without `group_reporting`).
    pub jobs: u32,
}

/// The results of a run, one per job clone in job-file order, folded as fio reports them, and
/// each given its reporting group's number. `None` when the results do not line up with the
/// job file's clones (a caller's mistake: nothing is folded then rather than folded wrongly).
pub fn fold<T: Clone>(jf: &JobFile, results: &[(JobResult, T)]) -> Option<Vec<Reported<T>>> {
    let ids = group_ids(jf);
    let of_result: Vec<usize> =
        jf.jobs.iter().enumerate().flat_map(|(i, job)| std::iter::repeat_n(i, job.numjobs.max(1) as usize)).collect();
    if of_result.len() != results.len() {
        return None;
    }
    let mut out: Vec<Reported<T>> = Vec::new();
    let mut last_group = None;
    for ((r, extra), &ji) in results.iter().zip(&of_result) {
        let group = ids[ji];
        let joins = jf.jobs[ji].group_reporting && last_group == Some(group);
        last_group = Some(group);
        match out.last_mut() {
            Some(entry) if joins => {
                entry.result.merge(r);
                entry.jobs += 1;
            }
            _ => {
                let mut result = r.clone();
                result.groupid = group;
                out.push(Reported { result, first: extra.clone(), jobs: 1 });
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(jf: &JobFile) -> Vec<(JobResult, &'static str)> {
        let mut v = Vec::new();
        for job in &jf.jobs {
            for _ in 0..job.numjobs.max(1) {
                let mut r = JobResult::new(job.name.clone(), 0);
                r.write.ios = 10;
                r.write.io_bytes = 40960;
                r.write.runtime_ns = 1_000_000;
                v.push((r, "x"));
            }
        }
        v
    }

    #[test]
    fn group_reporting_folds_a_groups_clones_and_jobs_and_new_group_splits() {
        let text = "[global]\nrw=write\nsize=1m\ngroup_reporting\n[a]\nnumjobs=3\n[b]\n[c]\nnew_group\n\
                    [d]\nstonewall\nnumjobs=2\n";
        let jf = flashlab_jobs::parse_jobfile("t.fio", text).unwrap();
        assert_eq!(group_ids(&jf), vec![0, 0, 1, 2]);
        let out = fold(&jf, &results(&jf)).unwrap();
        let seen: Vec<(String, u32, u32, u64)> =
            out.iter().map(|e| (e.result.name.clone(), e.result.groupid, e.jobs, e.result.write.ios)).collect();
        assert_eq!(
            seen,
            vec![("a".into(), 0, 4, 40), ("c".into(), 1, 1, 10), ("d".into(), 2, 2, 20)],
            "a's 3 clones and b fold; c starts a group; d's clones fold"
        );
    }

    #[test]
    fn without_group_reporting_every_clone_is_its_own_entry() {
        let jf = flashlab_jobs::parse_jobfile("t.fio", "[a]\nrw=write\nsize=1m\nnumjobs=2\n[b]\nrw=read\nsize=1m\n")
            .unwrap();
        let out = fold(&jf, &results(&jf)).unwrap();
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|e| e.jobs == 1 && e.result.groupid == 0));
        // Results that do not line up with the clones are not folded.
        assert!(fold(&jf, &results(&jf)[1..]).is_none());
    }
}
