// The chat page: one ResilientSocket to the chat server. What you type while the server is down
// is buffered by the socket (shown "queued") and sent, in order, as soon as it is back; each line
// shows "sending…" until the server's broadcast of it comes back ("delivered": no note).
// ?name=alice sets your name.
import { ResilientSocket } from 'resilient-socket';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const { wsUrl } = await (await fetch('/config.json')).json();
const url = new URL(wsUrl);
if (params.get('name')) url.searchParams.set('name', params.get('name'));

$('me').textContent = params.get('name') || 'me';

const socket = new ResilientSocket(url.href, {
  maxDelay: 5_000,
  ceiling: 5,
  stableAfter: 2_000,
  // Browsers have no ping API: an application-level ping every 10 s, answered by the server.
  heartbeat: {
    interval: 10_000,
    timeout: 5_000,
    message: '{"type":"ping"}',
    isPong: (data) => data === '{"type":"pong"}',
  },
});

/** Our own lines by their client id, and every server message id already shown. */
const mine = new Map();
const shown = new Set();
const NOTES = { queued: 'queued', sending: 'sending…', delivered: '', dropped: 'not sent' };

function badgeFor(state) {
  if (!navigator.onLine) return 'offline';
  if (state === 'open') return 'live';
  if (state === 'connecting' || state === 'reconnecting') return 'reconnecting';
  return 'offline';
}

function render() {
  const badge = badgeFor(socket.state);
  $('badge').dataset.badge = badge;
  $('badge').textContent = badge;
  const { nextRetryAt } = socket.stats;
  const parts = [socket.state];
  if (nextRetryAt !== undefined) parts.push(`retry in ${(Math.max(0, nextRetryAt - Date.now()) / 1000).toFixed(1)} s`);
  if (socket.bufferedCount > 0) parts.push(`${socket.bufferedCount} queued`);
  $('status').textContent = parts.join(' · ');
}

function line(from, text) {
  const item = document.createElement('li');
  const who = document.createElement('span');
  who.className = 'from';
  who.textContent = from;
  const body = document.createElement('span');
  body.className = 'text';
  body.textContent = text;
  const note = document.createElement('span');
  note.className = 'note';
  item.append(who, body, note);
  $('messages').append(item);
  item.scrollIntoView({ block: 'nearest' });
  return item;
}

function setStatus(item, status) {
  item.dataset.status = status;
  item.querySelector('.note').textContent = NOTES[status];
}

/** Shows a message from the server once (it may come live and again in a later welcome's history). */
function receive(message) {
  if (shown.has(message.id)) return;
  shown.add(message.id);
  const own = message.clientId === null ? undefined : mine.get(message.clientId);
  if (own) {
    own.dataset.id = message.id;
    setStatus(own, 'delivered');
    mine.delete(message.clientId);
    return;
  }
  line(message.from, message.text).dataset.id = message.id;
}

socket.on('message', (data) => {
  const frame = JSON.parse(String(data));
  if (frame.type === 'welcome') {
    $('me').textContent = frame.name;
    for (const message of frame.history) receive(message);
  } else if (frame.type === 'message') {
    receive(frame);
  } else if (frame.type === 'presence') {
    $('online').textContent = `${frame.online} online`;
  }
});
// The buffer is flushed before `open` is emitted: what was queued is now on its way.
socket.on('open', () => {
  for (const item of mine.values()) if (item.dataset.status === 'queued') setStatus(item, 'sending');
});
socket.on('drop', ({ messages }) => {
  for (const data of messages) {
    const item = mine.get(JSON.parse(String(data)).id);
    if (item) setStatus(item, 'dropped');
  }
});
socket.on('close', () => {
  $('online').textContent = ''; // who is online is unknown until the next welcome
});
socket.on('state', render);
socket.on('error', (error) => console.warn(`${error.code}: ${error.message}`));

$('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('text').value.trim();
  if (!text) return;
  $('text').value = '';
  const id = crypto.randomUUID();
  const item = line($('me').textContent, text);
  mine.set(id, item);
  const result = socket.send(JSON.stringify({ type: 'say', id, text }));
  setStatus(item, result === 'sent' ? 'sending' : result === 'buffered' ? 'queued' : 'dropped');
  render();
});

for (const action of ['crash', 'restart']) {
  $(action).addEventListener('click', () => fetch(`/api/${action}`, { method: 'POST' }));
}
addEventListener('offline', render);
addEventListener('online', () => {
  if (socket.state === 'reconnecting') socket.reconnect();
  render();
});
render();
setInterval(render, 100);
