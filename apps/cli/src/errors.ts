/**
 * The one line a failed command prints: the error's message (and its cause's, unless the message
 * already holds it), with the JetStream status and err_code when the server answered with one,
 * so it can be looked up. Line breaks inside a message (OpenSSL ends its own with one) become
 * spaces, so that the error stays one line.
 */
export async function describeError(error: unknown): Promise<string> {
  // Loaded here rather than up front: a command that never touches JetStream starts faster.
  const { JetStreamApiError } = await import('@slipstream/jetstream');
  let text = String(error);
  if (error instanceof JetStreamApiError) {
    text = `${error.message} (status ${error.status}, err_code ${error.code})`;
  } else if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : '';
    text = cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
  }
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
