// One lint gate for the whole repository (docs/architecture.md, "Habits"): type-aware rules,
// floating promises are errors, and the layer table of docs/architecture.md ("Layers and data flow")
// enforced with `no-restricted-imports`: a module that imports across the layers fails the lint.
import tseslint from 'typescript-eslint';

/** Folders of `api/_lib/`, and its three top-level modules. */
const DOMAIN = [
  'catalog',
  'collections',
  'search',
  'registries',
  'export',
  'ledger',
  'player',
  'island',
  'storage',
  'asset-index',
  'operations',
  'audit',
];
const FOLDERS = ['formats', 'util', 'text', 'validation', 'stores', 'auth', 'throttle', 'routing', 'http', ...DOMAIN];
/** Folders that are store ports: their adapter files follow the adapter rule. */
const PORTS = [...DOMAIN, 'throttle'];
const TOP = ['errors', 'config', 'log'];

/**
 * The layer table: what each folder of `api/_lib/` may import of the others (its own folder always).
 * Keep it equal to the table of docs/architecture.md.
 */
const LAYERS = [
  { folders: ['util', 'text'], may: [] },
  { folders: ['formats'], may: ['util', 'text', 'errors'] },
  { folders: ['validation'], may: ['errors', 'text'] },
  { folders: ['stores'], may: ['errors', 'config', 'util'] },
  { folders: ['auth'], may: ['errors', 'config', 'text'] },
  { folders: ['throttle'], may: ['errors', 'config', 'log', 'util', 'stores'] },
  { folders: ['routing'], may: ['formats'] },
  { folders: ['http'], may: ['errors', 'config', 'log', 'util', 'text', 'formats', 'validation', 'routing', 'auth', 'throttle'] },
  { folders: DOMAIN, may: ['errors', 'config', 'util', 'text', 'formats', 'validation', 'stores', 'auth', ...DOMAIN] },
];

/** Store adapters: one file per backend; none imports another adapter (docs/architecture.md, "How to add a store adapter"). */
const ADAPTERS = ['sqlite', 'redis', 'redis-scripts', 'local', 's3', 'memory'];

const restrict = (patterns, message) => ({ 'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }] });
const OUTSIDE_API = ['../**/build/**', '../**/dev/**', '../**/test/**', '../**/bench/**', '../**/site/**', '../**/client/**'];

/** One config per layer folder, and one for the adapter files of each domain folder (which repeats its layer's rules). */
function layerConfigs() {
  const out = [];
  for (const layer of LAYERS) {
    for (const folder of layer.folders) {
      const banned = [...FOLDERS, ...TOP].filter((x) => x !== folder && !layer.may.includes(x));
      const patterns = [...banned.flatMap((x) => (TOP.includes(x) ? [`../${x}.js`] : [`../${x}/*`])), '../../*.js', ...OUTSIDE_API];
      const message = `api/_lib/${folder}/ may import only ${layer.may.join(', ') || 'nothing'} of api/_lib (docs/architecture.md, "Layers and data flow").`;
      out.push({ files: [`api/_lib/${folder}/**/*.ts`], rules: restrict(patterns, message) });
      if (PORTS.includes(folder)) {
        const adapterPatterns = [...patterns, ...ADAPTERS.map((a) => `../*/${a}.js`), '!../stores/*'];
        for (const a of ['sqlite', 'redis', 'local', 's3', 'memory']) {
          const siblings = ADAPTERS.filter((x) => x !== a && !(a === 'redis' && x === 'redis-scripts')).map((x) => `./${x}.js`);
          out.push({
            files: [`api/_lib/${folder}/${a}.ts`],
            rules: restrict(
              [...adapterPatterns, ...siblings],
              `A store adapter imports no other adapter: it uses the store kit (api/_lib/stores/) and its port's own modules.`,
            ),
          });
        }
      }
    }
  }
  for (const top of ['errors', 'config']) {
    out.push({
      files: [`api/_lib/${top}.ts`],
      rules: restrict(['./*', '../*.js', ...OUTSIDE_API], `api/_lib/${top}.ts sits below every layer: it imports nothing of the service.`),
    });
  }
  out.push({
    files: ['api/_lib/log.ts'],
    rules: restrict(
      ['./*', '!./errors.js', '!./config.js', '../*.js', ...OUTSIDE_API],
      'api/_lib/log.ts sits beside errors and configuration: it imports only errors and config of the service.',
    ),
  });
  return out;
}

/** Modules of api/_lib a site or a build module may read: the formats shared with the functions. */
const apiExcept = (allowed) =>
  [...FOLDERS, ...TOP].filter((x) => !allowed.includes(x)).flatMap((x) => [`**/api/_lib/${x}/**`, `**/api/_lib/${x}.js`]);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'client/dist/**',
      'node_modules/**',
      '.tmp/**',
      'coverage/**',
      'reports/**',
      '.stryker-tmp*/**',
      'api/_lib/validation/request-validators.js',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...layerConfigs(),
  {
    files: ['api/*.ts'],
    rules: restrict(OUTSIDE_API, 'Function entries import only api/ (docs/architecture.md, "Layers and data flow").'),
  },
  {
    files: ['build/**/*.ts'],
    ignores: ['build/openapi/**'],
    rules: restrict(
      [...apiExcept(['formats', 'util', 'text', 'errors', 'export']), '**/api/*.js', '../**/dev/**', '../**/test/**', '../**/site/**'],
      'The build reads the formats it shares with the functions (api/_lib/formats/, util, text, errors, export), never a function or a store (docs/architecture.md).',
    ),
  },
  {
    files: ['build/openapi/**/*.ts'],
    rules: restrict(
      [
        ...apiExcept(['formats', 'util', 'text', 'errors', 'routing', 'http', 'player', 'collections']),
        '**/dev/**',
        '**/test/**',
        '**/site/**',
      ],
      "The OpenAPI generator reads the route table, the entries' query specs and the formats, never a store (docs/architecture.md).",
    ),
  },
  {
    files: ['site/**/*.ts'],
    rules: restrict(
      [...apiExcept(['formats', 'util']), '**/api/*.js', '../**/build/**', '../**/dev/**', '../**/test/**'],
      'The site talks to the service through the typed client (client/) and reads only the shared formats (docs/architecture.md).',
    ),
  },
  {
    files: ['client/**/*.ts'],
    rules: restrict(['../../*', '../../**'], 'The client package stands alone: it imports nothing of the service (docs/architecture.md).'),
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
);
