import { expect, test } from '@playwright/test';

test('pages are rendered on the server', async ({ request }) => {
  for (const [path, heading] of [
    ['/', 'Dashboard'],
    ['/sets', 'Recall sets'],
    ['/history', 'History'],
  ]) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(200);
    const html = await res.text();
    expect(html, path).toContain(`<h1>${heading}</h1>`);
    expect(html, path).toContain('/pkg/warren.js');
  }
  const missing = await request.get('/no-such-page');
  expect(missing.status()).toBe(404);
});

test('the theme toggle works once the page is hydrated', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto('/');
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

  // Client-side navigation after hydration.
  await page.getByRole('link', { name: 'Recall sets' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Recall sets');
  expect(errors).toEqual([]);
});
