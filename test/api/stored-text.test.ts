/**
 * The stored-text rule (`api/_lib/text/stored.ts`) and where it applies (`api/_lib/validation/stored-text.ts`;
 * docs/architecture.md, "Stored text"): NFC, no C0/C1 control characters (line feed and tab only in
 * multi-line text), no lone surrogates, no bidi overrides or isolates, a bound counted after normalising;
 * every free-text string of every request schema is in the table, and `checkBody` names every bad field
 * and stores the NFC form.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanStoredText, storedText, storedTextProblem } from '../../api/_lib/text/stored.js';
import { applyStoredText, STORED_TEXT_FIELDS } from '../../api/_lib/validation/stored-text.js';
import { checkBody } from '../../api/_lib/validation/check.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { REPO_ROOT } from '../helpers/catalog.js';

describe('the stored-text rule', () => {
  it('refuses every C0 and C1 control character and DEL in single-line text, naming the code point and its place', () => {
    for (let c = 0; c <= 0x9f; c++) {
      if (c >= 0x20 && c < 0x7f) continue;
      const ch = String.fromCodePoint(c);
      expect(storedTextProblem(`ab${ch}c`, 'line', 10), `U+${c.toString(16)}`).toBe(
        `Holds a control character (U+${c.toString(16).toUpperCase().padStart(4, '0')}) at character 3.`,
      );
    }
    expect(storedTextProblem('plain text é', 'line', 20)).toBeUndefined();
  });

  it('allows the line feed and the tab in multi-line text, nothing else below U+0020', () => {
    expect(storedTextProblem('line one\n\tline two', 'lines', 100)).toBeUndefined();
    expect(storedTextProblem('crlf\r\n', 'lines', 100)).toBe(
      'Holds a control character (U+000D) at character 5 (line feeds and tabs are allowed).',
    );
    expect(storedTextProblem('nul\u0000', 'lines', 100)).toMatch(/U\+0000/);
    expect(storedTextProblem('tab\t', 'line', 100)).toMatch(/U\+0009/);
  });

  it('refuses a lone surrogate and each bidi override or isolate', () => {
    expect(storedTextProblem('a\ud800b', 'line', 10)).toBe('Holds a lone surrogate (half of a UTF-16 pair), which is not a character.');
    expect(storedTextProblem('a\udfffb', 'lines', 10)).toMatch(/lone surrogate/);
    expect(storedTextProblem('😀', 'line', 10)).toBeUndefined();
    for (const c of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(storedTextProblem(`x${String.fromCodePoint(c)}`, 'lines', 10)).toMatch(/a bidirectional override or isolate \(U\+20/);
    }
    // the marks are not overrides: they stay
    expect(storedTextProblem('a\u200eb\u200fc', 'line', 10)).toBeUndefined();
  });

  it('normalises to NFC and counts code points of the normal form against the bound', () => {
    const decomposed = 'E\u0301pe\u0301e'; // É p é e, decomposed
    expect(storedText(decomposed, 'line', 4)).toBe('Épée');
    expect(storedText(decomposed, 'line', 4)).not.toBe(decomposed);
    expect(storedTextProblem('😀😀😀', 'line', 3)).toBeUndefined();
    expect(storedTextProblem('😀😀😀😀', 'line', 3)).toBe('Has 4 characters once normalised (NFC); at most 3 are kept.');
    expect(() => storedText('a\u0000', 'line', 4)).toThrow(/control character/);
  });

  it('cleans text from outside: forbidden characters removed, lone surrogates replaced, NFC, cut, a fallback for nothing left', () => {
    expect(cleanStoredText('A\u0000d\u202Ea\u0301\ud800', 'line', 64, 'x')).toBe('Adá\ufffd');
    expect(cleanStoredText('abcdef', 'line', 3, 'x')).toBe('abc');
    expect(cleanStoredText('\u0000\u0001 ', 'line', 10, 'fallback')).toBe('fallback');
    // multi-line text keeps its line feeds and tabs, and loses every other control; single-line text loses them all
    expect(cleanStoredText('a\nb\tc\r\u0000d\u0085', 'lines', 64, 'x')).toBe('a\nb\tcd');
    expect(cleanStoredText('a\nb\tc\r\u0000d\u0085', 'line', 64, 'x')).toBe('abcd');
  });
});

/** Every string field of a schema without a pattern, an enum, a format or a const: `[pointer, maxLength]`. */
function freeStrings(node: unknown, at: string, out: [string, number | undefined][]): void {
  if (node === null || typeof node !== 'object') return;
  const n = node as Record<string, unknown>;
  const types = Array.isArray(n.type) ? n.type : [n.type];
  if (types.includes('string') && !['pattern', 'enum', 'format', 'const'].some((k) => k in n))
    out.push([at, n.maxLength as number | undefined]);
  for (const [k, v] of Object.entries(n.properties ?? {})) freeStrings(v, `${at}/${k}`, out);
  if (n.items) freeStrings(n.items, `${at}/*`, out);
}

