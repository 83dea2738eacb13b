// The 3D view: one three.js group per body and per articulation link, placed at the poses of each state
// frame. A group holds the link's URDF visuals (meshes fetched once by hash, see meshes.js) when the
// world's description gives them, else the collision shapes on it drawn solid, else a small placeholder
// box; beside them its collision shapes as a wireframe and its frame as axes, each shown by a toggle. The
// world's own shapes are drawn once (a plane as the ground). Contacts of a frame are drawn as points with
// arrows of their force; other overlays (setOverlay) live in their own group. Clicking a link or body
// names it (onPick). The camera frames everything on the first frame of a world and after a reset, unless
// the user placed it for this world before (kept in sessionStorage, so across reconnects and reloads).
// The world is z-up, in metres. Rendering happens only when something changed.
import {
	AmbientLight, AxesHelper, BoxGeometry, Color, ConeGeometry, CylinderGeometry, DirectionalLight, GridHelper,
	Group, HemisphereLight, Mesh, MeshBasicMaterial, MeshStandardMaterial, PerspectiveCamera, Raycaster, Scene,
	SphereGeometry, Vector2, Vector3, WebGLRenderer, Box3,
} from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { groundObject, shapeObject, visualObject } from './visuals.js';

const PLACEHOLDER_BODY_M = 0.1;
const PLACEHOLDER_LINK_M = 0.06;
const PALETTE = [0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948, 0xb07aa1, 0x9c755f];
const AXES_M = 0.1; // link frame axes: x red, y green, z blue, drawn over everything
// Contact forces: an arrow of this many metres per newton from the contact point (the label says so).
export const CONTACT_M_PER_N = 0.01;
export const CONTACT_ARROW_COLOUR = 0xff00ff;
const CONTACT_POINT_COLOUR = 0xffd400;
const CONTACT_POINT_M = 0.008; // radius of a contact point's dot
const ARROW_SHAFT_M = 0.004; // shaft radius
const ARROW_HEAD_M = 0.03; // head length at most; head radius 0.4 of it
const MIN_ARROW_N = 1e-3; // forces below this draw no arrow
const PICK_SLOP_PX = 4; // a click moves the pointer less than this; more is a camera drag
const CAMERA_KEY = 'sinew.camera.';

export class View3D {
	// meshes: the mesh cache (meshes.js); onPick({ key, kind, id, link } | null): the user clicked something
	// drawn (or nothing).
	constructor(container, { meshes = null, onPick = null } = {}) {
		this.container = container;
		this.meshes = meshes;
		this.onPick = onPick;
		this.objects = new Map(); // key -> Group
		this.description = null;
		this.fitted = false;
		this.autoFitted = false; // the camera is where fit() put it: refit when meshes arrive
		this.cameraKey = null;
		this.frameCount = 0;
		this.show = { collision: false, frames: false, contacts: false };
		this.contactCount = 0;
		try {
			this.renderer = new WebGLRenderer({ antialias: true });
		} catch (e) {
			this.renderer = null;
			container.textContent = `The 3D view needs WebGL, which this browser does not provide (${e.message}).`;
			container.classList.add('no-webgl');
			return;
		}
		this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
		this.renderer.setClearColor(new Color(0x1d2330));
		container.appendChild(this.renderer.domElement);
		this.renderer.domElement.dataset.testid = 'view3d-canvas';

		this.scene = new Scene();
		this.camera = new PerspectiveCamera(45, 1, 0.01, 500);
		this.camera.up.set(0, 0, 1);
		this.camera.position.set(2.5, -3.0, 2.0);
		this.controls = new OrbitControls(this.camera, this.renderer.domElement);
		this.controls.target.set(0, 0, 0.5);
		this.controls.addEventListener('change', () => this.requestRender());
		this.controls.addEventListener('start', () => (this.autoFitted = false));
		this.controls.addEventListener('end', () => this.saveCamera());
		this.controls.update();

		this.scene.add(new HemisphereLight(0xdde6ff, 0x303030, 1.4));
		this.scene.add(new AmbientLight(0xffffff, 0.25));
		const sun = new DirectionalLight(0xffffff, 1.6);
		sun.position.set(3, -4, 6);
		this.scene.add(sun);
		const grid = new GridHelper(10, 40, 0x6b7890, 0x3a4252);
		grid.rotation.x = Math.PI / 2; // GridHelper lies in x-z; the world's floor is x-y
		this.scene.add(grid);
		this.statics = new Group(); // the world's own shapes, in world coordinates
		this.scene.add(this.statics);
		this.root = new Group();
		this.scene.add(this.root);
		this.overlays = new Group(); // name -> object, in world coordinates (setOverlay)
		this.scene.add(this.overlays);
		this.contacts = new Contacts();
		this.scene.add(this.contacts.group);

		this.watchClicks();
		this.resizeObserver = new ResizeObserver(() => this.resize());
		this.resizeObserver.observe(container);
		this.resize();
	}

