// Collision benchmark (issue 12): the kernels of core/src/collide without a world.
//
//   broadphase   N = 1,000 and 10,000 boxes (90 % moving at up to 2 m/s, dt 1/240 s, in a cube sized for a
//                few overlaps each): time per step to move the proxies and to find the new pairs
//   narrowphase  pairs per second for each pair family, on poses where the pair touches or nearly does
//   agreement    the worst disagreement of GJK/EPA with the closed forms on random poses
//   robustness   penetration depth of box-box and sphere-box in six scenarios (deep, shallow, touching
//                faces, nearly parallel edges, large and tiny scale) against exact values, by Sinew's
//                GJK/EPA and, with SINEW_BENCH_PEERS, by Debian's libccd (GJK+EPA and MPR, set up as MuJoCo
//                2.x used it: 50 iterations, tolerance 1e-6 of the size; and "tight": 1000 iterations,
//                1e-10 of the size)
//   world        the collision stage of a world step (proxies, pair finding, the pair cache with the
//                narrowphase, warm-start matching, events: contact_prepare + contact_update) on the contact
//                scenes of the scene library: C6 (210 boxes resting in a pyramid), C7 (1,000 spheres in the
//                open box as built, and packed in touching layers as after settling), C8 (100 ten-link
//                capsule chains, as articulations and as bodies with hinges), and 1,000 and 10,000 shapes
//                (boxes, spheres, capsules) moving in a cube and bouncing off its sides. There are no contact
//                forces yet: the resting scenes keep their poses (no gravity), the moving shapes are moved by
//                setting their poses before each stage
// Prints a table and BENCH key=value lines. Timings on a shared machine are rough (the lead re-measures);
// the robustness figures are exact counts.
#include "clock.h"

#include "collide/broadphase.h"
#include "collide/gjk.h"
#include "collide/hull.h"
#include "collide/mesh.h"
#include "collide/narrowphase.h"
#include "contact/contact.h"
#include "scenes/scenes.h"
#include "world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SINEW_HAVE_CCD)
#include <ccd/ccd.h>
#endif

// ---- deterministic random numbers (xorshift64*) ----

typedef struct rng
{
	uint64_t s;
} rng;

