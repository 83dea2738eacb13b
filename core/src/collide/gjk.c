// GJK and EPA.
//
// GJK (Gilbert, Johnson and Keerthi 1988; van den Bergen, "Collision Detection in Interactive 3D
// Environments", 2004, 4.3; Ericson, "Real-Time Collision Detection", 9.5). The distance between convex
// A and B is the distance from the origin to their Minkowski difference D = A - B, whose support is
// s_D(d) = s_A(d) - s_B(-d). Keep a simplex of support points of D; each iteration finds the point v of
// the simplex closest to the origin (with barycentric weights, dropping the vertices it does not use:
// Johnson's sub-algorithm by Voronoi regions, as Ericson 5.1.5 and 5.1.6 write it for the triangle and
// the tetrahedron), takes w = s_D(-v) and adds it. |v| is an upper bound on the distance and v . w / |v|
// a lower bound, so the loop ends when |v|^2 - v . w <= eps |v|^2 (van den Bergen's criterion; or when
// the bounds are within 1e-14 of the solids' size, the rounding of their coordinates), when no
// progress is made, or when the origin is inside the simplex or within the touch tolerance of it
// (overlap). A loop that ends without the bounds meeting and without any support plane having separated
// the origin by more than the touch tolerance counts as an overlap too (near a curved surface the
// simplices close in on an inside origin slowly). The closest points are the same weights applied to the A and B support points.
//
// EPA (van den Bergen 2001, "Proximity Queries and Penetration Depth Computation on 3D Game
// Objects"). When the solids overlap, the penetration depth is the distance from the origin to the
// boundary of D, and the direction is the normal of the boundary there. Start from a tetrahedron of
// support points (GJK's simplex, completed with supports along the axes, choosing the four that span the
// largest volume); repeatedly take the face of the polytope closest to the origin (signed: a face the
// origin is outside of comes first, so a start polytope that misses the origin grows towards it), find
// the support point along its normal, and stop when that point is within the tolerance of the face;
// otherwise the point replaces every face it sees (a connected set grown from the closest face; its
// boundary, the horizon, must be one loop) by a cone of new faces. The witness points are the
// barycentric weights of the origin's projection on the final face applied to the A and B points.
//
// GJK runs on the cores (a sphere is a point, a capsule a segment) and adds the radii, which is exact
// and fast for rounded solids apart; EPA runs on the rounded solids themselves (support plus radius
// along the direction), which is what the penetration of two overlapping rounded solids is.
#include "collide/gjk.h"

#include <float.h>
#include <math.h>
#include <string.h>

// ---- support of the Minkowski difference in A's frame ----

typedef struct minkowski
{
	const collide_convex* a;
	const collide_convex* b;
	sn_transform b_in_a;
	bool rounded; // include the radii (EPA)
} minkowski;

static gjk_vertex support(const minkowski* m, sn_vec3 d)
{
	gjk_vertex v;
	sn_vec3 db = sn_inv_rotate(m->b_in_a.q, sn_neg(d));
	v.a = convex_support(m->a, d);
	v.b = sn_transform_point(m->b_in_a, convex_support(m->b, db));
	if (m->rounded)
	{
		sn_vec3 dn = sn_normalize(d);
		v.a = sn_mul_add(v.a, m->a->radius, dn);
		v.b = sn_mul_add(v.b, -m->b->radius, dn);
	}
	v.w = sn_sub(v.a, v.b);
	return v;
}

// ---- closest point of a simplex to the origin ----

static sn_vec3 simplex_point(const gjk_simplex* s)
{
	sn_vec3 p = sn_v3(0, 0, 0);
	for (int i = 0; i < s->count; ++i)
	{
		p = sn_mul_add(p, s->bary[i], s->v[i].w);
	}
	return p;
}

// Keeps the vertices listed in keep (with their weights).
static void simplex_reduce(gjk_simplex* s, const int* keep, const double* bary, int count)
{
	gjk_vertex v[4];
	for (int i = 0; i < count; ++i)
	{
		v[i] = s->v[keep[i]];
	}
	for (int i = 0; i < count; ++i)
	{
		s->v[i] = v[i];
		s->bary[i] = bary[i];
	}
	s->count = count;
}

