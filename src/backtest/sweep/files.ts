/**
 * The bytes a sweep job reads, named by sha256: the coordinator puts the config file's and every
 * data file's digest in the job, and a worker checks the files it would read against them before
 * running, so a worker with another version of a recording (or an edited config) refuses the job
 * instead of adding a row computed on other data. Digests are remembered per (path, size, mtime,
 * inode), so a worker hashes a multi-gigabyte recording once, not once per job.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { BacktestConfig } from '../backtest/config';

export interface FileDigest {
  /** Absolute path, as the coordinator saw it. */
  path: string;
  sha256: string;
  bytes: number;
}

/** The files of a job: its config and its recordings. */
export interface JobFiles {
  config: FileDigest;
  data: FileDigest[];
}

const memo = new Map<string, string>();

export async function sha256File(file: string): Promise<FileDigest> {
  const st = statSync(file);
  const key = `${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}`;
  let sha = memo.get(key);
  if (sha === undefined) {
    const h = createHash('sha256');
    for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
    sha = h.digest('hex');
    memo.set(key, sha);
  }
  return { path: file, sha256: sha, bytes: st.size };
}

export async function jobFilesOf(cfg: BacktestConfig): Promise<JobFiles> {
  return { config: await sha256File(cfg.file), data: await Promise.all(cfg.data.files.map((f) => sha256File(f))) };
}

/** Why this machine's files are not the job's, or undefined when every one matches. */
export async function filesMismatch(files: JobFiles): Promise<string | undefined> {
  for (const [what, want] of [['config', files.config] as const, ...files.data.map((d) => ['data file', d] as const)]) {
    if (!existsSync(want.path)) return `${what} ${want.path} does not exist on this worker (the job needs sha256 ${want.sha256}, ${want.bytes} bytes)`;
    const got = await sha256File(want.path);
    if (got.sha256 !== want.sha256) return `${what} ${want.path} on this worker has sha256 ${got.sha256} (${got.bytes} bytes); the job was submitted with ${want.sha256} (${want.bytes} bytes): refusing to run on different bytes`;
  }
  return undefined;
}
