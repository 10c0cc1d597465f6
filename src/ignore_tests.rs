//! Native tests of the ignore files (config `ignore_files`) through the whole read: git's verdicts on a generated
//! tree (`git check-ignore` is the oracle), the refusal's words, and suggestions that never name an ignored path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config::ConfigInput;
use crate::error::{ErrorKind, ReadError};
use crate::native_fs::NativeFileSystem;
use crate::read::{read_once_window, ReadOutcome, ReadRequest, Reader};

fn mount(directory: &Path) -> NativeFileSystem {
    NativeFileSystem::mount(&[(PathBuf::from(directory), "/w".to_string())])
}

fn request(path: &str) -> ReadRequest {
    ReadRequest {
        path: path.to_string(),
        ..ReadRequest::default()
    }
}

fn gitignore_config() -> ConfigInput {
    ConfigInput {
        ignore_files: vec![".gitignore".to_string()],
        ..ConfigInput::default()
    }
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The rules of the tree: negation, directory-only rules, anchored and `**` rules, deeper files overriding
/// shallower ones, and negations that cannot re-include a file inside an ignored directory.
const RULES: &[(&str, &str)] = &[
    (
        ".gitignore",
        "# build output\nbuild/\n*.log\n!keep.log\n/top-only.txt\ndocs/**/*.tmp\n**/cache\nout/\n!out/x.txt\n*.bak\n!*.bak.keep\ntarget\n  \n\\#hash.txt\n",
    ),
    ("sub/.gitignore", "!*.log\nlocal.txt\nnested/\n/anchored.txt\n"),
    ("sub/deep/.gitignore", "*\n!*.keep\n!.gitignore\n!*/\n"),
    ("docs/.gitignore", "!important.tmp\n"),
];

const DIRECTORIES: &[&str] = &[
    "",
    "sub",
    "sub/deep",
    "sub/deep/more",
    "build",
    "sub/build",
    "docs/a/b",
    "docs",
    "cache",
    "x/cache",
    "out",
    "sub/nested",
    "nested",
    "target/debug",
    "keep.log.d",
];

const FILES: &[&str] = &[
    "a.txt",
    "b.log",
    "keep.log",
    "c.tmp",
    "important.tmp",
    "top-only.txt",
    "local.txt",
    "anchored.txt",
    "d.bak",
    "d.bak.keep",
    "e.keep",
    "x.txt",
    "#hash.txt",
    "target",
];

/// Each path's verdict from `git check-ignore`: `Some((source, line, pattern))` when ignored.
fn git_verdicts(root: &Path, paths: &[String]) -> BTreeMap<String, Option<(String, u64, String)>> {
    let mut child = Command::new("git")
        .args(["check-ignore", "--no-index", "-v", "-n", "--stdin", "-z"])
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for path in paths {
            stdin.write_all(path.as_bytes()).unwrap();
            stdin.write_all(b"\0").unwrap();
        }
    }
    let output = child.wait_with_output().unwrap();
    // -z -v: source NUL line NUL pattern NUL path NUL, for every path (-n: empty fields when nothing matched).
    let fields: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .split('\0')
        .map(str::to_string)
        .collect();
    let mut verdicts = BTreeMap::new();
    for record in fields.chunks(4).filter(|record| record.len() == 4) {
        let (source, line, pattern, path) = (&record[0], &record[1], &record[2], &record[3]);
        let ignored = !source.is_empty() && !pattern.starts_with('!');
        let verdict = ignored.then(|| (source.clone(), line.parse().unwrap(), pattern.clone()));
        verdicts.insert(path.clone(), verdict);
    }
    verdicts
}

fn ignored_message(error: &ReadError) -> Option<String> {
    (error.kind == ErrorKind::Ignored).then(|| error.message.clone())
}

#[test]
fn the_verdicts_are_the_ones_git_gives_on_a_generated_tree() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path();
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status();
    assert!(init.is_ok_and(|status| status.success()), "git init");
    for (path, text) in RULES {
        write(root, path, text);
    }
    let mut paths = Vec::new();
    for directory in DIRECTORIES {
        for file in FILES {
            let path = if directory.is_empty() {
                file.to_string()
            } else {
                format!("{directory}/{file}")
            };
            // `target` the file beside `target/` the directory: only one of them can exist.
            if directory.is_empty() && *file == "target" {
                continue;
            }
            write(root, &path, "text\n");
            paths.push(path);
        }
    }
    assert!(paths.len() >= 200, "{} paths", paths.len());
    let expected = git_verdicts(root, &paths);
    assert_eq!(expected.len(), paths.len());
    let mut fs = mount(root);
    let mut reader = Reader::new(gitignore_config());
    let mut ignored = 0;
    for path in &paths {
        let outcome = reader.read(&mut fs, &request(&format!("/w/{path}")), 0);
        let ours = match &outcome {
            Err(error) => ignored_message(error),
            Ok(_) => None,
        };
        match (&expected[path], ours) {
            (None, None) => {}
            (Some((source, line, pattern)), Some(message)) => {
                ignored += 1;
                let rule = format!("/w/{source} line {line} (`{pattern}`)");
                assert!(message.contains(&rule), "{path}: {message} (git: {rule})");
            }
            (git, ours) => {
                panic!("{path}: git says {git:?}, read-window says {ours:?} ({outcome:?})")
            }
        }
        // The same verdict from a read with no session.
        let once = read_once_window(gitignore_config(), &mut fs, &request(&format!("/w/{path}")));
        assert_eq!(
            once.err()
                .and_then(|error| ignored_message(&error))
                .is_some(),
            expected[path].is_some(),
            "{path}"
        );
    }
    // The tree exercises both verdicts in earnest.
    assert!(
        ignored >= 50 && paths.len() - ignored >= 50,
        "{ignored} of {}",
        paths.len()
    );
}

