// Test helpers for code that runs against a real PostgreSQL: schema-per-test
// databases and a TCP proxy that can cut the connection to simulate an outage.
export { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
export { databaseReachable, describePg, dropSchema, randomSchema, TEST_PG_URL, tempStore } from './test-database.ts';
