/**
 * The subprotocols' checks with the detailed messages `ResilientSocket` has always given (in
 * development builds; production ones name the option and the code): which character is not
 * allowed, where, the duplicate's two indexes, and a long name (a credential sent as a
 * subprotocol?) shown by its start and length only. The core checks the same rules with one
 * short message (`../../core/target.ts`); the full socket and the `providers` feature (for what a
 * provider returns) use these.
 */
import {
  characters,
  describeChar,
  describeReceived,
  describeValue,
  firstNonTokenChar,
  isToken,
  rangeError,
  typeError,
} from '../../validation.js';

/** Subprotocol names up to this length are shown whole in messages; a longer one may be a token. */
const MAX_PROTOCOL_SHOWN = 32;

/**
 * A subprotocol for an error message. Names are short (`graphql-ws`, `v2.json`); where browsers
 * cannot send headers, credentials travel as subprotocols (`base64url.bearer.authorization.k8s.io.…`),
 * so a long one is shown only by its first 8 characters and its length.
 */
function showProtocol(protocol: string, note?: string): string {
  const notes = note === undefined ? [] : [note];
  let shown = protocol;
  if (protocol.length > MAX_PROTOCOL_SHOWN) {
    shown = `${protocol.slice(0, 8)}…`;
    notes.unshift(characters(protocol.length));
  }
  return notes.length === 0 ? describeValue(shown) : `${describeValue(shown)} (${notes.join(', ')})`;
}

/** Why `protocol`, which is not a subprotocol name, is not one. */
function protocolProblem(protocol: string): string {
  if (protocol === '') return 'an empty string';
  return showProtocol(protocol, `${describeChar(protocol, firstNonTokenChar(protocol))} is not allowed`);
}

const PROTOCOL_RULE = "an HTTP token (RFC 6455 §4.1: letters, digits and !#$%&'*+-.^_|~ or the backquote)";

/** The development message of a lone subprotocol `protocol` that is not a token (with a hint for ''). */
function oneProtocolText(name: string, protocol: string): string {
  let hint = '';
  if (protocol === '') {
    hint = name.endsWith('()')
      ? ' (for no subprotocol, return [] or undefined)'
      : ` (for no subprotocol, leave \`${name}\` out or pass [])`;
  }
  return `Expected \`${name}\` to be ${PROTOCOL_RULE}, got ${protocolProblem(protocol)}${hint}`;
}

/**
 * Checks concrete protocols and returns them in the form the WebSocket constructor takes. Each
 * must be a non-empty RFC 7230 token, and a list must not name one twice (RFC 6455 §4.1; the rule
 * of ws's `subprotocolRegex` and of browsers, which throw a SyntaxError otherwise). `undefined` and
 * `[]` mean no subprotocol.
 * @throws TypeError unless a string or an array of strings; RangeError for a name that is not a
 *   token, or a name listed twice.
 */
export function checkSubprotocols(name: string, value: unknown): string | string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (!isToken(value)) {
      throw rangeError(name, process.env.NODE_ENV !== 'production' ? oneProtocolText(name, value) : '');
    }
    return value;
  }
  if (!Array.isArray(value)) {
    throw typeError(
      name,
      process.env.NODE_ENV !== 'production'
        ? `Expected \`${name}\` to be a string or an array of strings, got ${describeReceived(value)}`
        : '',
    );
  }
  // Types first, then values: a wrong type anywhere is a TypeError, whatever comes before it.
  value.forEach((protocol: unknown, index) => {
    if (typeof protocol !== 'string') {
      throw typeError(
        name,
        process.env.NODE_ENV !== 'production'
          ? `Expected \`${name}\` to be a string or an array of strings, got ${describeReceived(protocol)} at index ${index}`
          : '',
      );
    }
  });
  const seen = new Map<string, number>();
  (value as string[]).forEach((protocol, index) => {
    if (!isToken(protocol)) {
      throw rangeError(
        name,
        process.env.NODE_ENV !== 'production'
          ? `Expected every entry of \`${name}\` to be ${PROTOCOL_RULE}, got ${protocolProblem(protocol)} at index ${index}`
          : '',
      );
    }
    const first = seen.get(protocol);
    if (first !== undefined) {
      throw rangeError(
        name,
        process.env.NODE_ENV !== 'production'
          ? `Expected \`${name}\` to name each subprotocol once, got ${showProtocol(protocol)} at index ${first} and ${index}`
          : '',
      );
    }
    seen.set(protocol, index);
  });
  return [...value];
}
