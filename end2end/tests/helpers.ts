import { expect, type Page } from '@playwright/test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const PASSWORD = 'correct horse battery';

let counter = 0;
/** A username no other test uses. */
export function uniqueName(prefix = 'learner'): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}

/** Signs up through the form; ends on the dashboard. */
export async function signUp(page: Page, username = uniqueName(), base = ''): Promise<string> {
  await page.goto(`${base}/signup`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  return username;
}

/** The suite server's database (the same choice as playwright.config.ts makes). */
export function databaseUrl(): string {
  const port = Number(process.env.E2E_PORT ?? 3987);
  return process.env.E2E_DATABASE_URL ?? `sqlite://${path.join(os.tmpdir(), `warren-e2e-${port}.db`)}`;
}

function sqliteFile(url: string): string {
  return url.replace(/^sqlite:(\/\/)?/, '').split('?')[0];
}

/** The first column of the first row a query returns, from the suite's database. */
export function databaseValue(sql: string): string {
  const url = databaseUrl();
  const out = url.startsWith('sqlite:')
    ? execFileSync('sqlite3', [sqliteFile(url), sql], { encoding: 'utf8' })
    : execFileSync('psql', [url, '-tAc', sql], { encoding: 'utf8' });
  return out.split('\n')[0].trim();
}

/** Every row of the suite's database, as text (the database's own dump of its data). */
export function databaseDump(): string {
  const url = databaseUrl();
  // pg_dump's warnings about circular keys (harmless here) stay off the test's output.
  const options = { encoding: 'utf8' as const, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] as const };
  return url.startsWith('sqlite:')
    ? execFileSync('sqlite3', [sqliteFile(url), '.dump'], options)
    : execFileSync('pg_dump', ['--data-only', url], options);
}

/** The points of a set, as its page lists them (the learner's own notes). */
export async function pointsOf(page: Page, setName: string, base = ''): Promise<string[]> {
  await page.goto(`${base}/sets`);
  await page.getByRole('link', { name: setName }).click();
  await expect(page.getByRole('heading', { level: 1, name: setName })).toBeVisible();
  return page.locator('ol.points > li > p:first-child').allInnerTexts();
}

