// Queries (raycast.c, query.c): ray casts against every shape type against closed forms and against an
// independent search along the ray; closest points and distance; overlap.
#include "collide_support.h"

#include "collide/hull.h"
#include "collide/mesh.h"
#include "collide/query.h"

#define EXACT 1e-12 // rounding of a few operations on metre-sized numbers

static collide_ray_hit cast(collide_shape s, sn_transform xf, sn_vec3 o, sn_vec3 d, bool expect_hit)
{
	collide_ray_hit h;
	memset(&h, 0, sizeof(h));
	bool hit = collide_ray_cast(&s, xf, o, d, 1.0, &h);
	if (hit != expect_hit)
	{
		fail_msg("%s ray: hit %d, expected %d", collide_shape_type_name(s.type), hit, expect_hit);
	}
	return h;
}

static void assert_vec_near(sn_vec3 a, sn_vec3 b, double tol, const char* reason)
{
	assert_near(a.x, b.x, tol, reason);
	assert_near(a.y, b.y, tol, reason);
	assert_near(a.z, b.z, tol, reason);
}

static void test_ray_closed_forms(void** state)
{
	(void)state;
	sn_transform id = sn_transform_identity();
	// Sphere r 0.5: a ray along x at height 0.3 enters at x = -sqrt(0.25 - 0.09) = -0.4.
	collide_ray_hit h = cast(collide_make_sphere(0.5), pose_at(1, 0, 0), sn_v3(-1, 0.3, 0), sn_v3(4, 0, 0), true);
	assert_near(h.fraction, (1.0 - 0.4 + 1.0) / 4.0, EXACT, "closed form");
	assert_vec_near(h.normal, sn_v3(-0.8, 0.6, 0), EXACT, "radial");
	assert_int_equal(h.triangle, -1);
	cast(collide_make_sphere(0.5), id, sn_v3(-1, 0.6, 0), sn_v3(4, 0, 0), false); // passes above
	cast(collide_make_sphere(0.5), id, sn_v3(0.1, 0, 0), sn_v3(4, 0, 0), false);  // starts inside
	cast(collide_make_sphere(0.5), id, sn_v3(-1, 0, 0), sn_v3(0.4, 0, 0), false); // stops short
	// Box: through the -x face, and along an edge's direction; rotated 90 degrees about z the y face.
	collide_shape box = collide_make_box(sn_v3(0.5, 0.25, 0.1));
	h = cast(box, id, sn_v3(-2, 0.1, 0.05), sn_v3(4, 0, 0), true);
	assert_near(h.fraction, 1.5 / 4.0, EXACT, "closed form");
	assert_vec_near(h.normal, sn_v3(-1, 0, 0), 0.0, "face normal");
	h = cast(box, pose(sn_v3(0, 0, 0), sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI)), sn_v3(-2, 0.1, 0.05),
			 sn_v3(4, 0, 0), true);
	assert_near(h.fraction, 1.75 / 4.0, EXACT, "the 0.25 face after the turn");
	assert_vec_near(h.normal, sn_v3(-1, 0, 0), EXACT, "rotated face normal");
	cast(box, id, sn_v3(0, 0, 0), sn_v3(4, 0, 0), false); // inside
	// Capsule r 0.1, h 0.5 along z: the side at z 0.2, the top sphere from above.
	collide_shape cap = collide_make_capsule(0.1, 0.5);
	h = cast(cap, id, sn_v3(-1, 0, 0.2), sn_v3(2, 0, 0), true);
	assert_near(h.fraction, 0.9 / 2.0, EXACT, "side");
	h = cast(cap, id, sn_v3(0, 0.06, 2), sn_v3(0, 0, -2), true);
	assert_near(h.point.z, 0.5 + 0.08, EXACT, "top sphere: sqrt(0.01 - 0.0036) above the end");
	assert_vec_near(h.normal, sn_v3(0, 0.6, 0.8), EXACT, "sphere normal");
	// Cylinder r 0.2, h 0.3: cap from above, side.
	collide_shape cyl = collide_make_cylinder(0.2, 0.3);
	h = cast(cyl, id, sn_v3(0.1, 0.1, 1), sn_v3(0, 0, -2), true);
	assert_near(h.point.z, 0.3, EXACT, "cap");
	assert_vec_near(h.normal, sn_v3(0, 0, 1), 0.0, "cap normal");
	h = cast(cyl, id, sn_v3(1, 0.12, 0.1), sn_v3(-2, 0, 0), true);
	assert_near(h.point.x, 0.16, EXACT, "side: sqrt(0.04 - 0.0144)");
	cast(cyl, id, sn_v3(1, 0.12, 0.35), sn_v3(-2, 0, 0), false); // above the top
	// Plane z = 0 from above, from below (inside), parallel.
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	h = cast(plane, id, sn_v3(3, 4, 2), sn_v3(1, 0, -4), true);
	assert_near(h.fraction, 0.5, EXACT, "closed form");
	assert_vec_near(h.point, sn_v3(3.5, 4, 0), EXACT, "closed form");
	cast(plane, id, sn_v3(3, 4, -2), sn_v3(0, 0, 4), false);
	cast(plane, id, sn_v3(3, 4, 2), sn_v3(1, 0, 0), false);
	// Zero translation never hits.
	cast(box, id, sn_v3(-2, 0, 0), sn_v3(0, 0, 0), false);
}

