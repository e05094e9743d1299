/**
 * The recording format, version 1 (see src/exchange/market/recording-format.ts for the
 * definition and docs/recording.md for examples). The definition lives in the exchange layer so
 * that the local exchange's replay mode can read recordings without importing src/backtest; this
 * module is where backtest code and the public API import it from.
 */
export {
  RECORDING_FORMAT,
  RECORDING_VERSION,
  RECORDED_KINDS,
  isHeader,
  type Level,
  type RecordedEvent,
  type RecordedKind,
  type RecordingHeader,
} from '../../exchange/market/recording-format';
