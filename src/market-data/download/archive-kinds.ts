/**
 * What Binance's public futures archives hold, by kind, and where they are: the data of
 * `perpkit download` (binance-archives.ts), apart so that its --help names them without loading
 * the downloader.
 */
export const DEFAULT_BASE_URL = 'https://data.binance.vision';

const DAILY_KINDS = ['aggTrades', 'trades', 'bookTicker', 'bookDepth', 'metrics'] as const;
export const KLINE_KINDS = ['klines', 'markPriceKlines', 'indexPriceKlines', 'premiumIndexKlines'] as const;
export const MONTHLY_KINDS = ['fundingRate'] as const;
export const ARCHIVE_KINDS: readonly string[] = [...DAILY_KINDS, ...KLINE_KINDS, ...MONTHLY_KINDS];
