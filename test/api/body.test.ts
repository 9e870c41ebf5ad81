// The one JSON body reader (api/_lib/http/body.ts): byte cap (413), content type (415), empty, non-UTF-8
// and malformed JSON with its position (400), and schema validation reporting every bad field at once as a
// JSON pointer, unknown fields included (400 INVALID_BODY). The schema is schemas/requests/
// verify-send-to-account.schema.json (spec 4.8).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonDepth, MAX_BODY_DEPTH, MERGE_PATCH_TYPES, readJsonBody } from '../../api/_lib/http/body.js';
import { ServiceError, type ErrorCode } from '../../api/_lib/errors.js';
import { toProblemResponse } from '../../api/_lib/http/respond.js';

const GOOD = { studioId: 'STUDIO_7QF3K2M9', amount: 25, purpose: 'verify', idempotencyKey: 'verify-0001' };

function post(body: BodyInit | null, headers: Record<string, string> = { 'Content-Type': 'application/json' }): Request {
  return new Request('http://t/api/wallet/verify-send-to-account', { method: 'POST', body, headers });
}

/** The ServiceError `p` rejects with. */
async function refusalOf(p: Promise<unknown>): Promise<ServiceError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ServiceError);
  return e as ServiceError;
}

async function refusal(request: Request, maxBytes?: number): Promise<ServiceError> {
  try {
    await readJsonBody(request, { schema: 'verify-send-to-account', ...(maxBytes === undefined ? {} : { maxBytes }) });
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a refusal');
}

async function expectRefusal(request: Request, code: ErrorCode, status: number, maxBytes?: number): Promise<ServiceError> {
  const e = await refusal(request, maxBytes);
  expect(e.code).toBe(code);
  expect(toProblemResponse(e).status).toBe(status);
  return e;
}

describe('accepted bodies', () => {
  it('returns the parsed body', async () => {
    expect(await readJsonBody(post(JSON.stringify(GOOD)), { schema: 'verify-send-to-account' })).toEqual(GOOD);
  });

  it('accepts application/json with a UTF-8 charset', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/json']) {
      expect(await readJsonBody(post(JSON.stringify(GOOD), { 'Content-Type': type }), { schema: 'verify-send-to-account' }), type).toEqual(
        GOOD,
      );
    }
  });

  it('accepts a body exactly at the cap', async () => {
    const text = JSON.stringify(GOOD);
    const n = new TextEncoder().encode(text).byteLength;
    expect(await readJsonBody(post(text), { schema: 'verify-send-to-account', maxBytes: n })).toEqual(GOOD);
  });
});

describe('415 UNSUPPORTED_MEDIA_TYPE', () => {
  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/json; charset=latin1'], ['']])(
    'Content-Type %j',
    async (type) => {
      await expectRefusal(post(JSON.stringify(GOOD), type ? { 'Content-Type': type } : {}), 'UNSUPPORTED_MEDIA_TYPE', 415);
    },
  );
});

describe('413 PAYLOAD_TOO_LARGE', () => {
  it('refuses one byte over the cap, read from the stream', async () => {
    const text = JSON.stringify(GOOD);
    const n = new TextEncoder().encode(text).byteLength;
    await expectRefusal(post(text), 'PAYLOAD_TOO_LARGE', 413, n - 1);
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const request = new Request('http://t/x', {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(10 * 1024 * 1024) },
      duplex: 'half',
    } as RequestInit);
    await expectRefusal(request, 'PAYLOAD_TOO_LARGE', 413, 64 * 1024);
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it('stops reading an endless stream at the cap', async () => {
    const stream = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new Uint8Array(4096).fill(32)) });
    const request = new Request('http://t/x', {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expectRefusal(request, 'PAYLOAD_TOO_LARGE', 413, 10_000);
  });
});

