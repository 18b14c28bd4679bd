import { expect, test } from './fixtures';
import { answer, pointsOf, recalled, screenshotPath, signUp, waitForTurn } from './helpers';

const SETS = ['The living cell', 'Rome: from republic to empire', 'Searching and sorting'];

test("today's review takes points from every set, leaves, names each set in its summary, and resumes", async ({
  page,
}) => {
  await signUp(page);
  const points = new Map<string, string[]>();
  for (const set of SETS) points.set(set, await pointsOf(page, set));

  // Three new sets: the day's ten new points, across the three, in one session.
  await page.goto('/');
  const today = page.getByTestId('review-today');
  await expect(today.getByTestId('review-today-summary')).toHaveText(
    /^10 points due across 3 sets · about 8 minutes/,
  );
  await expect(today.getByTestId('review-today-held')).toContainText('new points wait for tomorrow');
  await page.screenshot({ path: screenshotPath('review-today'), fullPage: true });
  await today.getByTestId('review-today-start').click();
  await expect(page).toHaveURL(/\/sessions\//);
  await waitForTurn(page, 0);
  await expect(page.getByTestId('progress')).toHaveAttribute('aria-label', / of 10 points recalled/);

  // A point of each set, in turn: each is checked off in the one session.
  let n = 0;
  for (const set of SETS) {
    const said = points.get(set) ?? [];
    for (const point of said) {
      const before = await recalled(page);
      await answer(page, point);
      if ((await recalled(page)) > before) break;
    }
    n += 1;
    await expect.poll(() => recalled(page)).toBe(n);
  }

  // Leave: the dashboard sums the review up, naming every set it drew on.
  await page.getByTestId('leave').click();
  await expect(page).toHaveURL(/\/$/);
  const card = page.getByTestId('left-off').filter({ hasText: "Today's review" });
  await expect(card).toContainText('paused', { timeout: 15_000 });
  for (const set of SETS) await expect(card).toContainText(set);
  await expect(card).toContainText('3 of 10 recalled');
  await expect(card).toContainText("Next: Resume today's review");

  // Resume: the same points, three already recalled.
  await card.getByRole('link', { name: 'Resume' }).click();
  await waitForTurn(page, 0);
  await expect(page.getByTestId('progress')).toHaveAttribute('data-recalled', '3');
  await expect(page.getByTestId('progress')).toHaveAttribute('aria-label', / of 10 points recalled/);
});
