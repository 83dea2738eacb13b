// Triangle meshes: validation, a bounding volume hierarchy, and active edges.
//
// BVH. Top-down, splitting each node's triangles at the median of their centroids along the longest
// axis of the centroids' box (Ericson, "Real-Time Collision Detection", 6.2.1, object median), until at
// most COLLIDE_BVH_LEAF_SIZE remain. The median split is not the surface-area optimum, but it bounds the
// depth by ceil(log2(n / leaf)) + 1 whatever the input, so every query walks the tree with a fixed stack
// and no allocation, and a hostile mesh cannot make a degenerate tree. Ties in the median order break by
// triangle index, so one input gives one tree. Nodes are stored depth first (the first child follows its
// parent), which keeps a query's walk mostly sequential in memory.
//
// Active edges (after Jolt's ActiveEdges, and Bullet's internal-edge utility): a convex sliding over a
// tessellated flat floor touches the shared edge of two coplanar triangles; a contact there computed
// against one triangle alone points along that triangle's edge normal (sideways), and the body catches
// on a seam that is not there. Each edge is classified once here. With triangles T1 (edge a to b) and T2
// (b to a) and normals n1, n2: the edge is convex if (n1 x n2) . (b - a) >= 0, and active only if convex
// and the angle between the normals exceeds 5 degrees (n1 . n2 < COLLIDE_MESH_ACTIVE_EDGE_COS), or if the
// triangles are back to back. Boundary edges, edges of three or more triangles and edges between
// triangles of opposite winding are active (nothing is known of the surface beyond them). The
// narrowphase (narrow_mesh.c) replaces the normal of a contact on an inactive edge, or on a vertex both
// of whose edges in that triangle are inactive, with the triangle's face normal.
#include "collide/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t align8(size_t x)
{
	return (x + 7u) & ~(size_t)7u;
}

// Nodes of the median-split tree over n triangles.
static int node_count_for(int n)
{
	if (n <= COLLIDE_BVH_LEAF_SIZE)
	{
		return 1;
	}
	return 1 + node_count_for(n / 2) + node_count_for(n - n / 2);
}

typedef struct bvh_build
{
	const collide_mesh* mesh;
	collide_bvh_node* nodes;
	int32_t* order;
	sn_vec3* centroid;
	int next_node;
	int depth;
	int axis; // of the current selection
} bvh_build;

