import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
import { type ScriptedServer, sendJson, startScriptedServer } from '../support/scripted-server.js';
import { makeTempDir, type TempDir } from '../support/temp-dir.js';

let dir: TempDir;
let server: ScriptedServer;

beforeEach(async () => {
  dir = await makeTempDir();
  // A model that answers with what a spreadsheet would run, and a server whose trace id does too.
  server = await startScriptedServer((_request, response, index) =>
    sendJson(
      response,
      200,
      { choices: [{ index: 0, message: { role: 'assistant', content: `=HYPERLINK("http://evil/${index}")` }, finish_reason: 'stop' }] },
      { 'x-request-id': '@trace-1' },
    ),
  );
});
afterEach(async () => {
  await server.close();
  await dir.remove();
});

describe('--format csv formula escaping', () => {
  it("escapes only the cells the model or server wrote and the header's, never the user's own cells", async () => {
    await dir.write('in.csv', 'id,=formula_header,prompt\n1,=SUM(A1:A3),hello\n2,+41 22 555,-minus\n');
    const result = await runCli(
      ['run', 'in.csv', '--base-url', server.baseUrl, '--model', 'm', '--out', 'out', '--format', 'csv', '--quiet'],
      {
        cwd: dir.path,
        env: { CHATBATCH_API_KEY: 'sk-formula-test-123456' },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const rows = parse(await dir.read('out/output.csv')) as string[][];
    expect(rows[0]!.slice(0, 4)).toEqual(['id', "'=formula_header", 'prompt', 'reply']);
    expect(rows[1]!.slice(0, 3)).toEqual(['1', '=SUM(A1:A3)', 'hello']);
    expect(rows[2]!.slice(0, 3)).toEqual(['2', '+41 22 555', '-minus']);
    expect(rows[1]![3]).toBe(`'=HYPERLINK("http://evil/0")`);
    expect(rows[1]![rows[0]!.indexOf('trace_id')]).toBe("'@trace-1");
  });
});
