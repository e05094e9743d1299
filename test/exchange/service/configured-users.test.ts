/**
 * A configured user (config file or `startExchange({ users })`) is checked with the rule login
 * applies to usernames: one login would refuse is refused at start, not at its first login.
 */
import { ConfigError, startExchange } from '../../../src/exchange';
import { parseConfigText } from '../../../src/exchange/service/config-file';
import { validateLogin } from '../../../src/protocol/validate/public';

async function startError(username: string): Promise<unknown> {
  try {
    const s = await startExchange({ port: 0, users: [{ username, password: 'change-me', balance: '100' }] });
    await s.stop();
  } catch (e) {
    return e;
  }
  return undefined;
}

test('startExchange refuses a username login would refuse, naming users[i].username, in login\'s words', async () => {
  const e = await startError('u1');
  expect(e).toBeInstanceOf(ConfigError);
  expect((e as Error).message).toBe("startExchange config: users[0].username: must be 3 to 32 characters long, got 2 (login's rule for usernames: this user could never log in)");
  // The same words login answers with (10001).
  expect(() => validateLogin({ username: 'u1', password: 'p' })).toThrow('username must be 3 to 32 characters long, got 2');
  expect(((await startError('u'.repeat(33))) as Error).message).toMatch(/^startExchange config: users\[0\]\.username: must be at most 32 characters long, got 33 /);
});

test('a username at the bounds starts (3 and 32 characters)', async () => {
  expect(await startError('abc')).toBeUndefined();
  expect(await startError('u'.repeat(32))).toBeUndefined();
});

test('a config file with such a user: the error has file and line', () => {
  const text = 'market: off\nusers:\n  - username: ok-user\n    password: p\n    balance: "1"\n  - username: u1\n    password: p\n    balance: "1"\n';
  expect(() => parseConfigText(text, 'ex.yaml')).toThrow(/^ex\.yaml:6: users\[1\]\.username: must be 3 to 32 characters long, got 2 \(login's rule for usernames: this user could never log in\)$/);
});
