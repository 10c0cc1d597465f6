//! The errors of a path that does not exist: not found, repeated misses, similar names in its directory.

use super::*;

/// Directory entries looked at for "did you mean" suggestions at most.
pub(super) const SUGGESTION_SCAN: usize = 10_000;

/// Which component of a missing path is missing, when that is not plain from the path: the missing component is
/// not the last one, or lies past a link (`/w/a/b is missing`, `/w/real/x.txt is missing, past the link /w/d,
/// which points to real`); `None` when the last component itself is missing and no link was followed.
pub(super) fn missing_detail(absolute: &str, missing: &Missing) -> Option<String> {
    let shown = crate::prose::path_in_prose(&missing.path);
    match &missing.via_link {
        Some((link, target)) => Some(format!(
            "{shown} is missing, past the link {}, which points to {}",
            crate::prose::path_in_prose(link),
            crate::prose::path_in_prose(target)
        )),
        None if missing.path != absolute => Some(format!("{shown} is missing")),
        None => None,
    }
}

/// `requested` as a repeated-miss message names it: with the path it resolved to and, in parentheses, the
/// [`missing_detail`].
pub(super) fn missing_subject(requested: &str, absolute: &str, missing: &Missing) -> String {
    match missing_detail(absolute, missing) {
        Some(detail) => format!("{} ({detail})", described(requested, absolute)),
        None => described(requested, absolute),
    }
}

/// The rules a suggested name must pass, so that a suggestion is a path the session would read: the credential
/// rules and the ignore files.
pub(super) struct Refusals<'a> {
    /// The credential deny-list and its exceptions.
    pub(super) policy: &'a CredentialPolicy,
    /// The session's ignore files.
    pub(super) ignore: &'a mut IgnoreFiles,
}

/// The not-found error for `absolute` (asked for as `requested`), naming the component that is `missing`, with up
/// to three similar names from the directory it is missing from.
pub(super) fn not_found_error<F: FileSystem + ?Sized>(
    fs: &mut F,
    refusals: &mut Refusals<'_>,
    requested: &str,
    absolute: &str,
    missing: &Missing,
) -> ReadError {
    let similar = similar_names(fs, refusals, &missing.path);
    let detail = missing_detail(absolute, missing)
        .map(|detail| format!(": {detail}"))
        .unwrap_or_default();
    let message = format!(
        "{} does not exist{detail}.{}{}",
        described(requested, absolute),
        similar.sentence(),
        tilde_sentence(requested, fs.roots())
    );
    ReadError::new(ErrorKind::NotFound, message).with_suggestions(similar.names)
}

/// The answer to the `count`-th miss of `absolute` (asked for as `requested`) in a session: checked again just
/// now, never remembered. The first is the plain not-found error; later ones say how often it was asked for; from
/// `loop_warn_at` on the message warns, and from `loop_block_at` on the read is `LoopBlocked` (with the count).
pub(super) fn missing_error<F: FileSystem + ?Sized>(
    fs: &mut F,
    config: &Config,
    refusals: &mut Refusals<'_>,
    requested: &str,
    absolute: &str,
    missing: &Missing,
    count: u32,
) -> ReadError {
    if count <= 1 {
        return not_found_error(fs, refusals, requested, absolute, missing);
    }
    let tilde = tilde_sentence(requested, fs.roots());
    let requested = &missing_subject(requested, absolute, missing);
    let similar = similar_names(fs, refusals, &missing.path);
    if count >= config.loop_block_at {
        return ReadError::new(
            ErrorKind::LoopBlocked,
            format!(
                "{MARKER_PREFIX}loop-blocked] You have asked for {requested} {count} times in this session and it still does not exist (checked again just now).{}{tilde} Stop asking for it: find the right path with a directory listing, or create the file first.",
                similar.sentence()
            ),
        )
        .with_count(count)
        .with_suggestions(similar.names);
    }
    let mut message = format!(
        "{requested} still does not exist: you asked for this missing file {count} times in this session, and it was checked again just now.{}{tilde}",
        similar.sentence()
    );
    if count >= config.loop_warn_at {
        message.push_str(&format!(
            " Asking again will not make it appear: ask {} will be blocked. Find the right path with a directory listing, or create the file first.",
            config.loop_block_at
        ));
    }
    ReadError::new(ErrorKind::NotFound, message).with_suggestions(similar.names)
}

