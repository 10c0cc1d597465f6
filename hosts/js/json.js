// JSON with exact integers: the protocol's numbers are u64, beyond a Number's 2^53 (Node 20 has no JSON.rawJSON).

/**
 * `JSON.parse`, with an integer beyond 2^53 (a u64 such as 18446744073709551615) read as a BigInt, not rounded.
 * @param {string} text @returns {unknown} @throws {SyntaxError}
 */
export function parseJson(text) {
  const big = new Map();
  // Each long integer literal outside strings is swapped for a tag, parsed, then the tags for BigInts.
  const tagged = text.replace(/"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![.\deE])/g, (token) => {
    if (token.startsWith('"') || Number.isSafeInteger(Number(token))) return token;
    const tag = `\u0000bigint${big.size}`;
    big.set(tag, BigInt(token));
    return JSON.stringify(tag);
  });
  return big.size === 0 ? JSON.parse(text) : JSON.parse(tagged, (_key, value) => (big.has(value) ? big.get(value) : value));
}

/** `JSON.stringify` that writes a BigInt as a plain integer (`"null"` for undefined). @returns {string} */
export function toJson(value) {
  const text = JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? `\u0000bigint:${item}` : item));
  return text === undefined ? 'null' : text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}
