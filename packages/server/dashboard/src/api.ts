/** The server's answers, fetched from the page's own origin (the monitoring port). */
export type Params = Record<string, string | number | undefined>;

function url(path: string, params: Params = {}): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export async function getJson<T>(path: string, params?: Params): Promise<T> {
  const response = await fetch(url(path, params), { cache: 'no-store' });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error ?? `${path}: HTTP ${response.status}`);
  return body as T;
}

/** A state-changing request (enabled by the server's `dashboard.actions` option). */
export async function act(action: string, params: Params): Promise<void> {
  const response = await fetch(url(`/dashboard/api/actions/${action}`, params), {
    method: 'POST',
    headers: { 'x-slipstream-dashboard': '1' },
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.error ?? `${action}: HTTP ${response.status}`);
  }
}

export function downloadUrl(path: string, params: Params): string {
  return url(path, params);
}

export interface DashboardConfig {
  actions: boolean;
  /** Whether message, KV and object contents are shown (only behind the port's basic auth). */
  contents: boolean;
  /** The accounts JetStream runs for. */
  jetstream: string[];
  /** Whether accounts are configured. */
  accounts: boolean;
}
