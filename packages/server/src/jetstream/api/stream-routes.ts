/** STREAM.CREATE / UPDATE / INFO / DELETE / NAMES / LIST / PURGE. */
import { ApiError, jsErrors, type StreamConfig } from '@slipstream/jsapi';
import { subjectsCollide } from '@slipstream/protocol';
import type { JetStreamHost } from '../jetstream-host.js';
import type { Stream } from '../stream/stream.js';
import { checkStreamUpdate } from '../stream/stream-config.js';
import { type AnswerParts, answeredStreamInfo } from '../stream/stream-info.js';
import { type ApiContext, type ApiRoute, page } from './route.js';

const NAMES_PAGE = 1024;
const LIST_PAGE = 256;
const SUBJECTS_PAGE = 100_000;

const FULL: AnswerParts = { apiLevel: true, origins: true };

/** FULL, with the domain of the JetStream answering. */
const fullInDomain = (js: JetStreamHost): AnswerParts => ({ ...FULL, domain: js.options.domain });

function sortedStreams(context: ApiContext<'streamNames' | 'streamList'>): Stream[] {
  const subject = context.request?.subject;
  const streams = [...context.account.streams.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  if (!subject || subject === '>') return streams;
  return streams.filter((s) =>
    (s.config.subjects ?? []).some((own) => subjectsCollide(own, subject)),
  );
}

export const streamCreate: ApiRoute<'streamCreate'> = {
  type: 'stream_create_response',
  handle: ({ js, account, params, request }) => {
    const { stream, created } = account.createStream(params.stream!, request as StreamConfig);
    if (created) js.advisories.streamAction(stream.name, 'create');
    return { ...answeredStreamInfo(stream, FULL), did_create: true };
  },
};

export const streamUpdate: ApiRoute<'streamUpdate'> = {
  type: 'stream_update_response',
  handle: ({ js, account, params, request }) => {
    const requested = request as StreamConfig;
    // nats-server checks the consumers against new consumer_limits once the config passed
    // (v2.10.0 stream.go:1703-1725), before the subjects overlap check of the update.
    const current = account.streams.get(params.stream!);
    if (current && requested.name === current.name) {
      current.checkConsumerLimits(checkStreamUpdate(current.config, requested, account.lookup));
    }
    const stream = account.updateStream(params.stream!, requested);
    js.advisories.streamAction(stream.name, 'modify');
    return answeredStreamInfo(stream, fullInDomain(js));
  },
};

export const streamInfoRoute: ApiRoute<'streamInfo'> = {
  type: 'stream_info_response',
  errorFields: { total: 0, offset: 0, limit: 0 },
  handle: ({ js, account, params, request }) => {
    const stream = account.stream(params.stream!);
    const filter = request?.subjects_filter;
    const info = answeredStreamInfo(stream, fullInDomain(js), {
      subjectsFilter: filter,
      deleted: request?.deleted_details,
    });
    if (!filter) return { total: 0, offset: 0, limit: 0, ...info };
    // Per-subject counts are paged like a listing.
    const subjects = Object.entries(info.state.subjects ?? {});
    const { total, offset, limit, items } = page(subjects, request?.offset, SUBJECTS_PAGE);
    const state = { ...info.state };
    if (items.length > 0) state.subjects = Object.fromEntries(items);
    else delete state.subjects;
    return { total, offset, limit, ...info, state };
  },
};

export const streamDelete: ApiRoute<'streamDelete'> = {
  type: 'stream_delete_response',
  handle: async ({ js, account, params }) => {
    await account.deleteStream(params.stream!);
    js.advisories.streamAction(params.stream!, 'delete');
    return { success: true };
  },
};

/** The paging and list fields nats-server also writes into a listing's error answer. */
const emptyListing = { total: 0, offset: 0, limit: 0, streams: null };

export const streamNames: ApiRoute<'streamNames'> = {
  type: 'stream_names_response',
  errorFields: emptyListing,
  handle: (context) => {
    const names = sortedStreams(context).map((s) => s.name);
    // Offline streams are named too (nats-server 2.12 keeps them among the account's streams);
    // their config may be unknown, so a subject filter leaves them out.
    const subject = context.request?.subject;
    if (!subject || subject === '>') names.push(...context.account.offline.keys());
    names.sort();
    const { items, ...paging } = page(names, context.request?.offset, NAMES_PAGE);
    return { ...paging, streams: items.length > 0 ? items : null };
  },
};

export const streamList: ApiRoute<'streamList'> = {
  type: 'stream_list_response',
  errorFields: emptyListing,
  handle: (context) => {
    const { items, ...paging } = page(sortedStreams(context), context.request?.offset, LIST_PAGE);
    // nats-server 2.12 lists an offline stream by name, with why, instead of its info.
    const { offline } = context.account;
    return {
      ...paging,
      ...(offline.size > 0
        ? { missing: [...offline.keys()].sort(), offline: Object.fromEntries(offline) }
        : {}),
      streams: items.map((stream) =>
        answeredStreamInfo(stream, {
          apiLevel: false,
          origins: true,
          domain: context.js.options.domain,
        }),
      ),
    };
  },
};

export const streamPurge: ApiRoute<'streamPurge'> = {
  type: 'stream_purge_response',
  errorFields: { purged: 0 },
  handle: ({ account, params, request }) => {
    const stream = account.stream(params.stream!);
    if (request?.seq && request.keep) throw ApiError.of(jsErrors.JSBadRequestErr);
    const purged = stream.purge({
      subject: request?.filter,
      seq: request?.seq,
      keep: request?.keep,
    });
    return { success: true, purged };
  },
};
