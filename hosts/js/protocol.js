// Requests: the session protocol of the Rust host (`host-test/src/json.rs`), with its messages. Parses requests,
// configs and the arguments of a read; `index.js` exports `parseRequest` and `parseConfig`.

import { InvalidRequestError } from './errors.js';

/** @typedef {import('./index.js').Config} Config */

const OPS = {
  read: ['path', 'offset', 'limit', 'column', 'tail', 'extract'],
  other_tool: [],
  reset_dedup: [],
  wrote: ['path'],
  check_write: ['path', 'text'],
  report_tokens: ['path', 'offset', 'lines', 'tokens'],
  token_refusal: ['path', 'offset', 'limit', 'message'],
  stats: [],
  capture_begin: ['window_chars', 'head_share', 'spill_dir', 'spill_cap_chars'],
  capture_chunk: ['text', 'base64'],
  capture_end: ['exit_status'],
};

const U64_MAX = (1n << 64n) - 1n;
const U32_MAX = 0xffff_ffffn;

export function typeName(value) {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'boolean':
      return 'a boolean';
    case 'number':
    case 'bigint':
      return 'a number';
    case 'string':
      return 'a string';
    default:
      return 'an object';
  }
}

export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value of `field` when present (null counts as absent). */
function present(map, field) {
  const value = map[field];
  return value === undefined || value === null ? undefined : value;
}

function stringField(map, field, op) {
  const value = present(map, field);
  if (value === undefined) {
    throw new InvalidRequestError(`\`${field}\` is missing: the \`${op}\` op needs a \`${field}\` (a string)`);
  }
  if (typeof value !== 'string') {
    throw new InvalidRequestError(`\`${field}\` must be a string, not ${typeName(value)}`);
  }
  return value;
}

/** A non-negative integer up to u64::MAX as a BigInt; an integral float counts as an integer. */
function toU64(field, value, max = U64_MAX) {
  let big;
  if (typeof value === 'bigint') {
    big = value;
  } else if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new InvalidRequestError(`\`${field}\` must be an integer (got ${value})`);
    big = BigInt(value);
  } else {
    throw new InvalidRequestError(`\`${field}\` must be a non-negative integer, not ${typeName(value)}`);
  }
  if (big < 0n) throw new InvalidRequestError(`\`${field}\` must not be negative (got ${value})`);
  if (big > max) {
    throw new InvalidRequestError(`\`${field}\` is beyond the largest supported value ${max} (got ${value})`);
  }
  return big;
}

function u64Field(map, field, op) {
  const value = present(map, field);
  if (value === undefined) {
    throw new InvalidRequestError(
      `\`${field}\` is missing: the \`${op}\` op needs a \`${field}\` (a non-negative integer)`,
    );
  }
  return toU64(field, value);
}

/** The valid range of each optional number of a read, in words (as json.rs words it). */
const READ_RANGES = {
  offset: "a line number from 1 (0 is read as 1) up to the file's line count",
  limit: 'a count of lines from 1 (larger values are clamped to max-lines)',
  column: 'a character position from 0 inside the first line',
  tail: 'a count of last lines from 1 to 4294967295',
};

/**
 * An optional number of a read as models send it (json.rs `lenient_u64`): null and `""` (or only spaces) are
 * absent; a string of ASCII digits is read as its integer and a note is pushed onto `notes`; a number is checked
 * by `toU64`; anything else is an `InvalidRequestError` naming the field and its valid range.
 */
/**
 * An optional boolean as models send it (json.rs `lenient_bool`): null and `""` (or only spaces) absent; the
 * strings `"true"` and `"false"` read as their boolean with a note; anything else but a boolean is an error.
 */
function lenientBool(map, field, notes) {
  const value = present(map, field);
  if (value === undefined || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return undefined;
    if (text === 'true' || text === 'false') {
      notes.push(
        `\`${field}\` was the string ${JSON.stringify(value)}; it was read as the boolean ${text}. Send booleans as JSON true or false.`,
      );
      return text === 'true';
    }
    throw new InvalidRequestError(
      `\`${field}\` must be true or false, as a JSON boolean, not the string ${JSON.stringify(value)}`,
    );
  }
  throw new InvalidRequestError(`\`${field}\` must be true or false, as a JSON boolean, not ${typeName(value)}`);
}

