/** The refresh-token cookie of PROTOCOL.md section 2, written exactly as specified there. */
export const REFRESH_COOKIE = 'refreshToken';

export function refreshCookie(token: string): string {
  return `${REFRESH_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/v1/public/user`;
}

/** Value of one cookie from a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
