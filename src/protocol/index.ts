/** Wire types and validators of SERVICE_SPEC.md and PROTOCOL.md; shared by client and exchange. */
export * from './endpoints';
export * from './envelope';
export * from './records';
export * from './rest/admin';
export * from './rest/common';
export * from './rest/market';
export * from './rest/orders';
export * from './rest/positions';
export * from './rest/public';
export * from './rest/user';
export * from './validate';
export * from './ws';