function lenientU64(map, field, notes) {
  const value = present(map, field);
  const range = READ_RANGES[field];
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    const digits = value.trim();
    if (digits === '') return undefined;
    if (/^[0-9]+$/.test(digits) && BigInt(digits) <= U64_MAX) {
      const n = BigInt(digits);
      notes.push(
        `\`${field}\` was the string ${JSON.stringify(value)}; it was read as the number ${n}. Send numbers as JSON numbers.`,
      );
      return n;
    }
    throw new InvalidRequestError(
      `\`${field}\` must be ${range}, as a JSON number; got the string ${JSON.stringify(value)}`,
    );
  }
  if (typeof value !== 'number' && typeof value !== 'bigint') {
    throw new InvalidRequestError(`\`${field}\` must be ${range}, as a JSON number, not ${typeName(value)}`);
  }
  try {
    return toU64(field, value);
  } catch (error) {
    if (error instanceof InvalidRequestError) {
      throw new InvalidRequestError(`${error.message} (${field} must be ${range})`);
    }
    throw error;
  }
}

function optU64(map, field) {
  const value = present(map, field);
  return value === undefined ? undefined : toU64(field, value);
}

function optU32(map, field, name = field) {
  const value = present(map, field);
  return value === undefined ? undefined : Number(toU64(name, value, U32_MAX));
}

function optBool(map, field) {
  const value = present(map, field);
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new InvalidRequestError(`\`${field}\` must be a boolean, not ${typeName(value)}`);
  return value;
}

function optString(map, field) {
  const value = present(map, field);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidRequestError(`\`${field}\` must be a string, not ${typeName(value)}`);
  return value;
}

function optStrings(map, field) {
  const value = present(map, field);
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new InvalidRequestError(`\`${field}\` must be a list of strings, not ${typeName(value)}`);
  }
  return [...value];
}

/** Refuses a key of `map` that is neither in `allowed` nor in `also` (keys every request may have). */
function rejectUnknown(map, allowed, what, also = []) {
  const extra = Object.keys(map).find((key) => !allowed.includes(key) && !also.includes(key));
  if (extra !== undefined) {
    throw new InvalidRequestError(
      `unknown field \`${extra}\` for ${what}; its fields are: ${allowed.length ? allowed.join(', ') : 'none'}`,
    );
  }
}

/**
 * A parsed request of the session protocol: `{op, id?, ...fields}` with numbers as BigInts.
 *
 * @typedef {{op: string, id?: unknown, path?: string, text?: string, message?: string,
 *   offset?: bigint, limit?: bigint, column?: bigint, lines?: bigint, tokens?: bigint}} Request
 */

/**
 * Parses one request of the session protocol (the Rust host's `read-window session` lines, as objects): `op`
 * (default `"read"`) and its fields, an optional `id` echoed in the answer.
 *
 * | op | fields |
 * | --- | --- |
 * | `read` | `path` (string), `offset`, `limit`, `column`, `tail` (optional non-negative integers; null and `""` are absent, `"40"` is read as 40 with a note in `warnings`), `extract` (optional boolean, default true: false reads a document's own bytes) |
 * | `other_tool`, `reset_dedup`, `stats` | none |
 * | `wrote` | `path` |
 * | `check_write` | `path`, `text` (string) |
 * | `report_tokens` | `path`, `offset`, `lines`, `tokens` |
 * | `token_refusal` | `path`, `offset`, `limit`, `message` (string) |
 * | `capture_begin` | `window_chars`, `head_share`, `spill_dir`, `spill_cap_chars` (all optional; checked by {@link Session#captureBegin}) |
 * | `capture_chunk` | `text` (string) or `base64` (the bytes), exactly one |
 * | `capture_end` | `exit_status` (optional integer) |
 *
 * @param {unknown} value The request object.
 * @returns {Request}
 * @throws {InvalidRequestError} Not an object, an unknown op, a missing or unknown field, a value of the wrong
 *   type, a negative or non-integral number or one beyond u64; the message names the field.
 */