static double axis_value(sn_vec3 v, int axis)
{
	return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

// Total order of triangles along the build's axis: centroid coordinate, then index.
static bool before(const bvh_build* b, int32_t s, int32_t t)
{
	double cs = axis_value(b->centroid[s], b->axis);
	double ct = axis_value(b->centroid[t], b->axis);
	return cs < ct || (cs == ct && s < t);
}

// Heapsort of a[lo, hi) in the build's order (the fallback of select_kth: O(n log n) on any input, and
// no global comparison context, so builds may run on several threads at once).
static void sift_down(const bvh_build* b, int32_t* a, int root, int n)
{
	for (;;)
	{
		int child = 2 * root + 1;
		if (child >= n)
		{
			return;
		}
		if (child + 1 < n && before(b, a[child], a[child + 1]))
		{
			child += 1;
		}
		if (!before(b, a[root], a[child]))
		{
			return;
		}
		int32_t t = a[root];
		a[root] = a[child];
		a[child] = t;
		root = child;
	}
}

static void heap_sort(const bvh_build* b, int32_t* a, int n)
{
	for (int i = n / 2 - 1; i >= 0; --i)
	{
		sift_down(b, a, i, n);
	}
	for (int end = n - 1; end > 0; --end)
	{
		int32_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_down(b, a, 0, end);
	}
}

// Rearranges order[lo, hi) so that the element at k is the one a full sort would put there, with no
// larger element before it and no smaller after (quickselect, median-of-three pivot; a range that resists
// 64 rounds is sorted outright, so hostile input costs O(n log n), not O(n^2)).
static void select_kth(bvh_build* b, int32_t* a, int lo, int hi, int k)
{
	for (int round = 0; hi - lo > 16; ++round)
	{
		if (round == 64)
		{
			heap_sort(b, a + lo, hi - lo);
			return;
		}
		int mid = lo + (hi - lo) / 2;
		int32_t x = a[lo], y = a[mid], z = a[hi - 1];
		int32_t pivot = before(b, x, y) ? (before(b, y, z) ? y : (before(b, x, z) ? z : x))
										: (before(b, x, z) ? x : (before(b, y, z) ? z : y));
		// Three-way partition: < pivot, == pivot (one element, the order is total), > pivot.
		int i = lo, j = hi - 1;
		while (i <= j)
		{
			while (before(b, a[i], pivot))
			{
				++i;
			}
			while (before(b, pivot, a[j]))
			{
				--j;
			}
			if (i <= j)
			{
				int32_t t = a[i];
				a[i] = a[j];
				a[j] = t;
				++i;
				--j;
			}
		}
		if (k <= j)
		{
			hi = j + 1;
		}
		else if (k >= i)
		{
			lo = i;
		}
		else
		{
			return;
		}
	}
	// Insertion sort of the small rest.
	for (int i = lo + 1; i < hi; ++i)
	{
		int32_t t = a[i];
		int j = i - 1;
		while (j >= lo && before(b, t, a[j]))
		{
			a[j + 1] = a[j];
			--j;
		}
		a[j + 1] = t;
	}
}

static collide_aabb triangle_box(const collide_mesh* mesh, int t)
{
	sn_vec3 p[3];
	mesh_triangle(mesh, t, p);
	return aabb_add_point(aabb_add_point(aabb_point(p[0]), p[1]), p[2]);
}

static int build_node(bvh_build* b, int start, int end, int depth)
{
	int index = b->next_node++;
	collide_bvh_node* node = &b->nodes[index];
	if (depth > b->depth)
	{
		b->depth = depth;
	}
	collide_aabb box = triangle_box(b->mesh, b->order[start]);
	collide_aabb cbox = aabb_point(b->centroid[b->order[start]]);
	for (int i = start + 1; i < end; ++i)
	{
		box = aabb_union(box, triangle_box(b->mesh, b->order[i]));
		cbox = aabb_add_point(cbox, b->centroid[b->order[i]]);
	}
	node->aabb = box;
	int count = end - start;
	if (count <= COLLIDE_BVH_LEAF_SIZE)
	{
		node->right = -1;
		node->first = start;
		node->count = count;
		return index;
	}
	sn_vec3 ext = sn_sub(cbox.upper, cbox.lower);
	b->axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
	int mid = start + count / 2;
	select_kth(b, b->order, start, end, mid);
	build_node(b, start, mid, depth + 1);
	int right = build_node(b, mid, end, depth + 1);
	node = &b->nodes[index];
	node->right = right;
	node->first = -1;
	node->count = 0;
	return index;
}

typedef struct edge_record
{
	int32_t lo, hi; // vertex indices, lo < hi
	int32_t triangle;
	int32_t k;
} edge_record;

static int compare_edge(const void* x, const void* y)
{
	const edge_record* a = (const edge_record*)x;
	const edge_record* b = (const edge_record*)y;
	if (a->lo != b->lo)
	{
		return a->lo < b->lo ? -1 : 1;
	}
	if (a->hi != b->hi)
	{
		return a->hi < b->hi ? -1 : 1;
	}
	if (a->triangle != b->triangle)
	{
		return a->triangle < b->triangle ? -1 : 1;
	}
	return a->k < b->k ? -1 : (a->k > b->k ? 1 : 0);
}

static sn_vec3 triangle_normal(const collide_mesh* mesh, int t)
{
	sn_vec3 p[3];
	mesh_triangle(mesh, t, p);
	return sn_normalize(sn_cross(sn_sub(p[1], p[0]), sn_sub(p[2], p[0])));
}

static void classify_edges(collide_mesh* mesh, edge_record* records)
{
	int n = mesh->triangle_count;
	for (int t = 0; t < n; ++t)
	{
		mesh->edge_flags[t] = 0;
		for (int k = 0; k < 3; ++k)
		{
			int32_t a = mesh->triangles[t].v[k];
			int32_t b = mesh->triangles[t].v[(k + 1) % 3];
			edge_record r = { a < b ? a : b, a < b ? b : a, t, k };
			records[3 * t + k] = r;
		}
	}
	qsort(records, (size_t)(3 * n), sizeof(edge_record), compare_edge);
	int i = 0;
	while (i < 3 * n)
	{
		int j = i + 1;
		while (j < 3 * n && records[j].lo == records[i].lo && records[j].hi == records[i].hi)
		{
			++j;
		}
		bool active = true;
		if (j - i == 2)
		{
			const edge_record* r1 = &records[i];
			const edge_record* r2 = &records[i + 1];
			const collide_triangle* t1 = &mesh->triangles[r1->triangle];
			const collide_triangle* t2 = &mesh->triangles[r2->triangle];
			int32_t a = t1->v[r1->k], b = t1->v[(r1->k + 1) % 3];
			bool opposite = t2->v[r2->k] == b && t2->v[(r2->k + 1) % 3] == a;
			if (opposite)
			{
				sn_vec3 n1 = triangle_normal(mesh, r1->triangle);
				sn_vec3 n2 = triangle_normal(mesh, r2->triangle);
				sn_vec3 dir = sn_sub(mesh->vertices[b], mesh->vertices[a]);
				double c = sn_dot(n1, n2);
				if (c < -0.99984769515639127) // back to back (within 1 degree)
				{
					active = true;
				}
				else if (sn_dot(sn_cross(n1, n2), dir) < 0.0)
				{
					active = false; // concave
				}
				else
				{
					active = c < COLLIDE_MESH_ACTIVE_EDGE_COS;
				}
			}
		}
		for (int e = i; e < j; ++e)
		{
			if (active)
			{
				mesh->edge_flags[records[e].triangle] |= (uint8_t)COLLIDE_EDGE_ACTIVE(records[e].k);
			}
		}
		i = j;
	}
}

sn_error mesh_build(sn_memory* memory, const sn_vec3* vertices, int vertex_count, const int32_t* indices,
					int triangle_count, collide_mesh** out, char* detail, size_t cap)
{
	if (vertices == NULL || indices == NULL || out == NULL)
	{
		collide_detail(detail, cap, "mesh build: vertices, indices or out is NULL");
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (triangle_count <= 0)
	{
		collide_detail(detail, cap, "mesh has no triangles (triangle count %d)", triangle_count);
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (vertex_count < 3)
	{
		collide_detail(detail, cap, "mesh has %d vertices (a triangle needs 3)", vertex_count);
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (triangle_count > COLLIDE_MESH_MAX_TRIANGLES)
	{
		collide_detail(detail, cap, "mesh has %d triangles (at most %d)", triangle_count, COLLIDE_MESH_MAX_TRIANGLES);
		return SN_ERR_CAPACITY;
	}
	if (vertex_count > COLLIDE_MESH_MAX_VERTICES)
	{
		collide_detail(detail, cap, "mesh has %d vertices (at most %d)", vertex_count, COLLIDE_MESH_MAX_VERTICES);
		return SN_ERR_CAPACITY;
	}
	for (int i = 0; i < vertex_count; ++i)
	{
		sn_vec3 v = vertices[i];
		if (!sn_vec3_is_finite(v))
		{
			collide_detail(detail, cap, "mesh vertex %d is (%g, %g, %g) (must be finite)", i, v.x, v.y, v.z);
			return SN_ERR_NOT_FINITE;
		}
		if (fabs(v.x) > COLLIDE_MAX_SIZE || fabs(v.y) > COLLIDE_MAX_SIZE || fabs(v.z) > COLLIDE_MAX_SIZE)
		{
			collide_detail(detail, cap, "mesh vertex %d is (%g, %g, %g) (coordinates within %g m)", i, v.x, v.y, v.z,
						   COLLIDE_MAX_SIZE);
			return SN_ERR_INVALID_ARGUMENT;
		}
	}
	for (int t = 0; t < triangle_count; ++t)
	{
		const int32_t* v = &indices[3 * t];
		for (int k = 0; k < 3; ++k)
		{
			if (v[k] < 0 || v[k] >= vertex_count)
			{
				collide_detail(detail, cap, "mesh triangle %d index %d is %d (must be in [0, %d))", t, k, (int)v[k],
							   vertex_count);
				return SN_ERR_INVALID_ARGUMENT;
			}
		}
		sn_vec3 a = vertices[v[0]], b = vertices[v[1]], c = vertices[v[2]];
		double l2 = fmax(sn_length_sq(sn_sub(b, a)), fmax(sn_length_sq(sn_sub(c, b)), sn_length_sq(sn_sub(a, c))));
		double cross = sn_length(sn_cross(sn_sub(b, a), sn_sub(c, a)));
		if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0] || !(cross > COLLIDE_MESH_DEGENERATE_RATIO * l2) ||
			!(l2 >= COLLIDE_MIN_SIZE * COLLIDE_MIN_SIZE))
		{
			collide_detail(detail, cap, "mesh triangle %d (%d, %d, %d) is degenerate (area %g m^2, longest edge %g m)",
						   t, (int)v[0], (int)v[1], (int)v[2], 0.5 * cross, sqrt(l2));
			return SN_ERR_INVALID_ARGUMENT;
		}
	}
	int node_count = node_count_for(triangle_count);
	size_t nt = (size_t)triangle_count;
	size_t off_vertices = align8(sizeof(collide_mesh));
	size_t off_triangles = align8(off_vertices + (size_t)vertex_count * sizeof(sn_vec3));
	size_t off_flags = align8(off_triangles + nt * sizeof(collide_triangle));
	size_t off_nodes = align8(off_flags + nt * sizeof(uint8_t));
	size_t off_order = align8(off_nodes + (size_t)node_count * sizeof(collide_bvh_node));
	size_t bytes = align8(off_order + nt * sizeof(int32_t));
	size_t scratch_bytes = align8(nt * sizeof(sn_vec3)) + align8(3 * nt * sizeof(edge_record));
	unsigned char* block = (unsigned char*)memory_alloc(memory, bytes);
	unsigned char* scratch = block != NULL ? (unsigned char*)memory_alloc(memory, scratch_bytes) : NULL;
	if (scratch == NULL)
	{
		memory_free(memory, block, bytes);
		collide_detail(detail, cap, "mesh build: out of memory for %zu bytes", bytes + scratch_bytes);
		return SN_ERR_NO_MEMORY;
	}
	collide_mesh* mesh = (collide_mesh*)block;
	mesh->vertex_count = vertex_count;
	mesh->triangle_count = triangle_count;
	mesh->node_count = node_count;
	mesh->vertices = (sn_vec3*)(block + off_vertices);
	mesh->triangles = (collide_triangle*)(block + off_triangles);
	mesh->edge_flags = (uint8_t*)(block + off_flags);
	mesh->nodes = (collide_bvh_node*)(block + off_nodes);
	mesh->order = (int32_t*)(block + off_order);
	mesh->bytes = bytes;
	memcpy(mesh->vertices, vertices, (size_t)vertex_count * sizeof(sn_vec3));
	for (int t = 0; t < triangle_count; ++t)
	{
		for (int k = 0; k < 3; ++k)
		{
			mesh->triangles[t].v[k] = indices[3 * t + k];
		}
		mesh->order[t] = t;
	}
	sn_vec3* centroid = (sn_vec3*)scratch;
	edge_record* records = (edge_record*)(scratch + align8(nt * sizeof(sn_vec3)));
	for (int t = 0; t < triangle_count; ++t)
	{
		sn_vec3 p[3];
		mesh_triangle(mesh, t, p);
		centroid[t] = sn_scale(1.0 / 3.0, sn_add(p[0], sn_add(p[1], p[2])));
	}
	bvh_build b = { mesh, mesh->nodes, mesh->order, centroid, 0, 0, 0 };
	build_node(&b, 0, triangle_count, 1);
	mesh->depth = b.depth;
	mesh->bounds = mesh->nodes[0].aabb;
	sn_vec3 ext = sn_sub(mesh->bounds.upper, mesh->bounds.lower);
	mesh->size = fmax(ext.x, fmax(ext.y, ext.z));
	classify_edges(mesh, records);
	memory_free(memory, scratch, scratch_bytes);
	*out = mesh;
	return SN_ERR_OK;
}

void mesh_destroy(sn_memory* memory, collide_mesh* mesh)
{
	if (mesh != NULL)
	{
		memory_free(memory, mesh, mesh->bytes);
	}
}

void bvh_query(const collide_mesh* mesh, collide_aabb box, bvh_visit_fn visit, void* context)
{
	int stack[COLLIDE_BVH_MAX_DEPTH + 1];
	int top = 0;
	int node = 0;
	for (;;)
	{
		const collide_bvh_node* n = &mesh->nodes[node];
		bool descend = false;
		if (aabb_overlaps(n->aabb, box))
		{
			if (n->count > 0)
			{
				for (int i = 0; i < n->count; ++i)
				{
					int t = mesh->order[n->first + i];
					if (aabb_overlaps(triangle_box(mesh, t), box) && !visit(context, t))
					{
						return;
					}
				}
			}
			else
			{
				stack[top++] = n->right;
				node = node + 1;
				descend = true;
			}
		}
		if (!descend)
		{
			if (top == 0)
			{
				return;
			}
			node = stack[--top];
		}
	}
}

void bvh_ray_cast(const collide_mesh* mesh, sn_vec3 origin, sn_vec3 translation, double max_fraction, bvh_ray_fn visit,
				  void* context)
{
	sn_vec3 inv = aabb_ray_inverse(translation);
	int stack[COLLIDE_BVH_MAX_DEPTH + 1];
	int top = 0;
	int node = 0;
	for (;;)
	{
		const collide_bvh_node* n = &mesh->nodes[node];
		bool descend = false;
		if (aabb_ray_overlaps(n->aabb, origin, inv, max_fraction))
		{
			if (n->count > 0)
			{
				for (int i = 0; i < n->count; ++i)
				{
					max_fraction = visit(context, mesh->order[n->first + i], max_fraction);
					if (max_fraction <= 0.0)
					{
						return;
					}
				}
			}
			else
			{
				// Nearer child first: the one whose centre lies earlier along the ray.
				int first = node + 1, second = n->right;
				double d1 = sn_dot(sn_sub(aabb_center(mesh->nodes[first].aabb), origin), translation);
				double d2 = sn_dot(sn_sub(aabb_center(mesh->nodes[second].aabb), origin), translation);
				if (d2 < d1)
				{
					int t = first;
					first = second;
					second = t;
				}
				stack[top++] = second;
				node = first;
				descend = true;
			}
		}
		if (!descend)
		{
			if (top == 0)
			{
				return;
			}
			node = stack[--top];
		}
	}
}
