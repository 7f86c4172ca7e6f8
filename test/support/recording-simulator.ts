import type { SimulatorOptions } from '../../src/simulator/server.js';

/** Simulator options that also push each request's X-Client-Request-Id onto `sent`. */
export function recording(sent: string[], options: SimulatorOptions = {}): SimulatorOptions {
  return { ...options, onRequest: (request) => sent.push(String(request.headers['x-client-request-id'])) };
}
