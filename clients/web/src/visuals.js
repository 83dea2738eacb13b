// The geometry the 3D view draws: URDF visuals (DescribeWorld's UrdfVisual, as describe.js gives them) and
// collision shapes (ShapeInfo), each as a three.js object in the frame of the link or body it is on.
// Meshes come by content hash from the mesh cache (meshes.js): the object is returned at once, empty, and
// the mesh is added to it when its bytes have arrived (onLoaded then asks for a render).
// The world is z-up; three's cylinders and capsules run along y, URDF's and the core's along z.
import {
	BoxGeometry, CapsuleGeometry, Color, CylinderGeometry, DoubleSide, Group, Mesh, MeshBasicMaterial,
	MeshStandardMaterial, PlaneGeometry, Quaternion, SphereGeometry, Vector3,
} from 'three';
import { ConvexGeometry } from 'three/addons/geometries/ConvexGeometry.js';

const IDENTITY = { x: 0, y: 0, z: 0, w: 1 };
const GREY = [0.7, 0.7, 0.7, 1];
const SEGMENTS = 24;
const WIRE_SEGMENTS = 12;
// The ground: a square of this side (m) drawn for a plane shape, 1 mm behind the plane so that the grid
// drawn on z = 0 stays visible on a floor at z = 0.
const GROUND_SIDE_M = 40;
const GROUND_BEHIND_M = 0.001;
export const GROUND_COLOUR = 0x252b36;
export const COLLISION_COLOUR = 0x7cf2a0;
const SENSOR_COLOUR = 0xf2e27c;

function alongZ(geometry) {
	geometry.rotateX(Math.PI / 2);
	return geometry;
}

function place(object, pose) {
	const p = pose?.position ?? { x: 0, y: 0, z: 0 };
	const r = pose?.rotation;
	// An absent rotation is the identity (proto/README.md); a decoded default is all zeros.
	const q = r && (r.x || r.y || r.z || r.w) ? r : IDENTITY;
	object.position.set(p.x ?? 0, p.y ?? 0, p.z ?? 0);
	object.quaternion.copy(new Quaternion(q.x, q.y, q.z, q.w).normalize());
}

function standard(rgba) {
	const [r, g, b, a] = rgba && rgba.length === 4 ? rgba : GREY;
	return new MeshStandardMaterial({ color: new Color(r, g, b), roughness: 0.55, metalness: 0.15, transparent: a < 1, opacity: a, side: DoubleSide });
}

// Fill `holder` with the mesh of `hex` from `meshes` when it arrives: one material per part, in the
// part's own colour where it has one and `rgba` is not forced (`useOwnColours`), else `rgba`.
function attachMesh(holder, hex, meshes, material, onLoaded, useOwnColours) {
	if (!hex || !meshes) {
		return;
	}
	meshes.get(hex).then(({ geometry, parts }) => {
		if (holder.userData.disposed) {
			return;
		}
		let m = material();
		if (useOwnColours && parts.length > 0) {
			const base = m;
			m = parts.map((part) => (part.rgba ? material(part.rgba) : base));
		}
		holder.add(new Mesh(geometry, m));
		onLoaded?.(holder);
	}, (err) => {
		holder.userData.error = err.message;
		onLoaded?.(holder);
	});
}

// One URDF visual: { geometry: 'box'|'cylinder'|'sphere'|'mesh', size, radius, length, scale, meshHash,
// hasColor, rgba, origin } in the link frame, as a Group at the visual's origin. A mesh visual without a
// mesh (the server did not read its file) draws nothing.
export function visualObject(v, meshes, onLoaded) {
	const holder = new Group();
	holder.userData.visual = true;
	place(holder, v.origin);
	const rgba = v.rgba && v.rgba.length === 4 ? v.rgba : GREY;
	switch (v.geometry) {
		case 'box':
			holder.add(new Mesh(new BoxGeometry(v.size.x, v.size.y, v.size.z), standard(rgba)));
			break;
		case 'cylinder':
			holder.add(new Mesh(alongZ(new CylinderGeometry(v.radius, v.radius, v.length, SEGMENTS)), standard(rgba)));
			break;
		case 'sphere':
			holder.add(new Mesh(new SphereGeometry(v.radius, SEGMENTS, 16), standard(rgba)));
			break;
		case 'mesh': {
			const s = v.scale && (v.scale.x || v.scale.y || v.scale.z) ? v.scale : { x: 1, y: 1, z: 1 };
			holder.scale.set(s.x, s.y, s.z);
			// The URDF's colour when it gave one; else the mesh's parts in their own colours.
			attachMesh(holder, v.meshHash, meshes, (c) => standard(c ?? rgba), onLoaded, !v.hasColor);
			break;
		}
		default:
			return null;
	}
	return holder;
}

// The three.js geometry of a shape of finite extent (not a plane, not a mesh), in the shape's frame, with
// `segments` around round ones (fewer for a wireframe, which reads better sparse).
function shapeGeometry(s, segments) {
	switch (s.type) {
		case 'sphere':
			return new SphereGeometry(s.radius, segments, Math.ceil(segments * 2 / 3));
		case 'capsule':
			return alongZ(new CapsuleGeometry(s.radius, 2 * s.halfLength, Math.ceil(segments / 3), segments));
		case 'box':
			return new BoxGeometry(2 * s.halfExtents.x, 2 * s.halfExtents.y, 2 * s.halfExtents.z);
		case 'cylinder':
			return alongZ(new CylinderGeometry(s.radius, s.radius, 2 * s.halfLength, segments));
		case 'hull':
			if (s.hull.length < 4) {
				return null;
			}
			try {
				return new ConvexGeometry(s.hull.map((p) => new Vector3(p.x, p.y, p.z)));
			} catch {
				return null; // flat or degenerate points: no volume to draw
			}
		default:
			return null;
	}
}

// A collision shape in the frame of what it is on: solid in `rgba` (a body or link that has no visuals
// is drawn by its shapes), or as a wireframe (the collision toggle). Planes are drawn by groundObject.
export function shapeObject(s, { wireframe = false, rgba = GREY } = {}, meshes = null, onLoaded = null) {
	if (s.type === 'plane') {
		return null;
	}
	const holder = new Group();
	place(holder, s.pose);
	const material = wireframe
		? () => new MeshBasicMaterial({ color: s.sensor ? SENSOR_COLOUR : COLLISION_COLOUR, wireframe: true })
		: (c) => standard(c ?? rgba);
	if (s.type === 'mesh') {
		attachMesh(holder, s.meshHash, meshes, material, onLoaded, false);
	} else {
		const geometry = shapeGeometry(s, wireframe ? WIRE_SEGMENTS : SEGMENTS);
		if (!geometry) {
			return null;
		}
		holder.add(new Mesh(geometry, material()));
	}
	return holder;
}

// A plane shape of the world as a large square of floor, facing its normal at its offset.
export function groundObject(s) {
	const n = new Vector3(s.normal?.x ?? 0, s.normal?.y ?? 0, s.normal?.z ?? 1);
	if (n.lengthSq() === 0) {
		return null;
	}
	n.normalize();
	const ground = new Mesh(new PlaneGeometry(GROUND_SIDE_M, GROUND_SIDE_M),
		new MeshStandardMaterial({ color: GROUND_COLOUR, roughness: 0.95, metalness: 0, side: DoubleSide }));
	ground.quaternion.setFromUnitVectors(new Vector3(0, 0, 1), n);
	ground.position.copy(n).multiplyScalar((s.offset ?? 0) - GROUND_BEHIND_M);
	ground.userData.ground = true;
	return ground;
}
