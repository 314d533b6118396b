//! fio's command-line form of a job file: `fio --name=a --rw=randread --bs=4k --size=1g`.
//!
//! fio reads its options from the command line as it reads a job file (init.c,
//! `parse_cmd_line`): `--name=NAME` starts a job (`--name=global` the global section), every
//! option before the first `--name` is global, and each option applies to the job started
//! last. fio's `getopt_long_only` takes one dash as well as two (`-rw=read`). fio reads them
//! before any job file it is given: the global ones are then the defaults under the file's
//! own `[global]`, and their jobs come before the file's. Here they become sections that the
//! job-file parser reads first ([`crate::parse::parse_jobfile_with_options`]), so every option
//! means what it means in a file. `--section=NAME` (fio's, repeatable) keeps only the named
//! sections, of the file and of these options, and every `[global]` (init.c,
//! `skip_this_section`). An error names the option by its position among the options
//! (`fio options:3`: the third).

use crate::parse::{Context, JobFile, JobFileError};

/// What errors and results call the options (their "file").
pub const SOURCE: &str = "fio options";

/// One command-line option, read.
pub(crate) enum Token {
    /// `--name=NAME`: a job starts (`global`: the global section).
    Name(String),
    /// `--section=NAME`: fio's own option (not a job's): only the named sections of the job
    /// file, and its `[global]` sections, run (it may be given more than once).
    Section(String),
    /// Any other option, as a job file's line would hold it (`bs=4k`, `direct`).
    Option(String),
}

/// Reads one of fio's command-line options; the error says what is wrong with it.
pub(crate) fn token(arg: &str) -> Result<Token, String> {
    let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')).filter(|b| !b.is_empty()) else {
        return Err(format!(
            "'{arg}' is not an option: fio's options are written --option=value (a value apart from its option, as in '--bs 4k', is not read)"
        ));
    };
    if body.contains(['\n', '\r']) {
        return Err(format!("option '{body}' holds a line break"));
    }
    match body.split_once('=') {
        Some((key, name)) if key.trim() == "name" => {
            let name = name.trim();
            if name.is_empty() {
                Err("--name needs a job name: --name=NAME".into())
            } else if name.contains(['[', ']']) {
                Err(format!("job name '{name}' holds a bracket"))
            } else {
                Ok(Token::Name(name.to_string()))
            }
        }
        Some((key, name)) if key.trim() == "section" => {
            let name = name.trim();
            if name.is_empty() {
                Err("--section needs a section name: --section=NAME".into())
            } else {
                Ok(Token::Section(name.to_string()))
            }
        }
        None if body.trim() == "name" => Err("--name needs a job name: --name=NAME".into()),
        None if body.trim() == "section" => Err("--section needs a section name: --section=NAME".into()),
        _ => Ok(Token::Option(body.to_string())),
    }
}

/// Parses fio's command-line job options alone, as fio does with no job file: `${VAR}` from
/// `env`, fio's keywords and arithmetic, no `include` (the command line has no directory to
/// read it from).
pub fn parse_fio_options(options: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<JobFile, JobFileError> {
    let ctx =
        Context { env: Some(env), keywords: Some(crate::arith::Keywords::of_this_machine()), ..Context::default() };
    crate::parse::parse_jobfile_with_options(SOURCE, "", ctx, options)
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
    fn before_a_job_file_global_options_are_its_defaults_and_jobs_come_first() {
        let v: Vec<String> = ["--bs=16k", "--rw=randread", "--name=cli", "--size=1m"].map(String::from).into();
        let text = "[global]\nrw=write\nsize=2m\n[file]\n";
        let ctx = Context::default();
        let jf = crate::parse::parse_jobfile_with_options("t.fio", text, ctx, &v).unwrap();
        let names: Vec<&str> = jf.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["cli", "file"]);
        // The file's [global] overrides the command line's rw; bs stays the command line's.
        assert_eq!((jf.jobs[0].rw, jf.jobs[0].bs_read), (crate::Rw::RandRead, 16384));
        assert_eq!((jf.jobs[1].rw, jf.jobs[1].bs_write), (crate::Rw::Write, 16384));
        // An error in an option names the options, not the file.
        let v: Vec<String> = ["--bs=huge"].map(String::from).into();
        let e = crate::parse::parse_jobfile_with_options("t.fio", text, Context::default(), &v).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), (SOURCE, 1), "{e}");
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

    #[test]
    fn section_keeps_the_named_jobs_and_every_global() {
        let f = parse(&["--bs=8k", "--section=b", "--name=a", "--rw=read", "--name=b", "--rw=write"]).unwrap();
        assert_eq!(f.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["b"]);
        assert_eq!(f.jobs[0].bs, 8192, "the global options before the first --name still apply");
        // A left-out job's options are not read at all.
        let f = parse(&["--section=b", "--name=a", "--no_such_option=1", "--name=b"]).unwrap();
        assert_eq!(f.jobs.len(), 1);
        let e = parse(&["--section=z", "--name=a"]).unwrap_err().to_string();
        assert!(e.contains("--section named no job section") && e.contains('z'), "{e}");
        assert!(parse(&["--section=", "--name=a"]).unwrap_err().to_string().contains("--section needs a section name"));
    }

    #[test]
    fn section_reads_only_the_named_sections_of_a_file() {
        let text = "[global]\nbs=4k\n[a]\nrw=read\n[skip]\nno_such_option=1\n[global]\nbs=8k\n[c]\nrw=write\n";
        let v = vec!["--section=c".to_string(), "--section=a".to_string()];
        let f = crate::parse::parse_jobfile_with_options("t.fio", text, Context::default(), &v).unwrap();
        assert_eq!(f.jobs.iter().map(|j| (j.name.as_str(), j.bs)).collect::<Vec<_>>(), [("a", 4096), ("c", 8192)]);
    }
}
