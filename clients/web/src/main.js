// The dashboard: connects to the sinewd that served the page, lists its worlds, and for the selected one
// shows a live 3D view, a joint table with target sliders, a plot, time controls, the time mode and the
// measured real-time factor. When the server goes away a banner says so and the page reconnects by
// itself, picking the same world again (by name) when it comes back. Under the 3D view: a button that
// frames everything, and toggles for collision shapes, contacts (asked of the server only while shown)
// and link frames; clicking a link names it and its joint.
import { Connection } from './connection.js';
import { Include, Role, TimeMode, modeName, roleName, shortId } from './protocol.js';
import { CONTACT_M_PER_N, View3D } from './view3d.js';
import { MeshCache } from './meshes.js';
import { JointTable } from './joints.js';
import { Plot } from './plot.js';
import { describeWorld } from './describe.js';

const STREAM_RATE_HZ = 30;
const STREAM_INCLUDE = Include.INCLUDE_POSES | Include.INCLUDE_VELOCITIES | Include.INCLUDE_JOINT_POSITIONS | Include.INCLUDE_DRIVE_EFFORTS | Include.INCLUDE_DRIVE_TARGETS;
// Contacts make frames larger: they are asked for only while the contacts toggle is on.
const streamInclude = () => STREAM_INCLUDE | ($('show-contacts').checked ? Include.INCLUDE_CONTACTS : 0);
const WORLD_LIST_INTERVAL_MS = 1000;
const TARGET_INTERVAL_MS = 50; // slider targets are sent at most 20 times a second
const RTF_WINDOW_S = 1.0;
const PLOT_DEFAULT_ROWS = 2; // the first joints are plotted when a world is opened
const REDESCRIBE_MS = 2000; // a world whose articulations changed is described again at most this often

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

const app = {
	worlds: [],
	selected: null, // { id, name, role, subscriptionId, info }
	wanted: params.get('world'), // a world name to select (the URL's ?world=, then whatever the user picks)
	generation: 0,
	rtfSamples: [],
	latestFrame: null,
	framesReceived: 0,
	pendingTargets: new Map(), // articulation id -> Map(dof -> value)
	targetTimer: null,
	listTimer: null,
};

const meshes = new MeshCache(undefined, (hex, err) => message(`mesh ${hex.slice(0, 12)}… not drawn: ${err.message}`));
const view = new View3D($('view'), { meshes, onPick: showPick });
const plot = new Plot($('plot'), $('plot-legend'));
const table = new JointTable($('joint-rows'), {
	onTarget: (row, value) => queueTarget(row.articulationId, row.dof, value),
	onPlot: (row, on) => plot.toggle(row.key, row.label, on),
});

const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
const conn = new Connection(wsUrl, { name: 'dashboard', token: params.get('token') ?? '' }, {
	onStatus: showStatus,
	onOpen: opened,
	onState: frameArrived,
	onEvent: eventArrived,
});

// ---- connection state ---------------------------------------------------------------------------------

function showStatus(s) {
	const pill = $('connection');
	pill.className = `pill ${s.state}`;
	const banner = $('banner');
	if (s.state === 'open') {
		pill.textContent = 'connected';
		banner.hidden = true;
		return;
	}
	if (s.state === 'connecting') {
		pill.textContent = 'connecting…';
		return;
	}
	pill.textContent = 'disconnected';
	banner.hidden = false;
	const wait = Math.max(0, Math.round((s.retryAt - Date.now()) / 100) / 10);
	banner.textContent = `The server at ${location.host} is not reachable (${s.reason}). Reconnecting${s.attempt > 1 ? ` (attempt ${s.attempt})` : ''} in ${wait.toFixed(1)} s…`;
	setControls(false);
	table.setControllable(false);
	if (app.selected) {
		app.selected.subscriptionId = null;
	}
}

function opened(hs) {
	$('server-info').textContent = `sinewd ${hs.serverVersion} · session ${shortId(hs.sessionId)}`;
	message('');
	if (app.selected) {
		// A new session: the old subscription and role are gone; open the world again below.
		app.wanted = app.wanted ?? app.selected.name;
		app.selected = null;
	}
	refreshWorlds();
	if (!app.listTimer) {
		app.listTimer = setInterval(refreshWorlds, WORLD_LIST_INTERVAL_MS);
	}
}

function message(text) {
	$('message').textContent = text;
}

