// The 3D view: one three.js group per body and per articulation link, placed at the poses of each state
// frame. A group holds the link's visual geometry when the world's description gives it (visuals.js
// builds each kind of geometry), and a small placeholder box otherwise. Overlays (setOverlay: contact
// points, frames, anything drawn in world coordinates) live in their own group beside the bodies. The
// world is z-up, in metres. Rendering happens only when something changed.
import {
	AmbientLight, BoxGeometry, Color, DirectionalLight, GridHelper, Group, HemisphereLight, Mesh,
	MeshStandardMaterial, PerspectiveCamera, Scene, Vector3, WebGLRenderer, Box3,
} from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { visualMesh } from './visuals.js';

const PLACEHOLDER_BODY_M = 0.1;
const PLACEHOLDER_LINK_M = 0.06;
const PALETTE = [0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948, 0xb07aa1, 0x9c755f];

export class View3D {
	constructor(container) {
		this.container = container;
		this.objects = new Map(); // key -> Group
		this.description = null;
		this.fitted = false;
		this.frameCount = 0;
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
		this.controls.update();

		this.scene.add(new HemisphereLight(0xdde6ff, 0x303030, 1.4));
		this.scene.add(new AmbientLight(0xffffff, 0.25));
		const sun = new DirectionalLight(0xffffff, 1.6);
		sun.position.set(3, -4, 6);
		this.scene.add(sun);
		const grid = new GridHelper(10, 40, 0x6b7890, 0x3a4252);
		grid.rotation.x = Math.PI / 2; // GridHelper lies in x-z; the world's floor is x-y
		this.scene.add(grid);
		this.root = new Group();
		this.scene.add(this.root);
		this.overlays = new Group(); // name -> object, in world coordinates (setOverlay)
		this.scene.add(this.overlays);

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

	// A new world (or none): forget every object. `description` may carry visuals per link (see setDescription).
	clear() {
		for (const g of this.objects.values()) {
			this.root.remove(g);
			disposeGroup(g);
		}
		this.objects.clear();
		this.description = null;
		this.fitted = false;
		this.requestRender();
	}

	// The world's description (DescribeWorld): { articulations: [{ id, links: [{ name, visuals: [...] }] }],
	// bodies: [{ id, visuals }] }. Groups are rebuilt with their visuals at the next frame.
	setDescription(description) {
		this.clear();
		this.description = description;
	}

	visualsFor(kind, id, link) {
		const d = this.description;
		if (!d) {
			return null;
		}
		if (kind === 'a') {
			const a = d.articulationsById?.get(id);
			return a?.links?.[link]?.visuals ?? null;
		}
		return d.bodiesById?.get(id)?.visuals ?? null;
	}

	object(key, kind, id, link, colourIndex) {
		let g = this.objects.get(key);
		if (g) {
			return g;
		}
		g = new Group();
		g.name = key;
		const visuals = this.visualsFor(kind, id, link);
		if (visuals && visuals.length > 0) {
			for (const v of visuals) {
				const mesh = visualMesh(v);
				if (mesh) {
					g.add(mesh);
				}
			}
		} else {
			const size = kind === 'a' ? PLACEHOLDER_LINK_M : PLACEHOLDER_BODY_M;
			const material = new MeshStandardMaterial({ color: PALETTE[colourIndex % PALETTE.length], roughness: 0.6, metalness: 0.1 });
			g.add(new Mesh(new BoxGeometry(size, size, size), material));
		}
		this.root.add(g);
		this.objects.set(key, g);
		return g;
	}

	// Place every body and link at its pose in a state frame (plain StateFrame object, see protocol.js).
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
		if (!this.fitted && this.objects.size > 0) {
			this.fit();
			this.fitted = true;
		}
		this.requestRender();
	}

	// Draw `object` (a three.js Object3D in world coordinates) as the overlay `name`, replacing the one of
	// that name; null removes it. For what a state frame carries beyond poses (contacts, forces).
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

	// What is drawn: groups (bodies and links) and meshes (visuals or placeholders).
	stats() {
		let meshes = 0;
		this.root.traverse((o) => {
			if (o.isMesh) {
				meshes += 1;
			}
		});
		return { objects: this.objects.size, meshes, described: Boolean(this.description) };
	}

	// Aim the camera at everything drawn.
	fit() {
		const box = new Box3().setFromObject(this.root);
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

function disposeGroup(g) {
	g.traverse((o) => {
		if (o.geometry) {
			o.geometry.dispose();
		}
		if (o.material) {
			o.material.dispose();
		}
	});
}
