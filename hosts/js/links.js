// Absolute links, resolved on the host (docs/hosts.md, "Absolute links"; the Rust host's `links` and `linked_line`),
// as WASI follows no link with an absolute target. The host walks a request's path through the grants by host path, maps each absolute
// target back to a guest path through the grant holding it, and hands the component the resolved path with
// `asked_via` (for the credential rules), or the `link_refusal` it words (a link out of every grant, a loop).

import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

import { MAX_SYMLINKS } from './beneath.js';
import { attempt } from './errors.js';

/**
 * `path` made absolute against the absolute guest path `base` and normalized by name, as the component does: no
 * empty or `.` names, `..` removes the name before it (and stays at `/`). @param {string} path @param {string} base
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
 * `path` moved onto a root's guest path when it lies under the path the root was given by (a pair's `given`, see
 * `normalizeGrants`: `/srv/linkroot/a.txt` is `/srv/L/a.txt` for a root given as `/srv/linkroot`, a link to
 * `/srv/L`); anything else as it is. @param {[string, string][]} pairs @param {string} path @returns {string}
 */
export function ontoGuest(pairs, path) {
  const found = deepest(pairs.filter((pair) => typeof pair.given === 'string'), path, (pair) => pair.given);
  return found === undefined ? path : found[1][0].replace(/\/+$/, '') + path.slice(found[0].length) || '/';
}

/** Guest namespaces the component guards by name (devices, process files): left to it as asked. */
const GUARDED = ['/dev', '/proc'];

/**
 * The first link on the way of the normalized guest path `current` (lstat, through the grant holding it): its guest
 * path, target (undefined if unreadable), directory and the names after it; undefined when the walk ends first.
 */
function nextLink(pairs, current) {
  if (GUARDED.some((root) => under(root, current) !== undefined)) return undefined;
  const found = deepest(pairs, current, ([guest]) => guest);
  if (found === undefined) return undefined;
  const [root, [, host], relative] = found;
  const names = relative.split('/').filter((name) => name !== '');
  let hostPath = host;
  for (let position = 0; position < names.length; position += 1) {
    hostPath = join(hostPath, names[position]);
    const stats = attempt(() => lstatSync(hostPath));
    if (stats === undefined) return undefined;
    if (!stats.isSymbolicLink()) continue; // a file in the middle: the next lstat fails
    const dir = normalize(names.slice(0, position).join('/'), root);
    const target = attempt(() => readlinkSync(hostPath, 'utf8'));
    return { link: normalize(names[position], dir), target, dir, rest: names.slice(position + 1).join('/') };
  }
  return undefined;
}

/**
 * What to hand the component for the guest path `requested` (relative to `workingDirectory`, else the first
 * grant): `{path, askedVia}`, once an absolute link was crossed the path the links lead to (a trailing `/` kept)
 * and the WIT `asked-via` list (the path asked for, normalized, then each link followed), else as asked with
 * `askedVia` undefined; or `{refusal}`, the request's `link_refusal`: `{outside: {link, target}}` for an absolute
 * link out of every grant, `'loop'` past 40 links with an absolute one among them. Never throws.
 * @param {[string, string][]} pairs Guest path and host directory. @param {string | undefined} workingDirectory
 * @param {string} requested @returns {{path: string, askedVia: string[] | undefined} | {refusal: object | string}}
 */
export function resolveAbsoluteLinks(pairs, workingDirectory, requested) {
  const asIs = { path: requested, askedVia: undefined };
  if (typeof requested !== 'string' || requested === '' || requested.includes('\0') || pairs.length === 0) return asIs;
  const asked = normalize(requested, normalize(workingDirectory ?? pairs[0][0], '/'));
  const followed = [];
  let current = asked;
  let crossed = false;
  for (let next = nextLink(pairs, current); next !== undefined; next = nextLink(pairs, current)) {
    // Past 40, the component would call a link crossed outside: the loop is told here, else left to the component.
    if (followed.length >= MAX_SYMLINKS) return crossed ? { refusal: 'loop' } : asIs;
    const { target } = next;
    if (target === undefined) break;
    followed.push(next.link);
    let resolved = normalize(target, next.dir);
    if (target.startsWith('/')) {
      const holder = deepest(pairs, resolved, ([, hostDir]) => hostDir);
      if (holder === undefined) return { refusal: { outside: { link: next.link, target } } };
      resolved = normalize(holder[2], normalize(holder[1][0], '/'));
      crossed = true;
    }
    current = normalize(next.rest, resolved);
  }
  if (!crossed) return asIs;
  const path = requested.endsWith('/') || requested.endsWith('/.') ? `${current}/` : current;
  return { path, askedVia: [asked, ...followed] };
}