/** Strings that are not free text: ids checked against the catalog, storage keys and types checked by their own rules. */
const NOT_TEXT: Readonly<Record<string, readonly string[]>> = {
  'character-create': ['/classId', '/raceId', '/factionId'],
  'storage-presign': ['/key', '/contentType'],
  'storage-register': ['/entries/*/key'],
  'storage-upload': ['/folder'],
};

describe('the stored-text fields of the request schemas', () => {
  it('list every free-text string of every request schema, with the schema bound', () => {
    const dir = join(REPO_ROOT, 'schemas/requests');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.schema.json'))) {
      const name = file.slice(0, -'.schema.json'.length);
      const found: [string, number | undefined][] = [];
      freeStrings(JSON.parse(readFileSync(join(dir, file), 'utf8')), '', found);
      const listed = STORED_TEXT_FIELDS[name] ?? {};
      for (const [pointer, max] of found) {
        if (NOT_TEXT[name]?.includes(pointer)) continue;
        expect(listed[pointer], `${name} ${pointer} is free text the table leaves out`).toBeDefined();
        expect(listed[pointer]!.maxLength, `${name} ${pointer}`).toBe(max);
      }
    }
    // names and usernames have patterns in their schemas, and are stored text all the same
    expect(Object.keys(STORED_TEXT_FIELDS['create-account']!)).toEqual(['/displayName', '/username']);
    expect(Object.keys(STORED_TEXT_FIELDS['character-create']!)).toEqual(['/name']);
  });

  it('names every bad field (array items included) and changes nothing; a good body gets its NFC form', () => {
    const body = {
      progress: {
        skill_loadouts: [
          { name: 'ok\u0301', skills: [] },
          { name: 'bad\u202e', skills: [] },
          { name: 'bad\u0007', skills: [] },
        ],
      },
    };
    expect(applyStoredText('character-progress-patch', body)).toEqual([
      { name: '/progress/skill_loadouts/1/name', message: 'Holds a bidirectional override or isolate (U+202E) at character 4.' },
      { name: '/progress/skill_loadouts/2/name', message: 'Holds a control character (U+0007) at character 4.' },
    ]);
    expect(body.progress.skill_loadouts[0]!.name).toBe('ok\u0301');
    const good = { progress: { skill_loadouts: [{ name: 'Cafe\u0301', skills: [] }] } };
    expect(applyStoredText('character-progress-patch', good)).toEqual([]);
    expect(good.progress.skill_loadouts[0]!.name).toBe('Café');
    expect(applyStoredText('item-mint', { definitionId: 'x\u0000' })).toEqual([]);
  });

  it('are checked by checkBody after the schema: a 400 listing them, or the body in stored form', () => {
    const base = { studioId: 'STUDIO_0000000000000000', amount: 1, purpose: 'verify', idempotencyKey: 'stored-text-01' };
    let error: unknown;
    try {
      checkBody('verify-send-to-account', { ...base, note: 'x\u0000y' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).errors).toEqual([
      { name: '/note', message: 'Holds a control character (U+0000) at character 2 (line feeds and tabs are allowed).' },
    ]);
    expect(checkBody<{ note: string }>('verify-send-to-account', { ...base, note: 'A\u030a' }).note).toBe('Å');
  });
});