	resize() {
		if (!this.renderer) {
			return;
		}
		const w = Math.max(1, this.container.clientWidth);
		const h = Math.max(1, this.container.clientHeight);
		this.renderer.setSize(w, h, false);
		this.camera.aspect = w / h;
		this.camera.updateProjectionMatrix();
		this.requestRender();
	}

	requestRender() {
		if (!this.renderer || this.renderPending) {
			return;
		}
		this.renderPending = true;
		requestAnimationFrame(() => {
			this.renderPending = false;
			this.renderer.render(this.scene, this.camera);
			this.frameCount += 1;
		});
	}

	// A new world (or none): forget every object.
	clear() {
		if (!this.renderer) {
			return;
		}
		for (const g of this.objects.values()) {
			this.root.remove(g);
			disposeGroup(g);
		}
		this.objects.clear();
		for (const o of [...this.statics.children]) {
			this.statics.remove(o);
			disposeGroup(o);
		}
		this.contacts.set([]);
		this.description = null;
		this.fitted = false;
		this.autoFitted = false;
		this.requestRender();
	}

	// The world shown is `name`: its camera comes back as the user left it (this tab's sessionStorage).
	setWorld(name) {
		this.cameraKey = name === undefined || name === null ? null : `${CAMERA_KEY}${name}`;
		if (this.restoreCamera()) {
			this.fitted = true;
		}
	}

	saveCamera() {
		if (!this.cameraKey || !this.renderer) {
			return;
		}
		const p = this.camera.position;
		const t = this.controls.target;
		try {
			sessionStorage.setItem(this.cameraKey, JSON.stringify({ position: [p.x, p.y, p.z], target: [t.x, t.y, t.z], user: !this.autoFitted }));
		} catch {
			// storage full or refused: the camera is not kept, nothing else changes
		}
	}

	restoreCamera() {
		if (!this.cameraKey || !this.renderer) {
			return false;
		}
		let saved = null;
		try {
			saved = JSON.parse(sessionStorage.getItem(this.cameraKey) ?? 'null');
		} catch {
			saved = null;
		}
		const ok = (v) => Array.isArray(v) && v.length === 3 && v.every(Number.isFinite);
		if (!saved || !saved.user || !ok(saved.position) || !ok(saved.target)) {
			return false;
		}
		this.camera.position.fromArray(saved.position);
		this.controls.target.fromArray(saved.target);
		const size = Math.max(1.5, this.camera.position.distanceTo(this.controls.target));
		this.camera.near = size / 500;
		this.camera.far = size * 50;
		this.camera.updateProjectionMatrix();
		this.controls.update();
		this.autoFitted = false;
		return true;
	}

	// The world's description (describe.js): visuals per articulation link, shapes per body and link, the
	// world's own shapes. Groups are rebuilt with their geometry at the next frame.
	setDescription(description) {
		const fitted = this.fitted;
		const auto = this.autoFitted;
		this.clear();
		this.fitted = fitted; // a new description of the same world keeps the camera
		this.autoFitted = auto;
		this.description = description;
		if (!this.renderer || !description) {
			return;
		}
		for (const s of description.worldShapes ?? []) {
			if (s.type === 'plane') {
				const ground = groundObject(s);
				if (ground) {
					this.statics.add(ground);
				}
				continue;
			}
			const solid = shapeObject(s, { rgba: [0.45, 0.48, 0.55, 1] }, this.meshes, () => this.meshArrived());
			const wire = shapeObject(s, { wireframe: true }, this.meshes, () => this.requestRender());
			if (solid) {
				solid.userData.visual = true;
				this.statics.add(solid);
			}
			if (wire) {
				wire.userData.collision = true;
				wire.visible = this.show.collision;
				this.statics.add(wire);
			}
		}
	}

