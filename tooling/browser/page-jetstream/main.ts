// The page hands the bundled JetStream client (and its KV entry point) to the test, which
// drives it through page.evaluate: exactly what an application bundling @slipstream/jetstream
// for the browser would get.
import * as client from '@slipstream/client';
import * as jetstream from '@slipstream/jetstream';
import * as kv from '@slipstream/jetstream/kv';

const bundle = { client, jetstream, kv };

declare global {
  interface Window {
    slipstreamJetStream: typeof bundle;
  }
}

window.slipstreamJetStream = bundle;
document.title = 'ready';
