/**
 * Public paths of the registry function (`api/registries.ts`; spec §4.3, §4.5, §4.6). The registry file paths
 * and shapes live in `api/_lib/formats/registries.ts`.
 */

/** Entry file of the registry functions; `vercel.json` rewrites every path below onto it. */
export const REGISTRIES_FUNCTION = '/api/registries';

/**
 * Public paths served by `api/registries.ts` and the `_route` each one maps to. `:key` is one path
 * segment, passed as `_key`. Fixed paths come before the `:key` path of the same folder (first match wins).
 */
export const REGISTRY_ROUTES = [
  { route: 'sprites', path: '/api/v1/sprites' },
  { route: 'sprites-search', path: '/api/v1/sprites/search' },
  { route: 'sprite', path: '/api/v1/sprites/:key' },
  { route: 'characters', path: '/api/v1/characters' },
  { route: 'character', path: '/api/v1/characters/:key' },
  { route: 'stats', path: '/api/v1/stats' },
  { route: 'icons', path: '/api/v1/icons' },
  { route: 'icons-search', path: '/api/v1/icons/search' },
  { route: 'icons-by-path', path: '/api/v1/icons/by-path' },
  { route: 'icons-categories', path: '/api/v1/icons/categories' },
  { route: 'icon', path: '/api/v1/icons/:key' },
  { route: 'legacy-categories', path: '/api/assets/categories' },
  { route: 'legacy-search', path: '/api/assets/search' },
  { route: 'legacy-asset', path: '/api/assets/:key' },
  { route: 'studiodot-assets', path: '/api/v1/studiodot-assets' },
  { route: 'studiodot-assets-categories', path: '/api/v1/studiodot-assets/categories' },
] as const;
/** One `_route` value of the registry function. */
export type RegistryRoute = (typeof REGISTRY_ROUTES)[number]['route'];
