export * from './clock';
export * from './decimal';
export * from './enums';
export * from './errors';
export * from './ids';
export * from './values';
export * from './random';
export * from './config-errors';
