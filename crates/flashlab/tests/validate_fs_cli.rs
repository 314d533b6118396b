//! `flashlab validate-fs` on the command line: bad options are refused before anything is
//! made, each error naming its flag. (The kernel-side runs are tested in flashlab-validate.)

mod common;
use common::fails;

#[test]
fn bad_options_name_their_flag() {
    fails(&["validate-fs", "--workload", "sqlite-off"], "--workload");
    fails(&["validate-fs", "--workload", "fill", "--mount", "data=journal"], "--mount");
    fails(&["validate-fs", "--workload", "fill", "--size", "5M"], "--size");
    fails(&["validate-fs", "--workload", "fill", "--fill", "0"], "--fill");
    fails(&["validate-fs", "--workload", "fill", "--json", "/nonexistent/dir/x.json"], "--json");
    fails(&["validate-fs", "--workload", "fill", "--fs", "zfs"], "--fs");
    fails(&["validate-fs", "--workload", "fill", "--fs", "f2fs", "--mount", "weird"], "--mount");
    fails(&["validate-fs", "--workload", "fill", "--kernel-results", "/nonexistent.json"], "--kernel-results");
}
