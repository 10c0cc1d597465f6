// Errors: the host's failures (`HostError`) and its refusals of a malformed request or config
// (`InvalidRequestError`). `index.js` exports both.

import { errorAnswer } from './answers.js';

/** @typedef {import('./index.js').ErrorAnswer} ErrorAnswer */

/**
 * A failure on the host side of a call (as opposed to an error answer from the component).
 *
 * `kind` is `"trap"` (the component trapped or called `exit`; the session was restarted with its state lost when
 * `sessionRestarted`) or `"start"` (the component could not be loaded or a session could not be started: a
 * missing transpile, a grant that is not a directory, a config the component's types cannot hold).
 */
export class HostError extends Error {
  /**
   * @param {"trap" | "start"} kind
   * @param {string} message
   * @param {{sessionRestarted?: boolean, cause?: unknown}} [options]
   */
  constructor(kind, message, { sessionRestarted = false, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'HostError';
    /** @type {"trap" | "start"} */
    this.kind = kind;
    /** True when the session was replaced by a fresh one (it works again, with its state lost). */
    this.sessionRestarted = sessionRestarted;
  }

  /**
   * The failure in the JSON shape of the Rust host: `{status: "error", content_returned: false, error: {kind:
   * "host_error", cause, message, session_restarted}}`.
   */
  toJSON() {
    return {
      status: 'error',
      content_returned: false,
      text: this.message,
      error: { kind: 'host_error', cause: this.kind, message: this.message, session_restarted: this.sessionRestarted },
    };
  }
}

/**
 * A malformed request or config, refused before it reaches the component. `answer` is the `invalid_request`
 * error answer naming the field; session methods return it instead of throwing, `parseRequest` and the config
 * parameters of `session` and `readOnce` throw it.
 */
export class InvalidRequestError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'InvalidRequestError';
    /** @type {ErrorAnswer} */
    this.answer = errorAnswer({ kind: 'invalid-request', message, alreadyRead: undefined });
  }
}
