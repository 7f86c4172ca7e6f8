/**
 * The benchmark's simulator, in its own process so its CPU is not counted as the client's.
 *
 *   node .bench/dist/bench/sim-process.js [--latency-ms N] [--faults JSON] [--retry-after-ms N] [--seed N] [--port N]
 *                                   [--rpm N] [--tpm N] [--limit-headers openai|none] [--max-in-flight N] [--burst-ms N]
 *                                   [--model-limits '{"MODEL":{"rpm":N,"tpm":N},...}']
 *
 * Prints the URL on stdout, then answers line commands on stdin, one JSON line each on stdout:
 *   stats  → the simulator's counters (SimulatorStats) with "cpuUserMs","cpuSystemMs","rssMb"
 *   reset  → resets the request stats (and the CPU baseline), answers {"ok":true}
 * Closes and exits on SIGTERM/SIGINT or when stdin ends (so it never outlives the benchmark).
 */
import { createInterface } from 'node:readline';
import { type FaultRates, type LimitHeaders, type SimulatorOptions, startSimulator } from '../src/simulator/server.js';

/** The flags that take a number, by the simulator option each sets. */
const NUMBER_FLAGS = {
  '--latency-ms': 'latencyMs',
  '--retry-after-ms': 'retryAfterMs',
  '--seed': 'seed',
  '--port': 'port',
  '--rpm': 'rpm',
  '--tpm': 'tpm',
  '--max-in-flight': 'maxInFlight',
  '--burst-ms': 'burstMs',
} as const satisfies Record<string, keyof SimulatorOptions>;

function parseArgs(argv: string[]): SimulatorOptions {
  const options: SimulatorOptions = { host: '127.0.0.1', port: 0 };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag in NUMBER_FLAGS) options[NUMBER_FLAGS[flag as keyof typeof NUMBER_FLAGS]] = Number(value);
    else if (flag === '--limit-headers') options.limitHeaders = value as LimitHeaders;
    else if (flag === '--faults') options.faults = JSON.parse(value) as Partial<FaultRates>;
    else if (flag === '--model-limits') options.modelLimits = JSON.parse(value) as NonNullable<SimulatorOptions['modelLimits']>;
    else throw new Error(`unknown flag ${flag}`);
  }
  return options;
}

const simulator = await startSimulator(parseArgs(process.argv.slice(2)));
let cpuBase = process.cpuUsage();
process.stdout.write(`${simulator.url}\n`);

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await simulator.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const command = line.trim();
  if (command === 'stats') {
    const cpu = process.cpuUsage(cpuBase);
    const stats = simulator.stats();
    process.stdout.write(
      `${JSON.stringify({ ...stats, cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000, rssMb: process.memoryUsage.rss() / 2 ** 20 })}\n`,
    );
  } else if (command === 'reset') {
    simulator.resetStats();
    cpuBase = process.cpuUsage();
    process.stdout.write('{"ok":true}\n');
  } else if (command !== '') {
    process.stdout.write(`${JSON.stringify({ error: `unknown command ${command}` })}\n`);
  }
});
lines.on('close', () => void shutdown());
