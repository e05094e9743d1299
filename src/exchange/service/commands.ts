/**
 * Every state change of the local exchange as a serializable command. The journal stores these
 * (with the time stamp they were applied at) and replays them on start; applying the same
 * commands at the same stamps rebuilds the same state (the engine is deterministic).
 */
import type { Permission, PositionMode, Side } from '../../core/enums';
import { ErrorCodes, VenueError } from '../../core/errors';
import type { Engine } from '../engine/engine';
import type {
  CancelAllInput,
  MoveOrderInput,
  OrderRef,
  PlaceConditionInput,
  PlaceOrderInput,
  PlaceStrategyInput,
  SetLeverageInput,
  SetMarginModeInput,
} from '../engine/inputs';
import type { AccountsState } from './accounts-state';

export type Command =
  | { k: 'createUser'; userId: string; username: string; passwordHash: string; balance: string; positionMode: PositionMode }
  | { k: 'createApiKey'; userId: string; apiKey: string; secret: string; permissions: Permission[] }
  | { k: 'deposit'; userId: string; amount: string }
  | { k: 'setFavorites'; userId: string; symbols: string[] }
  | { k: 'placeOrder'; userId: string; input: PlaceOrderInput }
  | { k: 'batchPlace'; userId: string; inputs: PlaceOrderInput[] }
  | { k: 'placeCondition'; userId: string; input: PlaceConditionInput }
  | { k: 'placeStrategy'; userId: string; input: PlaceStrategyInput }
  | { k: 'cancelOrder'; userId: string; ref: OrderRef }
  | { k: 'batchCancel'; userId: string; refs: OrderRef[] }
  | { k: 'moveOrder'; userId: string; input: MoveOrderInput }
  | { k: 'batchMove'; userId: string; symbol: string; inputs: Array<Omit<MoveOrderInput, 'symbol'>> }
  | { k: 'cancelAll'; userId: string; input: CancelAllInput }
  | { k: 'cancelCondition'; userId: string; symbol: string; conditionId: string }
  | { k: 'setLeverage'; userId: string; input: SetLeverageInput }
  | { k: 'setMarginMode'; userId: string; input: SetMarginModeInput }
  | { k: 'setMarkPrice'; symbol: string; markPrice: string; indexPrice?: string }
  | { k: 'setFundingRate'; symbol: string; rate: string }
  | { k: 'settleFunding'; symbol: string; rate?: string }
  | { k: 'marketTrade'; symbol: string; price: string; quantity: string; side: Side };

export type CommandKind = Command['k'];

/** One journal entry: the command and the engine clock reading it was applied at. */
export interface JournalEntry {
  seq: number;
  at: number;
  cmd: Command;
}

/**
 * Applies a command to the engine and the account state. Throws VenueError (and changes nothing)
 * when the command is refused.
 */
export function applyCommand(engine: Engine, accounts: AccountsState, cmd: Command, at: number): unknown {
  switch (cmd.k) {
    case 'createUser': {
      if (accounts.byUsername.has(cmd.username)) throw new VenueError(ErrorCodes.INVALID_PARAMETER, `username '${cmd.username}' is taken`, 'username');
      engine.createAccount({ userId: cmd.userId, balance: cmd.balance, positionMode: cmd.positionMode });
      accounts.addUser({ userId: cmd.userId, username: cmd.username, passwordHash: cmd.passwordHash, positionMode: cmd.positionMode, createdAt: at, agentId: 0, vipLevel: 0 });
      return { userId: cmd.userId };
    }
    case 'createApiKey':
      if (!accounts.users.has(cmd.userId)) throw new VenueError(ErrorCodes.INVALID_PARAMETER, `no user with userId '${cmd.userId}'`, 'userId');
      accounts.addApiKey({ apiKey: cmd.apiKey, userId: cmd.userId, secret: cmd.secret, permissions: [...cmd.permissions], createdAt: at });
      return { apiKey: cmd.apiKey };
    case 'deposit':
      engine.deposit(cmd.userId, cmd.amount);
      return {};
    case 'setFavorites':
      accounts.favorites.set(cmd.userId, [...cmd.symbols]);
      return { symbols: [...cmd.symbols] };
    case 'placeOrder':
      return engine.placeOrder(cmd.userId, cmd.input);
    case 'batchPlace':
      return engine.batchPlace(cmd.userId, cmd.inputs);
    case 'placeCondition':
      return engine.placeCondition(cmd.userId, cmd.input);
    case 'placeStrategy':
      return engine.placeStrategy(cmd.userId, cmd.input);
    case 'cancelOrder':
      return engine.cancelOrder(cmd.userId, cmd.ref);
    case 'batchCancel':
      return engine.batchCancel(cmd.userId, cmd.refs);
    case 'moveOrder':
      return engine.moveOrder(cmd.userId, cmd.input);
    case 'batchMove':
      return engine.batchMove(cmd.userId, cmd.symbol, cmd.inputs);
    case 'cancelAll':
      return engine.cancelAll(cmd.userId, cmd.input);
    case 'cancelCondition':
      return engine.cancelCondition(cmd.userId, cmd.symbol, cmd.conditionId);
    case 'setLeverage':
      return engine.setLeverage(cmd.userId, cmd.input);
    case 'setMarginMode':
      return engine.setMarginMode(cmd.userId, cmd.input);
    case 'setMarkPrice':
      engine.setMarkPrice(cmd.symbol, cmd.markPrice, cmd.indexPrice);
      return { symbol: cmd.symbol, markPrice: cmd.markPrice };
    case 'setFundingRate':
      engine.setFundingRate(cmd.symbol, cmd.rate);
      return {};
    case 'settleFunding':
      return engine.settleFunding(cmd.symbol, cmd.rate);
    case 'marketTrade':
      engine.marketTrade(cmd.symbol, cmd.price, cmd.quantity, cmd.side);
      return {};
  }
}
