export { builtCoreDist } from './built-core.ts';
export { describeBuiltIntegration, type IntegrationExportsCheck } from './package-exports.ts';
