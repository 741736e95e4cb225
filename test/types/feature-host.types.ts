/**
 * Type tests for the host features see (`Host`, `src/core/feature.ts`; checked by `npm run
 * typecheck`, nothing here runs): features read it and act through its actions, and never write
 * its fields, the counters and their per-socket data included.
 */
import type { Host } from '../../src/core/feature.js';
import type { WebSocketLike } from '../../src/transports/websocket-like.js';

declare const host: Host;
declare const ws: WebSocketLike;

// A write on the socket is counted by the host's action, never by the feature.
host.write_(ws, 'ping');
// @ts-expect-error: the count of messages written is the host's
host.messagesOut_++;
// @ts-expect-error: per-socket data is kept with setData
host.data_ = [];
// @ts-expect-error: the state changes through the machine's funnel only
host.state_ = 'open';
// @ts-expect-error: the counters are the host's
host.attempts_ = 0;
