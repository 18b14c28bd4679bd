import type { Page, WebSocketRoute } from '@playwright/test';
import { expect, SOCKET_DOWN, test } from './fixtures';
import {
  OwnServer,
  answer,
  pointsOf,
  recalled,
  screenshotPath,
  signUp,
  startSession,
  turns,
  waitForConnected,
  waitForTurn,
} from './helpers';

/** Answers each point in turn; `already` points were recalled before. */
async function answerAll(page: Page, points: string[], already = 0): Promise<void> {
  for (const [i, point] of points.entries()) {
    await answer(page, point);
    await expect.poll(() => recalled(page)).toBe(already + i + 1);
  }
}

async function dashboardStatus(page: Page, setName: string): Promise<string> {
  await page.goto('/');
  const recent = page.locator('.list li').filter({ hasText: setName }).first();
  return recent.getByTestId('session-status').innerText();
}

test('every circle, the overlay, Continue, then leaving completes the session', async ({ page }) => {
  await signUp(page);
  const points = await pointsOf(page, 'The living cell');
  expect(points).toHaveLength(5);
  await startSession(page, 'The living cell');
  await expect(page.getByTestId('progress')).toHaveAttribute('aria-label', '0 of 5 points recalled');
  // With a keyboard, typing goes straight into the answer box.
  await expect(page.getByTestId('answer')).toBeFocused();
  await expect(page.getByTestId('agent-text')).not.toBeEmpty();
  await expect(page.getByTestId('provider-notice')).toContainText('Offline tutor');

  await answer(page, points[0]);
  await expect.poll(() => recalled(page)).toBe(1);
  // The note the recall brought: its opening, and the whole of it a tap away.
  const note = page.locator('.exchange > .resource-card').filter({ hasText: 'Where mitochondria came from' });
  await expect(note.locator('.snippet')).toContainText('…');
  await expect(note.getByText(/cyanobacteria/)).toBeHidden();
  await note.getByText('Read all of it').click();
  await expect(note.getByText(/cyanobacteria/)).toBeVisible();
  await expect(note.locator('.snippet')).toBeHidden();
  await note.getByText('Read all of it').click();
  // For a person to look at: the live view at desktop and phone widths.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: screenshotPath('live-desktop'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: screenshotPath('live-phone'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  // Let the panel's colour transition finish: this picture is for a person to judge.
  await page.waitForTimeout(600);
  await page.screenshot({ path: screenshotPath('live-phone-dark'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });

  await answerAll(page, points.slice(1), 1);
  await expect(page.getByTestId('overlay')).toBeVisible();
  // Answered since: the first note no longer stands under the words.
  await expect(note).toHaveCount(0);
  await expect(page.getByTestId('overlay')).toContainText("You've covered everything");
  await page.screenshot({ path: screenshotPath('overlay') });
  // A modal dialog: focus is in it, and Tab stays between its buttons.
  await expect(page.getByTestId('overlay-done')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('overlay-continue')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('overlay-done')).toBeFocused();

  // Escape is Continue: the dialog goes and the keys are the answer box's again.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('overlay')).toHaveCount(0);
  await expect(page.getByTestId('answer')).toBeFocused();
  // The question the last recall answered is gone: the overlay's words stand in its place.
  await expect(page.getByTestId('agent-text')).toHaveText("You've covered everything.");
  // The page says what the session is now: open for questions until it is left.
  await expect(page.getByTestId('past-everything')).toContainText('leave the session to complete it');
  // A tangent now: with no point left there is no track to stay on, so the offer says "Not now".
  await answer(page, 'Why do volcanoes erupt in Iceland?');
  const offer = page.getByTestId('rabbithole-prompt');
  await expect(offer).toContainText('volcanoes erupt in Iceland');
  await expect(offer.getByRole('button', { name: 'Stay on track' })).toHaveCount(0);
  await offer.getByRole('button', { name: 'Not now' }).click();
  await expect(offer).toHaveCount(0);
  // Sent with a click on Send: the next answer still goes into the box.
  const before = await turns(page);
  await page.getByTestId('answer').fill('How does all of this fit together?');
  await page.getByTestId('send').click();
  await waitForTurn(page, before);
  await expect(page.getByTestId('answer')).toBeFocused();
  await page.getByTestId('leave').click();
  await expect(page).toHaveURL(/\/$/);
  expect(await dashboardStatus(page, 'The living cell')).toBe('completed');
});

test('Done on the overlay leaves and completes', async ({ page }) => {
  await signUp(page);
  const points = await pointsOf(page, 'Searching and sorting');
  await startSession(page, 'Searching and sorting');
  await answer(page, `${points[0]} ${points[1]}`);
  await expect.poll(() => recalled(page)).toBe(2);
  for (const point of points.slice(2)) await answer(page, point);
  await expect(page.getByTestId('overlay')).toBeVisible();
  await page.getByTestId('overlay-done').click();
  await expect(page).toHaveURL(/\/$/);
  expect(await dashboardStatus(page, 'Searching and sorting')).toBe('completed');
});

test('leave mid-session, then resume with the earlier recalls', async ({ page }) => {
  await signUp(page);
  const points = await pointsOf(page, 'Rome: from republic to empire');
  await startSession(page, 'Rome: from republic to empire');
  await answerAll(page, points.slice(0, 2));
  await page.getByTestId('leave').click();
  await expect(page).toHaveURL(/\/$/);
  // Once its summary is written (the page looks again by itself), the session is where the
  // learner left off.
  const resume = page.getByTestId('left-off');
  await expect(resume).toContainText('paused');
  await expect(resume).toContainText('2 of 6 recalled');

  // The set's own page offers it too, beside Start over.
  await page.getByRole('link', { name: 'Rome: from republic to empire' }).first().click();
  const own = page.getByTestId('set-card');
  await expect(own.getByRole('button', { name: 'Start over' })).toBeVisible();
  await expect(own.getByTestId('set-resume')).toHaveAttribute('href', /\/sessions\//);
  await page.goBack();

  await resume.getByRole('link', { name: 'Resume' }).click();
  await waitForTurn(page, 0);
  await expect(page.getByTestId('progress')).toHaveAttribute('data-recalled', '2');
  await expect(page.getByTestId('agent-text')).toContainText('Welcome back to Rome: from republic to empire.');
  // The clock runs while the learner is here, from the time studied before.
  await expect(page.getByTestId('timer')).not.toHaveText('00:00', { timeout: 5_000 });
  await answer(page, points[2]);
  await expect.poll(() => recalled(page)).toBe(3);
});

test('Back from a session shows the dashboard as it is now, not as it was', async ({ page }) => {
  await signUp(page);
  const points = await pointsOf(page, 'Rome: from republic to empire');
  await startSession(page, 'Rome: from republic to empire');
  await answerAll(page, points.slice(0, 2));
  await page.goBack();
  await expect(page).toHaveURL(/\/$/);
  const under = page.getByTestId('resume-card').filter({ hasText: 'Rome: from republic to empire' });
  await expect(under).toContainText('2 of 6 recalled');
});

test('a rabbit hole: offered, explored with progress hidden, and left', async ({ page }) => {
  await signUp(page);
  await startSession(page, 'The living cell');
  await answer(page, 'no idea');
  await answer(page, 'still nothing');
  await answer(page, 'Where did mitochondria originally come from, endosymbiosis?');
  const prompt = page.getByTestId('rabbithole-prompt');
  await expect(prompt).toContainText('Want to explore?');
  const live = page.locator('.live');
  const background = () => live.evaluate((e) => getComputedStyle(e).backgroundColor);
  const onTrack = await background();
  const before = await turns(page);
  await prompt.getByRole('button', { name: 'Explore' }).click();
  await waitForTurn(page, before);
  await expect(page.getByTestId('rabbithole-banner')).toContainText('Exploring:');
  // The button went with the offer: the keys are the answer box's.
  await expect(page.getByTestId('answer')).toBeFocused();
  // The hole has a background of its own (it fades in), and the old one comes back after.
  await expect(live).toHaveClass(/rabbithole/);
  await expect.poll(background).not.toBe(onTrack);
  await expect(page.locator('.progress')).toHaveAttribute('aria-hidden', 'true');
  await expect(page.getByTestId('agent-text')).toContainText('endosymbiosis');
  // The box takes questions here, not answers.
  await expect(page.getByTestId('answer')).toHaveAttribute('placeholder', 'Ask, or think aloud…');
  await page.getByRole('button', { name: 'Return to session' }).click();
  await expect(page.getByTestId('rabbithole-banner')).toHaveCount(0);
  await expect(page.getByTestId('answer')).toBeFocused();
  await expect(page.getByTestId('answer')).toHaveAttribute('placeholder', 'Answer in your own words…');
  await expect(page.locator('.progress')).toHaveAttribute('aria-hidden', 'false');
  await expect(page.locator('.pill.amber')).toHaveCount(1);
  await expect.poll(background).toBe(onTrack);
});

test('a rabbit hole declined with "Stay on track": the tutor carries on, nothing is offered for a while', async ({ page }) => {
  await signUp(page);
  await startSession(page, 'The living cell');
  await answer(page, 'no idea');
  await answer(page, 'still nothing');
  await answer(page, 'Where did mitochondria originally come from, endosymbiosis?');
  const prompt = page.getByTestId('rabbithole-prompt');
  await expect(prompt).toContainText('Want to explore?');
  await prompt.getByRole('button', { name: 'Stay on track' }).click();
  await expect(prompt).toHaveCount(0);
  await expect(page.getByTestId('answer')).toBeFocused();
  await expect(page.getByTestId('rabbithole-banner')).toHaveCount(0);
  // The cooldown: another tangent straight away is not offered.
  await answer(page, 'Why do volcanoes erupt in Iceland?');
  await expect(page.getByTestId('rabbithole-prompt')).toHaveCount(0);
  await expect(page.locator('.live')).not.toHaveClass(/rabbithole/);
});

test('the server restarts mid-session: the page reconnects and nothing is lost', async ({ page, allowConsole }) => {
  allowConsole(SOCKET_DOWN);
  const server = await OwnServer.create();
  try {
    await signUp(page, undefined, server.url);
    const points = await pointsOf(page, 'The living cell', server.url);
    await startSession(page, 'The living cell', server.url);
    await answer(page, points[0]);
    await expect.poll(() => recalled(page)).toBe(1);

    await server.kill();
    await expect(page.getByTestId('connection')).toContainText('Reconnecting', { timeout: 15_000 });
    // Typed while the server is down: kept, and sent once it is back.
    const before = await turns(page);
    await page.getByTestId('answer').fill(points[1]);
    await page.getByTestId('answer').press('Enter');
    await server.start();
    await waitForTurn(page, before);
    await expect.poll(() => recalled(page)).toBe(2);
    await expect(page.getByTestId('connection')).toContainText('Connected');

    // The next message works, and the history has each learner message once.
    await answer(page, points[2]);
    await expect.poll(() => recalled(page)).toBe(3);
    const sessionId = page.url().split('/').pop();
    await page.goto(`${server.url}/history/${sessionId}`);
    const learner = page.locator('.entry.speaker-learner');
    await expect(learner).toHaveCount(3);
    await expect(learner.nth(1)).toContainText(points[1]);
  } finally {
    await server.kill();
  }
});

test('a dropped connection: the page is sent what it missed (a near miss and the reply), once', async ({
  page,
}) => {
  // Every socket goes through the test, which can cut one the moment a message has gone.
  const sockets: { url: string; received: string[] }[] = [];
  let cutAfterNextMessage = false;
  await page.routeWebSocket(/\/ws\/sessions\//, (ws: WebSocketRoute) => {
    const socket = { url: ws.url(), received: [] as string[] };
    sockets.push(socket);
    const server = ws.connectToServer();
    let cut = false;
    ws.onMessage((message) => {
      server.send(message);
      if (cutAfterNextMessage && String(message).includes('user_message')) {
        cutAfterNextMessage = false;
        cut = true;
        void server.close();
        void ws.close({ code: 4000, reason: 'cut by the test' });
      }
    });
    server.onMessage((message) => {
      if (cut) return;
      socket.received.push(JSON.parse(String(message)).type);
      ws.send(message);
    });
  });
  await signUp(page);
  await startSession(page, 'The living cell');
  const sessionId = page.url().split('/').pop();
  const before = await turns(page);

  cutAfterNextMessage = true;
  await page.getByTestId('answer').fill('the mitochondria make energy');
  await page.getByTestId('answer').press('Enter');
  await expect.poll(() => sockets.length, { timeout: 15_000 }).toBe(2);
  expect(sockets[1].url).toMatch(/\?since=\d+$/);
  // The near miss and the reply, both made while the page was away, are shown; once.
  await expect(page.getByTestId('near-miss')).toBeVisible({ timeout: 15_000 });
  await expect.poll(() => turns(page), { timeout: 15_000 }).toBe(before + 1);
  await expect(page.getByTestId('live')).toHaveAttribute('data-connection', 'open');
  expect(sockets[1].received).toContain('resumed');
  expect(sockets[1].received).not.toContain('session_started');
  expect(sockets[1].received.filter((t) => t === 'assistant_complete')).toHaveLength(1);
  expect(sockets[1].received.filter((t) => t === 'recall_point_near_miss')).toHaveLength(1);
  await page.waitForTimeout(1_000);
  expect(await turns(page)).toBe(before + 1);
  await page.goto(`/history/${sessionId}?filter=learner`);
  await expect(page.locator('.entry.speaker-learner')).toHaveCount(1);
});

test('a recall sent just before the server dies is counted exactly once after reconnect', async ({ page, allowConsole }) => {
  allowConsole(SOCKET_DOWN);
  const server = await OwnServer.create();
  try {
    await signUp(page, undefined, server.url);
    const points = await pointsOf(page, 'The living cell', server.url);
    await startSession(page, 'The living cell', server.url);
    const sessionId = page.url().split('/').pop();
    // Sent, then the server is killed at once: the recall may have been stored and announced
    // (the page never saw it) or not stored at all (the page sends it again).
    await page.getByTestId('answer').fill(points[0]);
    await page.getByTestId('answer').press('Enter');
    await server.kill();
    await expect(page.getByTestId('connection')).toContainText('Reconnecting', { timeout: 15_000 });
    await server.start();
    await expect(page.getByTestId('connection')).toContainText('Connected', { timeout: 15_000 });
    await expect.poll(() => recalled(page), { timeout: 15_000 }).toBe(1);
    await expect(page.locator('[data-testid=progress] .filled')).toHaveCount(1);
    // Still one after the reply, and the message is stored once.
    await page.waitForTimeout(1_500);
    expect(await recalled(page)).toBe(1);
    await page.goto(`${server.url}/history/${sessionId}?filter=learner`);
    await expect(page.locator('.entry.speaker-learner')).toHaveCount(1);
  } finally {
    await server.kill();
  }
});

test('many messages typed while the server is down: each is delivered or back in the box', async ({ page, allowConsole }) => {
  allowConsole(SOCKET_DOWN);
  const server = await OwnServer.create();
  try {
    await signUp(page, undefined, server.url);
    await startSession(page, 'The living cell', server.url);
    const sessionId = page.url().split('/').pop();
    await server.kill();
    await expect(page.getByTestId('connection')).toContainText('Reconnecting', { timeout: 15_000 });
    // More than the session takes at once: some go, the rest are refused by name.
    const typed = Array.from({ length: 14 }, (_, i) => `Offline thought number ${i + 1}.`);
    for (const text of typed) {
      await page.getByTestId('answer').fill(text);
      await page.getByTestId('answer').press('Enter');
    }
    await server.start();
    await expect(page.getByTestId('connection')).toContainText('Connected', { timeout: 15_000 });
    // Refusals come back into the box; wait until it stops changing.
    let box = '';
    await expect(async () => {
      const now = await page.getByTestId('answer').inputValue();
      const same = now === box;
      box = now;
      expect(same && box.length > 0).toBeTruthy();
    }).toPass({ timeout: 20_000, intervals: [1_000] });

    // Messages waiting in the session's queue are stored as their turn comes.
    const returned = typed.filter((t) => box.includes(t));
    let delivered: string[] = [];
    await expect(async () => {
      await page.goto(`${server.url}/history/${sessionId}?filter=learner`);
      const stored = await page.locator('.entry.speaker-learner').allInnerTexts();
      delivered = typed.filter((t) => stored.some((s) => s.includes(t)));
      expect(delivered.length + returned.length).toBe(typed.length);
    }).toPass({ timeout: 30_000, intervals: [1_000] });
    expect(delivered.length).toBeGreaterThan(0);
    expect(returned.length).toBeGreaterThan(1);
    for (const text of typed) {
      const places = Number(delivered.includes(text)) + Number(returned.includes(text));
      expect(places, `${text} is delivered or back in the box, once`).toBe(1);
    }
  } finally {
    await server.kill();
  }
});

test('opened in a second tab, the session moves there and the first tab says so and stays closed', async ({
  page,
}) => {
  await signUp(page);
  await startSession(page, 'Rome: from republic to empire');
  const second = await page.context().newPage();
  await second.goto(page.url());
  await waitForConnected(second);
  await expect(page.getByTestId('connection')).toContainText('opened in another tab', { timeout: 10_000 });
  await expect(page.getByTestId('answer')).toBeDisabled();
  // It does not reconnect (which would take the session back): still closed a while later.
  await page.waitForTimeout(3_000);
  await expect(page.getByTestId('connection')).toContainText('opened in another tab');
  await expect(second.getByTestId('connection')).toContainText('Connected');
  await answer(second, 'Caesar crossed the Rubicon in 49 BC.');
  // Leaving the first tab goes back to the dashboard; the session stays the second tab's.
  await page.getByTestId('leave').click();
  await expect(page).toHaveURL(/\/$/);
  await expect(second.getByTestId('connection')).toContainText('Connected');
});

test('learner text stays text, math is typeset, Shift+Enter is a new line, mute is remembered', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await signUp(page);
  await startSession(page, 'The living cell');

  // Shift+Enter adds a line; Enter sends.
  const box = page.getByTestId('answer');
  await box.fill('first line');
  await box.press('Shift+Enter');
  await box.type('second line with $E = mc^2$ and `code` <img src=x onerror=alert(1)>');
  await expect(box).toHaveValue(/first line\nsecond line/);
  const before = await turns(page);
  await box.press('Enter');
  await waitForTurn(page, before);

  // Mute, and the choice survives a reload.
  await page.getByTestId('mute').click();
  await expect(page.getByTestId('mute')).toHaveAttribute('aria-pressed', 'true');
  await page.reload();
  await waitForConnected(page);
  await expect(page.getByTestId('mute')).toHaveAttribute('aria-pressed', 'true');

  // The history shows the message as Markdown: code as code, math typeset, HTML as text.
  const sessionId = page.url().split('/').pop();
  await page.goto(`/history/${sessionId}`);
  const mine = page.locator('.entry.speaker-learner').first();
  await expect(mine.locator('code')).toHaveText('code');
  await expect(mine.locator('.katex')).toHaveCount(1, { timeout: 10_000 });
  await expect(mine).toContainText('<img src=x onerror=alert(1)>');
  await expect(mine.locator('img')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a half-typed answer survives a reload; a sent one is not put back', async ({ page }) => {
  await signUp(page);
  await startSession(page, 'The living cell');
  const box = page.getByTestId('answer');
  await box.fill('Mitochondria make');
  await page.reload();
  await waitForConnected(page);
  await expect(page.getByTestId('answer')).toHaveValue('Mitochondria make');

  const before = await turns(page);
  await page.getByTestId('answer').press('Enter');
  await waitForTurn(page, before);
  await expect(page.getByTestId('answer')).toHaveValue('');
  await page.reload();
  await waitForConnected(page);
  await expect(page.getByTestId('answer')).toHaveValue('');
});

test('signed out while the server restarts: the socket is refused with 4401 and stops retrying', async ({ page, allowConsole }) => {
  allowConsole(SOCKET_DOWN);
  const server = await OwnServer.create();
  try {
    await signUp(page, undefined, server.url);
    await startSession(page, 'The living cell', server.url);
    await page.context().clearCookies();
    await server.kill();
    await expect(page.getByTestId('connection')).toContainText('Reconnecting', { timeout: 15_000 });
    await server.start();
    // The close code comes from the close event: the page gives up and says why.
    await expect(page.getByTestId('live')).toHaveAttribute('data-connection', 'closed', { timeout: 20_000 });
    await expect(page.getByTestId('connection')).toContainText('Sign in to open a session');
    await expect(page.getByTestId('answer')).toBeDisabled();
    // It stays given up: no further attempts change the state.
    await page.waitForTimeout(3_000);
    await expect(page.getByTestId('live')).toHaveAttribute('data-connection', 'closed');
  } finally {
    await server.kill();
  }
});

test('the hint ladder survives a crash: killed between two rungs, the next reply is the next rung', async ({ page, allowConsole }) => {
  allowConsole(SOCKET_DOWN);
  const server = await OwnServer.create();
  try {
    await signUp(page, undefined, server.url);
    await startSession(page, 'The living cell', server.url);
    await answer(page, "I don't know");
    const angle = await page.getByTestId('agent-text').innerText();
    expect(angle).toContain('notes');

    await server.kill();
    await expect(page.getByTestId('connection')).toContainText('Reconnecting', { timeout: 15_000 });
    await server.start();
    await waitForConnected(page);
    await expect(page.getByTestId('agent-text')).toHaveText(angle);
    await answer(page, 'still nothing');
    await expect(page.getByTestId('agent-text')).toContainText('starts with');
  } finally {
    await server.kill();
  }
});