static void solve_segment(gjk_simplex* s)
{
	sn_vec3 a = s->v[0].w, b = s->v[1].w;
	sn_vec3 ab = sn_sub(b, a);
	double t = -sn_dot(a, ab);
	double ll = sn_dot(ab, ab);
	if (t <= 0.0 || ll <= 0.0)
	{
		int keep[1] = { 0 };
		double w[1] = { 1.0 };
		simplex_reduce(s, keep, w, 1);
		return;
	}
	if (t >= ll)
	{
		int keep[1] = { 1 };
		double w[1] = { 1.0 };
		simplex_reduce(s, keep, w, 1);
		return;
	}
	t /= ll;
	s->bary[0] = 1.0 - t;
	s->bary[1] = t;
}

// Ericson 5.1.5 with p = origin, on simplex vertices i0, i1, i2 of s; writes the kept vertices and
// weights. Returns the squared distance.
static double triangle_closest(const gjk_simplex* s, int i0, int i1, int i2, int* keep, double* w, int* count)
{
	sn_vec3 a = s->v[i0].w, b = s->v[i1].w, c = s->v[i2].w;
	sn_vec3 ab = sn_sub(b, a), ac = sn_sub(c, a), ap = sn_neg(a);
	double d1 = sn_dot(ab, ap), d2 = sn_dot(ac, ap);
	if (d1 <= 0.0 && d2 <= 0.0)
	{
		keep[0] = i0;
		w[0] = 1.0;
		*count = 1;
		return sn_dot(a, a);
	}
	sn_vec3 bp = sn_neg(b);
	double d3 = sn_dot(ab, bp), d4 = sn_dot(ac, bp);
	if (d3 >= 0.0 && d4 <= d3)
	{
		keep[0] = i1;
		w[0] = 1.0;
		*count = 1;
		return sn_dot(b, b);
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
	{
		double v = d1 / (d1 - d3);
		keep[0] = i0;
		keep[1] = i1;
		w[0] = 1.0 - v;
		w[1] = v;
		*count = 2;
		sn_vec3 p = sn_mul_add(a, v, ab);
		return sn_dot(p, p);
	}
	sn_vec3 cp = sn_neg(c);
	double d5 = sn_dot(ab, cp), d6 = sn_dot(ac, cp);
	if (d6 >= 0.0 && d5 <= d6)
	{
		keep[0] = i2;
		w[0] = 1.0;
		*count = 1;
		return sn_dot(c, c);
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
	{
		double t = d2 / (d2 - d6);
		keep[0] = i0;
		keep[1] = i2;
		w[0] = 1.0 - t;
		w[1] = t;
		*count = 2;
		sn_vec3 p = sn_mul_add(a, t, ac);
		return sn_dot(p, p);
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
	{
		double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		keep[0] = i1;
		keep[1] = i2;
		w[0] = 1.0 - t;
		w[1] = t;
		*count = 2;
		sn_vec3 p = sn_mul_add(b, t, sn_sub(c, b));
		return sn_dot(p, p);
	}
	double sum = va + vb + vc;
	if (!(sum > 0.0))
	{
		// Degenerate (zero-area) triangle: fall back to its best edge.
		keep[0] = i0;
		keep[1] = i1;
		double ll = sn_dot(ab, ab);
		double t = ll > 0.0 ? fmin(fmax(d1 / ll, 0.0), 1.0) : 0.0;
		w[0] = 1.0 - t;
		w[1] = t;
		*count = 2;
		sn_vec3 p = sn_mul_add(a, t, ab);
		return sn_dot(p, p);
	}
	double denom = 1.0 / sum;
	double v = vb * denom, t = vc * denom;
	keep[0] = i0;
	keep[1] = i1;
	keep[2] = i2;
	w[0] = 1.0 - v - t;
	w[1] = v;
	w[2] = t;
	*count = 3;
	sn_vec3 p = sn_add(a, sn_add(sn_scale(v, ab), sn_scale(t, ac)));
	return sn_dot(p, p);
}

static void solve_triangle(gjk_simplex* s)
{
	int keep[3];
	double w[3];
	int count;
	triangle_closest(s, 0, 1, 2, keep, w, &count);
	simplex_reduce(s, keep, w, count);
}

// Whether the origin and vertex d lie on different sides of plane (a, b, c) (or d is on it).
static bool origin_outside(sn_vec3 a, sn_vec3 b, sn_vec3 c, sn_vec3 d)
{
	sn_vec3 n = sn_cross(sn_sub(b, a), sn_sub(c, a));
	double so = sn_dot(sn_neg(a), n);
	double sd = sn_dot(sn_sub(d, a), n);
	return so * sd <= 0.0;
}

// Ericson 5.1.6. Returns false if the origin is inside the tetrahedron.
static bool solve_tetrahedron(gjk_simplex* s)
{
	static const int faces[4][4] = { { 0, 1, 2, 3 }, { 0, 2, 3, 1 }, { 0, 3, 1, 2 }, { 1, 3, 2, 0 } };
	double best = INFINITY;
	int best_keep[3] = { 0, 0, 0 };
	double best_w[3] = { 1, 0, 0 };
	int best_count = 0;
	for (int f = 0; f < 4; ++f)
	{
		const int* i = faces[f];
		if (origin_outside(s->v[i[0]].w, s->v[i[1]].w, s->v[i[2]].w, s->v[i[3]].w))
		{
			int keep[3];
			double w[3];
			int count;
			double d2 = triangle_closest(s, i[0], i[1], i[2], keep, w, &count);
			if (d2 < best)
			{
				best = d2;
				best_count = count;
				for (int k = 0; k < count; ++k)
				{
					best_keep[k] = keep[k];
					best_w[k] = w[k];
				}
			}
		}
	}
	if (best_count == 0)
	{
		s->bary[0] = s->bary[1] = s->bary[2] = s->bary[3] = 0.25;
		return false;
	}
	simplex_reduce(s, best_keep, best_w, best_count);
	return true;
}

void gjk_distance(const collide_convex* a, const collide_convex* b, sn_transform b_in_a, gjk_output* out)
{
	minkowski m = { a, b, b_in_a, false };
	double scale = fmax(a->size, b->size);
	double touch2 = (GJK_TOUCH_TOLERANCE * scale) * (GJK_TOUCH_TOLERANCE * scale);
	gjk_simplex* s = &out->simplex;
	// Start along the line between the centres.
	sn_vec3 d = sn_sub(convex_center(a), sn_transform_point(b_in_a, convex_center(b)));
	if (sn_dot(d, d) == 0.0)
	{
		d = sn_v3(1, 0, 0);
	}
	s->v[0] = support(&m, sn_neg(d));
	s->bary[0] = 1.0;
	s->count = 1;
	sn_vec3 v = s->v[0].w;
	double dist2 = sn_dot(v, v);
	bool overlap = false;
	bool converged = false;
	double lower = 0.0; // the best lower bound on the distance seen, v . w / |v|
	int it = 0;
	for (; it < GJK_MAX_ITERATIONS; ++it)
	{
		if (dist2 <= touch2)
		{
			overlap = true;
			break;
		}
		gjk_vertex w = support(&m, sn_neg(v));
		double vw = sn_dot(v, w.w);
		lower = fmax(lower, vw / sqrt(dist2));
		// Lower bound v . w / |v| close to |v| (relatively, or to the rounding of coordinates of the
		// solids' size when the distance itself is tiny): done.
		if (dist2 - vw <= fmax(GJK_RELATIVE_TOLERANCE * dist2, 1e-14 * scale * sqrt(dist2)))
		{
			converged = true;
			break;
		}
		// A repeated support point makes no progress.
		bool repeat = false;
		for (int i = 0; i < s->count; ++i)
		{
			repeat = repeat || (s->v[i].w.x == w.w.x && s->v[i].w.y == w.w.y && s->v[i].w.z == w.w.z);
		}
		if (repeat)
		{
			break;
		}
		gjk_simplex saved = *s;
		s->v[s->count++] = w;
		bool inside = false;
		switch (s->count)
		{
			case 2:
				solve_segment(s);
				break;
			case 3:
				solve_triangle(s);
				break;
			case 4:
				inside = !solve_tetrahedron(s);
				break;
			default:
				break;
		}
		if (inside)
		{
			overlap = true;
			break;
		}
		sn_vec3 nv = simplex_point(s);
		double nd2 = sn_dot(nv, nv);
		if (nd2 >= dist2)
		{
			*s = saved; // no progress: keep the better simplex
			break;
		}
		v = nv;
		dist2 = nd2;
	}
	// Stopped without the bounds meeting (no progress, or the iteration bound: a point just inside a curved
	// solid, where the inscribed simplices close in slowly): if no support plane ever separated the
	// origin by more than the touch tolerance, the distance is not known to be above it, so it is taken as
	// an overlap and EPA decides.
	if (!overlap && !converged && lower <= sqrt(touch2))
	{
		overlap = true;
	}
	out->iterations = it;
	sn_vec3 pa = sn_v3(0, 0, 0), pb = sn_v3(0, 0, 0);
	for (int i = 0; i < s->count; ++i)
	{
		pa = sn_mul_add(pa, s->bary[i], s->v[i].a);
		pb = sn_mul_add(pb, s->bary[i], s->v[i].b);
	}
	out->point_a = pa;
	out->point_b = pb;
	out->distance = overlap ? 0.0 : sqrt(dist2);
}

// ---- EPA ----

typedef struct epa_face
{
	int v[3];
	int adj[3]; // face across edge k (v[k] to v[k + 1])
	sn_vec3 n;  // outward unit normal
	double d;   // n . v0: signed distance of the plane from the origin (positive: origin inside)
	int stamp;
	bool alive;
} epa_face;

typedef struct epa_edge
{
	int face, k, a, b;
	int outside; // the face beyond the edge (not visible)
} epa_edge;

typedef struct epa
{
	minkowski m;
	gjk_vertex v[EPA_MAX_VERTICES];
	int nv;
	epa_face f[EPA_MAX_FACES];
	int nf;                        // face slots ever used
	int free_faces[EPA_MAX_FACES]; // dead slots, reused first
	int free_count;
	int alive[EPA_MAX_FACES]; // live faces, in no particular order (deterministic though)
	int alive_pos[EPA_MAX_FACES];
	int alive_count;
	int stamp;
	sn_vec3 interior; // a point inside the polytope, to orient faces
	int stack[EPA_MAX_FACES];
	int visible[EPA_MAX_FACES];
	epa_edge horizon[3 * EPA_MAX_FACES];
	epa_edge loop[3 * EPA_MAX_FACES];
	int cone[3 * EPA_MAX_FACES];
} epa;

static bool epa_face_set(epa* e, int index, int a, int b, int c)
{
	epa_face* f = &e->f[index];
	f->v[0] = a;
	f->v[1] = b;
	f->v[2] = c;
	sn_vec3 pa = e->v[a].w;
	sn_vec3 n = sn_cross(sn_sub(e->v[b].w, pa), sn_sub(e->v[c].w, pa));
	double len = sn_length(n);
	if (!(len > 0.0))
	{
		return false;
	}
	f->n = sn_scale(1.0 / len, n);
	f->d = sn_dot(f->n, pa);
	f->stamp = 0;
	f->alive = true;
	return true;
}

static void epa_kill_face(epa* e, int index)
{
	e->f[index].alive = false;
	int pos = e->alive_pos[index];
	int last = e->alive[--e->alive_count];
	e->alive[pos] = last;
	e->alive_pos[last] = pos;
	e->free_faces[e->free_count++] = index;
}

static int epa_new_face(epa* e, int a, int b, int c)
{
	int index;
	if (e->free_count > 0)
	{
		index = e->free_faces[--e->free_count];
	}
	else
	{
		if (e->nf >= EPA_MAX_FACES)
		{
			return -1;
		}
		index = e->nf++;
	}
	if (!epa_face_set(e, index, a, b, c))
	{
		e->f[index].alive = false;
		e->free_faces[e->free_count++] = index;
		return -1;
	}
	e->alive_pos[index] = e->alive_count;
	e->alive[e->alive_count++] = index;
	return index;
}

static int epa_edge_of(const epa_face* g, int a, int b)
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

static bool epa_chain(const epa_edge* edges, int count, epa_edge* out)
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
					return false;
				}
				found = j;
			}
		}
		if (found <= 0)
		{
			return false;
		}
		out[i] = edges[found];
	}
	return out[count - 1].b == out[0].a;
}

