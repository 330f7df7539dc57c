import type { Msg, NatsConnection } from '@slipstream/client';

// The JetStream API requests the JetStream client has no method for (snapshot, restore, pause).

/** A JetStream API request made by hand; an error answer is thrown, with its code. */
export async function apiCall<T>(
  nc: NatsConnection,
  subject: string,
  body: unknown,
  timeout: number,
): Promise<T> {
  return apiReply<T>(await nc.request(subject, JSON.stringify(body), { timeout }));
}

/** The answer to a JetStream API request, its `type` dropped; an error answer is thrown. */
export async function apiReply<T>(msg: Msg): Promise<T> {
  const { type: _type, error, ...answer } = msg.json<{ type?: string; error?: never }>();
  if (error) {
    const { JetStreamApiError } = await import('@slipstream/jetstream');
    throw new JetStreamApiError(error);
  }
  return answer as T;
}
