// The dashboard in a real browser (Debian's chromium, headless, driven by playwright-core) against a real
// sinewd on loopback ports chosen free: the page loads and lists the worlds, the 3D view renders (a
// screenshot is saved under SINEW_ARTIFACTS and must not be blank), the joint table follows the stream,
// a slider moves its joint in the streamed state, pause stops time and step advances one tick, and
// stopping the server shows the banner until the page reconnects to a server started again on the same
// ports. Every wait is bounded; the run stops by itself.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, Server, TcpClient, launchBrowser, pb, sleep, waitFor } from './support.mjs';

const WORLD = 'browser-arm';
const ABOUT_Y = { x: 0, y: 0, z: Math.SQRT1_2, w: Math.SQRT1_2 }; // joint x axis onto world y
const ABOUT_Z = { x: 0, y: -Math.SQRT1_2, z: 0, w: Math.SQRT1_2 }; // joint x axis onto world z

// Two links: a shoulder about world z with no drive, spinning at 1 rad/s (gravity exerts no torque about
// it, so it turns for as long as the test runs), and an elbow about a horizontal axis held by a stiff
// PD drive (gravity deflects it by m g r / k = 1 * 9.81 * 0.15 / 100 = 0.015 rad).
async function createWorld(port) {
	const c = await TcpClient.connect(port, 'browser-test-setup');
	const world = (await c.ok({ createWorld: { name: WORLD, settings: { timeStep: 0.002 }, time: { mode: pb.TimeMode.TIME_REALTIME }, keepAfterDisconnect: true } })).created.id;
	const inertia = { xx: 0.01, yy: 0.01, zz: 0.01 };
	const art = await c.ok({ createArticulation: {
		worldId: world,
		links: [
			{ parent: -1 },
			{ parent: 0, jointType: pb.LinkJointType.LINK_REVOLUTE, parentFrame: { position: { z: 0.3 }, rotation: ABOUT_Z },
				childFrame: { position: { x: -0.15 }, rotation: ABOUT_Z }, mass: 1, inertia, initialVelocity: [1.0] },
			{ parent: 1, jointType: pb.LinkJointType.LINK_REVOLUTE, parentFrame: { position: { x: 0.15 }, rotation: ABOUT_Y },
				childFrame: { position: { x: -0.15 }, rotation: ABOUT_Y }, mass: 1, inertia,
				drives: [{ enabled: true, stiffness: 100, damping: 10 }] },
		],
	} });
	c.close(); // the world is kept and ownerless: the dashboard can own it
	return { world, articulation: art.created.id };
}

