import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { answer, screenshotPath, signUp, waitForTurn } from './helpers';

const SET = 'Long bones';
const POINT = 'The femur is the longest bone in the body.';

/** Starts a session of the set from the dashboard, whichever start it offers. */
async function study(page: Page): Promise<void> {
  await page.goto('/');
  const card = page.getByTestId('set-card').filter({ hasText: SET });
  await expect(async () => {
    await card.getByRole('button', { name: /Start|Study all anyway/ }).click();
    await expect(page).toHaveURL(/\/sessions\//, { timeout: 2000 });
  }).toPass();
  await waitForTurn(page, 0);
}

test('a learner sets their schedule, fails a point twice, and sees its memory, the leech flag and the forecast', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signUp(page);

  // Their schedule: more recall, and a point that fails twice is a leech.
  await page.goto('/account');
  const form = page.getByTestId('schedule-form');
  await form.getByTestId('retention').fill('95');
  await form.getByTestId('leech-lapses').fill('2');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('account-notice')).toContainText('Your schedule now aims for that recall.');
  await expect(page.getByTestId('retention')).toHaveValue('95');
  await expect(page.getByTestId('leech-lapses')).toHaveValue('2');

  // A set of one point.
  await page.goto('/sets');
  await page.getByTestId('new-set').click();
  await page.getByLabel('Name').fill(SET);
  await page.getByRole('button', { name: 'Create set' }).click();
  const add = page.getByTestId('add-point');
  await add.getByLabel('What to recall').fill(POINT);
  await add.getByLabel('Cue (optional)').fill('Which bone is the longest?');
  await add.getByRole('button', { name: 'Add point' }).click();
  await expect(page.getByTestId('point')).toHaveCount(1);

  // Two sessions in which the point is tried and not recalled.
  for (let i = 0; i < 2; i++) {
    await study(page);
    await answer(page, "I don't know");
    await page.getByRole('button', { name: 'Leave Session' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  }
  // The forecast shows it coming back.
  await expect(page.getByTestId('forecast-chart')).toContainText('Points due per day, next 30 days:');
  await expect(page.getByTestId('forecast-chart')).not.toContainText('0 points from');

  await page.goto('/sets');
  await page.getByRole('link', { name: SET }).click();
  const point = page.getByTestId('point').filter({ hasText: POINT });
  await expect(point.getByTestId('schedule')).toContainText('reviewed 2×');
  await expect(point.getByTestId('schedule')).toContainText('likely recalled now');
  await expect(point.getByTestId('leech')).toContainText('forgotten 2 times');
  await point.getByText('Schedule', { exact: true }).click();
  await expect(point.getByTestId('retrievability')).toHaveText(/^\d+ %$/);
  await expect(point.getByTestId('lapses')).toHaveText('2 times');
  await expect(point.getByTestId('last-rating')).toHaveText('again');
  await page.screenshot({ path: screenshotPath('schedule-set-page'), fullPage: true });
  expect(errors).toEqual([]);
});
