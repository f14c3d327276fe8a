export { type ClientErrorCode, CountersignClientError } from './client-error.ts';
export { type ClientOptions, type CountersignClient, createClient } from './create-client.ts';
export type { FetchLike } from './http.ts';