// A note above the controls that stays until it no longer applies: what happened to the world shown
// (gone, or the ?world= asked for is not there), and what this page's role in it allows.
function note(id, text) {
	$(id).textContent = text;
	$(id).hidden = !text;
}

// A script's world goes with its connection unless it was created with keep_after_disconnect: say so
// where people look when the world they watch disappears.
const GONE_HINT = 'A world a script creates is destroyed when the script disconnects, unless it was created with keep_after_disconnect.';


function failed(what) {
	return (err) => message(`${what}: ${err.serverMessage ?? err.message}`);
}

// ---- worlds -------------------------------------------------------------------------------------------

async function refreshWorlds() {
	if (conn.status.state !== 'open') {
		return;
	}
	let reply;
	try {
		reply = await conn.request('listWorlds', {});
	} catch {
		return; // the connection's banner says what happened
	}
	app.worlds = reply.worlds.worlds;
	renderWorlds();
	const sel = app.selected;
	if (sel) {
		const info = app.worlds.find((w) => w.worldId === sel.id);
		if (!info) {
			worldGone(sel, 'it is no longer on the server');
		} else {
			sel.info = info;
			showInfo(info);
		}
	}
	if (!app.selected && app.wanted && !app.worlds.some((w) => w.name === app.wanted)) {
		const names = app.worlds.map((w) => `"${w.name || shortId(w.worldId)}"`).join(', ') || 'none';
		note('world-note', `No world is named "${app.wanted}" on this server (worlds: ${names}).${app.worlds.length > 0 ? ' Showing another one.' : ''}`);
		app.wanted = null;
	}
	if (!app.selected && app.worlds.length > 0) {
		const pick = app.worlds.find((w) => w.name === app.wanted) ?? app.worlds.find((w) => w.name === 'demo') ?? app.worlds[0];
		openWorld(pick);
	}
}

// The list keeps its items from one refresh to the next (only their text changes), so that a click is
// not lost to an item replaced under the pointer.
const worldItems = new Map(); // world id -> { li, name, meta }

function renderWorlds() {
	$('worlds-empty').hidden = app.worlds.length > 0;
	const items = app.worlds.map((w) => {
		let item = worldItems.get(w.worldId);
		if (!item) {
			const li = document.createElement('li');
			li.dataset.worldId = w.worldId;
			li.dataset.testid = 'world';
			const name = document.createElement('div');
			const meta = document.createElement('div');
			meta.className = 'meta';
			li.append(name, meta);
			item = { li, name, meta, world: w };
			li.addEventListener('click', () => {
				app.wanted = item.world.name;
				note('world-note', '');
				openWorld(item.world);
			});
			worldItems.set(w.worldId, item);
		}
		item.world = w;
		item.li.className = app.selected?.id === w.worldId ? 'selected' : '';
		setText(item.name, w.name || `world ${shortId(w.worldId)}`);
		setText(item.meta, `${modeName(w.mode)} · ${Number(w.time).toFixed(1)} s · ${w.articulationCount} artic. · ${w.bodyCount} bodies${w.diverged ? ' · diverged' : ''}`);
		return item.li;
	});
	const ids = new Set(app.worlds.map((w) => w.worldId));
	for (const id of worldItems.keys()) {
		if (!ids.has(id)) {
			worldItems.delete(id);
		}
	}
	const list = $('worlds');
	if (items.length !== list.children.length || items.some((li, i) => list.children[i] !== li)) {
		list.replaceChildren(...items);
	}
}

function setText(el, text) {
	if (el.textContent !== text) {
		el.textContent = text;
	}
}

function worldGone(sel, why) {
	note('world-note', `World "${sel.name || shortId(sel.id)}" is gone: ${why}. ${GONE_HINT}`);
	if (app.wanted === sel.name) {
		app.wanted = null;
	}
	closeWorld();
}

function closeWorld() {
	const sel = app.selected;
	if (sel?.subscriptionId) {
		conn.request('unsubscribe', { subscriptionId: sel.subscriptionId }).catch(() => {});
	}
	app.selected = null;
	app.generation += 1;
	app.latestFrame = null;
	app.rtfSamples = [];
	view.clear();
	showPick(null);
	table.clear();
	plot.clear();
	$('world-title').textContent = '';
	$('role').textContent = '';
	note('role-note', '');
	setControls(false);
	renderWorlds();
}

