import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures';
import { signUp, startSession, answer } from './helpers';

test("the main pages pass axe-core's WCAG 2 A and AA checks in both colour schemes", async ({ page }) => {
  await signUp(page);
  await startSession(page, 'The living cell');
  await answer(page, 'no idea');
  const live = new URL(page.url()).pathname;
  await page.goto('/history');
  await page.getByTestId('history-list').getByRole('link', { name: 'The living cell' }).first().click();
  await expect(page.getByTestId('transcript')).toBeVisible();
  const history = new URL(page.url()).pathname;
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const path of ['/', '/sets', '/history', history, live, '/account']) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
      const found = results.violations.map(
        (v) => `${v.id}: ${v.nodes.map((n) => `${n.target.join(' ')} (${n.failureSummary ?? ''})`).join('; ')}`,
      );
      expect(found, `${path} in the ${scheme} scheme`).toEqual([]);
    }
  }
});
