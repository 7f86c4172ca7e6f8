/**
 * CSV files whose records end in every mix of CRLF, LF and CR, with the rows a reader must see:
 * [the physical line the row starts on, its prompt]. Columns `n,prompt`, so a run's row ids
 * are `<file>:<line>` and a reply is `echo: <prompt>`. A `\r` in a prompt is one inside quotes
 * (data); every other `\r` is part of a line ending and must not reach a field.
 */
export interface LineEndingCase {
  name: string;
  content: string;
  rows: Array<[number, string]>;
}

const ABCD: Array<[number, string]> = [
  [2, 'a'],
  [3, 'b'],
  [4, 'c'],
  [5, 'd'],
];

export const LINE_ENDING_CASES: readonly LineEndingCase[] = [
  { name: 'CRLF header over LF rows', content: 'n,prompt\r\n1,a\n2,b\n3,c\n4,d\n', rows: ABCD },
  { name: 'one LF line in a CRLF file', content: 'n,prompt\r\n1,a\r\n2,b\n3,c\r\n4,d\r\n', rows: ABCD },
  { name: 'LF header over CRLF rows, with a BOM', content: '\uFEFFn,prompt\n1,a\r\n2,b\r\n3,c\r\n4,d\r\n', rows: ABCD },
  { name: 'CR only', content: 'n,prompt\r1,a\r2,b\r3,c\r4,d\r', rows: ABCD },
  { name: 'all three, no line ending at the end', content: 'n,prompt\r1,a\n2,b\r\n3,c\r4,d', rows: ABCD },
  {
    name: 'blank lines of each kind',
    content: 'n,prompt\r\n\r\n1,a\n\n2,b\r\r3,c\r\n\n\r4,d\n',
    rows: [
      [3, 'a'],
      [5, 'b'],
      [7, 'c'],
      [10, 'd'],
    ],
  },
  {
    name: 'line breaks of each kind inside quoted fields',
    content: 'n,prompt\n1,"a\r\nb"\r2,"c\rd\ne"\r\n3,"f\n\rg"\n4,h\n',
    rows: [
      [2, 'a\r\nb'],
      [4, 'c\rd\ne'],
      [7, 'f\n\rg'],
      [10, 'h'],
    ],
  },
  {
    name: 'a quoted CR just before an LF line ending',
    content: '"n","prompt"\r\n"1","x\r"\n"2","y"\r"3",z\r\n',
    rows: [
      [2, 'x\r'],
      [4, 'y'],
      [5, 'z'],
    ],
  },
];
