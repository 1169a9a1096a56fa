// Loads the Pulumi program (argv[2], a directory) the way Pulumi's nodejs language host does: TypeScript and
// ts-node chosen by @pulumi/pulumi's own tsutils (the project's TypeScript, ts-node vendored by Pulumi when
// the project has none), registered with the options the host uses, type checking on. Runs under Pulumi's
// mocks with the configuration given as JSON in argv[3]; prints as JSON the registered resource types and
// the serialized code of the dynamic providers, as the engine would receive it.
const path = require('node:path');
const pulumi = require('@pulumi/pulumi');
const tsutils = require('@pulumi/pulumi/tsutils');

const [programDir, configJson] = process.argv.slice(2);
const { tsnodeRequire, typescriptRequire } = tsutils.typeScriptRequireStrings();
const compilerOptions = tsutils.loadTypeScriptCompilerOptions('tsconfig.json');
require(tsnodeRequire).register({
  compiler: typescriptRequire,
  transpileOnly: compilerOptions.noCheck,
  project: 'tsconfig.json',
  skipProject: false,
  compilerOptions: { target: 'ES2020', module: 'nodenext', moduleResolution: 'nodenext', sourceMap: 'true', ...compilerOptions },
});

const types = [];
const providers = [];
pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      types.push(args.type);
      if (args.inputs.__provider) providers.push(args.inputs.__provider);
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  },
  'probekit',
  'dev',
);
const config = JSON.parse(configJson);
pulumi.runtime.setAllConfig(Object.fromEntries(Object.entries(config).map(([key, value]) => [key, JSON.stringify(value)])), Object.keys(config));
require(path.resolve(programDir));
pulumi.runtime.disconnect().then(() => process.stdout.write(JSON.stringify({ tsnode: tsnodeRequire, types, providers })));
