/**
 * The `$JS.API` subject grammar: every API operation as a token pattern, builders that fill a
 * pattern (optionally under a JetStream domain or an imported API prefix) and a parser that
 * maps a subject back to its operation and parameters.
 */

import { fillSubjectPattern } from './subject-pattern.js';

/** Default API prefix. */
export const JS_API_PREFIX = '$JS.API';

/**
 * Token patterns after the API prefix. `{x}` is one token, `{x...}` the rest of the subject
 * (one or more tokens, joined with `.`). Order matters only for parsing: the first match wins,
 * and no two patterns here match the same subject.
 */
export const apiSubjectPatterns = {
  accountInfo: 'INFO',
  streamCreate: 'STREAM.CREATE.{stream}',
  streamUpdate: 'STREAM.UPDATE.{stream}',
  streamNames: 'STREAM.NAMES',
  streamList: 'STREAM.LIST',
  streamInfo: 'STREAM.INFO.{stream}',
  streamDelete: 'STREAM.DELETE.{stream}',
  streamPurge: 'STREAM.PURGE.{stream}',
  streamMsgDelete: 'STREAM.MSG.DELETE.{stream}',
  streamMsgGet: 'STREAM.MSG.GET.{stream}',
  streamSnapshot: 'STREAM.SNAPSHOT.{stream}',
  streamRestore: 'STREAM.RESTORE.{stream}',
  streamLeaderStepdown: 'STREAM.LEADER.STEPDOWN.{stream}',
  streamPeerRemove: 'STREAM.PEER.REMOVE.{stream}',
  streamPeerEvacuate: 'STREAM.PEER.EVACUATE.{stream}',
  streamCancelMove: 'STREAM.CANCEL_MOVE.{stream}',
  streamTemplateCreate: 'STREAM.TEMPLATE.CREATE.{template}',
  streamTemplateDelete: 'STREAM.TEMPLATE.DELETE.{template}',
  streamTemplateInfo: 'STREAM.TEMPLATE.INFO.{template}',
  streamTemplateNames: 'STREAM.TEMPLATE.NAMES',
  consumerCreateEphemeral: 'CONSUMER.CREATE.{stream}',
  consumerCreate: 'CONSUMER.CREATE.{stream}.{consumer}',
  consumerCreateFiltered: 'CONSUMER.CREATE.{stream}.{consumer}.{filter...}',
  consumerDurableCreate: 'CONSUMER.DURABLE.CREATE.{stream}.{consumer}',
  consumerNames: 'CONSUMER.NAMES.{stream}',
  consumerList: 'CONSUMER.LIST.{stream}',
  consumerInfo: 'CONSUMER.INFO.{stream}.{consumer}',
  consumerDelete: 'CONSUMER.DELETE.{stream}.{consumer}',
  consumerPause: 'CONSUMER.PAUSE.{stream}.{consumer}',
  consumerUnpin: 'CONSUMER.UNPIN.{stream}.{consumer}',
  consumerReset: 'CONSUMER.RESET.{stream}.{consumer}',
  consumerNext: 'CONSUMER.MSG.NEXT.{stream}.{consumer}',
  consumerLeaderStepdown: 'CONSUMER.LEADER.STEPDOWN.{stream}.{consumer}',
  directGet: 'DIRECT.GET.{stream}',
  directGetLastBySubject: 'DIRECT.GET.{stream}.{subject...}',
  metaLeaderStepdown: 'META.LEADER.STEPDOWN',
  metaRescue: 'META.RESCUE',
  serverRemove: 'SERVER.REMOVE',
  serverEvacuate: 'SERVER.EVACUATE',
  accountPurge: 'ACCOUNT.PURGE.{account}',
  accountStreamMove: 'ACCOUNT.STREAM.MOVE.{account}.{stream}',
  accountStreamCancelMove: 'ACCOUNT.STREAM.CANCEL_MOVE.{account}.{stream}',
} as const;

export type ApiOperationName = keyof typeof apiSubjectPatterns;

