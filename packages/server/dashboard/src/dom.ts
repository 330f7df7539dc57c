/**
 * Builds the page's elements. Every text, whatever the server sent (a stream name, a subject, a
 * payload), goes in as a text node, never as markup: nothing here parses HTML.
 */
export type Child = Node | string | number | null | undefined | false;

type Props = Record<string, string | number | boolean | EventListener | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `parent` holds with `children`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A link inside the dashboard: `#/` followed by each part, escaped. */
export function pageLink(parts: readonly string[], ...children: Child[]): HTMLAnchorElement {
  return h('a', { href: `#/${parts.map(encodeURIComponent).join('/')}` }, ...children);
}

/** A titled block of the page. */
export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...children);
}

/** Label/value pairs, laid out in as many columns as fit. */
export function facts(rows: readonly [string, Child][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...rows.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
  );
}

/** Said where contents would be when the server keeps them back. */
export function contentsNote(): HTMLElement {
  return h(
    'p',
    { class: 'muted', 'data-testid': 'contents-note' },
    'Message, KV and object contents are shown only when the monitoring port has basic auth (the monitoringAuth option).',
  );
}

export function errorBox(error: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, (error as Error).message ?? String(error));
}
