/**
 * How equal features and equal options share one object and one config: the factories intern equal
 * options, and resolveOptions hands sockets created alike one frozen config, whatever the order of
 * their features.
 */
import { describe, expect, it } from 'vitest';
import type { Feature } from '../../src/core/feature.js';
import { resolveOptions } from '../../src/core/resolve.js';
import { bufferPolicy } from '../../src/features/buffer-policy/buffer-policy.js';
import { handshake } from '../../src/features/handshake/handshake.js';
import { heartbeat } from '../../src/features/heartbeat/heartbeat.js';
import { resume } from '../../src/features/resume/resume.js';
import { stats } from '../../src/features/stats/stats.js';
import { upgradeRejection } from '../../src/features/upgrade-rejection/upgrade-rejection.js';
import { browserTransport } from '../../src/transports/browser.js';
import { uniqueUrl, WebSocketImpl } from '../resilient-socket/helpers.js';
import { base, setUpFeatureSockets } from './helpers.js';

setUpFeatureSockets();

describe('interning and shared configs', () => {
  it('heartbeat({ interval: 5000 }) twice is the same object; other options another', () => {
    const a = heartbeat({ interval: 5_000 });
    const b = heartbeat({ interval: 5_000 });
    expect(b).toBe(a);
    const c = heartbeat({ interval: 6_000 });
    expect(c).not.toBe(a);
    expect(heartbeat({ interval: 6_000 })).toBe(c);
    expect(heartbeat({ interval: 6_000, timeout: 1_000 })).not.toBe(c);
  });

  it('the same for the other factories with options', () => {
    const hook = () => undefined;
    expect(handshake(hook, { timeout: 1_000 })).toBe(handshake(hook, { timeout: 1_000 }));
    expect(handshake(hook, { timeout: 1_000 })).not.toBe(handshake(() => undefined, { timeout: 1_000 }));
    expect(upgradeRejection({ maxRetryAfter: 1_000 })).toBe(upgradeRejection({ maxRetryAfter: 1_000 }));
    expect(upgradeRejection({ maxRetryAfter: 1_000 })).not.toBe(upgradeRejection({ maxRetryAfter: 2_000 }));
    expect(bufferPolicy({ ttl: 1_000 })).toBe(bufferPolicy({ ttl: 1_000 }));
    expect(bufferPolicy({ ttl: 1_000 })).not.toBe(bufferPolicy({ ttl: 1_000, overflow: 'error' }));
    expect(resume({ probeTimeout: 500 })).toBe(resume({ probeTimeout: 500 }));
    // Given explicitly or by default: the same options, the same object.
    expect(heartbeat({ interval: 30_000 })).toBe(heartbeat());
    expect(stats()).toBe(stats());
  });

  it('resolveOptions: equal options and equal features share one frozen config; different ones do not', () => {
    const options = () => ({
      WebSocket: WebSocketImpl,
      maxRetries: 3,
      features: [heartbeat({ interval: 5_000 }), stats()],
    });
    const first = resolveOptions('ws://localhost:1', options(), browserTransport);
    const second = resolveOptions('ws://localhost:2', options(), browserTransport);
    expect(second.config).toBe(first.config);
    expect(Object.isFrozen(first.config)).toBe(true);
    expect(second.url).toBe('ws://localhost:2'); // per socket, not shared
    const otherFeature = resolveOptions(
      'ws://localhost:1',
      { ...options(), features: [heartbeat({ interval: 6_000 }), stats()] },
      browserTransport,
    );
    expect(otherFeature.config).not.toBe(first.config);
    const otherOption = resolveOptions('ws://localhost:1', { ...options(), maxRetries: 4 }, browserTransport);
    expect(otherOption.config).not.toBe(otherFeature.config);
    // The order the features are given in does not matter (they are sorted by rank).
    const again = resolveOptions('ws://localhost:1', { ...options(), maxRetries: 4 }, browserTransport);
    const reversed = resolveOptions(
      'ws://localhost:1',
      { ...options(), maxRetries: 4, features: [stats(), heartbeat({ interval: 5_000 })] },
      browserTransport,
    );
    expect(reversed.config).toBe(again.config);
  });

  it('sockets created alike share the config their features see (m.config_)', () => {
    const configs: object[] = [];
    const probe: Feature = { name: 'probe', rank: 1, init: (m) => void configs.push(m.config_) };
    const make = (maxRetries: number) =>
      base(uniqueUrl(), { autoConnect: false, maxRetries, features: [probe, heartbeat({ interval: 5_000 })] });
    make(3);
    make(3);
    make(4);
    expect(configs).toHaveLength(3);
    expect(configs[1]).toBe(configs[0]);
    expect(configs[2]).not.toBe(configs[0]);
  });
});
