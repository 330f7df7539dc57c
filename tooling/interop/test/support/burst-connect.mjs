// Opens many TCP connections to a NATS server at once and reports how many received the server's
// INFO line in time. Run as its own process (the test raises its file limit); prints one JSON line.
// Connections are closed with a reset so that thousands of them leave no TIME_WAIT behind to
// exhaust the ephemeral ports other tests need.
import { connect } from 'node:net';

const [port, count, deadlineMs] = process.argv.slice(2).map(Number);
const started = performance.now();
const sockets = [];
let greeted = 0;
let failed = 0;
let slowest = 0;

const finished = new Promise((resolve) => {
  const settle = () => {
    if (greeted + failed === count) resolve();
  };
  for (let i = 0; i < count; i++) {
    const socket = connect({ port, host: '127.0.0.1' });
    sockets.push(socket);
    let text = '';
    let done = false;
    const finish = (ok) => {
      if (done) return;
      done = true;
      if (ok) {
        greeted++;
        slowest = Math.max(slowest, performance.now() - started);
      } else failed++;
      settle();
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      text += chunk;
      if (/^INFO .*\r\n/.test(text)) finish(true);
    });
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
  }
});
const timeout = new Promise((resolve) => setTimeout(resolve, deadlineMs));
await Promise.race([finished, timeout]);
const stuck = count - greeted - failed;
console.log(JSON.stringify({ greeted, failed, stuck, slowestMs: Math.round(slowest) }));
for (const socket of sockets) socket.resetAndDestroy();
process.exit(0);
