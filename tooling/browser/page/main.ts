// The page hands the bundled client to the test, which drives it through page.evaluate: what
// runs is exactly what an application bundling @slipstream/client for the browser would get.
import * as slipstream from '@slipstream/client';

declare global {
  interface Window {
    slipstream: typeof slipstream;
  }
}

window.slipstream = slipstream;
document.title = 'ready';
