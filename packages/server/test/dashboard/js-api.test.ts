import { afterEach, describe, expect, it } from 'vitest';
import { type NatsServer, silentLogger, startServer } from '../../src/index.js';
import { JsApi, JsApiError } from '../../src/monitoring/dashboard/js-api.js';
import { internalClientOf } from '../../src/server.js';

// The dashboard's JetStream requests, on a server without JetStream, where nobody answers.
describe("the dashboard's JsApi", () => {
  let server: NatsServer;
  afterEach(async () => {
    await server?.close();
  });

  it('rejects a request still waiting when it closes, at once and not after its timeout', async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const api = new JsApi('$G', internalClientOf(server));
    const request = api.request('STREAM.LIST');
    api.close();
    await expect(request).rejects.toEqual(new JsApiError(503, 'the monitoring port is closing'));
  });

  it('rejects an answer that is not JSON with 502', async () => {
    server = await startServer({ host: '127.0.0.1', port: 0, logger: silentLogger });
    const client = internalClientOf(server);
    client.subscribe('$JS.API.STREAM.LIST', (message) =>
      client.respond(message.reply!, new TextEncoder().encode('<html>')),
    );
    const api = new JsApi('$G', client);
    await expect(api.request('STREAM.LIST')).rejects.toMatchObject({ status: 502 });
    api.close();
  });
});