describe('400 INVALID_BODY before validation', () => {
  it('refuses an empty body', async () => {
    await expectRefusal(post(''), 'INVALID_BODY', 400);
    await expectRefusal(post(null), 'INVALID_BODY', 400);
  });

  it('refuses bytes that are not UTF-8', async () => {
    await expectRefusal(post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), 'INVALID_BODY', 400);
  });

  it.each([
    ['{"amount": 25,}', 1, 15],
    ['{\n  "amount": 25\n  "purpose": "verify"\n}', 3, 3],
    ['{"a": 1} // note', 1, 10],
    ["{'a': 1}", 1, 2],
    ['[1, 2', 1, 6],
  ])('names the position of malformed JSON: %j', async (text, line, column) => {
    const e = await expectRefusal(post(text), 'INVALID_BODY', 400);
    expect(e.message).toContain(`line ${line}, column ${column}`);
    expect(e.errors[0]?.message).toContain(`line ${line}, column ${column}`);
  });

  it(`refuses arrays and objects nested more than ${MAX_BODY_DEPTH} levels, before the schema sees them`, async () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const e = await expectRefusal(post(`{"amount": ${nested(MAX_BODY_DEPTH)}}`), 'INVALID_BODY', 400);
    expect(e.message).toContain(`more than ${MAX_BODY_DEPTH} levels deep`);
    // at the bound the schema judges it (one wrong field, not the depth)
    const atBound = await expectRefusal(post(`{"amount": ${nested(MAX_BODY_DEPTH - 1)}}`), 'INVALID_BODY', 400);
    expect(atBound.message).not.toContain('levels deep');
    // thirty thousand levels (just under the byte cap) is refused the same way, without a stack overflow
    expect((await refusal(post(`{"a": ${nested(30_000)}}`))).message).toContain('levels deep');
    // and so is deep text that never closes (the position finder of malformed JSON recurses)
    for (const open of ['{"stats":' + '{"a":'.repeat(10_000), '['.repeat(10_000)]) {
      const e = await refusal(post(open));
      expect([e.code, e.message]).toEqual([
        'INVALID_BODY',
        `The body nests arrays and objects more than 32 levels deep; no request takes that.`,
      ]);
    }
  });
});

describe('jsonDepth', () => {
  it('counts the levels of arrays and objects on the text; a scalar is 0; brackets in strings do not count', () => {
    expect(jsonDepth('1')).toBe(0);
    expect(jsonDepth('null')).toBe(0);
    expect(jsonDepth('{}')).toBe(1);
    expect(jsonDepth('[[], { "a": [1] }]')).toBe(3);
    expect(jsonDepth('{ "a": 1, "b": { "c": { "d": [] } } }')).toBe(4);
    expect(jsonDepth('{ "a": "[[[{{{", "b": "\\" , "c": "\\"[[" }')).toBe(1);
    expect(jsonDepth('{ "a": "\\\\", "b": [] }')).toBe(2);
  });

  it('stops counting just past the limit, and counts malformed text too', () => {
    expect(jsonDepth('['.repeat(50) + ']'.repeat(50), 5)).toBe(6);
    expect(jsonDepth('['.repeat(50) + ']'.repeat(50), 100)).toBe(50);
    expect(jsonDepth('{"a":'.repeat(10_000), 100)).toBe(101);
  });
});

describe('400 INVALID_BODY from the schema: every bad field at once, by JSON pointer', () => {
  it('lists each missing, wrong and unknown field', async () => {
    const e = await expectRefusal(
      post(JSON.stringify({ studioId: 'nope', amount: 0, purpose: 'gift', idempotencyKey: 'short', extra: 1, 'a/b': 2 })),
      'INVALID_BODY',
      400,
    );
    const names = [...new Set(e.errors.map((x) => x.name))].sort();
    expect(names).toEqual(['/amount', '/a~1b', '/extra', '/idempotencyKey', '/purpose', '/studioId']);
    expect(e.errors.find((x) => x.name === '/extra')?.message).toContain('Unknown field "extra"');
    expect(e.errors.find((x) => x.name === '/purpose')?.message).toContain('"verify"');
  });

  it('names required fields by their pointer and says one account selector is needed', async () => {
    const e = await expectRefusal(post('{}'), 'INVALID_BODY', 400);
    const byName = Object.fromEntries(e.errors.map((x) => [x.name, x.message]));
    expect(Object.keys(byName).sort()).toEqual(['', '/amount', '/idempotencyKey', '/purpose']);
    expect(byName['']).toBe('One of "studioId" or "accountId" is required.');
    expect(byName['/amount']).toBe('"amount" is required.');
  });

  it('refuses a body that is not an object', async () => {
    for (const text of ['[]', '"x"', '42', 'null']) {
      const e = await expectRefusal(post(text), 'INVALID_BODY', 400);
      expect(
        e.errors.some((x) => x.name === ''),
        text,
      ).toBe(true);
    }
  });

  it('accepts accountId as the selector and refuses a non-uuid one', async () => {
    const rest: Partial<typeof GOOD> = { ...GOOD };
    delete rest.studioId;
    expect(
      await readJsonBody(post(JSON.stringify({ ...rest, accountId: '0b7e5a3c-2f1d-4c8e-9a6b-1d2e3f4a5b6c' })), {
        schema: 'verify-send-to-account',
      }),
    ).toMatchObject({ amount: 25 });
    const e = await expectRefusal(post(JSON.stringify({ ...rest, accountId: 'not-a-uuid' })), 'INVALID_BODY', 400);
    expect(e.errors.map((x) => x.name)).toEqual(['/accountId']);
  });
});