// Join the world with the most say it will give (the owner of an ownerless world, else a controller,
// else an observer), describe it, and subscribe to its state.
async function openWorld(info) {
	if (app.selected?.id === info.worldId) {
		return;
	}
	closeWorld();
	const generation = app.generation;
	const sel = { id: info.worldId, name: info.name, role: Role.ROLE_OBSERVER, subscriptionId: null, info, description: null };
	app.selected = sel;
	renderWorlds();
	$('world-title').textContent = info.name || `world ${shortId(info.worldId)}`;
	showInfo(info);
	const attempts = info.ownerSession === '0' ? [Role.ROLE_OWNER, Role.ROLE_CONTROLLER] : [Role.ROLE_CONTROLLER];
	for (const role of attempts) {
		try {
			const reply = await conn.request('joinWorld', { worldId: info.worldId, role });
			sel.role = reply.joined.role;
			break;
		} catch {
			// someone else owns it, or this session may not control it: try the next role
		}
	}
	if (generation !== app.generation) {
		return;
	}
	$('role').textContent = `you: ${roleName(sel.role)}`;
	note('role-note', roleNote(sel.role));
	try {
		sel.description = await describeWorld(conn, info.worldId);
		sel.describedAt = performance.now();
	} catch (err) {
		sel.description = null;
		message(`no description of this world (${err.serverMessage ?? err.message}); links are drawn as boxes`);
	}
	if (generation !== app.generation) {
		return;
	}
	view.setWorld(info.name || info.worldId);
	view.setDescription(sel.description);
	table.setDescription(sel.description);
	await subscribe(sel, generation);
	setControls(true);
}

// Subscribe to the selected world's state with what the toggles need, then drop the subscription this
// one replaces (frames of the old one are ignored from now on).
async function subscribe(sel, generation) {
	const old = sel.subscriptionId;
	const include = streamInclude();
	try {
		const reply = await conn.request('subscribe', { worldId: sel.id, rateHz: STREAM_RATE_HZ, include });
		if (generation !== app.generation) {
			conn.request('unsubscribe', { subscriptionId: reply.created.id }).catch(() => {});
			return;
		}
		sel.subscriptionId = reply.created.id;
		sel.include = include;
		if (old) {
			conn.request('unsubscribe', { subscriptionId: old }).catch(() => {});
		}
		if (include !== streamInclude()) {
			await subscribe(sel, generation); // a toggle changed while this one was asked for
		}
	} catch (err) {
		failed('subscribe')(err);
	}
}

// What this page may do in the world, when it is less than its owner.
function roleNote(role) {
	if (role === Role.ROLE_CONTROLLER) {
		return 'Another client owns this world (another tab or a script), so this page joined as a controller: it can move joints and step the world when it is paused; play, pause and reset are for its owner.';
	}
	if (role === Role.ROLE_OBSERVER) {
		return 'This page only observes this world: it shows it but cannot change it.';
	}
	return '';
}

function showInfo(info) {
	const rate = info.mode === TimeMode.TIME_REALTIME && info.rate !== 1 ? ` ×${Number(info.rate).toFixed(2)}` : '';
	$('mode').textContent = `${modeName(info.mode)}${rate}`;
	setControls(true);
}

// ---- the 3D view's tools ---------------------------------------------------------------------------------

$('contact-scale').textContent = `(arrows ${(CONTACT_M_PER_N * 100).toFixed(0)} cm per N)`;
$('fit-view').addEventListener('click', () => view.fit());
for (const [box, what] of [['show-collision', 'collision'], ['show-frames', 'frames'], ['show-contacts', 'contacts']]) {
	$(box).addEventListener('change', () => {
		view.setShown(what, $(box).checked);
		const sel = app.selected;
		if (what === 'contacts' && sel?.subscriptionId && sel.include !== streamInclude()) {
			subscribe(sel, app.generation);
		}
	});
	view.setShown(what, $(box).checked); // a reloaded page may keep the boxes checked
}