#[test]
fn an_ignored_path_is_refused_naming_the_file_line_and_pattern_and_is_never_suggested() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path();
    write(root, ".gitignore", "*.log\n!keep.log\nbuild/\n");
    write(root, "app.log", "secret-ish\n");
    write(root, "keep.log", "kept\n");
    write(root, "build/out.txt", "built\n");
    write(root, "apps.txt", "apps\n");
    let mut fs = mount(root);
    let mut reader = Reader::new(gitignore_config());
    let error = reader.read(&mut fs, &request("app.log"), 0).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Ignored);
    assert_eq!(error.path.as_deref(), Some("/w/app.log"));
    assert_eq!(
        error.message,
        "/w/app.log is ignored by /w/.gitignore line 1 (`*.log`); this session applies the ignore files .gitignore (the host's ignore_files setting), so read-window does not read it. Read a file that is not ignored; if this one is needed, ask the user to read it or to change the setting."
    );
    let inside = reader
        .read(&mut fs, &request("build/out.txt"), 0)
        .unwrap_err();
    assert!(
        inside.message.starts_with(
            "/w/build/out.txt is inside /w/build/, which /w/.gitignore line 3 (`build/`) ignores;"
        ),
        "{}",
        inside.message
    );
    assert!(matches!(
        reader.read(&mut fs, &request("keep.log"), 0),
        Ok(ReadOutcome::Window(_))
    ));
    // A link that is not ignored to a file that is: the message names the path asked for and where it leads.
    std::os::unix::fs::symlink("app.log", root.join("notes.txt")).unwrap();
    let through = reader.read(&mut fs, &request("notes.txt"), 0).unwrap_err();
    assert_eq!(through.kind, ErrorKind::Ignored);
    assert_eq!(through.path.as_deref(), Some("/w/notes.txt"));
    assert!(
        through.message.starts_with(
            "/w/notes.txt leads to /w/app.log, which is ignored by /w/.gitignore line 1 (`*.log`);"
        ),
        "{}",
        through.message
    );
    // `apps.log` is missing: `app.log` is ignored, so it is not offered; `apps.txt` is.
    let missing = reader.read(&mut fs, &request("apps.log"), 0).unwrap_err();
    assert_eq!(missing.kind, ErrorKind::NotFound);
    assert_eq!(missing.suggestions, vec!["apps.txt".to_string()]);
    // Off by default: the same file reads, and is the first suggestion.
    let mut plain = Reader::new(ConfigInput::default());
    let offered = plain.read(&mut fs, &request("apps.log"), 0).unwrap_err();
    assert_eq!(
        offered.suggestions,
        vec!["app.log".to_string(), "apps.txt".to_string()]
    );
    assert!(plain.read(&mut fs, &request("app.log"), 0).is_ok());
}

#[test]
fn an_edited_ignore_file_applies_at_the_next_read() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path();
    write(root, ".gitignore", "*.log\n");
    write(root, "a.log", "a\n");
    let mut fs = mount(root);
    let mut reader = Reader::new(gitignore_config());
    assert!(reader.read(&mut fs, &request("a.log"), 0).is_err());
    write(root, ".gitignore", "*.log\n!a.log\n# re-included\n");
    assert!(reader.read(&mut fs, &request("a.log"), 0).is_ok());
}

#[test]
fn a_named_ignore_file_at_the_top_of_no_root_is_a_warning_with_the_first_read() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path();
    write(root, ".gitignore", "*.log\n");
    write(root, "a.txt", "a\n");
    let mut fs = mount(root);
    let mut reader = Reader::new(ConfigInput {
        ignore_files: vec![".gitignore".to_string(), ".gitingore".to_string()],
        ..ConfigInput::default()
    });
    let warnings = match reader.read(&mut fs, &request("a.txt"), 0) {
        Ok(ReadOutcome::Window(result)) => result.warnings,
        other => panic!("not a window: {other:?}"),
    };
    assert_eq!(
        warnings,
        vec!["config ignore-files .gitingore: no file of that name is at the top of any root (/w); its rules apply only where one is found in a directory below, and one above a root is not read.".to_string()]
    );
}

#[test]
fn names_that_are_not_plain_file_names_are_left_out_with_a_warning() {
    let (config, warnings) = crate::config::Config::resolve(ConfigInput {
        ignore_files: vec![
            ".gitignore".to_string(),
            "sub/.gitignore".to_string(),
            String::new(),
            ".gitignore".to_string(),
        ],
        ..ConfigInput::default()
    });
    assert_eq!(config.ignore_files, vec![".gitignore".to_string()]);
    assert_eq!(
        warnings,
        vec![
            "config ignore-files sub/.gitignore is invalid (it holds a `/`: ignore files are named, and found in each directory); using the other names without it.".to_string(),
            "config ignore-files  is invalid (it is empty); using the other names without it.".to_string(),
        ]
    );
}

#[test]
fn a_rule_with_invisible_characters_is_named_with_their_visible_forms() {
    let directory = tempfile::tempdir().unwrap();
    let root = directory.path();
    // A rule that hides tag characters in a character class that still matches `g`.
    write(root, ".gitignore", "*.lo[g\u{e0049}\u{e0067}]\n");
    write(root, "app.log", "x\n");
    let mut fs = mount(root);
    let mut reader = Reader::new(gitignore_config());
    let error = reader.read(&mut fs, &request("app.log"), 0).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Ignored, "{}", error.message);
    assert!(
        error.message.starts_with(
            "/w/app.log is ignored by /w/.gitignore line 1 (`*.lo[g⟪U+E0049⟫⟪U+E0067⟫]`);"
        ),
        "{}",
        error.message
    );
}
