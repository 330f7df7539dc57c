import { type Child, fill, h } from './dom.js';

export interface Column<Row> {
  readonly title: string;
  /** What the cell shows. */
  readonly cell: (row: Row) => Child;
  /** What the column sorts by; a column without one does not sort. */
  readonly sort?: (row: Row) => number | string;
  readonly numeric?: boolean;
}

/**
 * A table whose rows can be replaced while its sort column and filter stay as the user left
 * them: click a heading to sort (again to reverse), type in the filter to keep the rows whose
 * `search` text contains it.
 */
export class DataTable<Row> {
  readonly element: HTMLElement;
  readonly #columns: readonly Column<Row>[];
  readonly #search: ((row: Row) => string) | undefined;
  readonly #head = h('thead');
  readonly #body = h('tbody');
  readonly #summary = h('span', { class: 'muted' });
  #rows: readonly Row[] = [];
  #filter = '';
  #sortBy = -1;
  #descending = false;

  constructor(
    columns: readonly Column<Row>[],
    options: {
      search?: (row: Row) => string;
      label: string;
      sortBy?: number;
      descending?: boolean;
    },
  ) {
    this.#columns = columns;
    this.#search = options.search;
    this.#sortBy = options.sortBy ?? -1;
    this.#descending = options.descending ?? false;
    const filter = this.#search
      ? h('input', {
          type: 'search',
          placeholder: 'Filter',
          'aria-label': `Filter ${options.label}`,
          oninput: (event: Event) => {
            this.#filter = (event.target as HTMLInputElement).value.toLowerCase();
            this.#draw();
          },
        })
      : null;
    this.element = h(
      'div',
      { class: 'table-block' },
      h('div', { class: 'table-tools' }, filter, this.#summary),
      h(
        'div',
        { class: 'scroll' },
        h('table', { 'aria-label': options.label }, this.#head, this.#body),
      ),
    );
    this.#drawHead();
  }

  set rows(rows: readonly Row[]) {
    this.#rows = rows;
    this.#draw();
  }

  #drawHead(): void {
    fill(
      this.#head,
      h(
        'tr',
        {},
        ...this.#columns.map((column, i) => {
          const mark = i === this.#sortBy ? (this.#descending ? ' ▼' : ' ▲') : '';
          const content = column.sort
            ? h(
                'button',
                {
                  class: 'sort',
                  type: 'button',
                  onclick: () => {
                    this.#descending = this.#sortBy === i ? !this.#descending : !!column.numeric;
                    this.#sortBy = i;
                    this.#drawHead();
                    this.#draw();
                  },
                },
                column.title + mark,
              )
            : column.title;
          return h('th', { class: column.numeric ? 'num' : undefined }, content);
        }),
      ),
    );
  }

  #draw(): void {
    let rows = this.#rows;
    if (this.#filter && this.#search) {
      rows = rows.filter((row) => this.#search!(row).toLowerCase().includes(this.#filter));
    }
    const key = this.#columns[this.#sortBy]?.sort;
    if (key) {
      const direction = this.#descending ? -1 : 1;
      rows = [...rows].sort((a, b) => {
        const x = key(a);
        const y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * direction;
      });
    }
    this.#summary.textContent =
      rows.length === this.#rows.length
        ? `${rows.length} rows`
        : `${rows.length} of ${this.#rows.length} rows`;
    fill(
      this.#body,
      ...rows.map((row) =>
        h(
          'tr',
          {},
          ...this.#columns.map((column) =>
            h('td', { class: column.numeric ? 'num' : undefined }, column.cell(row)),
          ),
        ),
      ),
    );
  }
}
