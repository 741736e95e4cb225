import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BaseSocket } from '../../src/modular.js';
import { inputError } from '../../src/validation.js';
import {
  errorMessage,
  expectInputError,
  expectThrowsInputError,
  PRODUCTION,
  pageIsProduction,
  shortMessage,
} from './mode.js';

const PAGES = join(import.meta.dirname, '..', 'browser', 'pages');

describe('the mode of this run', () => {
  it('is the one the config asked for (npm run test:production sets RS_TEST_MESSAGES, which no replacement touches)', () => {
    expect(PRODUCTION).toBe(process.env.RS_TEST_MESSAGES === 'production');
  });

  it('PRODUCTION says what the sources say: a bad option gives the full text in development, the short one in production', () => {
    let error: unknown;
    try {
      new BaseSocket('ws://127.0.0.1:9', { autoConnect: false, WebSocket: class {} as never, maxRetries: -1 });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RangeError);
    expect((error as { code?: unknown }).code).toBe('ERR_RS_INVALID_VALUE');
    const { message } = error as Error;
    if (PRODUCTION) expect(message).toBe('`maxRetries`: ERR_RS_INVALID_VALUE (development builds say more)');
    else expect(message).toMatch(/^Expected `maxRetries` to be an integer >= 0/);
  });
});

describe('expectInputError', () => {
  const expected = {
    kind: RangeError,
    code: 'ERR_RS_INVALID_VALUE',
    name: 'maxDelay',
    message: 'Expected `maxDelay` to be a finite number >= 1, got -5',
  } as const;
  const development = inputError(RangeError, 'ERR_RS_INVALID_VALUE', 'maxDelay', expected.message);
  const production = inputError(RangeError, 'ERR_RS_INVALID_VALUE', 'maxDelay', '');

  it('accepts the development text in development and the short message in production', () => {
    expect(production.message).toBe(shortMessage('maxDelay', 'ERR_RS_INVALID_VALUE'));
    expectInputError(development, expected, false);
    expectInputError(production, expected, true);
    expectInputError(development, { ...expected, message: /^Expected `maxDelay`/ }, false);
  });

  it('refuses one mode’s message in the other, another class, another code, another name', () => {
    expect(() => expectInputError(production, expected, false)).toThrow();
    expect(() => expectInputError(development, expected, true)).toThrow();
    expect(() => expectInputError(development, { ...expected, kind: TypeError }, false)).toThrow();
    expect(() => expectInputError(development, { ...expected, code: 'ERR_RS_INVALID_TYPE' }, false)).toThrow();
    expect(() => expectInputError(production, { ...expected, name: 'minDelay' }, true)).toThrow();
    expect(() => expectInputError(new RangeError(expected.message), expected, false)).toThrow(); // no code
  });

  it('expectThrowsInputError refuses a call that returns', () => {
    expect(() => expectThrowsInputError(() => 1, expected, false)).toThrow(/expected a RangeError/);
    expectThrowsInputError(
      () => {
        throw production;
      },
      expected,
      true,
    );
  });

  it('errorMessage: the text in development, the code in production', () => {
    expect(errorMessage('ERR_RS_DEAD_LINK', 'No answer', false)).toBe('No answer');
    expect(errorMessage('ERR_RS_DEAD_LINK', 'No answer', true)).toBe('ERR_RS_DEAD_LINK');
  });
});

describe('pageIsProduction', () => {
  it('reads the flavour a test page loads from its import map: the socket, modular and shared pages production, the conformance page development', () => {
    expect(pageIsProduction(join(PAGES, 'socket'))).toBe(true);
    expect(pageIsProduction(join(PAGES, 'modular'))).toBe(true);
    expect(pageIsProduction(join(PAGES, 'shared'))).toBe(true);
    expect(pageIsProduction(join(PAGES, 'websocket'))).toBe(false);
  });

  it('refuses a page that maps the package to both flavours', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-mode-'));
    try {
      const map = {
        imports: { 'resilient-socket': '/dist/index.js', 'resilient-socket/websocket': '/dist/dev/websocket.js' },
      };
      writeFileSync(join(dir, 'index.html'), `<script type="importmap">${JSON.stringify(map)}</script>`);
      expect(() => pageIsProduction(dir)).toThrow(/one flavour/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
