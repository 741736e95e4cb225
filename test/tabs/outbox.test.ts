/**
 * What a follower handed over and a leader did not confirm (src/tabs/outbox.ts): when another
 * tab takes the lock from a frozen leader, the messages handed to it shortly before are held
 * until that leader would refuse them, so a leader that thaws and writes them is not followed by
 * a second copy; a confirmation from the old leader still counts.
 */
import { expect, it, vi } from 'vitest';
import { FakeBrowser } from '../helpers/fake-tabs.js';
import { advance, startServer, type TestServer } from '../resilient-socket/helpers.js';
import { useSharedSockets } from './helpers.js';

const share = useSharedSockets();

/** Two tabs; the leader freezes; the follower hands `message` over at the moment it decides to take the lock. */
async function handedAtTheSteal(server: TestServer, message: string) {
  const browser = new FakeBrowser();
  const [first, second] = [browser.tab(), browser.tab()];
  const leader = share(first, server);
  const follower = share(second, server);
  await advance(20);
  const request = second.locks.request.bind(second.locks) as (...args: unknown[]) => Promise<unknown>;
  let result: string | undefined;
  vi.spyOn(second.locks, 'request').mockImplementation(((...args: unknown[]) => {
    if ((args[1] as { steal?: boolean }).steal) result = follower.send(message);
    return request(...args);
  }) as never);
  first.freeze();
  for (let i = 0; i < 100 && result === undefined; i++) await advance(10);
  return { first, leader, follower, result };
}

it('a frozen leader that thaws just after a takeover writes what it was handed; the new leader does not write it again', async () => {
  const server = startServer();
  const { first, leader, follower, result } = await handedAtTheSteal(server, 'once');
  expect(result).toBe('sent'); // handed to the frozen leader (the follower did not lead yet)
  await advance(20);
  expect(follower.role).toBe('leader');
  first.thaw(); // 20 ms old: young enough for it to write, on its old connection
  await advance(2_000);
  expect(server.received).toEqual(['once']);
  expect(leader.role).toBe('follower');
  expect(follower.bufferedCount).toBe(0);
});

it('when the old leader stays frozen, the new leader writes the message once its hold is over', async () => {
  const server = startServer();
  const { follower, result } = await handedAtTheSteal(server, 'later');
  expect(result).toBe('sent');
  await advance(300);
  expect(server.received).toEqual([]); // held: the old leader could still write it
  expect(follower.send('after')).toBe('buffered'); // waits behind it
  // Held until 0.65 s after it was handed (400 ms the old leader may still take to write it, 250
  // for its confirmation to arrive): still held at 0.6 s, by at most the 10 ms the hand took.
  await advance(290);
  expect(server.received).toEqual([]);
  await advance(1_000);
  expect(server.received).toEqual(['later', 'after']);
  expect(follower.bufferedCount).toBe(0);
});
