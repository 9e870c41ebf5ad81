/**
 * What the refusals of the JSON body reader (api/_lib/http/body.ts; docs/architecture.md, "Request
 * bodies") tell a client in their detail text: the byte cap of a 413, the media type to send after a
 * 415, an empty body told apart from malformed JSON, a readable message for a field of the wrong type,
 * and every bad field of a 400 INVALID_BODY named on its own in the detail.
 */
import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../../api/_lib/http/body.js';
import { ServiceError } from '../../api/_lib/errors.js';

const SCHEMA = 'verify-send-to-account';
const GOOD = { studioId: 'STUDIO_7QF3K2M9', amount: 25, purpose: 'verify', idempotencyKey: 'verify-0001' };

function post(body: string, contentType = 'application/json'): Request {
  return new Request('http://t/api/wallet/verify-send-to-account', { method: 'POST', body, headers: { 'Content-Type': contentType } });
}

async function refusal(request: Request, maxBytes?: number): Promise<ServiceError> {
  try {
    await readJsonBody(request, { schema: SCHEMA, ...(maxBytes === undefined ? {} : { maxBytes }) });
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a refusal');
}

describe('refusal details', () => {
  it('names the byte cap a body broke (413)', async () => {
    const e = await refusal(post(JSON.stringify(GOOD)), 37);
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(e.message).toContain('37 bytes');
  });

  it('names the media type and encoding to send instead (415)', async () => {
    const e = await refusal(post(JSON.stringify(GOOD), 'text/plain'));
    expect(e.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(e.message).toContain('application/json');
    expect(e.message).toContain('UTF-8');
  });

  it('words the message of a wrong type as one sentence starting "Must"', async () => {
    const e = await refusal(post(JSON.stringify({ ...GOOD, amount: 'ten', note: 5 })));
    const byName = Object.fromEntries(e.errors.map((x) => [x.name, x.message]));
    expect(byName['/amount']).toBe('Must be an integer.');
    expect(byName['/note']).toBe('Must be a string.');
  });

  it("words every rule a request schema uses as a sentence of its own, never Ajv's fragments", async () => {
    const messages = async (body: unknown, schema: string) => {
      try {
        await readJsonBody(post(JSON.stringify(body)), { schema });
      } catch (e) {
        return Object.fromEntries((e as ServiceError).errors.map((x) => [x.name, x.message]));
      }
      throw new Error('expected a refusal');
    };
    expect(await messages({ ...GOOD, amount: 0, idempotencyKey: 'k', studioId: 'x', accountId: 'no' }, SCHEMA)).toEqual({
      '/amount': 'Must be at least 1.',
      '/idempotencyKey': 'Must match the pattern ^[A-Za-z0-9._:~+/=-]{8,255}$.',
      '/studioId': 'Must match the pattern ^STUDIO_[A-Za-z0-9_-]{1,64}$.',
      '/accountId': 'Must be a valid uuid.',
    });
    expect(await messages({ ...GOOD, amount: 2 ** 60 }, SCHEMA)).toEqual({ '/amount': 'Must be at most 9007199254740991.' });
    expect(await messages({ ...GOOD, note: 'n'.repeat(501) }, SCHEMA)).toEqual({ '/note': 'Must be at most 500 characters long.' });
    // a field's name that breaks propertyNames is named by the field, and the sentence is about the name
    expect(
      await messages({ idempotencyKey: 'progress-0001', progress: { attributes: { strength: 3 } } }, 'character-progress-patch'),
    ).toEqual({
      '/progress/attributes/strength': 'The field name "strength" must match the pattern ^[A-Z]{3}$.',
    });
    // two fields that exclude each other
    const both = {
      event: 'transferred',
      idempotencyKey: 'move-0001',
      toStudioId: 'STUDIO_AB',
      toAccountId: '3f2b8c1e-7a4d-4e6b-9c0f-1d2e3f4a5b6c',
    };
    expect(await messages(both, 'item-event')).toEqual({ '': 'Must not hold "toStudioId" and "toAccountId" together; send one of them.' });
    // every message is a sentence: a capital first, a full stop last, no Ajv fragment
    const all = Object.values(await messages({ ...GOOD, amount: 'x', purpose: 1, note: [], extra: true }, SCHEMA));
    for (const m of all) {
      expect(m).toMatch(/^[A-Z"].*\.$/);
      expect(m).not.toMatch(/must must|Must must|must NOT|must be valid/i);
    }
  });

  it('tells an empty body from malformed JSON', async () => {
    const empty = await refusal(post(''));
    expect(empty.code).toBe('INVALID_BODY');
    expect(empty.message).toMatch(/required/);
    expect(empty.errors).toEqual([{ name: '', message: 'The body is empty.' }]);
    const blank = await refusal(post(' '));
    expect(blank.code).toBe('INVALID_BODY');
    expect(blank.errors[0]?.message).toMatch(/line 1, column 2/);
  });

  it('names each bad field of the body on its own in the detail', async () => {
    const e = await refusal(post(JSON.stringify({ ...GOOD, amount: 0, purpose: 'gift' })));
    expect(e.code).toBe('INVALID_BODY');
    const listed = e.message
      .slice(e.message.indexOf(':') + 1)
      .replace(/\.$/, '')
      .split(',')
      .map((s) => s.trim());
    expect(listed.sort()).toEqual(['/amount', '/purpose']);
  });
});
