/**
 * The API reference page (`/docs/`): Scalar's API reference renders `/api/openapi.json`, the OpenAPI 3.1
 * document the build generates (`build/openapi/document.ts`). Scalar's standalone bundle is served from this
 * site (`/docs/scalar-standalone.js`, copied by vite.config.ts) and loaded here, then configured to load
 * nothing from elsewhere: no web fonts, no telemetry, no assistant, requests sent straight to this origin.
 */

/** What this page uses of Scalar's global (`@scalar/api-reference`, standalone build). */
interface ScalarGlobal {
  createApiReference(selector: string, configuration: Record<string, unknown>): unknown;
}

/** The document the page renders. */
export const OPENAPI_URL = '/api/openapi.json';
/** Scalar's standalone bundle, as this site serves it. */
export const RENDERER_URL = '/docs/scalar-standalone.js';

const status = document.getElementById('docs-status');
const failed = (): void => {
  if (status) status.textContent = `The API reference renderer did not load. The OpenAPI document is at ${OPENAPI_URL}.`;
};

const script = document.createElement('script');
script.src = RENDERER_URL;
script.onerror = failed;
script.onload = () => {
  const scalar = (globalThis as { Scalar?: ScalarGlobal }).Scalar;
  if (!scalar) return failed();
  scalar.createApiReference('#reference', {
    url: OPENAPI_URL,
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    documentDownloadType: 'json',
  });
  status?.remove();
};
document.head.append(script);
