import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { signUp, startSession, answer, turns, waitForTurn, controlsAreTall, screenshotPath } from './helpers';

/** A session with a rabbit hole; ends on its history page. Returns the page's address. */
async function sessionWithARabbitHole(page: Page): Promise<string> {
  await signUp(page);
  await startSession(page, 'The living cell');
  await answer(page, 'no idea');
  await answer(page, 'still nothing');
  await answer(page, 'Where did mitochondria originally come from, endosymbiosis?');
  const before = await turns(page);
  await page.getByTestId('rabbithole-prompt').getByRole('button', { name: 'Explore' }).click();
  await waitForTurn(page, before);
  await answer(page, 'Were they bacteria once, swallowed whole?');
  await page.getByRole('button', { name: 'Return to session' }).click();
  await expect(page.getByTestId('rabbithole-banner')).toHaveCount(0);
  await answer(page, 'Back to it: ribosomes make proteins, and energy is $E = mc^2$');
  await page.goto('/history');
  await page.getByTestId('history-list').getByRole('link', { name: 'The living cell' }).first().click();
  await expect(page.getByTestId('transcript')).toBeVisible();
  return page.url();
}

function shown(text: string | null): number {
  return Number((text ?? '').split(' of ')[0]);
}

test('the history page shows the branch, filters, searches, labels and links to an entry', async ({ page, context }) => {
  const url = await sessionWithARabbitHole(page);
  const transcript = page.getByTestId('transcript');
  const branch = transcript.getByTestId('side-branch');
  await expect(branch).toHaveCount(1);
  // Math in a message is typeset, as in the live view.
  await expect(transcript.locator('.katex').first()).toBeVisible();
  await expect(branch.locator('summary')).toContainText('Rabbit hole:');
  await branch.locator('summary').click();
  await expect(branch).toContainText('Were they bacteria once, swallowed whole?');

  const count = page.getByTestId('entry-count');
  const all = shown(await count.textContent());
  const filters = page.getByTestId('entry-filters');
  await filters.getByRole('link', { name: 'Your messages' }).click();
  await expect(page).toHaveURL(/filter=learner/);
  const learner = shown(await count.textContent());
  expect(learner).toBeLessThan(all);
  await expect(transcript.locator('.speaker-tutor')).toHaveCount(0);
  await filters.getByRole('link', { name: 'Everything' }).click();
  expect(shown(await count.textContent())).toBeGreaterThan(all);
  await filters.getByRole('link', { name: 'Labelled' }).click();
  expect(shown(await count.textContent())).toBe(0);
  await filters.getByRole('link', { name: 'Conversation' }).click();

  await page.getByTestId('transcript-search').fill('ribosomes proteins');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/q=ribosomes\+proteins/);
  expect(shown(await count.textContent())).toBe(1);

  // A label, through its plain form; then "Labelled" shows that entry.
  const entry = transcript.locator('li.entry', { hasText: 'Back to it: ribosomes make proteins' });
  const before = page.url();
  await expect(transcript).toHaveAttribute('data-live', '');
  await entry.getByRole('link', { name: 'Label' }).click();
  // With JavaScript the form opens in place, without loading the page again.
  await expect(entry.getByTestId('label-form')).toBeVisible();
  expect(page.url()).toBe(before);
  await page.getByTestId('label-form').getByLabel('Label').fill('revisit');
  await page.getByRole('button', { name: 'Save label' }).click();
  await filters.getByRole('link', { name: 'Labelled' }).click();
  expect(shown(await count.textContent())).toBe(1);
  await expect(transcript.getByTestId('entry-label')).toHaveText('revisit');

  // "Link" copies the entry's address; opened, it shows that entry highlighted.
  await page.goto(url);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const inside = page.getByTestId('transcript').locator('li.entry.speaker-learner', { hasText: 'swallowed whole' });
  await expect(page.getByTestId('transcript')).toHaveAttribute('data-live', '');
  await page.getByTestId('side-branch').locator('summary').click();
  await inside.locator('a.copy-link').click();
  await expect(inside.locator('a.copy-link')).toHaveText('Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain('targetId=');
  await page.goto(copied);
  const target = page.locator('li.entry.target');
  await expect(target).toContainText('swallowed whole');
  await expect(target).toBeInViewport();
  await expect(page.getByText('Back to where the session is')).toBeVisible();
});

