export { builtCoreDist } from './built-core.ts';
export { builtPackageCache } from './built-package.ts';
export { describeBuiltIntegration, type IntegrationExportsCheck } from './package-exports.ts';
