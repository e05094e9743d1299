/**
 * The one rule by which the recorder and the importers read funding settlements off a mark stream
 * (src/market-data/funding-times.ts).
 */
import { AnnouncedFunding, FUNDING_SLACK_MS } from '../../src/market-data/funding-times';

const H8 = 8 * 3_600_000;
const T = Date.UTC(2024, 7, 9);

test('a forward move of the announced time is the settlement at the old time, at the rate announced before the move', () => {
  const f = new AnnouncedFunding();
  expect(f.see(T, '0.0001', T - 5000)).toBeUndefined();
  expect(f.see(T, '0.00012', T - 1000)).toBeUndefined();
  // No rate in this message: the last one holds, for this settlement and the next.
  expect(f.see(T + H8, undefined, T + 1000)).toEqual({ at: T, rate: '0.00012' });
  expect(f.rate).toBe('0.00012');
  expect(f.next).toBe(T + H8);
  // No time in a message, or the same one, or an earlier one: no settlement.
  expect(f.see(undefined, '0.0002', T + 2000)).toBeUndefined();
  expect(f.see(T + H8, '0.0002', T + 3000)).toBeUndefined();
  expect(f.see(T, '0.0002', T + 4000)).toBeUndefined();
  // The last announcement holds as sent.
  expect(f.next).toBe(T);
});

test('the first announcement shows no settlement; a rate never announced settles at 0', () => {
  const f = new AnnouncedFunding();
  expect(f.see(T + H8, undefined, T + 1000)).toBeUndefined();
  expect(f.see(T + 2 * H8, undefined, T + H8 + 10)).toEqual({ at: T + H8, rate: '0' });
});

test('a move more than a minute before the time came is no settlement (a fixed schedule); within the minute it is; without an exchange time, always', () => {
  const early = new AnnouncedFunding();
  early.see(T, '0.0001', T - H8 / 2);
  expect(early.see(T + H8, '0.0001', T - FUNDING_SLACK_MS - 1)).toBe('early');
  expect(early.next).toBe(T + H8);
  const slack = new AnnouncedFunding();
  slack.see(T, '0.0001', T - H8 / 2);
  expect(slack.see(T + H8, '0.0001', T - FUNDING_SLACK_MS)).toEqual({ at: T, rate: '0.0001' });
  const venue = new AnnouncedFunding();
  venue.see(T, '0.0001', undefined);
  expect(venue.see(T + 1000, '0.0001', undefined)).toEqual({ at: T, rate: '0.0001' });
});