// A hull of a box's corners and a grid mesh give the same hits as the box and the plane on random rays.
static void test_ray_hull_and_mesh(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	sn_vec3 h = sn_v3(0.4, 0.3, 0.2);
	sn_vec3 corners[8];
	for (int i = 0; i < 8; ++i)
	{
		corners[i] = sn_v3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, corners, 8, &hull, NULL, 0));
	sn_vec3 v[25];
	int32_t idx[16 * 6];
	int ni = 0;
	for (int j = 0; j < 5; ++j)
	{
		for (int i = 0; i < 5; ++i)
		{
			v[j * 5 + i] = sn_v3(-2.0 + i, -2.0 + j, 0.0);
		}
	}
	for (int j = 0; j < 4; ++j)
	{
		for (int i = 0; i < 4; ++i)
		{
			int a = j * 5 + i;
			int32_t t[6] = { a, a + 1, a + 6, a, a + 6, a + 5 };
			for (int k = 0; k < 6; ++k)
			{
				idx[ni++] = t[k];
			}
		}
	}
	collide_mesh* mesh = NULL;
	assert_sn_ok(mesh_build(&mem, v, 25, idx, 32, &mesh, NULL, 0));
	collide_shape sb = collide_make_box(h), sh = collide_make_hull(hull), sm = collide_make_mesh(mesh),
				  sp = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	test_rng rng = { 8 };
	int hits = 0, mesh_hits = 0;
	for (int r = 0; r < 2000; ++r)
	{
		sn_transform xf = pose(rng_vec3(&rng, -0.5, 0.5), rng_quat(&rng));
		sn_vec3 o = sn_scale(2.0, rng_direction(&rng));
		sn_vec3 d = sn_scale(2.0, sn_sub(sn_add(xf.p, rng_vec3(&rng, -0.5, 0.5)), o));
		collide_ray_hit hb, hh;
		bool b1 = collide_ray_cast(&sb, xf, o, d, 1.0, &hb);
		bool b2 = collide_ray_cast(&sh, xf, o, d, 1.0, &hh);
		assert_int_equal(b1, b2);
		if (b1)
		{
			hits += 1;
			assert_near(hb.fraction, hh.fraction, EXACT, "hull of a box = box");
			assert_near(sn_dot(hb.normal, hh.normal), 1.0, EXACT, "same face");
		}
		// The mesh floor (a 4 x 4 square) against the plane, two-sided: within the square they agree
		// from above; from below only the mesh is hit (the plane's inside).
		sn_vec3 o2 = sn_v3(rng_range(&rng, -1.9, 1.9), rng_range(&rng, -1.9, 1.9), rng_range(&rng, 0.1, 2.0));
		sn_vec3 d2 = sn_v3(rng_range(&rng, -0.05, 0.05), rng_range(&rng, -0.05, 0.05), -3.0);
		collide_ray_hit hm, hp;
		bool m1 = collide_ray_cast(&sm, sn_transform_identity(), o2, d2, 1.0, &hm);
		bool p1 = collide_ray_cast(&sp, sn_transform_identity(), o2, d2, 1.0, &hp);
		if (fabs(o2.x + d2.x * hp.fraction) < 2.0 && fabs(o2.y + d2.y * hp.fraction) < 2.0)
		{
			assert_true(m1 && p1);
			mesh_hits += 1;
			assert_near(hm.fraction, hp.fraction, EXACT, "mesh floor = plane");
			assert_vec_near(hm.normal, sn_v3(0, 0, 1), EXACT, "facing the ray");
			assert_true(hm.triangle >= 0 && hm.triangle < 32);
		}
		sn_vec3 below = sn_v3(o2.x, o2.y, -o2.z);
		m1 = collide_ray_cast(&sm, sn_transform_identity(), below, sn_neg(d2), 1.0, &hm);
		assert_false(collide_ray_cast(&sp, sn_transform_identity(), below, sn_neg(d2), 1.0, &hp));
		if (m1)
		{
			assert_vec_near(hm.normal, sn_v3(0, 0, -1), EXACT, "two-sided: facing the ray from below");
		}
	}
	assert_true(hits > 200 && mesh_hits > 1000); // enough rays hit for the comparison to mean something
	hull_destroy(&mem, hull);
	mesh_destroy(&mem, mesh);
}

