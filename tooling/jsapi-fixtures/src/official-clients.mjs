// Drives the official nats.js v3 KV and object store clients against the server, so that the
// fixtures also hold (a) the exact API requests those clients send, taken from the API audit
// advisories, and (b) real object store metadata messages as the official client writes them.
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';

export async function recordOfficialClients(port, raw) {
  const audits = [];
  const objectMeta = [];
  const stopAudit = await raw.subscribe('$JS.EVENT.ADVISORY.API', (msg) => {
    // Only the official client calls the API while this runs (2.9.10 audits omit client lang).
    audits.push(JSON.parse(msg.data));
  });
  const stopMeta = await raw.subscribe('$O.*.M.>', (msg) => {
    objectMeta.push({ subject: msg.subject, headers: msg.headers, data: msg.data });
  });

  const nc = await connect({ port, name: 'official-fixtures' });
  const kv = await new Kvm(nc).create('official', { history: 3, description: 'by nats.js' });
  await kv.put('app.name', 'slipstream');
  await kv.create('app.new', 'x');
  await kv.update('app.name', 'renamed', 1);
  await kv.get('app.name');
  await kv.delete('app.new');
  await kv.purge('app.name');
  await kv.status();

  const objm = new Objm(nc);
  const media = await objm.create('media', { description: 'by nats.js' });
  const info = await media.putBlob(
    {
      name: 'hello.txt',
      description: 'a greeting',
      headers: undefined,
      options: { max_chunk_size: 4 },
    },
    new TextEncoder().encode('hello, object store'),
  );
  await media.putBlob({ name: 'empty' }, new Uint8Array(0));
  await media.link('hello-link', info);
  const other = await objm.create('other');
  await other.linkStore('media-link', media);
  await media.get('hello.txt');
  await media.delete('empty');
  await media.status();

  await nc.flush();
  await nc.close();
  await raw.flush();
  await new Promise((r) => setTimeout(r, 300));
  stopAudit();
  stopMeta();
  return { audits, objectMeta };
}
