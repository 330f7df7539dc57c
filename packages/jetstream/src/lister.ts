/** A paged API listing, as nats.js shapes it: iterate it, or pull it a page at a time. */
export interface Lister<T> extends AsyncIterable<T> {
  /** The next page; an empty array once everything was listed. */
  next(): Promise<T[]>;
}

/** One page of a listing: the server's total and this page's items. */
export interface Page<T> {
  total: number;
  items: T[];
}

/**
 * Walks a paged listing by offset. The offset advances by what each page held (the server's
 * page size is its own business); the walk ends at the total, or at an empty page should the
 * total shrink while listing.
 */
export class PagedLister<T> implements Lister<T> {
  readonly #fetch: (offset: number) => Promise<Page<T>>;
  #offset = 0;
  #done = false;

  constructor(fetch: (offset: number) => Promise<Page<T>>) {
    this.#fetch = fetch;
  }

  async next(): Promise<T[]> {
    if (this.#done) return [];
    const page = await this.#fetch(this.#offset);
    this.#offset += page.items.length;
    if (page.items.length === 0 || this.#offset >= page.total) this.#done = true;
    return page.items;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (let page = await this.next(); page.length > 0; page = await this.next()) yield* page;
  }
}
