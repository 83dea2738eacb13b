// Narrowphase (narrow_*.c, manifold.c): every closed-form pair against hand-computed distances and
// penetrations; manifolds at the face corners (box on a plane and on a box: 4 points; on an edge: 2);
// feature ids over 100 steps of sliding; speculative contacts stopping a fast sphere at a thin box;
// dispatch symmetry.
#include "collide_support.h"

#include "collide/hull.h"
#include "collide/narrowphase.h"
#include "math/mathx.h"

// Rounding of a few operations on numbers of order 1 (m): 1e-12 is a thousand ulps, far below any
// modelling error and far above what a correct closed form loses.
#define EXACT 1e-12

static collide_manifold collide1(collide_shape a, sn_transform xa, collide_shape b, sn_transform xb, double margin)
{
	collide_manifold out[COLLIDE_MAX_MANIFOLDS];
	int n = collide_shapes(&a, xa, &b, xb, margin, out);
	if (n == 0)
	{
		out[0].point_count = 0;
	}
	assert_true(n <= 1);
	return out[0];
}

static double min_separation(const collide_manifold* m)
{
	double s = INFINITY;
	for (int i = 0; i < m->point_count; ++i)
	{
		s = fmin(s, m->points[i].separation);
	}
	return s;
}

static void assert_vec_near(sn_vec3 a, sn_vec3 b, double tol, const char* reason)
{
	assert_near(a.x, b.x, tol, reason);
	assert_near(a.y, b.y, tol, reason);
	assert_near(a.z, b.z, tol, reason);
}

// The manifold has a point at (x, y) (world), for corner checks.
static bool has_point_xy(const collide_manifold* m, double x, double y, double tol)
{
	for (int i = 0; i < m->point_count; ++i)
	{
		if (fabs(m->points[i].point.x - x) <= tol && fabs(m->points[i].point.y - y) <= tol)
		{
			return true;
		}
	}
	return false;
}

static sn_quat axis_angle(double x, double y, double z, double angle)
{
	return sn_quat_from_axis_angle(sn_normalize(sn_v3(x, y, z)), angle);
}