describe('media types, chunks and caps in detail', () => {
  it("takes the route's media types only (default application/json) and a utf8 charset, refusing look-alikes", async () => {
    for (const type of ['application/json;charset=utf8', 'application/json; foo=bar']) {
      expect(await readJsonBody(post(JSON.stringify(GOOD), { 'Content-Type': type }), { schema: 'verify-send-to-account' }), type).toEqual(
        GOOD,
      );
    }
    // a merge patch is taken where the route declares it, and only there
    const patch = { schema: 'verify-send-to-account', mediaTypes: MERGE_PATCH_TYPES };
    expect(await readJsonBody(post(JSON.stringify(GOOD), { 'Content-Type': 'application/merge-patch+json' }), patch)).toEqual(GOOD);
    expect(await readJsonBody(post(JSON.stringify(GOOD), { 'Content-Type': 'application/json' }), patch)).toEqual(GOOD);
    for (const type of [
      'application/merge-patch+json',
      'application/vnd.api+json',
      'text/json',
      'application/json-seq',
      'xapplication/vnd+json',
      'application/vnd+jsonx',
      'application/+json',
      'application/json; charset=utf-16',
    ]) {
      await expectRefusal(post(JSON.stringify(GOOD), { 'Content-Type': type }), 'UNSUPPORTED_MEDIA_TYPE', 415);
    }
  });

  it('tells the client what to send on a 415 (Accept-Post, Accept-Patch)', async () => {
    const e = await expectRefusal(post(JSON.stringify(GOOD), { 'Content-Type': 'text/plain' }), 'UNSUPPORTED_MEDIA_TYPE', 415);
    const res = toProblemResponse(e);
    expect(res.headers.get('accept-post')).toBe('application/json');
    expect(e.message).toBe('Send the body as JSON with Content-Type: application/json (UTF-8).');
    const patch = new Request('http://t/api/island/state', { method: 'PATCH', body: '{}', headers: { 'Content-Type': 'text/plain' } });
    const refused = await refusalOf(readJsonBody(patch, { schema: 'island-state-patch', mediaTypes: MERGE_PATCH_TYPES }));
    expect(toProblemResponse(refused).headers.get('accept-patch')).toBe('application/merge-patch+json, application/json');
    expect(refused.message).toBe('Send the body as JSON with Content-Type: application/merge-patch+json or application/json (UTF-8).');
  });

  it('joins a body sent in several chunks', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(GOOD));
    const parts = [bytes.slice(0, 5), bytes.slice(5, 17), bytes.slice(17)];
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = parts.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const request = new Request('http://t/x', {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(await readJsonBody(request, { schema: 'verify-send-to-account' })).toEqual(GOOD);
  });

  it('accepts a declared Content-Length exactly at the cap and checks the bytes when the length lies', async () => {
    const text = JSON.stringify(GOOD);
    const n = new TextEncoder().encode(text).byteLength;
    const at = new Request('http://t/x', {
      method: 'POST',
      body: text,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(n) },
    });
    expect(await readJsonBody(at, { schema: 'verify-send-to-account', maxBytes: n })).toEqual(GOOD);
    const lying = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new Uint8Array(1024).fill(32)) });
    const request = new Request('http://t/x', {
      method: 'POST',
      body: lying,
      headers: { 'Content-Type': 'application/json', 'Content-Length': '10' },
      duplex: 'half',
    } as RequestInit);
    await expectRefusal(request, 'PAYLOAD_TOO_LARGE', 413, 4096);
  });

  it('caps bodies at 64 KiB by default', async () => {
    const big = JSON.stringify({ ...GOOD, note: 'n'.repeat(64 * 1024) });
    await expectRefusal(post(big), 'PAYLOAD_TOO_LARGE', 413);
  });

  it('skips a UTF-8 byte order mark', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(JSON.stringify(GOOD))]);
    expect(await readJsonBody(post(bytes), { schema: 'verify-send-to-account' })).toEqual(GOOD);
  });

  it('names the offset of malformed JSON and the body itself as the field', async () => {
    const e = await expectRefusal(post('{\n"a": tru}'), 'INVALID_BODY', 400);
    expect(e.errors).toHaveLength(1);
    expect(e.errors[0]?.name).toBe('');
    expect(e.errors[0]?.message).toContain('line 2, column 6 (offset 7)');
  });

  it('refuses a request schema name that is not a plain file name', async () => {
    await expect(readJsonBody(post(JSON.stringify(GOOD)), { schema: '../requests/verify-send-to-account' })).rejects.toThrow(/schema name/);
  });

  it('names the field of a wrong type by its pointer', async () => {
    const e = await expectRefusal(post(JSON.stringify({ ...GOOD, amount: 'many' })), 'INVALID_BODY', 400);
    expect(e.errors.map((x) => x.name)).toEqual(['/amount']);
  });
});

