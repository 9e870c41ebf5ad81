/**
 * The typed client of the game-data service: `GameDataClient` has one method per route of the service's
 * OpenAPI document (catalog files, search, export, collections, registries, wallet, admin, storage, player
 * state, identity, unique items), typed from the same JSON Schemas that validate the service's requests and
 * answers. Refusals reject with `ApiError`, whose `code` is the problem's (spec §7).
 *
 * ```ts
 * import { GameDataClient, ApiError } from '@game-data/client';
 * const api = new GameDataClient({ baseUrl: 'https://catalog.example' });
 * const { body } = await api.search({ query: { q: 'blade', type: 'weapons' } });
 * ```
 */
export * from './generated.js';
export {
  ApiError,
  fillPath,
  send,
  type ApiResponse,
  type Call,
  type CallOptions,
  type ClientOptions,
  type ProblemField,
  type Security,
  type UploadFile,
} from './runtime.js';