	meshArrived() {
		if (this.autoFitted) {
			this.fit(); // the first fit saw links without their meshes
		}
		this.requestRender();
	}

	visualsFor(kind, id, link) {
		if (kind !== 'a') {
			return null;
		}
		return this.description?.articulationsById?.get(id)?.links?.[link]?.visuals ?? null;
	}

	object(key, kind, id, link, colourIndex) {
		let g = this.objects.get(key);
		if (g) {
			return g;
		}
		g = new Group();
		g.name = key;
		g.userData = { key, kind, id, link };
		const visuals = this.visualsFor(kind, id, link);
		const shapes = this.description?.shapesByKey?.get(key) ?? [];
		const loaded = () => this.meshArrived();
		const drawn = new Group(); // what the link looks like
		drawn.userData.visual = true;
		if (visuals && visuals.length > 0) {
			for (const v of visuals) {
				const o = visualObject(v, this.meshes, loaded);
				if (o) {
					drawn.add(o);
				}
			}
		} else if (shapes.length > 0) {
			const c = new Color(PALETTE[colourIndex % PALETTE.length]);
			for (const s of shapes) {
				const o = shapeObject(s, { rgba: [c.r, c.g, c.b, 1] }, this.meshes, loaded);
				if (o) {
					drawn.add(o);
				}
			}
		} else {
			const size = kind === 'a' ? PLACEHOLDER_LINK_M : PLACEHOLDER_BODY_M;
			const material = new MeshStandardMaterial({ color: PALETTE[colourIndex % PALETTE.length], roughness: 0.6, metalness: 0.1 });
			drawn.add(new Mesh(new BoxGeometry(size, size, size), material));
		}
		g.add(drawn);
		const wire = new Group();
		wire.userData.collision = true;
		wire.visible = this.show.collision;
		for (const s of shapes) {
			const o = shapeObject(s, { wireframe: true }, this.meshes, () => this.requestRender());
			if (o) {
				wire.add(o);
			}
		}
		g.add(wire);
		const axes = new AxesHelper(AXES_M);
		// Drawn over the link's own geometry: a frame is mostly inside what it is the frame of.
		axes.material.depthTest = false;
		axes.renderOrder = 1;
		axes.userData.frame = true;
		axes.visible = this.show.frames;
		g.add(axes);
		this.root.add(g);
		this.objects.set(key, g);
		return g;
	}

	// Show or hide what the toggles name: 'collision' (shapes as wireframes), 'frames' (link and body
	// axes), 'contacts' (points and force arrows of the frames' contacts).
	setShown(what, on) {
		this.show[what] = on;
		if (!this.renderer) {
			return;
		}
		const flag = { collision: 'collision', frames: 'frame' }[what];
		if (flag) {
			for (const top of [this.root, this.statics]) {
				top.traverse((o) => {
					if (o.userData[flag]) {
						o.visible = on;
					}
				});
			}
		}
		if (what === 'contacts') {
			this.contacts.group.visible = on;
		}
		this.requestRender();
	}

	// Place every body and link at its pose in a state frame (plain StateFrame object, see protocol.js),
	// and draw its contacts when they are shown.
	update(frame) {
		if (!this.renderer) {
			return;
		}
		const seen = new Set();
		frame.bodies.forEach((b, i) => {
			const key = `b:${b.id}`;
			seen.add(key);
			place(this.object(key, 'b', b.id, 0, i), b.position, b.rotation);
		});
		frame.articulations.forEach((a, ai) => {
			a.linkPoses.forEach((t, li) => {
				const key = `a:${a.id}:${li}`;
				seen.add(key);
				place(this.object(key, 'a', a.id, li, ai), t.position, t.rotation);
			});
		});
		for (const [key, g] of this.objects) {
			if (!seen.has(key)) {
				this.root.remove(g);
				disposeGroup(g);
				this.objects.delete(key);
			}
		}
		this.contactCount = this.contacts.set(this.show.contacts ? frame.contacts ?? [] : []);
		if (!this.fitted && this.objects.size > 0) {
			this.fit();
			this.fitted = true;
		}
		this.requestRender();
	}

	// Frame everything again at the next state frame (a reset).
	refit() {
		this.fitted = false;
	}

