// The shared-tabs page: one SharedSocket (resilient-socket/shared) per tab, to the same URL. The
// tabs of this browser elect a leader that holds the only connection; the others (followers) get
// every event and message through it, and their send() goes through it. The page shows this tab's
// role, the connection's state, how many connections the server has open (it tells every client),
// and a log of the lines said in any tab and of what this tab saw happen.
import { SharedSocket } from 'resilient-socket/shared';

const $ = (id) => document.getElementById(id);
const { wsUrl } = await (await fetch('/config.json')).json();
/** A short name for this tab (the server cannot tell tabs apart: they share its connection). */
const tab = Math.random().toString(36).slice(2, 6);
$('tab').textContent = tab;

const socket = new SharedSocket(wsUrl, { maxDelay: 2_000, ceiling: 5 });

function entry(kind, text) {
  const item = document.createElement('li');
  item.className = kind;
  item.textContent = text;
  $('log').append(item);
  item.scrollIntoView({ block: 'nearest' });
}

function render() {
  $('role').textContent = socket.role;
  $('role').dataset.role = socket.role;
  $('state').textContent = socket.state;
  $('state').dataset.state = socket.state;
}

socket.on('role', (role) => {
  entry('event', role === 'leader' ? 'this tab leads: it holds the connection' : 'this tab follows now');
  render();
});
socket.on('state', ({ current }) => {
  entry('event', `state: ${current}`);
  render();
});
socket.on('message', (data) => {
  const frame = JSON.parse(String(data));
  if (frame.type === 'connections') {
    $('connections').textContent = `${frame.open} open · ${frame.accepted} accepted since the server started`;
    $('connections').dataset.open = String(frame.open);
  } else if (frame.type === 'welcome') {
    entry('event', `server: connection #${frame.connection}`);
  } else if (frame.type === 'message') {
    entry('message', `[${frame.tab ?? '-'}${frame.tab === tab ? ' (this tab)' : ''}] ${frame.text}`);
  }
});
// Every tab asks for the count when it starts using the connection (a tab that joins later missed
// the server's last count): through the leader, on the one connection; the answer reaches every tab.
socket.on('open', () => socket.send('{"type":"count"}'));
socket.on('close', () => {
  $('connections').textContent = '?';
  $('connections').dataset.open = '';
});
socket.on('drop', ({ messages }) => entry('event', `${messages.length} line(s) not sent`));
socket.on('error', (error) => console.warn(`${error.code}: ${error.message}`));

$('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('text').value.trim();
  if (!text) return;
  $('text').value = '';
  const result = socket.send(JSON.stringify({ type: 'say', tab, text }));
  if (result !== 'sent') entry('event', `"${text}": ${result}`);
});

for (const action of ['crash', 'restart']) {
  $(action).addEventListener('click', () => fetch(`/api/${action}`, { method: 'POST' }));
}
$('leave').addEventListener('click', () => {
  socket.close();
  entry('event', 'this tab left (a leader hands the connection over to another tab)');
  render();
});
render();
