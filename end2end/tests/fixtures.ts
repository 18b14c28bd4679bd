import { expect, test as base, type BrowserContext } from '@playwright/test';

/**
 * `test` for every spec: each browser context a test uses (its own page's, and any it opens)
 * is watched, and the test fails on a Content-Security-Policy violation, an uncaught script
 * error or a console error, so the policy is proven on every page the suite visits.
 * A test that provokes console errors on purpose (a server killed under a live socket says
 * so in the console) names them with `test.use({ expectedConsole: [/…/] })`; CSP violations
 * are never expected.
 */
export const test = base.extend<{ expectedConsole: RegExp[]; browserProblems: void }>({
  expectedConsole: [[], { option: true }],
  browserProblems: [
    async ({ browser, context, expectedConsole }, use) => {
      const problems: string[] = [];
      const watch = async (ctx: BrowserContext) => {
        // The browser reports a violation as an event on the document, before any script of
        // the page runs; it becomes a console error the listener below sees.
        await ctx.addInitScript(() => {
          document.addEventListener('securitypolicyviolation', (e) => {
            console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
          });
        });
        ctx.on('console', (message) => {
          if (message.type() !== 'error') return;
          const text = message.text();
          const expected = !text.startsWith('CSP violation') && expectedConsole.some((pattern) => pattern.test(text));
          if (!expected) problems.push(`${message.location().url}: ${text}`);
        });
        ctx.on('weberror', (error) => problems.push(`uncaught: ${error.error().message}`));
      };
      await watch(context);
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (...args: Parameters<typeof newContext>) => {
        const ctx = await newContext(...args);
        await watch(ctx);
        return ctx;
      };
      await use();
      browser.newContext = newContext;
      expect(problems, 'CSP violations and console errors').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
