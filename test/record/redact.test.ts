import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src/record/redact.js';
import { echoedForms } from '../support/echoed-forms.js';

function redactorFor(...secrets: string[]): SecretRedactor {
  const redactor = new SecretRedactor();
  for (const secret of secrets) redactor.register(secret);
  return redactor;
}

const LONG = 'sk-proj-AbCdEf0123456789xyzWVU';
const SHORT = 'sk-1234';
const SPECIAL = 'sk-"q&a<b>c\\d-0123456789';

describe('SecretRedactor: every form a server may echo', () => {
  for (const key of [LONG, SHORT, SPECIAL]) {
    for (const [form, echoed] of Object.entries(echoedForms(key))) {
      it(`masks ${JSON.stringify(key)} echoed ${form}`, () => {
        const redactor = redactorFor(key);
        const result = redactor.redact(`before ${echoed} after`);
        expect(result).toMatch(/^before \[key [^\]]*\] after$/);
        for (const leaked of Object.values(echoedForms(key))) expect(result).not.toContain(leaked);
      });
    }
  }

  it('masks a long key echoed in part: cut at its end or its start, raw or escaped (16 characters of it or more)', () => {
    const key = 'sk-proj-Q7vX2mN9pL4kR8sT1wY6zA3bC5dE0fG';
    const redactor = redactorFor(key);
    // A 401 message quoting the key less its last characters; a gateway quoting it without its prefix.
    for (const part of [key.slice(0, -2), key.slice(0, -1), key.slice(3), key.slice(0, 16), key.slice(-16)]) {
      const result = redactor.redact(`Incorrect API key provided: ${part}. Check it.`);
      expect(result).toMatch(/^Incorrect API key provided: \[key [^\]]*\]\. Check it\.$/);
      expect(result).not.toContain(part.slice(4, -4));
    }
    expect(redactor.redact(JSON.stringify({ echoed: `${key.slice(0, -3)}\u0041` }))).not.toContain(key.slice(4, 20));
    // Less than 16 characters of it is no echo of it: text stays as it is.
    expect(redactor.redact(`see ${key.slice(0, 15)} and ${key.slice(-15)}`)).toBe(`see ${key.slice(0, 15)} and ${key.slice(-15)}`);
  });

  it('shows the mask of the key it replaced', () => {
    expect(redactorFor('sk-echoed-secret-key-0123456789abcdef').redact('key: sk-echoed-secret-key-0123456789abcdef.')).toBe(
      'key: [key sk-e…cdef].',
    );
    expect(redactorFor(SHORT).redact(`"${SHORT}"`)).toBe('"[key …34]"');
  });

  it('leaves text without the key as it is, the same string', () => {
    const text = 'Bad gateway: upstream sk-123 timed out &amp; 50% \\n done';
    expect(redactorFor(SHORT).redact(text)).toBe(text);
  });

  it('masks escapes mixed inside one echo, in upper and lower case hex', () => {
    // Go's encoder escapes only &, < and >; others escape " alone; hex may come either case.
    const redactor = redactorFor(SPECIAL);
    for (const echoed of [
      'sk-\\"q\\u0026a\\u003cb\\u003ec\\\\d-0123456789',
      'sk-&#X22;q&#0038;a%3cb&GT;c&#92;d-0123456789',
      'sk-%22q%26a%3Cb%3ec%5Cd-0123456789',
    ]) {
      expect(redactor.redact(echoed)).toBe('[key sk-"…6789]');
    }
  });

  it('masks a key of any length, one character included, with a replacement that never contains it', () => {
    for (const key of ['k', 'e', '[', ']', 'ab', '***']) {
      const result = redactorFor(key).redact(`x${key}y [key] ${key}${key} &#${key.codePointAt(0)};`);
      expect(result, key).not.toContain(key);
    }
    // A 1-character key masks that character wherever server text has it: no key on disk wins.
    expect(redactorFor('k').redact('kind of ok')).toBe('[***]ind of o[***]');
  });

  it('uses other brackets for a key that contains them', () => {
    expect(redactorFor('sk-[bracketed]-key-0123456789').redact('x sk-[bracketed]-key-0123456789 y')).toBe('x (key sk-[…6789) y');
  });

  it('masks every registered secret, the longer first when one contains the other', () => {
    const redactor = redactorFor('header-secret-value-123', 'header-secret');
    expect(redactor.redact('a header-secret-value-123 b header-secret c')).toBe('a [key he…23] b [key …et] c');
    // A secret for another header (a later --header 'Name: ${ENV}') goes through the same entry
    // point, found in the same forms, named by its own label.
    redactor.register('tok-"0123456789abcdef', 'X-Api-Token');
    expect(redactor.redact('t=tok-%220123456789abcdef&u=header&#45;secret')).toBe('t=[X-Api-Token to…ef]&u=[key …et]');
  });

  it('skips only text shorter than the shortest secret: a text exactly as long as one is searched', () => {
    // The fast path reads the length alone; these sit on its edge, with secrets of two lengths.
    const redactor = redactorFor('abcdefghij', 'XYZ');
    expect(redactor.redact('XYZ')).toBe('[key ***]');
    expect(redactor.redact('xyz', true)).toBe('[key ***]');
    expect(redactor.redact('XY')).toBe('XY');
    expect(redactor.redact('zXYZ')).toBe('z[key ***]');
    expect(redactor.redact('abcdefghij')).toBe('[key …ij]');
    // Escaped forms are longer than the secret: never under the cut.
    expect(redactor.redact('%58YZ')).toBe('[key ***]');
    // A secret registered later, shorter than all before, moves the cut down.
    redactor.register('q');
    expect(redactor.redact('q')).toBe('[key ***]');
  });

  it('finds the key lower-cased too when asked (header names arrive lower-cased)', () => {
    const redactor = redactorFor(LONG);
    expect(redactor.redact(LONG.toLowerCase())).toBe(LONG.toLowerCase());
    expect(redactor.redact(`x-${LONG.toLowerCase()}`, true)).toBe('x-[key sk-p…zWVU]');
  });

  it('a prefix cut after redaction: a key straddling the cut keeps none of its first characters', () => {
    const redactor = redactorFor(LONG);
    const text = `${'x'.repeat(90)}${LONG}${'y'.repeat(1000)}`;
    const prefix = redactor.redactedPrefix(text, 100);
    expect(prefix).toBe(`${'x'.repeat(90)}[key sk-p…zWVU]`);
    expect(redactorFor(LONG, SPECIAL).redactedPrefix(`${'x'.repeat(90)}${encodeURIComponent(SPECIAL)}${'y'.repeat(1000)}`, 100)).toBe(
      `${'x'.repeat(90)}[key sk-"…6789]`,
    );
    expect(redactor.redactedPrefix('short', 100)).toBe('short');
  });

  it('stays linear on long runs of escape characters', () => {
    // A hostile error page must not stall the run: a backtracking search would take hours here.
    const redactor = redactorFor(SPECIAL);
    for (const filler of ['\\', '&', '%', '&amp;', '%25', '\\\\u0026']) {
      const text = filler.repeat(20_000) + SPECIAL;
      expect(redactor.redact(text).endsWith('[key sk-"…6789]')).toBe(true);
    }
  });
});
