import { expect, test } from './fixtures';
import type { Page } from '@playwright/test';
import { answer, recalled, screenshotPath, signUp, waitForTurn } from './helpers';

/** A set's points with their cues, read off its page. */
async function cuesOf(page: Page, setName: string): Promise<{ content: string; cue: string }[]> {
  await page.goto('/sets');
  await page.getByRole('link', { name: setName }).click();
  await expect(page.getByRole('heading', { level: 1, name: setName })).toBeVisible();
  return page.locator('ol.points > li').evaluateAll((items) =>
    items.map((li) => ({
      content: li.querySelector('.point-content')?.textContent?.trim() ?? '',
      cue: (li.querySelector('.cue')?.textContent ?? '').replace(/^Cue:\s*/, '').trim(),
    })),
  );
}

const SETS = ['The living cell', 'Rome: from republic to empire', 'Searching and sorting'];

test("today's review takes points from every set, leaves, names each set in its summary, and resumes", async ({
  page,
}) => {
  await signUp(page);
  const points = new Map<string, { content: string; cue: string }[]>();
  for (const set of SETS) points.set(set, await cuesOf(page, set));

  // Three new sets: the day's ten new points, across the three, in one session.
  await page.goto('/');
  const today = page.getByTestId('review-today');
  await expect(today.getByTestId('review-today-summary')).toHaveText(
    /^10 points from 3 sets · about 8 minutes/,
  );
  await expect(today.getByTestId('review-today-held')).toContainText('new points wait for tomorrow');
  await page.screenshot({ path: screenshotPath('review-today'), fullPage: true });
  await today.getByTestId('review-today-start').click();
  await expect(page).toHaveURL(/\/sessions\//);
  await waitForTurn(page, 0);
  await expect(page.getByTestId('progress')).toHaveAttribute('aria-label', / of 10 points recalled/);

  // The tutor asks a point of each set in turn (its question is the point's cue), and each
  // answer is checked off in the one session.
  const everyPoint = [...points.entries()].flatMap(([set, ps]) => ps.map((p) => ({ set, ...p })));
  const askedFrom: string[] = [];
  for (let n = 1; n <= 3; n++) {
    const question = await page.getByTestId('agent-text').innerText();
    const asked = everyPoint.find((p) => p.cue !== '' && question.includes(p.cue));
    expect(asked, `a cue of one of the sets in: ${question}`).toBeTruthy();
    askedFrom.push(asked?.set ?? '');
    await answer(page, asked?.content ?? '');
    await expect.poll(() => recalled(page)).toBe(n);
  }
  expect(new Set(askedFrom).size, askedFrom.join(' / ')).toBe(3);
  // The notes those recalls brought: the one the last answer brought (if it brought one) under
  // the words, those answered since folded away.
  const cards = page.locator('.exchange > .resource-card');
  expect(await cards.count()).toBeLessThanOrEqual(1);
  const earlier = page.getByTestId('earlier-notes');
  await expect(earlier).toContainText(/Earlier notes \(\d\)/);
  await expect(earlier.locator('.resource-card').first()).toBeHidden();

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