// What a click in the 3D view hit: a link (its name, its inbound joint, its robot) or a body.
function showPick(picked) {
	const box = $('pick-info');
	const sel = app.selected;
	if (!picked || !sel) {
		box.hidden = true;
		box.replaceChildren();
		return;
	}
	const line = (text, cls) => {
		const div = document.createElement('div');
		div.textContent = text;
		if (cls) {
			div.className = cls;
		}
		return div;
	};
	const lines = [];
	if (picked.kind === 'a') {
		const a = sel.description?.articulationsById?.get(picked.id);
		const link = a?.links?.[picked.link];
		lines.push(line(`link ${link?.name ?? picked.link}`));
		lines.push(line(link?.joint ? `joint ${link.joint.name} (${link.joint.type})` : 'the base link: no joint'));
		lines.push(line(`${a?.robot ? `robot ${a.robot}` : 'articulation'} ${shortId(picked.id)} · link ${picked.link}`, 'muted'));
	} else {
		lines.push(line(`body ${shortId(picked.id)}`));
		const shapes = sel.description?.shapesByKey?.get(picked.key) ?? [];
		lines.push(line(shapes.length > 0 ? shapes.map((s) => s.type).join(', ') : 'no shapes', 'muted'));
	}
	box.replaceChildren(...lines);
	box.hidden = false;
}

// ---- controls -----------------------------------------------------------------------------------------

function setControls(on) {
	const sel = app.selected;
	const open = on && sel && conn.status.state === 'open';
	const owner = open && sel.role === Role.ROLE_OWNER;
	const controller = open && (sel.role === Role.ROLE_OWNER || sel.role === Role.ROLE_CONTROLLER);
	const paused = sel?.info?.mode === TimeMode.TIME_PAUSED;
	$('play').disabled = !owner;
	$('pause').disabled = !owner;
	$('reset').disabled = !owner;
	$('step').disabled = !controller || !paused;
	table.setControllable(Boolean(controller));
	for (const b of ['play', 'pause', 'reset', 'step']) {
		$(b).title = $(b).disabled && open ? `needs ${b === 'step' ? 'a controller of a paused world' : 'the world\'s owner'}` : '';
	}
}

async function setMode(mode) {
	const sel = app.selected;
	if (!sel) {
		return;
	}
	try {
		await conn.request('setTimeMode', { worldId: sel.id, time: { mode, rate: 1 } });
		message('');
		await refreshWorlds();
	} catch (err) {
		failed('time mode')(err);
	}
}

$('play').addEventListener('click', () => setMode(TimeMode.TIME_REALTIME));
$('pause').addEventListener('click', () => setMode(TimeMode.TIME_PAUSED));
$('step').addEventListener('click', () => {
	if (app.selected) {
		conn.request('step', { worldId: app.selected.id, count: 1 }).then(() => message(''), failed('step'));
	}
});
$('reset').addEventListener('click', () => {
	if (app.selected) {
		conn.request('reset', { worldId: app.selected.id }).then(() => {
			message('');
			app.rtfSamples = [];
		}, failed('reset'));
	}
});

function queueTarget(articulationId, dof, value) {
	if (!app.pendingTargets.has(articulationId)) {
		app.pendingTargets.set(articulationId, new Map());
	}
	app.pendingTargets.get(articulationId).set(dof, value);
	if (!app.targetTimer) {
		sendTargets();
		app.targetTimer = setTimeout(function again() {
			app.targetTimer = null;
			if (app.pendingTargets.size > 0) {
				sendTargets();
				app.targetTimer = setTimeout(again, TARGET_INTERVAL_MS);
			}
		}, TARGET_INTERVAL_MS);
	}
}

function sendTargets() {
	const sel = app.selected;
	if (!sel) {
		app.pendingTargets.clear();
		return;
	}
	for (const [articulationId, dofs] of app.pendingTargets) {
		conn.request('setDriveTargets', {
			worldId: sel.id,
			articulation: { articulationId, dofs: [...dofs.keys()], positions: [...dofs.values()] },
		}).catch(failed('drive target'));
	}
	app.pendingTargets.clear();
}

// ---- state and events ---------------------------------------------------------------------------------

// An articulation or a body the description does not know (made after the world was opened): describe
// again. A body is known by its shapes; one that has none even in a newer description is remembered as
// shapeless, so that it asks for one description, not one every REDESCRIBE_MS.
function redescribeIfNew(sel, frame) {
	const d = sel.description;
	const known = d?.articulationsById;
	if (!known || sel.describing || performance.now() - (sel.describedAt ?? 0) < REDESCRIBE_MS) {
		return;
	}
	sel.shapeless ??= new Set();
	const newBody = (b) => !d.shapesByKey?.has(`b:${b.id}`) && !sel.shapeless.has(b.id);
	if (frame.articulations.every((a) => known.has(a.id)) && !frame.bodies.some(newBody)) {
		return;
	}
	sel.describing = true;
	sel.describedAt = performance.now();
	const bodies = frame.bodies.map((b) => b.id);
	describeWorld(conn, sel.id).then((fresh) => {
		if (app.selected === sel) {
			for (const id of bodies) {
				if (!fresh.shapesByKey.has(`b:${id}`)) {
					sel.shapeless.add(id);
				}
			}
			sel.description = fresh;
			view.setDescription(fresh);
			table.setDescription(fresh);
		}
	}, () => {}).finally(() => {
		sel.describing = false;
	});
}