static void test_plane_pairs(void** state)
{
	(void)state;
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	sn_transform id = sn_transform_identity();
	// Sphere r 0.5 at z 0.3: 0.2 deep; the point midway between the sphere's bottom (-0.2) and the plane.
	collide_manifold m = collide1(plane, id, collide_make_sphere(0.5), pose_at(1, 2, 0.3), 0.0);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.2, EXACT, "closed form");
	assert_vec_near(m.points[0].point, sn_v3(1, 2, -0.1), EXACT, "closed form");
	assert_vec_near(m.normal, sn_v3(0, 0, 1), 0.0, "the plane's normal exactly");
	// A plane through (0, 0, 1) tilted: normal (0, 0.6, 0.8), offset 0.8. Sphere r 1 at the origin:
	// height -0.8, separation -1.8.
	m = collide1(collide_make_plane(sn_v3(0, 0.6, 0.8), 0.8), id, collide_make_sphere(1.0), id, 0.0);
	assert_near(m.points[0].separation, -1.8, EXACT, "closed form");
	// Margin: 0.1 above the plane is reported with margin 0.2, not with 0.05.
	m = collide1(plane, id, collide_make_sphere(0.5), pose_at(0, 0, 0.6), 0.2);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.1, EXACT, "closed form");
	m = collide1(plane, id, collide_make_sphere(0.5), pose_at(0, 0, 0.6), 0.05);
	assert_int_equal(m.point_count, 0);

	// Capsule r 0.1, half-length 0.4, lying along x at z 0.09: both ends 0.01 deep.
	sn_transform lying = pose(sn_v3(0, 0, 0.09), axis_angle(0, 1, 0, 0.5 * SN_PI));
	m = collide1(plane, id, collide_make_capsule(0.1, 0.4), lying, 0.0);
	assert_int_equal(m.point_count, 2);
	assert_near(m.points[0].separation, -0.01, EXACT, "closed form");
	assert_near(m.points[1].separation, -0.01, EXACT, "closed form");
	assert_true(has_point_xy(&m, 0.4, 0.0, EXACT) && has_point_xy(&m, -0.4, 0.0, EXACT));
	// Standing: one end.
	m = collide1(plane, id, collide_make_capsule(0.1, 0.4), pose_at(0, 0, 0.49), 0.0);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.01, EXACT, "closed form");
	// Apart: lying 0.03 above the plane (z 0.13), both ends within a margin of 0.05, midway between the
	// bottom of the capsule (z 0.03) and the plane; beyond a margin of 0.02, nothing.
	lying.p.z = 0.13;
	m = collide1(plane, id, collide_make_capsule(0.1, 0.4), lying, 0.05);
	assert_int_equal(m.point_count, 2);
	assert_near(m.points[0].separation, 0.03, EXACT, "closed form");
	assert_near(m.points[1].separation, 0.03, EXACT, "closed form");
	assert_near(m.points[0].point.z, 0.015, EXACT, "midway between the surfaces");
	assert_true(has_point_xy(&m, 0.4, 0.0, EXACT) && has_point_xy(&m, -0.4, 0.0, EXACT));
	assert_int_equal(collide1(plane, id, collide_make_capsule(0.1, 0.4), lying, 0.02).point_count, 0);
	// Standing 0.05 above it: the lower end only (the upper is 0.85 up, beyond the margin of 0.1).
	m = collide1(plane, id, collide_make_capsule(0.1, 0.4), pose_at(0, 0, 0.55), 0.1);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.05, EXACT, "closed form");
	assert_near(m.points[0].point.z, 0.025, EXACT, "midway between the surfaces");

	// Box resting: 4 points at the bottom corners, separation -0.001.
	collide_shape box = collide_make_box(sn_v3(0.3, 0.2, 0.1));
	m = collide1(plane, id, box, pose_at(5, -3, 0.099), 0.0);
	assert_int_equal(m.point_count, 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, -0.001, EXACT, "closed form");
		assert_near(m.points[i].point.z, -0.0005, EXACT, "midway between the corner and the plane");
	}
	assert_true(has_point_xy(&m, 5.3, -2.8, EXACT) && has_point_xy(&m, 4.7, -2.8, EXACT) &&
				has_point_xy(&m, 5.3, -3.2, EXACT) && has_point_xy(&m, 4.7, -3.2, EXACT));
	// 5 mm above the plane: the same four corners as speculative points at the gap, within a margin of
	// 0.01; none within 0.004.
	m = collide1(plane, id, box, pose_at(5, -3, 0.105), 0.01);
	assert_int_equal(m.point_count, 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, 0.005, EXACT, "closed form");
		assert_near(m.points[i].point.z, 0.0025, EXACT, "midway between the corner and the plane");
	}
	assert_true(has_point_xy(&m, 5.3, -2.8, EXACT) && has_point_xy(&m, 4.7, -3.2, EXACT));
	assert_int_equal(collide1(plane, id, box, pose_at(5, -3, 0.105), 0.004).point_count, 0);
	// On an edge (45 degrees about x): the two corners of the lowest edge. The corner is at depth
	// sqrt(0.2^2 + 0.1^2) sin(45 + atan(0.1/0.2)) below the centre.
	double reach = sqrt(0.2 * 0.2 + 0.1 * 0.1) * sin(0.25 * SN_PI + atan2(0.1, 0.2));
	m = collide1(plane, id, box, pose(sn_v3(0, 0, reach - 0.002), axis_angle(1, 0, 0, 0.25 * SN_PI)), 0.01);
	assert_int_equal(m.point_count, 2);
	assert_near(min_separation(&m), -0.002, EXACT, "closed form");
	assert_near(m.points[0].point.x * m.points[1].point.x, -0.09, EXACT, "the two ends of the edge at x = +-0.3");
	// The same edge 4 mm above the plane: its two ends at the gap (the next corners are 0.14 m higher).
	m = collide1(plane, id, box, pose(sn_v3(0, 0, reach + 0.004), axis_angle(1, 0, 0, 0.25 * SN_PI)), 0.01);
	assert_int_equal(m.point_count, 2);
	assert_near(m.points[0].separation, 0.004, EXACT, "closed form");
	assert_near(m.points[1].separation, 0.004, EXACT, "closed form");

	// Cylinder r 0.2, h 0.5 standing 0.003 deep: a square of 4 rim points; lying: 2.
	collide_shape cyl = collide_make_cylinder(0.2, 0.5);
	m = collide1(plane, id, cyl, pose_at(0, 0, 0.497), 0.0);
	assert_int_equal(m.point_count, 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, -0.003, EXACT, "closed form");
		assert_near(hypot(m.points[i].point.x, m.points[i].point.y), 0.2, EXACT, "on the rim");
	}
	m = collide1(plane, id, cyl, pose(sn_v3(0, 0, 0.195), axis_angle(1, 0, 0, 0.5 * SN_PI)), 0.0);
	assert_int_equal(m.point_count, 2);
	assert_near(min_separation(&m), -0.005, EXACT, "closed form");
	// Standing 5 mm above: the square of rim points at the gap.
	m = collide1(plane, id, cyl, pose_at(0, 0, 0.505), 0.01);
	assert_int_equal(m.point_count, 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, 0.005, EXACT, "closed form");
	}

	// Hull of a box's corners resting: as the box.
	sn_memory mem = test_memory();
	sn_vec3 corners[8];
	for (int i = 0; i < 8; ++i)
	{
		corners[i] = sn_v3((i & 1) ? 0.3 : -0.3, (i & 2) ? 0.2 : -0.2, (i & 4) ? 0.1 : -0.1);
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, corners, 8, &hull, NULL, 0));
	m = collide1(plane, id, collide_make_hull(hull), pose_at(0, 0, 0.099), 0.0);
	assert_int_equal(m.point_count, 4);
	assert_near(min_separation(&m), -0.001, EXACT, "closed form");
	m = collide1(plane, id, collide_make_hull(hull), pose_at(0, 0, 0.104), 0.01);
	assert_int_equal(m.point_count, 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, 0.004, EXACT, "4 mm above, closed form");
	}
	hull_destroy(&mem, hull);
}

