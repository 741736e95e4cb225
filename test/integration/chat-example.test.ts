import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type ChatMessage, type ChatServer, startChatServer } from '../../examples/chat/server.js';
import { main } from '../../src/cli/main.js';
import { ResilientSocket } from '../../src/node.js';
import { fakeProcess } from '../helpers/cli-io.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// The chat example's server with two Node ResilientSocket clients: the server crashes and comes
// back on the same port, and what both typed during the outage arrives exactly once, in order.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

interface Welcome {
  readonly type: 'welcome';
  readonly name: string;
  readonly history: ChatMessage[];
}

function chatClient(server: ChatServer, name: string, gate: () => Promise<void> = async () => {}) {
  const url = `${server.wsUrl}?name=${name}`;
  // The URL provider runs before every attempt; the gate lets a test hold this client back.
  const socket = new ResilientSocket(
    async () => {
      await gate();
      return url;
    },
    { maxDelay: 400, ceiling: 3, stableAfter: 200 },
  );
  cleanup.add(socket, (s) => s.close());
  const live: ChatMessage[] = [];
  const welcomes: Welcome[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type: string };
    if (frame.type === 'message') live.push(frame as ChatMessage);
    if (frame.type === 'welcome') welcomes.push(frame as Welcome);
  });
  return {
    socket,
    live,
    welcomes,
    say: (text: string) => socket.send(JSON.stringify({ type: 'say', id: `${name}:${text}`, text })),
    /** `from: text` of what arrived live. */
    get heard() {
      return live.map((m) => `${m.from}: ${m.text}`);
    },
  };
}

const lines = (messages: readonly ChatMessage[]) => messages.map((m) => `${m.from}: ${m.text}`);

describe('chat example server', () => {
  it('delivers what two clients typed during a restart exactly once, in order, after recovery', async () => {
    const server = cleanup.add(await startChatServer(), (s) => s.stop());
    let release: () => void = () => {};
    let held: Promise<void> = Promise.resolve();
    const alice = chatClient(server, 'alice', () => held);
    const bob = chatClient(server, 'bob');
    await waitFor(() => alice.socket.state === 'open' && bob.socket.state === 'open', 3_000, 'both clients open');

    expect(alice.say('hello')).toBe('sent');
    await waitFor(() => bob.live.length === 1, 2_000, 'bob to hear alice');
    expect(bob.say('hi')).toBe('sent');
    await waitFor(() => alice.live.length === 2 && bob.live.length === 2, 2_000, 'both to hear both');
    expect(alice.heard).toEqual(['alice: hello', 'bob: hi']);
    expect(alice.live[0]?.clientId).toBe('alice:hello');

    // Alice will come back only once bob is back, so that bob hears her queued lines live.
    held = new Promise((resolve) => {
      release = resolve;
    });
    await server.crash();
    await waitFor(
      () => alice.socket.state !== 'open' && bob.socket.state !== 'open',
      2_000,
      'both clients to notice the crash',
    );
    const typed = { alice: ['a1', 'a2', 'a3'], bob: ['b1', 'b2'] };
    expect(typed.alice.map((text) => alice.say(text))).toEqual(['buffered', 'buffered', 'buffered']);
    expect(typed.bob.map((text) => bob.say(text))).toEqual(['buffered', 'buffered']);

    await server.restart();
    await waitFor(() => bob.socket.state === 'open', 3_000, 'bob to reconnect');
    await waitFor(() => bob.live.length === 4, 2_000, "bob's queued lines to be broadcast");
    expect(alice.socket.state).not.toBe('open');

    release();
    await waitFor(() => alice.socket.state === 'open', 3_000, 'alice to reconnect');
    await waitFor(() => bob.live.length === 7 && alice.live.length === 5, 2_000, "alice's queued lines to arrive", {
      describe: () => ({ alice: alice.heard, bob: bob.heard }),
    });
    await sleep(100); // nothing more may arrive

    const conversation = ['alice: hello', 'bob: hi', 'bob: b1', 'bob: b2', 'alice: a1', 'alice: a2', 'alice: a3'];
    expect(lines(server.messages)).toEqual(conversation);
    expect(bob.heard).toEqual(conversation);
    // Alice was away while bob's lines went out: she finds them in the history she gets on rejoining.
    expect(alice.heard).toEqual(['alice: hello', 'bob: hi', 'alice: a1', 'alice: a2', 'alice: a3']);
    expect(alice.welcomes).toHaveLength(2);
    expect(lines(alice.welcomes[1]?.history ?? [])).toEqual(conversation.slice(0, 4));
    expect(new Set(server.messages.map((m) => m.id)).size).toBe(conversation.length);
    expect(alice.socket.stats.dropped + bob.socket.stats.dropped).toBe(0);
  });

  it('takes plain text (a terminal client) as the message, and answers pings', async () => {
    const server = cleanup.add(await startChatServer(), (s) => s.stop());
    const raw = cleanup.add(new WebSocket(`${server.wsUrl}?name=carol`), (ws) => ws.terminate());
    const frames: string[] = [];
    raw.on('message', (data) => frames.push(String(data)));
    await waitFor(() => frames.length >= 2, 2_000, 'welcome and presence');
    expect(JSON.parse(frames[0] ?? '')).toEqual({ type: 'welcome', name: 'carol', history: [] });
    expect(JSON.parse(frames[1] ?? '')).toEqual({ type: 'presence', online: 1 });

    raw.send('{"type":"ping"}');
    raw.send('hello from a terminal');
    await waitFor(() => frames.length >= 4, 2_000, 'pong and broadcast');
    expect(frames[2]).toBe('{"type":"pong"}');
    expect(JSON.parse(frames[3] ?? '')).toMatchObject({
      type: 'message',
      from: 'carol',
      text: 'hello from a terminal',
      clientId: null,
    });
  });

  it('the resilient-socket CLI is a chat client: lines typed during a restart reach the room, in order', async () => {
    const server = cleanup.add(await startChatServer(), (s) => s.stop());
    const bob = chatClient(server, 'bob');
    await waitFor(() => bob.socket.state === 'open', 3_000, 'bob open');
    // carol types into the CLI (piped stdin, as `npx resilient-socket` would read it).
    const carol = fakeProcess();
    const exit = main(
      [`${server.wsUrl}?name=carol`, '--max-delay', '400', '--ceiling', '3', '--no-heartbeat'],
      carol.io,
    );
    await carol.waitForOutput('connected');
    carol.stdin.write('before the crash\n');
    await waitFor(() => bob.live.length === 1, 2_000, 'bob to hear carol');

    await server.crash();
    await carol.waitForOutput(/connection closed \(1006\)/);
    carol.stdin.write('during 1\nduring 2\n');
    await carol.waitForOutput('buffered "during 2"');
    await server.restart();
    await waitFor(() => server.messages.length === 3, 3_000, "carol's queued lines to reach the room", {
      describe: () => ({ room: lines(server.messages), carol: carol.stderr }),
    });
    expect(lines(server.messages)).toEqual(['carol: before the crash', 'carol: during 1', 'carol: during 2']);
    // The CLI prints what the room broadcasts (its own lines too), one frame per stdout line.
    await waitFor(
      () => carol.stdoutLines().filter((l) => l.startsWith('{"type":"message"')).length === 3,
      2_000,
      'carol sees 3',
    );

    carol.stdin.end(); // Ctrl-D: input over, everything was sent, so the CLI exits 0
    await expect(exit).resolves.toBe(0);
    expect(carol.stderr).not.toMatch(/dropped/);
  });
});
