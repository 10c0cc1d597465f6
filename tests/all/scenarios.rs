//! Every scenario file in `tests/scenarios/` through the real component, as `read-window scenarios` runs them
//! (the Python and JavaScript hosts run the same files; see `tests/scenarios/README.md`).

use std::path::PathBuf;

use read_window_host::scenario;

#[test]
fn every_scenario_file_passes() {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/scenarios");
    let files = scenario::collect_files(&[folder]).expect("the scenario folder is readable");
    assert!(
        files.len() >= 10,
        "the scenario folder holds {} files; the set was lost",
        files.len()
    );
    let mut out = Vec::new();
    let summary = scenario::run_paths(crate::common::component(), &files, &mut out)
        .expect("writing to a buffer cannot fail");
    let report = String::from_utf8_lossy(&out);
    print!("{report}");
    let failures: Vec<&str> = report
        .lines()
        .filter(|line| line.starts_with("FAIL "))
        .collect();
    assert_eq!(
        summary.failed,
        0,
        "failed scenarios:\n{}",
        failures.join("\n")
    );
    assert_eq!(summary.passed, files.len());
}