static void test_round_pairs(void** state)
{
	(void)state;
	sn_transform id = sn_transform_identity();
	// Spheres 0.3 and 0.4 with centres 1 apart along (1, 2, 2)/3: 0.3 apart.
	sn_vec3 dir = sn_v3(1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0);
	collide_manifold m =
		collide1(collide_make_sphere(0.3), id, collide_make_sphere(0.4), pose(dir, sn_quat_identity()), 1.0);
	assert_near(m.points[0].separation, 0.3, EXACT, "closed form");
	assert_vec_near(m.normal, dir, EXACT, "along the centres");
	assert_vec_near(m.points[0].point, sn_scale(0.45, dir), EXACT, "midway between 0.3 and 0.6 along dir");
	m = collide1(collide_make_sphere(0.6), id, collide_make_sphere(0.5), pose(dir, sn_quat_identity()), 0.0);
	assert_near(m.points[0].separation, -0.1, EXACT, "closed form");

	// Sphere r 0.2 at x 0.5 beside a capsule along z (r 0.1, h 1): 0.2 apart; level with its end
	// (z 1.3): distance from the end sqrt(0.25 + 0.09).
	collide_shape cap = collide_make_capsule(0.1, 1.0);
	m = collide1(collide_make_sphere(0.2), pose_at(0.5, 0, 0.3), cap, id, 1.0);
	assert_near(m.points[0].separation, 0.2, EXACT, "closed form");
	assert_vec_near(m.normal, sn_v3(-1, 0, 0), EXACT, "towards the axis");
	m = collide1(collide_make_sphere(0.2), pose_at(0.5, 0, 1.3), cap, id, 1.0);
	assert_near(m.points[0].separation, sqrt(0.25 + 0.09) - 0.3, EXACT, "closed form");
	// Overlapping its side: the centre 0.25 from the axis, 0.05 deep; the point midway between the
	// sphere's surface (x 0.05) and the capsule's (x 0.1). Past its end, at (0.1, 0, 1.2): the distance to
	// the end point (0, 0, 1), sqrt(0.01 + 0.04), minus both radii.
	m = collide1(collide_make_sphere(0.2), pose_at(0.25, 0, 0.3), cap, id, 0.0);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.05, EXACT, "closed form");
	assert_vec_near(m.normal, sn_v3(-1, 0, 0), EXACT, "towards the axis");
	assert_vec_near(m.points[0].point, sn_v3(0.075, 0, 0.3), EXACT, "midway between the surfaces");
	m = collide1(collide_make_sphere(0.2), pose_at(0.1, 0, 1.2), cap, id, 0.0);
	assert_near(m.points[0].separation, sqrt(0.05) - 0.3, EXACT, "closed form");
	assert_vec_near(m.normal, sn_scale(-1.0 / sqrt(0.05), sn_v3(0.1, 0, 0.2)), EXACT, "towards the end point");

	// Crossed capsules: A along z, B along x at y 0.25 (and z 0.4): axes 0.25 apart, 0.05 gap.
	m = collide1(cap, id, cap, pose(sn_v3(0.2, 0.25, 0.4), axis_angle(0, 1, 0, 0.5 * SN_PI)), 1.0);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.05, EXACT, "closed form");
	assert_vec_near(m.normal, sn_v3(0, 1, 0), EXACT, "the common perpendicular");
	// Parallel capsules side by side, overlapping over z in [0.5, 1]: two points at the ends of the
	// overlap, each 0.01 deep.
	m = collide1(cap, id, cap, pose_at(0.19, 0, 1.5), 0.0);
	assert_int_equal(m.point_count, 2);
	assert_near(m.points[0].separation, -0.01, EXACT, "closed form");
	assert_near(m.points[1].separation, -0.01, EXACT, "closed form");
	assert_near(fmin(m.points[0].point.z, m.points[1].point.z), 0.5, EXACT, "overlap starts at B's lower end");
	assert_near(fmax(m.points[0].point.z, m.points[1].point.z), 1.0, EXACT, "and ends at A's upper end");
}