describe('what a refusal names', () => {
  it('points empty and non-UTF-8 bodies at the whole body (pointer "")', async () => {
    for (const body of ['', new Uint8Array([0x7b, 0xff, 0x7d])]) {
      const e = await expectRefusal(post(body), 'INVALID_BODY', 400);
      expect(e.errors).toHaveLength(1);
      expect(e.errors[0]?.name).toBe('');
      expect(e.errors[0]?.message.length).toBeGreaterThan(0);
      expect(e.message.length).toBeGreaterThan(0);
    }
  });

  it('refuses bytes that are not UTF-8 even inside an otherwise valid JSON string', async () => {
    const head = new TextEncoder().encode(JSON.stringify({ ...GOOD, note: 'x' }).replace('"note":"x"', '"note":"'));
    const bytes = new Uint8Array([...head, 0xc3, 0x28, 0x22, 0x7d]);
    await expectRefusal(post(bytes), 'INVALID_BODY', 400);
  });

  it('reads a body after a UTF-8 byte order mark', async () => {
    const text = JSON.stringify(GOOD);
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    expect(await readJsonBody(post(bytes), { schema: 'verify-send-to-account' })).toEqual(GOOD);
  });

  it('trusts only a Content-Length of plain digits to refuse before reading', async () => {
    const text = JSON.stringify(GOOD);
    for (const declared of ['1e9', '9x', 'x9']) {
      const request = post(text, { 'Content-Type': 'application/json', 'Content-Length': declared });
      expect(await readJsonBody(request, { schema: 'verify-send-to-account', maxBytes: 1000 }), declared).toEqual(GOOD);
    }
  });

  it('says what kind of JSON error it met, for a blank body too', async () => {
    const e = await expectRefusal(post('   '), 'INVALID_BODY', 400);
    expect(e.errors[0]?.message).toContain('ValueExpected');
    expect(e.errors[0]?.message).toContain('line 1, column 4');
  });

  it('escapes ~ and / in the pointer of an unknown field', async () => {
    const e = await expectRefusal(post(JSON.stringify({ ...GOOD, 'a~b/c': 1 })), 'INVALID_BODY', 400);
    expect(e.errors.map((x) => x.name)).toEqual(['/a~0b~1c']);
  });

  it('lists every allowed value of an enum separately, and the expected type of a wrong type', async () => {
    const e = await expectRefusal(post(JSON.stringify({ ...GOOD, purpose: 'gift', amount: 'ten' })), 'INVALID_BODY', 400);
    const byName = Object.fromEntries(e.errors.map((x) => [x.name, x.message]));
    expect(byName['/purpose']).toContain('"verify", "test", "platform_verify", "ledger_verify"');
    expect(byName['/amount']).toContain('integer');
  });

  it('names at most 10 pointers in the detail, all of them in errors[]', async () => {
    const extra = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`x${String(i).padStart(2, '0')}`, i]));
    const e = await expectRefusal(post(JSON.stringify({ ...GOOD, ...extra })), 'INVALID_BODY', 400);
    expect(e.errors).toHaveLength(12);
    expect(e.message).toContain('/x00');
    expect(e.message).toContain('/x09');
    expect(e.message).not.toContain('/x10');
    const root = await expectRefusal(post('[]'), 'INVALID_BODY', 400);
    expect(root.message).toBe('1 invalid field(s) in the body: (the body).');
  });
});

