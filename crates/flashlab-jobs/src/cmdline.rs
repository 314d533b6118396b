//! fio's command-line form of a job file: `fio --name=a --rw=randread --bs=4k --size=1g`.
//!
//! fio reads its options from the command line as it reads a job file (init.c,
//! `parse_cmd_line`): `--name=NAME` starts a job (`--name=global` the global section), every
//! option before the first `--name` is global, and each option applies to the job started
//! last. fio's `getopt_long_only` takes one dash as well as two (`-rw=read`). Here the
//! options become a job file's text, one option a line, and go through the job-file parser,
//! so every option means what it means in a file. An error names the option by its position
//! among the options (`fio options:3`: the third).

use crate::parse::{parse_jobfile_in, Context, JobFile, JobFileError};

/// What errors and results call the options (their "file").
pub const SOURCE: &str = "fio options";

/// The job file that `options` (fio's command-line options, without the program name) stand
/// for: line `k + 1` holds option `k` (1-based), after a `[global]` header on line 1.
fn job_text(options: &[String]) -> Result<String, JobFileError> {
    let mut text = String::from("[global]\n");
    for (k, arg) in options.iter().enumerate() {
        let at = |message: String| JobFileError { file: SOURCE.into(), line: k + 1, option: None, message };
        let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')).filter(|b| !b.is_empty()) else {
            return Err(at(format!(
                "'{arg}' is not an option: fio's options are written --option=value (a value apart from its option, as in '--bs 4k', is not read)"
            )));
        };
        if body.contains(['\n', '\r']) {
            return Err(at(format!("option '{body}' holds a line break")));
        }
        let (key, value) = match body.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v)),
            None => (body.trim(), None),
        };
        if key == "name" {
            let Some(name) = value.filter(|v| !v.trim().is_empty()) else {
                return Err(at("--name needs a job name: --name=NAME".into()));
            };
            if name.contains([']', '[']) {
                return Err(at(format!("job name '{name}' holds a bracket")));
            }
            text.push_str(&format!("[{}]\n", name.trim()));
        } else {
            text.push_str(body);
            text.push('\n');
        }
    }
    Ok(text)
}

/// Parses fio's command-line job options as fio does: `${VAR}` from `env`, fio's keywords
/// and arithmetic, no `include` (the command line has no directory to read it from).
pub fn parse_fio_options(options: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<JobFile, JobFileError> {
    let text = job_text(options)?;
    let ctx =
        Context { env: Some(env), keywords: Some(crate::arith::Keywords::of_this_machine()), ..Context::default() };
    // Line k + 1 of the text is option k.
    parse_jobfile_in(SOURCE, &text, ctx).map_err(|mut e| {
        e.line = e.line.saturating_sub(1);
        e
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<JobFile, JobFileError> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse_fio_options(&v, &|k| (k == "BS").then(|| "8k".to_string()))
    }

    #[test]
    fn options_before_the_first_name_are_global_and_name_starts_a_job() {
        let jf = parse(&[
            "--rw=randread",
            "-bs=${BS}",
            "--direct",
            "--name=a",
            "--size=1m",
            "--name=b",
            "-rw=write",
            "--size=2m",
        ])
        .unwrap();
        assert_eq!(jf.jobs.len(), 2);
        let (a, b) = (&jf.jobs[0], &jf.jobs[1]);
        assert_eq!((a.name.as_str(), a.rw, a.bs_read), ("a", crate::Rw::RandRead, 8192));
        assert_eq!((b.name.as_str(), b.rw, b.bs_write), ("b", crate::Rw::Write, 8192));
        assert!(a.direct && b.direct);
        // `--name=global` is the global section, as in a file.
        let jf = parse(&["--name=global", "--bs=16k", "--name=j", "--rw=read", "--size=1m"]).unwrap();
        assert_eq!(jf.jobs[0].bs_read, 16384);
    }

    #[test]
    fn errors_name_the_option_by_its_position() {
        let e = parse(&["--name=a", "--rw=read", "--bs=lots"]).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), (SOURCE, 3), "{e}");
        let e = parse(&["--name=a", "--bs", "4k"]).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("--option=value"), "{e}");
        assert!(parse(&["--name="]).is_err());
        // No --name: no jobs, as fio finds none.
        let e = parse(&["--rw=read"]).unwrap_err();
        assert!(e.message.contains("no jobs"), "{e}");
    }
}
