/**
 * The head of a request the fast lane (fast-lane.ts) reads itself, or nothing when it is not one
 * it knows completely: then node:http reads it, with its own rules and error answers.
 */
import type { IncomingHttpHeaders } from 'node:http';

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A control character other than tab, or DEL: node:http refuses them in a header value. */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return true;
  }
  return false;
}
const TARGET = /^\/v1\/[\x21-\x7e]*$/;
const DIGITS = /^[0-9]{1,15}$/;

/** A request this reader takes, or `undefined`: not one it knows completely (node:http's then). */
export interface RequestHead {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bodyStart: number;
  bodyLength: number;
}

/** The head at data[start, end) (without its blank line); undefined when node:http must read it. */
export function parseHead(data: Buffer, start: number, end: number, maxBody: number): RequestHead | undefined {
  const text = data.toString('latin1', start, end);
  const lineEnd = text.indexOf('\r\n');
  const requestLine = lineEnd < 0 ? text : text.slice(0, lineEnd);
  const sp1 = requestLine.indexOf(' ');
  const sp2 = requestLine.indexOf(' ', sp1 + 1);
  if (sp1 < 0 || sp2 < 0) return undefined;
  const method = requestLine.slice(0, sp1);
  const url = requestLine.slice(sp1 + 1, sp2);
  if (!METHODS.has(method) || requestLine.slice(sp2 + 1) !== 'HTTP/1.1' || !TARGET.test(url)) return undefined;
  const headers: IncomingHttpHeaders = {};
  let bodyLength = 0;
  let host = false;
  let at = lineEnd < 0 ? text.length : lineEnd + 2;
  while (at < text.length) {
    let next = text.indexOf('\r\n', at);
    if (next < 0) next = text.length;
    const colon = text.indexOf(':', at);
    if (colon <= at || colon >= next) return undefined;
    const name = text.slice(at, colon).toLowerCase();
    const value = text.slice(colon + 1, next).replace(/^[ \t]+|[ \t]+$/g, '');
    at = next + 2;
    if (!TOKEN.test(name) || hasControl(value) || headers[name] !== undefined || name === '__proto__') return undefined;
    switch (name) {
      case 'transfer-encoding':
      case 'upgrade':
      case 'expect':
        return undefined;
      case 'connection':
        if (value.toLowerCase() !== 'keep-alive') return undefined;
        break;
      case 'content-length':
        if (!DIGITS.test(value)) return undefined;
        bodyLength = Number(value);
        if (bodyLength > maxBody) return undefined;
        break;
      case 'host':
        host = true;
        break;
    }
    headers[name] = value;
  }
  if (!host) return undefined;
  return { method, url, headers, bodyStart: end + 4, bodyLength };
}
