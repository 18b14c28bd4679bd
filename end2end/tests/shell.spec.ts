import { expect, test } from './fixtures';
import { signUp } from './helpers';

test('pages are rendered on the server, and ask for a sign-in first', async ({ request, page }) => {
  const res = await request.get('/sets', { maxRedirects: 0 });
  expect(res.status()).toBe(303);
  expect(res.headers()['location']).toMatch(/^\/(signin|signup)\?next=\/sets$/);
  const signIn = await request.get('/signin');
  expect(await signIn.text()).toMatch(/\/pkg\/warren\.[0-9a-f]{16}\.js/);

  await signUp(page);
  for (const [path, heading] of [
    ['/', 'Dashboard'],
    ['/sets', 'Recall sets'],
    ['/history', 'History'],
  ]) {
    const html = await (await page.request.get(path)).text();
    expect(html, path).toContain(`<h1>${heading}</h1>`);
  }
  expect((await page.request.get('/no-such-page')).status()).toBe(404);
});

test('the theme toggle works once the page is hydrated', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto('/signin');
  const toggle = page.getByTestId('theme-toggle');
  await expect(toggle).toContainText('Auto');
  // Clicks before the WebAssembly has loaded do nothing: retry until hydration has happened.
  await expect(async () => {
    await toggle.click();
    await expect(toggle).toContainText('Light', { timeout: 500 });
  }).toPass();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await toggle.click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  // The choice survives a reload, applied before hydration by the boot script.
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByTestId('theme-toggle')).toContainText('Dark');
  expect(errors).toEqual([]);
});

test.describe('in Kolkata', () => {
  test.use({ timezoneId: 'Asia/Kolkata' });

  test('every page tells the server the learner’s time zone, without script errors', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('/signin');
    await expect
      .poll(async () => (await page.context().cookies()).find((c) => c.name === 'tz')?.value)
      .toBe('330');
    expect(errors).toEqual([]);
  });
});

test('a script the policy does not name is blocked, and the suite notices', async ({ page, expectCspViolation }) => {
  expectCspViolation();
  await page.goto('/signin');
  // An inline script added without the response's nonce, as injected markup would be.
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true';
    document.head.append(script);
    return (window as unknown as { __injected?: boolean }).__injected === true;
  });
  expect(ran).toBe(false);
  // The page's own inline script, which has the nonce, did run: it set the time-zone cookie.
  const cookies = await page.context().cookies();
  expect(cookies.map((c) => c.name)).toContain('tz');
});
