import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './fixtures';
import { OwnServer, screenshotPath, signUp } from './helpers';

/** About a thousand words of study material: the evaluation set's first passages. */
function material(): string {
  const lines = fs.readFileSync(path.join(__dirname, '..', '..', 'evals', 'drafter.jsonl'), 'utf8').split('\n');
  const sources = lines.filter((l) => l.trim()).map((l) => JSON.parse(l).source as string);
  let text = '';
  for (const source of sources) {
    if (text.split(/\s+/).length >= 1000) break;
    text += `${source}\n\n`;
  }
  return text.trim();
}

test('a learner pastes a chapter, watches it drafted, reviews the drafts and studies the new set', async ({
  page,
  allowConsole,
}) => {
  // Back to the drafts once kept: the page says why it is gone (a 404 all the same).
  allowConsole(/\/sources\/[0-9a-f-]+: Failed to load resource: .*status of 404/);
  await signUp(page);
  await page.goto('/sets');
  await page.getByTestId('new-set-from-source').click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New set from a source');
  const text = material();
  expect(text.split(/\s+/).length).toBeGreaterThanOrEqual(1000);
  await page.getByLabel("The new set's name").fill('From my notes');
  await page.getByLabel('Text or Markdown').fill(text);
  await page.getByRole('button', { name: 'Draft points' }).click();

  // The progress bar fills, then the page shows the drafts.
  await expect(page).toHaveURL(/\/sources\//);
  const drafts = page.getByTestId('draft');
  await expect(drafts.first()).toBeVisible({ timeout: 30_000 });
  const count = await drafts.count();
  expect(count).toBeGreaterThan(5);
  for (const quote of await page.getByTestId('draft-quote').all()) await expect(quote).not.toBeEmpty();
  await page.screenshot({ path: screenshotPath('drafts-review'), fullPage: true });

  // Untick the first, edit the second, keep the rest.
  await drafts.nth(0).getByTestId('keep').uncheck();
  await drafts.nth(1).getByTestId('draft-content').fill('Edited: a point in my own words.');
  await page.getByTestId('keep-drafts').click();

  await expect(page.getByRole('heading', { level: 1, name: 'From my notes' })).toBeVisible();
  await expect(page.getByTestId('point')).toHaveCount(count - 1);
  await expect(page.getByTestId('point').first()).toContainText('Edited: a point in my own words.');
  // Each point is linked to the passage it came from, kept as a resource of the set.
  const resources = page.getByTestId('resource');
  // Pasted notes without a heading are named after their set.
  await expect(resources.first()).toContainText('From my notes');
  await expect(resources.first()).toContainText(/Linked to point 1/);

  // More points from another passage, into the same set.
  await page.getByTestId('add-from-source').click();
  await page.getByLabel('Text or Markdown').fill(
    'The Golgi apparatus packages proteins into vesicles for export. Lysosomes contain digestive enzymes that break down worn-out parts of the cell.',
  );
  await page.getByRole('button', { name: 'Draft points' }).click();
  await expect(page.getByTestId('draft').first()).toBeVisible({ timeout: 30_000 });
  const added = await page.getByTestId('draft').count();
  await page.getByTestId('keep-drafts').click();
  await expect(page.getByRole('heading', { level: 1, name: 'From my notes' })).toBeVisible();
  await expect(page.getByTestId('point')).toHaveCount(count - 1 + added);
  // Back to the drafts already kept: the page says so, not "Not found".
  await page.goBack();
  await expect(page.getByTestId('already-done')).toContainText('kept or put aside already');

  // The new set can be studied.
  await page.goto('/');
  const card = page.getByTestId('set-card').filter({ hasText: 'From my notes' });
  await expect(async () => {
    await card.getByRole('button', { name: /Start/ }).click();
    await expect(page).toHaveURL(/\/sessions\//, { timeout: 2000 });
  }).toPass();
  await expect(page.getByTestId('agent-text')).not.toBeEmpty({ timeout: 15_000 });
});

test('the progress bar counts the passages as they are drafted', async ({ page }) => {
  // A server whose offline agents take a second and a half per answer, as a model would.
  const server = await OwnServer.create({ WARREN_OFFLINE_DELAY_MS: '1500' });
  try {
    await signUp(page, undefined, server.url);
    await page.goto(`${server.url}/sets/new/source`);
    await page.getByLabel("The new set's name").fill('Watched');
    await page.getByLabel('Text or Markdown').fill(material());
    await page.getByRole('button', { name: 'Draft points' }).click();
    await expect(page).toHaveURL(/\/sources\//);
    const bar = page.getByTestId('draft-progress');
    await expect(bar).toBeVisible();
    await expect(page.getByText(/\d+ of \d+ passages/)).toBeVisible();
    // It moves: some passages done while others are still out.
    await expect
      .poll(async () => {
        const value = Number(await bar.getAttribute('value'));
        const max = Number(await bar.getAttribute('max'));
        return value > 0 && value < max;
      })
      .toBe(true);
    // The learner may leave and come back: the drafting goes on without the page.
    const source = page.url();
    await page.goto(`${server.url}/`);
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    await page.goto(source);
    await expect(page.getByTestId('draft-progress').or(page.getByTestId('draft').first())).toBeVisible();
    await expect(page.getByTestId('draft').first()).toBeVisible({ timeout: 30_000 });
  } finally {
    await server.kill();
  }
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the source form posts, and the progress page refreshes itself until the drafts are there', async ({ page }) => {
    // Each passage takes a second and a half, as a model's would: long enough to see the
    // progress page before the drafts.
    const server = await OwnServer.create({ WARREN_OFFLINE_DELAY_MS: '1500' });
    try {
      await signUp(page, undefined, server.url);
      await page.goto(`${server.url}/sets/new/source`);
      await page.getByLabel("The new set's name").fill('Plain forms');
      await page.getByLabel('Text or Markdown').fill(material());
      await page.getByRole('button', { name: 'Draft points' }).click();
      await expect(page).toHaveURL(/\/sources\//);
      // The progress page, with nothing to run it but a refresh in its head.
      await expect(page.getByTestId('draft-progress')).toBeVisible();
      await expect(page.getByText(/\d+ of \d+ passages/)).toBeVisible();
      await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(1);
      const first = page.url();
      // It refreshes itself into the drafts' review, with no script on the page.
      await expect(page.getByTestId('draft').first()).toBeVisible({ timeout: 30_000 });
      expect(page.url()).toBe(first);
      await expect(page.getByTestId('keep-drafts')).toBeVisible();
      await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(0);
    } finally {
      await server.kill();
    }
  });
});

test('dropping the drafts asks once more, then takes them and the pasted text', async ({ page, allowConsole }) => {
  allowConsole(/\/sources\/[0-9a-f-]+: Failed to load resource: .*status of 404/);
  await signUp(page);
  await page.goto('/sets/new/source');
  await page.getByLabel("The new set's name").fill('Plants');
  await page.getByLabel('Text or Markdown').fill(
    'Stomata are small pores on the underside of leaves. Chlorophyll is the green pigment that absorbs light.',
  );
  await page.getByRole('button', { name: 'Draft points' }).click();
  await expect(page.getByTestId('draft').first()).toBeVisible({ timeout: 30_000 });
  const drafts = page.url();
  // The first press only asks.
  await page.getByTestId('drop-drafts').click();
  await expect(page.getByTestId('confirm-drop')).toBeVisible();
  await expect(page.getByTestId('drop')).toContainText('so does the text they were drafted from');
  await expect(page).toHaveURL(drafts);
  await page.getByTestId('confirm-drop').click();
  await expect(page).toHaveURL(/\/sets\?dropped=1$/);
  await expect(page.getByTestId('drafts-dropped')).toContainText('The drafts are dropped');
  await expect(page.getByText('Plants')).toHaveCount(0);
  // Gone for good: Back asks the server again and is told so.
  await page.goBack();
  await expect(page.getByTestId('draft')).toHaveCount(0);
});
