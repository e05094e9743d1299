import { ErrorCodes } from '../../src/core/errors';
import {
  validateAccountChangeLog,
  validateBalanceHistory,
  validateCreateApiKey,
  validateCreateUser,
  validateDepth,
  validateExchangeEmbedToken,
  validateExchangeTicket,
  validateFavoriteSymbols,
  validateKlines,
  validateLeaderboard,
  validateListenKeyBody,
  validateLogin,
  validateMarketTrades,
  validateMarkPrice,
  validateMintEmbedToken,
  validateMintTicket,
  validateOverview,
  validatePositionHistory,
  validatePositions,
  validatePositionSettings,
  validateSetLeverage,
  validateSetMarginMode,
  validateSetMarkPrice,
  validateSettleFunding,
  validateSymbols,
} from '../../src/protocol';
import { errorOf } from './helpers';

const { INVALID_PARAMETER: P, MISSING_PARAMETER: M, INVALID_ENUM: E, BODY_NOT_OBJECT: O } = ErrorCodes;

type V = (input: unknown) => unknown;

/** [name, validator, input, expected output] */
const accepted: Array<[string, V, unknown, unknown]> = [
  // positions
  ['leverage', validateSetLeverage, { symbol: 'BTCUSDT', leverage: 125 }, { symbol: 'BTCUSDT', leverage: 125 }],
  ['margin mode', validateSetMarginMode, { symbol: 'BTCUSDT', marginMode: 2 }, { symbol: 'BTCUSDT', marginMode: 2 }],
  ['position settings', validatePositionSettings, { symbol: 'BTCUSDT' }, { symbol: 'BTCUSDT' }],
  ['positions, no query', validatePositions, undefined, {}],
  ['position history', validatePositionHistory, { side: 'short', pageSize: '100' }, { side: 'short', page: 1, pageSize: 100 }],
  // user
  ['listenKey body', validateListenKeyBody, { listenKey: 'k' }, { listenKey: 'k' }],
  ['change log', validateAccountChangeLog, { assetType: 'USDT', changeType: 'FUNDING_FEE' }, { assetType: 'USDT', changeType: 'FUNDING_FEE', page: 1, pageSize: 20 }],
  ['balance history default limit', validateBalanceHistory, { period: '1D' }, { period: '1D', limit: 30 }],
  ['balance history limit 365', validateBalanceHistory, { period: '1M', limit: '365' }, { period: '1M', limit: 365 }],
  ['overview', validateOverview, { type: '1Y' }, { type: '1Y' }],
  ['favorites', validateFavoriteSymbols, { symbols: ['BTCUSDT', 'ETHUSDT'] }, { symbols: ['BTCUSDT', 'ETHUSDT'] }],
  ['favorites cleared', validateFavoriteSymbols, { symbols: [] }, { symbols: [] }],
  // public
  ['login', validateLogin, { username: 'bob', password: 'p' }, { username: 'bob', password: 'p' }],
  ['login at the limits', validateLogin, { username: 'u'.repeat(32), password: 'p'.repeat(64), deviceId: 'd'.repeat(64), deviceName: 'n'.repeat(128) }, { username: 'u'.repeat(32), password: 'p'.repeat(64), deviceId: 'd'.repeat(64), deviceName: 'n'.repeat(128) }],
  ['login counts characters, not UTF-16 units', validateLogin, { username: '😀😀😀', password: 'p' }, { username: '😀😀😀', password: 'p' }],
  ['ticket', validateExchangeTicket, { ticket: 't', deviceId: 'd' }, { ticket: 't', deviceId: 'd' }],
  ['embed token', validateExchangeEmbedToken, { embedToken: 'e', channelId: 'c' }, { embedToken: 'e', channelId: 'c' }],
  ['leaderboard', validateLeaderboard, { period: '90d' }, { period: '90d' }],
  // market
  ['symbols', validateSymbols, {}, {}],
  ['depth default', validateDepth, { symbol: 'BTCUSDT' }, { symbol: 'BTCUSDT', limit: 20 }],
  ['trades default', validateMarketTrades, { symbol: 'BTCUSDT' }, { symbol: 'BTCUSDT', limit: 100 }],
  ['mark price', validateMarkPrice, { symbol: 'ETHUSDT' }, { symbol: 'ETHUSDT' }],
  ['klines', validateKlines, { symbol: 'BTCUSDT', interval: '1h', startTime: '1', endTime: '2' }, { symbol: 'BTCUSDT', interval: '1h', startTime: 1, endTime: 2, limit: 500 }],
  // admin
  ['create user', validateCreateUser, { username: 'carol', password: 'x', balance: '10000' }, { username: 'carol', password: 'x', balance: '10000', positionMode: 'ONE_WAY' }],
  ['create user, hedge, zero balance', validateCreateUser, { username: 'carol', password: 'x', balance: '0', positionMode: 'HEDGE' }, { username: 'carol', password: 'x', balance: '0', positionMode: 'HEDGE' }],
  ['api key', validateCreateApiKey, { userId: 'u1', permissions: ['READ', 'TRADE'] }, { userId: 'u1', permissions: ['READ', 'TRADE'] }],
  ['ticket', validateMintTicket, { userId: 'u1' }, { userId: 'u1' }],
  ['embed token', validateMintEmbedToken, { userId: 'u1', channelId: 'c' }, { userId: 'u1', channelId: 'c' }],
  ['mark price', validateSetMarkPrice, { symbol: 'BTCUSDT', markPrice: '45000.5' }, { symbol: 'BTCUSDT', markPrice: '45000.5' }],
  ['funding, negative rate', validateSettleFunding, { symbol: 'BTCUSDT', fundingRate: '-0.0001' }, { symbol: 'BTCUSDT', fundingRate: '-0.0001' }],
];

