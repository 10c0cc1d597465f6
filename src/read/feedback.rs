//! Token feedback from the host: the real count of a returned window, and a refusal for too many tokens.

use super::*;

impl Reader {
    /// The host reports the real token count of a window it received; later windows of the file use the
    /// learned density. Errors: `InvalidRequest` when no such token-mode window was returned in this session.
    pub fn report_tokens<F: FileSystem + ?Sized>(
        &mut self,
        fs: &F,
        path: &str,
        offset: u64,
        lines: u64,
        tokens: u64,
    ) -> Result<(), ReadError> {
        if tokens == 0 {
            return Err(ReadError::invalid(
                "tokens 0 is not a count of a window; report the engine's count.",
            ));
        }
        let resolved = self.resolved_alias(fs, path);
        match self.memory.sent_estimate(&resolved, offset, lines) {
            Some(estimate) => {
                self.memory.record_density(&resolved, tokens, estimate);
                Ok(())
            }
            None => Err(ReadError::invalid(format!(
                "no token-budget window of {path} starting at line {offset} with {lines} lines was returned in this session; report the start_line and lines_returned of a result you received."
            ))),
        }
    }

    /// Parses an engine refusal ("(N tokens) exceeds maximum allowed tokens (M)") of the window `offset`/`limit`,
    /// records the file's density, and answers the window that fits: `limit` scaled by 80% of M over N, at most
    /// half of `limit` (the rule of the read-ceiling-chunk hook).
    pub fn token_refusal<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        path: &str,
        offset: u64,
        limit: u64,
        message: &str,
    ) -> Result<RetryWindow, ReadError> {
        let Some((refused, cap)) = parse_refusal(message) else {
            return Err(ReadError::invalid(
                "the message does not have the form \"(N tokens) exceeds maximum allowed tokens (M)\"; pass the engine's refusal text.",
            ));
        };
        if refused == 0 || cap == 0 || limit == 0 {
            return Err(ReadError::invalid(
                "the refusal's counts and the window's limit must be above 0.",
            ));
        }
        let offset = offset.max(1);
        let scaled = ((limit as f64) * 0.8 * (cap as f64) / (refused as f64)).floor() as u64;
        let fitting = scaled.min(limit / 2).max(1);
        let request = ReadRequest {
            path: path.to_string(),
            ..ReadRequest::default()
        };
        let prepared = prepare(&self.config, fs, &request)?;
        if let Ok(resolved) = resolve_guarded(
            fs,
            &self.policy,
            &mut self.ignore,
            &request,
            &prepared.absolute,
        ) {
            if resolved.stat.kind == FileKind::Regular {
                if let Ok(estimate) = self.estimate_lines(fs, &resolved, path, offset, limit) {
                    if estimate > 0 {
                        self.memory
                            .record_density(&resolved.path, refused, estimate);
                    }
                }
            }
        }
        Ok(RetryWindow {
            offset,
            limit: fitting,
            refused_tokens: refused,
            cap_tokens: cap,
            hint: format!(
                "The engine refused {limit} lines of {path} from line {offset} ({refused} tokens over the {cap}-token cap). Read offset={offset} limit={fitting} instead."
            ),
        })
    }

    /// Estimated tokens of `limit` whole lines from `offset`, as an engine that counts long lines whole sees them.
    pub(super) fn estimate_lines<F: FileSystem + ?Sized>(
        &mut self,
        fs: &mut F,
        resolved: &Resolved,
        requested: &str,
        offset: u64,
        limit: u64,
    ) -> Result<u64, ReadError> {
        let mut opened = self.open_with_kept_index(fs, resolved, requested, true)?;
        let io = |error: crate::error::FsError| error.into_read_error(requested);
        let estimate = {
            let scanner = &mut opened.scanner;
            let (checkpoint_line, checkpoint_offset) = opened.index.locate(offset);
            scanner.seek(checkpoint_offset);
            scanner
                .skip_lines(offset.saturating_sub(checkpoint_line))
                .map_err(io)?;
            let mut decoder = Decoder::new(opened.index.encoding());
            let mut total = 0u64;
            let last = offset
                .saturating_add(limit)
                .min(opened.index.total_lines().saturating_add(1));
            for line in offset..last {
                let mut estimator = TokenEstimator::new();
                scanner
                    .read_line(&mut |bytes| {
                        decoder.feed(bytes, &mut |piece| estimator.push_str(piece))
                    })
                    .map_err(io)?;
                decoder.finish(&mut |piece| estimator.push_str(piece));
                total += gutter_tokens(line) + estimator.tokens() + 1;
            }
            total
        };
        self.memory.positioned_reads += opened.scanner.reads();
        let view = opened.view();
        self.memory.store_file(&resolved.path, view, opened.index);
        Ok(estimate)
    }
}