static void test_box_pairs(void** state)
{
	(void)state;
	sn_transform id = sn_transform_identity();
	collide_shape box = collide_make_box(sn_v3(0.5, 0.4, 0.3));
	collide_shape ball = collide_make_sphere(0.1);
	// Sphere off a face, an edge, a corner, and inside.
	collide_manifold m = collide1(ball, pose_at(0.7, 0, 0), box, id, 1.0);
	assert_near(m.points[0].separation, 0.1, EXACT, "face: 0.2 - 0.1");
	assert_vec_near(m.normal, sn_v3(-1, 0, 0), EXACT, "sphere to box");
	m = collide1(ball, pose_at(0.8, 0.8, 0), box, id, 1.0);
	assert_near(m.points[0].separation, sqrt(0.09 + 0.16) - 0.1, EXACT, "edge");
	m = collide1(ball, pose_at(0.6, 0.5, 0.4), box, id, 1.0);
	assert_near(m.points[0].separation, sqrt(0.03) - 0.1, EXACT, "corner: 0.1 along each axis");
	m = collide1(ball, pose_at(0.45, 0.0, 0.1), box, id, 0.0);
	assert_near(m.points[0].separation, -0.15, EXACT, "inside: 0.05 to the face plus the radius");
	assert_vec_near(m.normal, sn_v3(-1, 0, 0), EXACT, "out through the nearest face, reversed");

	// Capsule (r 0.05, h 0.2) lying along x on the box's top face, 0.01 deep: 2 points.
	collide_shape cap = collide_make_capsule(0.05, 0.2);
	sn_transform lying = pose(sn_v3(0.1, 0.1, 0.34), axis_angle(0, 1, 0, 0.5 * SN_PI));
	m = collide1(cap, lying, box, id, 0.0);
	assert_int_equal(m.point_count, 2);
	assert_near(m.points[0].separation, -0.01, EXACT, "closed form");
	assert_near(m.points[1].separation, -0.01, EXACT, "closed form");
	assert_vec_near(m.normal, sn_v3(0, 0, -1), EXACT, "capsule down onto the face");
	assert_true(has_point_xy(&m, 0.3, 0.1, EXACT) && has_point_xy(&m, -0.1, 0.1, EXACT));
	// Hanging over the edge at x = 0.5: clipped there.
	m = collide1(cap, pose(sn_v3(0.45, 0.1, 0.34), axis_angle(0, 1, 0, 0.5 * SN_PI)), box, id, 0.0);
	assert_int_equal(m.point_count, 2);
	assert_true(has_point_xy(&m, 0.5, 0.1, EXACT) && has_point_xy(&m, 0.25, 0.1, EXACT));
	// Standing on the face, 0.02 deep.
	m = collide1(cap, pose_at(0, 0, 0.53), box, id, 0.0);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, -0.02, EXACT, "closed form");
	// Apart, beyond an edge: the segment end at (0.6, 0.5, 0) away from the edge x = 0.5, y = 0.4.
	m = collide1(cap, pose_at(0.6, 0.5, 0.0), box, id, 1.0);
	assert_near(min_separation(&m), sqrt(0.02) - 0.05, EXACT, "segment to edge");
	// Through the box along z, off-centre at x 0.45: the least overlap is through the +x face,
	// 0.05 to the face plus the radius.
	m = collide1(cap, pose_at(0.45, 0.0, 0.0), box, id, 0.0);
	assert_near(min_separation(&m), -0.1, EXACT, "SAT face axis");
	assert_vec_near(m.normal, sn_v3(-1, 0, 0), EXACT, "out through +x, reversed");

	// Box on box: 4 points at the top box's bottom corners (it is the smaller), 0.002 deep.
	collide_shape small = collide_make_box(sn_v3(0.2, 0.1, 0.1));
	m = collide1(box, id, small, pose_at(0.1, 0.05, 0.398), 0.0);
	assert_int_equal(m.point_count, 4);
	for (int i = 0; i < 4; ++i)
	{
		assert_near(m.points[i].separation, -0.002, EXACT, "closed form");
	}
	assert_true(has_point_xy(&m, 0.3, 0.15, EXACT) && has_point_xy(&m, -0.1, 0.15, EXACT) &&
				has_point_xy(&m, 0.3, -0.05, EXACT) && has_point_xy(&m, -0.1, -0.05, EXACT));
	assert_vec_near(m.normal, sn_v3(0, 0, 1), 0.0, "the reference face's normal, exactly");
	// Yawed 45 degrees on top: still 4 points (the corners of the small box's bottom, inside the top face).
	m = collide1(box, id, small, pose(sn_v3(0, 0, 0.398), axis_angle(0, 0, 1, 0.25 * SN_PI)), 0.0);
	assert_int_equal(m.point_count, 4);
	assert_near(min_separation(&m), -0.002, EXACT, "closed form");
	// On its edge (45 degrees about x): 2 points.
	double reach = sqrt(0.02) * sin(0.5 * SN_PI);
	m = collide1(box, id, small, pose(sn_v3(0, 0, 0.3 + reach - 0.001), axis_angle(1, 0, 0, 0.25 * SN_PI)), 0.0);
	assert_int_equal(m.point_count, 2);
	assert_near(min_separation(&m), -0.001, EXACT, "closed form");
	// Edge across edge. A's edge along x at y 0.4, z 0.3; the common perpendicular L = (0, 1, 1)/sqrt 2 is
	// the outward diagonal there, which is no face normal of either box. A cube (h 0.1) is turned so that
	// one edge runs along (0, 1, -1)/sqrt 2 (perpendicular to L and to x) with that edge its support along
	// -L: axes b_x = (0, 1, -1)/sqrt 2, b_y = (L - e_x)/sqrt 2, b_z = (L + e_x)/sqrt 2. That edge is
	// 0.1 sqrt 2 from the cube's centre along -L; put it 0.003 beyond A's edge along L.
	double r2 = sqrt(0.5);
	sn_vec3 l = sn_v3(0, r2, r2);
	sn_mat33 axes = { { 0, r2, -r2 }, { -r2, 0.5, 0.5 }, { r2, 0.5, 0.5 } };
	collide_shape cube = collide_make_box(sn_v3(0.1, 0.1, 0.1));
	sn_vec3 centre = sn_add(sn_v3(0, 0.4, 0.3), sn_scale(0.003 + 0.1 * sqrt(2.0), l));
	m = collide1(box, id, cube, pose(centre, quat_from_mat33(axes)), 0.01);
	assert_int_equal(m.point_count, 1);
	assert_near(m.points[0].separation, 0.003, EXACT, "edge-edge along the diagonal");
	assert_vec_near(m.normal, l, 1e-12, "the common perpendicular");
	assert_vec_near(m.points[0].point, sn_add(sn_v3(0, 0.4, 0.3), sn_scale(0.0015, l)), EXACT,
					"midway between the edges");
}

