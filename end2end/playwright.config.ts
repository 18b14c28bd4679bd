import { defineConfig } from '@playwright/test';
import * as os from 'node:os';
import * as path from 'node:path';

// scripts/test picks the port and database; these fallbacks serve a hand-run `npx playwright test`.
const port = Number(process.env.E2E_PORT ?? 3987);
const database = process.env.E2E_DATABASE_URL ?? `sqlite://${path.join(os.tmpdir(), `warren-e2e-${port}.db`)}`;
const bin = process.env.WARREN_BIN ?? '../target/debug/warren';
const siteRoot = process.env.WARREN_SITE_ROOT ?? '../target/site';
// The server runs from this folder: the sentence model's and WordNet's default paths are the project's.
const modelDir = process.env.WARREN_MODEL_DIR ?? '../data/models/all-MiniLM-L6-v2';
const wordnetDir = process.env.WARREN_WORDNET_DIR ?? '../data/models/wordnet';

export default defineConfig({
  testDir: './tests',
  outputDir: '../test-output/playwright',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: `${bin} serve`,
    url: `http://127.0.0.1:${port}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      WARREN_ADDR: `127.0.0.1:${port}`,
      DATABASE_URL: database,
      WARREN_SITE_ROOT: siteRoot,
      WARREN_MODEL_DIR: modelDir,
      WARREN_WORDNET_DIR: wordnetDir,
      WARREN_LOG: 'warn',
      // Each test's browser says which address it is (see tests/fixtures.ts).
      WARREN_TRUSTED_PROXIES: '127.0.0.1',
    },
  },
});