static double uniform(rng* r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (double)((r->s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double range(rng* r, double lo, double hi)
{
	return lo + (hi - lo) * uniform(r);
}

static sn_vec3 vrange(rng* r, double lo, double hi)
{
	double x = range(r, lo, hi), y = range(r, lo, hi), z = range(r, lo, hi);
	return sn_v3(x, y, z);
}

static sn_vec3 direction(rng* r)
{
	double z = range(r, -1.0, 1.0), phi = range(r, 0.0, 2.0 * SN_PI), s = sqrt(fmax(0.0, 1.0 - z * z));
	return sn_v3(s * cos(phi), s * sin(phi), z);
}

static sn_quat rotation(rng* r)
{
	double u1 = uniform(r), u2 = uniform(r), u3 = uniform(r);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	sn_quat q = { a * sin(2.0 * SN_PI * u2), a * cos(2.0 * SN_PI * u2), b * sin(2.0 * SN_PI * u3),
				  b * cos(2.0 * SN_PI * u3) };
	return q;
}

static sn_transform placed(sn_vec3 p, sn_quat q)
{
	sn_transform t = { p, q };
	return t;
}

static int compare_double(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return x < y ? -1 : (x > y ? 1 : 0);
}

static void check(sn_error err, const char* what)
{
	if (err != SN_ERR_OK)
	{
		fprintf(stderr, "bench_collide: %s: %s\n", what, sn_error_name(err));
		exit(1);
	}
}

// ---- broadphase ----

static void bench_broadphase(int n, int steps)
{
	rng r = { 0x1234567ull + (uint64_t)n };
	sn_memory memory;
	sn_allocator none = { NULL, NULL, NULL };
	memory_init(&memory, none);
	broadphase bp;
	broadphase_init(&bp, BROADPHASE_DEFAULT_MARGIN);
	// Boxes of half-extent 0.05..0.3 m; a cube of side (n / 3)^(1/3) m gives each a few overlaps.
	double side = cbrt(n / 3.0);
	sn_vec3* centre = (sn_vec3*)malloc((size_t)n * sizeof(sn_vec3));
	sn_vec3* half = (sn_vec3*)malloc((size_t)n * sizeof(sn_vec3));
	sn_vec3* velocity = (sn_vec3*)malloc((size_t)n * sizeof(sn_vec3));
	int32_t* key = (int32_t*)malloc((size_t)n * sizeof(int32_t));
	int moving = n - n / 10;
	for (int i = 0; i < n; ++i)
	{
		centre[i] = vrange(&r, -0.5 * side, 0.5 * side);
		half[i] = vrange(&r, 0.05, 0.3);
		velocity[i] = i < moving ? sn_scale(range(&r, 0.0, 2.0), direction(&r)) : sn_v3(0, 0, 0);
		collide_aabb box = aabb_make(sn_sub(centre[i], half[i]), sn_add(centre[i], half[i]));
		broadphase_create_proxy(&bp, &memory, box, 1, i, i < moving ? BROADPHASE_DYNAMIC : BROADPHASE_STATIC, &key[i]);
	}
	broadphase_update_pairs(&bp, &memory, NULL, NULL);
	int initial_pairs = bp.pair_count;
	double dt = 1.0 / 240.0, t_move = 0.0, t_pairs = 0.0;
	long moved = 0, pairs = 0;
	uint64_t allocations_before = memory.stats.allocations;
	int warm = steps / 10;
	for (int step = 0; step < steps + warm; ++step)
	{
		double t0 = bench_now();
		int moved_now = 0;
		for (int i = 0; i < moving; ++i)
		{
			centre[i] = sn_mul_add(centre[i], dt, velocity[i]);
			double* c = &centre[i].x;
			double* v = &velocity[i].x;
			for (int k = 0; k < 3; ++k)
			{
				if (fabs(c[k]) > 0.5 * side)
				{
					v[k] = c[k] > 0 ? -fabs(v[k]) : fabs(v[k]);
				}
			}
			collide_aabb box = aabb_make(sn_sub(centre[i], half[i]), sn_add(centre[i], half[i]));
			moved_now += broadphase_move_proxy(&bp, key[i], box);
		}
		double t1 = bench_now();
		broadphase_update_pairs(&bp, &memory, NULL, NULL);
		double t2 = bench_now();
		if (step >= warm)
		{
			t_move += t1 - t0;
			t_pairs += t2 - t1;
			moved += moved_now;
			pairs += bp.pair_count;
		}
	}
	uint64_t allocations = memory.stats.allocations - allocations_before;
	double move_ns = 1e9 * t_move / steps, pairs_ns = 1e9 * t_pairs / steps;
	printf("broadphase n=%-6d move %9.0f ns/step (%6.1f reinserted) pairs %9.0f ns/step (%7.1f new)  height %d\n", n,
		   move_ns, (double)moved / steps, pairs_ns, (double)pairs / steps, tree_height(&bp.trees[BROADPHASE_DYNAMIC]));
	printf("BENCH section=broadphase n=%d moving=%d steps=%d dt_s=%.6f initial_pairs=%d reinserted_per_step=%.2f "
		   "new_pairs_per_step=%.2f move_ns_per_step=%.0f pairs_ns_per_step=%.0f total_ns_per_step=%.0f "
		   "ns_per_proxy_step=%.2f tree_height=%d tree_area_ratio=%.2f allocations_after_warmup=%llu\n",
		   n, moving, steps, dt, initial_pairs, (double)moved / steps, (double)pairs / steps, move_ns, pairs_ns,
		   move_ns + pairs_ns, (move_ns + pairs_ns) / n, tree_height(&bp.trees[BROADPHASE_DYNAMIC]),
		   tree_area_ratio(&bp.trees[BROADPHASE_DYNAMIC]), (unsigned long long)allocations);
	broadphase_release(&bp, &memory);
	free(centre);
	free(half);
	free(velocity);
	free(key);
}

// ---- narrowphase ----

typedef struct family
{
	const char* name;
	collide_shape a, b;
	bool a_static; // a plane or mesh: a stays at the identity, b is placed around it
} family;

enum
{
	POSES = 4096
};

static void bench_family(const family* f, double seconds)
{
	static sn_transform xa[POSES], xb[POSES];
	rng r = { 99 };
	double size = fmax(f->a_static ? 0.0 : collide_shape_size(&f->a), collide_shape_size(&f->b));
	double margin = 0.02 * size;
	int n = 0, tries = 0;
	collide_manifold out[COLLIDE_MAX_MANIFOLDS];
	// Poses where the pair has points with a margin of 2 % of the size: the routines do their full work.
	while (n < POSES && tries < 200 * POSES)
	{
		tries += 1;
		sn_transform a =
			f->a_static ? placed(sn_v3(0, 0, 0), sn_quat_identity()) : placed(vrange(&r, -1, 1), rotation(&r));
		sn_transform b;
		if (f->a_static)
		{
			sn_vec3 p = vrange(&r, -0.5, 0.5);
			p.z = range(&r, -0.6, 0.6) * size;
			b = placed(p, rotation(&r));
		}
		else
		{
			double reach = 0.5 * (collide_shape_size(&f->a) + collide_shape_size(&f->b));
			b = placed(sn_add(a.p, sn_scale(reach * range(&r, 0.3, 1.0), direction(&r))), rotation(&r));
		}
		if (collide_shapes(&f->a, a, &f->b, b, margin, out) > 0)
		{
			xa[n] = a;
			xb[n] = b;
			n += 1;
		}
	}
	long calls = 0, points = 0;
	double start = bench_now(), elapsed = 0.0;
	while (elapsed < seconds)
	{
		for (int i = 0; i < n; ++i)
		{
			int m = collide_shapes(&f->a, xa[i], &f->b, xb[i], margin, out);
			for (int k = 0; k < m; ++k)
			{
				points += out[k].point_count;
			}
		}
		calls += n;
		elapsed = bench_now() - start;
	}
	printf("narrowphase %-18s %11.0f pairs/s  %.2f points/pair\n", f->name, calls / elapsed, (double)points / calls);
	printf("BENCH section=narrowphase pair=%s pairs_per_s=%.0f ns_per_pair=%.1f points_per_pair=%.3f poses=%d\n",
		   f->name, calls / elapsed, 1e9 * elapsed / calls, (double)points / calls, n);
}

static void bench_narrowphase(double seconds)
{
	sn_memory memory;
	sn_allocator none = { NULL, NULL, NULL };
	memory_init(&memory, none);
	rng r = { 7 };
	sn_vec3 pts[64];
	for (int i = 0; i < 32; ++i)
	{
		// A hull like a robot link: points on a capsule-ish blob.
		sn_vec3 d = direction(&r);
		pts[i] = sn_v3(0.12 * d.x, 0.08 * d.y, 0.2 * d.z);
	}
	collide_hull* hull = NULL;
	check(hull_build(&memory, pts, 32, &hull, NULL, 0), "hull");
	// A terrain-like mesh: a 32 x 32 grid over 4 m with gentle bumps.
	enum
	{
		G = 32
	};
	static sn_vec3 v[(G + 1) * (G + 1)];
	static int32_t idx[G * G * 6];
	int ni = 0;
	for (int j = 0; j <= G; ++j)
	{
		for (int i = 0; i <= G; ++i)
		{
			double x = -2.0 + 4.0 * i / G, y = -2.0 + 4.0 * j / G;
			v[j * (G + 1) + i] = sn_v3(x, y, 0.02 * sin(3.0 * x) * cos(2.0 * y));
		}
	}
	for (int j = 0; j < G; ++j)
	{
		for (int i = 0; i < G; ++i)
		{
			int a = j * (G + 1) + i;
			int32_t t[6] = { a, a + 1, a + G + 2, a, a + G + 2, a + G + 1 };
			for (int k = 0; k < 6; ++k)
			{
				idx[ni++] = t[k];
			}
		}
	}
	collide_mesh* mesh = NULL;
	check(mesh_build(&memory, v, (G + 1) * (G + 1), idx, G * G * 2, &mesh, NULL, 0), "mesh");
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	collide_shape sphere = collide_make_sphere(0.1), capsule = collide_make_capsule(0.05, 0.15),
				  box = collide_make_box(sn_v3(0.1, 0.15, 0.08)), cylinder = collide_make_cylinder(0.1, 0.15),
				  hshape = collide_make_hull(hull), mshape = collide_make_mesh(mesh);
	const family families[] = {
		{ "plane-sphere", plane, sphere, true },
		{ "plane-capsule", plane, capsule, true },
		{ "plane-box", plane, box, true },
		{ "plane-cylinder", plane, cylinder, true },
		{ "plane-hull", plane, hshape, true },
		{ "sphere-sphere", sphere, sphere, false },
		{ "sphere-capsule", sphere, capsule, false },
		{ "capsule-capsule", capsule, capsule, false },
		{ "sphere-box", sphere, box, false },
		{ "capsule-box", capsule, box, false },
		{ "box-box", box, box, false },
		{ "sphere-hull_gjk", sphere, hshape, false },
		{ "box-hull_gjk", box, hshape, false },
		{ "hull-hull_gjk", hshape, hshape, false },
		{ "box-cylinder_gjk", box, cylinder, false },
		{ "cylinder-cylinder_gjk", cylinder, cylinder, false },
		{ "box-box_gjk", box, box, false },
		{ "mesh-sphere", mshape, sphere, true },
		{ "mesh-box", mshape, box, true },
		{ "mesh-hull", mshape, hshape, true },
	};
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); ++i)
	{
		if (strcmp(families[i].name, "box-box_gjk") == 0)
		{
			// The GJK/EPA path on a pair that has a closed form, for the ratio.
			static sn_transform xa[POSES], xb[POSES];
			rng rr = { 99 };
			int n = 0;
			double margin = 0.02 * collide_shape_size(&box);
			collide_manifold out;
			while (n < POSES)
			{
				sn_transform a = placed(vrange(&rr, -1, 1), rotation(&rr));
				double reach = collide_shape_size(&box);
				sn_transform b =
					placed(sn_add(a.p, sn_scale(reach * range(&rr, 0.3, 1.0), direction(&rr))), rotation(&rr));
				collide_box_box(&box.box, a, &box.box, b, margin, &out);
				if (out.point_count > 0)
				{
					xa[n] = a;
					xb[n] = b;
					n += 1;
				}
			}
			long calls = 0;
			double start = bench_now(), elapsed = 0.0;
			while (elapsed < seconds)
			{
				for (int k = 0; k < n; ++k)
				{
					collide_convex_shapes(&box, xa[k], &box, xb[k], margin, &out);
				}
				calls += n;
				elapsed = bench_now() - start;
			}
			printf("narrowphase %-18s %11.0f pairs/s\n", families[i].name, calls / elapsed);
			printf("BENCH section=narrowphase pair=%s pairs_per_s=%.0f ns_per_pair=%.1f poses=%d\n", families[i].name,
				   calls / elapsed, 1e9 * elapsed / calls, n);
			continue;
		}
		bench_family(&families[i], seconds);
	}
	hull_destroy(&memory, hull);
	mesh_destroy(&memory, mesh);
}

// ---- agreement of GJK/EPA with the closed forms ----

static void bench_agreement(int trials)
{
	const struct
	{
		const char* name;
		collide_shape_type a, b;
	} fams[] = {
		{ "sphere-sphere", COLLIDE_SPHERE, COLLIDE_SPHERE },     { "sphere-capsule", COLLIDE_SPHERE, COLLIDE_CAPSULE },
		{ "capsule-capsule", COLLIDE_CAPSULE, COLLIDE_CAPSULE }, { "sphere-box", COLLIDE_SPHERE, COLLIDE_BOX },
		{ "capsule-box", COLLIDE_CAPSULE, COLLIDE_BOX },         { "box-box", COLLIDE_BOX, COLLIDE_BOX }
	};
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); ++f)
	{
		rng r = { 1000 + f };
		double worst = 0.0;
		for (int t = 0; t < trials; ++t)
		{
			collide_shape s[2];
			collide_shape_type types[2] = { fams[f].a, fams[f].b };
			for (int k = 0; k < 2; ++k)
			{
				s[k] = types[k] == COLLIDE_SPHERE ? collide_make_sphere(range(&r, 0.05, 0.5))
					: types[k] == COLLIDE_CAPSULE ? collide_make_capsule(range(&r, 0.02, 0.3), range(&r, 0.0, 0.5))
												  : collide_make_box(vrange(&r, 0.02, 0.5));
			}
			double size = fmax(collide_shape_size(&s[0]), collide_shape_size(&s[1]));
			sn_transform xa = placed(vrange(&r, -1, 1), rotation(&r));
			double reach = 0.5 * (collide_shape_size(&s[0]) + collide_shape_size(&s[1]));
			sn_transform xb = placed(sn_add(xa.p, sn_scale(reach * range(&r, 0.0, 1.0), direction(&r))), rotation(&r));
			collide_manifold closed[COLLIDE_MAX_MANIFOLDS], general;
			int nc = collide_shapes(&s[0], xa, &s[1], xb, 10.0 * size, closed);
			collide_convex_shapes(&s[0], xa, &s[1], xb, 10.0 * size, &general);
			if (nc == 0 || general.point_count == 0)
			{
				continue;
			}
			double sc = INFINITY, sg = INFINITY;
			for (int i = 0; i < closed[0].point_count; ++i)
			{
				sc = fmin(sc, closed[0].points[i].separation);
			}
			for (int i = 0; i < general.point_count; ++i)
			{
				sg = fmin(sg, general.points[i].separation);
			}
			worst = fmax(worst, fabs(sc - sg) / size);
		}
		printf("agreement %-16s worst |GJK/EPA - closed form| = %.3g of the size\n", fams[f].name, worst);
		printf("BENCH section=agreement family=%s trials=%d worst_separation_diff_rel=%.3g\n", fams[f].name, trials,
			   worst);
	}
}

