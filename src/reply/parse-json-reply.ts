/**
 * A reply read as JSON (`--reply-format json`): the whole reply, or the one fenced code block in
 * it (```json or a bare ```), with any prose around that block ignored, as models write it.
 */
export type ParsedReply = { ok: true; value: unknown } | { ok: false; problem: string };

/** Deeper data could not be written back out: JSON.stringify recurses, and would overflow the stack. */
export const MAX_REPLY_DEPTH = 64;
/** JSON.parse's message quotes the text; a problem stays one readable line. */
const MAX_PARSE_PROBLEM = 200;

export function parseJsonReply(reply: string): ParsedReply {
  const whole = reply.replace(/^\uFEFF/, '').trim();
  if (whole === '') return { ok: false, problem: 'the reply is empty' };
  const direct = tryParse(whole);
  if (direct.ok) return withinDepth(direct.value);
  const blocks = fencedBlocks(whole).filter((block) => block.language === '' || block.language === 'json');
  if (blocks.length > 1) return { ok: false, problem: `the reply has ${blocks.length} fenced code blocks; expected one JSON value` };
  if (blocks.length === 1) {
    const fenced = tryParse(blocks[0]!.body.trim());
    if (fenced.ok) return withinDepth(fenced.value);
    return { ok: false, problem: `its fenced code block is not JSON: ${fenced.problem}` };
  }
  return { ok: false, problem: `the reply is not JSON: ${direct.problem}` };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const message = String((error as Error).message).replace(/\s+/g, ' ');
    return { ok: false, problem: message.length > MAX_PARSE_PROBLEM ? `${message.slice(0, MAX_PARSE_PROBLEM)}…` : message };
  }
}

interface FencedBlock {
  /** The info string's first word, lower-cased ('' for a bare fence). */
  language: string;
  body: string;
}

const OPENING = /^ {0,3}(`{3,})[ \t]*([^`\s]*)[^`]*$/;
/** ```json {"a": 1}``` on one line, as some models write a short value. */
const ONE_LINE = /^ {0,3}(`{3,})[ \t]*(json\b)?[ \t]*(.*?)[ \t]*\1[ \t]*$/i;

/**
 * The backtick-fenced code blocks of a Markdown text, as CommonMark reads them: an opening fence
 * of three or more backticks with an optional info string, closed by a fence at least as long;
 * a block never closed runs to the end (a reply cut off at its token limit).
 */
function fencedBlocks(text: string): FencedBlock[] {
  const lines = text.split(/\r\n|\n|\r/);
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const oneLine = ONE_LINE.exec(line);
    if (oneLine) {
      blocks.push({ language: oneLine[2] ? 'json' : '', body: oneLine[3]! });
      continue;
    }
    const opening = OPENING.exec(line);
    if (!opening) continue;
    const fence = opening[1]!;
    const closing = new RegExp(`^ {0,3}${fence}\`*[ \\t]*$`);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !closing.test(lines[j]!)) body.push(lines[j++]!);
    blocks.push({ language: opening[2]!.toLowerCase(), body: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** Checked without recursion, like the response's `usage`. */
function withinDepth(value: unknown): ParsedReply {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_REPLY_DEPTH) return { ok: false, problem: `the reply's JSON is nested more than ${MAX_REPLY_DEPTH} levels deep` };
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return { ok: true, value };
}
