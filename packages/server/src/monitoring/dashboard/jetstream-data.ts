import { bucketNameProblem, consumerNameProblem, streamNameProblem } from '@slipstream/jsapi';
import { isValidSubscribeSubject } from '@slipstream/protocol';
import { BadDashboardRequest } from './bad-request.js';
import { type JsApi, JsApiError, type StoredMessage } from './js-api.js';

/** At most this many messages, keys or objects in one answer. */
export const MAX_PAGE = 100;
const MAX_LISTED_SUBJECTS = 1_000;

const NAME_PROBLEMS = {
  stream: streamNameProblem,
  consumer: consumerNameProblem,
  bucket: bucketNameProblem,
};

/** A name from the query, checked as the API checks it (so it cannot add subject tokens). */
export function checkedName(kind: keyof typeof NAME_PROBLEMS, name: string | null): string {
  const problem = name === null ? `${kind} is required` : NAME_PROBLEMS[kind](name);
  if (problem) throw new BadDashboardRequest(problem);
  return name!;
}

function checkedSubject(subject: string | null): string {
  if (subject === null || subject === '') return '>';
  if (!isValidSubscribeSubject(subject))
    throw new BadDashboardRequest(`invalid subject ${JSON.stringify(subject)}`);
  return subject;
}

function checkedCount(text: string | null, fallback: number, min: number, max: number): number {
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BadDashboardRequest(
      `expected an integer from ${min} to ${max}, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** Every item of a paged API listing (STREAM.LIST, CONSUMER.LIST): `key` holds each page's. */
async function listAll(api: JsApi, operation: string, key: 'streams' | 'consumers') {
  const items: unknown[] = [];
  for (;;) {
    const page = await api.request<{ total: number } & Record<typeof key, unknown[] | null>>(
      operation,
      { offset: items.length },
    );
    const found = page[key] ?? [];
    items.push(...found);
    if (found.length === 0 || items.length >= page.total) return items;
  }
}

/** Every stream of the account with its config and state. */
export function listStreams(api: JsApi): Promise<unknown[]> {
  return listAll(api, 'STREAM.LIST', 'streams');
}

/** One stream's info and its consumers (STREAM.INFO, CONSUMER.LIST). */
export async function streamDetail(api: JsApi, params: URLSearchParams) {
  const stream = checkedName('stream', params.get('stream'));
  const info = await api.request(`STREAM.INFO.${stream}`);
  const consumers = await listAll(api, `CONSUMER.LIST.${stream}`, 'consumers');
  return { info, consumers };
}

/**
 * A page of a stream's messages: from sequence `seq` on, those whose subject matches `subject`
 * (default every subject), at most `limit`; `next` is where the following page starts.
 */
export async function streamMessages(api: JsApi, params: URLSearchParams) {
  const stream = checkedName('stream', params.get('stream'));
  const subject = checkedSubject(params.get('subject'));
  let seq = checkedCount(params.get('seq'), 1, 1, Number.MAX_SAFE_INTEGER);
  const limit = checkedCount(params.get('limit'), 25, 1, MAX_PAGE);
  const messages: StoredMessage[] = [];
  while (messages.length < limit) {
    const message = await api.nextMessage(seq, subject, stream);
    if (!message) break;
    messages.push(message);
    seq = message.seq + 1;
  }
  return { messages, next: seq };
}

/** The subjects of a stream under `filter` with their message counts (STREAM.INFO subjects_filter). */
async function subjectCounts(api: JsApi, stream: string, filter: string) {
  const info = await api.request<{ state: { subjects?: Record<string, number> } }>(
    `STREAM.INFO.${stream}`,
    { subjects_filter: filter },
  );
  return Object.entries(info.state.subjects ?? {}).slice(0, MAX_LISTED_SUBJECTS);
}

/** A KV bucket's keys, each with its latest entry (what the KV_<bucket> stream holds). */
export async function kvKeys(api: JsApi, params: URLSearchParams) {
  const bucket = checkedName('bucket', params.get('bucket'));
  const prefix = `$KV.${bucket}.`;
  const subjects = await subjectCounts(api, `KV_${bucket}`, `${prefix}>`);
  const keys = await Promise.all(
    subjects.map(async ([subject, count]) => {
      const last = await api.lastMessage(subject, `KV_${bucket}`);
      return { key: subject.slice(prefix.length), history: count, last };
    }),
  );
  return { bucket, keys: keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
}

/** Every kept revision of one key, oldest first. */
export async function kvHistory(api: JsApi, params: URLSearchParams) {
  const bucket = checkedName('bucket', params.get('bucket'));
  const key = params.get('key') ?? '';
  const subject = `$KV.${bucket}.${key}`;
  if (key === '' || !isValidSubscribeSubject(subject) || /[*>]/.test(key)) {
    throw new BadDashboardRequest(`invalid key ${JSON.stringify(key)}`);
  }
  const entries: StoredMessage[] = [];
  let seq = 1;
  while (entries.length < MAX_PAGE) {
    const message = await api.nextMessage(seq, subject, `KV_${bucket}`);
    if (!message) break;
    entries.push(message);
    seq = message.seq + 1;
  }
  return { bucket, key, entries };
}

interface ObjectMeta {
  name: string;
  nuid: string;
  size?: number;
  chunks?: number;
  mtime?: string;
  digest?: string;
  deleted?: boolean;
}

/** An object store's objects: the latest metadata of each name (`$O.<bucket>.M.>`). */
export async function objectList(api: JsApi, params: URLSearchParams) {
  const bucket = checkedName('bucket', params.get('bucket'));
  const subjects = await subjectCounts(api, `OBJ_${bucket}`, `$O.${bucket}.M.>`);
  const objects: ObjectMeta[] = [];
  for (const [subject] of subjects) {
    const meta = await api.lastMessage(subject, `OBJ_${bucket}`);
    if (!meta?.data) continue;
    const parsed = JSON.parse(Buffer.from(meta.data, 'base64').toString('utf8')) as ObjectMeta;
    if (!parsed.deleted) objects.push(parsed);
  }
  return { bucket, objects: objects.sort((a, b) => (a.name < b.name ? -1 : 1)) };
}

/** One object's bytes, its chunks read in order; undefined when there is no such object. */
export async function objectContent(api: JsApi, params: URLSearchParams) {
  const bucket = checkedName('bucket', params.get('bucket'));
  const name = params.get('name');
  if (!name) throw new BadDashboardRequest('name is required');
  const { objects } = await objectList(api, params);
  const meta = objects.find((object) => object.name === name);
  if (!meta) throw new JsApiError(404, 'object not found');
  const chunks: Buffer[] = [];
  const subject = `$O.${bucket}.C.${meta.nuid}`;
  let seq = 1;
  for (;;) {
    const chunk = await api.nextMessage(seq, subject, `OBJ_${bucket}`);
    if (!chunk) break;
    chunks.push(Buffer.from(chunk.data ?? '', 'base64'));
    seq = chunk.seq + 1;
  }
  return { name, content: Buffer.concat(chunks) };
}
