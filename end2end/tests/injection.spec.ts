import { expect, test } from './fixtures';
import { signUp } from './helpers';

// A set name that, written into the page's <title> as it is, would close it and add a meta
// refresh sending the learner to another site each time the set's page opens.
const PHISH = '</title><meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/phish"><title>';

test('a set named to redirect its page stays text, and its page stays on Warren', async ({ page, baseURL }) => {
  const origin = new URL(baseURL ?? '').origin;
  const visited: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) visited.push(frame.url());
  });
  await signUp(page);
  await page.goto('/sets');
  await page.getByTestId('new-set').click();
  await page.getByLabel('Name').fill(PHISH);
  await page.getByRole('button', { name: 'Create set' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(PHISH);
  const setPage = page.url();

  // Opened again, and given longer than a zero-second refresh takes.
  await page.goto(setPage);
  await expect(page).toHaveTitle(`${PHISH} · Warren`);
  await page.waitForTimeout(1_500);
  expect(page.url()).toBe(setPage);
  expect(visited.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  await expect(page.locator('meta[http-equiv]')).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(PHISH);
});
