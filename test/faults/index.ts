/**
 * The fault-injection harness, for tests, benchmarks and examples: a TCP fault proxy and a
 * controllable real ws server, both on 127.0.0.1.
 */
export { type Direction, FaultProxy, type FlapSchedule } from './tcp-proxy.js';
export {
  ACCEPT,
  type Behaviour,
  type BehaviourSetting,
  type DisconnectRecord,
  ECHO,
  TestWsServer,
  type UpgradeRecord,
} from './ws-server.js';
