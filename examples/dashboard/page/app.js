// The dashboard page: one ResilientSocket on the metrics feed, a badge for the connection
// (live / reconnecting / offline), a reconnect countdown, and the latest metrics.
// Query parameters tune the backoff for experiments: ?maxDelay=5000&ceiling=5
import { ResilientSocket } from 'resilient-socket';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const numberParam = (name, fallback) => {
  const value = Number(params.get(name));
  return params.has(name) && Number.isFinite(value) && value > 0 ? value : fallback;
};

const { wsUrl } = await (await fetch('/config.json')).json();
const options = {
  maxDelay: numberParam('maxDelay', 5_000),
  ceiling: numberParam('ceiling', 5),
  stableAfter: 2_000,
  // Browsers have no ping API: the feed pushes every ~400 ms, so 3 s of silence means a dead link.
  heartbeat: { interval: 2_000, timeout: 1_000 },
};

let socket;
let lastMetricsAt;
let nextAttempt;
const cpuHistory = [];

/** live (open), reconnecting (connecting / waiting to retry) or offline (closed, gave up, no network). */
function badgeFor(state) {
  if (!navigator.onLine) return 'offline';
  if (state === 'open') return 'live';
  if (state === 'connecting' || state === 'reconnecting') return 'reconnecting';
  return 'offline';
}

function log(text) {
  const item = document.createElement('li');
  item.textContent = `${new Date().toLocaleTimeString()}  ${text}`;
  $('log').prepend(item);
  while ($('log').children.length > 8) $('log').lastElementChild.remove();
}

/** Renders everything that depends on time or state; runs 10×/s. */
function render() {
  const state = socket?.state ?? 'closed';
  const badge = badgeFor(state);
  $('badge').dataset.badge = badge;
  $('badge').textContent = badge;
  document.body.dataset.badge = badge;
  $('state').textContent = navigator.onLine ? state : `${state} (browser offline)`;
  $('toggle').textContent = state === 'closed' ? 'Connect' : 'Disconnect';

  const { nextRetryAt } = socket?.stats ?? {};
  let countdown = '';
  if (state === 'reconnecting' && nextRetryAt !== undefined) {
    countdown = `retry in ${(Math.max(0, nextRetryAt - Date.now()) / 1000).toFixed(1)} s (attempt ${nextAttempt})`;
  } else if (state === 'connecting') {
    countdown = 'connecting…';
  }
  $('countdown').textContent = countdown;
  $('age').textContent =
    lastMetricsAt === undefined ? '—' : `${((Date.now() - lastMetricsAt) / 1000).toFixed(1)} s ago`;
}

function showMetrics(metrics) {
  lastMetricsAt = Date.now();
  $('cpu').textContent = metrics.cpu.toFixed(1);
  $('rps').textContent = metrics.rps.toLocaleString('en');
  $('latency').textContent = String(metrics.latency);
  $('seq').textContent = String(metrics.seq);
  cpuHistory.push(metrics.cpu);
  if (cpuHistory.length > 120) cpuHistory.shift();
  const points = cpuHistory.map((cpu, i) => `${i + 120 - cpuHistory.length},${(40 - cpu * 0.4).toFixed(1)}`);
  $('spark-line').setAttribute('points', points.join(' '));
}

function connect() {
  socket = new ResilientSocket(wsUrl, options);
  socket.on('state', ({ previous, current, reason }) => {
    log(`${previous} → ${current} (${reason})`);
    render();
  });
  socket.on('reconnecting', ({ attempt, delay }) => {
    nextAttempt = attempt;
    log(`attempt ${attempt} in ${Math.round(delay)} ms`);
  });
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.type === 'metrics') showMetrics(message);
  });
  socket.on('error', (error) => log(`${error.code}: ${error.message}`));
}

$('toggle').addEventListener('click', () => {
  if (socket.state === 'closed') connect();
  else socket.close(1000, 'user disconnected');
  render();
});

$('outage').addEventListener('click', async () => {
  const response = await fetch('/api/outage?ms=5000', { method: 'POST' });
  log(response.ok ? 'server: feed down for 5 s' : `server: outage failed (HTTP ${response.status})`);
});

addEventListener('offline', render);
addEventListener('online', () => {
  // The network is back: retry now instead of waiting out the backoff.
  if (socket.state === 'reconnecting') socket.reconnect();
  render();
});

connect();
render();
setInterval(render, 100);
