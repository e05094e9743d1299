/**
 * Reading recordings: the one implementation lives in the exchange layer
 * (src/exchange/market/recording-reader.ts) because the local exchange replays recordings and
 * may not import src/backtest. Backtest code imports it from here.
 */
export { RecordingFormatError, eventProblem, readHeader, readRecording, recordingFiles, type ReadRecordingOptions } from '../../exchange/market/recording-reader';
