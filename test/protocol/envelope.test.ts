import { ErrorCodes, VenueError } from '../../src/core/errors';
import { errorEnvelope, isEnvelope, isSuccess, successEnvelope } from '../../src/protocol';

describe('envelope', () => {
  it('wraps success with code 0 and message "success"', () => {
    expect(successEnvelope({ serverTime: 1 }, 'r1')).toEqual({ code: 0, message: 'success', data: { serverTime: 1 }, requestId: 'r1' });
  });

  it('wraps an error with data null', () => {
    const env = errorEnvelope(new VenueError(ErrorCodes.MISSING_PARAMETER, 'symbol is required', 'symbol'), 'r2');
    expect(env).toEqual({ code: 10002, message: 'symbol is required', data: null, requestId: 'r2' });
    expect(isSuccess(env)).toBe(false);
  });

  it.each<[unknown, boolean]>([
    [{ code: 0, message: 'success', data: {}, requestId: 'x' }, true],
    [{ code: 10001, message: 'bad', data: null, requestId: 'x' }, true],
    [{ code: 0, message: 'success', requestId: 'x' }, false],
    [{ code: '0', message: 'success', data: {}, requestId: 'x' }, false],
    [{ code: 0, message: 'success', data: 1, requestId: 'x' }, false],
    [[], false],
    [null, false],
  ])('isEnvelope(%j) is %s', (v, ok) => {
    expect(isEnvelope(v)).toBe(ok);
  });
});
