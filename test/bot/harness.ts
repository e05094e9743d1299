/** Our tests' harness is the one users get from `perpkit/testing` (src/testing). */
export { botWorld, scripted, silentLogger, type BotWorld } from '../../src/testing';
