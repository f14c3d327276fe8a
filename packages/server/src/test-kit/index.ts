// Test helpers for packages that test against this server (the CLI's tests). Source only:
// not built, not in the tarball; linkedPair for users is in ../testing/.
export { AGENT_TOKEN, FIONA_TOKEN, makeServerFixture, OSCAR_TOKEN, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';
export { softAuthenticator } from '../testing/soft-authenticator.ts';
export { sseReader } from '../testing/sse-reader.ts';
export { startWebhookReceiver } from '../testing/webhook-receiver.ts';
export { sample } from '../ops/testing/prometheus-sample.ts';
