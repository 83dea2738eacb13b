// Convex hull by quickhull (Barber, Dobkin and Huhdanpaa, "The Quickhull Algorithm for Convex Hulls",
// ACM TOMS 22(4), 1996; Gregorius, "Implementing Quickhull", GDC 2014), with thick planes and a merge of
// coplanar triangles into polygons.
//
// 1. Tolerance. Points are centred on their bounding box (so coordinates far from the origin keep their
//    precision). eps = max(3 DBL_EPSILON (max|x| + max|y| + max|z|), REL * extent) with REL =
//    COLLIDE_HULL_RELATIVE_TOLERANCE: the first term is the rounding error of a plane distance
//    (Barber et al. sec. 4), the second makes "near-coplanar" a property of the shape's size, not of the
//    machine, so a flat face of a float-precision mesh stays one face. Everything below compares signed
//    plane distances with eps ("thick planes").
// 2. Initial simplex: the two extreme points along the axis of largest extent, the point farthest from
//    their line, the point farthest from their plane. If the first distance is <= eps the points are
//    duplicates, the second collinear, the third coplanar: typed errors with the measured value.
// 3. Each point outside the simplex by more than eps joins the outside set of the face it is farthest
//    above. Iterate: the eye is the point farthest above any face (so when the vertex limit stops the
//    build, the hull has the most extreme points). Faces the eye is above at all (by more than the
//    rounding of a distance, vis = 3 DBL_EPSILON (max|x| + max|y| + max|z|), not by eps: a face left in
//    place while the eye is slightly above it would meet the new cone at a concave angle, and across a
//    large flat region such bends add up), grown as a connected set from its face, are visible; their
//    boundary, the horizon, must be one closed loop (else the eye is dropped as numerically ambiguous).
//    A cone of triangles from the eye to the horizon replaces the visible faces; their outside points
//    move to the new face they are farthest above by more than eps, or are inside and forgotten.
// 4. Merge: triangles, largest first as seeds, absorb neighbours whose vertices lie within 2 eps of the
//    seed's plane and that face the same way; each group's boundary (one loop and convex within 2 eps,
//    else the group stays triangles) is a polygon face. A vertex left with only two faces lies on a straight edge between
//    them and is removed from both.
// 5. Planes: each polygon's normal is its seed's, the largest triangle of the group: every vertex of the
//    group lies within 2 eps of that plane by construction (an average such as Newell's normal can tilt
//    a long thin face enough to put neighbouring vertices above it). The offset is the largest n . v
//    over all vertices, so every vertex is on or below every plane and the plane set and the vertex set
//    describe the same solid.
// 6. Half-edges with twins, undirected edges, a leaving half-edge per vertex; V - E + F = 2 is checked
//    (a failure falls back to the triangles of step 3, which always form a closed surface).
#include "collide/hull.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// The pool of triangles during the build: live faces <= 2 V - 4 and a cone adds at most V more.
#define QH_FACE_CAPACITY (4 * COLLIDE_HULL_MAX_VERTICES + 16)

typedef struct qh_face
{
	int v[3];   // point indices, counter-clockwise from outside
	int adj[3]; // the face across edge k (v[k] to v[k + 1])
	sn_vec3 normal;
	double offset;
	int outside;         // first point of the outside set, -1 if empty
	int far;             // its farthest point
	double far_distance; // and how far above
	int stamp;           // visible in the iteration with this stamp
	bool alive;
} qh_face;

typedef struct qh_edge
{
	int face; // the visible face
	int k;    // its edge
	int a, b; // from a to b
} qh_edge;

typedef struct qh
{
	const sn_vec3* input; // the caller's points
	sn_vec3* p;           // centred points
	int n;
	int* next; // outside-set links
	int* mark; // per point stamp
	qh_face* faces;
	int face_high;
	int face_free;
	double eps; // coplanarity tolerance: points closer than this to the hull are on it
	double vis; // rounding of a plane distance: faces the eye is above by more than this are visible
	int stamp;
	int hull_vertices;
	int dropped;
	bool simplified;
	// per-iteration scratch
	int visible[QH_FACE_CAPACITY];
	int stack[QH_FACE_CAPACITY];
	qh_edge horizon[3 * QH_FACE_CAPACITY];
	qh_edge loop[3 * QH_FACE_CAPACITY];
	int cone[3 * QH_FACE_CAPACITY];
} qh;

static double face_distance(const qh* h, const qh_face* f, int point)
{
	return sn_dot(f->normal, h->p[point]) - f->offset;
}

static int face_new(qh* h, int a, int b, int c)
{
	int index;
	if (h->face_free >= 0)
	{
		index = h->face_free;
		h->face_free = h->faces[index].outside; // the free list reuses the outside link
	}
	else
	{
		if (h->face_high >= QH_FACE_CAPACITY)
		{
			return -1;
		}
		index = h->face_high++;
	}
	qh_face* f = &h->faces[index];
	memset(f, 0, sizeof(*f));
	f->v[0] = a;
	f->v[1] = b;
	f->v[2] = c;
	f->adj[0] = f->adj[1] = f->adj[2] = -1;
	sn_vec3 pa = h->p[a];
	sn_vec3 n = sn_cross(sn_sub(h->p[b], pa), sn_sub(h->p[c], pa));
	f->normal = sn_normalize(n);
	f->offset = sn_dot(f->normal, pa);
	f->outside = -1;
	f->far = -1;
	f->far_distance = 0.0;
	f->stamp = 0;
	f->alive = true;
	return index;
}

