import type {
  AckPolicy as AckPolicyValue,
  DeliverPolicy as DeliverPolicyValue,
  DiscardPolicy as DiscardPolicyValue,
  PersistMode as PersistModeValue,
  ReplayPolicy as ReplayPolicyValue,
  RetentionPolicy as RetentionPolicyValue,
  StorageType as StorageTypeValue,
  StoreCompression as StoreCompressionValue,
} from '@slipstream/jsapi';

/*
 * The config enums as named constants, spelled as nats.js spells them
 * (`AckPolicy.Explicit`, `StorageType.Memory`); the values are the wire strings jsapi checks.
 */

export const RetentionPolicy = {
  Limits: 'limits',
  Interest: 'interest',
  Workqueue: 'workqueue',
} as const satisfies Record<string, RetentionPolicyValue>;
export type RetentionPolicy = RetentionPolicyValue;

export const DiscardPolicy = {
  Old: 'old',
  New: 'new',
} as const satisfies Record<string, DiscardPolicyValue>;
export type DiscardPolicy = DiscardPolicyValue;

export const StorageType = {
  File: 'file',
  Memory: 'memory',
} as const satisfies Record<string, StorageTypeValue>;
export type StorageType = StorageTypeValue;

export const StoreCompression = {
  None: 'none',
  S2: 's2',
} as const satisfies Record<string, StoreCompressionValue>;
export type StoreCompression = StoreCompressionValue;

/** nats-server 2.12: `Async` acknowledges a publish before the disk sync (file streams). */
export const PersistMode = {
  Default: 'default',
  Async: 'async',
} as const satisfies Record<string, PersistModeValue>;
export type PersistMode = PersistModeValue;

export const DeliverPolicy = {
  All: 'all',
  Last: 'last',
  New: 'new',
  StartSequence: 'by_start_sequence',
  StartTime: 'by_start_time',
  LastPerSubject: 'last_per_subject',
} as const satisfies Record<string, DeliverPolicyValue>;
export type DeliverPolicy = DeliverPolicyValue;

export const AckPolicy = {
  None: 'none',
  All: 'all',
  Explicit: 'explicit',
} as const satisfies Record<string, AckPolicyValue>;
export type AckPolicy = AckPolicyValue;

export const ReplayPolicy = {
  Instant: 'instant',
  Original: 'original',
} as const satisfies Record<string, ReplayPolicyValue>;
export type ReplayPolicy = ReplayPolicyValue;
