import { describe, expect, it } from 'vitest';
import { parseFlatObject } from '../../src/input/flat-json.js';

/** What JSON.parse gives, keys in order (toEqual alone ignores key order). */
const parsed = (text: string) => {
  const value = JSON.parse(text) as Record<string, unknown>;
  return { keys: Object.keys(value), value };
};

describe('parseFlatObject', () => {
  it.each([
    '{"id":"r1","prompt":"row 1: name one colour, briefly"}',
    '{}',
    ' { } ',
    '{ "id" : "r1" ,\t"n" : 3 , "ok": true, "no": false, "none": null }\r',
    '{"a":0,"b":-0,"c":1.5,"d":-12.50,"e":1e21,"f":2E-3,"g":1e400,"h":123456789012345678901234567890}',
    '{"big":1234567890123456789,"tiny":5e-324,"under":1e-400}',
    '{"a":"1","a":"2","b":"x","a":"3"}',
    '{"2":"two","1":"one","b":"bee","a":"a"}',
    '{"text":"é ✓ 😀 \u2028 \u007f","":"empty key","k":""}',
    '{"constructor":"c","toString":"t","hasOwnProperty":"h"}',
  ])('reads %s as JSON.parse does', (text) => {
    const value = parseFlatObject(text);
    expect(value).not.toBeNull();
    expect({ keys: Object.keys(value!), value }).toEqual(parsed(text));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    // -0 and 0 apart too (toEqual tells them apart; Object.is for certainty).
    for (const key of Object.keys(value!)) expect(Object.is(value![key], parsed(text).value[key])).toBe(true);
  });

  it.each([
    ['a nested object', '{"a":{"b":1}}'],
    ['a list', '{"messages":[{"role":"user","content":"hi"}]}'],
    ['an escape in a value', '{"a":"line\\nbreak"}'],
    ['an escaped quote', '{"a":"say \\"hi\\""}'],
    ['an escape in a key', '{"\\u0069d":"r1"}'],
    ['a __proto__ key', '{"__proto__":"x"}'],
    ['a raw tab in a string (not JSON)', '{"a":"x\ty"}'],
    ['a leading zero (not JSON)', '{"a":01}'],
    ['a bare minus (not JSON)', '{"a":-}'],
    ['a trailing point (not JSON)', '{"a":1.}'],
    ['a trailing comma (not JSON)', '{"a":1,}'],
    ['a missing colon', '{"a" 1}'],
    ['a word run on', '{"a":truex}'],
    ['single quotes', "{'a':1}"],
    ['an unclosed object', '{"a":1'],
    ['text after the object', '{"a":1} x'],
    ['an unclosed string', '{"a":"x}'],
    ['a list at the top', '[1,2]'],
    ['a string at the top', '"id"'],
    ['NaN', '{"a":NaN}'],
    ['a plus sign', '{"a":+1}'],
  ])('leaves %s to JSON.parse', (_name, text) => {
    expect(parseFlatObject(text)).toBeNull();
  });

  it('reads random flat rows as JSON.parse does (seeded)', () => {
    let seed = 44;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const scalars = [
      () => `r${Math.floor(random() * 1e6)}`,
      () => 'x'.repeat(Math.floor(random() * 30)),
      () => pick(['é', '✓', '😀', ' ', '{', '}', ',', ':', '[']).repeat(1 + Math.floor(random() * 3)),
      () => Math.floor(random() * 2 ** 53) * pick([1, -1]),
      () => random() * 10 ** Math.floor(random() * 40 - 20),
      () => pick([true, false, null]),
    ];
    let read = 0;
    for (let round = 0; round < 500; round++) {
      const object: Record<string, unknown> = {};
      const fields = Math.floor(random() * 6);
      for (let i = 0; i < fields; i++) object[pick(['id', 'prompt', 'n', '7', 'a b', `k${i}`])] = pick(scalars)();
      const space = pick(['', ' ', '\t']);
      const text = JSON.stringify(object).replace(/,"/g, `,${space}"`).replace(/":/g, `":${space}`);
      const value = parseFlatObject(text);
      if (value === null) continue; // a string with an escape JSON.stringify wrote
      read++;
      expect({ keys: Object.keys(value), value }).toEqual(parsed(text));
    }
    expect(read).toBeGreaterThan(400);
  });
});
