// Absolute links, resolved on the host (docs/protocol.md; the Rust host's `links` module and `linked_line`). WASI
// never follows a link whose target is absolute (this host's descriptors do not even reveal one, as wasmtime), so
// the component would call `/usr/share/X11/rgb.txt -> /etc/X11/rgb.txt` outside the sandbox even with `/` granted.
// The host reads the target: it walks the path through the grants, maps each absolute target back to a guest path
// through the grant whose host directory holds it, and hands the component the resolved path with `asked_via` (the
// path asked for and each link crossed, for the credential rules), or with `link_refusal` for a link out of every
// grant or a loop, which the component answers in its own words.

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
 * followed, in order; else as asked, `askedVia` undefined), or `{refusal}`, the request's `link_refusal`:
 * `{outside: {link, target}}` for an absolute link out of every grant, `'loop'` for more than 40 links with an
 * absolute one among them. Never throws.
 * @param {[string, string][]} pairs Guest path and host directory.
 * @param {string | undefined} workingDirectory The config's working directory (default: the first grant).
 * @param {string} requested
 * @returns {{path: string, askedVia: string[] | undefined} | {refusal: object | string}}
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
          return { refusal: 'loop' };
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
        if (holder === undefined) return { refusal: { outside: { link, target } } };
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

/** The op each tool of a `tool_call` stands for. */
const TOOL_OPS = { read_file: 'read', check_write: 'check_write' };

/**
 * A request on its way to the component (the Rust host's `linked_line`): a JSON object whose op (default `read`) is
 * `read`, `read_once` or `check_write` (or a `tool_call` of `read_file` or `check_write`, its `arguments.path`), with
 * a string `path` and no `asked_via` yet, has its path put through {@link ontoGuest} and
 * {@link resolveAbsoluteLinks}: rewritten with `asked_via` beside it (not for `check_write`), or given the
 * `link_refusal` the component answers (for `check_write` only a link out of every grant); anything else goes as it
 * is.
 * @param {[string, string][]} pairs Guest path and host directory.
 * @param {string | undefined} workingDirectory The working directory of the session's config.
 * @param {string} text The request.
 * @returns {string} The request to hand on.
 */
export function linkedRequest(pairs, workingDirectory, text) {
  let request;
  try {
    request = parseJson(text);
  } catch {
    return text;
  }
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return text;
  let op = request.op ?? 'read';
  let fields = request;
  if (op === 'tool_call') {
    op = Object.hasOwn(TOOL_OPS, request.name) ? TOOL_OPS[request.name] : undefined;
    fields = request.arguments;
  }
  if (!['read', 'read_once', 'check_write'].includes(op) || typeof fields !== 'object' || fields === null) return text;
  if (typeof fields.path !== 'string' || Object.hasOwn(request, 'asked_via')) return text;
  const moved = ontoGuest(pairs, fields.path);
  const resolved = resolveAbsoluteLinks(pairs, workingDirectory, moved);
  if ('refusal' in resolved) {
    if (op === 'check_write' && resolved.refusal === 'loop') return text;
    fields.path = moved;
    request.link_refusal = resolved.refusal;
    return toJson(request);
  }
  if (resolved.path === fields.path && resolved.askedVia === undefined) return text;
  fields.path = resolved.path;
  if (resolved.askedVia !== undefined && op !== 'check_write') request.asked_via = resolved.askedVia;
  return toJson(request);
}