// The point of m with this id, or NULL.
static const collide_point* point_with_id(const collide_manifold* m, uint64_t id)
{
	for (int i = 0; i < m->point_count; ++i)
	{
		if (m->points[i].id == id)
		{
			return m->points + i;
		}
	}
	return NULL;
}

// Each id of this step names the same corner as it did in the last step: its point moved by no more than
// a corner moves in a step (1.1 mm of slide, 0.45 mm of yaw at 0.22 m, 0.06 mm of sinking: under 3 mm),
// where another corner is at least 0.2 m away.
static void assert_ids_follow_corners(const collide_manifold* now, const collide_manifold* before)
{
	for (int i = 0; i < now->point_count; ++i)
	{
		const collide_point* p = point_with_id(before, now->points[i].id);
		assert_non_null(p);
		assert_below(sn_length(sn_sub(now->points[i].point, p->point)), 0.003,
					 "the same id at the same corner (a corner moves under 3 mm a step, the next is 0.2 m away)");
	}
}

// Feature ids stay the same over 100 steps of a box sliding slowly on a plane and on a box, each on the
// same corner.
static void test_feature_ids_sliding(void** state)
{
	(void)state;
	collide_shape plane = collide_make_plane(sn_v3(0, 0, 1), 0.0);
	collide_shape box = collide_make_box(sn_v3(0.2, 0.1, 0.05));
	collide_shape base = collide_make_box(sn_v3(2.0, 2.0, 0.5));
	sn_transform id = sn_transform_identity();
	uint64_t first_plane[4] = { 0 }, first_box[4] = { 0 };
	collide_manifold last_plane, last_box;
	memset(&last_plane, 0, sizeof(last_plane));
	memset(&last_box, 0, sizeof(last_box));
	for (int step = 0; step <= 100; ++step)
	{
		// 1 mm a step along x with a slow yaw, sinking and rising by 0.1 mm.
		double x = 0.001 * step;
		sn_quat q = axis_angle(0, 0, 1, 0.002 * step);
		double sink = 1e-4 * sin(0.3 * step);
		collide_manifold m = collide1(plane, id, box, pose(sn_v3(x, 0.5 * x, 0.05 - 0.0002 + sink), q), 0.005);
		collide_manifold mb = collide1(base, id, box, pose(sn_v3(x, -0.5 * x, 0.55 - 0.0002 + sink), q), 0.005);
		assert_int_equal(m.point_count, 4);
		assert_int_equal(mb.point_count, 4);
		if (step > 0)
		{
			assert_ids_follow_corners(&m, &last_plane);
			assert_ids_follow_corners(&mb, &last_box);
		}
		last_plane = m;
		last_box = mb;
		uint64_t ids[4], idb[4];
		for (int i = 0; i < 4; ++i)
		{
			ids[i] = m.points[i].id;
			idb[i] = mb.points[i].id;
		}
		if (step == 0)
		{
			memcpy(first_plane, ids, sizeof(ids));
			memcpy(first_box, idb, sizeof(idb));
			for (int i = 0; i < 4; ++i)
			{
				for (int j = i + 1; j < 4; ++j)
				{
					assert_true(ids[i] != ids[j] && idb[i] != idb[j]); // distinct
				}
			}
			continue;
		}
		// Same set (reduction may order them differently).
		for (int i = 0; i < 4; ++i)
		{
			bool found_p = false, found_b = false;
			for (int j = 0; j < 4; ++j)
			{
				found_p = found_p || ids[i] == first_plane[j];
				found_b = found_b || idb[i] == first_box[j];
			}
			assert_true(found_p);
			assert_true(found_b);
		}
	}
}

