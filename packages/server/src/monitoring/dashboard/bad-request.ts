/** A request the dashboard refuses before asking the API (a bad name or number): HTTP 400. */
export class BadDashboardRequest extends Error {
  override readonly name = 'BadDashboardRequest';
}
