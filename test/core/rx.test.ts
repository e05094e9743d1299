import * as rxjs from 'rxjs';
import * as rx from '../../src/core/rx';

test('core/rx hands out the very classes and operators of the rxjs index (an Observable made by perpkit is an rxjs Observable)', () => {
  expect(rx.Observable).toBe(rxjs.Observable);
  expect(rx.Subject).toBe(rxjs.Subject);
  expect(rx.filter).toBe(rxjs.filter);
  expect(rx.finalize).toBe(rxjs.finalize);
  expect(rx.share).toBe(rxjs.share);
  const seen: number[] = [];
  const s = new rx.Subject<number>();
  s.pipe(rx.filter((n) => n > 1), rx.share()).subscribe((n) => seen.push(n));
  [1, 2, 3].forEach((n) => s.next(n));
  expect(seen).toEqual([2, 3]);
  expect(new rx.Subject()).toBeInstanceOf(rxjs.Observable);
});
