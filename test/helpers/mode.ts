/**
 * What a test needs to be mode-aware. The package says its errors in two ways: development builds
 * and Node give the full text (``Expected `maxDelay` to be a finite number >= 1, got -5``, a
 * did-you-mean, the factory to import); production bundles give the option and a stable code
 * (`` `maxDelay`: ERR_RS_INVALID_VALUE … ``), or a `ResilientSocketError`'s code alone. The class and
 * the code are the same in both.
 *
 * `npm test` runs the sources as development builds do; `npm run test:production`
 * (vitest.production.config.ts) replaces `process.env.NODE_ENV` with "production" in the sources
 * and the tests alike, this file included, so {@link PRODUCTION} says which run this is. The browser
 * tests ask {@link pageIsProduction} which flavour a page loads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** Whether the code under test says production messages (`npm run test:production`). */
export const PRODUCTION: boolean = process.env.NODE_ENV === 'production';

/** The codes of the TypeErrors and RangeErrors thrown for bad input. */
export type InputErrorCode =
  | 'ERR_RS_INVALID_TYPE'
  | 'ERR_RS_INVALID_VALUE'
  | 'ERR_RS_UNKNOWN_OPTION'
  | 'ERR_RS_NEEDS_FEATURE';

/** The production message of an input error about `name` (an option or an argument). */
export function shortMessage(name: string, code: InputErrorCode): string {
  return `\`${name}\`: ${code} (development builds say more)`;
}

/**
 * What a message is in a mode: `text` (a string or a pattern) in development, `short` in production.
 * For `toMatchObject` and `toThrow` in tests that run in both modes.
 */
export function inMode<T extends string | RegExp>(text: T, short: string, production = PRODUCTION): T | string {
  return production ? short : text;
}

/** The message of a `ResilientSocketError` in a mode: `text` in development, its code in production. */
export function errorMessage<T extends string | RegExp>(code: string, text: T, production = PRODUCTION): T | string {
  return inMode(text, code, production);
}

/** An input error as a test expects it. */
export interface ExpectedInputError {
  /** `TypeError` (wrong type, unknown option, missing feature) or `RangeError` (a refused value). */
  readonly kind: TypeErrorConstructor | RangeErrorConstructor;
  readonly code: InputErrorCode;
  /** The option or argument the message names, in both modes. */
  readonly name: string;
  /** The development message: the whole of it, or a pattern. */
  readonly message: string | RegExp;
}

/**
 * Asserts an input error, in either of two forms:
 * - `expectInputError(error, expected)`: `error` is the input error `expected` describes: its class,
 *   code and the name it is about in both modes; the development text in development, the short
 *   message in production;
 * - `expectInputError(fn, Kind, code, name, devText?)`: `fn` must throw a `Kind` (exactly, not a
 *   subclass) with `code` about `name`; in development `devText` (a string: the whole message; a
 *   pattern: what it matches), else a message naming `` `name` ``. Returns the error.
 */
export function expectInputError(error: unknown, expected: ExpectedInputError, production?: boolean): void;
export function expectInputError(
  fn: () => unknown,
  Kind: TypeErrorConstructor | RangeErrorConstructor | ErrorConstructor,
  code: string,
  name: string,
  devText?: RegExp | string,
): Error & { code?: unknown };
export function expectInputError(
  first: unknown,
  second: ExpectedInputError | TypeErrorConstructor | RangeErrorConstructor | ErrorConstructor,
  third?: boolean | string,
  name?: string,
  devText?: RegExp | string,
): (Error & { code?: unknown }) | undefined {
  if (typeof first === 'function' && typeof second === 'function') {
    let thrown: unknown;
    let threw = false;
    try {
      (first as () => unknown)();
    } catch (error) {
      thrown = error;
      threw = true;
    }
    expect(threw, 'expected the call to throw').toBe(true);
    const error = thrown as Error & { code?: unknown };
    expect(error).toBeInstanceOf(second);
    expect(error.constructor).toBe(second);
    expect(error.code).toBe(third);
    if (PRODUCTION) expect(error.message).toBe(shortMessage(name as string, third as InputErrorCode));
    else if (typeof devText === 'string') expect(error.message).toBe(devText);
    else if (devText) expect(error.message).toMatch(devText);
    else expect(error.message).toContain(`\`${name}\``);
    return error;
  }
  const expected = second as ExpectedInputError;
  const production = typeof third === 'boolean' ? third : PRODUCTION;
  expect(first).toBeInstanceOf(expected.kind);
  const { code, message } = first as { code?: unknown; message: string };
  expect(code).toBe(expected.code);
  expect(message).toContain(`\`${expected.name}\``);
  if (production) expect(message).toBe(shortMessage(expected.name, expected.code));
  else if (typeof expected.message === 'string') expect(message).toBe(expected.message);
  else expect(message).toMatch(expected.message);
  return undefined;
}

/** What a production build says for a bad option or argument `name` with `code` (as {@link shortMessage}). */
export const productionMessage = (name: string, code: string): string => shortMessage(name, code as InputErrorCode);

/** A function that throws `error`: for {@link expectInputError} on an error already caught (a rejection). */
export const rethrow = (error: unknown) => (): never => {
  throw error;
};

/** Calls `fn`, which must throw the input error `expected` describes (see {@link expectInputError}). */
export function expectThrowsInputError(fn: () => unknown, expected: ExpectedInputError, production = PRODUCTION): void {
  let threw = false;
  let error: unknown;
  try {
    fn();
  } catch (thrown) {
    threw = true;
    error = thrown;
  }
  expect(threw, `expected a ${expected.kind.name} (${expected.code}) about \`${expected.name}\``).toBe(true);
  expectInputError(error, expected, production);
}

/**
 * Whether the test page in `pageDir` loads the production flavour of the package: its import map
 * points the package's names at `/dist/` (production) or `/dist/dev/` (development). A page that
 * maps both is refused (two flavours in one page are two copies of the package).
 */
export function pageIsProduction(pageDir: string): boolean {
  const html = readFileSync(join(pageDir, 'index.html'), 'utf8');
  const map = html.match(/<script type="importmap">([\s\S]*?)<\/script>/)?.[1];
  if (map === undefined) throw new Error(`${pageDir}/index.html has no import map`);
  const { imports } = JSON.parse(map) as { imports: Record<string, string> };
  const ours = Object.entries(imports)
    .filter(([name]) => name === 'resilient-socket' || name.startsWith('resilient-socket/'))
    .map(([, path]) => path);
  const development = ours.filter((path) => path.startsWith('/dist/dev/'));
  if (ours.length === 0 || (development.length > 0 && development.length < ours.length)) {
    throw new Error(`${pageDir}/index.html must map the package to one flavour: ${ours.join(', ')}`);
  }
  return development.length === 0;
}
