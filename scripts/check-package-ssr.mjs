// The server-rendering probe of the framework bindings' checks (scripts/check-package-react.mjs,
// scripts/check-package-vue.mjs): a script, ESM or CJS, that counts the WebSockets constructed and
// the timers armed while a component using the binding renders to a string, then says OK if the
// HTML is '<p>idle:true</p>' and both counts are 0 (FAIL and exit code 1 otherwise). With no timer
// left, the process exits by itself.

/**
 * The probe of one format. `imports` are the script's first lines in each format; `render(verdict)`
 * is the rest: it renders to `html`, then runs `verdict` (which restores `setTimeout` and judges).
 */
export const ssrProbe = (format, imports, render) => `${imports[format]}
let made = 0;
globalThis.WebSocket = class {
  constructor() {
    made++;
    throw new Error('a WebSocket was constructed while rendering on the server');
  }
};
const realSetTimeout = globalThis.setTimeout;
let timers = 0;
globalThis.setTimeout = (...args) => {
  timers++;
  return realSetTimeout(...args);
};
${render(`globalThis.setTimeout = realSetTimeout;
if (html === '<p>idle:true</p>' && made === 0 && timers === 0) {
  console.log('OK   [${format}] renderToString: ' + html + ', no WebSocket, no timer');
} else {
  console.error('FAIL [${format}] renderToString gave ' + JSON.stringify(html) + ', WebSockets ' + made + ', timers ' + timers);
  process.exitCode = 1;
}`)}
`;
