// The config file's `monitoring_auth` and `dashboard` blocks (ours: nats-server has neither), read
// into settings and honoured by a running slipstream-server.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, waitForPort } from '@slipstream/test-servers';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/conf/errors.js';
import { parseConfigText } from '../src/conf/parser.js';
import { validateConfig } from '../src/config.js';
import { serving, useTempDir } from './server-process.js';
import { thrown } from './thrown.js';

const load = (text: string) => validateConfig(parseConfigText(text, 'server.conf', { env: {} }));

describe('monitoring_auth and dashboard in the config file', () => {
  it('become monitoringAuth { user, pass } and dashboard { actions }', () => {
    const { settings, warnings } = load(
      'monitoring_auth { user: ops, password: "s3cret" }\ndashboard { actions: true }',
    );
    expect(warnings).toEqual([]);
    expect(settings).toEqual({
      monitoringAuth: { user: 'ops', pass: 's3cret' },
      dashboard: { actions: true },
    });
  });

  it('refuses an unknown key or a missing password in them', () => {
    expect(
      thrown(ConfigError, () => load('monitoring_auth { user: ops, pass: x }')).message,
    ).toMatch(/monitoring_auth/);
    expect(thrown(ConfigError, () => load('monitoring_auth { user: ops }')).message).toMatch(
      /monitoring_auth/,
    );
    expect(thrown(ConfigError, () => load('dashboard { writable: true }')).message).toMatch(
      /dashboard/,
    );
  });

  describe('a running server', () => {
    const tempDir = useTempDir('slipstream-monitoring-auth-');

    it('asks every monitoring request for the user and password', async () => {
      const httpPort = await freePort();
      const config = join(tempDir(), 'server.conf');
      await writeFile(
        config,
        `http: "127.0.0.1:${httpPort}"\nmonitoring_auth { user: ops, password: "s3cret" }\n`,
      );
      await serving(['-c', config], async (_port, server) => {
        await waitForPort(httpPort, server.child, server.output);
        const url = `http://127.0.0.1:${httpPort}`;
        expect((await fetch(`${url}/varz`)).status).toBe(401);
        expect((await fetch(`${url}/`)).status).toBe(401);
        const authorization = `Basic ${Buffer.from('ops:s3cret').toString('base64')}`;
        const varz = await fetch(`${url}/varz`, { headers: { authorization } });
        expect(varz.status).toBe(200);
      });
    });
  });
});