/** Starts (or starts over) a session from the dashboard; ends on the live page, connected. */
export async function startSession(page: Page, setName: string, base = ''): Promise<void> {
  await page.goto(`${base}/`);
  const card = page.getByTestId('set-card').filter({ hasText: setName });
  await expect(async () => {
    await card.getByRole('button', { name: /Start/ }).click();
    await expect(page).toHaveURL(/\/sessions\//, { timeout: 2000 });
  }).toPass();
  await waitForTurn(page, 0);
}

export async function turns(page: Page): Promise<number> {
  return Number(await page.getByTestId('live').getAttribute('data-turns'));
}

export async function waitForConnected(page: Page): Promise<void> {
  await expect(page.getByTestId('live')).toHaveAttribute('data-connection', 'open', { timeout: 15_000 });
}

/** Waits until more than `after` replies have finished on this page. */
export async function waitForTurn(page: Page, after: number): Promise<void> {
  await expect(page.getByTestId('live')).toHaveAttribute('data-connection', 'open', { timeout: 15_000 });
  await expect.poll(() => turns(page), { timeout: 15_000 }).toBeGreaterThan(after);
}

/** Types an answer, sends it with Enter, and waits for the turn to end. */
export async function answer(page: Page, text: string): Promise<void> {
  const before = await turns(page);
  const box = page.getByTestId('answer');
  await box.fill(text);
  await box.press('Enter');
  await waitForTurn(page, before);
}

export async function recalled(page: Page): Promise<number> {
  return Number(await page.getByTestId('progress').getAttribute('data-recalled'));
}

export function screenshotPath(name: string): string {
  const dir = path.join(__dirname, '..', '..', 'test-output', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A server of our own (for tests that stop and restart it), with its own database. */
export class OwnServer {
  private child?: ChildProcess;
  readonly database: string;
  constructor(
    readonly port: number,
    private readonly env: Record<string, string> = {},
  ) {
    this.database = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warren-own-')), 'warren.db');
  }

  /** Its own new database: on the suite's PostgreSQL server when it has one (Warren creates
   * a PostgreSQL database that does not exist yet), else a SQLite file. */
  private get databaseUrl(): string {
    const suite = process.env.E2E_DATABASE_URL;
    if (suite?.startsWith('postgres')) {
      return `${suite.slice(0, suite.lastIndexOf('/'))}/own_${path.basename(path.dirname(this.database)).replace(/\W/g, '_').toLowerCase()}`;
    }
    return `sqlite://${this.database}`;
  }

  /** Started with these settings added to the environment. */
  static async create(env: Record<string, string> = {}): Promise<OwnServer> {
    const server = new OwnServer(await freePort(), env);
    await server.start();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const bin = process.env.WARREN_BIN ?? '../target/debug/warren';
    this.child = spawn(bin, ['serve'], {
      env: {
        ...process.env,
        WARREN_ADDR: `127.0.0.1:${this.port}`,
        DATABASE_URL: this.databaseUrl,
        WARREN_SITE_ROOT: process.env.WARREN_SITE_ROOT ?? '../target/site',
        WARREN_MODEL_DIR: process.env.WARREN_MODEL_DIR ?? '../data/models/all-MiniLM-L6-v2',
        WARREN_WORDNET_DIR: process.env.WARREN_WORDNET_DIR ?? '../data/models/wordnet',
        WARREN_LOG: 'warn',
        ...this.env,
      },
      stdio: 'ignore',
    });
    await expect
      .poll(async () => {
        try {
          return (await fetch(`${this.url}/readyz`)).status;
        } catch {
          return 0;
        }
      }, { timeout: 30_000 })
      .toBe(200);
  }

  /** Kills the process outright, as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Every visible control (and each of `extra`) is at least 44 px tall: a thumb's target. */
export async function controlsAreTall(page: Page, where: string, extra: string[] = []): Promise<void> {
  const selector = [
    'button',
    'a.button',
    'select',
    'input:not([type=hidden]):not([type=checkbox]):not([type=radio])',
    'summary',
    '.topbar nav a',
    '.check',
    ...extra,
  ].join(', ');
  const short: string[] = [];
  for (const control of await page.locator(selector).all()) {
    if (!(await control.isVisible())) continue;
    const box = await control.boundingBox();
    if (box && box.height < 43.5) {
      short.push(`${(await control.evaluate((e) => e.outerHTML)).slice(0, 80)} is ${box.height}px`);
    }
  }
  expect(short, `controls under 44 px on ${where}`).toEqual([]);
}

/**
 * A language model server of our own speaking OpenAI's Chat Completions (streamed), for tests
 * that need the model to fail: the tutor asks a plain question, the judges find nothing, and
 * the session summariser answers its JSON, or a 400 while `failSummaries` is set.
 */
export class FakeModel {
  failSummaries = false;
  summaryRequests = 0;
  private constructor(private readonly server: http.Server, readonly port: number) {}

  static async start(): Promise<FakeModel> {
    let model: FakeModel | undefined;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => model?.answer(body, res));
    });
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      }),
    );
    model = new FakeModel(server, port);
    return model;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  private answer(raw: string, res: http.ServerResponse): void {
    let request: { messages?: { content?: string }[]; response_format?: unknown } = {};
    try {
      request = JSON.parse(raw);
    } catch {
      // A body that is not JSON gets the tutor's answer.
    }
    const system = request.messages?.[0]?.content ?? '';
    let text = 'What do you remember about it?';
    if (system.includes('You write the record of a recall session')) {
      this.summaryRequests += 1;
      if (this.failSummaries) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'scripted failure' } }));
        return;
      }
      text = JSON.stringify({
        overview: 'Written by the model after a retry.',
        rabbitholes: [],
        hard: [],
        nextSteps: ['Come back to the points still open.'],
      });
    } else if (request.response_format) {
      text = JSON.stringify({ recalled: [], nearMisses: [], isRabbithole: false, confidence: 0 });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.end(chunk({ role: 'assistant', content: text }) + chunk({}, 'stop') + 'data: [DONE]\n\n');
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
  }
}