export function parseRequest(value) {
  if (!isObject(value)) {
    throw new InvalidRequestError(`the request must be a JSON object with an \`op\` field, not ${typeName(value)}`);
  }
  const rawOp = present(value, 'op') ?? 'read';
  if (typeof rawOp !== 'string') throw new InvalidRequestError(`\`op\` must be a string, not ${typeName(rawOp)}`);
  const fields = Object.hasOwn(OPS, rawOp) ? OPS[rawOp] : undefined;
  if (fields === undefined) {
    throw new InvalidRequestError(
      `unknown \`op\` ${JSON.stringify(rawOp)}: expected one of ${Object.keys(OPS).join(', ')}`,
    );
  }
  rejectUnknown(value, fields, `op \`${rawOp}\``, ['op', 'id']);
  const op = rawOp;
  /** @type {Request} */
  const request = { op };
  if (Object.hasOwn(value, 'id')) request.id = value.id;
  if (fields.includes('path')) request.path = stringField(value, 'path', op);
  switch (op) {
    case 'read': {
      const notes = [];
      request.offset = lenientU64(value, 'offset', notes);
      request.limit = lenientU64(value, 'limit', notes);
      request.column = lenientU64(value, 'column', notes);
      const tail = lenientU64(value, 'tail', notes);
      if (tail !== undefined && tail > U32_MAX) {
        throw new InvalidRequestError(`\`tail\` must be ${READ_RANGES.tail} (got ${tail})`);
      }
      request.tail = tail === undefined ? undefined : Number(tail);
      request.extract = lenientBool(value, 'extract', notes);
      request.notes = notes;
      break;
    }
    case 'check_write':
      request.text = stringField(value, 'text', op);
      break;
    case 'report_tokens':
      request.offset = u64Field(value, 'offset', op);
      request.lines = u64Field(value, 'lines', op);
      request.tokens = u64Field(value, 'tokens', op);
      break;
    case 'token_refusal':
      request.offset = u64Field(value, 'offset', op);
      request.limit = u64Field(value, 'limit', op);
      request.message = stringField(value, 'message', op);
      break;
    case 'capture_begin':
      request.config = Object.fromEntries(fields.filter((key) => Object.hasOwn(value, key)).map((key) => [key, value[key]]));
      break;
    case 'capture_chunk': {
      const hasText = Object.hasOwn(value, 'text');
      const hasBase64 = Object.hasOwn(value, 'base64');
      if (hasText && hasBase64) throw new InvalidRequestError('give `text` or `base64`, not both');
      if (!hasText && !hasBase64) {
        throw new InvalidRequestError('`capture_chunk` needs `text` (a string) or `base64` (the bytes in base64)');
      }
      const given = hasText ? value.text : value.base64;
      if (typeof given !== 'string') throw new InvalidRequestError('`text` and `base64` must be strings');
      if (hasText) {
        request.bytes = new TextEncoder().encode(given);
      } else {
        const compact = given.replace(/\s+/g, '').replace(/=+$/, '');
        if (!/^[A-Za-z0-9+/]*$/.test(compact)) throw new InvalidRequestError('`base64` is not valid base64');
        request.bytes = new Uint8Array(Buffer.from(compact, 'base64'));
      }
      break;
    }
    case 'capture_end':
      request.exitStatus = value.exit_status ?? null;
      break;
    default:
      break;
  }
  return request;
}

const CONFIG_FIELDS = [
  'max_lines',
  'max_line_length',
  'budget',
  'working_directory',
  'dedup',
  'loop_warn_at',
  'loop_block_at',
  'not_found_ttl_ms',
  'deny_patterns',
  'allow_patterns',
];

const BUDGET_SHAPE = '`budget` must be {"characters": N} or {"tokens": {"cap": N, "headroom": F}}';

