/**
 * What a README may say, read from its Markdown: no issue numbers (a reader has no tracker, and
 * they go stale), and every "not yet", "not implemented" or "not supported" claim backed by a
 * test that keeps it true. Fenced code blocks (example output) are not read, nor code spans for
 * claims.
 */

/** An issue number: "issue 11", "issues #2", "#14". */
const issueNumber = /\bissues?\s+#?\d+|(?<![\w&/#])#\d+\b/gi;
// "not yet", "not implemented", "not supported", and with up to two words between ("not
// supported yet", "not there yet", "not paged in yet")
const claim = /\bnot\s+(?:[\w-]+\s+){0,2}?(?:yet|implemented|supported)\b/i;
/** `<!-- test: path/from/repo/root.test.ts "the test's title" -->` */
const marker = /<!--\s*test:\s*(\S+)\s+"([^"]+)"\s*-->/g;

export interface TestReference {
  readonly path: string;
  readonly title: string;
}

/** A paragraph, list item, table row or heading, with the line it starts on. */
export interface Claim {
  readonly line: number;
  readonly text: string;
  readonly tests: TestReference[];
}

export interface ReadmeFindings {
  /** Lines naming an issue number. */
  readonly issueNumbers: { line: number; text: string }[];
  /** Blocks that say something is not there yet, or that sit under a heading that does. */
  readonly claims: Claim[];
}

interface Block {
  line: number;
  lines: string[];
  heading?: number;
}

export function readReadme(markdown: string): ReadmeFindings {
  const issueNumbers: { line: number; text: string }[] = [];
  const blocks: Block[] = [];
  let current: Block | undefined;
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    if (/^\s*(?:```|~~~)/.test(text)) {
      fenced = !fenced;
      current = undefined;
      return;
    }
    if (fenced) return;
    if (text.match(issueNumber)) issueNumbers.push({ line, text: text.trim() });
    const heading = /^(#{1,6})\s/.exec(text);
    if (text.trim() === '') {
      current = undefined;
    } else if (heading || /^\s*(?:[-*+]|\d+\.)\s|^\s*\|/.test(text) || !current) {
      current = { line, lines: [text], heading: heading?.[1].length };
      blocks.push(current);
      // a heading is a block of its own line
      if (heading) current = undefined;
    } else {
      current.lines.push(text);
    }
  });

  const claims: Claim[] = [];
  // the level of the enclosing heading that says "not yet", if any
  let claimSection: number | undefined;
  for (const block of blocks) {
    const text = block.lines.join('\n');
    if (block.heading !== undefined) {
      if (claimSection !== undefined && block.heading <= claimSection) claimSection = undefined;
      if (claim.test(text)) claimSection = block.heading;
      continue;
    }
    // code spans quote what a program prints or takes, which claims nothing
    const prose = text.replace(/`[^`]*`/g, '').replace(/\s+/g, ' ');
    if (claimSection === undefined && !claim.test(prose)) continue;
    const tests = [...text.matchAll(marker)].map(([, path, title]) => ({ path, title }));
    claims.push({ line: block.line, text, tests });
  }
  return { issueNumbers, claims };
}

/**
 * Whether `source` (a test file) declares a test of that title that keeps a "not yet" true: an
 * `it.todo` (the work still to do), or a running `it`, `test` or `it.each(...)` (one that
 * asserts the refusal; an `it.each` title as written, with its `%s`). A skipped test asserts
 * nothing, so it does not count.
 */
export function declaresTest(source: string, title: string): boolean {
  const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:\\b(?:it|test)(?:\\.todo)?|\\))\\(\\s*(['"\`])${escaped}\\1`).test(source);
}
