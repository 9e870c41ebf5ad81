// The one error type and its code → status table (api/_lib/errors.ts): the statuses docs/api.md's error
// table documents, a title per code, and what a ServiceError carries to the problem response.
import { describe, expect, it } from 'vitest';
import { STATUS_OF, ServiceError, TITLE_OF, isServiceError, type ErrorCode } from '../../api/_lib/errors.js';

/** The "Errors" table of docs/api.md (and docs/architecture.md for 422/412/428/409). */
const DOCUMENTED: Record<ErrorCode, number> = {
  INVALID_QUERY: 400,
  INVALID_BODY: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  ACCOUNT_SUSPENDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PRECONDITION_REQUIRED: 428,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  EXPECTATION_FAILED: 417,
  IDEMPOTENCY_KEY_REUSED: 422,
  HEADERS_TOO_LARGE: 431,
  TOO_MANY_REQUESTS: 429,
  UPSTREAM_UNAVAILABLE: 503,
  INTERNAL: 500,
};

describe('code → status', () => {
  it('maps every code to its documented status, and no other code exists', () => {
    expect({ ...STATUS_OF }).toEqual(DOCUMENTED);
    expect(Object.isFrozen(STATUS_OF)).toBe(true);
  });

  it('gives every code a title of its own', () => {
    const codes = Object.keys(DOCUMENTED) as ErrorCode[];
    expect(Object.keys(TITLE_OF).sort()).toEqual([...codes].sort());
    for (const c of codes) expect(TITLE_OF[c].trim().length, c).toBeGreaterThan(0);
    expect(new Set(codes.map((c) => TITLE_OF[c])).size).toBe(codes.length);
    expect(Object.isFrozen(TITLE_OF)).toBe(true);
  });
});

describe('ServiceError', () => {
  it('carries its code, status, message and nothing else by default', () => {
    const e = new ServiceError('NOT_FOUND', 'no such relic');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ServiceError');
    expect(e.code).toBe('NOT_FOUND');
    expect(e.status).toBe(404);
    expect(e.message).toBe('no such relic');
    expect(e.errors).toEqual([]);
    expect(e.headers).toEqual({});
    expect('cause' in e).toBe(false);
  });

  it('carries field problems, extra headers and a cause', () => {
    const cause = new Error('ENOENT');
    const e = new ServiceError('INVALID_QUERY', 'bad', {
      errors: [{ name: 'tier', message: 'm', value: '9' }],
      headers: { 'Retry-After': '5' },
      cause,
    });
    expect(e.status).toBe(400);
    expect(e.errors).toEqual([{ name: 'tier', message: 'm', value: '9' }]);
    expect(e.headers).toEqual({ 'Retry-After': '5' });
    expect(e.cause).toBe(cause);
  });

  it('is recognised only for real ServiceErrors', () => {
    expect(isServiceError(new ServiceError('INTERNAL', 'x'))).toBe(true);
    expect(isServiceError(new Error('x'))).toBe(false);
    expect(isServiceError({ code: 'NOT_FOUND', name: 'ServiceError' })).toBe(false);
    expect(isServiceError(undefined)).toBe(false);
  });
});
