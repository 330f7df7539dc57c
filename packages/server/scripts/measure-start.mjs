// Measures how long an embedded server takes from the startServer() call to its first accepted
// client connection (the client has received INFO). A figure for the README, never a test.
// Run after building: node scripts/measure-start.mjs [rounds]
import { connect } from 'node:net';
import { silentLogger, startServer } from '../dist/index.js';

const rounds = Number(process.argv[2] ?? 20);

async function once() {
  const started = performance.now();
  const server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
  const listening = performance.now();
  await new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    socket.once('data', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
  const greeted = performance.now();
  await server.close();
  return { listen: listening - started, firstClient: greeted - started };
}

const results = [];
for (let i = 0; i < rounds; i++) results.push(await once());
const sorted = (key) => results.map((r) => r[key]).sort((a, b) => a - b);
const pct = (values, p) =>
  values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
for (const key of ['listen', 'firstClient']) {
  const values = sorted(key);
  console.log(
    `${key.padEnd(12)} first ${results[0][key].toFixed(2)} ms, median ${pct(values, 50).toFixed(2)} ms, p90 ${pct(values, 90).toFixed(2)} ms`,
  );
}
