// JSON with exact integers: the protocol's numbers are u64, beyond a Number's 2^53 (Node 20 has no JSON.rawJSON).

/** `JSON.stringify` that writes a BigInt as a plain integer (`"null"` for undefined). @returns {string} */
export function toJson(value) {
  const text = JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? `\u0000bigint:${item}` : item));
  return text === undefined ? 'null' : text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}
