import type { Argv, CommandModule } from 'yargs';
import type { FaultRates, LimitHeaders, SimulatorOptions } from '../simulator/options.js';
import { LIMIT_HEADERS } from '../simulator/options.js';
import { flagNumber, PROBABILITY } from '../user-number.js';
import { EXIT } from './exit-codes.js';
import { listenForInterrupts } from './interrupts.js';
import type { CliSession } from './io.js';
import { listenFailure } from './listen-failure.js';
import { nonNegativeInteger, positiveInteger } from './options.js';

interface SimulateArgs {
  port?: number;
  host?: string;
  'latency-ms'?: number;
  'jitter-ms'?: number;
  'api-key-env'?: string;
  models?: string;
  'retry-after-ms'?: number;
  seed?: number;
  'rate-limit'?: number;
  'server-error'?: number;
  'html-502'?: number;
  reset?: number;
  hang?: number;
  quota?: number;
  'ok-with-error'?: number;
  'empty-choices'?: number;
  rpm?: number;
  tpm?: number;
  rpd?: number;
  'limit-headers'?: LimitHeaders;
  'max-in-flight'?: number;
  'burst-ms'?: number;
}

const FAULT_FLAGS: ReadonlyArray<[keyof SimulateArgs, keyof FaultRates, string]> = [
  ['rate-limit', 'rateLimit', 'get 429 rate_limit_exceeded with retry-after'],
  ['server-error', 'serverError', 'get 500 server_error'],
  ['html-502', 'htmlBadGateway', 'get 502 with an HTML page'],
  ['reset', 'reset', 'get their connection reset, no response'],
  ['hang', 'hang', 'are never answered'],
  ['quota', 'quota', 'get 429 insufficient_quota'],
  ['ok-with-error', 'okWithError', 'get 200 whose body is an error object'],
  ['empty-choices', 'emptyChoices', 'get 200 with no choices'],
];

/** A TCP port: 0 (any free one) to 65535; Node's own message for 99999 is an internal error. */
function portNumber(value: unknown): number | undefined {
  const port = nonNegativeInteger('port')(value);
  if (port !== undefined && port > 65_535) throw new Error(`--port must be a TCP port, 0 to 65535: current value is ${port}`);
  return port;
}

