/**
 * Which of the two object store layouts a bucket has, read from its stream's subjects (nothing is
 * configured): the official clients' (`$O.<bucket>.C.>` and `$O.<bucket>.M.>`) or the
 * document's (`$OBJ.<bucket>.>`, metadata on `info.<name>`, chunks on `chunks.<nonce>`). Both key
 * an object's metadata subject by the base64url of its name, so any name has one subject.
 */
import { base64UrlEncode, OBJ_STREAM_PREFIX } from '@slipstream/jsapi';
import type { JsAccount } from '../js-account.js';
import type { Stream } from '../stream/stream.js';
import { ObjectApiError } from './object-errors.js';

export type LayoutKind = 'official' | 'document';

export interface BucketLayout {
  readonly kind: LayoutKind;
  readonly bucket: string;
  readonly stream: Stream;
  /** The field of the stored metadata that names the chunks' nonce. */
  readonly nonceField: 'nuid' | 'nonce';
  metaSubject(name: string): string;
  /** The wildcard over every metadata subject of the bucket. */
  readonly metaFilter: string;
  chunkSubject(nonce: string): string;
}

/** nats.js's validateBucket: letters, digits, `-` and `_`. */
const BUCKET_NAME = /^[-\w]+$/;

export function isValidBucketName(bucket: string): boolean {
  return BUCKET_NAME.test(bucket);
}

const encodedName = (name: string) => base64UrlEncode(Buffer.from(name, 'utf8'));

/** The layout of `bucket` in `account`, or the error that says why there is none. */
export function bucketLayout(account: JsAccount, bucket: string): BucketLayout {
  if (!isValidBucketName(bucket)) {
    throw new ObjectApiError('bucket_not_found', `invalid bucket name '${bucket}'`);
  }
  const stream = account.streams.get(`${OBJ_STREAM_PREFIX}${bucket}`);
  if (!stream) throw new ObjectApiError('bucket_not_found', `bucket '${bucket}' does not exist`);
  const kind = layoutOf(stream.config.subjects ?? [], bucket);
  if (!kind) {
    throw new ObjectApiError(
      'not_object_store',
      `stream '${stream.name}' is not an object store: its subjects are neither $O.${bucket}.C.> and $O.${bucket}.M.> nor $OBJ.${bucket}.>`,
    );
  }
  if (kind === 'official') {
    return {
      kind,
      bucket,
      stream,
      nonceField: 'nuid',
      metaSubject: (name) => `$O.${bucket}.M.${encodedName(name)}`,
      metaFilter: `$O.${bucket}.M.>`,
      chunkSubject: (nonce) => `$O.${bucket}.C.${nonce}`,
    };
  }
  return {
    kind,
    bucket,
    stream,
    nonceField: 'nonce',
    metaSubject: (name) => `$OBJ.${bucket}.info.${encodedName(name)}`,
    metaFilter: `$OBJ.${bucket}.info.>`,
    chunkSubject: (nonce) => `$OBJ.${bucket}.chunks.${nonce}`,
  };
}

export function layoutOf(subjects: readonly string[], bucket: string): LayoutKind | undefined {
  if (subjects.includes(`$O.${bucket}.C.>`) && subjects.includes(`$O.${bucket}.M.>`)) {
    return 'official';
  }
  if (subjects.includes(`$OBJ.${bucket}.>`)) return 'document';
  return undefined;
}
