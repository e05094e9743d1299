/**
 * `node dist/bench/exchange-http/profile-top.js <file.cpuprofile> [n]`: the top self-time
 * functions of a V8 CPU profile (as written by `node --cpu-prof`), in percent of all samples
 * and of the non-idle ones; then the same grouped by source file.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  selfMs: number;
  pctAll: number;
  pctBusy: number;
}

const IDLE = new Set(['(idle)', '(program)']);

export function topSelf(profile: CpuProfile, n: number, byFile = false): { spots: HotSpot[]; totalMs: number; busyMs: number } {
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) byId.set(node.id, node);
  const self = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!node) continue;
    total += dt;
    const f = node.callFrame;
    if (IDLE.has(f.functionName)) idle += dt;
    const where = f.url === '' ? '' : ` ${path.basename(f.url)}:${f.lineNumber + 1}`;
    const fn = f.functionName === '' ? '(anonymous)' : f.functionName;
    const key = byFile ? (f.url === '' ? fn : path.basename(f.url)) : `${fn}${where}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  const busy = total - idle;
  const spots = [...self.entries()]
    .filter(([k]) => !IDLE.has(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, selfMs: us / 1000, pctAll: (100 * us) / total, pctBusy: (100 * us) / busy }));
  return { spots, totalMs: total / 1000, busyMs: busy / 1000 };
}

function main(): void {
  const file = process.argv[2];
  if (file === undefined) {
    console.error('usage: node dist/bench/exchange-http/profile-top.js <file.cpuprofile> [n]');
    process.exitCode = 2;
    return;
  }
  const n = Number(process.argv[3] ?? 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const { spots, totalMs, busyMs } = topSelf(profile, n);
  console.log(`profile ${file}: ${(totalMs / 1000).toFixed(1)} s sampled, ${(busyMs / 1000).toFixed(1)} s busy`);
  for (const s of spots) console.log(`${s.pctBusy.toFixed(1).padStart(5)} % busy  ${s.pctAll.toFixed(1).padStart(5)} % all  ${s.selfMs.toFixed(0).padStart(7)} ms  ${s.name}`);
  console.log('by file (self time of every function in it):');
  for (const s of topSelf(profile, 10, true).spots) console.log(`${s.pctBusy.toFixed(1).padStart(5)} % busy  ${s.selfMs.toFixed(0).padStart(7)} ms  ${s.name}`);
}

if (require.main === module) main();
