export {
  buildInto,
  describeBuiltIntegration,
  expectExportsMirrorSources,
  type IntegrationExportsCheck,
  installManifest,
  type PackageManifest,
  readManifest,
} from './package-exports.ts';
