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
    expect(byName['/amount']).toBe('Must be integer.');
    expect(byName['/note']).toBe('Must be string.');
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
