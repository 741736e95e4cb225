/**
 * The option names of the peers people come from (reconnecting-websocket, partysocket,
 * react-use-websocket), answered with their equivalent here when one of them reaches a socket's
 * constructor, and a few names that sound like options here but are none (`minDelay`): an unknown
 * option a did-you-mean would get wrong, or answer with a list of every option. The migration
 * guides (docs/migrate/) say the same, with the behaviour that differs.
 */

/**
 * The sentence for a peer's option `key` given to a socket here (``Unknown option `startClosed`:
 * it is reconnecting-websocket's and partysocket's: here it is `autoConnect: false` …``), if it is one.
 */
export function foreignOption(key: string): string | undefined {
  // Made on call (an error path): module-level tables would stay in every bundle that imports the core.
  const RWS = "reconnecting-websocket's and partysocket's";
  const RUW = "react-use-websocket's";
  const STURDY = "sturdy-websocket's";
  const FIRST_WINDOW =
    'the first retry window follows from `maxDelay` and `ceiling` (maxDelay / 2^(ceiling − 1)); for a fixed first delay use `backoff: fullJitter({ base, cap })`';

  // `option` → what it is called here (or why there is none): the rest of the sentence after "is".
  const EQUIVALENTS: Readonly<Record<string, string>> = {
    maxReconnectionDelay: `${RWS}: here it is \`maxDelay\`, the widest retry window in ms`,
    minReconnectionDelay: `${RWS}: here ${FIRST_WINDOW}`,
    reconnectionDelayGrowFactor: `${RWS}: here every window doubles until \`ceiling\` failures; for another growth use a \`backoff\` policy`,
    minUptime: `${RWS}: here it is \`stableAfter\` (ms a connection must stay open before the backoff resets)`,
    connectionTimeout: `${RWS}: here it is \`connectTimeout\``,
    maxEnqueuedMessages: `${RWS}: here it is \`buffer: { maxMessages }\` (plus \`maxBytes\`; every drop is reported by \`drop\`)`,
    startClosed: `${RWS}: here it is \`autoConnect: false\` (then \`open()\`)`,
    debug: `${RWS}: here every step is an event: listen to \`state\`, \`reconnecting\` and \`error\``,
    reconnectInterval: `${RUW}: here use \`backoff: constant({ delay })\` (or keep the jittered default, kinder to a recovering server)`,
    reconnectAttempts: `${RUW}: here it is \`maxRetries\``,
    retryOnError: `${RUW}: here every failure is retried; decide per close with \`shouldReconnect\``,
    onReconnectStop: `${RUW}: here listen to the \`giveup\` event`,
    queryParams: `${RUW}: here put them in the URL (or return the URL from a function with \`providers()\`)`,
    share: `${RUW}: here it is an option of \`useResilientSocket\` (React and Vue), not of a socket`,
    filter: `${RUW}: here it is an option of \`useResilientSocket\` (React and Vue); on a socket, filter in your \`message\` listener`,
    fromSocketIO: `${RUW}: resilient-socket speaks plain WebSocket; it has no Socket.IO transport`,
    eventSourceOptions: `${RUW}: resilient-socket has no EventSource mode`,
    onOpen: `${RUW}: here listen with \`socket.on('open', …)\` (events, not options)`,
    onClose: `${RUW}: here listen with \`socket.on('close', …)\` (events, not options)`,
    onError: `${RUW}: here listen with \`socket.on('error', …)\` (events, not options)`,
    minReconnectDelay: `${STURDY}: here ${FIRST_WINDOW}`,
    maxReconnectDelay: `${STURDY}: here it is \`maxDelay\`, the widest retry window in ms`,
    reconnectBackoffFactor: `${STURDY}: here every window doubles until \`ceiling\` failures; for another growth use a \`backoff\` policy`,
    maxReconnectAttempts: `${STURDY}: here it is \`maxRetries\``,
    allClearResetTime: `${STURDY}: here it is \`stableAfter\``,
    shouldReconnectOnClose:
      "partysocket's: here it is `shouldReconnect(close)` (by default it stops on 1002, 1003 and 1007–1010)",
    host: "partysocket's: here give the whole URL (e.g. `wss://host/parties/party/room`)",
    room: "partysocket's: here give the whole URL (e.g. `wss://host/parties/party/room`)",
    party: "partysocket's: here give the whole URL (e.g. `wss://host/parties/party/room`)",
    query: "partysocket's: here put the query in the URL (or return the URL from a function with `providers()`)",
  };

  // Names that are no option here, though they sound like one: what to use instead.
  const NOT_HERE: Readonly<Record<string, string>> = {
    minDelay: `there is no minimum delay: ${FIRST_WINDOW}`,
    initialDelay: `there is no initial delay: ${FIRST_WINDOW}`,
  };
  if (Object.hasOwn(NOT_HERE, key)) return NOT_HERE[key];
  return Object.hasOwn(EQUIVALENTS, key) ? `it is ${EQUIVALENTS[key]}` : undefined;
}
