import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, formatErrorDescription, jsErrorByCode, jsErrors } from '../src/index.js';

const scripts = join(import.meta.dirname, '..', 'scripts');

describe('error catalog', () => {
  it('the committed file is exactly what the generator makes from the TSV', async () => {
    const generator = (await import(join(scripts, 'generate-error-catalog.mjs'))) as {
      readRows(): unknown[];
      render(rows: unknown[]): string;
      outputPath: string;
    };
    expect(readFileSync(generator.outputPath, 'utf8')).toBe(generator.render(generator.readRows()));
  });

  it('has every row of the reference TSV, each err_code once', () => {
    const rows = readFileSync(join(scripts, 'jetstream-errors.tsv'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#') && !l.startsWith('constant\t'));
    const entries = Object.values(jsErrors);
    expect(entries).toHaveLength(rows.length);
    expect(entries).toHaveLength(226);
    expect(new Set(entries.map((e) => e.err_code)).size).toBe(entries.length);
    expect(entries.filter((e) => e.inV2_9_10)).toHaveLength(132);
  });

  it('looks entries up by err_code', () => {
    expect(jsErrorByCode(10059)).toBe(jsErrors.JSStreamNotFoundErr);
    expect(jsErrorByCode(10059)).toMatchObject({ code: 404, description: 'stream not found' });
    expect(jsErrorByCode(1)).toBeUndefined();
  });

  it('fills placeholders', () => {
    expect(formatErrorDescription(jsErrors.JSInvalidJSONErr, { err: 'unexpected end' })).toBe(
      'invalid JSON: unexpected end',
    );
    expect(formatErrorDescription(jsErrors.JSConsumerMetadataLengthErrF, { limit: '128KB' })).toBe(
      'consumer metadata exceeds maximum size of 128KB',
    );
    expect(formatErrorDescription(jsErrors.JSStreamNotFoundErr)).toBe('stream not found');
  });
});

describe('ApiError', () => {
  it('is an Error value carrying the codes, and encodes to the wire form', () => {
    const error = ApiError.of(jsErrors.JSStreamNotFoundErr);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 404, errCode: 10059, message: 'stream not found' });
    expect(error.is(jsErrors.JSStreamNotFoundErr)).toBe(true);
    expect(error.is(jsErrors.JSConsumerNotFoundErr)).toBe(false);
    expect(JSON.stringify(error)).toBe(
      '{"code":404,"err_code":10059,"description":"stream not found"}',
    );
  });

  it('maps a response error back to its catalog entry, and tolerates unknown codes', () => {
    const known = new ApiError({
      code: 400,
      err_code: 10071,
      description: 'wrong last sequence: 2',
    });
    expect(known.entry).toBe(jsErrors.JSStreamWrongLastSequenceErrF);
    const unknown = new ApiError({ code: 500, err_code: 19999, description: 'from the future' });
    expect(unknown.entry).toBeUndefined();
    expect(unknown.message).toBe('from the future');
  });
});
