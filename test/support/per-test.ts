import { afterEach, beforeEach } from 'vitest';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';
import { recording } from './recording-simulator.js';
import { type Responder, type ScriptedServer, startScriptedServer } from './scripted-server.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

/**
 * Registers the hooks of a per-test fixture: before each test `open` makes it and `use` stores
 * its parts (in the test file's own variables, e.g. `(fresh) => ({ dir, server } = fresh)`);
 * after each test it is closed.
 */
export function perTest<T extends { close(): Promise<void> }>(open: () => Promise<T>, use: (fresh: T) => void): void {
  let current: T | undefined;
  beforeEach(async () => {
    current = await open();
    use(current);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
}

/** A fresh temp dir for each test, removed after it. */
export function perTestDir(use: (dir: TempDir) => void): void {
  perTest(
    async () => {
      const dir = await makeTempDir();
      return { dir, close: () => dir.remove() };
    },
    (fresh) => use(fresh.dir),
  );
}

export interface ServedDir {
  dir: TempDir;
  server: ScriptedServer;
}

/** For each test, a fresh temp dir and a scripted server (echo replies unless `respond`); both closed after it. */
export function perTestServedDir(use: (fresh: ServedDir) => void, respond?: Responder): void {
  perTest(async () => {
    const dir = await makeTempDir();
    const server = await startScriptedServer(respond);
    return { dir, server, close: () => closeBoth(server, dir) };
  }, use);
}

export interface SimulatedDir {
  dir: TempDir;
  simulator: RunningSimulator;
  /** Each request's X-Client-Request-Id, in the order the simulator received them. */
  sent: string[];
}

/** For each test, a fresh temp dir and a simulator recording what it is sent in `sent`; both closed after it. */
export function perTestSimulatedDir(use: (fresh: SimulatedDir) => void, options: SimulatorOptions = {}): void {
  perTest(async () => {
    const dir = await makeTempDir();
    const sent: string[] = [];
    const simulator = await startSimulator(recording(sent, options));
    return { dir, simulator, sent, close: () => closeBoth(simulator, dir) };
  }, use);
}

/** Closes the endpoint, then removes the dir. */
export async function closeBoth(endpoint: { close(): Promise<void> }, dir: TempDir): Promise<void> {
  await endpoint.close();
  await dir.remove();
}