/// The names offered instead of a missing one: the directory they are in and the names, best first.
pub(super) struct SimilarNames {
    /// The directory listed (a guest path).
    pub(super) parent: String,
    /// At most three names of `parent`, best first; empty when none look alike or it cannot be listed.
    pub(super) names: Vec<String>,
    /// A name of `parent` that differs from the missing one only by invisible or look-alike characters or by
    /// normalization, and that difference in words ([`crate::names::confusable_difference`]).
    pub(super) confusable: Option<(String, String)>,
    /// Names of `parent` skipped because they are not valid UTF-8.
    pub(super) not_utf8: usize,
}

impl SimilarNames {
    /// The names as a sentence with a leading space (` Similar names in /w: a.txt, b.txt.`); empty without names.
    pub(super) fn sentence(&self) -> String {
        let mut sentence = String::new();
        if let Some((name, difference)) = &self.confusable {
            sentence.push_str(&format!(
                " {}/{} looks the same but is another name: {difference}. Ask for that exact name to read it.",
                self.parent.trim_end_matches('/'),
                shown_name(name)
            ));
        }
        if !self.names.is_empty() {
            sentence.push_str(&format!(
                " Similar names in {}: {}.",
                self.parent,
                self.names
                    .iter()
                    .map(|name| shown_name(name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        match self.not_utf8 {
            0 => {}
            1 => sentence.push_str(&format!(
                " 1 name in {} is not valid UTF-8 and cannot be asked for by name.",
                self.parent
            )),
            count => sentence.push_str(&format!(
                " {count} names in {} are not valid UTF-8 and cannot be asked for by name.",
                self.parent
            )),
        }
        sentence
    }
}

/// Up to three names in the directory of `absolute` that look like its last component (none when the directory
/// cannot be listed), leaving out every name `refusals` refuses: a suggestion is a path the session would read.
pub(super) fn similar_names<F: FileSystem + ?Sized>(
    fs: &mut F,
    refusals: &mut Refusals<'_>,
    absolute: &str,
) -> SimilarNames {
    let (parent, name) = match absolute.rsplit_once('/') {
        Some(("", name)) => ("/", name),
        Some((parent, name)) => (parent, name),
        None => ("/", absolute),
    };
    let mut similar = SimilarNames {
        parent: parent.to_string(),
        names: Vec::new(),
        confusable: None,
        not_utf8: 0,
    };
    let roots = fs.roots().to_vec();
    if let Some((root, relative)) = find_root(&roots, parent) {
        if let Ok(listing) = fs.list_directory(root, &relative, SUGGESTION_SCAN) {
            similar.not_utf8 = listing.not_utf8;
            let directory = parent.trim_end_matches('/');
            let mut readable = |entry: &String| {
                let path = format!("{directory}/{entry}");
                refusals.policy.matching_rule(&path).is_none()
                    && !is_ignored(fs, refusals.ignore, root, &path)
            };
            let entries = listing.names;
            similar.confusable = entries.iter().find_map(|entry| {
                let difference = confusable_difference(name, entry)?;
                readable(entry).then(|| (entry.clone(), difference))
            });
            let mut scored: Vec<(f64, String)> = entries
                .into_iter()
                .map(|entry| {
                    // A name that differs only in case (Unicode-aware) is as similar as can be.
                    let score = if name.to_lowercase() == entry.to_lowercase() {
                        1.0
                    } else {
                        strsim::normalized_damerau_levenshtein(name, &entry)
                    };
                    (score, entry)
                })
                .filter(|(score, _)| *score >= 0.6)
                .filter(|(_, entry)| readable(entry))
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            similar.names = scored.into_iter().take(3).map(|(_, entry)| entry).collect();
        }
    }
    similar
}

/// True when the session's ignore files ignore `path` (an entry of a listed directory under grant `root`).
fn is_ignored<F: FileSystem + ?Sized>(
    fs: &mut F,
    ignore: &mut IgnoreFiles,
    root: usize,
    path: &str,
) -> bool {
    if ignore.is_off() {
        return false;
    }
    let relative = find_root(fs.roots(), path).map(|(_, relative)| relative);
    let is_dir = relative
        .and_then(|relative| fs.stat(root, &relative).ok())
        .is_some_and(|stat| stat.kind == FileKind::Directory);
    ignore.verdict(fs, path, is_dir).is_some()
}
