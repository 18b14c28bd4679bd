import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './fixtures';
import { screenshotPath, signUp } from './helpers';

/** Packages written by Anki's own library (scripts/anki-packages.py, run by scripts/test). */
function ankiPackage(name: string): string {
  const dir = process.env.WARREN_ANKI_PACKAGES ?? path.join(__dirname, '..', '..', 'data', 'anki-packages');
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing: run scripts/test, or "source scripts/lib.sh; ensure_anki_packages"`);
  }
  return file;
}

test('a learner moves in from Anki: decks, notes and reviews in the preview, the schedule on the set page', async ({
  page,
  allowConsole,
}) => {
  // Back to the preview once imported: the page says why it is gone (a 404 all the same).
  allowConsole(/\/import\/[0-9a-f-]+: Failed to load resource: .*status of 404/);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signUp(page);
  await page.goto('/import');
  await page.getByLabel('File').setInputFiles(ankiPackage('modern.apkg'));
  await page.getByRole('button', { name: 'Preview' }).click();

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Import 2 sets?');
  const decks = page.getByTestId('preview-set');
  await expect(decks).toHaveCount(2);
  const biology = decks.filter({ has: page.getByRole('heading', { name: 'Biology', exact: true }) });
  await expect(biology.getByTestId('import-summary')).toContainText('They bring 7 reviews with them.');
  await expect(biology.getByTestId('import-summary')).toContainText('1 more is suspended in Anki');
  await expect(biology.getByTestId('import-points')).toContainText('What is the powerhouse of the cell?');
  await expect(biology.getByTestId('import-rejected')).toContainText('its sound “heartbeat.mp3” is left out');
  const cells = decks.filter({ has: page.getByRole('heading', { name: 'Biology · Cells' }) });
  await expect(cells.getByTestId('import-points')).toContainText('H₂O, about 3×10⁸ molecules');
  await expect(cells.getByTestId('import-points')).toContainText('The […] stores DNA');
  // Anki's MathJax comes through as math, typeset, not as its source.
  await expect(cells.getByTestId('import-points').locator('span.math .katex').first()).toBeVisible();
  await expect(page.getByTestId('deck-choice')).toHaveCount(2);
  await page.screenshot({ path: screenshotPath('anki-preview'), fullPage: true });

  await page.getByTestId('confirm-import').click();
  await expect(page.getByTestId('imported-notice')).toHaveText('Imported 2 sets, one for each deck.');
  // Back to the preview of a file imported already: the page says so, not "Not found".
  const imported = page.url();
  await page.goBack();
  await expect(page.getByTestId('already-done')).toContainText('imported already');
  await page.goto(imported);
  await page.getByRole('link', { name: 'Biology', exact: true }).click();
  const point = page.getByTestId('point').filter({ hasText: 'The mitochondrion' });
  await expect(point.getByTestId('schedule')).toContainText('reviewed 5×');
  // Due when Anki had it due: the page gives the days from now to that moment to the nearest
  // day, as it was a moment before this reckons them (so a half day may have tipped over).
  const expected = JSON.parse(fs.readFileSync(path.join(path.dirname(ankiPackage('modern.apkg')), 'expected.json'), 'utf8'));
  const powerhouse = expected.notes.find((n: { fields: string[] }) => n.fields[0].startsWith('What is the powerhouse'));
  const days = Math.round((powerhouse.cards[0].due_ms - Date.now()) / 86_400_000);
  await expect(point.getByTestId('schedule')).toContainText(new RegExp(`in (${days}|${days + 1}) days`));
  await expect(page.getByTestId('point').filter({ hasText: 'Suspended cards stay behind' })).toHaveCount(0);
  expect(errors).toEqual([]);
});
