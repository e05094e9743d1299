/**
 * The parts of RxJS perpkit uses at run time, each from its own module. `rxjs`'s index loads the
 * whole library (~300 modules, ~120 ms of every process's start: each CLI command, each sweep
 * worker thread); these five load ~30 modules in ~25 ms. They are the very classes and functions
 * the index exports (test/core/rx.test.ts checks it), so an Observable made here is an
 * `rxjs` Observable to a strategy or a caller. The `./internal/*` paths are in rxjs 7's package
 * exports; types still come from 'rxjs'.
 */
export { Observable } from 'rxjs/internal/Observable';
export { Subject } from 'rxjs/internal/Subject';
export { filter } from 'rxjs/internal/operators/filter';
export { finalize } from 'rxjs/internal/operators/finalize';
export { share } from 'rxjs/internal/operators/share';
