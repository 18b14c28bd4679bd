import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { answer, controlsAreTall, pointsOf, screenshotPath, signUp, startSession, turns, waitForTurn } from './helpers';

// The smallest valid PNG (1×1), uploaded as a learner's own image.
const PNG = Buffer.from(
  '89504E470D0A1A0A0000000D49484452000000010000000108060000001F15C4890000000D49444154789C630001000005000' +
    '10D0A2DB40000000049454E44AE426082',
  'hex',
);

const SET = 'Heart anatomy';
const POINTS = [
  ['The aorta carries oxygenated blood from the left ventricle to the body.', 'Which vessel leaves the left ventricle?'],
  ['The pulmonary artery carries deoxygenated blood to the lungs.', 'Which vessel takes blood to the lungs?'],
  ["The sinoatrial node sets the heart's rhythm.", 'What sets the pace of the heartbeat?'],
];

async function createSet(page: Page): Promise<void> {
  await page.goto('/sets');
  await page.getByTestId('new-set').click();
  await page.getByLabel('Name').fill(SET);
  await page.getByLabel('Description (optional)').fill('The heart and its vessels.');
  await page.getByRole('button', { name: 'Create set' }).click();
  await expect(page.getByRole('heading', { level: 1, name: SET })).toBeVisible();
}

async function addPoint(page: Page, content: string, cue: string): Promise<void> {
  const form = page.getByTestId('add-point');
  await form.getByLabel('What to recall').fill(content);
  await form.getByLabel('Cue (optional)').fill(cue);
  await form.getByRole('button', { name: 'Add point' }).click();
  await expect(page.getByTestId('point').filter({ hasText: content })).toBeVisible();
}

/** Every visible control on the page is at least 44 px tall. */
test('a learner makes a set of their own, studies it, sees the image and the schedule, then archives and deletes it', async ({
  page,
  allowConsole,
}) => {
  allowConsole(/status of 422/);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signUp(page);
  await createSet(page);
  await expect(page.getByTestId('no-points')).toBeVisible();
  for (const [content, cue] of POINTS) await addPoint(page, content, cue);
  await expect(page.getByTestId('point')).toHaveCount(3);
  // After each, the keys are the form's again, for the next point.
  await expect(page.getByTestId('point-added')).toBeVisible();
  await expect(page.getByTestId('add-point').getByLabel('What to recall')).toBeFocused();

  // Moved with the keyboard, up and back down: the arrow keeps the focus each time, so Enter
  // can press it again.
  const third = POINTS[2][0];
  await page.getByRole('button', { name: `Move up: ${third}` }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/moved=/);
  await expect(page.getByTestId('point').nth(1)).toContainText(third);
  await expect(page.getByRole('button', { name: `Move up: ${third}` })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: `Move down: ${third}` })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('point').nth(2)).toContainText(third);
  // Last again: its down arrow is off, so the up arrow has the focus.
  await expect(page.getByRole('button', { name: `Move up: ${third}` })).toBeFocused();

  const text = page.getByTestId('add-text');
  // Too long (a paste past the limit, which the box takes whole): the page comes back open at
  // the error, the text kept, all of it.
  await text.getByLabel('Title').fill('Too long');
  await text.getByLabel('Text (Markdown)').fill('x'.repeat(20_001));
  await text.getByRole('button', { name: 'Add excerpt' }).click();
  await expect(page.getByTestId('error-body')).toBeInViewport();
  await expect(page.getByTestId('error-body')).toContainText('this has 20001');
  await expect(page.getByTestId('add-text').getByLabel('Text (Markdown)')).toBeFocused();
  await expect(page.getByTestId('add-text').getByLabel('Text (Markdown)')).toHaveValue('x'.repeat(20_001));
  await text.getByLabel('Title').fill('Two circuits');
  await text.getByLabel('Text (Markdown)').fill('The right side pumps to the **lungs**, the left side to the body.');
  await text.getByRole('button', { name: 'Add excerpt' }).click();
  await expect(page.getByTestId('resource').filter({ hasText: 'Two circuits' }).locator('strong')).toHaveText('lungs');
  // Changed later: a word mended and a point linked, back on the set page at the excerpt.
  await page.getByTestId('resource').filter({ hasText: 'Two circuits' }).getByRole('link', { name: 'Edit' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Edit excerpt' })).toBeVisible();
  const edit = page.getByTestId('resource-form');
  await edit.getByLabel('Text (Markdown)').fill('The right side pumps to the **lungs**; the left side, to the whole body.');
  await edit.getByLabel(/2\. /).check();
  await edit.getByRole('button', { name: 'Save' }).click();
  const excerpt = page.getByTestId('resource').filter({ hasText: 'Two circuits' });
  await expect(excerpt).toContainText('to the whole body');
  await expect(excerpt).toContainText('Linked to point 2');

  const image = page.getByTestId('add-image');
  await image.getByLabel('Image file').setInputFiles({ name: 'heart.png', mimeType: 'image/png', buffer: PNG });
  await image.getByLabel('Caption').fill('The heart from the front');
  await image.getByLabel(/1\. The aorta/).check();
  await image.getByRole('button', { name: 'Upload image' }).click();
  const card = page.getByTestId('resource').filter({ hasText: 'The heart from the front' });
  await expect(card).toContainText('Linked to point 1');
  await expect(card.locator('img')).toHaveJSProperty('naturalWidth', 1);
  await page.screenshot({ path: screenshotPath('authoring-set-page'), fullPage: true });

  // Study it: recalling the linked point shows its image, which the server serves to its owner.
  await startSession(page, SET);
  await answer(page, POINTS[0][0]);
  const shown = page.locator('.exchange figure.resource-image');
  await expect(shown).toContainText('The heart from the front');
  await expect(shown.locator('img')).toHaveJSProperty('naturalWidth', 1);
  // A reload keeps what was shown.
  await page.reload();
  await expect(page.locator('.exchange figure.resource-image')).toContainText('The heart from the front');
  await page.getByRole('button', { name: 'Leave session' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  await expect(page.getByTestId('stat-today')).toContainText('1 session');
  await expect(page.getByTestId('stat-streak')).toHaveText('1 day');
  await expect(page.getByTestId('reviews-chart')).toContainText('1 review from');
  await page.screenshot({ path: screenshotPath('dashboard-stats'), fullPage: true });

  // The schedule of that point has moved on.
  await page.goto('/sets');
  await page.getByRole('link', { name: SET }).click();
  const first = page.getByTestId('point').filter({ hasText: POINTS[0][0] });
  await expect(first.getByTestId('schedule')).toContainText('reviewed 1×');
  await expect(first.getByTestId('reviews')).toHaveText('1');
  await expect(first.getByTestId('last-rating')).not.toHaveText('none yet');
  await expect(page.getByTestId('point').filter({ hasText: POINTS[1][0] }).getByTestId('schedule')).toContainText('new');

  // Edit a point.
  await page.getByTestId('point').filter({ hasText: POINTS[1][0] }).getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('What to recall').fill('The pulmonary artery carries blood low in oxygen to the lungs.');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('point').filter({ hasText: 'blood low in oxygen' })).toBeVisible();
  await expect(page.getByText(POINTS[1][0])).toHaveCount(0);

  // Archive: it leaves the dashboard and cannot be started; its history stays.
  await page.getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByTestId('archived')).toBeVisible();
  await page.goto('/');
  await expect(page.getByTestId('set-card').filter({ hasText: SET })).toHaveCount(0);
  await page.goto('/history');
  await expect(page.getByTestId('history-list')).toContainText(SET);

  // Delete, through the page that says what goes.
  await page.goto('/sets');
  await page.getByTestId('archived-sets').getByRole('link', { name: SET }).click();
  await page.getByRole('link', { name: 'Delete…' }).first().click();
  await expect(page.getByTestId('what-goes')).toContainText('3 points');
  await expect(page.getByTestId('what-goes')).toContainText('2 resources');
  await expect(page.getByTestId('what-goes')).toContainText('1 session');
  await page.getByTestId('confirm-delete').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Recall sets' })).toBeVisible();
  await expect(page.getByText(SET)).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('on a phone every control is at least 44 px tall', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signUp(page);
  await createSet(page);
  await addPoint(page, POINTS[0][0], POINTS[0][1]);
  await controlsAreTall(page, 'the set page');
  for (const path of ['/', '/sets', '/history', '/import']) {
    await page.goto(path);
    await controlsAreTall(page, path);
  }
  await startSession(page, SET);
  await controlsAreTall(page, 'the live session');
  // The answer box keeps to its rows, so Send is in view without scrolling.
  const box = await page.getByLabel('Your answer').boundingBox();
  expect(box?.height ?? 0).toBeLessThan(120);
  await expect(page.getByRole('button', { name: 'Send' })).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: screenshotPath('phone-live'), fullPage: true });
});