	// Draw `object` (a three.js Object3D in world coordinates) as the overlay `name`, replacing the one of
	// that name; null removes it. For what a state frame carries beyond poses.
	setOverlay(name, object) {
		if (!this.renderer) {
			return;
		}
		const old = this.overlays.getObjectByName(name);
		if (old) {
			this.overlays.remove(old);
			disposeGroup(old);
		}
		if (object) {
			object.name = name;
			this.overlays.add(object);
		}
		this.requestRender();
	}

	// What is drawn: groups (bodies and links), meshes (visuals, shapes drawn solid, placeholders),
	// collision wireframes (shown or not), the world's own shapes, mesh files loaded and failed, contact
	// points drawn.
	stats() {
		let meshes = 0;
		let wireframes = 0;
		for (const g of this.objects.values()) {
			for (const c of g.children) {
				c.traverse((o) => {
					if (o.isMesh && c.userData.visual) {
						meshes += 1;
					} else if (o.isMesh && c.userData.collision) {
						wireframes += 1;
					}
				});
			}
		}
		return {
			objects: this.objects.size,
			meshes,
			wireframes,
			statics: this.statics.children.length,
			meshFiles: this.meshes ? { loaded: this.meshes.loaded, failed: this.meshes.failed } : null,
			contacts: this.contactCount,
			described: Boolean(this.description),
		};
	}

	// Where an object is on the canvas (CSS pixels from its top-left corner), for tests: { x, y } or null.
	screenPosition(key) {
		const g = this.objects.get(key);
		if (!g || !this.renderer) {
			return null;
		}
		const box = new Box3();
		g.traverse((o) => {
			if (o.isMesh && isShown(o)) {
				box.expandByObject(o);
			}
		});
		const p = box.isEmpty() ? g.getWorldPosition(new Vector3()) : box.getCenter(new Vector3());
		p.project(this.camera);
		const rect = this.renderer.domElement.getBoundingClientRect();
		return { x: (p.x + 1) / 2 * rect.width, y: (1 - p.y) / 2 * rect.height };
	}

	// Aim the camera at every body and link drawn (their visuals, and the world's shapes but the ground).
	fit() {
		if (!this.renderer) {
			return;
		}
		this.scene.updateMatrixWorld(true);
		const box = new Box3();
		for (const g of this.objects.values()) {
			box.expandByPoint(g.getWorldPosition(new Vector3()));
			for (const c of g.children) {
				if (c.userData.visual) {
					box.expandByObject(c);
				}
			}
		}
		for (const c of this.statics.children) {
			if (c.userData.visual) {
				box.expandByObject(c);
			}
		}
		if (box.isEmpty()) {
			return;
		}
		const centre = box.getCenter(new Vector3());
		// At least a 1.5 m scene: a small robot is seen whole with the floor around it.
		const size = Math.max(1.5, box.getSize(new Vector3()).length());
		this.controls.target.copy(centre);
		const dir = new Vector3(1, -1.2, 0.8).normalize();
		this.camera.position.copy(centre).addScaledVector(dir, size * 1.6);
		this.camera.near = size / 500;
		this.camera.far = size * 50;
		this.camera.updateProjectionMatrix();
		this.controls.update();
		this.autoFitted = true;
		this.saveCamera();
		this.requestRender();
	}

	// A click (not a drag) on the canvas names what is under it.
	watchClicks() {
		const canvas = this.renderer.domElement;
		let down = null;
		canvas.addEventListener('pointerdown', (e) => {
			down = { x: e.clientX, y: e.clientY };
		});
		canvas.addEventListener('pointerup', (e) => {
			if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) >= PICK_SLOP_PX) {
				down = null;
				return;
			}
			down = null;
			const rect = canvas.getBoundingClientRect();
			this.onPick?.(this.pick(e.clientX - rect.left, e.clientY - rect.top));
		});
	}

	// What is drawn at (x, y) CSS pixels on the canvas: { key, kind, id, link } of the nearest visible body
	// or link, or null.
	pick(x, y) {
		if (!this.renderer) {
			return null;
		}
		const rect = this.renderer.domElement.getBoundingClientRect();
		const ndc = new Vector2(x / rect.width * 2 - 1, -(y / rect.height) * 2 + 1);
		const ray = new Raycaster();
		ray.setFromCamera(ndc, this.camera);
		for (const hit of ray.intersectObject(this.root, true)) {
			if (!hit.object.isMesh || !isShown(hit.object)) {
				continue;
			}
			for (let o = hit.object; o; o = o.parent) {
				if (o.userData.key) {
					return { ...o.userData };
				}
			}
		}
		return null;
	}
}

