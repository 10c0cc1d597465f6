// Absolute links, resolved on the host: the shared rule of README.md ("Absolute links"), as the Rust host's
// `links` module implements it. WASI never follows a link whose target is absolute (this host's descriptors
// refuse to reveal one, as wasmtime does), so the component would report `/usr/share/X11/rgb.txt ->
// /etc/X11/rgb.txt` as leading outside the sandbox even with `/` granted. The host can read the target: it walks
// the requested path through the grants, maps each absolute target back to a guest path through the grant whose
// host directory holds it, and hands the component the resolved guest path (or answers `outside_sandbox` naming
// the link and its target when no grant holds it). With the resolved path goes the read request's `asked-via`
// list: the path asked for and each link the walk crossed, so the component checks its credential rules on every
// name the model asked through (a link named `.env` pointing to an absolute path is refused like the file `.env`).

import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Links followed in one resolution at most (Linux's `MAXSYMLINKS`, as the component). */
const MAX_LINK_HOPS = 40;

/** Guest namespaces the component guards by name (devices, process files): left to it as asked. */
const GUARDED = ['/dev', '/proc'];

/**
 * `path` made absolute against `base` (an absolute guest path) and normalized: no empty or `.` names, `..`
 * removes the previous name (and stays at `/`). The component's own rule.
 * @param {string} path
 * @param {string} base
 */
export function normalize(path, base) {
  const parts = [];
  const joined = (path.startsWith('/') ? '' : base).split('/').concat(path.split('/'));
  for (const part of joined) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

const isGuarded = (path) => GUARDED.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

/** The grant with the longest guest path holding `path`: `[root, host, relative]`, or null. */
function findGrant(pairs, path) {
  let best = null;
  for (const [guest, host] of pairs) {
    const root = normalize(guest, '/');
    let relative;
    if (root === '/') relative = path.replace(/^\/+/, '');
    else if (path === root) relative = '';
    else if (path.startsWith(`${root}/`)) relative = path.slice(root.length + 1);
    else continue;
    if (best === null || root.length > best[0].length) best = [root, host, relative];
  }
  return best;
}

/** The guest path of the absolute host path `target` through the grant whose host directory holds it, or null. */
function hostToGuest(pairs, target) {
  const normalized = normalize(target, '/');
  let best = null;
  for (const [guest, hostDir] of pairs) {
    const host = hostDir.replace(/\/+$/, '') || '/';
    let rest;
    if (host === '/') rest = normalized.replace(/^\/+/, '');
    else if (normalized === host) rest = '';
    else if (normalized.startsWith(`${host}/`)) rest = normalized.slice(host.length + 1);
    else continue;
    if (best === null || host.length > best[0]) best = [host.length, normalize(rest, normalize(guest, '/'))];
  }
  return best === null ? null : best[1];
}

/** The `outside_sandbox` answer for an absolute link out of every grant, in the component's words. */
function outside(requested, link, target, pairs) {
  const roots = pairs.map(([guest]) => normalize(guest, '/')).join(', ');
  const message =
    `${requested} goes through the link ${link}, which points to ${target}: outside the directories ` +
    `read-window may read (${roots}). Read the file under a granted directory instead.`;
  return {
    status: 'error',
    content_returned: false,
    text: message,
    error: { kind: 'outside_sandbox', message, path: link, suggestions: [] },
  };
}

/** The answer to a path whose links, an absolute one among them, go round in a loop (the component's words). */
function linkLoop(requested) {
  const message = `${requested} goes through more than ${MAX_LINK_HOPS} links (a link loop?); read the target directly.`;
  return {
    status: 'error',
    content_returned: false,
    text: message,
    error: { kind: 'not_found', message, suggestions: [] },
  };
}

/**
 * `path` rewritten onto a root's guest path when it lies under the path the root was given by (a pair's `given`,
 * see `normalizeGrants`): the longest given path wins, whole names at a time (`/tmp/x/linkroot/a.txt` becomes
 * `/tmp/x/L/a.txt` for a root given as `/tmp/x/linkroot`, a link to `/tmp/x/L`). Anything else as it is.
 *
 * @param {[string, string][]} pairs guest path, host directory (with `given` when a link named the root)
 * @param {unknown} path
 * @returns {unknown}
 */
export function ontoGuest(pairs, path) {
  if (typeof path !== 'string' || !path.startsWith('/')) return path;
  let best;
  for (const pair of pairs) {
    const given = typeof pair.given === 'string' ? pair.given.replace(/\/+$/, '') : undefined;
    if (given === undefined || !(path === given || path.startsWith(`${given}/`))) continue;
    if (best === undefined || given.length > best[0].length) best = [given, pair[0]];
  }
  if (best === undefined) return path;
  return best[1].replace(/\/+$/, '') + path.slice(best[0].length) || '/';
}

/**
 * What to hand the component for `requested` (a guest path): `{path, askedVia}` (the path to read: resolved when
 * absolute links were crossed, else as asked) or `{answer}` (the `outside_sandbox` error for an absolute link out
 * of every grant, or `not_found` for more than 40 links with an absolute one among them).
 *
 * `askedVia` is the WIT `asked-via` list when the path was resolved: the absolute, normalized guest path asked
 * for, then the guest path of each link the walk followed (relative or absolute), in order; undefined when the
 * path goes as asked. Never throws: a path that is not a non-empty string without NUL goes as asked.
 *
 * @param {[string, string][]} pairs guest path, host directory
 * @param {string | undefined} workingDirectory the config's working directory (default: the first grant)
 * @param {string} requested
 * @returns {{path: string, askedVia: string[] | undefined} | {answer: object}}
 */
export function resolveAbsoluteLinks(pairs, workingDirectory, requested) {
  if (typeof requested !== 'string' || requested === '' || requested.includes('\0') || pairs.length === 0) {
    return { path: requested, askedVia: undefined };
  }
  const base = normalize(workingDirectory ?? pairs[0][0], '/');
  const asked = normalize(requested, base);
  const followed = [];
  let current = asked;
  let crossed = false;
  walk: while (!isGuarded(current)) {
    const found = findGrant(pairs, current);
    if (found === null) break;
    const [root, host, relative] = found;
    const names = relative.split('/').filter((name) => name !== '');
    let hostPath = host;
    for (let position = 0; position < names.length; position += 1) {
      hostPath = join(hostPath, names[position]);
      let entry;
      try {
        entry = lstatSync(hostPath);
      } catch {
        break walk;
      }
      if (entry.isSymbolicLink()) {
        if (followed.length >= MAX_LINK_HOPS) {
          // Past an absolute link the component would see that link and call it outside the sandbox.
          if (crossed) return { answer: linkLoop(requested) };
          break walk;
        }
        let target;
        try {
          target = readlinkSync(hostPath, 'utf8');
        } catch {
          break walk;
        }
        const directory = normalize(names.slice(0, position).join('/'), root);
        const link = normalize(names.slice(0, position + 1).join('/'), root);
        const rest = names.slice(position + 1).join('/');
        followed.push(link);
        let targetGuest;
        if (target.startsWith('/')) {
          targetGuest = hostToGuest(pairs, target);
          if (targetGuest === null) return { answer: outside(requested, link, target, pairs) };
          crossed = true;
        } else {
          targetGuest = normalize(target, directory);
        }
        current = rest === '' ? targetGuest : normalize(rest, targetGuest);
        continue walk;
      }
      if (position + 1 < names.length) {
        let isDirectory = false;
        try {
          isDirectory = statSync(hostPath).isDirectory();
        } catch {
          isDirectory = false;
        }
        if (!isDirectory) break walk;
      }
    }
    break;
  }
  if (!crossed) return { path: requested, askedVia: undefined };
  const path = requested.endsWith('/') || requested.endsWith('/.') ? `${current}/` : current;
  return { path, askedVia: [asked, ...followed] };
}
