import { chromium } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, test } from './fixtures';
import { OwnServer, recalled, screenshotPath, signUp, startSession, turns, waitForConnected, waitForTurn } from './helpers';

/**
 * Answering by voice in Chromium, with a microphone that is a WAV file espeak-ng speaks when
 * this file loads, and a local server speaking OpenAI's multipart `/audio/transcriptions`
 * format (it cannot hear: it answers with the words it is told to, and records what it got).
 */
const SAID = 'Ribosomes translate messenger RNA into proteins.';
const wav = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warren-voice-')), 'answer.wav');
execFileSync('espeak-ng', ['-s', '150', '-w', wav, SAID]);

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
test.use({
  launchOptions: {
    executablePath,
    args: [
      ...chromiumArgs,
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-audio-capture=${wav}`,
    ],
  },
});

type Received = { model: string; prompt: string; type: string; size: number; name: string };

/** The transcription service: answers `transcript`, or 503 while `down`. */
class FakeTranscriber {
  readonly received: Received[] = [];
  transcript = SAID;
  down = false;
  private server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = await new Request('http://fake/', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: Buffer.concat(chunks),
    }).formData();
    const file = form.get('file') as File | null;
    this.received.push({
      model: String(form.get('model')),
      prompt: String(form.get('prompt') ?? ''),
      type: file?.type ?? '',
      size: file?.size ?? 0,
      name: file?.name ?? '',
    });
    if (this.down) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"overloaded","type":"server_error"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ text: this.transcript }));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return `http://127.0.0.1:${port}/v1`;
  }

  close(): void {
    this.server.close();
  }
}

test('a learner answers by voice: records, reads the transcript in the box, sends it and recalls a point', async ({
  page,
  allowConsole,
}) => {
  // The browser reports the refusal while the service is down, on purpose below.
  allowConsole(/api\/transcribe: Failed to load resource: the server responded with a status of 502/);
  const fake = new FakeTranscriber();
  const server = await OwnServer.create({ WARREN_TRANSCRIBE_URL: await fake.start(), WARREN_TRANSCRIBE_MODEL: 'whisper-1' });
  try {
    await signUp(page, undefined, server.url);
    await expect(page.getByTestId('voice-notice')).toContainText('whisper-1');
    await startSession(page, 'The living cell', server.url);

    // Record: the meter moves with espeak-ng's voice and the clock runs.
    const mic = page.getByTestId('mic');
    await expect(mic).toBeVisible();
    await mic.click();
    await expect(page.getByTestId('recording')).toBeVisible();
    await expect.poll(async () => Number(await page.getByTestId('level').getAttribute('value'))).toBeGreaterThan(0.02);
    await expect(page.getByTestId('recording-time')).toContainText('0:01', { timeout: 5_000 });
    await page.screenshot({ path: screenshotPath('voice-recording') });
    await mic.click();

    // The fake's words come into the box, unsent, for the learner to read.
    await expect(page.getByTestId('answer')).toHaveValue(SAID);
    expect(await turns(page)).toBe(1);
    expect(fake.received).toHaveLength(1);
    const sent = fake.received[0];
    expect(sent.model).toBe('whisper-1');
    // Chromium records Opus in WebM, the first kind the recorder asks for.
    expect(sent.type).toBe('audio/webm;codecs=opus');
    expect(sent.size).toBeGreaterThan(2_000);
    expect(sent.prompt.toLowerCase()).toContain('ribosomes');

    // Sent, it recalls the ribosome point.
    const before = await turns(page);
    await page.getByTestId('send').click();
    await waitForTurn(page, before);
    await expect.poll(() => recalled(page)).toBe(1);

    // Escape throws a recording away: nothing is sent.
    await mic.click();
    await expect(page.getByTestId('recording')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('recording')).toHaveCount(0);
    await page.waitForTimeout(500);
    expect(fake.received).toHaveLength(1);

    // The service is down: the page says so and keeps the recording for one more try.
    fake.down = true;
    fake.transcript = 'the nucleus holds the DNA';
    await mic.click();
    await expect(page.getByTestId('recording')).toBeVisible();
    await page.waitForTimeout(1_200);
    await mic.click();
    await expect(page.getByTestId('voice-problem')).toContainText('not answering', { timeout: 15_000 });
    fake.down = false;
    await page.getByTestId('voice-retry').click();
    await expect(page.getByTestId('answer')).toHaveValue('the nucleus holds the DNA');
    await expect(page.getByTestId('voice-problem')).toHaveCount(0);

    // A second recording is added after what the box holds, not in its place, with a term of
    // the set the recogniser misheard put right, and the page says so.
    fake.transcript = 'and the mighty condria make energy';
    await mic.click();
    await expect(page.getByTestId('recording')).toBeVisible();
    await page.waitForTimeout(1_200);
    await mic.click();
    await expect(page.getByTestId('answer')).toHaveValue('the nucleus holds the DNA and the mitochondria make energy');
    await expect(page.getByTestId('corrections')).toHaveText("Heard as your set's terms: “mighty condria” → “mitochondria”.");
    expect(await turns(page)).toBe(before + 1);

    // The history page marks the spoken message.
    const session = new URL(page.url()).pathname.split('/').pop();
    await page.goto(`${server.url}/history/${session}`);
    await expect(page.getByTestId('spoken')).toHaveCount(1);
  } finally {
    await server.kill();
    fake.close();
  }
});

test('without a transcription service there is no microphone, and the dashboard says voice is off', async ({ page }) => {
  await signUp(page);
  await expect(page.getByTestId('voice-notice')).toHaveText('Answering by voice is off on this server.');
  await startSession(page, 'The living cell');
  // Hydrated and connected: the page has decided what its input bar holds.
  await waitForConnected(page);
  await expect(page.getByTestId('send')).toBeVisible();
  await expect(page.getByTestId('mic')).toHaveCount(0);
});

test('a learner who refuses the microphone is told so in one sentence', async ({ page }) => {
  const fake = new FakeTranscriber();
  const server = await OwnServer.create({ WARREN_TRANSCRIBE_URL: await fake.start() });
  // A browser that asks, and is told no: no fake consent this time.
  const refusing = await chromium.launch({
    executablePath,
    args: [...chromiumArgs, '--use-fake-device-for-media-stream', '--deny-permission-prompts'],
  });
  try {
    const context = await refusing.newContext();
    const other = await context.newPage();
    const errors: string[] = [];
    other.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await signUp(other, undefined, server.url);
    await startSession(other, 'The living cell', server.url);
    await other.getByTestId('mic').click();
    await expect(other.getByTestId('voice-problem')).toHaveText(
      "Warren may not use your microphone: allow it for this site in your browser's settings, or type your answer.",
    );
    await expect(other.getByTestId('recording')).toHaveCount(0);
    expect(fake.received).toHaveLength(0);
    expect(errors).toEqual([]);
    // The page of the suite's own browser is untouched.
    void page;
  } finally {
    await refusing.close();
    await server.kill();
    fake.close();
  }
});
