/**
 * What `ReliableServer` does with the copy of the Redis client its store makes for the
 * subscription, when Redis cannot be reached: `close()` ends the copy even while it is still
 * connecting (node-redis keeps a copy trying for ever, which would keep the process alive), and a
 * copy that fails to connect is closed before the next try. A stand-in client: the real one is in
 * test/integration/cluster*.test.ts.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ReliableServer, redisStore } from '../../src/server/index.js';
import { TestClock } from '../../src/testing/test-clock.js';

/** A client whose copies connect when `connect` says so, and record being closed. */
function standIn(connect: () => Promise<unknown>) {
  const copies: { destroyed: boolean }[] = [];
  const client = {
    isOpen: true,
    sendCommand: async () => new Promise(() => undefined), // Redis is away: nothing answers
    duplicate() {
      const copy = Object.assign(new EventEmitter(), {
        destroyed: false,
        connect,
        subscribe: async () => undefined,
        destroy() {
          copy.destroyed = true;
        },
      });
      copies.push(copy);
      return copy;
    },
  };
  return { client, copies };
}

const wss = () => Object.assign(new EventEmitter(), { off: EventEmitter.prototype.off });

describe("the store's copy of the client while Redis is away", () => {
  it('close() ends the copy that is still connecting', async () => {
    const { client, copies } = standIn(() => new Promise(() => undefined)); // never connects
    const server = new ReliableServer(wss(), { store: redisStore(client), clock: new TestClock() });
    server.on('error', () => undefined);
    await Promise.resolve();
    expect(copies.length).toBe(1);
    expect(copies[0]?.destroyed).toBe(false);
    await server.close();
    expect(copies[0]?.destroyed).toBe(true);
  });

  it('a copy that failed to connect is closed before the next try', async () => {
    const { client, copies } = standIn(async () => {
      throw new Error('ECONNREFUSED');
    });
    const clock = new TestClock();
    const server = new ReliableServer(wss(), { store: redisStore(client), clock });
    const errors: string[] = [];
    server.on('error', (error) => errors.push(String(error.code)));
    await clock.advance(2_500); // two more tries, a second apart
    expect(copies.length).toBeGreaterThanOrEqual(2);
    expect(copies.every((copy) => copy.destroyed)).toBe(true);
    expect(errors).toEqual(['ERR_RS_STORE_FAILED']); // told once
    await server.close();
  });
});
