// A kept-alive socket the server closed while it sat in the pool (ClickHouse 18.16 closes idle ones after
// 3 s, Node's servers after 5 s) fails on its next request before the server read anything, so that
// request may be sent again. After this process's event loop was busy past those timeouts every idle
// socket of a pool is such a one, and each failure drops its socket: the adapters send again for as long
// as the failure is on a reused socket, and a fresh socket's failure is final.
import type { ClientRequest } from 'node:http';

/** Bounds the re-sends: more than a pool holds idle, so a fresh socket is reached well before. */
export const STALE_SOCKET_RETRIES = 64;

/** Whether `req` failed on a kept-alive socket the server had closed (its request unread). */
export function failedOnStaleSocket(req: ClientRequest, e: NodeJS.ErrnoException): boolean {
  return req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
}
