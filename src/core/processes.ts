/** Whether a process of this id is running on this machine (EPERM: it is, as another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === 'EPERM';
  }
}
