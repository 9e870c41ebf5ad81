/**
 * HTTP layer shared by every function: the entry helper (route lookup, method dispatch, preflight,
 * 405, 404), problem+json, CORS, cache, ETag and declarative query parsing. The JSON body reader is
 * imported from `./body.js` by the entries that read bodies only, so read-only functions do not carry
 * the validator.
 * The error type itself lives below this layer, in `api/_lib/errors.ts`. See docs/architecture.md.
 */
export { ServiceError, isServiceError, STATUS_OF, type ErrorCode, type FieldProblem } from '../errors.js';
export {
  CACHE_MAX_AGE_S,
  cachedResponse,
  corsHeaders,
  etagOf,
  idempotentAnswer,
  jsonResponse,
  notModified,
  plainJson,
  publicCacheHeaders,
  toProblemResponse,
  truncate,
  type CachedOptions,
  type IdempotentAnswerOptions,
} from './respond.js';
export { clampHeaders, parseQuery, type ParamSpec, type ParseResult, type Parsed } from './params.js';
export { actorName, defineEntry, principalOf, type Caller, type EntryExports, type RouteContext, type RouteHandler } from './entry.js';