// Starting tetrahedron: the candidates spanning the largest volume, faces oriented outward.
static bool epa_start(epa* e, const gjk_simplex* start, double scale)
{
	gjk_vertex cand[4 + 14];
	int nc = 0;
	for (int i = 0; i < start->count; ++i)
	{
		cand[nc++] = start->v[i];
	}
	static const double dirs[14][3] = { { 1, 0, 0 },  { -1, 0, 0 },  { 0, 1, 0 },    { 0, -1, 0 }, { 0, 0, 1 },
										{ 0, 0, -1 }, { 1, 1, 1 },   { -1, -1, -1 }, { 1, -1, 1 }, { -1, 1, -1 },
										{ 1, 1, -1 }, { -1, -1, 1 }, { -1, 1, 1 },   { 1, -1, -1 } };
	for (int i = 0; i < 14; ++i)
	{
		cand[nc++] = support(&e->m, sn_v3(dirs[i][0], dirs[i][1], dirs[i][2]));
	}
	// Greedy: farthest pair along the candidates, farthest from their line, farthest from their plane.
	int i0 = 0, i1 = -1, i2 = -1, i3 = -1;
	double best = 0.0;
	for (int i = 0; i < nc; ++i)
	{
		for (int j = i + 1; j < nc; ++j)
		{
			double dd = sn_length_sq(sn_sub(cand[i].w, cand[j].w));
			if (dd > best)
			{
				best = dd;
				i0 = i;
				i1 = j;
			}
		}
	}
	double tiny = 1e-12 * scale;
	if (i1 < 0 || sqrt(best) <= tiny)
	{
		return false;
	}
	sn_vec3 dir = sn_normalize(sn_sub(cand[i1].w, cand[i0].w));
	best = 0.0;
	for (int i = 0; i < nc; ++i)
	{
		sn_vec3 d = sn_sub(cand[i].w, cand[i0].w);
		double dist = sn_length(sn_sub(d, sn_scale(sn_dot(d, dir), dir)));
		if (dist > best)
		{
			best = dist;
			i2 = i;
		}
	}
	if (i2 < 0 || best <= tiny)
	{
		return false;
	}
	sn_vec3 n = sn_normalize(sn_cross(sn_sub(cand[i1].w, cand[i0].w), sn_sub(cand[i2].w, cand[i0].w)));
	best = 0.0;
	for (int i = 0; i < nc; ++i)
	{
		double dist = fabs(sn_dot(n, sn_sub(cand[i].w, cand[i0].w)));
		if (dist > best)
		{
			best = dist;
			i3 = i;
		}
	}
	if (i3 < 0 || best <= tiny)
	{
		return false;
	}
	if (sn_dot(n, sn_sub(cand[i3].w, cand[i0].w)) > 0.0)
	{
		int t = i1;
		i1 = i2;
		i2 = t;
	}
	e->v[0] = cand[i0];
	e->v[1] = cand[i1];
	e->v[2] = cand[i2];
	e->v[3] = cand[i3];
	e->nv = 4;
	e->nf = 0;
	e->free_count = 0;
	e->alive_count = 0;
	e->interior = sn_scale(0.25, sn_add(sn_add(e->v[0].w, e->v[1].w), sn_add(e->v[2].w, e->v[3].w)));
	int f0 = epa_new_face(e, 0, 1, 2);
	int f1 = epa_new_face(e, 0, 3, 1);
	int f2 = epa_new_face(e, 1, 3, 2);
	int f3 = epa_new_face(e, 2, 3, 0);
	if (f0 < 0 || f1 < 0 || f2 < 0 || f3 < 0)
	{
		return false;
	}
	int faces[4] = { f0, f1, f2, f3 };
	for (int a = 0; a < 4; ++a)
	{
		for (int k = 0; k < 3; ++k)
		{
			for (int b = 0; b < 4; ++b)
			{
				if (b != a && epa_edge_of(&e->f[faces[b]], e->f[faces[a]].v[k], e->f[faces[a]].v[(k + 1) % 3]) >= 0)
				{
					e->f[faces[a]].adj[k] = faces[b];
				}
			}
		}
	}
	return true;
}

