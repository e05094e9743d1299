/** Branded identifiers: a plain string at run time, a distinct type at compile time. */
declare const brand: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brand]: B };

export type OrderId = Brand<string, 'OrderId'>;
export type ClientOrderId = Brand<string, 'ClientOrderId'>;
export type ConditionId = Brand<string, 'ConditionId'>;
export type StrategyId = Brand<string, 'StrategyId'>;
export type TradeId = Brand<string, 'TradeId'>;
export type FillId = Brand<string, 'FillId'>;
export type UserId = Brand<string, 'UserId'>;
export type SymbolName = Brand<string, 'SymbolName'>;
export type ListenKey = Brand<string, 'ListenKey'>;

export const OrderId = (s: string): OrderId => s as OrderId;
export const ClientOrderId = (s: string): ClientOrderId => s as ClientOrderId;
export const ConditionId = (s: string): ConditionId => s as ConditionId;
export const StrategyId = (s: string): StrategyId => s as StrategyId;
export const TradeId = (s: string): TradeId => s as TradeId;
export const FillId = (s: string): FillId => s as FillId;
export const UserId = (s: string): UserId => s as UserId;
export const SymbolName = (s: string): SymbolName => s as SymbolName;
export const ListenKey = (s: string): ListenKey => s as ListenKey;

/**
 * The number an id text names (an order, condition or strategy id as the engine makes them: 1 to
 * 16 digits, no leading zero), or NaN for any other text. A character loop: ids are looked up on
 * every cancel and amend, and this is some 5x faster than a regular expression and Number().
 */
export function numericId(text: string): number {
  const n = text.length;
  if (n === 0 || n > 16) return NaN;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9 || (d === 0 && i === 0)) return NaN;
    v = v * 10 + d;
  }
  return v;
}
