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