describe.each(accepted)('accepts: %s', (_, v, input, out) => {
  it('returns the typed request', () => {
    expect(v(input)).toEqual(out);
  });
});

/** [name, validator, input, code, field] */
const refused: Array<[string, V, unknown, number, string | undefined]> = [
  // positions
  // leverage 0 or below passes here: out of 1..maxLeverage is the engine's 30009 (test/exchange/transport/orders.test.ts).
  ['leverage 2.5', validateSetLeverage, { symbol: 'BTCUSDT', leverage: 2.5 }, P, 'leverage'],
  ['leverage "20"', validateSetLeverage, { symbol: 'BTCUSDT', leverage: '20' }, P, 'leverage'],
  ['leverage missing', validateSetLeverage, { symbol: 'BTCUSDT' }, M, 'leverage'],
  ['marginMode 3', validateSetMarginMode, { symbol: 'BTCUSDT', marginMode: 3 }, E, 'marginMode'],
  ['marginMode "CROSS"', validateSetMarginMode, { symbol: 'BTCUSDT', marginMode: 'CROSS' }, P, 'marginMode'],
  ['marginMode missing', validateSetMarginMode, { symbol: 'BTCUSDT' }, M, 'marginMode'],
  ['settings without symbol', validatePositionSettings, {}, M, 'symbol'],
  ['history side LONG', validatePositionHistory, { side: 'LONG' }, E, 'side'],
  ['history pageSize 101', validatePositionHistory, { pageSize: '101' }, P, 'pageSize'],
  ['body array', validateSetLeverage, [], O, undefined],
  // user
  ['listenKey missing', validateListenKeyBody, {}, M, 'listenKey'],
  ['listenKey body absent', validateListenKeyBody, undefined, O, undefined],
  ['changeType unknown', validateAccountChangeLog, { changeType: 'GIFT' }, E, 'changeType'],
  ['change log page 0', validateAccountChangeLog, { page: '0' }, P, 'page'],
  ['balance history no period', validateBalanceHistory, {}, M, 'period'],
  ['balance history period 1d', validateBalanceHistory, { period: '1d' }, E, 'period'],
  ['balance history limit 366', validateBalanceHistory, { period: '1D', limit: '366' }, P, 'limit'],
  ['balance history limit 0', validateBalanceHistory, { period: '1D', limit: '0' }, P, 'limit'],
  ['balance history limit " 5"', validateBalanceHistory, { period: '1D', limit: ' 5' }, P, 'limit'],
  ['overview type 2D', validateOverview, { type: '2D' }, E, 'type'],
  ['overview no type', validateOverview, {}, M, 'type'],
  ['favorites not array', validateFavoriteSymbols, { symbols: 'BTCUSDT' }, P, 'symbols'],
  ['favorites item number', validateFavoriteSymbols, { symbols: ['BTCUSDT', 1] }, P, 'symbols[1]'],
  ['favorites repeat', validateFavoriteSymbols, { symbols: ['BTCUSDT', 'BTCUSDT'] }, P, 'symbols[1]'],
  ['favorites empty name', validateFavoriteSymbols, { symbols: [''] }, P, 'symbols[0]'],
  ['favorites too many', validateFavoriteSymbols, { symbols: Array.from({ length: 101 }, (_, i) => `S${i}`) }, P, 'symbols'],
  // public
  ['username 2 chars', validateLogin, { username: 'ab', password: 'p' }, P, 'username'],
  ['username 33 chars', validateLogin, { username: 'a'.repeat(33), password: 'p' }, P, 'username'],
  ['password empty', validateLogin, { username: 'abc', password: '' }, P, 'password'],
  ['password 65 chars', validateLogin, { username: 'abc', password: 'p'.repeat(65) }, P, 'password'],
  ['password missing', validateLogin, { username: 'abc' }, M, 'password'],
  ['deviceId 65 chars', validateLogin, { username: 'abc', password: 'p', deviceId: 'd'.repeat(65) }, P, 'deviceId'],
  ['deviceName 129 chars', validateLogin, { username: 'abc', password: 'p', deviceName: 'd'.repeat(129) }, P, 'deviceName'],
  ['login body string', validateLogin, '{"username":"abc"}', O, undefined],
  ['ticket missing', validateExchangeTicket, {}, M, 'ticket'],
  ['ticket deviceId too long', validateExchangeTicket, { ticket: 't', deviceId: 'd'.repeat(65) }, P, 'deviceId'],
  ['embed channelId missing', validateExchangeEmbedToken, { embedToken: 'e' }, M, 'channelId'],
  ['embed channelId 129 chars', validateExchangeEmbedToken, { embedToken: 'e', channelId: 'c'.repeat(129) }, P, 'channelId'],
  ['leaderboard period 1y', validateLeaderboard, { period: '1y' }, E, 'period'],
  ['leaderboard no period', validateLeaderboard, {}, M, 'period'],
  // market
  ['depth without symbol', validateDepth, {}, M, 'symbol'],
  ['depth limit 101', validateDepth, { symbol: 'BTCUSDT', limit: '101' }, P, 'limit'],
  ['trades limit 501', validateMarketTrades, { symbol: 'BTCUSDT', limit: '501' }, P, 'limit'],
  ['klines interval 2m', validateKlines, { symbol: 'BTCUSDT', interval: '2m' }, E, 'interval'],
  ['klines no interval', validateKlines, { symbol: 'BTCUSDT' }, M, 'interval'],
  ['klines limit 1001', validateKlines, { symbol: 'BTCUSDT', interval: '1m', limit: '1001' }, P, 'limit'],
  ['mark price unknown parameter', validateMarkPrice, { symbol: 'BTCUSDT', limit: '1' }, P, 'limit'],
  // admin
  ['user negative balance', validateCreateUser, { username: 'carol', password: 'x', balance: '-1' }, P, 'balance'],
  ['user balance number', validateCreateUser, { username: 'carol', password: 'x', balance: 100 }, P, 'balance'],
  ['user positionMode', validateCreateUser, { username: 'carol', password: 'x', balance: '1', positionMode: 'BOTH' }, E, 'positionMode'],
  ['api key without permissions', validateCreateApiKey, { userId: 'u1', permissions: [] }, P, 'permissions'],
  ['api key permission WRITE', validateCreateApiKey, { userId: 'u1', permissions: ['WRITE'] }, E, 'permissions[0]'],
  ['api key permission repeated', validateCreateApiKey, { userId: 'u1', permissions: ['READ', 'READ'] }, P, 'permissions[1]'],
  ['ticket userId missing', validateMintTicket, {}, M, 'userId'],
  ['embed token channel missing', validateMintEmbedToken, { userId: 'u1' }, M, 'channelId'],
  ['mark price zero', validateSetMarkPrice, { symbol: 'BTCUSDT', markPrice: '0' }, P, 'markPrice'],
  ['mark price exponent', validateSetMarkPrice, { symbol: 'BTCUSDT', markPrice: '5e4' }, P, 'markPrice'],
  ['funding rate number', validateSettleFunding, { symbol: 'BTCUSDT', fundingRate: 0.0001 }, P, 'fundingRate'],
];

describe.each(refused)('refuses: %s', (_, v, input, code, field) => {
  it(`with ${code}`, () => {
    const e = errorOf(() => v(input));
    expect([e.code, e.field]).toEqual([code, field]);
    if (field !== undefined) expect(e.message).toContain(field);
  });
});

describe('messages', () => {
  it('an enum error lists the allowed values', () => {
    expect(errorOf(() => validateBalanceHistory({ period: '1Y' })).message).toBe('period must be one of 1D, 1W, 1M; got "1Y"');
  });

  it('a length error states the rule', () => {
    expect(errorOf(() => validateLogin({ username: 'ab', password: 'p' })).message).toBe('username must be 3 to 32 characters long, got 2');
  });

  it('a range error states the rule', () => {
    expect(errorOf(() => validateBalanceHistory({ period: '1D', limit: '400' })).message).toBe('limit must be an integer between 1 and 365, got 400');
  });
});
