import type { RunConfig } from '../job/config.js';
import { Redactor } from '../record/redactor.js';

/**
 * The run's redactor, made once where the run starts: it knows every secret the run sends (the
 * key, header values filled from the environment, the request URL's query values, a proxy's
 * password), so that each is masked wherever server text goes (records, logs, errors), and
 * knows no other run's.
 */
export function runRedactor(config: RunConfig): Redactor {
  const redactor = new Redactor();
  redactor.addSecret(config.apiKey);
  for (const secret of config.headerSecrets) redactor.addSecret(secret, 'header');
  redactor.addQueryValues(new URL(config.requestUrl));
  if (config.proxy?.password) redactor.addBasicCredentials(config.proxy.username ?? '', config.proxy.password, 'proxy password');
  return redactor;
}
