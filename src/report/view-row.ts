/** One row (or sample) as the page's rows view shows it: short keys, as it is embedded 100,000 times. */
export interface ViewRow {
  id: string;
  /** Sample index with --repeat; absent otherwise. */
  s?: number;
  ok: boolean;
  st: number | string | null;
  cat: string | null;
  code: string | null;
  msg: string | null;
  att: number;
  fr: string | null;
  tr: string | null;
  /** The row's own fields (--keep-input), values as text. */
  in: Record<string, string> | null;
  /** The reply (or the reply that failed the check). */
  r: string | null;
  /** `data` as indented JSON. */
  d: string | null;
  /** The model's reasoning, when the record kept it; absent otherwise. */
  rs?: string;
  /** With --expect: the row's reference answer as text, when the records keep its field (--keep-input); absent otherwise. */
  ref?: string;
  /** With --expect and a JSON reply: the part of `data` compared with the reference (its --expect field), as text; absent otherwise. */
  a?: string;
  /** With --expect: whether the reply matched the reference (null: not judged); absent otherwise. */
  c?: boolean | null;
  /** With samples: the share of this row's samples that agree with its most common answer. */
  ag?: number;
}
