//! Ignore files (config `ignore_files`, off by default): a path the named files' rules ignore is refused as
//! `ignored`, naming the file, its line and the pattern.
//!
//! The rules are git's, applied by the `ignore` crate's gitignore matcher: the ignore files of every directory
//! from the grant (the preopen holding the path) down to the path's own directory apply, a deeper file's match
//! wins over a shallower one, the last matching line of a file wins (so `!pattern` re-includes), a pattern ending
//! in `/` matches directories only, and a path inside an ignored directory is ignored whatever a later negation
//! says (git does not look inside an ignored directory). Files above the grant cannot be read and do not apply.
//! Every read of a session asks the same [`IgnoreFiles`], so one path gets one verdict, whichever call asked.

use std::collections::HashMap;
use std::path::PathBuf;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::error::{ErrorKind, ReadError};
use crate::sandbox::{find_root, FileKind, FileSystem};

/// Bytes of an ignore file read at most; lines past it do not apply (a real `.gitignore` is a few KiB).
pub const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;
/// Ignore files a session keeps parsed at most; past it, the kept ones are dropped and parsed again as needed.
const MAX_KEPT_FILES: usize = 4096;

/// The rule that ignores a path: where it is and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The ignore file's guest path.
    pub ignore_file: String,
    /// The rule's line in that file, from 1.
    pub line: u64,
    /// The rule as written (trailing spaces trimmed).
    pub pattern: String,
    /// The ignored directory the path is inside, when the rule matched a directory above it.
    pub inside: Option<String>,
}

/// One ignore file as parsed, with the line of each rule.
#[derive(Debug)]
struct Rules {
    matcher: Gitignore,
    /// Each rule as written and its line, in file order.
    lines: Vec<(String, u64)>,
}

/// An ignore file as last seen: its size and modification time, and its rules (`None`: no such file).
#[derive(Debug)]
struct Kept {
    stamp: Option<(u64, Option<u128>)>,
    rules: Option<Rules>,
}

/// The ignore files of a session: their names, and each one found, parsed once and parsed again when it changes.
#[derive(Debug)]
pub struct IgnoreFiles {
    names: Vec<String>,
    kept: HashMap<String, Kept>,
}

impl IgnoreFiles {
    /// The rules of the files named `names` (plain file names, such as `.gitignore`); none when it is empty.
    /// Of two files in one directory, the one named later wins where both match.
    pub fn new(names: &[String]) -> Self {
        IgnoreFiles {
            names: names.to_vec(),
            kept: HashMap::new(),
        }
    }

    /// A config warning for each named ignore file that is at the top of no root (a misspelled name applies
    /// nothing, and a file only above the roots cannot be read): its rules apply only where one is found below.
    pub fn missing_names<F: FileSystem + ?Sized>(&self, fs: &mut F) -> Vec<String> {
        let roots = fs.roots().to_vec();
        let mut warnings = Vec::new();
        for name in &self.names {
            let found = (0..roots.len()).any(|root| {
                fs.stat(root, name)
                    .is_ok_and(|stat| stat.kind == FileKind::Regular)
            });
            if !found {
                warnings.push(format!(
                    "{}ignore-files {name}: no file of that name is at the top of any root ({}); its rules apply only where one is found in a directory below, and one above a root is not read.",
                    crate::config::CONFIG_WARNING_PREFIX,
                    roots.join(", ")
                ));
            }
        }
        warnings
    }

    /// True when no ignore file is named (every verdict is "not ignored").
    pub fn is_off(&self) -> bool {
        self.names.is_empty()
    }

