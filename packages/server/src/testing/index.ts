export { type FetchHandler, LINKED_ORIGIN, type LinkedPair, type LinkedPairOptions, linkedClient, linkedPair } from './linked-pair.ts';
