/**
 * Reading and writing a bucket's metadata records and purging chunks. Reads go to the stream's
 * store; writes go through the stream's publish path with `Nats-Rollup: sub`, as the official
 * clients write metadata, so only the newest record of a name stays.
 */
import { ApiError } from '@slipstream/jsapi';
import { withHeaders } from '../shared/header-block.js';
import type { BucketLayout } from './bucket-layout.js';
import { ObjectApiError } from './object-errors.js';
import { type ObjectRecord, readStoredRecord, storedJson } from './object-meta.js';
import type { StreamWriter } from './stream-writer.js';

const ROLLUP_SUBJECT = withHeaders(undefined, [['Nats-Rollup', 'sub']]);

/** The newest record of `name`, deleted or not; undefined when there is none. */
export function readRecord(layout: BucketLayout, name: string): ObjectRecord | undefined {
  const stored = layout.stream.store.loadLast(layout.metaSubject(name));
  return stored && readStoredRecord(stored.payload);
}

/** Every object of the bucket that is not deleted, in the order of their metadata subjects. */
export function listRecords(layout: BucketLayout): ObjectRecord[] {
  const store = layout.stream.store;
  const records: ObjectRecord[] = [];
  for (const subject of [...store.subjectsState(layout.metaFilter).keys()].sort()) {
    const stored = store.loadLast(subject);
    const record = stored && readStoredRecord(stored.payload);
    if (record && !record.deleted) records.push(record);
  }
  return records;
}

/** Whether the stream holds chunks under `nonce`. */
export function hasChunks(layout: BucketLayout, nonce: string): boolean {
  return layout.stream.store.filteredState(0, layout.chunkSubject(nonce)).messages > 0;
}

/**
 * Stores `record` as its name's metadata and, once the stream has acknowledged it, purges the
 * chunks of the record it replaced. The replaced record is read in the same turn as the store,
 * so of two uploads finishing together each purges exactly what it replaced.
 */
export async function putRecord(
  writer: StreamWriter,
  layout: BucketLayout,
  record: ObjectRecord,
): Promise<void> {
  const replaced = readRecord(layout, record.name);
  const json = Buffer.from(storedJson(record, layout.nonceField));
  await writer.store(layout.metaSubject(record.name), json, ROLLUP_SUBJECT);
  if (replaced?.nonce && replaced.nonce !== record.nonce) purgeChunks(layout, replaced.nonce);
}

/** Removes the chunks stored under `nonce`. */
export function purgeChunks(layout: BucketLayout, nonce: string): void {
  try {
    layout.stream.purge({ subject: layout.chunkSubject(nonce) });
  } catch (error) {
    const why = error instanceof ApiError ? error.description : (error as Error).message;
    throw new ObjectApiError('store_failed', `could not purge chunks: ${why}`);
  }
}