function frameArrived(frame) {
	const sel = app.selected;
	if (!sel || frame.subscriptionId !== sel.subscriptionId) {
		return;
	}
	redescribeIfNew(sel, frame);
	if (app.latestFrame && Number(frame.tick) < Number(app.latestFrame.tick)) {
		view.refit(); // a reset (or a restore): frame the world again
	}
	app.latestFrame = frame;
	app.framesReceived += 1;
	view.update(frame);
	const firstRows = table.rows.size === 0;
	table.update(frame);
	if (firstRows) {
		let n = 0;
		for (const row of table.rows.values()) {
			if (n < PLOT_DEFAULT_ROWS) {
				row.plotBox.checked = true;
				plot.toggle(row.key, row.label, true);
				n += 1;
			}
		}
	}
	plot.add(frame.time, (key) => table.valueOf(frame, key));
	$('sim-time').textContent = Number(frame.time).toFixed(3);
	$('tick').textContent = frame.tick;
	measureRtf(frame);
}

function measureRtf(frame) {
	const wall = Number(frame.serverClockNs) / 1e9;
	const samples = app.rtfSamples;
	if (samples.length > 0 && frame.time < samples[samples.length - 1].sim) {
		samples.length = 0; // time went back: reset or restore
	}
	samples.push({ wall, sim: frame.time });
	while (samples.length > 2 && wall - samples[0].wall > RTF_WINDOW_S) {
		samples.shift();
	}
	showRtf();
}

function showRtf() {
	const samples = app.rtfSamples;
	const sel = app.selected;
	if (sel?.info?.mode === TimeMode.TIME_PAUSED) {
		$('rtf').textContent = 'paused';
		return;
	}
	if (samples.length < 2) {
		$('rtf').textContent = '–';
		return;
	}
	const a = samples[0];
	const b = samples[samples.length - 1];
	const dw = b.wall - a.wall;
	$('rtf').textContent = dw > 0 ? ((b.sim - a.sim) / dw).toFixed(2) : '–';
}

function eventArrived(event) {
	const sel = app.selected;
	const mine = sel && event.worldId === sel.id;
	switch (event.event) {
		case 'timeMode':
			if (mine) {
				sel.info = { ...sel.info, mode: event.timeMode.time.mode, rate: event.timeMode.time.rate ?? 1 };
				showInfo(sel.info);
				app.rtfSamples = [];
				showRtf();
			}
			break;
		case 'diverged':
			if (mine) {
				message(`the world diverged at t = ${Number(event.diverged.time).toFixed(3)} s: ${event.diverged.detail} (reset it)`);
			}
			break;
		case 'destroyed':
			if (mine) {
				worldGone(sel, `destroyed (${event.destroyed.reason})`);
				refreshWorlds();
			}
			break;
		case 'demoted':
			if (mine) {
				message(`a lockstep controller was demoted: ${event.demoted.reason}`);
			}
			break;
		default:
	}
}

// Read-only hooks for tests and the curious (window.sinewDashboard in the console).
window.sinewDashboard = {
	get connection() {
		return conn.status.state;
	},
	get selectedWorld() {
		return app.selected ? { id: app.selected.id, name: app.selected.name, role: roleName(app.selected.role) } : null;
	},
	get framesReceived() {
		return app.framesReceived;
	},
	get framesRendered() {
		return view.frameCount;
	},
	get drawn() {
		return view.stats();
	},
	get latestFrame() {
		return app.latestFrame;
	},
	get view() {
		return view;
	},
	get description() {
		return app.selected?.description ?? null;
	},
};

setControls(false);
conn.start();
// The banner counts down to the next attempt.
setInterval(() => {
	if (conn.status.state === 'down') {
		showStatus(conn.status);
	}
}, 250);
