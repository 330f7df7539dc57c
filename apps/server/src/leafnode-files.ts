import type { LeafNodeOptions } from '@slipstream/server';
import type { Settings } from './settings.js';
import { readPem, readTlsFiles } from './tls-files.js';

/**
 * The leafnodes settings as the library takes them: the files each `tls {}` names read (the leaf
 * node port's as the client port's; a remote's CA, certificate and key), so that `-t` checks them
 * and a missing one stops the start, naming it.
 */
export function readLeafNodeFiles(leafNodes: Settings['leafNodes']): LeafNodeOptions | undefined {
  if (!leafNodes) return undefined;
  const { tls, remotes, ...rest } = leafNodes;
  const portTls = readTlsFiles(tls);
  return {
    ...rest,
    ...(portTls ? { tls: portTls } : {}),
    ...(remotes
      ? {
          remotes: remotes.map(({ tls: files, ...remote }) =>
            files
              ? {
                  ...remote,
                  tls: {
                    ...(files.ca ? { ca: readPem(files.ca, 'CA certificate') } : {}),
                    ...(files.cert ? { cert: readPem(files.cert, 'certificate') } : {}),
                    ...(files.key ? { key: readPem(files.key, 'private key') } : {}),
                    ...(files.insecure ? { insecure: true } : {}),
                    ...(files.timeout ? { timeout: files.timeout } : {}),
                  },
                }
              : remote,
          ),
        }
      : {}),
  };
}