type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${infer Base}...` ? Base : Name) | ParamNames<Rest>
  : never;

/** The parameters of an operation's subject, e.g. `{ stream: string }` for streamInfo. */
export type ApiSubjectParams<Op extends ApiOperationName> = {
  [K in ParamNames<(typeof apiSubjectPatterns)[Op]>]: string;
};

/** Where the API lives: the default `$JS.API`, a domain's `$JS.<domain>.API`, or a prefix. */
export interface ApiPrefixOptions {
  /** JetStream domain: the API is `$JS.<domain>.API`. */
  domain?: string;
  /** An explicit API prefix (e.g. an imported `JS.hub.API`); wins over domain. */
  apiPrefix?: string;
}

/** The API prefix for the options: `$JS.API`, `$JS.<domain>.API` or the given prefix. */
export function apiPrefix(options: ApiPrefixOptions = {}): string {
  if (options.apiPrefix) return options.apiPrefix.replace(/\.$/, '');
  if (options.domain) return `$JS.${options.domain}.API`;
  return JS_API_PREFIX;
}

/** Builds the subject of an API operation, e.g. `apiSubject('streamInfo', { stream: 'S' })`. */
export function apiSubject<Op extends ApiOperationName>(
  operation: Op,
  params: ApiSubjectParams<Op>,
  options: ApiPrefixOptions = {},
): string {
  const rest = fillSubjectPattern(
    apiSubjectPatterns[operation],
    params as Record<string, string>,
    `apiSubject(${operation})`,
  );
  return `${apiPrefix(options)}.${rest}`;
}

/** A subject recognised as a JetStream API call. */
export interface ParsedApiSubject {
  operation: ApiOperationName;
  params: Record<string, string>;
  /** The domain of a `$JS.<domain>.API` subject. */
  domain?: string;
  /** The prefix the subject was found under (`$JS.API`, `$JS.<domain>.API` or a custom one). */
  prefix: string;
}

const compiled = Object.entries(apiSubjectPatterns).map(([operation, pattern]) => ({
  operation: operation as ApiOperationName,
  tokens: (pattern.match(/\{\w+(?:\.\.\.)?\}|[^.]+/g) ?? []).map((token) => {
    const m = /^\{(\w+)(\.\.\.)?\}$/.exec(token);
    return m ? { param: m[1]!, rest: m[2] !== undefined } : { literal: token };
  }),
}));

/**
 * Maps a subject to its API operation, or undefined when it is not one. Recognises `$JS.API.`,
 * `$JS.<domain>.API.` and any of the extra prefixes given (for imported APIs).
 */
export function parseApiSubject(
  subject: string,
  extraPrefixes: readonly string[] = [],
): ParsedApiSubject | undefined {
  const found = splitPrefix(subject, extraPrefixes);
  if (!found) return undefined;
  const tokens = found.rest.split('.');
  if (tokens.some((t) => t.length === 0)) return undefined;
  for (const { operation, tokens: pattern } of compiled) {
    const params = matchTokens(pattern, tokens);
    if (params) {
      const parsed: ParsedApiSubject = { operation, params, prefix: found.prefix };
      if (found.domain !== undefined) parsed.domain = found.domain;
      return parsed;
    }
  }
  return undefined;
}

function splitPrefix(subject: string, extraPrefixes: readonly string[]) {
  for (const prefix of extraPrefixes) {
    const clean = prefix.replace(/\.$/, '');
    if (subject.startsWith(`${clean}.`))
      return { prefix: clean, rest: subject.slice(clean.length + 1) };
  }
  if (subject.startsWith(`${JS_API_PREFIX}.`)) {
    return { prefix: JS_API_PREFIX, rest: subject.slice(JS_API_PREFIX.length + 1) };
  }
  const m = /^\$JS\.([^.]+)\.API\.(.+)$/.exec(subject);
  if (m && m[1] !== 'API') return { prefix: `$JS.${m[1]}.API`, domain: m[1]!, rest: m[2]! };
  return undefined;
}

type Token = { literal: string } | { param: string; rest: boolean };

function matchTokens(pattern: Token[], tokens: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if ('literal' in p) {
      if (tokens[i] !== p.literal) return undefined;
    } else if (p.rest) {
      if (i >= tokens.length) return undefined;
      params[p.param] = tokens.slice(i).join('.');
      return params;
    } else {
      if (i >= tokens.length) return undefined;
      params[p.param] = tokens[i]!;
    }
  }
  return tokens.length === pattern.length ? params : undefined;
}
