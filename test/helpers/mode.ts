/**
 * The build the tests run against: development (the default: every message in full) or production
 * (`process.env.NODE_ENV` defined as `'production'`, as a production bundle has it: the same checks,
 * the same error classes and codes, a short message naming the option). A test that pins message
 * text pins it in development and checks the class, the code and the option's name in both.
 */
import { expect } from 'vitest';

/** Whether the code under test is the production build's (short messages). */
export const PRODUCTION = process.env.NODE_ENV === 'production';

/** What a production build says for a bad option or argument `name` with `code`. */
export const productionMessage = (name: string, code: string): string =>
  `\`${name}\`: ${code} (development builds say more)`;

/**
 * Calls `fn`, which must throw a `Kind` (exactly: not a subclass) whose `code` is `code` and whose
 * message names `name`: in production exactly `` `name`: CODE (development builds say more) ``; in
 * development `devText` when given (a string: the whole message; a pattern: what it matches), else
 * any message with `` `name` `` in backquotes.
 * @returns the error, for further checks.
 */
export function expectInputError(
  fn: () => unknown,
  Kind: TypeErrorConstructor | RangeErrorConstructor | ErrorConstructor,
  code: string,
  name: string,
  devText?: RegExp | string,
): Error & { code?: unknown } {
  let thrown: unknown;
  let threw = false;
  try {
    fn();
  } catch (error) {
    thrown = error;
    threw = true;
  }
  expect(threw, 'expected the call to throw').toBe(true);
  const error = thrown as Error & { code?: unknown };
  expect(error).toBeInstanceOf(Kind);
  expect(error.constructor).toBe(Kind);
  expect(error.code).toBe(code);
  if (PRODUCTION) expect(error.message).toBe(productionMessage(name, code));
  else if (typeof devText === 'string') expect(error.message).toBe(devText);
  else if (devText) expect(error.message).toMatch(devText);
  else expect(error.message).toContain(`\`${name}\``);
  return error;
}

/** A function that throws `error`: what {@link expectInputError} checks, for an error already caught (a rejection). */
export const rethrow = (error: unknown) => (): never => {
  throw error;
};

/** `development` in development, `production` in production: a message each build gives. */
export function inMode(development: string, production: string): string {
  return PRODUCTION ? production : development;
}
