// Meshes by content hash: each is fetched once over HTTP (GET /assets/HEX on the port that served the page,
// proto/README.md "Meshes"), checked, and turned into one three.js BufferGeometry that every visual and
// shape with that hash shares. The browser keeps the bytes too (the URL names the content, immutable).
//
// The mesh format, little-endian, arrays at multiples of 4 bytes: "SNMS", u32 version 1, u32 V, u32 T,
// u32 P, u32 0; f32[3V] positions (m); f32[3V] unit normals; u32[3T] indices (counter-clockwise); P parts
// of 28 bytes: u32 first_triangle, u32 triangle_count, u32 has_color, f32 r, g, b, a. Its size is exactly
// 24 + 24V + 12T + 28P.
import { BufferAttribute, BufferGeometry } from 'three';

const HEADER_BYTES = 24;
const PART_BYTES = 28;
const VERSION = 1;
// What one page accepts: a mesh of more triangles than this is refused rather than drawn (the server's
// own limits are lower; this bounds what a wrong reply can make the page allocate).
const MAX_TRIANGLES = 4 * 1024 * 1024;

export class MeshError extends Error {}

// A mesh from its bytes (an ArrayBuffer): { geometry, parts: [{ first, count, rgba|null }] }, the parts'
// triangles as geometry groups (group i is part i). Throws MeshError for anything that is not the format.
export function parseMesh(buffer) {
	if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < HEADER_BYTES) {
		throw new MeshError(`a mesh is at least ${HEADER_BYTES} bytes`);
	}
	const dv = new DataView(buffer);
	const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
	if (magic !== 'SNMS') {
		throw new MeshError('not a mesh (no SNMS tag)');
	}
	const version = dv.getUint32(4, true);
	if (version !== VERSION) {
		throw new MeshError(`mesh version ${version}, this page reads ${VERSION}`);
	}
	const v = dv.getUint32(8, true);
	const t = dv.getUint32(12, true);
	const p = dv.getUint32(16, true);
	if (t > MAX_TRIANGLES) {
		throw new MeshError(`a mesh of ${t} triangles is more than this page draws (${MAX_TRIANGLES})`);
	}
	const size = HEADER_BYTES + 24 * v + 12 * t + PART_BYTES * p;
	if (size !== buffer.byteLength) {
		throw new MeshError(`mesh of ${v} vertices, ${t} triangles, ${p} parts is ${size} bytes, not ${buffer.byteLength}`);
	}
	const positions = new Float32Array(buffer, HEADER_BYTES, 3 * v);
	const normals = new Float32Array(buffer, HEADER_BYTES + 12 * v, 3 * v);
	const indices = new Uint32Array(buffer, HEADER_BYTES + 24 * v, 3 * t);
	for (let i = 0; i < indices.length; ++i) {
		if (indices[i] >= v) {
			throw new MeshError(`triangle ${Math.floor(i / 3)} names vertex ${indices[i]} of ${v}`);
		}
	}
	const parts = [];
	let next = 0;
	for (let i = 0; i < p; ++i) {
		const at = HEADER_BYTES + 24 * v + 12 * t + PART_BYTES * i;
		const first = dv.getUint32(at, true);
		const count = dv.getUint32(at + 4, true);
		if (first !== next || count > t - first) {
			throw new MeshError(`part ${i} (triangles ${first}, ${count} of them) does not follow the one before`);
		}
		next = first + count;
		const rgba = dv.getUint32(at + 8, true) ? [0, 1, 2, 3].map((k) => dv.getFloat32(at + 12 + 4 * k, true)) : null;
		parts.push({ first, count, rgba });
	}
	if (p > 0 && next !== t) {
		throw new MeshError(`the parts cover ${next} of ${t} triangles`);
	}
	const geometry = new BufferGeometry();
	geometry.setAttribute('position', new BufferAttribute(positions, 3));
	geometry.setAttribute('normal', new BufferAttribute(normals, 3));
	geometry.setIndex(new BufferAttribute(indices, 1));
	parts.forEach((part, i) => geometry.addGroup(3 * part.first, 3 * part.count, i));
	geometry.computeBoundingBox();
	geometry.computeBoundingSphere();
	// Shared by every visual of this hash: disposing one visual's group must not dispose it.
	geometry.userData.shared = true;
	return { geometry, parts };
}

// hex -> Promise of a parsed mesh. A failed fetch is forgotten, so that the next world description asks
// again (the server may have been restarted with the file).
export class MeshCache {
	// onFailure(hex, error): a mesh could not be fetched or read (the page says so).
	constructor(fetchBytes = fetchAsset, onFailure = null) {
		this.fetchBytes = fetchBytes;
		this.onFailure = onFailure;
		this.entries = new Map();
		this.loaded = 0;
		this.failed = 0;
	}

	get(hex) {
		let entry = this.entries.get(hex);
		if (!entry) {
			entry = this.fetchBytes(hex).then(parseMesh).then((mesh) => {
				this.loaded += 1;
				return mesh;
			}, (err) => {
				this.failed += 1;
				this.entries.delete(hex);
				this.onFailure?.(hex, err);
				throw err;
			});
			this.entries.set(hex, entry);
		}
		return entry;
	}
}

async function fetchAsset(hex) {
	const response = await fetch(`/assets/${hex}`);
	if (!response.ok) {
		throw new MeshError(`GET /assets/${hex}: HTTP ${response.status}`);
	}
	return response.arrayBuffer();
}
