/**
 * `perpkit download binance-futures --symbol S --from D --to D [--kinds k,...]`: Binance's public
 * USD-M futures archives, verified against their CHECKSUM files, resumable, with progress. Bad
 * input is one line and exit 2; a file missing from the archive or failing verification is listed
 * and makes the exit code 1 (after every other file was fetched).
 */
import { parseArgs } from 'node:util';
import { DownloadInputError, downloadBinanceArchives, planDownload, type DownloadSummary } from '../market-data/download/binance-archives';
import { argsMessage, usageFailure } from './usage';
import { DOWNLOAD_USAGE } from './usage-texts';

const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;

export function downloadSummaryText(s: DownloadSummary, seconds: number, outDir: string): string {
  let out = `download: ${s.files.length} files in ${seconds.toFixed(1)} s: ${s.downloaded} downloaded (${mb(s.bytes)}), ${s.present} already there, ${s.missing} missing, ${s.failed} failed\n`;
  for (const f of s.files) if (f.outcome === 'missing' || f.outcome === 'failed') out += `  ${f.outcome}: ${f.rel}${f.error !== undefined ? `: ${f.error}` : ''}\n`;
  if (s.downloaded + s.present > 0) out += `  in ${outDir}; next: perpkit import binance-futures <those .zip files> --out <recording.jsonl.gz>\n`;
  return out;
}

export async function runDownload(argv: string[]): Promise<number> {
  const [source, ...rest] = argv;
  if (source === undefined) return usageFailure('download', 'expected a source: binance-futures');
  if (source === '--help' || source === '-h' || source === 'help') {
    process.stdout.write(DOWNLOAD_USAGE);
    return 0;
  }
  let o: Parameters<typeof downloadBinanceArchives>[0];
  let quiet = false;
  try {
    if (source !== 'binance-futures') throw new DownloadInputError(`unknown source '${source}'; this version downloads binance-futures`);
    const { values: v, positionals } = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: true,
      options: {
        symbol: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        kinds: { type: 'string' },
        interval: { type: 'string' },
        out: { type: 'string' },
        'base-url': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (v.help) {
      process.stdout.write(DOWNLOAD_USAGE);
      return 0;
    }
    if (positionals.length > 0) throw new DownloadInputError(`unexpected argument '${positionals[0]}' (options only; see perpkit download --help)`);
    for (const k of ['symbol', 'from', 'to'] as const) if (v[k] === undefined) throw new DownloadInputError(`--${k} is required (see perpkit download --help)`);
    quiet = v.quiet === true;
    const kinds = (v.kinds ?? 'aggTrades,bookTicker,markPriceKlines,fundingRate').split(',').map((k) => k.trim()).filter((k) => k !== '');
    const baseUrl = v['base-url'];
    if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new DownloadInputError(`--base-url must be an http(s) URL, got '${baseUrl}'`);
    o = { symbol: v.symbol as string, from: v.from as string, to: v.to as string, kinds, interval: v.interval, outDir: v.out ?? 'data/binance', ...(baseUrl !== undefined ? { baseUrl } : {}) };
    planDownload(o);
  } catch (e) {
    if (e instanceof DownloadInputError || (e instanceof Error && (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS'))) {
      return usageFailure('download', argsMessage(e));
    }
    throw e;
  }
  const t0 = Date.now();
  let lastBytesLine = 0;
  const summary = await downloadBinanceArchives({
    ...o,
    onProgress: (p) => {
      if (quiet || p.outcome === undefined) return;
      const what = p.outcome === 'downloaded' ? `downloaded ${mb(p.bytes ?? 0)}${p.resumedFrom !== undefined ? ` (resumed at ${mb(p.resumedFrom)})` : ''}` : p.outcome === 'present' ? 'already there, verified' : `${p.outcome}${p.error !== undefined ? `: ${p.error}` : ''}`;
      process.stderr.write(`[${p.index}/${p.total}] ${p.file.rel.split('/').pop()}: ${what}\n`);
    },
    onBytes: (f, n) => {
      const now = Date.now();
      if (quiet || now - lastBytesLine < 2000) return;
      lastBytesLine = now;
      process.stderr.write(`  ${f.rel.split('/').pop()}: ${mb(n)} so far\n`);
    },
  });
  process.stdout.write(downloadSummaryText(summary, (Date.now() - t0) / 1000, o.outDir));
  return summary.missing + summary.failed > 0 ? 1 : 0;
}
