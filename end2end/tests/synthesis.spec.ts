import { expect, test } from './fixtures';
import {
  FakeModel,
  OwnServer,
  answer,
  controlsAreTall,
  pointsOf,
  recalled,
  screenshotPath,
  signUp,
  startSession,
  waitForTurn,
} from './helpers';

const SET = 'Searching and sorting';

test('a finished session is summed up on the dashboard and its page, and the next opens from it', async ({
  page,
}) => {
  await signUp(page);
  const points = await pointsOf(page, SET);
  await startSession(page, SET);
  await answer(page, "I don't know");
  for (const [i, point] of points.entries()) {
    await answer(page, point);
    await expect.poll(() => recalled(page)).toBe(i + 1);
  }
  await page.getByTestId('overlay-done').click();
  await expect(page).toHaveURL(/\/$/);
  // Back to the finished session: it says it is complete, with nothing left to answer.
  await page.goBack();
  await expect(page.getByTestId('session-ended')).toContainText('This session is complete');
  await expect(page.getByTestId('answer')).toHaveCount(0);
  await expect(page.getByTestId('leave')).toHaveText('Back to the dashboard');
  await page.getByTestId('leave').click();
  await expect(page).toHaveURL(/\/$/);

  // The dashboard: where the learner left off (it looks again while the summary is written).
  const card = page.getByTestId('left-off').filter({ hasText: SET });
  await expect(card).toContainText('completed', { timeout: 15_000 });
  await expect(card.getByTestId('left-off-overview')).toContainText(`You recalled all ${points.length} points`);
  await page.screenshot({ path: screenshotPath('dashboard-left-off'), fullPage: true });

  // The session's page: the summary above the tree.
  await card.getByRole('link', { name: 'Read the session' }).click();
  const summary = page.getByTestId('session-summary');
  await expect(summary).toBeVisible();
  await expect(summary.getByTestId('summary-recalled').locator('li')).toHaveCount(points.length);
  await expect(summary.getByTestId('summary-hard')).toContainText('after hints');
  await expect(summary.getByTestId('summary-next')).toBeVisible();
  const box = await summary.boundingBox();
  const tree = await page.getByTestId('transcript').boundingBox();
  expect(box && tree && box.y < tree.y).toBeTruthy();
  await page.screenshot({ path: screenshotPath('history-summary') });

  // On a phone: the summary and the dashboard's card, every control thumb-sized.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: screenshotPath('history-summary-phone'), fullPage: true });
  await controlsAreTall(page, 'a session page with its summary', ['a.filter-link', 'a.copy-link', 'a.label-link']);
  await page.goto('/');
  await controlsAreTall(page, 'the dashboard', ['.left-off a.button']);
  await page.screenshot({ path: screenshotPath('dashboard-left-off-phone') });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The list finds the session by what its summary says.
  await page.goto('/history?q=came+back+after+hints');
  await expect(page.getByTestId('history-list').locator('li')).toHaveCount(1);
  await expect(page.getByTestId('item-overview')).toContainText('You recalled all');

  // The next session of the set opens from the summary, giving no point away.
  await page.goto('/');
  await page.getByTestId('left-off').filter({ hasText: SET }).getByRole('button', { name: 'Start the next session' }).click();
  await expect(page).toHaveURL(/\/sessions\//);
  await waitForTurn(page, 0);
  const opening = await page.getByTestId('agent-text').innerText();
  expect(opening).toContain('Last time (just now) you recalled everything you studied in Searching and sorting.');
  for (const point of points) expect(opening.toLowerCase()).not.toContain(point.toLowerCase());
});

test('a summary that cannot be written shows Retry, and Retry writes it', async ({ page }) => {
  const model = await FakeModel.start();
  model.failSummaries = true;
  const server = await OwnServer.create({
    WARREN_LLM: 'openai',
    WARREN_OPENAI_BASE_URL: model.baseUrl,
    WARREN_SUMMARY_ATTEMPTS: '2',
    WARREN_SUMMARY_BACKOFF_MS: '50',
  });
  try {
    await signUp(page, undefined, server.url);
    await startSession(page, SET, server.url);
    const session = new URL(page.url()).pathname.split('/').pop();
    await answer(page, 'Something about putting things in order?');
    await page.getByTestId('leave').click();
    await expect(page).toHaveURL(`${server.url}/`);

    // Both tries fail: the page says so, never a silent gap.
    await expect.poll(() => model.summaryRequests, { timeout: 10_000 }).toBe(2);
    await expect(async () => {
      await page.goto(`${server.url}/history/${session}`);
      await expect(page.getByTestId('summary-unavailable')).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 10_000 });
    await expect(page.getByTestId('summary-unavailable')).toContainText('Summary unavailable');
    await page.setViewportSize({ width: 390, height: 844 });
    await controlsAreTall(page, 'a session page with Retry', ['[data-testid=summary-retry]']);
    await page.setViewportSize({ width: 1280, height: 800 });

    model.failSummaries = false;
    await page.getByTestId('summary-retry').click();
    await expect(page.getByTestId('summary-overview')).toHaveText('Written by the model after a retry.');
    await expect(page.getByTestId('summary-unavailable')).toHaveCount(0);
  } finally {
    await server.kill();
    await model.stop();
  }
});
