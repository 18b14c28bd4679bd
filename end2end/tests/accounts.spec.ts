import { expect, test } from './fixtures';
import { PASSWORD, signUp, uniqueName } from './helpers';

test('sign up, sign out, sign in again: the dashboard shows my own sets', async ({ page }) => {
  const name = await signUp(page);
  await expect(page.getByTestId('username')).toHaveText(name);
  const sets = page.getByTestId('set-card');
  await expect(sets).toHaveCount(3);
  await expect(sets.first()).toContainText('The living cell');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin$/);
  // Signed out for real: pages send me back to sign in.
  await page.goto('/history');
  await expect(page).toHaveURL(/\/signin\?next=\/history$/);

  await page.getByLabel('Username').fill(name.toUpperCase());
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/history$/);
  await page.getByRole('link', { name: 'Dashboard' }).click();
  await expect(page.getByTestId('set-card')).toHaveCount(3);
  await expect(page.getByTestId('username')).toHaveText(name);
});

test('clear messages, and the same one for a wrong password and an unknown user', async ({ page }) => {
  const name = await signUp(page);
  await page.getByRole('button', { name: 'Sign out' }).click();

  const tryIn = async (username: string, password: string) => {
    await page.goto('/signin');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page.getByTestId('auth-error').innerText();
  };
  const wrongPassword = await tryIn(name, 'not my password at all');
  const unknownUser = await tryIn(uniqueName('nobody'), 'not my password at all');
  expect(wrongPassword).toBe('Wrong username or password.');
  expect(unknownUser).toBe(wrongPassword);

  const tryUp = async (username: string, password: string) => {
    await page.goto('/signup');
    await page.getByLabel('Username').fill(username);
    // Bypass the browser's own length check to see the server's answer.
    await page.getByLabel('Password').evaluate((el) => el.removeAttribute('minlength'));
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    return page.getByTestId('auth-error').innerText();
  };
  expect(await tryUp(name, PASSWORD)).toBe('That username is taken. Choose another, or sign in.');
  expect(await tryUp(uniqueName(), 'short')).toBe('Passwords need at least 10 characters.');
  // The form keeps the username, never the password.
  await expect(page.getByLabel('Password')).toHaveValue('');
});
