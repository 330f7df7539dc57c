/**
 * Package boundaries from DESIGN.md. Only shipped code (src/) is checked: tests may use node
 * and test-only dependencies freely.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const src = (pkg) => `^packages/${pkg}/src/`;

module.exports = {
  forbidden: [
    {
      name: 'protocol-is-pure',
      comment: '@slipstream/protocol imports nothing: no node: modules, no dependencies.',
      severity: 'error',
      from: { path: src('protocol') },
      to: { pathNot: src('protocol') },
    },
    {
      name: 'jsapi-only-zod',
      comment: '@slipstream/jsapi may import zod and @slipstream/protocol, nothing else.',
      severity: 'error',
      from: { path: src('jsapi') },
      to: { pathNot: [src('jsapi'), '^packages/protocol/', 'node_modules/.*zod/'] },
    },
    {
      name: 'browser-safe-packages-no-node',
      comment: 'protocol and jsapi run unchanged in a browser.',
      severity: 'error',
      from: { path: '^packages/(protocol|jsapi)/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'client-side-never-imports-server',
      comment:
        'protocol, transport, client, jetstream and the cli never import the server (library or app) or better-sqlite3.',
      severity: 'error',
      from: { path: '^(packages/(protocol|transport|client|jetstream)|apps/cli)/src/' },
      to: { path: ['^packages/server/', '^apps/server/', 'better-sqlite3'] },
    },
    {
      name: 'server-never-imports-client',
      severity: 'error',
      from: { path: '^packages/server/src/' },
      to: { path: '^packages/(client|jetstream)/' },
    },
    {
      name: 'sqlite-only-in-server',
      severity: 'error',
      from: { pathNot: '^packages/server/' },
      to: { path: 'better-sqlite3' },
    },
    {
      name: 'transport-only-for-client-and-server',
      severity: 'error',
      from: { path: '^packages/(protocol|jsapi|jetstream)/src/' },
      to: { path: '^packages/transport/' },
    },
    {
      name: 'no-cross-package-relative-imports',
      comment: 'Packages meet through their exports, never through ../other-package/src or dist.',
      severity: 'error',
      from: { path: '^(packages|apps)/([^/]+)/' },
      to: {
        path: '^(packages|apps)/',
        pathNot: '^$1/$2/',
        dependencyTypes: ['local'],
      },
    },
    {
      name: 'not-to-dev-dependency',
      comment: 'Shipped code may not use what its package only installs for tests.',
      severity: 'error',
      from: { path: '^(packages|apps)/[^/]+/src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves: an undeclared dependency would slip past the rules above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-type-only-included',
      comment:
        'server, jetstream, client and protocol have no import circle, type-only imports included ' +
        '(tsPreCompilationDeps keeps them in the graph): a circle hides which module is the base.',
      severity: 'error',
      from: { path: '^packages/(server|jetstream|client|protocol)/src/' },
      to: { circular: true },
    },
  ],
  options: {
    // Workspace packages resolve to their built dist/: keep those edges (the rules need them)
    // but do not cruise on into another package's build output.
    doNotFollow: { path: ['node_modules', '/dist/'] },
    exclude: { path: ['/test/', 'node_modules'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default', 'node'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
