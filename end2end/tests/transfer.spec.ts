import { expect, test } from './fixtures';
import { signUp, startSession } from './helpers';

// What a first visit costs on the wire: the dashboard, then a live session, everything the
// browser fetched included (pages, server functions, the client's WebAssembly and
// JavaScript, the stylesheet, icons, fonts), headers and bodies as sent, compressed.
const BUDGET_BYTES = 350_000;

test('a first visit to the dashboard and a live session stays within its transfer budget', async ({
  page,
  browser,
}) => {
  test.setTimeout(60_000);
  await signUp(page);
  // A new context has an empty cache: the signed-in learner as a new browser sees them.
  const fresh = await browser.newContext({ storageState: await page.context().storageState() });
  const visit = await fresh.newPage();
  const fetched: { url: string; bytes: number }[] = [];
  const pending: Promise<void>[] = [];
  visit.on('requestfinished', (request) => {
    pending.push(
      request.sizes().then((sizes) => {
        fetched.push({ url: request.url(), bytes: sizes.responseHeadersSize + sizes.responseBodySize });
      }),
    );
  });

  await startSession(visit, 'The living cell');
  await visit.waitForLoadState('networkidle');
  await Promise.all(pending);

  const total = fetched.reduce((sum, f) => sum + f.bytes, 0);
  const listing = fetched.map((f) => `${f.bytes.toString().padStart(8)}  ${new URL(f.url).pathname}`).join('\n');
  console.log(`first visit: ${fetched.length} responses, ${total} bytes\n${listing}`);
  // The client itself came, compressed: a build without its Brotli files, or a debug build,
  // would blow the budget on its own.
  expect(fetched.some((f) => /\/pkg\/warren\.[0-9a-f]{16}_bg\.wasm$/.test(f.url)), listing).toBe(true);
  expect(total, listing).toBeLessThan(BUDGET_BYTES);
  await fresh.close();
});