// ---- robustness: penetration depth against exact values ----

typedef struct solid
{
	int kind;     // 0 box, 1 sphere
	sn_vec3 half; // box
	double radius;
	sn_transform x;
} solid;

// Exact penetration depth of two overlapping boxes: the least overlap over the 15 separating axes (the
// Minkowski difference of two boxes has its face normals among them). Negative: apart (a lower bound).
static double box_box_exact(const solid* a, const solid* b)
{
	sn_mat33 ra = sn_mat33_from_quat(a->x.q), rb = sn_mat33_from_quat(b->x.q);
	sn_vec3 axes[15];
	int n = 0;
	sn_vec3 ea[3] = { ra.cx, ra.cy, ra.cz }, eb[3] = { rb.cx, rb.cy, rb.cz };
	for (int i = 0; i < 3; ++i)
	{
		axes[n++] = ea[i];
		axes[n++] = eb[i];
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			sn_vec3 l = sn_cross(ea[i], eb[j]);
			if (sn_length(l) > 1e-9)
			{
				axes[n++] = sn_normalize(l);
			}
		}
	}
	sn_vec3 t = sn_sub(b->x.p, a->x.p);
	double best = INFINITY;
	for (int k = 0; k < n; ++k)
	{
		sn_vec3 l = axes[k];
		double pa = a->half.x * fabs(sn_dot(l, ea[0])) + a->half.y * fabs(sn_dot(l, ea[1])) +
			a->half.z * fabs(sn_dot(l, ea[2]));
		double pb = b->half.x * fabs(sn_dot(l, eb[0])) + b->half.y * fabs(sn_dot(l, eb[1])) +
			b->half.z * fabs(sn_dot(l, eb[2]));
		best = fmin(best, pa + pb - fabs(sn_dot(t, l)));
	}
	return best;
}

