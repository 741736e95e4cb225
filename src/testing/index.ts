/**
 * `resilient-socket/testing`: what an app needs to test its own reconnect logic deterministically.
 *
 * - {@link FlakyServer}: a scripted mock-socket server that drops, refuses, closes with codes, goes
 *   silent and comes back, with no network. It needs `mock-socket` (a dev dependency of yours),
 *   loaded by the first `new FlakyServer()`; the rest of the kit works without it.
 * - {@link until}: await a socket's next event or state, bounded, in real or fake time.
 * - {@link waitFor}: await any condition (what a server received, an app's state), the same way.
 * - {@link TestClock}: a manual clock to inject as the `clock` option.
 * - {@link TestWsServer}: a real `ws` server on 127.0.0.1 and a free port (needs `ws`).
 *
 * Node and test runners only; not meant for production bundles.
 * @packageDocumentation
 */
export { type AttemptOutcome, FlakyServer, type FlakyServerOptions } from './flaky-server.js';
export { TestClock } from './test-clock.js';
export { type UntilEvent, type UntilOptions, type UntilResult, type UntilState, until } from './until.js';
export { type WaitForOptions, waitFor } from './wait-for.js';
export {
  ACCEPT,
  type Behaviour,
  type BehaviourSetting,
  type DisconnectRecord,
  ECHO,
  type ServerConnection,
  TestWsServer,
  type UpgradeRecord,
} from './ws-server.js';
