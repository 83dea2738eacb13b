// The dashboard in a real browser (Debian's chromium, headless, driven by playwright-core) against a real
// sinewd on loopback ports chosen free, with its demo robot: the page loads and opens the demo world, the
// 3D view draws the robot from its visual geometry (a screenshot is saved under SINEW_ARTIFACTS and must
// show the robot's colours, not a blank canvas), the joint table names the robot's joints and follows
// the stream, a slider moves its joint in the streamed state, pause stops time and step advances one
// tick, another world can be picked from the list, a second tab says on the page that it joined as a
// controller, a robot made of mesh files (tests/model/meshes/meshbot, loaded from the server's model path)
// is drawn from its fetched meshes as one body of its own colours and clicking it names its link and
// joint, a box resting on a ground plane shows its contact force arrows when the contacts toggle is on
// (and none when off), the collision and link frame toggles draw wireframes and axes, a ?world= that
// names no world and a world that goes away are said on the page, and stopping the server shows the
// banner until the page reconnects to a server started again on the same ports, with the camera where the
// user left it; a reset frames the world again. Every wait is bounded; the run stops by
// itself.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS, Server, TcpClient, launchBrowser, pb, root, sleep, waitFor } from './support.mjs';

const WORLD = 'browser-arm';
const MESH_WORLD = 'browser-meshbot';
const CONTACT_WORLD = 'browser-box';
const MESH_DIR = path.join(root, 'tests', 'model', 'meshes');
const ABOUT_Y = { x: 0, y: 0, z: Math.SQRT1_2, w: Math.SQRT1_2 }; // joint x axis onto world y
const ABOUT_Z = { x: 0, y: -Math.SQRT1_2, z: 0, w: Math.SQRT1_2 }; // joint x axis onto world z

// A second world, built with CreateArticulation (no URDF): a shoulder about world z with no drive,
// spinning at 1 rad/s (gravity exerts no torque about it), and an elbow about a horizontal axis held by a
// PD drive. Kept and ownerless, as the demo world is.
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
	c.close();
	return { world, articulation: art.created.id };
}

// The meshbot (a red mesh base, a blue mesh arm on a revolute shoulder), fixed at 0.1 m above the
// origin in a paused world, so that it stays where it is drawn.
async function createMeshWorld(port) {
	const c = await TcpClient.connect(port, 'browser-test-meshbot');
	const world = (await c.ok({ createWorld: { name: MESH_WORLD, settings: { timeStep: 0.002 }, time: { mode: pb.TimeMode.TIME_PAUSED }, keepAfterDisconnect: true } })).created.id;
	const urdf = (await c.ok({ loadUrdf: { worldId: world, model: 'package://meshbot/urdf/meshbot.urdf', basePose: { position: { z: 0.1 } }, baseMode: 1 } })).urdf;
	c.close();
	return { world, articulation: urdf.articulationId };
}

// A 0.2 m box of water's density (8 kg, 78.5 N of weight) resting on a ground plane, in real time. The
// client that made it stays connected as its owner (the test adds a body while the page shows it).
async function createContactWorld(port) {
	const c = await TcpClient.connect(port, 'browser-test-box');
	const world = (await c.ok({ createWorld: { name: CONTACT_WORLD, settings: { timeStep: 0.002 }, time: { mode: pb.TimeMode.TIME_REALTIME }, keepAfterDisconnect: true } })).created.id;
	await c.ok({ createShape: { worldId: world, shape: { plane: { normal: { z: 1 }, offset: 0 } } } });
	await c.ok({ createBody: { worldId: world, body: { pose: { position: { z: 0.1 } } }, shapes: [{ box: { halfExtents: { x: 0.1, y: 0.1, z: 0.1 } } }], density: 1000 } });
	return { world, owner: c };
}

