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
  // Said beside the form the page opens at, not off screen at its top.
  await expect(page.getByTestId('account-notice')).toBeInViewport();
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
    await page.getByRole('button', { name: 'Leave session' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  }
  // The forecast shows it coming back.
  await expect(page.getByTestId('forecast-chart')).toContainText('Points due per day, next 30 days:');
  await expect(page.getByTestId('forecast-chart')).not.toContainText('0 points from');

  await page.goto('/sets');
  await page.getByRole('link', { name: SET }).click();
  const point = page.getByTestId('point').filter({ hasText: POINT });
  await expect(point.getByTestId('schedule')).toContainText('reviewed 2×');
  // Reviewed moments ago: certain by the model's reckoning, said as such rather than "100 %".
  await expect(point.getByTestId('schedule')).toContainText('just reviewed');
  await expect(point.getByTestId('leech')).toContainText('forgotten 2 times');
  await point.getByText('Schedule', { exact: true }).click();
  await expect(point.getByTestId('retrievability')).toHaveText(/^\d+ %$/);
  await expect(point.getByTestId('lapses')).toHaveText('2 times');
  await expect(point.getByTestId('last-rating')).toHaveText('again');
  await page.screenshot({ path: screenshotPath('schedule-set-page'), fullPage: true });
  expect(errors).toEqual([]);
});

/**
 * A set in Warren JSON whose points carry a review log: a learner who forgets faster than
 * FSRS's defaults expect, each point reviewed six times at growing intervals from 200 days ago.
 */
function forgetfulSet(points: number): Buffer {
  const day = 86_400_000;
  const start = Date.now() - 200 * day;
  const file = {
    format: 'warren-set',
    version: 2,
    name: 'Forgetful facts',
    points: Array.from({ length: points }, (_, i) => {
      let at = start + i * 3_600_000;
      let stability = 0.4;
      const reviews: { rating: string; at: number }[] = [];
      for (let k = 0; k < 6; k++) {
        const draw = ((i * 7_919 + k * 104_729 + 13) % 1_000) / 1_000;
        const days = reviews.length === 0 ? 0 : Math.max(1, Math.round(stability * 2));
        at += days * day;
        const recalled = reviews.length === 0 || draw < Math.pow(0.9, days / stability);
        reviews.push({ rating: recalled ? 'good' : 'again', at });
        stability = recalled ? stability * 1.8 : Math.max(0.3, stability * 0.5);
      }
      return { content: `Forgetful fact number ${i}.`, reviews };
    }),
  };
  return Buffer.from(JSON.stringify(file));
}

test('a learner with a history fits their schedule and sees the figures before and after', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signUp(page);

  // Nothing to learn from yet: the page says how much is needed.
  await page.goto('/account');
  await expect(page.getByTestId('fit-readiness')).toContainText('Fitting needs 8 reviews');
  await expect(page.getByTestId('fit-form').getByRole('button', { name: 'Fit my schedule' })).toBeDisabled();

  // Their history comes in with a set.
  await page.goto('/import');
  await page.getByLabel('File').setInputFiles({ name: 'forgetful.json', mimeType: 'application/json', buffer: forgetfulSet(40) });
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByTestId('confirm-import').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Forgetful facts' })).toBeVisible();
  await expect(page.getByTestId('point').first()).toContainText('reviewed 6×');

  await page.goto('/account');
  await expect(page.getByTestId('fit-readiness')).toContainText('A fit learns from 200 reviews');
  await page.getByTestId('fit-form').getByRole('button', { name: 'Fit my schedule' }).click();
  // It runs in the background; the page comes back with the figures when it ends.
  const figures = page.getByTestId('fit-figures');
  await expect(figures).toBeVisible({ timeout: 30_000 });
  await expect(figures.getByRole('row', { name: /Log loss/ })).toHaveText(/Log loss\s*0\.\d{3}\s*0\.\d{3}/);
  await expect(figures.getByRole('row', { name: /RMSE/ })).toHaveText(/RMSE\s*0\.\d{3}\s*0\.\d{3}/);
  await expect(page.getByTestId('fit-outcome')).toHaveText(/Your fitted parameters are in use\. \d+ due dates? moved\./);
  await page.screenshot({ path: screenshotPath('schedule-fit'), fullPage: true });

  // A point whose history carries four lapses is a leech at the default threshold, with its
  // chance of recall beside it.
  const day = 86_400_000;
  const slipping = {
    format: 'warren-set',
    version: 2,
    name: 'Slipping',
    points: [
      {
        content: 'The stapes is the smallest bone in the body.',
        reviews: [8, 7, 6, 5].map((ago) => ({ rating: 'again', at: Date.now() - ago * day })),
      },
    ],
  };
  await page.goto('/import');
  await page.getByLabel('File').setInputFiles({
    name: 'slipping.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(slipping)),
  });
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.getByTestId('confirm-import').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Slipping' })).toBeVisible();
  const point = page.getByTestId('point');
  await expect(point.getByTestId('leech')).toContainText('forgotten 4 times');
  await expect(point.getByTestId('leech')).toContainText('split it or reword it');
  await expect(point.getByTestId('schedule')).toContainText('likely recalled now');
  expect(errors).toEqual([]);
});

test('a learner disputes a recall on the history page and it leaves the schedule', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signUp(page);
  await page.goto('/sets');
  await page.getByTestId('new-set').click();
  await page.getByLabel('Name').fill(SET);
  await page.getByRole('button', { name: 'Create set' }).click();
  const add = page.getByTestId('add-point');
  await add.getByLabel('What to recall').fill(POINT);
  await add.getByLabel('Cue (optional)').fill('Which bone is the longest?');
  await add.getByRole('button', { name: 'Add point' }).click();

  await study(page);
  await answer(page, POINT);
  await expect(page.getByTestId('progress')).toHaveAttribute('data-recalled', '1');
  await page.goto('/history');
  await page.locator('a[href^="/history/"]').first().click();
  const mark = page.getByTestId('recalled');
  await expect(mark).toContainText(`Recalled: ${POINT}`);
  await mark.getByRole('button', { name: 'Not a recall' }).click();
  await expect(page.getByTestId('disputed')).toHaveText(`Not a recall, you said: ${POINT}`);
  await expect(page.getByTestId('recalled')).toHaveCount(0);

  await page.goto('/sets');
  await page.getByRole('link', { name: SET }).click();
  await expect(page.getByTestId('point').filter({ hasText: POINT }).getByTestId('schedule')).toContainText('new');
  expect(errors).toEqual([]);
});