// Every convex shape against a search along the ray that uses only the overlap query (GJK) with a probe
// sphere of 1e-12 m: the first sample inside, then bisection to 1e-15. The two entries, measured along the
// surface normal (a grazing ray stretches any error along itself by 1/cos), must agree within the probe's
// radius plus GJK's touch tolerance (1e-10 of the shape's size, under 1 m here): 2e-10 m. If the search
// missed a grazing ray between samples, the cast's point must be on the surface.
static void test_ray_against_search(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	test_rng rng = { 404 };
	sn_vec3 pts[50];
	for (int i = 0; i < 50; ++i)
	{
		pts[i] = sn_add(sn_v3(0.05, 0, -0.1), sn_scale(0.5, rng_direction(&rng)));
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, pts, 50, &hull, NULL, 0));
	collide_shape shapes[5] = { collide_make_sphere(0.4), collide_make_capsule(0.15, 0.4),
								collide_make_box(sn_v3(0.3, 0.4, 0.2)), collide_make_cylinder(0.3, 0.35),
								collide_make_hull(hull) };
	collide_shape probe = collide_make_sphere(1e-12);
	double worst = 0.0;
	for (int s = 0; s < 5; ++s)
	{
		for (int r = 0; r < 300; ++r)
		{
			sn_transform xf = pose(rng_vec3(&rng, -0.2, 0.2), rng_quat(&rng));
			sn_vec3 o = sn_scale(2.0, rng_direction(&rng));
			sn_vec3 d = sn_sub(sn_add(rng_vec3(&rng, -0.5, 0.5), xf.p), o);
			d = sn_scale(2.0, d);
			collide_ray_hit hit;
			bool found = collide_ray_cast(&shapes[s], xf, o, d, 1.0, &hit);
			int first = -1;
			const int samples = 2000;
			for (int k = 0; k <= samples && first < 0; ++k)
			{
				if (collide_overlap(&probe, pose(sn_add(o, sn_scale((double)k / samples, d)), sn_quat_identity()),
									&shapes[s], xf))
				{
					first = k;
				}
			}
			if (first < 0)
			{
				if (found)
				{
					collide_distance_output dist;
					assert_true(collide_distance(&probe, pose(hit.point, sn_quat_identity()), &shapes[s], xf, &dist));
					assert_near(dist.distance, 0.0, 2e-10, "a grazing hit lies on the surface");
				}
				continue;
			}
			assert_true(found);
			assert_true(first > 0); // the rays start outside
			double lo = (double)(first - 1) / samples, hi = (double)first / samples;
			for (int it = 0; it < 60; ++it)
			{
				double mid = 0.5 * (lo + hi);
				if (collide_overlap(&probe, pose(sn_add(o, sn_scale(mid, d)), sn_quat_identity()), &shapes[s], xf))
				{
					hi = mid;
				}
				else
				{
					lo = mid;
				}
			}
			double err = fabs(hi - hit.fraction) * fabs(sn_dot(hit.normal, d));
			worst = fmax(worst, err);
			assert_below(err, 2e-10, "ray entry against the search along the ray, along the normal");
		}
	}
	report_measure("worst ray entry against the GJK search (m)", worst);
	hull_destroy(&mem, hull);
}