static void face_release(qh* h, int index)
{
	h->faces[index].alive = false;
	h->faces[index].outside = h->face_free;
	h->face_free = index;
}

// Adds point q to the outside set of the face among faces[0..count) it is farthest above by more than
// eps; returns false if it is above none (inside).
static bool assign_point(qh* h, const int* faces, int count, int q)
{
	int best = -1;
	double best_distance = h->eps;
	for (int i = 0; i < count; ++i)
	{
		double d = face_distance(h, &h->faces[faces[i]], q);
		if (d > best_distance)
		{
			best_distance = d;
			best = faces[i];
		}
	}
	if (best < 0)
	{
		return false;
	}
	qh_face* f = &h->faces[best];
	h->next[q] = f->outside;
	f->outside = q;
	if (f->far < 0 || best_distance > f->far_distance)
	{
		f->far = q;
		f->far_distance = best_distance;
	}
	return true;
}

// The face's farthest outside point again (after one was taken out).
static void refresh_far(qh* h, qh_face* f)
{
	f->far = -1;
	f->far_distance = 0.0;
	for (int q = f->outside; q >= 0; q = h->next[q])
	{
		double d = face_distance(h, f, q);
		if (f->far < 0 || d > f->far_distance)
		{
			f->far = q;
			f->far_distance = d;
		}
	}
}

// The edge index of g that runs from b to a (the twin of a to b), or -1.
static int edge_of(const qh_face* g, int a, int b)
{
	for (int k = 0; k < 3; ++k)
	{
		if (g->v[k] == b && g->v[(k + 1) % 3] == a)
		{
			return k;
		}
	}
	return -1;
}

// Orders edges[0..count) into one closed loop (each edge's b is the next one's a) in out. False if they
// do not form exactly one loop.
static bool chain_loop(const qh_edge* edges, int count, qh_edge* out)
{
	if (count < 3)
	{
		return false;
	}
	out[0] = edges[0];
	for (int i = 1; i < count; ++i)
	{
		int want = out[i - 1].b;
		int found = -1;
		for (int j = 0; j < count; ++j)
		{
			if (edges[j].a == want)
			{
				if (found >= 0)
				{
					return false; // a vertex starts two edges: not a simple loop
				}
				found = j;
			}
		}
		if (found < 0 || found == 0)
		{
			return false; // open, or closed too early
		}
		out[i] = edges[found];
	}
	return out[count - 1].b == out[0].a;
}

// One quickhull step with eye point `eye` seen from face `start`. Returns false when the pool is full.
static bool add_point(qh* h, int start, int eye)
{
	int stamp = ++h->stamp;
	// Visible faces: a connected set grown from start.
	int nv = 0;
	int top = 0;
	h->faces[start].stamp = stamp;
	h->stack[top++] = start;
	while (top > 0)
	{
		int f = h->stack[--top];
		h->visible[nv++] = f;
		for (int k = 0; k < 3; ++k)
		{
			int g = h->faces[f].adj[k];
			if (h->faces[g].stamp != stamp && face_distance(h, &h->faces[g], eye) > h->vis)
			{
				h->faces[g].stamp = stamp;
				h->stack[top++] = g;
			}
		}
	}
	// The horizon: edges of visible faces whose neighbour is not visible.
	int nh = 0;
	for (int i = 0; i < nv; ++i)
	{
		const qh_face* f = &h->faces[h->visible[i]];
		for (int k = 0; k < 3; ++k)
		{
			if (h->faces[f->adj[k]].stamp != stamp)
			{
				qh_edge e = { h->visible[i], k, f->v[k], f->v[(k + 1) % 3] };
				h->horizon[nh++] = e;
			}
		}
	}
	qh_face* sf = &h->faces[start];
	if (!chain_loop(h->horizon, nh, h->loop))
	{
		// Numerically ambiguous eye (a hole in the visible set): drop it. It lies within a few eps of
		// faces around it, so the hull misses it by about that much.
		int* link = &sf->outside;
		while (*link != eye)
		{
			link = &h->next[*link];
		}
		*link = h->next[eye];
		refresh_far(h, sf);
		h->dropped += 1;
		for (int i = 0; i < nv; ++i)
		{
			h->faces[h->visible[i]].stamp = 0;
		}
		return true;
	}
	// Vertex count: the visible faces' vertices not on the horizon fall inside.
	int vstamp = ++h->stamp;
	int removed = 0;
	for (int i = 0; i < nh; ++i)
	{
		h->mark[h->loop[i].a] = vstamp;
	}
	for (int i = 0; i < nv; ++i)
	{
		for (int k = 0; k < 3; ++k)
		{
			int q = h->faces[h->visible[i]].v[k];
			if (h->mark[q] != vstamp)
			{
				h->mark[q] = vstamp;
				removed += 1;
			}
		}
	}
	// The cone.
	for (int i = 0; i < nh; ++i)
	{
		int nf = face_new(h, h->loop[i].a, h->loop[i].b, eye);
		if (nf < 0)
		{
			return false;
		}
		h->cone[i] = nf;
	}
	for (int i = 0; i < nh; ++i)
	{
		qh_face* nf = &h->faces[h->cone[i]];
		int old = h->loop[i].face;
		int g = h->faces[old].adj[h->loop[i].k];
		nf->adj[0] = g;
		nf->adj[1] = h->cone[(i + 1) % nh];
		nf->adj[2] = h->cone[(i + nh - 1) % nh];
		int kg = edge_of(&h->faces[g], h->loop[i].a, h->loop[i].b);
		h->faces[g].adj[kg] = h->cone[i];
	}
	// Outside points of the visible faces go to the cone or are inside.
	for (int i = 0; i < nv; ++i)
	{
		int q = h->faces[h->visible[i]].outside;
		while (q >= 0)
		{
			int next = h->next[q];
			if (q != eye)
			{
				assign_point(h, h->cone, nh, q);
			}
			q = next;
		}
	}
	for (int i = 0; i < nv; ++i)
	{
		face_release(h, h->visible[i]);
	}
	h->hull_vertices += 1 - removed;
	return true;
}