// Replaces the faces vertex w sees (starting from face start) by a cone. False if the horizon is not
// one loop or storage runs out (the caller then stops with the best face so far).
static bool epa_expand(epa* e, int start, gjk_vertex w, double see)
{
	if (e->nv >= EPA_MAX_VERTICES)
	{
		return false;
	}
	int iw = e->nv;
	e->v[iw] = w;
	int stamp = ++e->stamp;
	int nvis = 0, top = 0;
	e->f[start].stamp = stamp;
	e->stack[top++] = start;
	while (top > 0)
	{
		int fi = e->stack[--top];
		e->visible[nvis++] = fi;
		for (int k = 0; k < 3; ++k)
		{
			int g = e->f[fi].adj[k];
			epa_face* fg = &e->f[g];
			if (fg->stamp != stamp && sn_dot(fg->n, sn_sub(w.w, e->v[fg->v[0]].w)) > see)
			{
				fg->stamp = stamp;
				e->stack[top++] = g;
			}
		}
	}
	int nh = 0;
	for (int i = 0; i < nvis; ++i)
	{
		const epa_face* f = &e->f[e->visible[i]];
		for (int k = 0; k < 3; ++k)
		{
			if (e->f[f->adj[k]].stamp != stamp)
			{
				epa_edge edge = { e->visible[i], k, f->v[k], f->v[(k + 1) % 3], f->adj[k] };
				e->horizon[nh++] = edge;
			}
		}
	}
	if (!epa_chain(e->horizon, nh, e->loop))
	{
		for (int i = 0; i < nvis; ++i)
		{
			e->f[e->visible[i]].stamp = 0;
		}
		return false;
	}
	// Free the visible faces first so the cone can reuse their slots.
	for (int i = 0; i < nvis; ++i)
	{
		epa_kill_face(e, e->visible[i]);
	}
	e->nv += 1;
	for (int i = 0; i < nh; ++i)
	{
		int nf = epa_new_face(e, e->loop[i].a, e->loop[i].b, iw);
		if (nf < 0)
		{
			return false; // the polytope is now inconsistent; the caller stops
		}
		e->cone[i] = nf;
	}
	for (int i = 0; i < nh; ++i)
	{
		epa_face* nf = &e->f[e->cone[i]];
		int g = e->loop[i].outside;
		nf->adj[0] = g;
		nf->adj[1] = e->cone[(i + 1) % nh];
		nf->adj[2] = e->cone[(i + nh - 1) % nh];
		int kg = epa_edge_of(&e->f[g], e->loop[i].a, e->loop[i].b);
		if (kg < 0)
		{
			return false;
		}
		e->f[g].adj[kg] = e->cone[i];
	}
	return true;
}