static void test_distance_and_overlap(void** state)
{
	(void)state;
	sn_transform id = sn_transform_identity();
	collide_distance_output d;
	collide_shape a = collide_make_sphere(0.3), b = collide_make_box(sn_v3(0.5, 0.5, 0.5));
	// Sphere 0.2 from the box's +x face.
	assert_true(collide_distance(&a, pose_at(1.0, 0.1, 0.2), &b, id, &d));
	assert_near(d.distance, 0.2, EXACT, "closed form");
	assert_vec_near(d.normal, sn_v3(-1, 0, 0), EXACT, "sphere to box");
	assert_vec_near(d.point_a, sn_v3(0.7, 0.1, 0.2), EXACT, "on the sphere");
	assert_vec_near(d.point_b, sn_v3(0.5, 0.1, 0.2), EXACT, "on the box");
	assert_true(collide_overlap(&a, pose_at(0.75, 0, 0), &b, id));
	assert_false(collide_overlap(&a, pose_at(1.0, 0, 0), &b, id));
	// Overlapping by 0.05: negative distance by EPA.
	assert_true(collide_distance(&a, pose_at(0.75, 0, 0), &b, id, &d));
	assert_near(d.distance, -0.05, 1e-10, "EPA on a rounded solid: 1e-10 of the size");
	// Box corner to corner along the diagonal: sqrt(3) 0.1 apart.
	assert_true(collide_distance(&b, id, &b, pose_at(1.1, 1.1, 1.1), &d));
	assert_near(d.distance, sqrt(3.0) * 0.1, EXACT, "corner to corner");
	// Plane and a capsule lying 0.05 above it; the plane second flips the normal.
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	collide_shape cap = collide_make_capsule(0.1, 0.3);
	sn_transform lying = pose(sn_v3(0, 0, 0.15), sn_quat_from_axis_angle(sn_v3(1, 0, 0), 0.5 * SN_PI));
	assert_true(collide_distance(&plane, id, &cap, lying, &d));
	assert_near(d.distance, 0.05, EXACT, "closed form");
	assert_true(collide_distance(&cap, lying, &plane, id, &d));
	assert_near(d.distance, 0.05, EXACT, "closed form");
	assert_vec_near(d.normal, sn_v3(0, 0, -1), 0.0, "capsule to plane");
	assert_true(collide_overlap(&plane, id, &cap, pose_at(0, 0, 0.35)));
	assert_false(collide_overlap(&plane, id, &cap, pose_at(0, 0, 0.45)));
	// Mesh: a one-triangle mesh and spheres near it.
	sn_memory mem = test_memory();
	sn_vec3 v[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } };
	int32_t idx[3] = { 0, 1, 2 };
	collide_mesh* mesh = NULL;
	assert_sn_ok(mesh_build(&mem, v, 3, idx, 1, &mesh, NULL, 0));
	collide_shape m = collide_make_mesh(mesh);
	assert_true(collide_overlap(&m, id, &a, pose_at(0.2, 0.2, 0.29)));
	assert_false(collide_overlap(&m, id, &a, pose_at(0.2, 0.2, 0.31)));
	assert_false(collide_overlap(&m, id, &a, pose_at(1.0, 1.0, 0.0))); // 0.71 from the hypotenuse
	// Distance to the triangle (two-sided) from above, below and beyond its hypotenuse, closed forms.
	assert_true(collide_distance(&m, id, &a, pose_at(0.2, 0.2, 0.5), &d));
	assert_near(d.distance, 0.2, EXACT, "0.5 above the face, minus the radius");
	assert_vec_near(d.normal, sn_v3(0, 0, 1), EXACT, "the face normal, mesh to sphere");
	assert_vec_near(d.point_a, sn_v3(0.2, 0.2, 0.0), EXACT, "on the triangle");
	assert_vec_near(d.point_b, sn_v3(0.2, 0.2, 0.2), EXACT, "on the sphere");
	assert_true(collide_distance(&m, id, &a, pose_at(0.2, 0.2, -0.5), &d));
	assert_near(d.distance, 0.2, EXACT, "from below: a mesh is two-sided");
	assert_vec_near(d.normal, sn_v3(0, 0, -1), EXACT, "towards the sphere below");
	assert_true(collide_distance(&m, id, &a, pose_at(1.0, 1.0, 0.0), &d));
	assert_near(d.distance, sqrt(0.5) - 0.3, EXACT, "from the hypotenuse x + y = 1");
	assert_vec_near(d.normal, sn_v3(sqrt(0.5), sqrt(0.5), 0), EXACT, "perpendicular to the hypotenuse");
	// Overlapping 0.1 above the face: the least way out is up, 0.2 (over an edge it is 0.48).
	assert_true(collide_distance(&m, id, &a, pose_at(0.2, 0.2, 0.1), &d));
	assert_near(d.distance, -0.2, 1e-10, "EPA on a rounded solid: 1e-10 of the size");
	assert_vec_near(d.normal, sn_v3(0, 0, 1), 1e-9, "out through the face");
	// The sphere first: the same, the other way round.
	assert_true(collide_distance(&a, pose_at(0.2, 0.2, 0.5), &m, id, &d));
	assert_near(d.distance, 0.2, EXACT, "either order");
	assert_vec_near(d.normal, sn_v3(0, 0, -1), EXACT, "sphere to mesh");
	assert_vec_near(d.point_a, sn_v3(0.2, 0.2, 0.2), EXACT, "on the sphere");
	// Two static shapes have no distance.
	assert_false(collide_distance(&m, id, &plane, id, &d));
	assert_false(collide_distance(&plane, id, &m, id, &d));
	assert_false(collide_distance(&m, id, &m, id, &d));
	assert_false(collide_overlap(&m, id, &plane, id));
	mesh_destroy(&mem, mesh);
}

