// Drives Debian's Chromium through Home Assistant's UI like a person would:
// log in, open the Assist dialog, type a command, read Jarvis's reply and the
// light's tile on the Lights dashboard. Prints one JSON line with what the page
// showed; tests/browser/test_assist_dialog.py asserts on it.
//
// node assist_dialog.mjs URL USERNAME PASSWORD COMMAND LIGHT_NAME ARTIFACT_DIR
import { chromium } from "playwright-core";
import path from "node:path";

const [baseUrl, username, password, command, lightName, artifactDir] =
  process.argv.slice(2);
// A local model on a busy 2-core machine can take a while to answer.
const REPLY_TIMEOUT_MS = 180_000;
const STATE_TIMEOUT_MS = 10_000;

// The trimmed value of read() once done() accepts it, or the last one read when
// time runs out: the test asserts on what the page showed.
async function poll(read, done, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = (await read()).trim();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// Flags known to work on this machine kind; without the networking ones
// Chromium keeps trying hosts the closed network refuses. Playwright gives
// each launch a new, empty --user-data-dir.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(60_000);

  await page.goto(baseUrl);
  await page.locator("input[name=username]").fill(username);
  await page.locator("input[name=password]").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  // The frontend stores its tokens before it drops auth_callback from the URL.
  await page.waitForURL(
    (url) =>
      !url.pathname.startsWith("/auth") && !url.searchParams.has("auth_callback"),
  );

  // The Lights dashboard: one tile per light, its state rendered as text
  // ("Off", or the brightness when on).
  await page.goto(`${baseUrl}/light`);
  const tileState = page
    .locator("hui-tile-card", { hasText: lightName })
    .locator("state-display");
  const before = (await tileState.innerText()).trim();

  // "a" is the frontend's shortcut for the Assist dialog.
  await page.keyboard.press("a");
  const chat = page.locator("ha-assist-chat");
  await chat.locator("#message-input input").fill(command);
  await page.keyboard.press("Enter");

  // The reply bubble ends with "…" while the agent works; the frontend writes
  // the final speech into it at intent-end. ha-markdown renders the text
  // inside its shadow root.
  const replyBubble = chat
    .locator(".message.hass")
    .nth(1)
    .locator("ha-markdown-element");
  const reply = await poll(
    async () => ((await replyBubble.count()) ? await replyBubble.innerText() : ""),
    (text) => text !== "" && !text.endsWith("…"),
    REPLY_TIMEOUT_MS,
  );
  // The tile behind the dialog follows the state pushed over the websocket.
  const after = await poll(
    () => tileState.innerText(),
    (text) => text !== before,
    STATE_TIMEOUT_MS,
  );
  const dialogShot = path.join(artifactDir, "assist_dialog.png");
  await page.screenshot({ path: dialogShot });

  await page.keyboard.press("Escape");
  await chat.waitFor({ state: "hidden" });
  const lightsShot = path.join(artifactDir, "assist_lights.png");
  await page.screenshot({ path: lightsShot });

  console.log(
    JSON.stringify({ before, reply, after, screenshots: [dialogShot, lightsShot] }),
  );
} finally {
  await browser.close();
}