// Exact depth of a sphere in a box (Ericson 5.1.3 by the nearest face when inside).
static double sphere_box_exact(const solid* s, const solid* b)
{
	sn_vec3 c = sn_inv_transform_point(b->x, s->x.p);
	sn_vec3 h = b->half;
	sn_vec3 q = sn_v3(fmin(fmax(c.x, -h.x), h.x), fmin(fmax(c.y, -h.y), h.y), fmin(fmax(c.z, -h.z), h.z));
	double d = sn_length(sn_sub(c, q));
	if (d > 0.0)
	{
		return s->radius - d;
	}
	double inside = fmin(h.x - fabs(c.x), fmin(h.y - fabs(c.y), h.z - fabs(c.z)));
	return s->radius + inside;
}

static double sinew_depth(const solid* a, const solid* b, double size)
{
	collide_shape sa = a->kind == 0 ? collide_make_box(a->half) : collide_make_sphere(a->radius);
	collide_shape sb = b->kind == 0 ? collide_make_box(b->half) : collide_make_sphere(b->radius);
	collide_convex ca = convex_from_shape(&sa), cb = convex_from_shape(&sb);
	convex_contact c;
	if (!convex_contact_find(&ca, &cb, sn_transform_inv_mul(a->x, b->x), 1e-3 * size, &c))
	{
		return -INFINITY;
	}
	return -c.separation;
}

