import { expect, test as base, type BrowserContext } from '@playwright/test';

/**
 * `test` for every spec: each browser context a test uses (its own page's, and any it opens)
 * is watched, and the test fails on a Content-Security-Policy violation, an uncaught script
 * error or a console error, so the policy is proven on every page the suite visits.
 * A test that provokes a console error on purpose (a server it kills leaves the page's socket
 * failing; a refused form post answers 422) says which with `allowConsole(/…/)`; a CSP
 * violation is never allowed.
 */
type Watched = { allowedConsole: RegExp[]; expectsViolation: boolean };

export const test = base.extend<{
  allowConsole: (pattern: RegExp) => void;
  expectCspViolation: () => void;
  browserProblems: void;
}>({
  allowConsole: async ({}, use, testInfo) => {
    const watched = testInfo as unknown as Watched;
    watched.allowedConsole = [];
    await use((pattern) => watched.allowedConsole.push(pattern));
  },
  // For the one test that proves the watcher: it breaks the policy on purpose, and fails
  // unless exactly that is seen.
  expectCspViolation: async ({}, use, testInfo) => {
    await use(() => {
      (testInfo as unknown as Watched).expectsViolation = true;
    });
  },
  browserProblems: [
    async ({ browser, context, allowConsole, expectCspViolation }, use, testInfo) => {
      void allowConsole;
      void expectCspViolation;
      const problems: string[] = [];
      let contexts = 0;
      const watch = async (ctx: BrowserContext) => {
        // Each context is a learner of its own, at an address of its own, as behind a real
        // proxy: the suite's server trusts 127.0.0.1 to say so (WARREN_TRUSTED_PROXIES), so
        // its sign-up limit per address counts each learner, not the whole suite.
        contexts += 1;
        await ctx.setExtraHTTPHeaders({ 'x-forwarded-for': `10.${testInfo.workerIndex % 250}.${contexts}.${(seed++ % 250) + 1}` });
        // The browser reports a violation as an event on the document, before any script of
        // the page runs; it becomes a console error the listener below sees.
        await ctx.addInitScript(() => {
          document.addEventListener('securitypolicyviolation', (e) => {
            console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
          });
        });
        ctx.on('console', (message) => {
          if (message.type() === 'error') problems.push(`${message.location().url}: ${message.text()}`);
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
      const watched = testInfo as unknown as Watched;
      // Our listener's report, or the browser's own console message about the policy.
      const isViolation = (problem: string) =>
        problem.includes('CSP violation') || problem.includes('Content Security Policy');
      const violations = problems.filter(isViolation);
      const unexpected = problems.filter((problem) =>
        isViolation(problem)
          ? !watched.expectsViolation
          : !watched.allowedConsole.some((pattern) => pattern.test(problem)),
      );
      expect(unexpected, 'CSP violations and console errors').toEqual([]);
      if (watched.expectsViolation) expect(violations, 'the violation made on purpose').not.toEqual([]);
    },
    { auto: true },
  ],
});

/** Tells this worker's contexts' addresses apart from one test to the next. */
let seed = 0;

/** What a page whose server was killed on purpose logs while it reconnects. */
export const SOCKET_DOWN = /WebSocket connection to .* failed/;

export { expect };
