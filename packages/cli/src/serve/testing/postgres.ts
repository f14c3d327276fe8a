export { describePg, dropSchema, randomSchema, startTcpProxy, type TcpProxy, TEST_PG_URL } from '@countersign/store-postgres/testing';