#if defined(SINEW_HAVE_CCD)
static void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out)
{
	const solid* s = (const solid*)obj;
	sn_vec3 d = sn_v3(ccdVec3X(dir), ccdVec3Y(dir), ccdVec3Z(dir));
	sn_vec3 p;
	if (s->kind == 0)
	{
		sn_vec3 l = sn_inv_rotate(s->x.q, d);
		p = sn_transform_point(s->x,
							   sn_v3(l.x >= 0 ? s->half.x : -s->half.x, l.y >= 0 ? s->half.y : -s->half.y,
									 l.z >= 0 ? s->half.z : -s->half.z));
	}
	else
	{
		p = sn_mul_add(s->x.p, s->radius, sn_normalize(d));
	}
	ccdVec3Set(out, p.x, p.y, p.z);
}

static void ccd_center(const void* obj, ccd_vec3_t* out)
{
	const solid* s = (const solid*)obj;
	ccdVec3Set(out, s->x.p.x, s->x.p.y, s->x.p.z);
}

// libccd's depth (GJK+EPA, or MPR), as MuJoCo 2.x set it up: 50 iterations, tolerance 1e-6 (here of the
// size, for its EPA, MPR and distance tolerances alike, so every scale gets the same relative setting).
// -inf when it reports no intersection.
static double ccd_depth(const solid* a, const solid* b, double size, bool mpr, bool tight)
{
	ccd_t ccd;
	CCD_INIT(&ccd);
	ccd.support1 = ccd_support;
	ccd.support2 = ccd_support;
	ccd.center1 = ccd_center;
	ccd.center2 = ccd_center;
	ccd.max_iterations = tight ? 1000 : 50;
	double tol = (tight ? 1e-10 : 1e-6) * size;
	ccd.epa_tolerance = tol;
	ccd.mpr_tolerance = tol;
	ccd.dist_tolerance = tol;
	ccd_real_t depth;
	ccd_vec3_t dir, pos;
	int res =
		mpr ? ccdMPRPenetration(a, b, &ccd, &depth, &dir, &pos) : ccdGJKPenetration(a, b, &ccd, &depth, &dir, &pos);
	return res == 0 ? depth : -INFINITY;
}
#endif

enum
{
	SCENARIOS = 6,
	CASES = 2000
};

static const char* scenario_names[SCENARIOS] = { "deep",           "shallow",   "touching_faces",
												 "parallel_edges", "large_1e3", "tiny_1e-3" };