// Pixels of a PNG by colour class, measured in the page: the contact arrows' magenta (unlit 0xff00ff, the
// only such colour drawn), the meshbot's red base (0.8 0.1 0.1) and blue arm (0.1 0.2 0.9), lit or in
// shade, and the largest 4-connected region of saturated pixels (the floor, the grid and the background
// are greys and grey-blues, max - min channel below 40) with the red and blue pixels in it.
function measureColours(page, png) {
	return page.evaluate(async (b64) => {
		const img = new Image();
		img.src = `data:image/png;base64,${b64}`;
		await img.decode();
		const c = document.createElement('canvas');
		c.width = img.width;
		c.height = img.height;
		const g = c.getContext('2d');
		g.drawImage(img, 0, 0);
		const d = g.getImageData(0, 0, c.width, c.height).data;
		const n = c.width * c.height;
		const cls = new Uint8Array(n); // 0 background, 1 saturated, 2 red, 3 blue, 4 magenta
		let magenta = 0;
		let wire = 0; // collision wireframes, 0x7cf2a0
		for (let i = 0; i < n; ++i) {
			const [r, gr, b] = [d[4 * i], d[4 * i + 1], d[4 * i + 2]];
			if (gr > 180 && r > 80 && r < 170 && b > 110 && b < 200) {
				wire += 1;
			}
			if (r > 200 && b > 200 && gr < 90) {
				magenta += 1;
				cls[i] = 4;
			} else if (r > 60 && r > 2 * gr && r > 2 * b) {
				cls[i] = 2;
			} else if (b > 60 && b > 1.8 * r && b > 1.3 * gr) {
				cls[i] = 3;
			} else if (Math.max(r, gr, b) - Math.min(r, gr, b) > 60) {
				cls[i] = 1;
			}
		}
		const seen = new Uint8Array(n);
		let best = { size: 0, red: 0, blue: 0 };
		let red = 0;
		let blue = 0;
		for (let i = 0; i < n; ++i) {
			red += cls[i] === 2;
			blue += cls[i] === 3;
			if (!cls[i] || cls[i] === 4 || seen[i]) {
				continue;
			}
			const region = { size: 0, red: 0, blue: 0 };
			const stack = [i];
			seen[i] = 1;
			while (stack.length > 0) {
				const j = stack.pop();
				region.size += 1;
				region.red += cls[j] === 2;
				region.blue += cls[j] === 3;
				const x = j % c.width;
				for (const k of [x > 0 ? j - 1 : -1, x < c.width - 1 ? j + 1 : -1, j - c.width, j + c.width]) {
					if (k >= 0 && k < n && !seen[k] && cls[k] && cls[k] !== 4) {
						seen[k] = 1;
						stack.push(k);
					}
				}
			}
			if (region.size > best.size) {
				best = region;
			}
		}
		return { magenta, wire, red, blue, region: best };
	}, png.toString('base64'));
}

// Pixels that differ between two PNGs of the same size by more than 40 levels in some channel.
function changedPixels(page, a, b) {
	return page.evaluate(async ([a64, b64]) => {
		const read = async (b64) => {
			const img = new Image();
			img.src = `data:image/png;base64,${b64}`;
			await img.decode();
			const c = document.createElement('canvas');
			c.width = img.width;
			c.height = img.height;
			const g = c.getContext('2d');
			g.drawImage(img, 0, 0);
			return g.getImageData(0, 0, c.width, c.height).data;
		};
		const [da, db] = [await read(a64), await read(b64)];
		let changed = 0;
		for (let i = 0; i < da.length; i += 4) {
			if (Math.abs(da[i] - db[i]) > 40 || Math.abs(da[i + 1] - db[i + 1]) > 40 || Math.abs(da[i + 2] - db[i + 2]) > 40) {
				changed += 1;
			}
		}
		return changed;
	}, [a.toString('base64'), b.toString('base64')]);
}

// Luminance spread and colours of a PNG, measured in the page (no image library needed here).
function measure(page, png) {
	return page.evaluate(async (b64) => {
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
		let orange = 0;
		const colours = new Set();
		for (let i = 0; i < d.length; i += 4) {
			const l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
			sum += l;
			sum2 += l * l;
			colours.add((d[i] >> 4) * 256 + (d[i + 1] >> 4) * 16 + (d[i + 2] >> 4));
			// The demo arm's orange links (rgba 0.95 0.45 0.1), lit or in shade: red well above green, green
			// well above blue. Nothing else in the scene has that hue (grey grid, dark blue background).
			if (d[i] > 90 && d[i] > 1.4 * d[i + 1] && d[i + 1] > 1.5 * d[i + 2] + 10) {
				orange += 1;
			}
		}
		const n = d.length / 4;
		return { width: c.width, height: c.height, stddev: Math.sqrt(sum2 / n - (sum / n) ** 2), colours: colours.size, orange };
	}, png.toString('base64'));
}

