import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** Debian's Chromium (`apt-get install chromium`); tests that need a browser are skipped without it. */
export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_BROWSER = existsSync(CHROMIUM);

/**
 * A headless Chromium with a fresh profile and nothing that reaches out on its own (updates,
 * sync, background networking): the machine has no network, and a report must not need one.
 */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(path.join(tmpdir(), 'chatbatch-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * One browser for the test file: launched before its first test (when Chromium is installed),
 * closed after its last. `page()` opens a fresh page in it.
 */
export function browserForFile(): { page(): Promise<Page> } {
  let browser: Awaited<ReturnType<typeof launchBrowser>> | null = null;
  beforeAll(async () => {
    if (HAVE_BROWSER) browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return { page: () => browser!.context.newPage() };
}
