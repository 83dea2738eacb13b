// The dashboard's reader of the mesh format (clients/web/src/meshes.js, proto/README.md "Meshes"), in
// node without a browser: a well-formed mesh becomes a geometry with its parts as groups, and every
// malformed one (wrong tag or version, a size that does not match its counts, an index past its
// vertices, parts that do not cover its triangles in order) is refused with a MeshError, never drawn.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MeshCache, MeshError, parseMesh } from '../../clients/web/src/meshes.js';

// The mesh format: header, positions, normals, indices, parts ({ first, count, rgba|null }).
function encode({ positions, normals, indices, parts = [], tag = 'SNMS', version = 1, counts = null }) {
	const v = positions.length / 3;
	const t = indices.length / 3;
	const buffer = new ArrayBuffer(24 + 24 * v + 12 * t + 28 * parts.length);
	const dv = new DataView(buffer);
	[...tag].forEach((c, i) => dv.setUint8(i, c.charCodeAt(0)));
	const [cv, ct, cp] = counts ?? [v, t, parts.length];
	[version, cv, ct, cp, 0].forEach((x, i) => dv.setUint32(4 + 4 * i, x, true));
	new Float32Array(buffer, 24, 3 * v).set(positions);
	new Float32Array(buffer, 24 + 12 * v, 3 * v).set(normals);
	new Uint32Array(buffer, 24 + 24 * v, 3 * t).set(indices);
	parts.forEach((p, i) => {
		const at = 24 + 24 * v + 12 * t + 28 * i;
		dv.setUint32(at, p.first, true);
		dv.setUint32(at + 4, p.count, true);
		dv.setUint32(at + 8, p.rgba ? 1 : 0, true);
		(p.rgba ?? [0, 0, 0, 0]).forEach((c, k) => dv.setFloat32(at + 12 + 4 * k, c, true));
	});
	return buffer;
}

// Two triangles of a unit square in z = 0, facing +z.
const SQUARE = {
	positions: [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0],
	normals: [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1],
	indices: [0, 1, 2, 0, 2, 3],
};

describe('dashboard mesh reader', () => {
	it('reads a mesh and its parts', () => {
		const { geometry, parts } = parseMesh(encode({ ...SQUARE, parts: [{ first: 0, count: 1, rgba: [1, 0, 0, 1] }, { first: 1, count: 1, rgba: null }] }));
		assert.equal(geometry.getAttribute('position').count, 4);
		assert.equal(geometry.getIndex().count, 6);
		assert.deepEqual(geometry.groups.map((g) => [g.start, g.count, g.materialIndex]), [[0, 3, 0], [3, 3, 1]]);
		assert.deepEqual(parts, [{ first: 0, count: 1, rgba: [1, 0, 0, 1] }, { first: 1, count: 1, rgba: null }]);
		assert.deepEqual(geometry.boundingBox.max.toArray(), [1, 1, 0]);
		assert.equal(geometry.userData.shared, true);
	});

	it('refuses what is not the mesh format', () => {
		const bad = {
			'empty': new ArrayBuffer(0),
			'not a buffer': new Uint8Array(64),
			'wrong tag': encode({ ...SQUARE, tag: 'GLTF' }),
			'wrong version': encode({ ...SQUARE, version: 2 }),
			'more vertices than bytes': encode({ ...SQUARE, counts: [5, 2, 0] }),
			'fewer triangles than bytes': encode({ ...SQUARE, counts: [4, 1, 0] }),
			'a huge count': encode({ ...SQUARE, counts: [4, 0xffffffff, 0] }),
			'an index past the vertices': encode({ ...SQUARE, indices: [0, 1, 2, 0, 2, 4] }),
			'a part out of order': encode({ ...SQUARE, parts: [{ first: 1, count: 1 }, { first: 0, count: 1 }] }),
			'parts short of the triangles': encode({ ...SQUARE, parts: [{ first: 0, count: 1 }] }),
			'a part past the triangles': encode({ ...SQUARE, parts: [{ first: 0, count: 3 }] }),
		};
		for (const [what, buffer] of Object.entries(bad)) {
			assert.throws(() => parseMesh(buffer), MeshError, what);
		}
		// Truncated anywhere: refused.
		const whole = encode({ ...SQUARE, parts: [{ first: 0, count: 2, rgba: [0, 1, 0, 1] }] });
		for (let n = 0; n < whole.byteLength; n += 3) {
			assert.throws(() => parseMesh(whole.slice(0, n)), MeshError, `truncated to ${n} bytes`);
		}
	});

	it('fetches a hash once, and again after a failure', async () => {
		let fetches = 0;
		let fail = true;
		const cache = new MeshCache(async () => {
			fetches += 1;
			if (fail) {
				throw new MeshError('HTTP 404');
			}
			return encode(SQUARE);
		});
		const hex = 'ab'.repeat(32);
		await assert.rejects(cache.get(hex), MeshError);
		fail = false;
		const [a, b] = await Promise.all([cache.get(hex), cache.get(hex)]);
		assert.equal(a, b);
		assert.equal(fetches, 2);
		assert.deepEqual([cache.loaded, cache.failed], [1, 1]);
	});
});