test('without JavaScript the transcript, filters and search still work', async ({ page, browser }) => {
  const url = await sessionWithARabbitHole(page);
  const state = await page.context().storageState();
  const context = await browser.newContext({ javaScriptEnabled: false, storageState: state });
  const plain = await context.newPage();
  await plain.goto(url);
  await expect(plain.getByTestId('transcript')).toContainText('Back to it: ribosomes make proteins');
  const count = plain.getByTestId('entry-count');
  const all = shown(await count.textContent());
  await plain.getByTestId('entry-filters').getByRole('link', { name: 'Your messages' }).click();
  expect(shown(await count.textContent())).toBeLessThan(all);
  await plain.getByTestId('transcript-search').fill('bacteria');
  await plain.getByRole('button', { name: 'Search' }).click();
  expect(shown(await count.textContent())).toBe(1);
  // A label without JavaScript: "Label" loads the page with the form open there.
  const entry = plain.getByTestId('transcript').locator('li.entry').first();
  await entry.getByRole('link', { name: 'Label' }).click();
  await expect(plain).toHaveURL(/edit=/);
  await plain.getByTestId('label-form').getByLabel('Label').fill('plain');
  await plain.getByRole('button', { name: 'Save label' }).click();
  await expect(plain.getByTestId('entry-label')).toHaveText('plain');
  await context.close();
});

test('the HTML export opens from a file with the network off', async ({ page, browser }) => {
  const url = await sessionWithARabbitHole(page);
  const res = await page.request.get(`${url.split('?')[0]}/export.html`);
  expect(res.status()).toBe(200);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warren-export-')), 'session.html');
  fs.writeFileSync(file, await res.body());

  const context = await browser.newContext({ offline: true });
  const requests: string[] = [];
  await context.route('**/*', (route) => {
    if (!route.request().url().startsWith('file:')) {
      requests.push(route.request().url());
      return route.abort();
    }
    return route.continue();
  });
  const offline = await context.newPage();
  const errors: string[] = [];
  offline.on('pageerror', (e) => errors.push(e.message));
  await offline.goto(`file://${file}`);
  const transcript = offline.getByTestId('transcript');
  await expect(transcript).toContainText('Back to it: ribosomes make proteins');
  // KaTeX and its fonts came inside the file.
  await expect(transcript.locator('.katex').first()).toBeVisible();
  const count = offline.getByTestId('entry-count');
  const all = shown(await count.textContent());
  await offline.getByRole('button', { name: 'Your messages' }).click();
  expect(shown(await count.textContent())).toBeLessThan(all);
  await expect(transcript.locator('li.entry.speaker-tutor:visible')).toHaveCount(0);
  await offline.getByRole('button', { name: 'Conversation' }).click();
  await offline.getByTestId('transcript-search').fill('swallowed WHOLE');
  // The learner's message, and the rabbit hole's note that quotes it.
  expect(shown(await count.textContent())).toBe(2);
  await offline.getByTestId('transcript-search').fill('');

  // "Read this part on its own" shows the rabbit hole's line alone, from the session's start,
  // as the history page does; the notice above it brings the whole session back.
  const branch = transcript.getByTestId('side-branch').first();
  if (!(await branch.locator('details').first().evaluate((d) => (d as HTMLDetailsElement).open))) {
    await branch.locator('summary').first().click();
  }
  await branch.getByRole('link', { name: 'Read this part on its own' }).first().click();
  await expect(offline.getByTestId('line-notice')).toBeVisible();
  const learner = (text: string) => transcript.locator('li.entry.speaker-learner', { hasText: text });
  await expect(learner('Were they bacteria once, swallowed whole?')).toBeVisible();
  await expect(learner('Back to it: ribosomes make proteins')).toBeHidden();
  await expect(learner('no idea')).toBeVisible();
  await offline.getByTestId('line-notice').getByRole('link', { name: 'Show the whole session' }).click();
  await expect(offline.getByTestId('line-notice')).toBeHidden();
  await expect(learner('Back to it: ribosomes make proteins')).toBeVisible();

  // A deep link into the rabbit hole opens it, highlighted.
  const inside = transcript.locator('li.entry.speaker-learner', { hasText: 'swallowed whole' });
  const href = await inside.locator('a.copy-link').getAttribute('href');
  expect(href).toMatch(/^#leafId=.*targetId=/);
  await offline.goto(`file://${file}${href}`);
  await expect(offline.locator('li.entry.target')).toContainText('swallowed whole');
  await expect(offline.locator('li.entry.target')).toBeInViewport();
  expect(requests).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});

test('on a phone the session page is usable by thumb, and it is looked at on both sizes', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const url = await sessionWithARabbitHole(page);
  await page.getByTestId('side-branch').locator('summary').click();
  await controlsAreTall(page, 'a session page', ['a.filter-link', 'a.copy-link', 'a.label-link', 'a.open-line']);
  await page.screenshot({ path: screenshotPath('phone-history'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(url);
  await page.screenshot({ path: screenshotPath('desktop-history'), fullPage: true });
});
