// Absolute links, resolved on the host (docs/protocol.md; the Rust host's `links` module and `linked_line`). WASI
// never follows a link whose target is absolute (this host's descriptors do not even reveal one, as wasmtime), so
// the component would call `/usr/share/X11/rgb.txt -> /etc/X11/rgb.txt` outside the sandbox even with `/` granted.
// The host reads the target: it walks the path through the grants, maps each absolute target back to a guest path
// through the grant whose host directory holds it, and hands the component the resolved path with `asked_via` (the
// path asked for and each link crossed, for the credential rules), or answers `outside_sandbox` itself.

import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { parseJson, toJson } from './json.js';

/** Links followed in one resolution at most (Linux's `MAXSYMLINKS`, as the component). */
const MAX_LINK_HOPS = 40;

/**
 * `path` made absolute against the absolute guest path `base` and normalized (the component's rule): no empty or
 * `.` names, `..` removes the name before it (and stays at `/`).
 * @param {string} path
 * @param {string} base
 * @returns {string}
 */
export function normalize(path, base) {
  const parts = [];
  for (const part of (path.startsWith('/') ? '' : base).split('/').concat(path.split('/'))) {
    if (part === '..') parts.pop();
    else if (part !== '' && part !== '.') parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** What of `path` lies under the normalized `root`: `''` for the root itself, undefined when not under it. */
function under(root, path) {
  if (root === '/') return path.slice(1);
  if (path === root) return '';
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
}

/** The pair whose root (`rootOf(pair)`, normalized) holds `path` deepest: `[root, pair, rest]`, or undefined. */
function deepest(pairs, path, rootOf) {
  let best;
  for (const pair of pairs) {
    const root = normalize(rootOf(pair), '/');
    const rest = under(root, path);
    if (rest !== undefined && !(best?.[0].length >= root.length)) best = [root, pair, rest];
  }
  return best;
}

/** An error answer of the walk, in the component's words and shape. */
function refusal(kind, message, path) {
  return { status: 'error', content_returned: false, text: message, error: { kind, message, ...path, suggestions: [] } };
}

/**
 * `path` rewritten onto a root's guest path when it lies under the path the root was given by (a pair's `given`,
 * see `normalizeGrants`: `/tmp/x/linkroot/a.txt` is `/tmp/x/L/a.txt` for a root given as the link `/tmp/x/linkroot`
 * to `/tmp/x/L`); anything else as it is.
 * @param {[string, string][]} pairs Guest path and host directory (with `given` when a link named the root).
 * @param {string} path
 * @returns {string}
 */
export function ontoGuest(pairs, path) {
  const found = deepest(pairs.filter((pair) => typeof pair.given === 'string'), path, (pair) => pair.given);
  return found === undefined ? path : found[1][0].replace(/\/+$/, '') + path.slice(found[0].length) || '/';
}

/**
 * What to hand the component for the guest path `requested`: `{path, askedVia}` (the path resolved when an absolute
 * link was crossed, with the WIT `asked-via` list: the path asked for, absolute and normalized, and each link
 * followed, in order; else as asked, `askedVia` undefined), or `{answer}`: `outside_sandbox` for an absolute link out
 * of every grant, `not_found` for more than 40 links with an absolute one among them. Never throws.
 * @param {[string, string][]} pairs Guest path and host directory.
 * @param {string | undefined} workingDirectory The config's working directory (default: the first grant).
 * @param {string} requested
 * @returns {{path: string, askedVia: string[] | undefined} | {answer: object}}
 */
export function resolveAbsoluteLinks(pairs, workingDirectory, requested) {
  if (typeof requested !== 'string' || requested === '' || requested.includes('\0') || pairs.length === 0) {
    return { path: requested, askedVia: undefined };
  }
  const asked = normalize(requested, normalize(workingDirectory ?? pairs[0][0], '/'));
  const followed = [];
  let current = asked;
  let crossed = false;
  // The component guards /dev and /proc by name: left to it as asked.
  walk: while (under('/dev', current) === undefined && under('/proc', current) === undefined) {
    const found = deepest(pairs, current, ([guest]) => guest);
    if (found === undefined) break;
    const [root, [, host], relative] = found;
    const names = relative.split('/').filter((name) => name !== '');
    for (let position = 0, hostPath = host; position < names.length; position += 1) {
      hostPath = join(hostPath, names[position]);
      let target;
      try {
        if (!lstatSync(hostPath).isSymbolicLink()) {
          if (position + 1 < names.length && !statSync(hostPath).isDirectory()) break walk;
          continue;
        }
        if (followed.length >= MAX_LINK_HOPS) {
          if (!crossed) break walk; // past an absolute link, the component would call that link outside
          const message = `${requested} goes through more than ${MAX_LINK_HOPS} links (a link loop?); read the target directly.`;
          return { answer: refusal('not_found', message, {}) };
        }
        target = readlinkSync(hostPath, 'utf8');
      } catch {
        break walk;
      }
      const link = normalize(names.slice(0, position + 1).join('/'), root);
      followed.push(link);
      let targetGuest = normalize(target, normalize(names.slice(0, position).join('/'), root));
      if (target.startsWith('/')) {
        const holder = deepest(pairs, normalize(target, '/'), ([, hostDir]) => hostDir);
        if (holder === undefined) {
          const roots = pairs.map(([guest]) => normalize(guest, '/')).join(', ');
          const message =
            `${requested} goes through the link ${link}, which points to ${target}: outside the directories ` +
            `read-window may read (${roots}). Read the file under a granted directory instead.`;
          return { answer: refusal('outside_sandbox', message, { path: link }) };
        }
        targetGuest = normalize(holder[2], normalize(holder[1][0], '/'));
        crossed = true;
      }
      const rest = names.slice(position + 1).join('/');
      current = rest === '' ? targetGuest : normalize(rest, targetGuest);
      continue walk;
    }
    break;
  }
  if (!crossed) return { path: requested, askedVia: undefined };
  const path = requested.endsWith('/') || requested.endsWith('/.') ? `${current}/` : current;
  return { path, askedVia: [asked, ...followed] };
}

/**
 * A request on its way to the component (the Rust host's `linked_line`): a JSON object whose op (default `read`) is
 * `read`, `read_once` or `check_write`, with a string `path` and no `asked_via` yet, has its path put through
 * {@link ontoGuest} and {@link resolveAbsoluteLinks}, and `asked_via` added (not for `check_write`); anything else
 * goes as it is.
 * @param {[string, string][]} pairs Guest path and host directory.
 * @param {string | undefined} workingDirectory The working directory of the session's config.
 * @param {string} text The request.
 * @returns {{text: string} | {answer: string}} The request to hand on, or the walk's answer (the request's `id`
 *   first); for `check_write` only an `outside_sandbox` one.
 */
export function linkedRequest(pairs, workingDirectory, text) {
  let request;
  try {
    request = parseJson(text);
  } catch {
    return { text };
  }
  if (typeof request !== 'object' || request === null || typeof request.path !== 'string') return { text };
  const op = request.op ?? 'read';
  if (!['read', 'read_once', 'check_write'].includes(op) || Object.hasOwn(request, 'asked_via')) return { text };
  const resolved = resolveAbsoluteLinks(pairs, workingDirectory, ontoGuest(pairs, request.path));
  if ('answer' in resolved) {
    if (op === 'check_write' && resolved.answer.error.kind !== 'outside_sandbox') return { text };
    return { answer: toJson({ ...(Object.hasOwn(request, 'id') ? { id: request.id } : {}), ...resolved.answer }) };
  }
  if (resolved.path === request.path && resolved.askedVia === undefined) return { text };
  request.path = resolved.path;
  if (resolved.askedVia !== undefined && op !== 'check_write') request.asked_via = resolved.askedVia;
  return { text: toJson(request) };
}
