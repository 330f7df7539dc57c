/** The JetStream API's answers, as far as the pages read them. */
export interface StreamInfo {
  config: {
    name: string;
    subjects?: string[];
    retention: string;
    storage: string;
    discard: string;
    max_msgs: number;
    max_bytes: number;
    max_age: number;
    max_msgs_per_subject: number;
    max_msg_size?: number;
    num_replicas: number;
    description?: string;
    allow_direct?: boolean;
    sealed?: boolean;
    deny_delete?: boolean;
    deny_purge?: boolean;
    compression?: string;
    mirror?: { name: string };
    sources?: { name: string }[];
  };
  created: string;
  state: {
    messages: number;
    bytes: number;
    first_seq: number;
    last_seq: number;
    first_ts: string;
    last_ts: string;
    consumer_count: number;
    num_deleted?: number;
    num_subjects?: number;
    lost?: { msgs?: number[]; bytes?: number };
  };
}

export interface ConsumerInfo {
  name: string;
  created: string;
  config: {
    durable_name?: string;
    deliver_subject?: string;
    ack_policy: string;
    deliver_policy: string;
    filter_subject?: string;
    filter_subjects?: string[];
    max_ack_pending?: number;
  };
  delivered: { consumer_seq: number; stream_seq: number };
  ack_floor: { consumer_seq: number; stream_seq: number };
  num_ack_pending: number;
  num_redelivered: number;
  num_waiting: number;
  num_pending: number;
  paused?: boolean;
}

export interface StoredMessage {
  subject: string;
  seq: number;
  time: string;
  hdrs?: string;
  data?: string;
}

export interface Damage {
  stream: string;
  seqs?: number[];
  error?: string;
}