describe('request schema names', () => {
  it('takes only plain names, never a path', async () => {
    const { requestValidator } = await import('../../api/_lib/validation/check.js');
    expect(() => requestValidator('verify-send-to-account/../verify-send-to-account')).toThrow(/Bad request schema name/);
    expect(() => requestValidator('../requests/verify-send-to-account')).toThrow(/Bad request schema name/);
    expect(typeof requestValidator('verify-send-to-account')).toBe('function');
  });
});

describe('exactly one of several members (oneOf)', () => {
  it('names the member to add when none is sent and the one to remove when both are', async () => {
    const { checkBody } = await import('../../api/_lib/validation/check.js');
    const base = { definitionId: 'ITEM-20260601093000-00010D-B1F512C1', idempotencyKey: 'one-of-key-1' };
    const problems = (value: unknown) => {
      try {
        checkBody('item-mint', value);
      } catch (e) {
        return (e as { errors: unknown[] }).errors;
      }
      return [];
    };
    expect(problems({ ...base, studioId: 'STUDIO_A', accountId: '00000000-0000-4000-8000-000000000001' })).toEqual([
      { name: '/accountId', message: 'Send exactly one of "studioId" or "accountId", not both.' },
    ]);
    expect(problems(base)).toEqual([{ name: '/studioId', message: 'One of "studioId" or "accountId" is required.' }]);
    expect(problems({ ...base, studioId: 'STUDIO_A' })).toEqual([]);
  });
});

describe('the generated request validators (npm run validators)', () => {
  it('are what Ajv compiles from schemas/requests/ today', async () => {
    const { renderRequestValidators, REQUEST_VALIDATORS_FILE } = await import('../../dev/request-validators.js');
    expect(readFileSync(join(import.meta.dirname, '../..', REQUEST_VALIDATORS_FILE), 'utf8')).toBe(renderRequestValidators());
  });

  it('has one validator per schema file, and a schema the generator cannot map is refused', async () => {
    const { renderRequestValidators } = await import('../../dev/request-validators.js');
    const { default: validators } = await import('../../api/_lib/validation/request-validators.js');
    const names = readdirSync(join(import.meta.dirname, '../../schemas/requests'))
      .filter((f) => f.endsWith('.schema.json'))
      .map((f) => f.replace('.schema.json', ''));
    expect(Object.keys(validators).sort()).toEqual(names.sort());
    const dir = mkdtempSync(join(tmpdir(), 'validators-'));
    try {
      writeFileSync(
        join(dir, 'a-b.schema.json'),
        JSON.stringify({
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $id: 'https://x.test/a-b.json',
          type: 'string',
          maxLength: 3,
        }),
      );
      const text = renderRequestValidators(dir);
      expect(text).toContain('export default { "a-b": aB };');
      expect(text).toContain('= ucs2length;');
      expect(text).not.toMatch(/\brequire\(/);
      writeFileSync(
        join(dir, 'c.schema.json'),
        JSON.stringify({
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $id: 'https://x.test/c.json',
          type: 'object',
          properties: { a: { const: { b: [1] } } },
        }),
      );
      expect(() => renderRequestValidators(dir)).toThrow(/requires a module not mapped here: require\("ajv\/dist\/runtime\/equal"\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
