// The import rules README.md's Architecture section states, checked by `npm run lint:deps` (part of
// `npm run lint:root`): no module imports itself back through others (type-only imports
// included), a package's pure core/ never imports its shell, and packages import one way.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module that imports itself back through others: split out what both need.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-core-folders',
      severity: 'error',
      scope: 'folder',
      comment: "The folders of a package's core/ form layers: folder A importing B while B imports A (through other files) passes the module check, yet neither folder can be read or moved alone.",
      from: { path: '^packages/[^/]+/src/core/[^/]+$' },
      to: { circular: true },
    },
    {
      name: 'core-imports-no-shell',
      severity: 'error',
      comment: 'core/ holds the pure planners; the shell (reconciler/, http/, server/) imports them, never the reverse.',
      from: { path: '^(packages|apps)/([^/]+)/src/core/' },
      to: { path: '^$1/$2/src/(?!core/)[^/]+/' },
    },
    {
      name: 'packages-import-no-app',
      severity: 'error',
      comment: 'Apps wire packages together; a package never imports an app.',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'foundations-import-no-workspace',
      severity: 'error',
      comment: 'api-types and kube-runtime stand on their own: neither imports another workspace.',
      from: { path: '^packages/(api-types|kube-runtime)/src/' },
      to: { path: '^(packages|apps)/', pathNot: '^packages/$1/' },
    },
    {
      name: 'lifecycle-and-rules-apart',
      severity: 'error',
      comment: 'podopslifecycle and transition-rule meet only through the StageGate port the manager plugs; neither imports the CloneSet controller.',
      from: { path: '^packages/(podopslifecycle|transition-rule)/src/' },
      to: { path: '^packages/(podopslifecycle|transition-rule|cloneset-controller)/', pathNot: '^packages/$1/' },
    },
    {
      name: 'cloneset-core-vocabulary-below-its-steps',
      severity: 'error',
      comment: "The CloneSet core's shared vocabulary (plan, waits, context, types...) sits under the steps that use it: only reconcile-plan.ts, which composes the steps, imports them; pods/ (a pod's own facts) is the one folder under the vocabulary.",
      from: { path: '^packages/cloneset-controller/src/core/[^/]+[.]ts$', pathNot: '^packages/cloneset-controller/src/core/reconcile-plan[.]ts$' },
      to: { path: '^packages/cloneset-controller/src/core/(?!pods/)[^/]+/' },
    },
    {
      name: 'cloneset-core-reads-the-lifecycle-protocol-only',
      severity: 'error',
      comment: "The CloneSet core reads PodOpsLifecycle's label protocol from its protocol subpath, never from the package face (which loads its reconcilers and kube-runtime).",
      from: { path: '^packages/cloneset-controller/src/core/' },
      to: { path: '^packages/podopslifecycle/src/', pathNot: '^packages/podopslifecycle/src/core/protocol[.]ts$' },
    },
    {
      name: 'cloneset-imports-no-rule-engine',
      severity: 'error',
      comment: 'The CloneSet controller reads the lifecycle protocol, never the rule engine (the manager plugs that in).',
      from: { path: '^packages/cloneset-controller/src/' },
      to: { path: '^packages/transition-rule/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are edges too: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
    exclude: { path: ['node_modules', '/test/', '[.]test[.]ts$'] },
  },
};