// One case of a scenario: two solids and the exact depth.
static double make_case(int scenario, int index, solid* a, solid* b)
{
	rng r = { 0xC0FFEEull * (uint64_t)(scenario + 1) + (uint64_t)index * 7919u };
	double scale = scenario == 4 ? 1e3 : (scenario == 5 ? 1e-3 : 1.0);
	bool sphere = index % 4 == 3 && scenario != 2 && scenario != 3; // a quarter sphere-box where it applies
	a->kind = 0;
	a->half = sn_scale(scale, vrange(&r, 0.1, 0.5));
	a->x = placed(sn_scale(scale, vrange(&r, -1, 1)), rotation(&r));
	b->kind = sphere ? 1 : 0;
	b->half = sn_scale(scale, vrange(&r, 0.1, 0.5));
	b->radius = scale * range(&r, 0.1, 0.5);
	sn_vec3 za = sn_rotate(a->x.q, sn_v3(0, 0, 1));
	if (scenario == 0 || scenario >= 4)
	{
		// Deep: centres within 40 % of the smaller reach.
		b->x = placed(sn_add(a->x.p, sn_scale(0.4 * scale * range(&r, 0.0, 0.2), direction(&r))), rotation(&r));
	}
	else if (scenario == 1)
	{
		// Shallow: B's lowest point (its support along -z of A) placed over A's top face, 1e-6 of the size
		// into it.
		sn_quat q = rotation(&r);
		sn_vec3 down = sn_inv_rotate(q, sn_neg(za));
		sn_vec3 lowest_local = b->kind == 1
			? sn_scale(b->radius, down)
			: sn_v3(down.x >= 0 ? b->half.x : -b->half.x, down.y >= 0 ? b->half.y : -b->half.y,
					down.z >= 0 ? b->half.z : -b->half.z);
		sn_vec3 target = sn_add(a->x.p,
								sn_rotate(a->x.q,
										  sn_v3(range(&r, -0.5, 0.5) * a->half.x, range(&r, -0.5, 0.5) * a->half.y,
												a->half.z - 1e-6 * scale)));
		b->x = placed(sn_sub(target, sn_rotate(q, lowest_local)), q);
	}
	else if (scenario == 2)
	{
		// Touching faces: B turned about A's z only, resting exactly on A's top face (depth 0).
		sn_quat q = sn_quat_mul(a->x.q, sn_quat_from_axis_angle(sn_v3(0, 0, 1), range(&r, 0, 2.0 * SN_PI)));
		sn_vec3 over = sn_rotate(a->x.q, sn_v3(range(&r, -0.3, 0.3) * a->half.x, range(&r, -0.3, 0.3) * a->half.y, 0));
		b->x = placed(sn_add(a->x.p, sn_add(over, sn_scale(a->half.z + b->half.z, za))), q);
	}
	else
	{
		// Nearly parallel edges: B on an edge (45 degrees about its x) along A's x axis, turned 1e-7 rad
		// more, 1e-3 of the size deep.
		sn_quat local = sn_quat_mul(sn_quat_from_axis_angle(sn_v3(0, 0, 1), 1e-7 * range(&r, -1, 1)),
									sn_quat_from_axis_angle(sn_v3(1, 0, 0), 0.25 * SN_PI));
		b->half.y = b->half.z; // a square section, so the edge is the lowest feature
		double reach = b->half.z * sqrt(2.0);
		b->x = placed(sn_add(a->x.p, sn_scale(a->half.z + reach - 1e-3 * scale, za)), sn_quat_mul(a->x.q, local));
	}
	return b->kind == 1 ? sphere_box_exact(b, a) : box_box_exact(a, b);
}

static void bench_robustness(void)
{
	const char* engines[5] = { "sinew_gjk_epa", "libccd_gjk_epa", "libccd_mpr", "libccd_gjk_epa_tight",
							   "libccd_mpr_tight" };
#if defined(SINEW_HAVE_CCD)
	int engine_count = 5;
#else
	int engine_count = 1;
	printf("robustness: libccd comparison off (configure with -DSINEW_BENCH_PEERS=ON)\n");
#endif
	static solid as[CASES], bs[CASES];
	static double exact[CASES], errors[CASES];
	for (int sc = 0; sc < SCENARIOS; ++sc)
	{
		double scale = sc == 4 ? 1e3 : (sc == 5 ? 1e-3 : 1.0);
		for (int i = 0; i < CASES; ++i)
		{
			exact[i] = make_case(sc, i, &as[i], &bs[i]);
		}
		for (int e = 0; e < engine_count; ++e)
		{
			int misses = 0, bad = 0, bad_sphere = 0;
			double worst = 0.0;
			double start = bench_now();
			for (int i = 0; i < CASES; ++i)
			{
				double size = 2.0 * scale;
				double d;
				if (e == 0)
				{
					d = sinew_depth(&as[i], &bs[i], size);
				}
				else
				{
#if defined(SINEW_HAVE_CCD)
					d = ccd_depth(&as[i], &bs[i], size, e == 2 || e == 4, e >= 3);
#else
					d = 0.0;
#endif
				}
				if (d == -INFINITY)
				{
					// Reported apart. Right only for exact touching (depth 0).
					misses += exact[i] > 1e-12 * size;
					d = 0.0;
				}
				double err = fabs(d - exact[i]) / size;
				errors[i] = err;
				worst = fmax(worst, err);
				bad += err > 1e-3;
				bad_sphere += err > 1e-3 && bs[i].kind == 1;
			}
			double ns = 1e9 * (bench_now() - start) / CASES;
			qsort(errors, CASES, sizeof(double), compare_double);
			printf("robustness %-15s %-15s worst %.2e median %.2e of the size, %4d misses, %4d off by >1e-3 "
				   "(%d sphere-box), %7.0f ns/call\n",
				   scenario_names[sc], engines[e], worst, errors[CASES / 2], misses, bad, bad_sphere, ns);
			printf("BENCH section=robustness scenario=%s engine=%s cases=%d worst_depth_err_rel=%.3g "
				   "median_depth_err_rel=%.3g misses=%d off_by_1e-3=%d off_by_1e-3_sphere_box=%d ns_per_call=%.0f\n",
				   scenario_names[sc], engines[e], CASES, worst, errors[CASES / 2], misses, bad, bad_sphere, ns);
		}
	}
}

// ---- world: the collision stage of a step ----

typedef struct world_figures
{
	double prepare_ns, update_ns; // per step
	sn_collision_stats stats;     // of the last step
	double moved;                 // proxies re-inserted per step
	uint64_t allocations;         // after the warm-up steps
} world_figures;

