/**
 * The fault-injection harness, for tests, benchmarks and examples: a TCP fault proxy and a
 * controllable real ws server, both on 127.0.0.1. The server is the test kit's own
 * (`resilient-socket/testing`), so our suites keep it honest.
 */
export {
  ACCEPT,
  type Behaviour,
  type BehaviourSetting,
  type DisconnectRecord,
  ECHO,
  type ServerConnection,
  TestWsServer,
  type UpgradeRecord,
} from '../../src/testing/ws-server.js';
export { type Direction, FaultProxy, type FlapSchedule } from './tcp-proxy.js';
