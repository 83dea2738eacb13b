// The geometry of URDF visuals (DescribeWorld's UrdfVisual, as describe.js gives them), one builder per
// kind of geometry. A kind is added by registering its builder (registerGeometry): a mesh loader that has
// the mesh file's triangles replaces the stand-in box of 'mesh' below.
import { BoxGeometry, Color, CylinderGeometry, Mesh, MeshStandardMaterial, Quaternion, SphereGeometry } from 'three';

const IDENTITY = { x: 0, y: 0, z: 0, w: 1 };

// kind -> (visual) => a three.js BufferGeometry in the visual's frame, or null to draw nothing.
const GEOMETRY = {
	box: (v) => new BoxGeometry(v.size.x, v.size.y, v.size.z),
	cylinder: (v) => {
		// three's cylinder runs along y; URDF's along the visual frame's z.
		const g = new CylinderGeometry(v.radius, v.radius, v.length, 24);
		g.rotateX(Math.PI / 2);
		return g;
	},
	sphere: (v) => new SphereGeometry(v.radius, 24, 16),
	mesh: (v) => {
		// Mesh files are not sent over the protocol yet: a box of the mesh's scale stands in for it.
		const s = v.scale ?? { x: 0.05, y: 0.05, z: 0.05 };
		return new BoxGeometry(Math.abs(s.x) * 0.05 || 0.05, Math.abs(s.y) * 0.05 || 0.05, Math.abs(s.z) * 0.05 || 0.05);
	},
};

// Draw visuals of `kind` with `build(visual)` (replacing the builder of that kind, if any).
export function registerGeometry(kind, build) {
	GEOMETRY[kind] = build;
}

// One visual: { geometry: 'box'|'cylinder'|'sphere'|'mesh', size: {x,y,z}, radius, length, scale, mesh,
// rgba: [r,g,b,a], origin: { position, rotation } } in the link frame.
export function visualMesh(v) {
	const build = GEOMETRY[v.geometry];
	const geometry = build ? build(v) : null;
	if (!geometry) {
		return null;
	}
	const [r, g, b, a] = v.rgba && v.rgba.length === 4 ? v.rgba : [0.7, 0.7, 0.7, 1];
	const material = new MeshStandardMaterial({ color: new Color(r, g, b), roughness: 0.55, metalness: 0.15, transparent: a < 1, opacity: a });
	const mesh = new Mesh(geometry, material);
	if (v.origin) {
		const p = v.origin.position ?? { x: 0, y: 0, z: 0 };
		const q = v.origin.rotation && (v.origin.rotation.x || v.origin.rotation.y || v.origin.rotation.z || v.origin.rotation.w) ? v.origin.rotation : IDENTITY;
		mesh.position.set(p.x, p.y, p.z);
		mesh.quaternion.copy(new Quaternion(q.x, q.y, q.z, q.w));
	}
	return mesh;
}

