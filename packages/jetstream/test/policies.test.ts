/**
 * The config enums spelled as nats.js spells them: each of ours holds what @nats-io/jetstream's
 * constant of the same name holds (PersistMode is nats-server 2.12's persist_mode).
 */
import {
  AckPolicy as TheirAckPolicy,
  DeliverPolicy as TheirDeliverPolicy,
  DiscardPolicy as TheirDiscardPolicy,
  PersistMode as TheirPersistMode,
  ReplayPolicy as TheirReplayPolicy,
  RetentionPolicy as TheirRetentionPolicy,
  StorageType as TheirStorageType,
  StoreCompression as TheirStoreCompression,
} from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  PersistMode,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  StoreCompression,
} from '../src/mod.js';

type Enum = Record<string, string>;

describe('config enums as nats.js has them', () => {
  it.each<[string, Enum, Enum]>([
    ['AckPolicy', AckPolicy, TheirAckPolicy],
    ['DeliverPolicy', DeliverPolicy, TheirDeliverPolicy],
    ['DiscardPolicy', DiscardPolicy, TheirDiscardPolicy],
    ['PersistMode', PersistMode, TheirPersistMode],
    ['ReplayPolicy', ReplayPolicy, TheirReplayPolicy],
    ['RetentionPolicy', RetentionPolicy, TheirRetentionPolicy],
    ['StorageType', StorageType, TheirStorageType],
    ['StoreCompression', StoreCompression, TheirStoreCompression],
  ])('%s', (name, mine, theirs) => {
    for (const [key, value] of Object.entries(mine)) expect(theirs[key], key).toBe(value);
    // nats.js's AckPolicy also has 2.14's FlowControl and NotSet, which ours leaves out.
    if (name !== 'AckPolicy') expect(Object.keys(mine).sort()).toEqual(Object.keys(theirs).sort());
  });
});
