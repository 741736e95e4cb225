import { EVENT_NAMES } from '../../src/socket/events.js';

/** Every event name of ResilientSocket, in declaration order (for recorders in every suite). */
export { EVENT_NAMES };

export type EventName = (typeof EVENT_NAMES)[number];
