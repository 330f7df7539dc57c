import * as z from 'zod';
import { durationNanos, int } from './common.js';

/** The JSON body of a `CONSUMER.MSG.NEXT` pull request. */
export const pullRequestSchema = z.looseObject({
  /** Messages wanted; omitted means 1. */
  batch: int().optional(),
  /** Nanoseconds until the request expires. */
  expires: durationNanos().optional(),
  max_bytes: int().optional(),
  /** Answer 404 at once instead of waiting when nothing is pending. */
  no_wait: z.boolean().optional(),
  /** Nanoseconds between idle heartbeats while waiting (≤ expires / 2). */
  idle_heartbeat: durationNanos().optional(),
  /** Priority group fields. */
  group: z.string().optional(),
  min_pending: int().optional(),
  min_ack_pending: int().optional(),
  id: z.string().optional(),
  priority: int().min(0).max(9).optional(),
});
export type PullRequest = z.infer<typeof pullRequestSchema>;

/**
 * Reads a pull request body as the server does: empty means one message, a bare decimal is a
 * batch size, anything else must be the JSON object. Returns undefined for a body the server
 * would reject as a bad request.
 */
export function parsePullRequestBody(body: string): PullRequest | undefined {
  const text = body.trim();
  if (text === '') return { batch: 1 };
  if (/^\d+$/.test(text)) return { batch: Number(text) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = pullRequestSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
