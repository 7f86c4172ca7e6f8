import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { perTestServedDir } from '../support/per-test.js';
import type { ScriptedServer } from '../support/scripted-server.js';
import { jsonlOf, type TempDir } from '../support/temp-dir.js';

// Parameters by opt-in: whatever the user names is sent as given (evaluation fields such as
// seed, a vendor's top_k), checked where its type is known; the features the spec rules out and
// near-misses of known names stop the run before anything is sent.

let dir: TempDir;
let server: ScriptedServer;
perTestServedDir((fresh) => ({ dir, server } = fresh));

const run = async (args: string[]) => {
  await dir.write('in.jsonl', jsonlOf([{ id: 'a', prompt: 'one' }]));
  return runCli(['run', 'in.jsonl', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', ...args], {
    cwd: dir.path,
    env: { CHATBATCH_API_KEY: 'sk-request-params-0123456789' },
  });
};

describe('--param: any parameter, sent as given', () => {
  it('sends seed, logprobs, reasoning_effort and vendor fields (top_k, chat_template_kwargs) exactly as given, and records them', async () => {
    const result = await run([
      '--param',
      'seed=42',
      '--param',
      'top_k=40',
      '--param',
      'logprobs=true',
      '--param',
      'reasoning_effort=low',
      '--param',
      'chat_template_kwargs={"enable_thinking":false}',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.received.map((request) => request.json)).toEqual([
      {
        model: 'm',
        messages: [{ role: 'user', content: 'one' }],
        chat_template_kwargs: { enable_thinking: false },
        logprobs: true,
        reasoning_effort: 'low',
        seed: 42,
        top_k: 40,
      },
    ]);
    const manifest = JSON.parse(await dir.read('out/manifest.json')) as { config: { params: unknown } };
    expect(manifest.config.params).toEqual({
      seed: 42,
      top_k: 40,
      logprobs: true,
      reasoning_effort: 'low',
      chat_template_kwargs: { enable_thinking: false },
    });
  });

  it.each([
    [['--param', 'stream=true'], 'params.stream: chatbatch does not support streaming; remove it'],
    [['--param', 'tools=[]'], 'params.tools: chatbatch does not support tool calling; remove it'],
    [['--param', 'stream=true', '--allow-param', 'stream'], '--allow-param stream cannot be allowed: chatbatch does not support streaming'],
    [['--param', 'model=other'], 'params.model: the model is set by --model'],
    [['--param', 'seed=1.5'], 'params.seed: expected an integer, got 1.5'],
  ])('%j: exit 2, nothing sent', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(server.received).toHaveLength(0);
  });

  it('refuses a near-miss of a known name with "did you mean"; --allow-param sends it as written', async () => {
    const typo = await run(['--param', 'temprature=0.2']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('params.temprature: unknown parameter; did you mean temperature?');
    expect(typo.stderr).toContain('name it with --allow-param');
    expect(server.received).toHaveLength(0);

    const forced = await run(['--param', 'temprature=0.2', '--allow-param', 'temprature']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(server.received.map((request) => request.json?.temprature)).toEqual([0.2]);
  });
});