// Times `steps` collision stages of the world (after `warm` stages to warm up); move, if not NULL, moves
// the bodies before each stage.
static world_figures time_stage(sn_world* world, int warm, int steps, void (*move)(sn_world*, void*), void* context)
{
	world_figures f;
	memset(&f, 0, sizeof(f));
	double dt = sn_world_get_time_step(world);
	uint64_t allocations = 0;
	long moved = 0;
	for (int i = 0; i < warm + steps; ++i)
	{
		if (move != NULL)
		{
			move(world, context);
		}
		if (i == warm)
		{
			allocations = sn_world_get_memory_stats(world).allocations;
		}
		double t0 = bench_now();
		if (contact_prepare(world, dt) != SN_ERR_OK)
		{
			fprintf(stderr, "bench_collide: out of memory\n");
			exit(1);
		}
		double t1 = bench_now();
		contact_update(world, dt);
		double t2 = bench_now();
		if (i >= warm)
		{
			f.prepare_ns += 1e9 * (t1 - t0);
			f.update_ns += 1e9 * (t2 - t1);
			moved += world->contacts.stats.proxies_moved;
		}
	}
	f.prepare_ns /= steps;
	f.update_ns /= steps;
	f.moved = (double)moved / steps;
	f.stats = sn_world_get_collision_stats(world);
	f.allocations = sn_world_get_memory_stats(world).allocations - allocations;
	return f;
}

static void report_world(const char* scene, int shapes, int steps, const world_figures* f)
{
	double total = f->prepare_ns + f->update_ns;
	printf("world %-15s shapes %6d  collide %10.0f ns/step (prepare %9.0f, update %9.0f)  pairs %6d  manifolds %6d  "
		   "points %6d  moved %7.1f\n",
		   scene, shapes, total, f->prepare_ns, f->update_ns, f->stats.pairs, f->stats.manifolds, f->stats.points,
		   f->moved);
	printf("BENCH section=world scene=%s shapes=%d steps=%d collide_ns_per_step=%.0f prepare_ns_per_step=%.0f "
		   "update_ns_per_step=%.0f ns_per_shape_step=%.2f pairs=%d manifolds=%d points=%d touching=%d "
		   "proxies_moved_per_step=%.2f allocations_after_warmup=%llu\n",
		   scene, shapes, steps, total, f->prepare_ns, f->update_ns, total / (shapes > 0 ? shapes : 1), f->stats.pairs,
		   f->stats.manifolds, f->stats.points, f->stats.touching, f->moved, (unsigned long long)f->allocations);
}

static sn_world* bench_world(double dt)
{
	sn_world_def wd = scene_world_def(SN_SOLVER_TGS, dt);
	wd.gravity = sn_v3(0, 0, 0);
	sn_world* world = NULL;
	check(sn_world_create(&wd, &world), "world");
	return world;
}

// A resting scene: the stage with nothing moving (every pair persists, every manifold is recomputed).
static void bench_resting(const char* name, sn_world* world, int steps)
{
	world_figures f = time_stage(world, 10, steps, NULL, NULL);
	report_world(name, sn_world_get_shape_count(world), steps, &f);
	sn_world_destroy(world);
}

// C7 as after settling: the 1,000 spheres in touching square layers of 15 x 15 (spacing one diameter) on
// the floor of the open box, the last layer partly filled.
static void c7_packed(sn_world* world)
{
	static sn_body_id spheres[SCENE_C7_SPHERES];
	check(scene_c7_spheres(world, spheres), "C7");
	double d = 2.0 * SCENE_C7_RADIUS;
	for (int n = 0; n < SCENE_C7_SPHERES; ++n)
	{
		int layer = n / 225, line = (n % 225) / 15, col = n % 15;
		sn_transform pose = { sn_v3(-0.7 + d * col, -0.7 + d * line, SCENE_C7_RADIUS + d * layer), sn_quat_identity() };
		check(sn_body_set_pose(world, spheres[n], pose), "pose");
	}
}

typedef struct movers
{
	int n;
	double half; // of the cube, m
	sn_body_id* body;
	sn_vec3* p;
	sn_vec3* v;
	sn_body_state* states;
} movers;

static void move_movers(sn_world* world, void* context)
{
	movers* m = (movers*)context;
	double dt = sn_world_get_time_step(world);
	for (int i = 0; i < m->n; ++i)
	{
		m->p[i] = sn_mul_add(m->p[i], dt, m->v[i]);
		double* c = &m->p[i].x;
		double* v = &m->v[i].x;
		for (int k = 0; k < 3; ++k)
		{
			if (fabs(c[k]) > m->half)
			{
				v[k] = c[k] > 0 ? -fabs(v[k]) : fabs(v[k]);
			}
		}
		m->states[i].body = m->body[i];
		m->states[i].has_pose = true;
		m->states[i].pose.p = m->p[i];
		m->states[i].pose.q = sn_quat_identity();
		m->states[i].has_linear_velocity = true;
		m->states[i].linear_velocity = m->v[i];
	}
	check(sn_world_set_body_states(world, m->states, m->n), "set body states");
}

