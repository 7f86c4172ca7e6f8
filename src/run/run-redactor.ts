import { isCredentialParameter } from '../job/base-url.js';
import type { RunConfig } from '../job/config.js';
import { Redactor } from '../record/redactor.js';

/**
 * The run's redactor, made once where the run starts: it knows every secret the run sends (the
 * key, header values filled from the environment, the request URL's query values, a proxy's
 * password, a parameter named as a credential), so that each is masked wherever server text
 * goes (records, logs, errors) and wherever the run writes what the user gave (the manifest's
 * config: Redactor.redactJson), and knows no other run's.
 */
export function runRedactor(config: RunConfig): Redactor {
  const redactor = new Redactor();
  redactor.addSecret(config.apiKey);
  for (const secret of config.headerSecrets) redactor.addSecret(secret, 'header');
  redactor.addQueryValues(new URL(config.requestUrl));
  // A header or parameter named as a credential (`x-portkey-api-key`, `api_key`, `access_token`:
  // gateways that take a key in a header of their own or in the body) carries one, whatever its
  // value and however it was typed (the shell fills `$KEY` in before the run sees it).
  for (const [name, value] of Object.entries(config.sentHeaders)) if (isCredentialParameter(name)) redactor.addSecret(value, 'header');
  for (const [name, value] of Object.entries(config.params)) {
    if (typeof value === 'string' && isCredentialParameter(name)) redactor.addSecret(value, 'param');
  }
  if (config.proxy?.password) redactor.addBasicCredentials(config.proxy.username ?? '', config.proxy.password, 'proxy password');
  return redactor;
}
