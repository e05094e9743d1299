/**
 * What `perpkit run` adds to a start that failed on the venue's address: a DNS failure was called
 * "nothing answers ... is the exchange running", an https:// URL to a plain-http venue was raw
 * OpenSSL text, and a URL of another HTTP server was "malformed response", none naming the key.
 */
import { startHint } from '../../src/cli/run';
import { parseBotConfig } from '../../src/runtime/config';

const config = (baseUrl: string) => parseBotConfig({ venue: { baseUrl, auth: { username: 'u', passwordEnv: 'P' } }, strategies: [{ id: 'mm', module: 'market-maker' }] }, 'bot.yaml');

test('each address mistake is named with venue.baseUrl and what to do', () => {
  expect(startHint('POST /v1/public/user/login failed: getaddrinfo ENOTFOUND exchange.invalid', config('http://exchange.invalid:8080'))).toBe('the host name of venue.baseUrl http://exchange.invalid:8080 does not resolve: check it in bot.yaml');
  expect(startHint('POST /v1/public/user/login failed: connect ECONNREFUSED 127.0.0.1:1', config('http://127.0.0.1:1'))).toMatch(/^nothing answers at venue\.baseUrl http:\/\/127\.0\.0\.1:1: is the exchange running there/);
  expect(startHint('POST /v1/public/user/login failed: ERR_SSL_WRONG_VERSION_NUMBER 804C23CC0A7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number', config('https://127.0.0.1:8080'))).toBe(
    'venue.baseUrl https://127.0.0.1:8080 is https:// but the server there speaks plain http: use http:// in bot.yaml',
  );
  expect(startHint('malformed response from login: body is not the {code, message, data, requestId} envelope (HTTP 404)', config('http://127.0.0.1:9464'))).toBe(
    "something answers at venue.baseUrl http://127.0.0.1:9464, but not the venue's API: check the URL in bot.yaml (the local exchange prints its own)",
  );
});
