// The runtime smoke suite's app: plain JavaScript that Node, Bun and Deno all run, importing the
// package by name from the packed tarball installed beside it (with or without `ws`), as a user's
// app would. It runs each check against the servers the driver hosts (test/runtimes/servers.ts)
// and prints one JSON line per check: {"check": name, "ok": boolean, "detail": …}. It never calls
// process.exit: the driver also checks that the process ends by itself once everything is closed.
//
// RS_SMOKE (JSON): { echo, silent, reliable, refused } URLs, and `pings`: whether this runtime,
// as installed, has a WebSocket that can ping (ws installed, or Bun, whose ws is built in); `none`:
// it has no WebSocket at all (Node 20 without ws), and only the error that says so is checked.

import { delivery, ResilientSocket } from 'resilient-socket';
import { TestClock, until, waitFor } from 'resilient-socket/testing';
import { ResilientWebSocket } from 'resilient-socket/websocket';

const env = JSON.parse(process.env.RS_SMOKE ?? '{}');
const warnings = [];
process.on('warning', (warning) => warnings.push(warning.code ?? warning.name));

const open = [];
/** A socket closed at the end whatever happened. */
const track = (socket) => {
  open.push(socket);
  socket.on?.('error', () => undefined); // errors are what several checks provoke
  return socket;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let failed = 0;
async function check(name, run) {
  let ok = false;
  let detail;
  let timer;
  try {
    detail = await Promise.race([
      run(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out after 10 s')), 10_000);
      }),
    ]);
    ok = true;
  } catch (error) {
    detail = error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
  if (!ok) failed++;
  console.log(JSON.stringify({ check: name, ok, detail: detail ?? null }));
}

function expectEqual(actual, expected, what) {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

const bytesOf = async (data) =>
  Array.from(
    data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : typeof Blob !== 'undefined' && data instanceof Blob
        ? new Uint8Array(await data.arrayBuffer())
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  );

if (env.none) {
  await check('no WebSocket: ERR_RS_NO_WEBSOCKET at construction says to install ws', async () => {
    try {
      new ResilientSocket(env.echo);
    } catch (error) {
      expectEqual(error.code, 'ERR_RS_NO_WEBSOCKET', 'code');
      if (!/npm install ws/.test(error.message)) throw new Error(`message: ${error.message}`);
      return error.message;
    }
    throw new Error('constructed without a WebSocket');
  });
  console.log(JSON.stringify({ done: true, failed }));
  process.exitCode = failed ? 1 : 0;
} else {
  await runChecks();
}

async function runChecks() {
  await check('reconnect: messages queued while down are flushed in order after the server restarts', async () => {
    const socket = track(new ResilientSocket(env.echo, { maxDelay: 200, ceiling: 3 }));
    const received = [];
    socket.on('message', (data) => received.push(String(data)));
    await until(socket, 'open');
    socket.send('restart:300'); // the server drops every connection and is down for 300 ms
    await until(socket, 'reconnecting');
    const queued = ['a', 'b', 'c'].map((text) => socket.send(text));
    expectEqual(queued, ['buffered', 'buffered', 'buffered'], 'send() while down');
    await until(socket, 'open', { within: 5_000 });
    await waitFor(() => received.length >= 3, { within: 2_000 });
    expectEqual(received, ['a', 'b', 'c'], 'echoes after the restart');
    socket.close();
    return { attempts: socket.stats.attempts };
  });

  await check('close codes: an application code and its reason, as the server sent them', async () => {
    const socket = track(new ResilientSocket(env.echo, { maxDelay: 50, ceiling: 2 }));
    await until(socket, 'open');
    socket.send('close:4001:bye');
    const close = await until(socket, 'close');
    expectEqual([close.code, close.reason], [4001, 'bye'], 'close');
    await until(socket, 'open'); // 4001 is retried
    socket.close();
  });

  await check('close codes: a policy close (1008) is final', async () => {
    const socket = track(new ResilientSocket(env.echo, { maxDelay: 50, ceiling: 2 }));
    await until(socket, 'open');
    socket.send('close:1008:policy');
    const giveup = await until(socket, 'giveup');
    expectEqual([giveup.error.code, socket.state], ['ERR_RS_FATAL_CLOSE', 'closed'], 'giveup');
  });

  await check('close codes: a refused connection is 1006 and fails at once (not at connectTimeout)', async () => {
    const socket = track(new ResilientSocket(env.refused, { maxDelay: 50, ceiling: 2, maxRetries: 0 }));
    const closes = [];
    const errors = [];
    socket.on('close', ({ code }) => closes.push(code));
    socket.on('error', (error) => errors.push(error));
    await until(socket, 'giveup', { within: 5_000 });
    expectEqual(closes, [1006], 'close codes');
    const error = errors[0];
    expectEqual(error?.code, 'ERR_RS_CONNECTION_FAILED', 'error code');
    if (!/^Connection attempt 1 failed \(close code 1006\)(: \S.*)?$/.test(error.message)) {
      throw new Error(`message: ${JSON.stringify(error.message)}`);
    }
    return error.message;
  });

  await check('dead link: the default heartbeat and a server that goes silent', async () => {
    const clock = new TestClock();
    const socket = track(new ResilientSocket(env.silent, { clock }));
    const seen = [];
    socket.on('close', ({ code, reason }) => seen.push(`${code} ${reason}`));
    await until(socket, 'open');
    await clock.advance(30_000); // the default interval: a ping goes out (where the WebSocket can ping)
    await sleep(200); // real time for an answer; none comes
    await clock.advance(10_000); // the default timeout
    const expected = env.pings ? ['1006 heartbeat timeout'] : [];
    expectEqual(seen, expected, 'closes');
    // Without pings the default heartbeat cannot watch, and says so once, in development.
    expectEqual(warnings.includes('RS_NO_PING'), !env.pings, 'the RS_NO_PING warning');
    socket.close();
    return env.pings ? 'found dead by protocol ping' : 'not watched (no ping), as documented';
  });

  await check(
    'dead link: a configured heartbeat finds a silent server on any WebSocket (pings, else silence)',
    async () => {
      const clock = new TestClock();
      const socket = track(new ResilientSocket(env.silent, { clock, heartbeat: { interval: 1_000, timeout: 500 } }));
      const closes = [];
      socket.on('close', ({ code, reason }) => closes.push(`${code} ${reason}`));
      await until(socket, 'open');
      await clock.advance(1_000);
      await sleep(100);
      await clock.advance(500);
      expectEqual(closes, ['1006 heartbeat timeout'], 'closes');
      socket.close();
    },
  );

  await check('binary: bytes sent come back as an ArrayBuffer', async () => {
    const socket = track(new ResilientSocket(env.echo, { binaryType: 'arraybuffer' }));
    await until(socket, 'open');
    socket.send(new Uint8Array([0, 1, 254, 255]));
    const data = await until(socket, 'message');
    if (!(data instanceof ArrayBuffer)) throw new Error(`got ${Object.prototype.toString.call(data)}`);
    expectEqual(await bytesOf(data), [0, 1, 254, 255], 'bytes');
    socket.close();
  });

  await check('drop-in: ResilientWebSocket as a WebSocket (events, binary, a clean close)', async () => {
    const socket = new ResilientWebSocket(env.echo);
    open.push(socket);
    socket.binaryType = 'arraybuffer';
    const seen = [];
    await new Promise((resolve, reject) => {
      socket.onerror = (event) => reject(new Error(`error event: ${event.error?.message ?? event.type}`));
      socket.onopen = () => {
        seen.push(`open ${socket.readyState === ResilientWebSocket.OPEN}`);
        socket.send('text');
        socket.send(new Uint8Array([7, 8]));
      };
      socket.onmessage = async (event) => {
        seen.push(typeof event.data === 'string' ? event.data : (await bytesOf(event.data)).join('.'));
        if (seen.length === 3) socket.close(1000, 'done');
      };
      socket.onclose = (event) => {
        seen.push(`close ${event.code} ${event.reason} ${event.wasClean} ${socket.readyState}`);
        resolve();
      };
    });
    expectEqual(seen, ['open true', 'text', '7.8', 'close 1000 done true 3'], 'events');
  });

  await check('delivery: sendReliable() is acknowledged, and the server reaches the client reliably', async () => {
    const socket = track(new ResilientSocket(env.reliable, { delivery: delivery() }));
    const received = [];
    socket.on('message', (data) => received.push(data));
    await socket.sendReliable({ order: 1, qty: 2 });
    await waitFor(() => received.length > 0, { within: 5_000 });
    expectEqual(received, [{ got: { order: 1, qty: 2 } }], 'the server answered reliably');
    expectEqual(socket.stats.delivery.acked, 1, 'acked');
    socket.close();
  });

  await check('test kit: TestClock, until and waitFor drive a socket in fake time', async () => {
    const clock = new TestClock();
    const socket = track(new ResilientSocket(env.refused, { clock, maxDelay: 1_000, ceiling: 2, maxRetries: 2 }));
    const giveup = await until(socket, 'giveup', { advance: (ms) => clock.advance(ms), step: 50, within: 60_000 });
    expectEqual([giveup.error.code, socket.stats.attempts], ['ERR_RS_RETRIES_EXHAUSTED', 3], 'giveup');
    let flag = false;
    setTimeout(() => {
      flag = true;
    }, 20);
    await waitFor(() => flag, { within: 2_000 });
  });

  if (env.testWsServer) {
    await check('test kit: TestWsServer (ws) serves this runtime', async () => {
      const { TestWsServer, ECHO } = await import('resilient-socket/testing');
      const server = await TestWsServer.start(ECHO);
      try {
        const socket = track(new ResilientSocket(server.url));
        await until(socket, 'open');
        socket.send('hello');
        expectEqual(await until(socket, 'message'), 'hello', 'echo');
        socket.close();
      } finally {
        await server.stop();
      }
    });
  }

  for (const socket of open) socket.close();
  console.log(JSON.stringify({ done: true, failed }));
  if (failed) process.exitCode = 1;
}