static double coord(sn_vec3 v, int axis)
{
	return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

// Steps 1-3. Returns an error with detail for degenerate input.
static sn_error quickhull(qh* h, char* detail, size_t cap)
{
	const sn_vec3* p = h->p;
	int n = h->n;
	// Extremes per axis.
	int lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
	for (int i = 1; i < n; ++i)
	{
		for (int a = 0; a < 3; ++a)
		{
			if (coord(p[i], a) < coord(p[lo[a]], a))
			{
				lo[a] = i;
			}
			if (coord(p[i], a) > coord(p[hi[a]], a))
			{
				hi[a] = i;
			}
		}
	}
	int axis = 0;
	double extent = -1.0;
	for (int a = 0; a < 3; ++a)
	{
		double e = coord(p[hi[a]], a) - coord(p[lo[a]], a);
		if (e > extent)
		{
			extent = e;
			axis = a;
		}
	}
	int i0 = lo[axis], i1 = hi[axis];
	double base = sn_length(sn_sub(p[i1], p[i0]));
	if (!(base > h->eps))
	{
		collide_detail(detail, cap, "hull points are all duplicates of one point (spread %g m, tolerance %g m)", base,
					   h->eps);
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_vec3 dir = sn_scale(1.0 / base, sn_sub(p[i1], p[i0]));
	int i2 = -1;
	double best = -1.0;
	for (int i = 0; i < n; ++i)
	{
		sn_vec3 d = sn_sub(p[i], p[i0]);
		double dist = sn_length(sn_sub(d, sn_scale(sn_dot(d, dir), dir)));
		if (dist > best)
		{
			best = dist;
			i2 = i;
		}
	}
	if (!(best > h->eps))
	{
		collide_detail(detail, cap, "hull points are collinear (largest distance from their line %g m, tolerance %g m)",
					   best, h->eps);
		return SN_ERR_INVALID_ARGUMENT;
	}
	sn_vec3 normal = sn_normalize(sn_cross(sn_sub(p[i1], p[i0]), sn_sub(p[i2], p[i0])));
	int i3 = -1;
	best = -1.0;
	for (int i = 0; i < n; ++i)
	{
		double dist = fabs(sn_dot(normal, sn_sub(p[i], p[i0])));
		if (dist > best)
		{
			best = dist;
			i3 = i;
		}
	}
	if (!(best > h->eps))
	{
		collide_detail(detail, cap, "hull points are coplanar (thickness %g m, tolerance %g m)", best, h->eps);
		return SN_ERR_INVALID_ARGUMENT;
	}
	// The simplex, faces outward: if i3 is above (i0, i1, i2), that face turns the other way.
	if (sn_dot(normal, sn_sub(p[i3], p[i0])) > 0.0)
	{
		int t = i1;
		i1 = i2;
		i2 = t;
	}
	// Faces (i0 i1 i2), (i0 i3 i1), (i1 i3 i2), (i2 i3 i0): each edge walked once each way.
	int f0 = face_new(h, i0, i1, i2);
	int f1 = face_new(h, i0, i3, i1);
	int f2 = face_new(h, i1, i3, i2);
	int f3 = face_new(h, i2, i3, i0);
	int simplex[4] = { f0, f1, f2, f3 };
	for (int a = 0; a < 4; ++a)
	{
		qh_face* fa = &h->faces[simplex[a]];
		for (int k = 0; k < 3; ++k)
		{
			for (int b = 0; b < 4; ++b)
			{
				if (b != a && edge_of(&h->faces[simplex[b]], fa->v[k], fa->v[(k + 1) % 3]) >= 0)
				{
					fa->adj[k] = simplex[b];
				}
			}
		}
	}
	h->hull_vertices = 4;
	for (int i = 0; i < n; ++i)
	{
		if (i != i0 && i != i1 && i != i2 && i != i3)
		{
			assign_point(h, simplex, 4, i);
		}
	}
	// Iterate.
	for (;;)
	{
		int face = -1;
		double far = h->eps;
		for (int f = 0; f < h->face_high; ++f)
		{
			if (h->faces[f].alive && h->faces[f].outside >= 0 && h->faces[f].far_distance > far)
			{
				far = h->faces[f].far_distance;
				face = f;
			}
		}
		if (face < 0)
		{
			break;
		}
		if (h->hull_vertices >= COLLIDE_HULL_MAX_VERTICES)
		{
			h->simplified = true;
			break;
		}
		if (!add_point(h, face, h->faces[face].far))
		{
			h->simplified = true; // the pool is sized for the vertex limit; this is a guard
			break;
		}
	}
	return SN_ERR_OK;
}

// ---- Step 4-6: polygons and the output ----

typedef struct poly_set
{
	int count;       // polygons
	int* start;      // [count + 1] into vertex
	int* vertex;     // point indices, counter-clockwise
	int vertex_len;  // used
	sn_vec3* normal; // [count] the plane normal of each polygon (its seed triangle's)
} poly_set;

static int compare_area(const void* a, const void* b)
{
	const double* x = (const double*)a; // {area, index}
	const double* y = (const double*)b;
	if (x[0] != y[0])
	{
		return x[0] > y[0] ? -1 : 1;
	}
	return x[1] < y[1] ? -1 : (x[1] > y[1] ? 1 : 0);
}

static int compare_int(const void* a, const void* b)
{
	int x = *(const int*)a, y = *(const int*)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

// Whether a merged group's boundary loop is convex around the seed's normal n: at each vertex b between
// a and c, b may lie inside the line a-c by at most 2 eps (the merge tolerance). Triangles that are
// coplanar within the tolerance on a gently curved band can otherwise outline a slightly concave
// polygon, which clipping and the face search need never to see.
static bool convex_loop(const qh* h, const qh_edge* loop, int count, sn_vec3 n)
{
	for (int i = 0; i < count; ++i)
	{
		sn_vec3 a = h->p[loop[i].a];
		sn_vec3 b = h->p[loop[(i + 1) % count].a];
		sn_vec3 c = h->p[loop[(i + 2) % count].a];
		double turn = sn_dot(sn_cross(sn_sub(b, a), sn_sub(c, b)), n);
		if (turn < -2.0 * h->eps * sn_length(sn_sub(c, a)))
		{
			return false;
		}
	}
	return true;
}

// Groups live triangles into polygons (merge = false keeps each triangle alone). tri lists the live
// faces; group is scratch [face_high]. Writes polygons into out (arrays sized by the caller).
static void make_polygons(qh* h, const int* tri, int nt, bool merge, int* group, double* order, int* queue,
						  int* seed_of, poly_set* out)
{
	for (int i = 0; i < h->face_high; ++i)
	{
		group[i] = -1;
	}
	for (int i = 0; i < nt; ++i)
	{
		const qh_face* f = &h->faces[tri[i]];
		double area = sn_length(sn_cross(sn_sub(h->p[f->v[1]], h->p[f->v[0]]), sn_sub(h->p[f->v[2]], h->p[f->v[0]])));
		order[2 * i] = area;
		order[2 * i + 1] = (double)tri[i];
	}
	qsort(order, (size_t)nt, 2 * sizeof(double), compare_area);
	int groups = 0;
	for (int s = 0; s < nt; ++s)
	{
		int seed = (int)order[2 * s + 1];
		if (group[seed] >= 0)
		{
			continue;
		}
		int g = groups++;
		group[seed] = g;
		seed_of[g] = seed;
		if (!merge)
		{
			continue;
		}
		sn_vec3 n = h->faces[seed].normal;
		double d = h->faces[seed].offset;
		int head = 0, tail = 0;
		queue[tail++] = seed;
		while (head < tail)
		{
			const qh_face* f = &h->faces[queue[head++]];
			for (int k = 0; k < 3; ++k)
			{
				int a = f->adj[k];
				if (group[a] >= 0)
				{
					continue;
				}
				const qh_face* fa = &h->faces[a];
				bool flat = sn_dot(fa->normal, n) > 0.0;
				for (int j = 0; j < 3 && flat; ++j)
				{
					flat = fabs(sn_dot(n, h->p[fa->v[j]]) - d) <= 2.0 * h->eps;
				}
				if (flat)
				{
					group[a] = g;
					queue[tail++] = a;
				}
			}
		}
	}
	// Each group's boundary as one loop; a group whose boundary is not one loop becomes triangles.
	qh_edge* edges = h->horizon;
	qh_edge* loop = h->loop;
	out->count = 0;
	out->vertex_len = 0;
	out->start[0] = 0;
	int groups_done = groups;
	for (int g = 0; g < groups_done; ++g)
	{
		int ne = 0;
		int members = 0;
		for (int i = 0; i < nt; ++i)
		{
			const qh_face* f = &h->faces[tri[i]];
			if (group[tri[i]] != g)
			{
				continue;
			}
			members += 1;
			for (int k = 0; k < 3; ++k)
			{
				if (group[f->adj[k]] != g && ne < 3 * QH_FACE_CAPACITY)
				{
					qh_edge e = { tri[i], k, f->v[k], f->v[(k + 1) % 3] };
					edges[ne++] = e;
				}
			}
		}
		if (members == 0)
		{
			continue;
		}
		if (members > 1 && (!chain_loop(edges, ne, loop) || !convex_loop(h, loop, ne, h->faces[seed_of[g]].normal)))
		{
			// Split into triangles: new groups at the end, handled by this same loop.
			bool first = true;
			for (int i = 0; i < nt; ++i)
			{
				if (group[tri[i]] == g)
				{
					if (first)
					{
						first = false; // keeps g
					}
					else
					{
						seed_of[groups] = tri[i];
						group[tri[i]] = groups++;
					}
				}
			}
			groups_done = groups;
			g -= 1; // redo g, now a single triangle
			continue;
		}
		if (members == 1)
		{
			// Its own three edges in order.
			for (int i = 0; i < nt; ++i)
			{
				if (group[tri[i]] == g)
				{
					const qh_face* f = &h->faces[tri[i]];
					for (int k = 0; k < 3; ++k)
					{
						qh_edge e = { tri[i], k, f->v[k], f->v[(k + 1) % 3] };
						loop[k] = e;
					}
				}
			}
			ne = 3;
		}
		for (int i = 0; i < ne; ++i)
		{
			out->vertex[out->vertex_len++] = loop[i].a;
		}
		out->normal[out->count] = h->faces[seed_of[g]].normal;
		out->count += 1;
		out->start[out->count] = out->vertex_len;
	}
}

// Removes vertices that lie on only two polygons (on a straight edge between them), unless that would
// leave a polygon with fewer than three. deg is scratch [n].
static void remove_straight_vertices(const qh* h, poly_set* ps, int* deg)
{
	memset(deg, 0, (size_t)h->n * sizeof(int));
	for (int i = 0; i < ps->vertex_len; ++i)
	{
		deg[ps->vertex[i]] += 1;
	}
	int w = 0;
	int start = 0;
	for (int f = 0; f < ps->count; ++f)
	{
		int end = ps->start[f + 1];
		int keep = 0;
		for (int i = start; i < end; ++i)
		{
			keep += deg[ps->vertex[i]] >= 3 ? 1 : 0;
		}
		bool prune = keep >= 3;
		ps->start[f] = w;
		for (int i = start; i < end; ++i)
		{
			if (!prune || deg[ps->vertex[i]] >= 3)
			{
				ps->vertex[w++] = ps->vertex[i];
			}
		}
		start = end;
	}
	ps->start[ps->count] = w;
	ps->vertex_len = w;
}

typedef struct half_key
{
	int a, b, index;
} half_key;

static int compare_half(const void* x, const void* y)
{
	const half_key* p = (const half_key*)x;
	const half_key* q = (const half_key*)y;
	if (p->a != q->a)
	{
		return p->a < q->a ? -1 : 1;
	}
	if (p->b != q->b)
	{
		return p->b < q->b ? -1 : 1;
	}
	return 0;
}

// Scratch for the output step.
typedef struct out_scratch
{
	int* remap;     // [n] point -> vertex, -1
	int* used;      // [n] points in use, sorted
	half_key* keys; // [vertex_len]
} out_scratch;

static size_t align8(size_t x)
{
	return (x + 7u) & ~(size_t)7u;
}

// Step 5-6: the hull from polygons. NULL (with *err set) if the structure fails its checks.
static collide_hull* emit(sn_memory* memory, const qh* h, const poly_set* ps, sn_vec3 centre, out_scratch* s,
						  sn_error* err)
{
	*err = SN_ERR_INVALID_ARGUMENT;
	int nv = 0;
	for (int i = 0; i < ps->vertex_len; ++i)
	{
		int q = ps->vertex[i];
		if (s->remap[q] == -1)
		{
			s->remap[q] = -2;
			s->used[nv++] = q;
		}
	}
	qsort(s->used, (size_t)nv, sizeof(int), compare_int);
	for (int i = 0; i < nv; ++i)
	{
		s->remap[s->used[i]] = i;
	}
	int nf = ps->count;
	int nh = ps->vertex_len;
	int ne = nh / 2;
	// A closed polyhedron has at least 4 faces and 4 vertices (a flat sliver whose sides merged into its
	// top and bottom has 2 faces: the caller falls back to the triangles then).
	bool ok = nv >= 4 && nf >= 4 && nv <= COLLIDE_HULL_MAX_VERTICES && nh % 2 == 0 && nv - ne + nf == 2 && nh < 65536;
	for (int f = 0; f < nf && ok; ++f)
	{
		ok = ps->start[f + 1] - ps->start[f] >= 3;
	}
	collide_hull* hull = NULL;
	if (ok)
	{
		size_t off_vertices = align8(sizeof(collide_hull));
		size_t off_faces = align8(off_vertices + (size_t)nv * sizeof(sn_vec3));
		size_t off_planes = align8(off_faces + (size_t)nf * sizeof(collide_hull_face));
		size_t off_half = align8(off_planes + (size_t)nf * sizeof(collide_plane));
		size_t off_edge_half = align8(off_half + (size_t)nh * sizeof(collide_hull_edge));
		size_t off_vertex_half = align8(off_edge_half + (size_t)ne * sizeof(uint16_t));
		size_t bytes = align8(off_vertex_half + (size_t)nv * sizeof(uint16_t));
		unsigned char* block = (unsigned char*)memory_alloc(memory, bytes);
		if (block == NULL)
		{
			*err = SN_ERR_NO_MEMORY;
			return NULL;
		}
		hull = (collide_hull*)block;
		hull->vertex_count = nv;
		hull->face_count = nf;
		hull->half_edge_count = nh;
		hull->edge_count = ne;
		hull->vertices = (sn_vec3*)(block + off_vertices);
		hull->faces = (collide_hull_face*)(block + off_faces);
		hull->planes = (collide_plane*)(block + off_planes);
		hull->half_edges = (collide_hull_edge*)(block + off_half);
		hull->edge_half = (uint16_t*)(block + off_edge_half);
		hull->vertex_half = (uint16_t*)(block + off_vertex_half);
		hull->bytes = bytes;
		hull->tolerance = h->eps;
		hull->simplified = h->simplified;
		// Vertices (centred for the plane computations; shifted back at the end).
		for (int i = 0; i < nv; ++i)
		{
			hull->vertices[i] = h->p[s->used[i]];
		}
		for (int f = 0; f < nf; ++f)
		{
			int first = ps->start[f];
			int count = ps->start[f + 1] - first;
			hull->faces[f].first = (uint16_t)first;
			hull->faces[f].count = (uint16_t)count;
			for (int k = 0; k < count; ++k)
			{
				collide_hull_edge* e = &hull->half_edges[first + k];
				e->origin = (uint16_t)s->remap[ps->vertex[first + k]];
				e->face = (uint16_t)f;
				e->twin = 0xffff;
				e->edge = 0xffff;
				half_key key = { e->origin, s->remap[ps->vertex[first + (k + 1) % count]], first + k };
				s->keys[first + k] = key;
			}
		}
		qsort(s->keys, (size_t)nh, sizeof(half_key), compare_half);
		for (int i = 0; i + 1 < nh && ok; ++i)
		{
			ok = compare_half(&s->keys[i], &s->keys[i + 1]) != 0; // no half-edge twice
		}
		int edges = 0;
		for (int i = 0; i < nh && ok; ++i)
		{
			half_key want = { s->keys[i].b, s->keys[i].a, 0 };
			const half_key* twin = (const half_key*)bsearch(&want, s->keys, (size_t)nh, sizeof(half_key), compare_half);
			if (twin == NULL)
			{
				ok = false;
				break;
			}
			collide_hull_edge* e = &hull->half_edges[s->keys[i].index];
			e->twin = (uint16_t)twin->index;
			if (s->keys[i].index < twin->index)
			{
				e->edge = (uint16_t)edges;
				hull->half_edges[twin->index].edge = (uint16_t)edges;
				hull->edge_half[edges] = (uint16_t)s->keys[i].index;
				edges += 1;
			}
		}
		ok = ok && edges == ne;
		if (ok)
		{
			for (int i = nh - 1; i >= 0; --i)
			{
				hull->vertex_half[hull->half_edges[i].origin] = (uint16_t)i;
			}
			// Planes: the seed triangle's normal (offsets below, over all vertices).
			for (int f = 0; f < nf && ok; ++f)
			{
				sn_vec3 nrm = ps->normal[f];
				ok = fabs(sn_length(nrm) - 1.0) < 1e-12;
				hull->planes[f].normal = nrm;
				hull->planes[f].offset = 0.0;
			}
		}
		if (ok)
		{
			// Centroid of volume: tetrahedra from the vertex mean over each face's fan.
			sn_vec3 ref = sn_v3(0, 0, 0);
			for (int i = 0; i < nv; ++i)
			{
				ref = sn_add(ref, hull->vertices[i]);
			}
			ref = sn_scale(1.0 / nv, ref);
			double volume6 = 0.0;
			sn_vec3 moment = sn_v3(0, 0, 0);
			for (int f = 0; f < nf; ++f)
			{
				int first = hull->faces[f].first;
				int count = hull->faces[f].count;
				sn_vec3 a = sn_sub(hull->vertices[hull->half_edges[first].origin], ref);
				for (int k = 1; k + 1 < count; ++k)
				{
					sn_vec3 b = sn_sub(hull->vertices[hull->half_edges[first + k].origin], ref);
					sn_vec3 c = sn_sub(hull->vertices[hull->half_edges[first + k + 1].origin], ref);
					double v6 = sn_dot(a, sn_cross(b, c));
					volume6 += v6;
					moment = sn_add(moment, sn_scale(v6 * 0.25, sn_add(a, sn_add(b, c))));
				}
			}
			ok = volume6 > 0.0;
			sn_vec3 centroid = sn_add(ref, sn_scale(1.0 / volume6, moment));
			// Back to the caller's frame: the vertices are the caller's points bit for bit, and the
			// offsets are taken again over them so that none is above any plane.
			collide_aabb bounds = aabb_point(h->input[s->used[0]]);
			for (int i = 0; i < nv; ++i)
			{
				hull->vertices[i] = h->input[s->used[i]];
				bounds = aabb_add_point(bounds, hull->vertices[i]);
			}
			for (int f = 0; f < nf; ++f)
			{
				double offset = -INFINITY;
				for (int i = 0; i < nv; ++i)
				{
					offset = fmax(offset, sn_dot(hull->planes[f].normal, hull->vertices[i]));
				}
				hull->planes[f].offset = offset;
			}
			hull->centroid = sn_add(centroid, centre);
			hull->bounds = bounds;
			sn_vec3 ext = sn_sub(bounds.upper, bounds.lower);
			hull->size = fmax(ext.x, fmax(ext.y, ext.z));
		}
		if (!ok)
		{
			memory_free(memory, hull, bytes);
			hull = NULL;
		}
	}
	for (int i = 0; i < nv; ++i)
	{
		s->remap[s->used[i]] = -1;
	}
	if (hull != NULL)
	{
		*err = SN_ERR_OK;
	}
	return hull;
}

sn_error hull_build(sn_memory* memory, const sn_vec3* points, int count, collide_hull** out, char* detail, size_t cap)
{
	if (points == NULL || out == NULL)
	{
		collide_detail(detail, cap, "hull build: points or out is NULL");
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (count < 4)
	{
		collide_detail(detail, cap, "hull needs at least 4 points, got %d", count);
		return SN_ERR_INVALID_ARGUMENT;
	}
	if (count > COLLIDE_HULL_MAX_POINTS)
	{
		collide_detail(detail, cap, "hull input has %d points (at most %d)", count, COLLIDE_HULL_MAX_POINTS);
		return SN_ERR_CAPACITY;
	}
	collide_aabb box = aabb_point(points[0]);
	for (int i = 0; i < count; ++i)
	{
		if (!sn_vec3_is_finite(points[i]))
		{
			collide_detail(detail, cap, "hull point %d is (%g, %g, %g) (must be finite)", i, points[i].x, points[i].y,
						   points[i].z);
			return SN_ERR_NOT_FINITE;
		}
		if (fabs(points[i].x) > COLLIDE_MAX_SIZE || fabs(points[i].y) > COLLIDE_MAX_SIZE ||
			fabs(points[i].z) > COLLIDE_MAX_SIZE)
		{
			collide_detail(detail, cap, "hull point %d is (%g, %g, %g) (coordinates within %g m)", i, points[i].x,
						   points[i].y, points[i].z, COLLIDE_MAX_SIZE);
			return SN_ERR_INVALID_ARGUMENT;
		}
		box = aabb_add_point(box, points[i]);
	}
	// Scratch: the state, centred points, links and marks, polygon arrays.
	size_t n = (size_t)count;
	size_t bytes_state = align8(sizeof(qh));
	size_t bytes_points = align8(n * sizeof(sn_vec3));
	size_t bytes_ints = align8(n * sizeof(int));
	size_t bytes_faces = align8(QH_FACE_CAPACITY * sizeof(qh_face));
	size_t bytes_face_ints = align8(QH_FACE_CAPACITY * sizeof(int));
	size_t bytes_order = align8(QH_FACE_CAPACITY * 2 * sizeof(double));
	size_t bytes_poly = align8(3 * QH_FACE_CAPACITY * sizeof(int));
	size_t bytes_keys = align8(3 * QH_FACE_CAPACITY * sizeof(half_key));
	size_t bytes_normals = align8(QH_FACE_CAPACITY * sizeof(sn_vec3));
	size_t total = bytes_state + bytes_points + 5 * bytes_ints + bytes_faces + 2 * bytes_face_ints + bytes_order +
		2 * bytes_poly + bytes_normals + bytes_keys;
	unsigned char* scratch = (unsigned char*)memory_alloc(memory, total);
	if (scratch == NULL)
	{
		collide_detail(detail, cap, "hull build: out of memory for %zu bytes of scratch", total);
		return SN_ERR_NO_MEMORY;
	}
	unsigned char* at = scratch;
	qh* h = (qh*)at;
	at += bytes_state;
	h->p = (sn_vec3*)at;
	at += bytes_points;
	h->next = (int*)at;
	at += bytes_ints;
	h->mark = (int*)at;
	at += bytes_ints;
	int* deg = (int*)at;
	at += bytes_ints;
	out_scratch os;
	os.remap = (int*)at;
	at += bytes_ints;
	os.used = (int*)at;
	at += bytes_ints;
	h->faces = (qh_face*)at;
	at += bytes_faces;
	int* group = (int*)at;
	at += bytes_face_ints;
	int* queue = (int*)at;
	at += bytes_face_ints;
	double* order = (double*)at;
	at += bytes_order;
	poly_set ps;
	ps.start = (int*)at;
	at += bytes_poly;
	ps.vertex = (int*)at;
	at += bytes_poly;
	ps.normal = (sn_vec3*)at;
	at += bytes_normals;
	os.keys = (half_key*)at;

	sn_vec3 centre = aabb_center(box);
	double sum_abs[3] = { 0, 0, 0 };
	for (int i = 0; i < count; ++i)
	{
		h->p[i] = sn_sub(points[i], centre);
		h->next[i] = -1;
		h->mark[i] = 0;
		os.remap[i] = -1;
		sum_abs[0] = fmax(sum_abs[0], fabs(h->p[i].x));
		sum_abs[1] = fmax(sum_abs[1], fabs(h->p[i].y));
		sum_abs[2] = fmax(sum_abs[2], fabs(h->p[i].z));
	}
	h->n = count;
	h->input = points;
	h->face_high = 0;
	h->face_free = -1;
	h->stamp = 0;
	h->dropped = 0;
	h->simplified = false;
	sn_vec3 ext = sn_sub(box.upper, box.lower);
	double extent = fmax(ext.x, fmax(ext.y, ext.z));
	h->vis = 3.0 * DBL_EPSILON * (sum_abs[0] + sum_abs[1] + sum_abs[2]);
	h->eps = fmax(h->vis, COLLIDE_HULL_RELATIVE_TOLERANCE * extent);

	sn_error err = quickhull(h, detail, cap);
	collide_hull* hull = NULL;
	if (err == SN_ERR_OK)
	{
		int nt = 0;
		for (int f = 0; f < h->face_high; ++f)
		{
			if (h->faces[f].alive)
			{
				queue[nt++] = f;
			}
		}
		// The live triangles are copied aside (queue is reused by the merge); seed_of names each group's
		// seed triangle (groups never outnumber triangles).
		int tri[QH_FACE_CAPACITY];
		int seed_of[QH_FACE_CAPACITY];
		memcpy(tri, queue, (size_t)nt * sizeof(int));
		make_polygons(h, tri, nt, true, group, order, queue, seed_of, &ps);
		remove_straight_vertices(h, &ps, deg);
		hull = emit(memory, h, &ps, centre, &os, &err);
		if (hull == NULL && err != SN_ERR_NO_MEMORY)
		{
			// Fall back to the triangles, which always close.
			make_polygons(h, tri, nt, false, group, order, queue, seed_of, &ps);
			hull = emit(memory, h, &ps, centre, &os, &err);
		}
		if (hull == NULL && err != SN_ERR_NO_MEMORY)
		{
			collide_detail(detail, cap, "hull build failed on numerically degenerate input (%d points)", count);
		}
		else if (hull == NULL)
		{
			collide_detail(detail, cap, "hull build: out of memory");
		}
	}
	memory_free(memory, scratch, total);
	if (hull != NULL)
	{
		*out = hull;
	}
	return err;
}

void hull_destroy(sn_memory* memory, collide_hull* hull)
{
	if (hull != NULL)
	{
		memory_free(memory, hull, hull->bytes);
	}
}

int hull_support_vertex(const collide_hull* hull, sn_vec3 d)
{
	int best = 0;
	double best_dot = sn_dot(hull->vertices[0], d);
	for (int i = 1; i < hull->vertex_count; ++i)
	{
		double t = sn_dot(hull->vertices[i], d);
		if (t > best_dot)
		{
			best_dot = t;
			best = i;
		}
	}
	return best;
}

int hull_support_face(const collide_hull* hull, sn_vec3 d)
{
	int v = hull_support_vertex(hull, d);
	int start = hull->vertex_half[v];
	int e = start;
	int best = hull->half_edges[e].face;
	double best_dot = sn_dot(hull->planes[best].normal, d);
	for (int guard = 0; guard < hull->half_edge_count; ++guard)
	{
		// The half-edge before e in its face ends at v; its twin leaves v on the next face around.
		const collide_hull_face* f = &hull->faces[hull->half_edges[e].face];
		int prev = f->first + (e - f->first + f->count - 1) % f->count;
		e = hull->half_edges[prev].twin;
		if (e == start)
		{
			break;
		}
		int face = hull->half_edges[e].face;
		double t = sn_dot(hull->planes[face].normal, d);
		if (t > best_dot)
		{
			best_dot = t;
			best = face;
		}
	}
	return best;
}

bool hull_validate(const collide_hull* hull, char* detail, size_t cap)
{
	int nv = hull->vertex_count, nf = hull->face_count, nh = hull->half_edge_count, ne = hull->edge_count;
	if (nv < 4 || nf < 4 || nh != 2 * ne || nv - ne + nf != 2)
	{
		collide_detail(detail, cap, "hull counts V %d E %d F %d H %d break V - E + F = 2", nv, ne, nf, nh);
		return false;
	}
	for (int f = 0; f < nf; ++f)
	{
		const collide_hull_face* face = &hull->faces[f];
		if (face->count < 3 || face->first + face->count > nh)
		{
			collide_detail(detail, cap, "hull face %d has %d half-edges", f, face->count);
			return false;
		}
		for (int k = 0; k < face->count; ++k)
		{
			int e = face->first + k;
			const collide_hull_edge* he = &hull->half_edges[e];
			const collide_hull_edge* tw = &hull->half_edges[he->twin];
			int next = face->first + (k + 1) % face->count;
			if (he->face != f || tw->twin != e || tw->edge != he->edge || tw->origin != hull->half_edges[next].origin)
			{
				collide_detail(detail, cap, "hull half-edge %d of face %d has a bad twin or face", e, f);
				return false;
			}
			// Convex corner: the next edge turns left around the face normal.
			sn_vec3 a = hull->vertices[he->origin];
			sn_vec3 b = hull->vertices[hull->half_edges[next].origin];
			sn_vec3 c = hull->vertices[hull->half_edges[face->first + (k + 2) % face->count].origin];
			double turn = sn_dot(sn_cross(sn_sub(b, a), sn_sub(c, b)), hull->planes[f].normal);
			double scale = sn_length(sn_sub(b, a)) * sn_length(sn_sub(c, b));
			if (turn < -4.0 * hull->tolerance * sn_length(sn_sub(c, a)) - 1e-12 * scale)
			{
				collide_detail(detail, cap, "hull face %d is not convex at half-edge %d (turn %g)", f, e, turn);
				return false;
			}
		}
		for (int i = 0; i < nv; ++i)
		{
			double d = sn_dot(hull->planes[f].normal, hull->vertices[i]) - hull->planes[f].offset;
			if (d > 1e-9 * hull->size)
			{
				collide_detail(detail, cap, "hull vertex %d is %g m above face %d", i, d, f);
				return false;
			}
		}
		// Face vertices close to their plane.
		for (int k = 0; k < face->count; ++k)
		{
			sn_vec3 p = hull->vertices[hull->half_edges[face->first + k].origin];
			double d = sn_dot(hull->planes[f].normal, p) - hull->planes[f].offset;
			if (d < -4.0 * hull->tolerance - 1e-12 * hull->size)
			{
				collide_detail(detail, cap, "hull face %d vertex is %g m below its plane", f, d);
				return false;
			}
		}
	}
	for (int e = 0; e < ne; ++e)
	{
		if (hull->half_edges[hull->edge_half[e]].edge != e)
		{
			collide_detail(detail, cap, "hull edge %d does not name its half-edge", e);
			return false;
		}
	}
	for (int v = 0; v < nv; ++v)
	{
		if (hull->half_edges[hull->vertex_half[v]].origin != v)
		{
			collide_detail(detail, cap, "hull vertex %d does not name a leaving half-edge", v);
			return false;
		}
	}
	return true;
}
