export { CAPABLE, call, capableClient, connectClient, makeTestGate, refusalOf, textOf } from './gateway-fixture.ts';
export { HONEST, RUG, rugServer } from './rug-server.ts';
