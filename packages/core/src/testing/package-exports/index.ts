export { builtCoreDist, copyBuiltCore } from './built-core.ts';
export { buildInto } from './build-into.ts';
export { builtPackageCache } from './built-package.ts';
export {
  describeBuiltIntegration,
  expectExportsMirrorSources,
  type IntegrationExportsCheck,
  installManifest,
  type PackageManifest,
  readManifest,
} from './package-exports.ts';
