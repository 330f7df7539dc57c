import { readFile } from 'node:fs/promises';
import { get } from 'node:https';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuthHeader,
  type DashboardServer,
  MONITORING_CREDENTIALS,
  startDashboardServer,
} from './dashboard-server.js';

/** GET over HTTPS trusting the test CA: the status, content type and body. */
function httpsGet(url: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    get(url, { ca, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }),
      );
    }).on('error', reject);
  });
}

describe('the dashboard on an HTTPS monitoring port (httpsPort)', () => {
  let certs: TestCertificates;
  let s: DashboardServer;

  beforeAll(async () => {
    certs = await makeTestCertificates();
    s = await startDashboardServer(
      {
        httpPort: undefined,
        httpsPort: 0,
        tls: {
          cert: await readFile(certs.certFile, 'utf8'),
          key: await readFile(certs.keyFile, 'utf8'),
        },
      },
      { tls: { ca: certs.ca } },
    );
  });
  afterAll(async () => {
    await s?.stop();
    await certs?.remove();
  });

  it('serves the page and its data behind basic auth', async () => {
    expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const { user, pass } = MONITORING_CREDENTIALS;
    expect((await httpsGet(`${s.url}/`, certs.ca)).status).toBe(401);
    const page = await httpsGet(`${s.url}/`, certs.ca, basicAuthHeader(user, pass));
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    const config = await httpsGet(
      `${s.url}/dashboard/api/config`,
      certs.ca,
      basicAuthHeader(user, pass),
    );
    expect(JSON.parse(config.body)).toMatchObject({ jetstream: ['$G'], contents: true });
  });
});
