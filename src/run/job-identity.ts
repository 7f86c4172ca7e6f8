import type { RunConfig } from '../job/config.js';
import { headersIdentity } from '../job/headers.js';
import { type InputSummary, jobFingerprint } from '../output/manifest.js';

/**
 * The manifest's `job_fingerprint` for this configuration and these inputs: what `merge` compares
 * to tell shards of one job from another's. Computed when a run starts (so a shard still running,
 * or killed, is already known by it) and again when it ends, from the inputs as they are then.
 */
export function jobIdentity(config: RunConfig, inputs: readonly InputSummary[], replySchemaSha256: string | null): string {
  return jobFingerprint({
    inputs,
    // One model keeps the fingerprint it always had; several are one list, in their order.
    model: config.models.length > 1 ? JSON.stringify(config.models) : config.model,
    baseUrl: config.baseUrl,
    params: config.params,
    system: config.system,
    template: config.template,
    idField: config.idField,
    shardCount: config.shard?.count ?? 1,
    repeat: config.repeat,
    headers: headersIdentity(config.headers),
    rowParams: config.rowParams,
    replyFormat: config.replyFormat,
    replySchemaSha256,
  });
}