// Speculative contact: a sphere of radius 0.05 m at 20 m/s against a static box 0.01 m thick, steps of
// 1 ms (0.02 m a step, twice the box's thickness). A minimal speculative solver (the normal speed may
// close at most the reported gap in one step: Catto, "Continuous Collision", GDC 2013) stops it on the
// surface without ever overlapping when the margin covers one step's travel. Without a margin the
// contact is seen only once the sphere overlaps, and by then its surface has gone through the whole
// plate. Returns the lowest point the sphere's bottom reached.
static double fire_sphere(double margin, double* final_z)
{
	collide_shape ball = collide_make_sphere(0.05);
	collide_shape plate = collide_make_box(sn_v3(0.5, 0.5, 0.005));
	sn_transform plate_pose = sn_transform_identity();
	double z = 0.3, v = -20.0, dt = 0.001, lowest = INFINITY;
	for (int step = 0; step < 100; ++step)
	{
		collide_manifold m = collide1(ball, pose_at(0, 0, z), plate, plate_pose, margin);
		if (m.point_count > 0)
		{
			// Normal from the ball to the plate; the approach speed along it may close at most the gap.
			double vn = v * m.normal.z;
			double gap = min_separation(&m);
			if (vn * dt > gap)
			{
				v = gap / dt / m.normal.z;
			}
		}
		z += v * dt;
		lowest = fmin(lowest, z - 0.05);
	}
	*final_z = z;
	return lowest;
}

