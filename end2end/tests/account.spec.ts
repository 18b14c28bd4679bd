import { expect, test } from './fixtures';
import {
  PASSWORD,
  answer,
  controlsAreTall,
  databaseDump,
  databaseValue,
  pointsOf,
  recalled,
  screenshotPath,
  signUp,
  startSession,
  waitForConnected,
} from './helpers';

const NEW_PASSWORD = 'tea with the analytical engine';

test('a sign-in ends from the list, and a new password signs out every other browser', async ({ page, browser }) => {
  const username = await signUp(page);
  // The same learner in a second browser.
  const elsewhere = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const other = await elsewhere.newPage();
  const signIn = async (password: string) => {
    await other.goto('/signin');
    await other.getByLabel('Username').fill(username);
    await other.getByLabel('Password').fill(password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  };
  await signIn(PASSWORD);

  // Both are listed; this one is marked, the other can be signed out from here.
  await page.getByRole('link', { name: 'Account' }).click();
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  const signIns = page.getByTestId('sign-in');
  await expect(signIns).toHaveCount(2);
  await expect(page.locator('[data-testid=sign-in][data-current=true]')).toContainText('This one');
  await page.locator('[data-testid=sign-in][data-current=false]').getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByTestId('account-notice')).toHaveText('That sign-in has ended.');
  await expect(signIns).toHaveCount(1);
  await other.goto('/sets');
  await expect(other).toHaveURL(/\/signin/);

  // Signed in there again; a new password here ends it.
  await signIn(PASSWORD);
  await page.goto('/account');
  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('That is not your current password.')).toBeVisible();
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password').fill('password1234');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('among the first anyone would guess')).toBeVisible();
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByTestId('account-notice')).toContainText('Your password is changed');
  await expect(signIns).toHaveCount(1);
  await other.goto('/history');
  await expect(other).toHaveURL(/\/signin/);
  // This browser is still signed in, and the new password is the one that works.
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  await other.getByLabel('Username').fill(username);
  await other.getByLabel('Password').fill(PASSWORD);
  await other.getByRole('button', { name: 'Sign in' }).click();
  await expect(other.getByTestId('auth-error')).toHaveText('Wrong username or password.');
  await signIn(NEW_PASSWORD);
  await elsewhere.close();
});

test('on a phone the account page fits and every control is a thumb’s size', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signUp(page);
  await page.getByRole('link', { name: 'Account' }).click();
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  await controlsAreTall(page, 'the account page');
  // Nothing sideways: the top bar with its four links, and the page, fit the screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // Every link of the top bar in view, none scrolled off or wrapped onto a second line.
  const nav = page.getByRole('navigation', { name: 'Main' });
  expect(await nav.evaluate((n) => n.scrollWidth - n.clientWidth)).toBeLessThanOrEqual(0);
  for (const link of await nav.getByRole('link').all()) {
    expect((await link.boundingBox())?.height ?? 99).toBeLessThan(50);
  }
  await page.screenshot({ path: screenshotPath('phone-account'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: screenshotPath('desktop-account'), fullPage: true });
});

test('export everything, delete the account, sign up again and import: sets and history come back', async ({ page, browser }) => {
  const username = await signUp(page);
  const [point] = await pointsOf(page, 'The living cell');
  await startSession(page, 'The living cell');
  await answer(page, point);
  await expect.poll(() => recalled(page)).toBe(1);
  const session = new URL(page.url()).pathname.split('/').pop() ?? '';

  // The same learner studying in a second browser when the account goes.
  const elsewhere = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  const other = await elsewhere.newPage();
  await other.goto('/signin');
  await other.getByLabel('Username').fill(username);
  await other.getByLabel('Password').fill(PASSWORD);
  await other.getByRole('button', { name: 'Sign in' }).click();
  await expect(other.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  await other.goto(`/sessions/${session}`);
  await waitForConnected(other);

  await page.goto('/account');
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-account').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(new RegExp(`^warren-${username}-\\d{4}-\\d\\d-\\d\\d\\.zip$`));
  const archive = test.info().outputPath('account.zip');
  await download.saveAs(archive);

  const userId = databaseValue(`SELECT id FROM users WHERE username = '${username}'`);
  expect(userId).toMatch(/^[0-9a-f-]{36}$/);
  expect(databaseDump()).toContain(userId);

  // The username must be typed.
  await page.getByLabel(/Type your username/).fill('not me');
  await page.getByRole('button', { name: /Delete my account/ }).click();
  await expect(page.getByText('Type your username exactly as shown')).toBeVisible();
  await page.getByLabel(/Type your username/).fill(username);
  await page.getByRole('button', { name: /Delete my account/ }).click();
  await expect(page).toHaveURL(/\/signup\?done=deleted/);
  await expect(page.getByTestId('auth-notice')).toHaveText('Your account and everything in it are deleted.');
  // The other browser's session is closed and says why; no row of the account is left.
  await expect(other.getByTestId('session-error')).toContainText('Your account is being deleted.');
  await elsewhere.close();
  expect(databaseDump()).not.toContain(userId);
  await page.goto('/history');
  await expect(page).toHaveURL(/\/signin/);

  // The same name again, and the archive imported.
  await signUp(page, username);
  await page.goto('/import');
  await page.getByLabel('File').setInputFiles(archive);
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('imported-notice')).toHaveText('Imported 3 sets and 1 session from your archive.');
  // Three sets, not six: the new account's untouched demo sets gave way to the archived ones.
  await expect(page.getByRole('link', { name: 'The living cell' })).toHaveCount(1);
  await expect(page.locator('a', { hasText: /\(2\)/ })).toHaveCount(0);
  expect(await pointsOf(page, 'The living cell')).toContain(point);
  await expect(page.locator('ol.points > li').filter({ hasText: point })).toContainText('reviewed 1×');
  await page.goto('/history');
  await page.locator(`a[href="/history/${session}"]`).first().click();
  await expect(page).toHaveURL(new RegExp(`/history/${session}`));
  await expect(page.getByText(point).first()).toBeVisible();
});
