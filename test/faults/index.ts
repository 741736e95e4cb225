/**
 * The fault-injection harness, for tests, benchmarks and examples: a TCP fault proxy and a
 * controllable real ws server, both on 127.0.0.1. The server is the test kit's own
 * (`resilient-socket/testing`), so our suites keep it honest.
 */

import { type BehaviourSetting, ECHO, TestWsServer } from '../../src/testing/ws-server.js';
import type { Cleanup } from '../helpers/wait.js';
import { FaultProxy } from './tcp-proxy.js';

export * from '../../src/testing/ws-server.js';
export { type Direction, FaultProxy, type FlapSchedule } from './tcp-proxy.js';

/** A started {@link TestWsServer} (an echo server unless told otherwise) that `cleanup` stops. */
export async function startTestServer(cleanup: Cleanup, behaviour: BehaviourSetting = ECHO): Promise<TestWsServer> {
  const server = cleanup.add(new TestWsServer(behaviour), (s) => s.stop());
  await server.start();
  return server;
}

/** A started echo server behind a started {@link FaultProxy}, both stopped by `cleanup`. */
export async function startProxiedServer(cleanup: Cleanup): Promise<{ server: TestWsServer; proxy: FaultProxy }> {
  const server = await startTestServer(cleanup);
  const proxy = cleanup.add(new FaultProxy(() => server.port), (p) => p.stop());
  await proxy.start();
  return { server, proxy };
}
