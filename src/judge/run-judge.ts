import { loadPriceBook, type PriceBook } from '../cost/price-book.js';
import { parsePriceFlags } from '../cost/price-flag.js';
import { UnknownPriceError, unknownPriceProblem } from '../cost/run-prices.js';
import { keepInputOf } from '../request/keep-input.js';
import { rowFieldsOf } from './judge-prompt.js';
import { JudgeTemplateError, loadJudgeTemplate } from './judge-settings.js';

/** A run's judge (`--judge`), ready before anything is sent: its model, rubric and price. */
export interface RunJudge {
  model: string;
  /** The rubric's text: the built-in one, or the `--judge-template` file's. */
  template: string;
  /** The `--judge-template` file as given; null for the built-in rubric. */
  templateFile: string | null;
  /** The judge model's price (`--price`, else the price table): its dollars are kept apart. */
  book: PriceBook;
}

/** What of the run's configuration the judge is made from. */
export interface JudgeConfig {
  judge: string | null;
  judgeTemplate: string | null;
  keepInput: string | readonly string[] | null;
  baseUrl: string;
  price: readonly string[] | null;
  maxCost: number | null;
}

/**
 * The run's judge, or null without `--judge`. Stops the run before anything is sent (exit 2)
 * when its rubric cannot be read, names a row field the records do not keep (the judge sees a
 * row's fields as its record keeps them: `--keep-input`), or when `--max-cost` cannot be kept
 * because the judge model has no price.
 */
export async function runJudge(config: JudgeConfig): Promise<RunJudge | null> {
  if (config.judge === null) return null;
  const template = await loadJudgeTemplate(config.judgeTemplate);
  const kept = keepInputOf(config.keepInput);
  const missing = rowFieldsOf(template).filter((field) => kept !== 'all' && !(kept ?? []).includes(field));
  if (missing.length > 0) {
    throw new JudgeTemplateError(
      `--judge-template ${config.judgeTemplate}: it names the row field(s) ${missing.map((name) => `{{${name}}}`).join(', ')}, which the judge sees as the records keep them: add --keep-input ${missing.join(',')} (or --keep-input for every field); nothing was sent`,
    );
  }
  const book = await loadPriceBook(config.judge, config.baseUrl, parsePriceFlags(config.price).prices);
  if (config.maxCost !== null && book.perMillion === null) throw new UnknownPriceError(unknownPriceProblem(config.judge));
  return { model: config.judge, template, templateFile: config.judgeTemplate, book };
}
