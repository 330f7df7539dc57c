/**
 * Starts a server, again after a pause when it exits before it is ready because its program is
 * missing: on a machine where the workspace is rebuilt while the campaign runs, slipstream-server's
 * bundle is gone for a moment. Any other failure is the server's, and is thrown at once.
 */
export async function startRetryingRebuilds<T>(
  start: () => Promise<T>,
  log: (line: string) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const message = (error as Error).message;
      if (attempt >= 5 || !message.includes('ERR_MODULE_NOT_FOUND')) throw error;
      log(`the server's program was missing (rebuilt meanwhile?); starting it again in 5 s`);
      await new Promise((r) => setTimeout(r, 5_000));
    }
  }
}
