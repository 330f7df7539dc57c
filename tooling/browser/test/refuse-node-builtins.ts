import { builtinModules } from 'node:module';
import type { Plugin } from 'vite';

const builtins = new Set(builtinModules);

/**
 * A Vite plugin that fails the build when the page's module graph imports a Node built-in.
 * Left alone, Vite replaces such a module with an empty stub and only warns, so the bundle
 * builds and breaks at run time in the browser. Refused: any `node:` import, and a bare built-in
 * name (`net`) in our own code. A dependency may still name a bare built-in: tweetnacl, under
 * @nats-io/nkeys, calls `require('crypto')` only where the Web Crypto API is missing.
 */
export function refuseNodeBuiltins(): Plugin {
  return {
    name: 'refuse-node-builtins',
    enforce: 'pre',
    resolveId(source, importer) {
      const ours = importer !== undefined && !importer.includes('/node_modules/');
      if (source.startsWith('node:') || (ours && builtins.has(source))) {
        this.error(`${importer ?? 'the page'} imports the Node module "${source}"`);
      }
      return null;
    },
  };
}
