import type { ResilientSocketEvents } from '../../src/socket/events.js';

/** Every event name of ResilientSocket, in declaration order (for recorders in every suite). */
export const EVENT_NAMES = [
  'state',
  'connecting',
  'open',
  'message',
  'close',
  'reconnecting',
  'stable',
  'error',
  'giveup',
  'drop',
] as const satisfies readonly (keyof ResilientSocketEvents)[];

export type EventName = (typeof EVENT_NAMES)[number];
