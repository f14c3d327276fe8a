export {
  type ConfigFileRead,
  type ConfigFormat,
  type ConfigTextOptions,
  parseConfigText,
  readConfigFile,
} from './config-text.ts';
export { formatPath } from './format-path.ts';
export { documentedKeys, schemaKeys } from './schema-keys.ts';
export type { TextParseResult } from './parse-result.ts';
export { describeZodIssue, describeZodIssues } from './zod-issues.ts';
export { DEFAULT_CONFIG_STORE_PATH, type StoreTarget, storeConfigSchema, storeTargetOf } from './store-config.ts';
