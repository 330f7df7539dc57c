/**
 * The one line a failed command prints: the error's message, with the JetStream status and
 * err_code when the server answered with one, so it can be looked up.
 */
export async function describeError(error: unknown): Promise<string> {
  // Loaded here rather than up front: a command that never touches JetStream starts faster.
  const { JetStreamApiError } = await import('@slipstream/jetstream');
  if (error instanceof JetStreamApiError) {
    return `${error.message} (status ${error.status}, err_code ${error.code})`;
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause && !error.message.includes(cause.slice(2)) ? cause : ''}`;
  }
  return String(error);
}