    /// Refuses `path` (an absolute, normalized guest path) as `Ignored` when the rules ignore it; `is_dir` says
    /// whether it is a directory (a pattern ending in `/` matches only those). `via`: the path asked for, when
    /// `path` is the file a link there leads to (the message and the error's path name it).
    pub fn check<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        path: &str,
        is_dir: bool,
        via: Option<&str>,
    ) -> Result<(), ReadError> {
        match self.verdict(fs, path, is_dir) {
            Some(verdict) => Err(ignored_error(path, via, &verdict, &self.names)),
            None => Ok(()),
        }
    }

    /// The rule that ignores `path`, or `None` when none does (or the path is under no grant).
    pub fn verdict<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        path: &str,
        is_dir: bool,
    ) -> Option<Verdict> {
        if self.is_off() {
            return None;
        }
        let roots = fs.roots().to_vec();
        let (root, relative) = find_root(&roots, path)?;
        let base = roots.get(root)?.clone();
        let parts: Vec<&str> = relative
            .split('/')
            .filter(|part| !part.is_empty())
            .collect();
        // Top down, as git walks: an ignored directory ends the walk (nothing inside it is looked at again).
        for end in 1..=parts.len() {
            let prefix = parts.get(..end)?;
            let prefix_is_dir = end < parts.len() || is_dir;
            if let Some(mut verdict) = self.deepest_match(fs, root, &base, prefix, prefix_is_dir) {
                if end < parts.len() {
                    verdict.inside = Some(join(&base, prefix));
                }
                return Some(verdict);
            }
        }
        None
    }

    /// The verdict for the entry `parts` (relative to the grant `base`): the deepest ignore file with a rule that
    /// matches it decides; `Some` when that rule ignores it.
    fn deepest_match<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        root: usize,
        base: &str,
        parts: &[&str],
        is_dir: bool,
    ) -> Option<Verdict> {
        let candidate = PathBuf::from(join(base, parts));
        let names = self.names.clone();
        for depth in (0..parts.len()).rev() {
            let directory = parts.get(..depth)?;
            for name in names.iter().rev() {
                let mut file_parts = directory.to_vec();
                file_parts.push(name.as_str());
                let relative = file_parts.join("/");
                let Some(rules) = self.rules(fs, root, base, &relative) else {
                    continue;
                };
                match rules.matcher.matched(&candidate, is_dir) {
                    Match::None => continue,
                    Match::Whitelist(_) => return None,
                    Match::Ignore(glob) => {
                        let pattern = glob.original().to_string();
                        let line = rules
                            .lines
                            .iter()
                            .rev()
                            .find(|(written, _)| *written == pattern)
                            .map_or(0, |(_, line)| *line);
                        return Some(Verdict {
                            ignore_file: join(base, &[relative.as_str()]),
                            line,
                            pattern,
                            inside: None,
                        });
                    }
                }
            }
        }
        None
    }

    /// The rules of the ignore file `relative` under grant `root`, parsed again when its size or modification
    /// time changed; `None` when there is no such regular file (a link is not followed) or it cannot be read.
    fn rules<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        root: usize,
        base: &str,
        relative: &str,
    ) -> Option<&Rules> {
        let key = join(base, &[relative]);
        let stamp = match fs.stat(root, relative) {
            Ok(stat) if stat.kind == FileKind::Regular => Some((stat.size, stat.modified_ns)),
            _ => None,
        };
        let fresh = self.kept.get(&key).is_some_and(|kept| kept.stamp == stamp);
        if !fresh {
            if self.kept.len() >= MAX_KEPT_FILES {
                self.kept.clear();
            }
            let rules = stamp.and_then(|(size, _)| parse(fs, root, relative, &key, size));
            self.kept.insert(key.clone(), Kept { stamp, rules });
        }
        self.kept.get(&key)?.rules.as_ref()
    }
}

/// Reads and parses the ignore file `relative` under grant `root` (guest path `path`). A line that is not a valid
/// pattern is skipped, as git skips it.
fn parse<F: FileSystem + ?Sized>(
    fs: &mut F,
    root: usize,
    relative: &str,
    path: &str,
    size: u64,
) -> Option<Rules> {
    let mut file = fs.open(root, relative).ok()?;
    let bytes = crate::source::read_whole(&mut file, size.min(MAX_IGNORE_FILE_BYTES)).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let directory = path
        .rsplit_once('/')
        .map_or("/", |(directory, _)| directory);
    let mut builder = GitignoreBuilder::new(if directory.is_empty() { "/" } else { directory });
    let mut lines = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let number = index as u64 + 1;
        if builder.add_line(Some(PathBuf::from(path)), line).is_ok() {
            let written = if line.ends_with("\\ ") {
                line
            } else {
                line.trim_end()
            };
            lines.push((written.to_string(), number));
        }
    }
    let matcher = builder.build().ok()?;
    Some(Rules { matcher, lines })
}

/// `base` joined with `parts` by `/` (`base` may be `/`).
fn join(base: &str, parts: &[&str]) -> String {
    let mut path = base.trim_end_matches('/').to_string();
    for part in parts {
        path.push('/');
        path.push_str(part);
    }
    if path.is_empty() {
        path.push('/');
    }
    path
}

/// The `ignored` refusal of `path` (reached through `via`, a link, when given): the rule, where it is, and that
/// it is the host's setting.
fn ignored_error(path: &str, via: Option<&str>, verdict: &Verdict, names: &[String]) -> ReadError {
    let shown = match via {
        Some(link) => format!(
            "{} leads to {}, which",
            crate::prose::path_in_prose(link),
            crate::prose::path_in_prose(path)
        ),
        None => crate::prose::path_in_prose(path).to_string(),
    };
    let file = crate::prose::path_in_prose(&verdict.ignore_file);
    // The rule's text comes from a file in the tree: its invisible characters are shown as a window shows them.
    let pattern = &verdict.pattern;
    let pattern = crate::invisible::shown_range(
        pattern,
        0,
        pattern.len(),
        crate::invisible::scan("", pattern, true),
    );
    let rule = format!("{file} line {} (`{pattern}`)", verdict.line);
    let why = match &verdict.inside {
        Some(directory) => format!(
            "{shown} is inside {}/, which {rule} ignores",
            crate::prose::path_in_prose(directory)
        ),
        None => format!("{shown} is ignored by {rule}"),
    };
    let setting = names.join(", ");
    ReadError::new(
        ErrorKind::Ignored,
        format!(
            "{why}; this session applies the ignore files {setting} (the host's ignore_files setting), so read-window does not read it. Read a file that is not ignored; if this one is needed, ask the user to read it or to change the setting."
        ),
    )
    .at_path(via.unwrap_or(path))
}
