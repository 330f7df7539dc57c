import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/**
 * Where the package's build puts the dashboard's files (`scripts/build-dashboard.mjs`): the
 * package's `dist/dashboard/`, the same path from this file in `src/` and in `dist/`.
 */
export const BUNDLE_DIR = new URL('../../../dist/dashboard/', import.meta.url);

export interface BundleFile {
  readonly contentType: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The bundle's files by name, read and compressed once; undefined when the bundle is not built. */
export function loadBundle(): ReadonlyMap<string, BundleFile> | undefined {
  const files = new Map<string, BundleFile>();
  try {
    for (const [name, contentType] of Object.entries(CONTENT_TYPES)) {
      const body = readFileSync(new URL(name, BUNDLE_DIR));
      files.set(name, { contentType, body, gzipped: gzipSync(body) });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return files;
}
