/** A `perpkit run` config for the SIGKILL test: the example market maker on a given exchange. */
export function botConfigYaml(opts: { baseUrl: string; username: string; stateFile: string }): string {
  return `venue:
  baseUrl: ${opts.baseUrl}
  auth:
    username: ${opts.username}
    passwordEnv: RELIABILITY_BOT_PASSWORD
strategies:
  - id: mm
    module: market-maker
    params:
      symbol: BTCUSDT
      quantity: "0.01"
      minSpreadBps: "2"
      refreshMs: 100
risk:
  maxOrderNotional: "20000"
pollPositionsMs: 1000
cancelOnStop: false
stateFile: ${opts.stateFile}
stateSaveMs: 1000
http:
  host: 127.0.0.1
  port: 0
logging:
  level: info
`;
}
