import { createRequire } from 'node:module';

/**
 * The nats-server version whose behaviour this server implements, advertised in INFO and /varz
 * `version`. Official clients gate features on it (e.g. multiple consumer filter subjects need
 * 2.10), so it is raised only when the matching behaviour lands, never ahead of it.
 */
export const NATS_COMPATIBLE_VERSION = '2.12.0';

/**
 * This package's own version (from its package.json), reported in /varz and by the app. Asked of
 * the package by name rather than by a relative path, which would not hold once slipstream-server
 * bundles this module.
 */
export const VERSION: string = (
  createRequire(import.meta.url)('@slipstream/server/package.json') as { version: string }
).version;
