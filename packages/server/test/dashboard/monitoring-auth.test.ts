import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerError, startServer } from '../../src/index.js';
import {
  basicAuthHeader as basic,
  type DashboardServer,
  startDashboardServer,
} from './dashboard-server.js';

describe('monitoringAuth: basic auth on the monitoring port', () => {
  let s: DashboardServer;

  beforeAll(async () => {
    s = await startDashboardServer({ monitoringAuth: { user: 'ops', pass: 's3cret:x' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('refuses the endpoints, the dashboard and its feed without credentials', async () => {
    for (const path of [
      '/varz',
      '/connz',
      '/jsz',
      '/',
      '/dashboard/app.js',
      '/dashboard/events',
      '/dashboard/api/streams',
    ]) {
      const response = await s.get(path, { headers: { authorization: '' } });
      expect(response.status, path).toBe(401);
      expect(response.headers.get('www-authenticate'), path).toMatch(/^Basic realm=/);
    }
  });

  it('refuses a wrong user or password', async () => {
    expect((await s.get('/varz', { headers: basic('ops', 'wrong') })).status).toBe(401);
    expect((await s.get('/varz', { headers: basic('other', 's3cret:x') })).status).toBe(401);
    expect((await s.get('/varz', { headers: { authorization: 'Bearer s3cret' } })).status).toBe(
      401,
    );
  });

  it('answers with the right ones (a colon in the password included)', async () => {
    const varz = await s.get('/varz', { headers: basic('ops', 's3cret:x') });
    expect(varz.status).toBe(200);
    expect(((await varz.json()) as { server_id: string }).server_id).toMatch(/^N/);
    expect((await s.get('/', { headers: basic('ops', 's3cret:x') })).status).toBe(200);
  });
});

describe('monitoringAuth option checks', () => {
  it('refuses a user with a colon or an empty password', async () => {
    for (const monitoringAuth of [
      { user: 'a:b', pass: 'x' },
      { user: 'a', pass: '' },
    ]) {
      const start = startServer({ port: 0, httpPort: 0, monitoringAuth });
      await expect(start).rejects.toThrow(ServerError);
      await expect(start).rejects.toThrow('monitoringAuth needs a user');
    }
  });

  it('refuses dashboard.actions without it: actions only behind basic auth', async () => {
    const start = startServer({ port: 0, httpPort: 0, dashboard: { actions: true } });
    await expect(start).rejects.toThrow('dashboard.actions needs monitoringAuth');
  });

  it('leaves the port open without the option', async () => {
    const s = await startDashboardServer({ monitoringAuth: undefined });
    try {
      expect((await s.get('/varz')).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});
