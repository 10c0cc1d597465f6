// The host's own failures (everything else, a trap included, is an answer of the component), and a quiet `try`.

/** The component did not load or a session did not start (`kind` `"start"`): no transpile, a bad grant, ... */
export class HostError extends Error {
  /** @param {"start"} kind @param {string} message @param {{cause?: unknown}} [options] */
  constructor(kind, message, { cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'HostError';
    /** @type {"start"} */
    this.kind = kind;
  }
}

/** Thrown from `wasi:cli/exit`: a guest that exits must not end the host process (a trap, to the session). */
export class GuestExit extends Error {}
/** `f()`, or undefined when it throws (what failed is the caller's answer). @template T @returns {T | undefined} */
export function attempt(f) {
  try {
    return f();
  } catch {
    return undefined;
  }
}