// Closest point of triangle abc to p (Ericson, "Real-Time Collision Detection", 5.1.5).
static sn_vec3 closest_on_triangle(sn_vec3 p, sn_vec3 a, sn_vec3 b, sn_vec3 c)
{
	sn_vec3 ab = sn_sub(b, a), ac = sn_sub(c, a), ap = sn_sub(p, a);
	double d1 = sn_dot(ab, ap), d2 = sn_dot(ac, ap);
	if (d1 <= 0.0 && d2 <= 0.0)
	{
		return a;
	}
	sn_vec3 bp = sn_sub(p, b);
	double d3 = sn_dot(ab, bp), d4 = sn_dot(ac, bp);
	if (d3 >= 0.0 && d4 <= d3)
	{
		return b;
	}
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
	{
		return sn_add(a, sn_scale(d1 / (d1 - d3), ab));
	}
	sn_vec3 cp = sn_sub(p, c);
	double d5 = sn_dot(ab, cp), d6 = sn_dot(ac, cp);
	if (d6 >= 0.0 && d5 <= d6)
	{
		return c;
	}
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
	{
		return sn_add(a, sn_scale(d2 / (d2 - d6), ac));
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
	{
		return sn_add(b, sn_scale((d4 - d3) / ((d4 - d3) + (d5 - d6)), sn_sub(c, b)));
	}
	double denom = 1.0 / (va + vb + vc);
	return sn_add(a, sn_add(sn_scale(vb * denom, ab), sn_scale(vc * denom, ac)));
}

// The distance query's search of a mesh's BVH (query.c) against every triangle. A bumpy 8 x 8 grid plus
// a far cluster of triangles (so that BVH leaves lie apart and a search box can meet none), placed at a
// random pose; spheres anywhere around it, against the closed-form point-triangle distance over all
// triangles (GJK's tolerance, 1e-12 of the distance, on distances under 10 m: 1e-9 m leaves room for the
// rounding of the poses); boxes and hulls against the same routine run on one-triangle meshes, one per
// triangle, whose least is the same computation and must come out bit for bit.
static void test_mesh_distance_search(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	enum
	{
		G = 8,
		FAR = 4
	};
	sn_vec3 v[(G + 1) * (G + 1) + 3 * FAR];
	int32_t idx[3 * (2 * G * G + FAR)];
	int nt = 0;
	for (int j = 0; j <= G; ++j)
	{
		for (int i = 0; i <= G; ++i)
		{
			double x = -2.0 + 4.0 * i / G, y = -2.0 + 4.0 * j / G;
			v[j * (G + 1) + i] = sn_v3(x, y, 0.3 * sin(2.0 * x) * cos(1.5 * y));
		}
	}
	for (int j = 0; j < G; ++j)
	{
		for (int i = 0; i < G; ++i)
		{
			int32_t a = j * (G + 1) + i;
			int32_t t[6] = { a, a + 1, a + G + 2, a, a + G + 2, a + G + 1 };
			memcpy(idx + 3 * nt, t, sizeof(t));
			nt += 2;
		}
	}
	int nv = (G + 1) * (G + 1);
	for (int k = 0; k < FAR; ++k)
	{
		v[nv + 3 * k] = sn_v3(9.0 + 0.3 * k, 0, 0);
		v[nv + 3 * k + 1] = sn_v3(9.2 + 0.3 * k, 0, 0);
		v[nv + 3 * k + 2] = sn_v3(9.0 + 0.3 * k, 0.2, 0.1);
		int32_t t[3] = { nv + 3 * k, nv + 3 * k + 1, nv + 3 * k + 2 };
		memcpy(idx + 3 * nt, t, sizeof(t));
		nt += 1;
	}
	nv += 3 * FAR;
	collide_mesh* mesh = NULL;
	assert_sn_ok(mesh_build(&mem, v, nv, idx, nt, &mesh, NULL, 0));
	collide_mesh* single[2 * G * G + FAR];
	for (int t = 0; t < nt; ++t)
	{
		sn_vec3 tv[3] = { v[idx[3 * t]], v[idx[3 * t + 1]], v[idx[3 * t + 2]] };
		int32_t ti[3] = { 0, 1, 2 };
		assert_sn_ok(mesh_build(&mem, tv, 3, ti, 1, &single[t], NULL, 0));
	}
	sn_vec3 cloud[12];
	test_rng rng = { 6174 };
	for (int i = 0; i < 12; ++i)
	{
		cloud[i] = sn_scale(0.2, rng_direction(&rng));
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, cloud, 12, &hull, NULL, 0));
	collide_shape sm = collide_make_mesh(mesh);
	int apart = 0, overlapping = 0;
	double worst = 0.0;
	for (int trial = 0; trial < 600; ++trial)
	{
		sn_transform xm = pose(rng_vec3(&rng, -1, 1), rng_quat(&rng));
		sn_vec3 local = sn_v3(rng_range(&rng, -4, 12), rng_range(&rng, -4, 4), rng_range(&rng, -1.5, 2.5));
		if (trial % 4 == 0)
		{
			local = sn_v3(rng_range(&rng, 3, 7), rng_range(&rng, -0.5, 0.5), rng_range(&rng, -0.5, 0.5)); // between
		}
		else if (trial % 8 == 2)
		{
			local.x = rng_range(&rng, -1.8, 1.8);
			local.y = rng_range(&rng, -1.8, 1.8);
			local.z = 0.3 * sin(2.0 * local.x) * cos(1.5 * local.y) + rng_range(&rng, -0.1, 0.1); // on the grid
		}
		sn_transform xs = pose(sn_transform_point(xm, local), rng_quat(&rng));
		collide_distance_output d;
		if (trial % 2 == 0)
		{
			double r = rng_range(&rng, 0.05, 0.3);
			collide_shape ball = collide_make_sphere(r);
			double brute = INFINITY;
			for (int t = 0; t < nt; ++t)
			{
				sn_vec3 q = closest_on_triangle(local, v[idx[3 * t]], v[idx[3 * t + 1]], v[idx[3 * t + 2]]);
				brute = fmin(brute, sn_length(sn_sub(local, q)) - r);
			}
			assert_true(collide_distance(&sm, xm, &ball, xs, &d));
			if (brute > 1e-3)
			{
				apart += 1;
				worst = fmax(worst, fabs(d.distance - brute));
				assert_near(d.distance, brute, 1e-9, "the search against every triangle, closed form");
				assert_near(sn_length(sn_sub(d.point_b, xs.p)), r, 1e-9, "the witness on the sphere");
				assert_vec_near(sn_sub(d.point_b, d.point_a), sn_scale(d.distance, d.normal), 1e-9,
								"the witnesses apart by the distance along the normal");
			}
			else if (brute < -1e-3)
			{
				overlapping += 1;
				assert_true(d.distance < 0.0);
			}
			continue;
		}
		collide_shape solid = trial % 4 == 1 ? collide_make_box(rng_vec3(&rng, 0.05, 0.4)) : collide_make_hull(hull);
		assert_true(collide_distance(&sm, xm, &solid, xs, &d));
		double least = INFINITY;
		for (int t = 0; t < nt; ++t)
		{
			collide_shape one = collide_make_mesh(single[t]);
			collide_distance_output e;
			assert_true(collide_distance(&one, xm, &solid, xs, &e));
			least = fmin(least, e.distance);
		}
		assert_true(d.distance == least);
	}
	report_measure("mesh distance: worst |search - brute force| (m)", worst);
	report_measure("mesh distance: spheres apart", apart);
	report_measure("mesh distance: spheres overlapping", overlapping);
	assert_true(apart > 100 && overlapping > 30); // both outcomes exercised
	for (int t = 0; t < nt; ++t)
	{
		mesh_destroy(&mem, single[t]);
	}
	mesh_destroy(&mem, mesh);
	hull_destroy(&mem, hull);
	assert_int_equal(mem.stats.bytes_in_use, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ray_closed_forms),     cmocka_unit_test(test_ray_hull_and_mesh),
		cmocka_unit_test(test_ray_against_search),   cmocka_unit_test(test_distance_and_overlap),
		cmocka_unit_test(test_mesh_distance_search),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