static void test_speculative_margin(void** state)
{
	(void)state;
	double z;
	double lowest = fire_sphere(20.0 * 0.001 + 0.005, &z); // one step's travel plus 5 mm
	assert_near(z, 0.055, 1e-12, "resting on the top face (0.005 + 0.05): the gap is closed exactly");
	assert_near(lowest, 0.005, 1e-12, "never below the top face");
	lowest = fire_sphere(0.0, &z);
	assert_true(lowest < -0.005); // without a margin its surface passed the plate's bottom face
}

// The same pair in both orders. Of different types the dispatch puts them in one order and runs one
// computation: normals exactly opposite, separations equal. Of the same type the two orders are two
// computations (A's frame differs, and ties between reference faces go to A): the deepest separations
// agree within the GJK/EPA tolerance (1e-9 of the size, with room for rounding).
static void test_dispatch_symmetry(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	test_rng rng = { 4242 };
	sn_vec3 pts[40];
	for (int i = 0; i < 40; ++i)
	{
		pts[i] = sn_scale(0.3, rng_direction(&rng));
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, pts, 40, &hull, NULL, 0));
	collide_shape shapes[6] = {
		collide_make_sphere(0.2),         collide_make_capsule(0.1, 0.2), collide_make_box(sn_v3(0.2, 0.15, 0.1)),
		collide_make_cylinder(0.15, 0.2), collide_make_hull(hull),        collide_make_plane(sn_v3(0, 0, 1), 0)
	};
	for (int trial = 0; trial < 200; ++trial)
	{
		int ia = (int)(rng_uniform(&rng) * 6), ib = (int)(rng_uniform(&rng) * 5);
		bool same = ia == ib;
		sn_transform xa = pose(rng_vec3(&rng, -0.2, 0.2), rng_quat(&rng));
		sn_transform xb = pose(rng_vec3(&rng, -0.2, 0.2), rng_quat(&rng));
		if (ia == 5)
		{
			xa = sn_transform_identity();
		}
		collide_manifold ab[COLLIDE_MAX_MANIFOLDS], ba[COLLIDE_MAX_MANIFOLDS];
		int nab = collide_shapes(&shapes[ia], xa, &shapes[ib], xb, 0.05, ab);
		int nba = collide_shapes(&shapes[ib], xb, &shapes[ia], xa, 0.05, ba);
		assert_int_equal(nab, nba);
		if (nab == 0)
		{
			continue;
		}
		if (same)
		{
			if (fabs(min_separation(&ab[0]) - min_separation(&ba[0])) > 1e-9)
				print_message("type %d trial %d: %g vs %g (counts %d %d)\n", ia, trial, min_separation(&ab[0]),
							  min_separation(&ba[0]), ab[0].point_count, ba[0].point_count);
			assert_near(min_separation(&ab[0]), min_separation(&ba[0]), 1e-9, "two computations, one answer");
			continue;
		}
		assert_int_equal(ab[0].point_count, ba[0].point_count);
		assert_vec_near(ab[0].normal, sn_neg(ba[0].normal), 0.0, "one computation, flipped");
		assert_near(min_separation(&ab[0]), min_separation(&ba[0]), 0.0, "one computation");
	}
	hull_destroy(&mem, hull);
}

