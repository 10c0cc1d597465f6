//! Stages 2 and 3 glue: the path resolved onto a preopen and guarded by name and by stat, the kind checked.

use super::*;

/// Refuses by stat what is neither a regular file nor a directory (a directory is read as its listing);
/// `/dev/null` reads as empty.
pub(super) fn check_kind(resolved: &Resolved, requested: &str) -> Result<(), ReadError> {
    match resolved.stat.kind {
        FileKind::Regular | FileKind::Directory => Ok(()),
        FileKind::CharacterDevice if resolved.path == "/dev/null" => Ok(()),
        kind => Err(ReadError::new(
            ErrorKind::SpecialFile,
            format!(
                "{} is {}; reading it could block or never end, so read-window refuses it without opening it.",
                described(requested, &resolved.path),
                kind.describe()
            ),
        )),
    }
}

/// Resolves and guards a request's path; on a missing path, the error and whether it is cacheable.
///
/// The credential rules see every name on the way: the paths the host passed before it rewrote the request
/// (`asked_via`), the path asked for, each link the walk followed and the file reached.
pub(super) fn resolve_guarded<F: FileSystem + ?Sized>(
    fs: &mut F,
    policy: &CredentialPolicy,
    ignore: &mut IgnoreFiles,
    request: &ReadRequest,
    absolute: &str,
) -> Result<Resolved, ResolveError> {
    let requested = request.path.as_str();
    check_device_name(absolute).map_err(ResolveError::Other)?;
    let roots = fs.roots().to_vec();
    if find_root(&roots, absolute).is_none() {
        return Err(ResolveError::Other(outside_error(
            requested, absolute, &roots,
        )));
    }
    for passed in &request.asked_via {
        // The refusal names the path the caller asked through, not the one the host rewrote it to.
        policy
            .check(passed)
            .map_err(|refusal| ResolveError::Other(refusal.at_path(passed)))?;
    }
    let resolved = resolve(fs, requested, absolute)?;
    check_device_name(&resolved.path).map_err(ResolveError::Other)?;
    policy.check(absolute).map_err(ResolveError::Other)?;
    for link in resolved
        .links
        .iter()
        .filter(|link| link.as_str() != absolute)
    {
        policy.check(link).map_err(ResolveError::Other)?;
    }
    if resolved.path != absolute {
        policy.check(&resolved.path).map_err(ResolveError::Other)?;
    }
    // The ignore rules judge the path asked for and the file reached (a link is judged by its own name too).
    let is_dir = resolved.stat.kind == FileKind::Directory;
    ignore
        .check(fs, absolute, is_dir, None)
        .map_err(ResolveError::Other)?;
    if resolved.path != absolute {
        ignore
            .check(fs, &resolved.path, is_dir, Some(absolute))
            .map_err(ResolveError::Other)?;
    }
    check_kind(&resolved, requested).map_err(ResolveError::Other)?;
    Ok(resolved)
}

impl Reader {
    /// The path of `prepared` resolved onto a preopen and guarded, and remembered as found (with the alias it
    /// was asked by). A missing path is checked again on every read: the memory of misses only counts them, and
    /// the count goes into the not-found error.
    pub(super) fn resolve_or_count_miss<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadRequest,
        prepared: &Prepared,
        now_ms: u64,
    ) -> Result<Resolved, ReadError> {
        let resolved = match resolve_guarded(
            fs,
            &self.policy,
            &mut self.ignore,
            request,
            &prepared.absolute,
        ) {
            Ok(resolved) => resolved,
            Err(ResolveError::NotFound(missing)) => {
                if let Some(resolved) = self.resolve_shown_name(fs, request) {
                    self.memory.found(&prepared.absolute);
                    self.memory
                        .remember_alias(&prepared.absolute, &resolved.path);
                    return Ok(resolved);
                }
                let count = self.memory.count_miss(
                    &prepared.absolute,
                    now_ms,
                    self.config.not_found_ttl_ms,
                );
                return Err(missing_error(
                    fs,
                    &self.config,
                    &mut Refusals {
                        policy: &self.policy,
                        ignore: &mut self.ignore,
                    },
                    &request.path,
                    &prepared.absolute,
                    &missing,
                    count,
                )
                .at_path(&prepared.absolute));
            }
            Err(ResolveError::Other(error)) => return Err(error.at_path(&prepared.absolute)),
        };
        self.memory.found(&prepared.absolute);
        self.memory
            .remember_alias(&prepared.absolute, &resolved.path);
        Ok(resolved)
    }

    /// The path a missing `request` stands for when it is a name as messages show it (quoted, with `\u{200b}`
    /// escapes or `<U+200B>`: [`crate::prose::unescape_shown`]) and that path resolves and passes the guards, with
    /// a warning that says so; `None` otherwise (the miss stands as asked).
    fn resolve_shown_name<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        request: &ReadRequest,
    ) -> Option<Resolved> {
        let real = crate::prose::unescape_shown(&request.path)?;
        let request_of_real = ReadRequest {
            path: real,
            ..request.clone()
        };
        let prepared = prepare(&self.config, fs, &request_of_real).ok()?;
        let resolved = resolve_guarded(
            fs,
            &self.policy,
            &mut self.ignore,
            &request_of_real,
            &prepared.absolute,
        )
        .ok()?;
        self.pending_warnings.push(format!(
            "{} does not exist as written, so {} was read: a name shown quoted with escapes holds the characters the \
             escapes name.",
            crate::prose::path_in_prose(&request.path),
            crate::prose::path_in_prose(&resolved.path)
        ));
        Some(resolved)
    }
}