/** The op each tool of a `tool_call` stands for. */
const TOOL_OPS = new Map([['read_file', 'read'], ['list_directory', 'read'], ['check_write', 'check_write']]);

/**
 * Where the JSON object `text` holds the string value of its `path` (`top`) and of its `arguments`' `path` (`args`):
 * `[start, end]`; undefined when an object in it (at any depth) gives a key twice, keys compared decoded.
 */
function pathSpans(text) {
  const [open, found, colon] = [[], {}, /\s*:/y]; // open: per object or array, its keys and the key it is under
  for (let at = 0; at < text.length; at += 1) {
    const top = open.at(-1);
    if (text[at] === '{' || text[at] === '[') open.push({ keys: text[at] === '{' && new Set(), name: top?.key });
    else if (text[at] === '}' || text[at] === ']') open.pop();
    if (text[at] !== '"') continue;
    let end = at + 1;
    while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    colon.lastIndex = end + 1;
    if (colon.test(text)) {
      const key = JSON.parse(text.slice(at, end + 1));
      if (top.keys.has(key)) return undefined;
      top.keys.add((top.key = key));
    } else if (top.key === 'path' && (open.length === 1 || (open.length === 2 && top.name === 'arguments'))) {
      found[open.length === 1 ? 'top' : 'args'] = [at, end + 1];
    }
    at = end;
  }
  return found;
}

/**
 * The request `text` as the component gets it: the string `path` of a `read`, `read_once` or `check_write` (default
 * op `read`; of a `tool_call`, `read_file`'s or `check_write`'s `arguments.path`) with no `asked_via` yet goes
 * through {@link ontoGuest} and {@link resolveAbsoluteLinks}: rewritten with `asked_via` beside it (not for
 * `check_write`), or given the `link_refusal` (for `check_write` only a link out of every grant); anything else
 * as it is, a line with a key given twice too (the component refuses it). The rewrite is spliced into the text:
 * every other byte (an `id`, a number beyond 2^53 or written `1.0`) reaches the component as sent.
 * @param {[string, string][]} pairs @param {string | undefined} workingDirectory The session config's.
 * @param {string} text @returns {string}
 */
export function linkedRequest(pairs, workingDirectory, text) {
  const request = attempt(() => JSON.parse(text)); // only its strings are read, and those exactly
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return text;
  const call = request.op === 'tool_call';
  const op = call ? TOOL_OPS.get(request.name) : request.op ?? 'read';
  const fields = call ? request.arguments : request;
  if (!['read', 'read_once', 'check_write'].includes(op) || typeof fields?.path !== 'string') return text;
  const spans = Object.hasOwn(request, 'asked_via') ? undefined : pathSpans(text);
  if (spans === undefined) return text;
  const moved = ontoGuest(pairs, fields.path);
  const resolved = resolveAbsoluteLinks(pairs, workingDirectory, moved);
  let [path, extra] = [moved, ''];
  if ('refusal' in resolved) {
    if (op === 'check_write' && resolved.refusal === 'loop') return text;
    extra = `,"link_refusal":${JSON.stringify(resolved.refusal)}`;
  } else if (resolved.path !== fields.path || resolved.askedVia !== undefined) {
    path = resolved.path;
    if (resolved.askedVia !== undefined && op !== 'check_write') extra = `,"asked_via":${JSON.stringify(resolved.askedVia)}`;
  } else {
    return text;
  }
  const [[start, end], close] = [spans[call ? 'args' : 'top'], text.lastIndexOf('}')];
  return text.slice(0, start) + JSON.stringify(path) + text.slice(end, close) + extra + text.slice(close);
}