// Contact points as dots and the force on each as an arrow, from pools that grow to the most points seen
// (bounded by the server's max_contacts_per_frame) and are reused from frame to frame.
class Contacts {
	constructor() {
		this.group = new Group();
		this.group.visible = false;
		this.dot = new SphereGeometry(1, 10, 8);
		// Unit shaft and head along +y from the origin, scaled per arrow.
		this.shaft = new CylinderGeometry(1, 1, 1, 8).translate(0, 0.5, 0);
		this.head = new ConeGeometry(1, 1, 12).translate(0, 0.5, 0);
		this.dotMaterial = new MeshBasicMaterial({ color: CONTACT_POINT_COLOUR });
		this.arrowMaterial = new MeshBasicMaterial({ color: CONTACT_ARROW_COLOUR });
		this.items = [];
	}

	item(i) {
		if (!this.items[i]) {
			const dot = new Mesh(this.dot, this.dotMaterial);
			dot.scale.setScalar(CONTACT_POINT_M);
			const arrow = new Group();
			const shaft = new Mesh(this.shaft, this.arrowMaterial);
			const head = new Mesh(this.head, this.arrowMaterial);
			arrow.add(shaft, head);
			this.group.add(dot, arrow);
			this.items[i] = { dot, arrow, shaft, head };
		}
		return this.items[i];
	}

	// Draw the points of `contacts` (StateFrame.contacts); returns how many points are drawn. The arrow is
	// the force on B (on A when B is the world's own geometry, so that a body on the ground shows what the
	// ground pushes it with), CONTACT_M_PER_N long.
	set(contacts) {
		let n = 0;
		const up = new Vector3(0, 1, 0);
		const dir = new Vector3();
		for (const c of contacts) {
			const bIsWorld = c.b && c.b.bodyId === '0' && c.b.articulationId === '0';
			const sign = bIsWorld ? -1 : 1;
			for (const p of c.points) {
				const it = this.item(n++);
				const at = p.position ?? { x: 0, y: 0, z: 0 };
				it.dot.position.set(at.x, at.y, at.z);
				it.dot.visible = true;
				const f = p.force ?? { x: 0, y: 0, z: 0 };
				dir.set(sign * f.x, sign * f.y, sign * f.z);
				const newtons = dir.length();
				if (!(newtons > MIN_ARROW_N) || !Number.isFinite(newtons)) {
					it.arrow.visible = false;
					continue;
				}
				const length = newtons * CONTACT_M_PER_N;
				const head = Math.min(ARROW_HEAD_M, 0.4 * length);
				it.arrow.visible = true;
				it.arrow.position.copy(it.dot.position);
				it.arrow.quaternion.setFromUnitVectors(up, dir.divideScalar(newtons));
				it.shaft.scale.set(ARROW_SHAFT_M, length - head, ARROW_SHAFT_M);
				it.head.position.set(0, length - head, 0);
				it.head.scale.set(0.4 * head, head, 0.4 * head);
			}
		}
		for (let i = n; i < this.items.length; ++i) {
			this.items[i].dot.visible = false;
			this.items[i].arrow.visible = false;
		}
		return n;
	}
}

const IDENTITY = { x: 0, y: 0, z: 0, w: 1 };

function place(group, position, rotation) {
	const p = position ?? { x: 0, y: 0, z: 0 };
	// An absent rotation is the identity (proto/README.md); a decoded default is all zeros.
	const q = rotation && (rotation.x || rotation.y || rotation.z || rotation.w) ? rotation : IDENTITY;
	group.position.set(p.x, p.y, p.z);
	group.quaternion.set(q.x, q.y, q.z, q.w);
}

function isShown(o) {
	for (; o; o = o.parent) {
		if (!o.visible) {
			return false;
		}
	}
	return true;
}

// Dispose what `g` owns: its geometries (not the mesh cache's, shared by every visual of a hash) and
// materials; a mesh still loading into it is dropped when it arrives.
function disposeGroup(g) {
	g.traverse((o) => {
		o.userData.disposed = true;
		if (o.geometry && !o.geometry.userData.shared) {
			o.geometry.dispose();
		}
		for (const m of [o.material].flat()) {
			m?.dispose();
		}
	});
}
