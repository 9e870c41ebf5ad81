/**
 * HTTP layer shared by every function: errors (closed code union), problem+json, CORS, cache, ETag,
 * declarative query parsing. See ARCHITECTURE.md "Errors and configuration".
 */
export { ServiceError, isServiceError, STATUS_OF, type ErrorCode, type FieldProblem } from './errors.js';
export {
  CACHE_MAX_AGE_S,
  cachedResponse,
  corsHeaders,
  etagOf,
  handle,
  jsonResponse,
  notModified,
  plainJson,
  preflight,
  toProblemResponse,
  type CachedOptions,
} from './respond.js';
export { clampHeaders, parseQuery, type ParamSpec, type ParseResult, type Parsed } from './params.js';