export const simulateCommand = (session: CliSession): CommandModule<object, SimulateArgs> => ({
  command: 'simulate',
  describe: 'Serve a local OpenAI-compatible /chat/completions with simulated replies and faults',
  builder: (yargs: Argv) => {
    let built = yargs
      .option('port', { type: 'string', coerce: portNumber, describe: 'Port (default: a free one)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
      .option('latency-ms', { type: 'string', coerce: nonNegativeInteger('latency-ms'), describe: 'Added latency per request' })
      .option('jitter-ms', { type: 'string', coerce: nonNegativeInteger('jitter-ms'), describe: 'Extra random latency, 0..N ms' })
      .option('api-key-env', { type: 'string', describe: 'Require the key held in this environment variable' })
      .option('models', { type: 'string', describe: 'Comma-separated model names to accept (others get 404)' })
      .option('retry-after-ms', {
        type: 'string',
        coerce: nonNegativeInteger('retry-after-ms'),
        describe: 'retry-after announced on simulated 429s (default 1000)',
      })
      .option('seed', { type: 'string', coerce: nonNegativeInteger('seed'), describe: 'Seed of the fault sequence (default 1)' })
      .option('rpm', { type: 'string', coerce: positiveInteger('rpm'), describe: 'Play a provider: requests per minute, then 429' })
      .option('tpm', {
        type: 'string',
        coerce: positiveInteger('tpm'),
        describe: 'Play a provider: tokens per minute (prompt + max_tokens, counted at admission), then 429',
      })
      .option('rpd', {
        type: 'string',
        coerce: positiveInteger('rpd'),
        describe: 'Play a provider: requests per day (refilled continuously over the day), then 429',
      })
      .option('burst-ms', {
        type: 'string',
        coerce: positiveInteger('burst-ms'),
        describe: "How much of a minute's limit the buckets hold (default 60000: a minute's worth; 1000: enforced per second)",
      })
      .option('limit-headers', {
        choices: LIMIT_HEADERS,
        default: 'openai',
        describe:
          "Whose rate-limit headers answers carry: openai (x-ratelimit-*, retry-after on 429s), groq (requests per day under OpenAI's names, from --rpd), " +
          'mistral (-req-minute), together (per second, on 429s), anthropic (anthropic-ratelimit-*), cerebras (-requests-day, -tokens-minute), ' +
          "ietf (RateLimit-Policy/RateLimit); none: bare 429s, as nginx's limit_req",
      })
      .option('max-in-flight', {
        type: 'string',
        coerce: positiveInteger('max-in-flight'),
        describe: 'Answer 429 at once past N requests in flight',
      });
    for (const [flag, , what] of FAULT_FLAGS) {
      built = built.option(flag, { type: 'string', coerce: probability(flag), describe: `Share of requests that ${what} (0..1)` });
    }
    return built
      .example('$0 simulate --port 8080 --latency-ms 50', 'A steady endpoint on port 8080')
      .example('$0 simulate --rate-limit 0.05 --server-error 0.05 --hang 0.005', 'A flaky endpoint')
      .example('$0 simulate --rpm 3000 --tpm 250000 --latency-ms 500', 'A provider with OpenAI-style limits and headers')
      .example('$0 simulate --rpd 14400 --tpm 18000 --limit-headers groq', "Groq's dialect: requests per day under OpenAI's names")
      .epilog(
        'Per-row faults for tests: a message containing [[sim:500]] (any status), [[sim:429x2]] (only the first two ' +
          'requests with that body), [[sim:hang]], [[sim:reset]], [[sim:html502]], [[sim:quota]], [[sim:okerror]], ' +
          '[[sim:empty]], [[sim:retry-after-date]], [[sim:should-retry-false]], [[sim:apim]], [[sim:no-trace]] or ' +
          '[[sim:big]] gets that behaviour. They work with chatbatch run --simulate too. ' +
          'JSON replies: a request with response_format json_object gets {"label": ..., "score": ...}, one with ' +
          'json_schema a value that fits its schema; [[sim:json]] answers JSON, [[sim:json-fenced]] JSON in a ```json ' +
          'block, [[sim:badjson]] a reply that is not JSON ([[sim:badjsonx1]]: only the first time). ' +
          'GET /__stats answers what the simulator saw (requests, 429s by cause, most in flight, first/last request time).',
      ) as unknown as Argv<SimulateArgs>;
  },
  handler: (args) => serveSimulator(args, session),
});

/** Serves until a stop request (Ctrl-C, SIGTERM, io.signal), then closes. */
async function serveSimulator(args: SimulateArgs, session: CliSession): Promise<void> {
  const options: SimulatorOptions = { host: args.host ?? '127.0.0.1', faults: {} };
  if (args.port !== undefined) options.port = args.port;
  if (args['latency-ms'] !== undefined) options.latencyMs = args['latency-ms'];
  if (args['jitter-ms'] !== undefined) options.latencyJitterMs = args['jitter-ms'];
  if (args['retry-after-ms'] !== undefined) options.retryAfterMs = args['retry-after-ms'];
  if (args.seed !== undefined) options.seed = args.seed;
  if (args.rpm !== undefined) options.rpm = args.rpm;
  if (args.tpm !== undefined) options.tpm = args.tpm;
  if (args.rpd !== undefined) options.rpd = args.rpd;
  if (args['burst-ms'] !== undefined) options.burstMs = args['burst-ms'];
  if (args['max-in-flight'] !== undefined) options.maxInFlight = args['max-in-flight'];
  options.limitHeaders = args['limit-headers'] ?? 'openai';
  if (args.models)
    options.models = args.models
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
  if (args['api-key-env']) {
    const key = session.io.env[args['api-key-env']];
    if (!key) {
      session.io.stderr.write(`chatbatch: --api-key-env: the environment variable ${args['api-key-env']} is not set\n`);
      session.exitCode = EXIT.usage;
      return;
    }
    options.apiKey = key;
  }
  for (const [flag, name] of FAULT_FLAGS) {
    const rate = args[flag] as number | undefined;
    if (rate !== undefined) options.faults![name] = rate;
  }
  // Loaded here, not at start-up: a run has no use for the simulator.
  const { startSimulator } = await import('../simulator/server.js');
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  try {
    simulator = await startSimulator(options);
  } catch (error) {
    const problem = listenFailure(error, options.host ?? '127.0.0.1', options.port);
    if (problem === null) throw error;
    session.io.stderr.write(`chatbatch: ${problem}\n`);
    session.exitCode = EXIT.usage;
    return;
  }
  session.io.stderr.write(`chatbatch simulator listening on ${simulator.url} (replies are simulated)\n`);
  session.io.stdout.write(`${simulator.url}\n`);
  let release = (): void => {};
  await new Promise<void>((resolve) => {
    release = listenForInterrupts(session.io, () => resolve());
  });
  release();
  await simulator.close();
}

function probability(flag: string) {
  return flagNumber(flag, PROBABILITY);
}
