import { NothingSentError } from '../errors.js';
import { NotARegularFileError, readRegularFile } from '../state/regular-file.js';
import { BUILT_IN_RUBRIC } from './judge-prompt.js';

/** What is wrong with `--judge` as configured: it judges replies against the reference, so it needs --expect. */
export function judgeProblems(judge: string | null, template: string | null, settings: { expect: string | null }): string[] {
  if (judge === null) return template === null ? [] : [`--judge-template ${template} is the judge's rubric: give --judge MODEL too`];
  const problems: string[] = [];
  if (judge.trim() === '') problems.push('--judge needs a model name, e.g. --judge gpt-4o-mini');
  if (!settings.expect) problems.push(`--judge ${judge} judges replies against a reference answer: give --expect FIELD too`);
  return problems;
}

/** A judge rubric file that cannot be used: said before anything is sent (exit 2). */
export class JudgeTemplateError extends NothingSentError {
  override name = 'JudgeTemplateError';
}

/** The judge's rubric: the file's text (`--judge-template`), or the built-in one. */
export async function loadJudgeTemplate(file: string | null): Promise<string> {
  if (file === null) return BUILT_IN_RUBRIC;
  let text: string;
  try {
    text = await readRegularFile(file);
  } catch (error) {
    const why = error instanceof NotARegularFileError ? error.message : ((error as NodeJS.ErrnoException).code ?? String(error));
    throw new JudgeTemplateError(`--judge-template ${file}: cannot read it (${why}); nothing was sent`);
  }
  if (!/\{\{\s*reply\s*\}\}/.test(text)) {
    throw new JudgeTemplateError(
      `--judge-template ${file}: it has no {{reply}}, so the judge would never see the reply it judges; nothing was sent`,
    );
  }
  return text;
}
