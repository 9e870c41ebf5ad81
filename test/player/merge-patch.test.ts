/**
 * JSON Merge Patch (RFC 7396; `api/_lib/util/merge-patch.ts`), used by the island and character progress
 * PATCH routes (spec 2.8, 2.9): the RFC's own examples (Appendix A), inputs left unchanged, members that
 * stay ordinary data (enumerable, writable, configurable), and a member named `__proto__` kept as a member.
 */
import { describe, expect, it } from 'vitest';
import { mergePatch, type Json } from '../../api/_lib/util/merge-patch.js';

describe('mergePatch', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ] as [Json, Json, Json][])('RFC 7396 Appendix A: %j patched by %j is %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });

  it('changes neither input, and answers a new object', () => {
    const target: Json = { a: { b: 1 }, c: [1, 2] };
    const patch: Json = { a: { b: 2 }, d: 3 };
    const before = JSON.stringify([target, patch]);
    const out = mergePatch(target, patch);
    expect(JSON.stringify([target, patch])).toBe(before);
    expect(out).not.toBe(target);
    expect(out).toEqual({ a: { b: 2 }, c: [1, 2], d: 3 });
  });

  it('merges into nothing when the target is missing or not an object', () => {
    expect(mergePatch(undefined, { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } });
    expect(mergePatch('text', { a: 1 })).toEqual({ a: 1 });
    expect(mergePatch(null, { a: 1 })).toEqual({ a: 1 });
  });

  it('makes every merged member ordinary data, a __proto__ member included', () => {
    const out = mergePatch({ keep: 1 }, JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as Json) as Record<string, Json>;
    for (const name of ['keep', 'a', '__proto__'])
      expect(Object.getOwnPropertyDescriptor(out, name)).toMatchObject({ enumerable: true, writable: true, configurable: true });
    expect(Object.keys(out)).toEqual(['keep', 'a', '__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