describe('dashboard', { timeout: 120000 }, () => {
	let server;
	let browser;
	let page;
	let observer;
	let ids;
	let meshIds;
	let contactWorld;
	const pageErrors = [];

	before(async () => {
		fs.mkdirSync(ARTIFACTS, { recursive: true });
		server = await Server.start({ flags: ['--model-path', MESH_DIR] });
		ids = await createWorld(server.tcp);
		meshIds = await createMeshWorld(server.tcp);
		contactWorld = await createContactWorld(server.tcp);
		observer = await TcpClient.connect(server.tcp, 'browser-test-observer');
		browser = await launchBrowser();
		page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
		page.on('pageerror', (e) => pageErrors.push(e.message));
		page.setDefaultTimeout(15000);
	});

	after(async () => {
		observer?.close();
		contactWorld?.owner.close();
		await browser?.close();
		if (server) {
			await server.stop();
		}
	});

	let demo; // { world, articulation, dofs: { name: dof } } from DescribeWorld
	const row = (art, dof) => page.locator(`tr[data-key="a:${art}:${dof}"]`);
	const cell = (art, dof, field) => row(art, dof).locator(`td[data-field=${field}]`);

	it('loads and opens the demo robot', async () => {
		const response = await page.goto(server.url);
		assert.equal(response.status(), 200);
		assert.equal(await page.title(), 'Sinew dashboard');
		await page.locator('[data-testid=connection-state]', { hasText: 'connected' }).waitFor();
		const worlds = page.locator('[data-testid=world]');
		await waitFor('four worlds listed', async () => (await worlds.count()) === 4);
		const names = await worlds.allInnerTexts();
		assert.ok(names.some((n) => n.startsWith('demo')) && names.some((n) => n.startsWith(WORLD)), names.join(' | '));
		await page.locator('[data-testid=world-title]', { hasText: 'demo' }).waitFor();
		// The demo world is ownerless: the dashboard takes it over, so it may pause and reset it.
		await page.locator('[data-testid=role]', { hasText: 'owner' }).waitFor();
		assert.equal(await page.locator('[data-testid=time-mode]').innerText(), 'real time');
		// What the server describes, to compare with what the page shows.
		const listed = (await observer.ok({ listWorlds: {} })).worlds.worlds;
		const d = (await observer.ok({ describeWorld: { worldId: listed.find((w) => w.name === 'demo').worldId } })).description;
		const a = d.articulations[0];
		const info = listed.find((w) => w.name === 'demo');
		demo = { world: d.worldId, articulation: a.id, visuals: a.urdf.visuals.length, bodies: info.bodyCount, bodyShapes: d.shapes.filter((s) => s.bodyId !== '0').length, linkShapes: d.shapes.filter((s) => s.articulationId !== '0').length, dofs: Object.fromEntries(a.urdf.joints.filter((j) => j.dof >= 0).map((j) => [j.name, j.dof])) };
		assert.equal(d.name, 'demo');
	});

	it('draws the robot from its visual geometry (screenshot saved)', async () => {
		await waitFor('frames drawn', () => page.evaluate(() => window.sinewDashboard.framesRendered > 10));
		const drawn = await page.evaluate(() => window.sinewDashboard.drawn);
		// One mesh per URDF visual: no placeholder box for a link. The demo's bodies (its table and its box)
		// are drawn by their shapes, one mesh each; every shape of a body or link also has its wireframe
		// (hidden until the collision toggle is on); the world's ground plane is drawn once.
		assert.equal(demo.bodies, 2);
		assert.deepEqual(drawn, {
			objects: drawn.objects, meshes: demo.visuals + demo.bodyShapes, wireframes: demo.bodyShapes + demo.linkShapes,
			statics: 1, meshFiles: { loaded: 0, failed: 0 }, contacts: 0, described: true,
		});
		await sleep(300);
		const shot = await page.locator('[data-testid=view3d]').screenshot({ path: path.join(ARTIFACTS, 'dashboard-view.png') });
		await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png') });
		const stats = await measure(page, shot);
		// A drawn scene (floor grid, lit links) spreads luminance by well over 3 levels of 255 and uses
		// dozens of colours; a blank or failed canvas is one flat colour (stddev 0, 1 colour). The arm's
		// orange links cover 800 to 1700 pixels of this view as the demo moves (measured over 16 s); the
		// placeholder boxes drawn without a description are blue.
		assert.ok(stats.width > 200 && stats.height > 200, JSON.stringify(stats));
		assert.ok(stats.stddev > 3 && stats.colours > 20, `3D view looks blank: ${JSON.stringify(stats)}`);
		assert.ok(stats.orange > 200, `the robot's orange links are not drawn: ${JSON.stringify(stats)}`);
	});

	it('names the joints and keeps the table up to date with the stream', async () => {
		const a = demo.articulation;
		for (const [name, dof] of Object.entries(demo.dofs)) {
			assert.match(await row(a, dof).locator('td.name').innerText(), new RegExp(`^\\s*${name}`));
		}
		// The mimic follower has no drive: no slider, no target; the driven joints have both.
		assert.equal(await row(a, demo.dofs.finger_right_joint).locator('[data-testid=target-slider]').count(), 0);
		assert.equal(await row(a, demo.dofs.joint1).locator('[data-testid=target-slider]').count(), 1);
		const read = async () => Promise.all(Object.values(demo.dofs).map(async (dof) => Number(await cell(a, dof, 'position').innerText())));
		const first = await read();
		// The demo's pick-and-place never stands still for 0.6 s of its time (its holds last 0.3 s): within
		// 0.6 s some joint moves by far more than the 3 decimals shown. A server slowed by a sanitizer build
		// and the tests beside it may run the demo behind the wall clock, so the table is read again every
		// 0.6 s, for at most 6 s, until a joint has moved.
		let second = first;
		for (let tries = 0; tries < 10 && !first.some((q, i) => Math.abs(second[i] - q) > 0.01); ++tries) {
			await sleep(600);
			second = await read();
		}
		assert.ok(first.some((q, i) => Math.abs(second[i] - q) > 0.01), `no joint moved in 6 s: ${first} -> ${second}`);
		assert.notEqual(await cell(a, demo.dofs.joint1, 'target').innerText(), '–');
	});

	it('moves a joint with its slider', async () => {
		const a = demo.articulation;
		const slider = row(a, demo.dofs.joint2).locator('[data-testid=target-slider]');
		assert.equal(await slider.isEnabled(), true);
		await slider.fill('0.5');
		// The demo's drives (critically damped at 200 rad/s) reach a new target within a second; 0.05 rad
		// covers their gravity sag. The demo motion stands by once a client sets a target.
		const q = await waitFor('joint2 at its new target in the streamed state', async () => {
			const s = await observer.state(demo.world, pb.Include.INCLUDE_JOINT_POSITIONS);
			const joint2 = s.articulations[0].position[demo.dofs.joint2];
			return Math.abs(joint2 - 0.5) < 0.05 ? joint2 : null;
		}, 10000);
		assert.ok(Math.abs(q - 0.5) < 0.05);
		await waitFor('the table showing the target', async () => (await cell(a, demo.dofs.joint2, 'target').innerText()) === '0.500');
		await waitFor('the table showing the position', async () => Math.abs(Number(await cell(a, demo.dofs.joint2, 'position').innerText()) - 0.5) < 0.05);
	});

	it('pauses time, steps one tick, and plays again', async () => {
		await page.locator('[data-testid=pause]').click();
		await page.locator('[data-testid=time-mode]', { hasText: 'paused' }).waitFor();
		const paused = await observer.state(demo.world);
		const t1 = Number(paused.tick);
		// The last frame (the state where time stopped) follows the mode change: wait until it is shown.
		const shown = Number(paused.time).toFixed(3);
		await page.locator('[data-testid=sim-time]', { hasText: shown }).waitFor({ timeout: 5000 });
		await sleep(600);
		assert.equal(Number((await observer.state(demo.world)).tick), t1, 'ticks went on while paused');
		assert.equal(await page.locator('[data-testid=sim-time]').innerText(), shown);
		await page.locator('[data-testid=step]').click();
		await waitFor('one step', async () => Number((await observer.state(demo.world)).tick) === t1 + 1, 5000);
		await page.locator('[data-testid=tick]', { hasText: String(t1 + 1) }).waitFor();
		await page.locator('[data-testid=play]').click();
		await page.locator('[data-testid=time-mode]', { hasText: 'real time' }).waitFor();
		await waitFor('time going again', async () => Number((await observer.state(demo.world)).tick) > t1 + 50, 5000);
		await waitFor('a measured real-time factor', async () => {
			const rtf = Number(await page.locator('[data-testid=rtf]').innerText());
			return rtf > 0.5 && rtf < 1.5;
		}, 5000);
	});

	it('opens another world from the list', async () => {
		await page.locator('[data-testid=world]', { hasText: WORLD }).click();
		await page.locator('[data-testid=world-title]', { hasText: WORLD }).waitFor();
		await page.locator('[data-testid=role]', { hasText: 'owner' }).waitFor();
		const a = ids.articulation;
		await row(a, 0).waitFor();
		// Described from the core (no URDF): joints named after their links; only the elbow has a drive.
		assert.match(await row(a, 0).locator('td.name').innerText(), /link 1/);
		assert.equal(await row(a, 0).locator('[data-testid=target-slider]').count(), 0);
		assert.equal(await row(a, 1).locator('[data-testid=target-slider]').count(), 1);
		const first = Number(await cell(a, 0, 'position').innerText());
		// The shoulder turns at 1 rad/s: in 0.5 s it moves ~0.5 rad.
		await sleep(500);
		const second = Number(await cell(a, 0, 'position').innerText());
		assert.ok(Math.abs(second - first) > 0.1, `shoulder position did not change: ${first} -> ${second}`);
		assert.ok(Math.abs(Number(await cell(a, 0, 'velocity').innerText()) - 1.0) < 0.05);
		await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-second-world.png') });
	});

	it('draws a robot of mesh files from its meshes, as one body, and names a clicked link', async (t) => {
		await page.locator('[data-testid=world]', { hasText: MESH_WORLD }).click();
		await page.locator('[data-testid=world-title]', { hasText: MESH_WORLD }).waitFor();
		// Two mesh files: the base's and the arm's visuals (mesh collisions are convex hulls, sent as points).
		const drawn = await waitFor('the meshes fetched', async () => {
			const s = await page.evaluate(() => window.sinewDashboard.drawn);
			return s.meshFiles.loaded + s.meshFiles.failed >= 2 && s.objects === 2 ? s : null;
		});
		assert.equal(drawn.meshFiles.failed, 0, JSON.stringify(drawn));
		assert.equal(drawn.meshes, 2, JSON.stringify(drawn)); // one mesh per visual: no placeholder
		await page.locator('[data-testid=fit-view]').click();
		await sleep(300);
		const shot = await page.locator('[data-testid=view3d]').screenshot({ path: path.join(ARTIFACTS, 'dashboard-meshbot.png') });
		const stats = await measureColours(page, shot);
		t.diagnostic(`meshbot pixels: ${JSON.stringify(stats)}`);
		// The base (a 0.1 m cube, red) and the arm on it (0.1 x 0.1 x 0.4 m, blue) touch: one region holds
		// both. Fitted to a 1.5 m view in this 600 x 780 canvas they cover thousands of pixels each; 300 is
		// far above what antialiased edges alone could make.
		assert.ok(stats.region.red > 300 && stats.region.blue > 300, `the meshbot is not one red and blue body: ${JSON.stringify(stats)}`);
		assert.ok(stats.region.red > 0.9 * stats.red && stats.region.blue > 0.9 * stats.blue, `parts of the meshbot are apart: ${JSON.stringify(stats)}`);
		// A click on the arm names it and its joint.
		const at = await page.evaluate((key) => window.sinewDashboard.view.screenPosition(key), `a:${meshIds.articulation}:1`);
		await page.locator('[data-testid=view3d-canvas]').click({ position: at });
		const info = page.locator('[data-testid=pick-info]');
		await info.waitFor({ state: 'visible' });
		assert.match(await info.innerText(), /link arm[\s\S]*joint shoulder \(revolute\)[\s\S]*robot meshbot/);
		// The toggles: collision shapes as light green wireframes (two hulls, a sphere, a box and a cylinder);
		// link frames as axes drawn over the links (two frames of three 0.1 m lines, some 40 pixels long
		// each here: about 200 pixels change, the antialiased lines counted where they differ by 40 levels).
		const view = page.locator('[data-testid=view3d]');
		for (const box of ['show-collision', 'show-frames']) {
			const before = await view.screenshot();
			await page.locator(`[data-testid=${box}]`).check();
			await sleep(300);
			const shown = await view.screenshot({ path: path.join(ARTIFACTS, `dashboard-meshbot-${box}.png`) });
			await page.locator(`[data-testid=${box}]`).uncheck();
			await sleep(300);
			const after = await view.screenshot();
			const on = await changedPixels(page, before, shown);
			const off = await changedPixels(page, before, after);
			const wire = (await measureColours(page, shown)).wire;
			t.diagnostic(`${box}: ${on} pixels change when on, ${off} when off again; ${wire} wireframe-green pixels`);
			assert.ok(on > 100 && off < 5, `${box}: ${on} pixels change when on, ${off} when off again`);
			if (box === 'show-collision') {
				assert.ok(wire > 300, `no wireframes: ${wire} pixels`);
			}
		}
		// The joint table heads the robot's joints with its name.
		assert.match(await page.locator('[data-testid=joint-group]').first().innerText(), /^meshbot/);
	});

	it('draws contact force arrows when the contacts toggle is on', async (t) => {
		await page.locator('[data-testid=world]', { hasText: CONTACT_WORLD }).click();
		await page.locator('[data-testid=world-title]', { hasText: CONTACT_WORLD }).waitFor();
		await waitFor('the box drawn', async () => (await page.evaluate(() => window.sinewDashboard.drawn)).objects === 1);
		await sleep(500);
		const off = await measureColours(page, await page.locator('[data-testid=view3d]').screenshot());
		assert.equal(off.magenta, 0, 'arrows drawn with contacts off');
		assert.match(await page.locator('label', { has: page.locator('[data-testid=show-contacts]') }).innerText(), /1 cm per N/);
		await page.locator('[data-testid=show-contacts]').check();
		// The box rests on 4 points (a face on a plane).
		await waitFor('contacts drawn', async () => (await page.evaluate(() => window.sinewDashboard.drawn)).contacts >= 4);
		await sleep(300);
		const shot = await page.locator('[data-testid=view3d]').screenshot({ path: path.join(ARTIFACTS, 'dashboard-contacts.png') });
		const on = await measureColours(page, shot);
		t.diagnostic(`contact arrow pixels: off ${off.magenta}, on ${on.magenta}`);
		// 78.5 N over 4 points: arrows of about 20 cm each, up from the box's bottom corners; those in
		// front of the box show. 200 pixels is far more than the antialiasing of anything else could make.
		assert.ok(on.magenta > 200, `no contact arrows: ${JSON.stringify(on)}`);
		await page.locator('[data-testid=show-contacts]').uncheck();
		// A body made while the world is shown is described again: drawn by its shape (it has a wireframe),
		// not as a placeholder.
		await contactWorld.owner.ok({ createBody: { worldId: contactWorld.world, body: { pose: { position: { x: 0.4, z: 0.1 } } }, shapes: [{ sphere: { radius: 0.1 } }], density: 1000 } });
		await waitFor('the new body drawn by its shape', async () => {
			const s = await page.evaluate(() => window.sinewDashboard.drawn);
			return s.objects === 2 && s.meshes === 2 && s.wireframes === 2;
		}, 10000);
		// Back to the demo, which this page owns (the tests below expect it).
		await page.locator('[data-testid=world]', { hasText: 'demo' }).click();
		await page.locator('[data-testid=role]', { hasText: 'owner' }).waitFor();
	});

	it('a second tab joins the demo as a controller and says so on the page', async () => {
		// The first page owns the demo world (it took it over); a second one gets what is left.
		const second = await browser.newPage({ viewport: { width: 1400, height: 820 } });
		second.on('pageerror', (e) => pageErrors.push(e.message));
		try {
			await second.goto(`${server.url}?world=demo`);
			await second.locator('[data-testid=role]', { hasText: 'controller' }).waitFor({ timeout: 15000 });
			const roleNote = second.locator('[data-testid=role-note]');
			await roleNote.waitFor({ state: 'visible' });
			assert.match(await roleNote.innerText(), /Another client owns this world.*joined as a controller/);
			assert.equal(await second.locator('[data-testid=play]').isDisabled(), true);
			assert.equal(await page.locator('[data-testid=role-note]').isHidden(), true, 'the owner page has no role note');
		} finally {
			await second.close();
		}
	});

	it('says when ?world= names no world, and when the world shown goes away', async () => {
		const other = await browser.newPage({ viewport: { width: 1400, height: 820 } });
		other.on('pageerror', (e) => pageErrors.push(e.message));
		let script = null;
		try {
			await other.goto(`${server.url}?world=nowhere`);
			const worldNote = other.locator('[data-testid=world-note]');
			await worldNote.waitFor({ state: 'visible', timeout: 15000 });
			assert.match(await worldNote.innerText(), /No world is named "nowhere" on this server \(worlds: .*"demo"/);
			await other.locator('[data-testid=world-title]', { hasText: 'demo' }).waitFor();
			// A script's world (not kept): shown by name, then gone when the script disconnects.
			script = await TcpClient.connect(server.tcp, 'browser-test-script');
			await script.ok({ createWorld: { name: 'script-world', settings: { timeStep: 0.002 } } });
			await other.goto(`${server.url}?world=script-world`);
			await other.locator('[data-testid=world-title]', { hasText: 'script-world' }).waitFor({ timeout: 15000 });
			assert.equal(await worldNote.isHidden(), true);
			script.close();
			script = null;
			await worldNote.waitFor({ state: 'visible', timeout: 15000 });
			assert.match(await worldNote.innerText(), /World "script-world" is gone: .*keep_after_disconnect/);
			await other.screenshot({ path: path.join(ARTIFACTS, 'dashboard-world-gone.png') });
		} finally {
			script?.close();
			await other.close();
		}
	});

	it('shows a banner when the server goes away, and reconnects when it is back', async () => {
		// The user turns the camera on the demo world; it is kept across the reconnection.
		await page.locator('[data-testid=world]', { hasText: 'demo' }).click();
		await page.locator('[data-testid=world-title]', { hasText: 'demo' }).waitFor();
		await sleep(500);
		const canvas = await page.locator('[data-testid=view3d-canvas]').boundingBox();
		await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
		await page.mouse.down();
		await page.mouse.move(canvas.x + canvas.width / 2 + 120, canvas.y + canvas.height / 2 + 40, { steps: 8 });
		await page.mouse.up();
		const camera = () => page.evaluate(() => window.sinewDashboard.view.camera.position.toArray());
		const placed = await camera();
		const { tcp, ws } = server;
		observer.close();
		observer = null;
		contactWorld.owner.close();
		contactWorld = null;
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
		const again = await camera();
		assert.ok(again.every((v, i) => Math.abs(v - placed[i]) < 1e-9), `the camera moved: ${placed} -> ${again}`);
		// A reset frames the world again.
		await page.locator('[data-testid=role]', { hasText: 'owner' }).waitFor();
		await page.locator('[data-testid=reset]').click();
		await waitFor('the camera framing the world after the reset', async () => {
			const now = await camera();
			return now.some((v, i) => Math.abs(v - placed[i]) > 0.01);
		}, 5000);
		assert.deepEqual(pageErrors, []);
	});
});
