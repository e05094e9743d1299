/**
 * The `where` label of perpkit_strategy_errors_total: one series per hook. An async hook's rejection
 * is reported at `onMark (the Promise it returned)`, which made a second series `onMark ` (with its
 * space) beside the hook's own `onMark`, so a filter on `where="onMark"` counted half the errors.
 */
import { errorSite } from '../../src/runtime/metrics';

test('the hook, without what follows it in brackets, with or without a space before them', () => {
  expect(errorSite('onMark (the Promise it returned)')).toBe('onMark');
  expect(errorSite('onEvent(markPrice)')).toBe('onEvent');
  expect(errorSite('onStart')).toBe('onStart');
  expect(errorSite('emit')).toBe('emit');
});
