/** The public API of perpkit. Example strategies and users import from here only. */
export * from './core';