test.describe('on a touch screen', () => {
  test.use({ viewport: { width: 390, height: 700 }, isMobile: true, hasTouch: true });

  test('after each reply the answer box is back in view, with no keyboard to bring it', async ({ page }) => {
    await signUp(page);
    const points = await pointsOf(page, 'The living cell');
    await startSession(page, 'The living cell');
    // Recalls bring notes on what was recalled above the box, pushing it down the page.
    for (const said of points.slice(0, 3)) {
      const before = await turns(page);
      await page.getByTestId('answer').fill(said);
      await page.getByRole('button', { name: 'Send' }).tap();
      await waitForTurn(page, before);
      await expect(page.getByRole('button', { name: 'Send' })).toBeInViewport({ ratio: 1 });
    }
  });
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('a learner creates a set and adds a point with plain forms, and a mistake keeps what was typed', async ({
    page,
    allowConsole,
  }) => {
    // The refused form comes back as the page itself, with status 422.
    allowConsole(/status of 422/);
    await signUp(page);
    await page.goto('/sets/new');
    // A name that is only spaces comes back with the error beside it and the rest as typed.
    await page.getByLabel('Name').fill('   ');
    await page.getByLabel('Description (optional)').fill('Kept as typed.');
    await page.getByRole('button', { name: 'Create set' }).click();
    await expect(page.getByTestId('error-name')).toBeVisible();
    await expect(page.getByLabel('Description (optional)')).toHaveValue('Kept as typed.');

    await page.getByLabel('Name').fill(SET);
    await page.getByRole('button', { name: 'Create set' }).click();
    await expect(page.getByRole('heading', { level: 1, name: SET })).toBeVisible();
    await addPoint(page, POINTS[0][0], POINTS[0][1]);
    await expect(page.getByTestId('point').filter({ hasText: POINTS[0][0] })).toContainText(POINTS[0][1]);
  });
});