// The GJK/EPA path with face clipping: a hull resting on a box and a box on a hull face give 4 points at
// the corners; a cylinder standing on a box gives 4 of its cap's rim points, lying 2; a capsule lying on
// a hull face 2; and the hull's ids stay the same while it slides.
static void test_convex_manifolds(void** state)
{
	(void)state;
	sn_memory mem = test_memory();
	sn_vec3 corners[8];
	for (int i = 0; i < 8; ++i)
	{
		corners[i] = sn_v3((i & 1) ? 0.2 : -0.2, (i & 2) ? 0.1 : -0.1, (i & 4) ? 0.05 : -0.05);
	}
	collide_hull* hull = NULL;
	assert_sn_ok(hull_build(&mem, corners, 8, &hull, NULL, 0));
	collide_shape h = collide_make_hull(hull);
	collide_shape base = collide_make_box(sn_v3(1.0, 1.0, 0.5));
	sn_transform id = sn_transform_identity();
	uint64_t first[4] = { 0 };
	collide_manifold last;
	memset(&last, 0, sizeof(last));
	for (int step = 0; step <= 100; ++step)
	{
		sn_transform xh = pose(sn_v3(0.001 * step, 0.0005 * step, 0.55 - 0.0003), axis_angle(0, 0, 1, 0.002 * step));
		collide_manifold m = collide1(base, id, h, xh, 0.005);
		assert_int_equal(m.point_count, 4);
		if (step > 0)
		{
			assert_ids_follow_corners(&m, &last);
		}
		last = m;
		for (int i = 0; i < 4; ++i)
		{
			assert_near(m.points[i].separation, -0.0003, EXACT, "resting 0.3 mm deep");
		}
		assert_vec_near(m.normal, sn_v3(0, 0, 1), 0.0, "the box's face normal");
		if (step == 0)
		{
			for (int i = 0; i < 4; ++i)
			{
				first[i] = m.points[i].id;
			}
			continue;
		}
		for (int i = 0; i < 4; ++i)
		{
			bool found = false;
			for (int j = 0; j < 4; ++j)
			{
				found = found || m.points[i].id == first[j];
			}
			assert_true(found);
		}
	}
	// A small box on the hull's top face.
	collide_manifold m = collide1(h, id, collide_make_box(sn_v3(0.05, 0.05, 0.05)), pose_at(0.1, 0.0, 0.099), 0.0);
	assert_int_equal(m.point_count, 4);
	assert_near(min_separation(&m), -0.001, EXACT, "closed form");
	// Cylinder standing and lying on the box.
	collide_shape cyl = collide_make_cylinder(0.1, 0.2);
	m = collide1(base, id, cyl, pose_at(0.2, 0.1, 0.7 - 0.002), 0.0);
	assert_int_equal(m.point_count, 4);
	assert_near(min_separation(&m), -0.002, EXACT, "closed form");
	for (int i = 0; i < 4; ++i)
	{
		assert_near(hypot(m.points[i].point.x - 0.2, m.points[i].point.y - 0.1), 0.1, EXACT, "rim points");
	}
	m = collide1(base, id, cyl, pose(sn_v3(0, 0, 0.6 - 0.002), axis_angle(1, 0, 0, 0.5 * SN_PI)), 0.0);
	assert_int_equal(m.point_count, 2);
	assert_near(min_separation(&m), -0.002, 1e-9, "EPA on the cylinder's curved side (1e-10 of the size)");
	// Capsule lying on the hull's top face.
	m = collide1(h, id, collide_make_capsule(0.02, 0.1), pose(sn_v3(0, 0, 0.069), axis_angle(0, 1, 0, 0.5 * SN_PI)),
				 0.0);
	assert_int_equal(m.point_count, 2);
	assert_near(min_separation(&m), -0.001, EXACT, "closed form");
	hull_destroy(&mem, hull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plane_pairs),        cmocka_unit_test(test_round_pairs),
		cmocka_unit_test(test_box_pairs),          cmocka_unit_test(test_feature_ids_sliding),
		cmocka_unit_test(test_speculative_margin), cmocka_unit_test(test_dispatch_symmetry),
		cmocka_unit_test(test_convex_manifolds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