function parseBudget(value) {
  if (!isObject(value)) throw new InvalidRequestError(`${BUDGET_SHAPE}, not ${typeName(value)}`);
  const keys = Object.keys(value);
  if (keys.length !== 1) throw new InvalidRequestError(`${BUDGET_SHAPE}: exactly one key`);
  const [unit] = keys;
  const inner = value[unit];
  if (unit === 'characters') {
    if (inner === null || inner === undefined) {
      throw new InvalidRequestError('`budget.characters` must be a non-negative integer, not null');
    }
    return { tag: 'characters', val: Number(toU64('budget.characters', inner, U32_MAX)) };
  }
  if (unit === 'tokens') {
    if (!isObject(inner)) {
      throw new InvalidRequestError(
        `\`budget.tokens\` must be an object with optional \`cap\` and \`headroom\`, not ${typeName(inner)}`,
      );
    }
    const extra = Object.keys(inner).find((key) => key !== 'cap' && key !== 'headroom');
    if (extra !== undefined) {
      throw new InvalidRequestError(`unknown field \`${extra}\` in \`budget.tokens\`; its fields are: cap, headroom`);
    }
    const headroom = present(inner, 'headroom');
    if (headroom !== undefined && typeof headroom !== 'number') {
      throw new InvalidRequestError(`\`budget.tokens.headroom\` must be a number, not ${typeName(headroom)}`);
    }
    return { tag: 'tokens', val: { cap: optU32(inner, 'cap', 'budget.tokens.cap'), headroom } };
  }
  throw new InvalidRequestError(`${BUDGET_SHAPE}, not a \`${unit}\` key`);
}

/**
 * Converts a {@link Config} (snake_case, as in the scenario files) to the bindings' record.
 *
 * @param {Config | null | undefined} config
 * @returns {object} The jco `Config` record (camelCase, absent fields undefined).
 * @throws {InvalidRequestError} An unknown field or a value the WIT type cannot hold; the message names it.
 */
export function parseConfig(config) {
  if (config === undefined || config === null) return {};
  if (!isObject(config)) throw new InvalidRequestError(`the config must be a JSON object, not ${typeName(config)}`);
  const extra = Object.keys(config).find((key) => !CONFIG_FIELDS.includes(key));
  if (extra !== undefined) {
    throw new InvalidRequestError(`unknown config field \`${extra}\`; the fields are: ${CONFIG_FIELDS.join(', ')}`);
  }
  const budget = present(config, 'budget');
  return {
    maxLines: optU32(config, 'max_lines'),
    maxLineLength: optU32(config, 'max_line_length'),
    budget: budget === undefined ? undefined : parseBudget(budget),
    workingDirectory: optString(config, 'working_directory'),
    dedup: optBool(config, 'dedup'),
    loopWarnAt: optU32(config, 'loop_warn_at'),
    loopBlockAt: optU32(config, 'loop_block_at'),
    notFoundTtlMs: optU64(config, 'not_found_ttl_ms'),
    denyPatterns: optStrings(config, 'deny_patterns'),
    allowPatterns: optStrings(config, 'allow_patterns'),
  };
}

/**
 * The WIT `read-request` record of a parsed read request: its path and window fields, and the `askedVia` list
 * the host's walk of absolute links set (links.js; undefined when the path goes as asked).
 * @param {Request} request
 * @returns {object}
 */
export function readRequest(request) {
  return {
    path: request.path,
    offset: request.offset,
    limit: request.limit,
    column: request.column,
    tail: request.tail,
    extract: request.extract,
    askedVia: request.askedVia,
  };
}

/** `read(path, options)` or `read({path, ...options})` as a protocol request object. */
export function readArguments(pathOrRequest, options) {
  if (isObject(pathOrRequest)) {
    if (options !== undefined) {
      throw new InvalidRequestError('give the read as read(path, options) or read({path, ...options}), not both');
    }
    return { ...pathOrRequest, op: 'read' };
  }
  if (options !== undefined && options !== null && !isObject(options)) {
    throw new InvalidRequestError(`the read options must be an object, not ${typeName(options)}`);
  }
  if (options) rejectUnknown(options, ['offset', 'limit', 'column', 'tail', 'extract'], 'the read options');
  return { ...options, op: 'read', path: pathOrRequest };
}