describe('dashboard', { timeout: 120000 }, () => {
	let server;
	let browser;
	let page;
	let observer;
	let ids;
	const pageErrors = [];

	before(async () => {
		fs.mkdirSync(ARTIFACTS, { recursive: true });
		server = await Server.start();
		ids = await createWorld(server.tcp);
		observer = await TcpClient.connect(server.tcp, 'browser-test-observer');
		browser = await launchBrowser();
		page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
		page.on('pageerror', (e) => pageErrors.push(e.message));
		page.setDefaultTimeout(15000);
	});

	after(async () => {
		observer?.close();
		await browser?.close();
		if (server) {
			await server.stop();
		}
	});

	const row = (dof) => page.locator(`tr[data-key="a:${ids.articulation}:${dof}"]`);
	const cell = (dof, field) => row(dof).locator(`td[data-field=${field}]`);

	it('loads, lists the worlds and opens the one asked for', async () => {
		const response = await page.goto(`${server.url}?world=${WORLD}`);
		assert.equal(response.status(), 200);
		assert.equal(await page.title(), 'Sinew dashboard');
		await page.locator('[data-testid=connection-state]', { hasText: 'connected' }).waitFor();
		const worlds = page.locator('[data-testid=world]');
		await waitFor('two worlds listed', async () => (await worlds.count()) === 2);
		const names = await worlds.allInnerTexts();
		assert.ok(names.some((n) => n.startsWith('demo')) && names.some((n) => n.startsWith(WORLD)), names.join(' | '));
		await page.locator('[data-testid=world-title]', { hasText: WORLD }).waitFor();
		// The world was ownerless: the dashboard took it over, so it may pause and reset it.
		await page.locator('[data-testid=role]', { hasText: 'owner' }).waitFor();
		assert.equal(await page.locator('[data-testid=time-mode]').innerText(), 'real time');
	});

	it('renders the 3D view (screenshot saved, not blank)', async () => {
		await waitFor('frames drawn', () => page.evaluate(() => window.sinewDashboard.framesRendered > 10));
		await sleep(300);
		const view = page.locator('[data-testid=view3d]');
		const shot = await view.screenshot({ path: path.join(ARTIFACTS, 'dashboard-view.png') });
		await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png') });
		// Decode the PNG in the page itself and measure it: a blank (one-colour) canvas has no variance.
		const stats = await page.evaluate(async (b64) => {
			const img = new Image();
			img.src = `data:image/png;base64,${b64}`;
			await img.decode();
			const c = document.createElement('canvas');
			c.width = img.width;
			c.height = img.height;
			const g = c.getContext('2d');
			g.drawImage(img, 0, 0);
			const d = g.getImageData(0, 0, c.width, c.height).data;
			let sum = 0;
			let sum2 = 0;
			const colours = new Set();
			for (let i = 0; i < d.length; i += 4) {
				const l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
				sum += l;
				sum2 += l * l;
				colours.add((d[i] >> 4) * 256 + (d[i + 1] >> 4) * 16 + (d[i + 2] >> 4));
			}
			const n = d.length / 4;
			return { width: c.width, height: c.height, stddev: Math.sqrt(sum2 / n - (sum / n) ** 2), colours: colours.size };
		}, shot.toString('base64'));
		// A drawn scene (floor grid, lit links) spreads luminance by well over 3 levels of 255 and uses
		// dozens of colours; a blank or failed canvas is one flat colour (stddev 0, 1 colour).
		assert.ok(stats.width > 200 && stats.height > 200, JSON.stringify(stats));
		assert.ok(stats.stddev > 3, `3D view looks blank: ${JSON.stringify(stats)}`);
		assert.ok(stats.colours > 20, `3D view looks blank: ${JSON.stringify(stats)}`);
	});

	it('keeps the joint table up to date with the stream', async () => {
		await row(0).waitFor();
		const first = Number(await cell(0, 'position').innerText());
		// The shoulder turns at 1 rad/s: in 0.5 s it moves ~0.5 rad, far beyond the 4 decimals shown.
		await sleep(500);
		const second = Number(await cell(0, 'position').innerText());
		assert.ok(Math.abs(second - first) > 0.1, `shoulder position did not change: ${first} -> ${second}`);
		assert.ok(Math.abs(Number(await cell(0, 'velocity').innerText()) - 1.0) < 0.05);
	});

	it('moves a joint with its slider', async () => {
		const slider = row(1).locator('[data-testid=target-slider]');
		assert.equal(await slider.isEnabled(), true);
		await slider.fill('0.6');
		// The drive (k = 100, d = 10 on ~0.03 kg*m^2) settles in well under a second; 0.05 rad covers its
		// gravity deflection (0.015) and the spinning shoulder's centrifugal pull.
		const q = await waitFor('the elbow at its new target in the streamed state', async () => {
			const s = await observer.state(ids.world, pb.Include.INCLUDE_JOINT_POSITIONS);
			const elbow = s.articulations[0].position[1];
			return Math.abs(elbow - 0.6) < 0.05 ? elbow : null;
		}, 10000);
		assert.ok(Math.abs(q - 0.6) < 0.05);
		assert.equal(await cell(1, 'target').innerText(), '0.6000');
		await waitFor('the table showing it', async () => Math.abs(Number(await cell(1, 'position').innerText()) - 0.6) < 0.05);
	});

	it('pauses time, steps one tick, and plays again', async () => {
		await page.locator('[data-testid=pause]').click();
		await page.locator('[data-testid=time-mode]', { hasText: 'paused' }).waitFor();
		const t1 = (await observer.state(ids.world)).tick;
		const shown = await page.locator('[data-testid=sim-time]').innerText();
		await sleep(600);
		assert.equal((await observer.state(ids.world)).tick, t1, 'ticks went on while paused');
		assert.equal(await page.locator('[data-testid=sim-time]').innerText(), shown);
		await page.locator('[data-testid=step]').click();
		await waitFor('one step', async () => Number((await observer.state(ids.world)).tick) === Number(t1) + 1, 5000);
		await page.locator('[data-testid=tick]', { hasText: String(Number(t1) + 1) }).waitFor();
		await page.locator('[data-testid=play]').click();
		await page.locator('[data-testid=time-mode]', { hasText: 'real time' }).waitFor();
		await waitFor('time going again', async () => Number((await observer.state(ids.world)).tick) > Number(t1) + 50, 5000);
		await waitFor('a measured real-time factor', async () => {
			const rtf = Number(await page.locator('[data-testid=rtf]').innerText());
			return rtf > 0.5 && rtf < 1.5;
		}, 5000);
	});

	it('shows a banner when the server goes away, and reconnects when it is back', async () => {
		const { tcp, ws } = server;
		observer.close();
		observer = null;
		assert.equal(await server.stop(), 0, 'sinewd did not exit cleanly');
		const banner = page.locator('[data-testid=banner]');
		await banner.waitFor({ state: 'visible', timeout: 5000 });
		assert.match(await banner.innerText(), /not reachable/);
		assert.equal(await page.locator('[data-testid=connection-state]').innerText(), 'disconnected');
		await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-banner.png') });
		// The same ports again: the page finds the new server by itself (retries at most 4 s apart).
		server = await Server.start({ tcp, ws });
		await banner.waitFor({ state: 'hidden', timeout: 15000 });
		await page.locator('[data-testid=connection-state]', { hasText: 'connected' }).waitFor();
		// The new server has only its demo world; the page opens it and streams again.
		await page.locator('[data-testid=world-title]', { hasText: 'demo' }).waitFor();
		const before = await page.evaluate(() => window.sinewDashboard.framesReceived);
		await waitFor('frames again', () => page.evaluate((n) => window.sinewDashboard.framesReceived > n + 5, before), 10000);
		assert.deepEqual(pageErrors, []);
	});
});