static int epa_closest(const epa* e)
{
	int best = -1;
	for (int i = 0; i < e->alive_count; ++i)
	{
		int f = e->alive[i];
		if (best < 0 || e->f[f].d < e->f[best].d || (e->f[f].d == e->f[best].d && f < best))
		{
			best = f;
		}
	}
	return best;
}

bool epa_penetration(const collide_convex* a, const collide_convex* b, sn_transform b_in_a, const gjk_simplex* start,
					 epa_output* out)
{
	epa e;
	e.m.a = a;
	e.m.b = b;
	e.m.b_in_a = b_in_a;
	e.m.rounded = true;
	e.stamp = 0;
	double scale = fmax(a->size, b->size);
	if (!epa_start(&e, start, scale))
	{
		return false;
	}
	double tol = EPA_RELATIVE_TOLERANCE * scale;
	double see = 1e-14 * scale;
	// The closest face so far, copied: an expansion that fails part way may have reused its slot.
	epa_face best = e.f[epa_closest(&e)];
	int it = 0;
	for (; it < EPA_MAX_VERTICES; ++it)
	{
		int f = epa_closest(&e);
		if (f < 0)
		{
			break;
		}
		best = e.f[f];
		gjk_vertex w = support(&e.m, best.n);
		double gap = sn_dot(best.n, w.w) - best.d;
		if (gap <= tol || !epa_expand(&e, f, w, see))
		{
			break;
		}
	}
	const epa_face* face = &best;
	// Barycentric weights of the origin's projection n d on the face (Ericson 3.4), clamped into it.
	sn_vec3 p = sn_scale(face->d, face->n);
	sn_vec3 v0 = e.v[face->v[0]].w, v1 = e.v[face->v[1]].w, v2 = e.v[face->v[2]].w;
	sn_vec3 e0 = sn_sub(v1, v0), e1 = sn_sub(v2, v0), ep = sn_sub(p, v0);
	double d00 = sn_dot(e0, e0), d01 = sn_dot(e0, e1), d11 = sn_dot(e1, e1);
	double d20 = sn_dot(ep, e0), d21 = sn_dot(ep, e1);
	double den = d00 * d11 - d01 * d01;
	double l1 = 1.0 / 3.0, l2 = 1.0 / 3.0;
	if (den > 0.0)
	{
		l1 = (d11 * d20 - d01 * d21) / den;
		l2 = (d00 * d21 - d01 * d20) / den;
	}
	double l0 = 1.0 - l1 - l2;
	l0 = fmax(l0, 0.0);
	l1 = fmax(l1, 0.0);
	l2 = fmax(l2, 0.0);
	double sum = l0 + l1 + l2;
	l0 /= sum;
	l1 /= sum;
	l2 /= sum;
	const gjk_vertex* g0 = &e.v[face->v[0]];
	const gjk_vertex* g1 = &e.v[face->v[1]];
	const gjk_vertex* g2 = &e.v[face->v[2]];
	out->point_a = sn_add(sn_add(sn_scale(l0, g0->a), sn_scale(l1, g1->a)), sn_scale(l2, g2->a));
	out->point_b = sn_add(sn_add(sn_scale(l0, g0->b), sn_scale(l1, g1->b)), sn_scale(l2, g2->b));
	out->normal = face->n;
	out->depth = face->d;
	out->iterations = it;
	return true;
}