// n shapes (boxes, spheres and capsules of 0.05 to 0.3 m) in a cube sized for a few overlaps each, 90 %
// moving at up to 2 m/s, dt 1/240 s: the broadphase section's setting, through the world.
static void bench_moving(int n, int steps)
{
	rng r = { 0x7654321ull + (uint64_t)n };
	sn_world* world = bench_world(1.0 / 240.0);
	movers m;
	m.n = n;
	m.half = 0.5 * cbrt(n / 3.0);
	m.body = (sn_body_id*)malloc((size_t)n * sizeof(sn_body_id));
	m.p = (sn_vec3*)malloc((size_t)n * sizeof(sn_vec3));
	m.v = (sn_vec3*)malloc((size_t)n * sizeof(sn_vec3));
	m.states = (sn_body_state*)calloc((size_t)n, sizeof(sn_body_state));
	if (m.body == NULL || m.p == NULL || m.v == NULL || m.states == NULL)
	{
		exit(1);
	}
	int moving = n - n / 10;
	for (int i = 0; i < n; ++i)
	{
		sn_body_def bd = sn_default_body_def();
		m.p[i] = vrange(&r, -m.half, m.half);
		m.v[i] = i < moving ? sn_scale(range(&r, 0.0, 2.0), direction(&r)) : sn_v3(0, 0, 0);
		bd.pose.p = m.p[i];
		check(sn_create_body(world, &bd, &m.body[i]), "body");
		sn_shape_def sd = sn_default_shape_def();
		sd.body = m.body[i];
		double size = range(&r, 0.05, 0.3);
		switch (i % 3)
		{
			case 0:
			{
				double y = range(&r, 0.05, 0.3), z = range(&r, 0.05, 0.3);
				sd.geometry = sn_geometry_box(sn_v3(size, y, z));
				break;
			}
			case 1:
				sd.geometry = sn_geometry_sphere(size);
				break;
			default:
				sd.geometry = sn_geometry_capsule(0.5 * size, size);
				break;
		}
		sn_shape_id id;
		check(sn_create_shape(world, &sd, &id), "shape");
	}
	world_figures f = time_stage(world, steps / 10, steps, move_movers, &m);
	char name[32];
	snprintf(name, sizeof(name), "moving_%d", n);
	report_world(name, n, steps, &f);
	sn_world_destroy(world);
	free(m.body);
	free(m.p);
	free(m.v);
	free(m.states);
}

static void bench_world_section(bool quick)
{
	int steps = quick ? 20 : 200;
	static sn_body_id boxes[SCENE_C6_BOXES];
	sn_world* w = bench_world(1.0 / 240.0);
	check(scene_c6_pyramid(w, boxes), "C6");
	bench_resting("c6_pyramid", w, steps);
	static sn_body_id spheres[SCENE_C7_SPHERES];
	w = bench_world(1.0 / 240.0);
	check(scene_c7_spheres(w, spheres), "C7");
	bench_resting("c7_as_built", w, steps);
	w = bench_world(1.0 / 240.0);
	c7_packed(w);
	bench_resting("c7_packed", w, steps);
	static sn_articulation_id chains[SCENE_C8_CHAINS];
	w = bench_world(0.001);
	check(scene_c8_chains_articulated(w, chains), "C8");
	bench_resting("c8_articulated", w, steps);
	static sn_body_id links[SCENE_C8_CHAINS * SCENE_C8_LINKS];
	static sn_joint_id hinges[SCENE_C8_CHAINS * (SCENE_C8_LINKS - 1)];
	w = bench_world(0.001);
	check(scene_c8_chains_maximal(w, links, hinges), "C8 maximal");
	bench_resting("c8_maximal", w, steps);
	bench_moving(1000, quick ? 20 : 500);
	bench_moving(10000, quick ? 10 : 100);
}

static void usage(FILE* out)
{
	fprintf(out,
			"usage: bench_collide [--quick] [--section broadphase|narrowphase|agreement|robustness|world]...\n"
			"  --quick    fewer steps and shorter timings (a smoke run)\n"
			"  --section  run only the named sections (default all); repeatable\n"
			"  --help     this text\n");
}

int main(int argc, char** argv)
{
	bool quick = false;
	const char* names[5] = { "broadphase", "narrowphase", "agreement", "robustness", "world" };
	bool run[5] = { false, false, false, false, false };
	bool any = false;
	for (int i = 1; i < argc; ++i)
	{
		if (strcmp(argv[i], "--quick") == 0)
		{
			quick = true;
			continue;
		}
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
		{
			usage(stdout);
			return 0;
		}
		bool known = false;
		if (strcmp(argv[i], "--section") == 0 && i + 1 < argc)
		{
			i += 1;
			for (int k = 0; k < 5; ++k)
			{
				if (strcmp(argv[i], names[k]) == 0)
				{
					run[k] = known = any = true;
				}
			}
		}
		if (!known)
		{
			fprintf(stderr, "bench_collide: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!any || run[0])
	{
		bench_broadphase(1000, quick ? 50 : 500);
		bench_broadphase(10000, quick ? 20 : 200);
	}
	if (!any || run[1])
	{
		bench_narrowphase(quick ? 0.05 : 0.5);
	}
	if (!any || run[2])
	{
		bench_agreement(quick ? 2000 : 20000);
	}
	if (!any || run[3])
	{
		bench_robustness();
	}
	if (!any || run[4])
	{
		bench_world_section(quick);
	}
	return 0;
}
