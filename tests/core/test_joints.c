// Joints: every type holds the coordinates it locks in a loaded chain, the coordinates follow the
// conventions of types.h, the Jacobians agree with finite differences of the coordinates, and the
// spherical cone and twist limits, the six-axis modes and the distance joint's spring and range hold.
//
// Joint error is measured from the public body poses and joint frames (core_support.h), never from the
// core's own coordinates, and only on the coordinates the type must keep locked:
//   fixed        |anchor gap| and the relative rotation angle
//   hinge        |anchor gap| and the angle between the two frames' x axes
//   prismatic    the gap across the axis (frame-A y and z) and the relative rotation angle
//   cylindrical  the gap across the axis and the angle between the x axes
//   spherical    |anchor gap|
//   distance     | |anchor gap| - length |
//   six-axis     (configured here as a universal joint: X, Y, Z and RX locked) |anchor gap| and twist
#include "core_support.h"

static const double dt = 0.001;

enum
{
	CHAIN_LINKS = 5
};

typedef struct chain
{
	sn_world* world;
	sn_joint_type type;
	sn_body_id links[CHAIN_LINKS];
	sn_joint_id joints[CHAIN_LINKS];
} chain;

typedef struct joint_error
{
	double linear;  // m
	double angular; // rad
} joint_error;

static const double half = 0.25;    // link half-length, m
static const double tip_mass = 5.0; // the load: the last link is five times heavier, kg

// Create a joint of the chain's type between two bodies with the given frames. Limits on the sliding
// joints keep the telescoping chains from coming apart.
static sn_joint_id chain_joint(chain* c, sn_body_id a, sn_body_id b, sn_transform fa, sn_transform fb)
{
	sn_joint_base base = sn_default_joint_base();
	base.body_a = a;
	base.body_b = b;
	base.frame_a = fa;
	base.frame_b = fb;
	sn_joint_id id;
	switch (c->type)
	{
		case SN_JOINT_FIXED:
		{
			sn_fixed_joint_def d = sn_default_fixed_joint_def();
			d.base = base;
			assert_sn_ok(sn_create_fixed_joint(c->world, &d, &id));
			break;
		}
		case SN_JOINT_HINGE:
		{
			sn_hinge_joint_def d = sn_default_hinge_joint_def();
			d.base = base;
			assert_sn_ok(sn_create_hinge_joint(c->world, &d, &id));
			break;
		}
		case SN_JOINT_PRISMATIC:
		{
			sn_prismatic_joint_def d = sn_default_prismatic_joint_def();
			d.base = base;
			d.limit = (sn_limit){ true, -0.1, 0.1, sn_soft_rigid() };
			assert_sn_ok(sn_create_prismatic_joint(c->world, &d, &id));
			break;
		}
		case SN_JOINT_CYLINDRICAL:
		{
			sn_cylindrical_joint_def d = sn_default_cylindrical_joint_def();
			d.base = base;
			d.linear_limit = (sn_limit){ true, -0.1, 0.1, sn_soft_rigid() };
			assert_sn_ok(sn_create_cylindrical_joint(c->world, &d, &id));
			break;
		}
		case SN_JOINT_SPHERICAL:
		{
			sn_spherical_joint_def d = sn_default_spherical_joint_def();
			d.base = base;
			assert_sn_ok(sn_create_spherical_joint(c->world, &d, &id));
			break;
		}
		case SN_JOINT_DISTANCE:
		{
			sn_distance_joint_def d = sn_default_distance_joint_def();
			d.base = base;
			d.length = 2.0 * half;
			assert_sn_ok(sn_create_distance_joint(c->world, &d, &id));
			break;
		}
		case SN_JOINT_SIX_AXIS:
		default:
		{
			sn_six_axis_joint_def d = sn_default_six_axis_joint_def();
			d.base = base;
			d.axes[SN_AXIS_RY].mode = SN_AXIS_FREE;
			d.axes[SN_AXIS_RZ].mode = SN_AXIS_FREE;
			assert_sn_ok(sn_create_six_axis_joint(c->world, &d, &id));
			break;
		}
	}
	return id;
}

// The scenes (gravity -z, 1 kg links of 0.1 x 0.1 x 0.5 m, the last one 5 kg, the first jointed to the
// world at the origin):
//   hinge: links along +x, released horizontal, hinge axes alternating between world y and world z, so
//     the chain swings in 3D.
//   spherical, universal (six-axis): links along +x, released horizontal and turning about z at
//     1 rad/s, so they swing in 3D.
//   distance: point masses 0.5 m apart on rigid rods, released horizontal, turning about z at 1 rad/s.
//   fixed: a horizontal cantilever, every joint carrying the bending moment of the links beyond it.
//   prismatic, cylindrical: a cantilevered telescope along a line 30 degrees below horizontal; the links
//     slide out to their 0.1 m limits, the cylinder links also spin about the line at 1..5 rad/s.
static chain build_chain(sn_joint_type type, sn_solver solver)
{
	chain c;
	memset(&c, 0, sizeof(c));
	c.type = type;
	c.world = test_world(solver, dt, sn_v3(0, 0, -9.81));
	bool telescope = type == SN_JOINT_PRISMATIC || type == SN_JOINT_CYLINDRICAL;
	bool spinning = type == SN_JOINT_SPHERICAL || type == SN_JOINT_DISTANCE || type == SN_JOINT_SIX_AXIS;
	sn_quat link_q = sn_quat_identity();
	if (telescope)
	{
		link_q = sn_quat_from_axis_angle(sn_v3(0, 1, 0), SN_PI / 6.0); // x tilted 30 degrees down
	}
	sn_vec3 along = sn_rotate(link_q, sn_v3(1, 0, 0));
	for (int i = 0; i < CHAIN_LINKS; ++i)
	{
		// Joint frames: hinges alternate between world y and world z (frame x turned onto y or z), so
		// the chain swings in 3D and the swing locks carry load.
		sn_quat frame_q = sn_quat_identity();
		if (type == SN_JOINT_HINGE)
		{
			frame_q = i % 2 == 0 ? sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI)
								 : sn_quat_from_axis_angle(sn_v3(0, 1, 0), -0.5 * SN_PI);
		}
		double mass = i == CHAIN_LINKS - 1 ? tip_mass : 1.0;
		sn_body_def bd = sn_default_body_def();
		bd.pose.p = sn_scale(half + 2.0 * half * i, along);
		bd.pose.q = link_q;
		bd.mass = mass;
		bd.inertia =
			type == SN_JOINT_DISTANCE ? sn_inertia_sphere(mass, 0.05) : sn_inertia_box(mass, sn_v3(half, 0.05, 0.05));
		if (type == SN_JOINT_DISTANCE)
		{
			bd.pose.p = sn_scale(2.0 * half * (i + 1), along);
		}
		if (spinning)
		{
			bd.angular_velocity = sn_v3(0, 0, 1.0);
			bd.linear_velocity = sn_cross(bd.angular_velocity, bd.pose.p);
		}
		if (type == SN_JOINT_CYLINDRICAL)
		{
			bd.angular_velocity = sn_scale(1.0 + i, along);
		}
		assert_sn_ok(sn_create_body(c.world, &bd, c.links + i));

		sn_body_id a = i > 0 ? c.links[i - 1] : (sn_body_id){ 0, 0 };
		sn_transform fa = { sn_v3(half, 0, 0), frame_q };
		sn_transform fb = { sn_v3(-half, 0, 0), frame_q };
		if (type == SN_JOINT_DISTANCE)
		{
			fa.p = sn_v3(0, 0, 0);
			fb.p = sn_v3(0, 0, 0);
		}
		if (i == 0)
		{
			fa.p = sn_v3(0, 0, 0);
			fa.q = sn_quat_mul(link_q, frame_q);
		}
		c.joints[i] = chain_joint(&c, a, c.links[i], fa, fb);
	}
	return c;
}

static joint_error measure_joint(const sn_world* world, sn_joint_type type, sn_joint_id j)
{
	sn_vec3 gap = joint_separation(world, j);
	sn_quat q = joint_relative_rotation(world, j);
	joint_error e = { 0.0, 0.0 };
	switch (type)
	{
		case SN_JOINT_FIXED:
			e.linear = sn_length(gap);
			e.angular = quat_angle(q);
			break;
		case SN_JOINT_HINGE:
			e.linear = sn_length(gap);
			e.angular = joint_axis_misalignment(world, j);
			break;
		case SN_JOINT_PRISMATIC:
			e.linear = hypot(gap.y, gap.z);
			e.angular = quat_angle(q);
			break;
		case SN_JOINT_CYLINDRICAL:
			e.linear = hypot(gap.y, gap.z);
			e.angular = joint_axis_misalignment(world, j);
			break;
		case SN_JOINT_SPHERICAL:
			e.linear = sn_length(gap);
			break;
		case SN_JOINT_DISTANCE:
			e.linear = fabs(sn_length(gap) - 2.0 * half);
			break;
		case SN_JOINT_SIX_AXIS:
		default:
			e.linear = sn_length(gap);
			e.angular = fabs(quat_twist_x(q));
			break;
	}
	return e;
}

typedef struct chain_run
{
	joint_error worst;           // over all joints and steps
	double slide_min, slide_max; // telescopes: the sliding coordinate, m (from the poses)
	double slide_speed;          // telescopes: the fastest slide, m/s (from the poses, per step)
	double tip_travel;           // m, how far the tip moved: proof that the chain did move
} chain_run;

static chain_run run_chain(sn_joint_type type, sn_solver solver, double seconds)
{
	chain c = build_chain(type, solver);
	chain_run out = { { 0.0, 0.0 }, INFINITY, -INFINITY, 0.0, 0.0 };
	double previous_x[CHAIN_LINKS] = { 0.0 };
	sn_vec3 tip0 = sn_body_get_center_of_mass(c.world, c.links[CHAIN_LINKS - 1]);
	int steps = (int)(seconds / dt + 0.5);
	for (int s = 0; s < steps; ++s)
	{
		assert_sn_ok(sn_world_step(c.world));
		for (int i = 0; i < CHAIN_LINKS; ++i)
		{
			joint_error e = measure_joint(c.world, type, c.joints[i]);
			out.worst.linear = fmax(out.worst.linear, e.linear);
			out.worst.angular = fmax(out.worst.angular, e.angular);
			if (type == SN_JOINT_PRISMATIC || type == SN_JOINT_CYLINDRICAL)
			{
				double x = joint_separation(c.world, c.joints[i]).x;
				out.slide_min = fmin(out.slide_min, x);
				out.slide_max = fmax(out.slide_max, x);
				out.slide_speed = fmax(out.slide_speed, fabs(x - previous_x[i]) / dt);
				previous_x[i] = x;
			}
		}
	}
	out.tip_travel = sn_length(sn_sub(sn_body_get_center_of_mass(c.world, c.links[CHAIN_LINKS - 1]), tip0));
	sn_world_destroy(c.world);
	return out;
}

typedef struct chain_bound
{
	sn_joint_type type;
	double linear[2];  // m, PGS then TGS
	double angular[2]; // rad
	const char* reason;
} chain_bound;

static void check_chain(const chain_bound* bound)
{
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	for (int s = 0; s < 2; ++s)
	{
		chain_run run = run_chain(bound->type, solvers[s], 2.0);
		char name[96];
		snprintf(name, sizeof(name), "%s chain %s linear error (m)", sn_joint_type_name(bound->type),
				 sn_solver_name(solvers[s]));
		report_measure(name, run.worst.linear);
		snprintf(name, sizeof(name), "%s chain %s angular error (rad)", sn_joint_type_name(bound->type),
				 sn_solver_name(solvers[s]));
		report_measure(name, run.worst.angular);
		snprintf(name, sizeof(name), "%s chain %s tip travel (m)", sn_joint_type_name(bound->type),
				 sn_solver_name(solvers[s]));
		report_measure(name, run.tip_travel);
		if (bound->type == SN_JOINT_PRISMATIC || bound->type == SN_JOINT_CYLINDRICAL)
		{
			snprintf(name, sizeof(name), "%s chain %s slide max (m)", sn_joint_type_name(bound->type),
					 sn_solver_name(solvers[s]));
			report_measure(name, run.slide_max);
		}
		assert_below(run.worst.linear, bound->linear[s], bound->reason);
		assert_below(run.worst.angular, bound->angular[s], bound->reason);
		if (bound->type == SN_JOINT_PRISMATIC || bound->type == SN_JOINT_CYLINDRICAL)
		{
			// The slides reach their 0.1 m limits. The links hit their stops one after the other and
			// knock each other back and forth until ~1.5 s; one Gauss-Seidel pass (PGS: eight
			// sweeps; TGS: one per sub-advance) does not resolve such an impact through the whole chain, so
			// a slide may pass its stop by part of one step's travel v h before the stop pushes it back
			// (measured 4.6e-4 m for PGS and 3.2e-4 m for TGS, with slides up to 2.2 m/s). A single body on a stop
			// holds much tighter (test_limits_motors.c).
			snprintf(name, sizeof(name), "%s chain %s fastest slide (m/s)", sn_joint_type_name(bound->type),
					 sn_solver_name(solvers[s]));
			report_measure(name, run.slide_speed);
			assert_below(run.slide_max - 0.1, run.slide_speed * dt, "impact overshoot below one step's travel");
			assert_below(-run.slide_min - 0.1, 0.0, "gravity pulls every slide towards its upper stop only");
			assert_near(run.slide_max, 0.1, 0.01, "gravity along the axis pushes every slide to its limit");
		}
		else if (bound->type != SN_JOINT_FIXED)
		{
			assert_true(run.tip_travel > 1.0); // the chain did swing down
		}
	}
}

// The bounds are about twice the worst error measured over the 2 s run (the figures are in each test and
// printed as MEASURE lines); TGS errors are about 1/8 of PGS's because its eight sub-advances of h/8 make
// each drift (v h)^2 / (2 l) 64 times smaller while each sub-advance sweeps once instead of eight times.
// Swinging chains: the tangent drift (v h)^2 / (2 l) of a link of l = 0.5 m moving at up to ~3 m/s
// relative to its neighbour, corrected at erp 0.2, is 5e-5 m per joint for PGS; the measured errors are
// that order, doubled by the Gauss-Seidel residual of the 5:1 tip load.
// Cantilevers (fixed, prismatic, cylindrical): the load is static but starts cold (no warm start), and
// eight sweeps over five links with a 5:1 tip leave part of the bending moment unbalanced each step; the
// sag rings down over seconds while the warm starts build up (with 32 sweeps it is 2e-9 m after 4 s).
static void test_chain_fixed(void** state)
{
	(void)state;
	// Measured: PGS 2.8e-4 m, 1.18e-3 rad; TGS 3.7e-5 m, 1.55e-4 rad.
	chain_bound b = { SN_JOINT_FIXED, { 5e-4, 7e-5 }, { 2e-3, 3e-4 }, "cold-started cantilever, see above" };
	check_chain(&b);
}

static void test_chain_hinge(void** state)
{
	(void)state;
	// Measured: PGS 9.6e-5 m, 4.0e-5 rad; TGS 9.9e-6 m, 6.9e-6 rad.
	chain_bound b = { SN_JOINT_HINGE, { 2e-4, 2e-5 }, { 1e-4, 1.5e-5 }, "swinging chain drift, see above" };
	check_chain(&b);
}

static void test_chain_prismatic(void** state)
{
	(void)state;
	// Measured: PGS 2.4e-4 m, 1.02e-3 rad; TGS 3.2e-5 m, 1.34e-4 rad.
	chain_bound b = { SN_JOINT_PRISMATIC, { 5e-4, 7e-5 }, { 2e-3, 3e-4 }, "cold-started cantilever, see above" };
	check_chain(&b);
}

static void test_chain_cylindrical(void** state)
{
	(void)state;
	// Measured: PGS 4.6e-4 m, 1.91e-3 rad; TGS 5.2e-5 m, 2.2e-4 rad (spinning links: more coupling).
	chain_bound b = { SN_JOINT_CYLINDRICAL, { 1e-3, 1e-4 }, { 4e-3, 5e-4 }, "cold-started cantilever, see above" };
	check_chain(&b);
}

static void test_chain_spherical(void** state)
{
	(void)state;
	// Measured: PGS 8.7e-5 m; TGS 9.6e-6 m. No angular lock.
	chain_bound b = { SN_JOINT_SPHERICAL, { 2e-4, 2e-5 }, { 0.0, 0.0 }, "swinging chain drift, see above" };
	check_chain(&b);
}

static void test_chain_distance(void** state)
{
	(void)state;
	// Measured: PGS 1.1e-4 m; TGS 1.0e-5 m. No angular lock.
	chain_bound b = { SN_JOINT_DISTANCE, { 2e-4, 2e-5 }, { 0.0, 0.0 }, "swinging chain drift, see above" };
	check_chain(&b);
}

static void test_chain_six_axis(void** state)
{
	(void)state;
	// Measured: PGS 9.0e-5 m, 2.2e-4 rad twist; TGS 9.5e-6 m, 3.0e-5 rad.
	chain_bound b = { SN_JOINT_SIX_AXIS, { 2e-4, 2e-5 }, { 5e-4, 6e-5 }, "swinging chain drift, see above" };
	check_chain(&b);
}

// ---- coordinate conventions ------------------------------------------------------------------------

// Place body B so that frame B sits at `rel` (translation in frame A's axes, rotation relative to frame
// A) from frame A, with body A where it is.
static void place_b(sn_world* world, sn_joint_id j, sn_transform rel)
{
	sn_transform fa = joint_world_frame(world, j, false);
	sn_transform fb_world = sn_transform_mul(fa, rel);
	sn_transform fb = sn_joint_get_frame_b(world, j);
	sn_transform fb_inv = { sn_neg(sn_inv_rotate(fb.q, fb.p)), sn_quat_conj(fb.q) };
	assert_sn_ok(sn_body_set_pose(world, sn_joint_get_body_b(world, j), sn_transform_mul(fb_world, fb_inv)));
}

static sn_quat swing_twist(double twist, double swing_y, double swing_z)
{
	sn_quat qt = sn_quat_from_axis_angle(sn_v3(1, 0, 0), twist);
	sn_quat qs = quat_from_rotation_vector(sn_v3(0, swing_y, swing_z));
	return sn_quat_mul(qs, qt);
}

static void test_coordinate_conventions(void** state)
{
	(void)state;
	sn_world* world = test_world(SN_SOLVER_TGS, dt, sn_v3(0, 0, 0));
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(1.0, 2.0, 3.0);
	bd.pose.q = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.4);
	bd.center_of_mass = sn_v3(0.05, -0.1, 0.02);
	sn_body_id a, b;
	assert_sn_ok(sn_create_body(world, &bd, &a));
	assert_sn_ok(sn_create_body(world, &bd, &b));
	sn_joint_base base = sn_default_joint_base();
	base.body_a = a;
	base.body_b = b;
	base.frame_a = (sn_transform){ sn_v3(0.1, 0.2, 0.3), sn_quat_from_axis_angle(sn_normalize(sn_v3(1, 1, 0)), 0.7) };
	base.frame_b = (sn_transform){ sn_v3(-0.2, 0.1, 0.0), sn_quat_from_axis_angle(sn_normalize(sn_v3(0, 1, 2)), -0.5) };
	const double tol = 1e-12; // a few transform compositions of numbers of order 1: rounding only
	const char* why = "composition rounding";

	sn_hinge_joint_def hd = sn_default_hinge_joint_def();
	hd.base = base;
	sn_joint_id hinge;
	assert_sn_ok(sn_create_hinge_joint(world, &hd, &hinge));
	// The hinge angle is the right-handed rotation of frame B about frame A's x axis.
	place_b(world, hinge, (sn_transform){ sn_v3(0, 0, 0), sn_quat_from_axis_angle(sn_v3(1, 0, 0), 0.3) });
	assert_near(sn_joint_get_coordinate(world, hinge, SN_AXIS_RX), 0.3, tol, why);
	place_b(world, hinge, (sn_transform){ sn_v3(0, 0, 0), sn_quat_from_axis_angle(sn_v3(1, 0, 0), -2.0) });
	assert_near(sn_joint_get_coordinate(world, hinge, SN_AXIS_RX), -2.0, tol, why);
	// Its rate: body B spinning about frame A's x axis through the anchor at +1.5 rad/s.
	sn_transform fa = joint_world_frame(world, hinge, false);
	sn_vec3 spin = sn_rotate(fa.q, sn_v3(1.5, 0, 0));
	assert_sn_ok(sn_body_set_angular_velocity(world, b, spin));
	assert_sn_ok(
		sn_body_set_linear_velocity(world, b, sn_cross(spin, sn_sub(sn_body_get_center_of_mass(world, b), fa.p))));
	assert_near(sn_joint_get_coordinate_speed(world, hinge, SN_AXIS_RX), 1.5, tol, why);
	assert_near(sn_joint_get_coordinate_speed(world, hinge, SN_AXIS_X), 0.0, tol, "the anchor does not move");
	assert_near(sn_joint_get_coordinate_speed(world, hinge, SN_AXIS_RY), 0.0, tol, "no swing");
	assert_sn_ok(sn_body_set_angular_velocity(world, b, sn_v3(0, 0, 0)));
	assert_sn_ok(sn_body_set_linear_velocity(world, b, sn_v3(0, 0, 0)));

	// The prismatic translation is along frame A's x axis.
	sn_prismatic_joint_def pd = sn_default_prismatic_joint_def();
	pd.base = base;
	sn_joint_id slider;
	assert_sn_ok(sn_create_prismatic_joint(world, &pd, &slider));
	place_b(world, slider, (sn_transform){ sn_v3(0.2, 0, 0), sn_quat_identity() });
	assert_near(sn_joint_get_coordinate(world, slider, SN_AXIS_X), 0.2, tol, why);
	assert_near(sn_joint_get_coordinate(world, slider, SN_AXIS_Y), 0.0, tol, why);
	assert_sn_ok(sn_body_set_linear_velocity(world, b, sn_rotate(fa.q, sn_v3(0.7, 0, 0))));
	assert_near(sn_joint_get_coordinate_speed(world, slider, SN_AXIS_X), 0.7, tol, why);
	assert_sn_ok(sn_body_set_linear_velocity(world, b, sn_v3(0, 0, 0)));

	// The cylinder: both.
	sn_cylindrical_joint_def cd = sn_default_cylindrical_joint_def();
	cd.base = base;
	sn_joint_id cylinder;
	assert_sn_ok(sn_create_cylindrical_joint(world, &cd, &cylinder));
	place_b(world, cylinder, (sn_transform){ sn_v3(-0.15, 0, 0), sn_quat_from_axis_angle(sn_v3(1, 0, 0), 0.3) });
	assert_near(sn_joint_get_coordinate(world, cylinder, SN_AXIS_X), -0.15, tol, why);
	assert_near(sn_joint_get_coordinate(world, cylinder, SN_AXIS_RX), 0.3, tol, why);

	// Six coordinates: translation in frame A's axes; rotation = swing * twist, the swing a rotation
	// vector with no x component (types.h).
	sn_six_axis_joint_def sd = sn_default_six_axis_joint_def();
	sd.base = base;
	for (int k = 0; k < SN_AXIS_COUNT; ++k)
	{
		sd.axes[k].mode = SN_AXIS_FREE;
	}
	sn_joint_id six;
	assert_sn_ok(sn_create_six_axis_joint(world, &sd, &six));
	place_b(world, six, (sn_transform){ sn_v3(0.1, -0.2, 0.3), swing_twist(0.5, 0.3, -0.2) });
	const double expect[SN_AXIS_COUNT] = { 0.1, -0.2, 0.3, 0.5, 0.3, -0.2 };
	for (int k = 0; k < SN_AXIS_COUNT; ++k)
	{
		assert_near(sn_joint_get_coordinate(world, six, (sn_axis)k), expect[k], tol, why);
	}
	// A pure swing about y reads as RY alone.
	place_b(world, six, (sn_transform){ sn_v3(0, 0, 0), sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.4) });
	assert_near(sn_joint_get_coordinate(world, six, SN_AXIS_RY), 0.4, tol, why);
	assert_near(sn_joint_get_coordinate(world, six, SN_AXIS_RZ), 0.0, tol, why);
	assert_near(sn_joint_get_coordinate(world, six, SN_AXIS_RX), 0.0, tol, why);

	// The spherical joint reads the same three angles.
	sn_spherical_joint_def ball = sn_default_spherical_joint_def();
	ball.base = base;
	sn_joint_id sphere;
	assert_sn_ok(sn_create_spherical_joint(world, &ball, &sphere));
	place_b(world, sphere, (sn_transform){ sn_v3(0, 0, 0), swing_twist(-1.1, -0.6, 0.9) });
	assert_near(sn_joint_get_coordinate(world, sphere, SN_AXIS_RX), -1.1, tol, why);
	assert_near(sn_joint_get_coordinate(world, sphere, SN_AXIS_RY), -0.6, tol, why);
	assert_near(sn_joint_get_coordinate(world, sphere, SN_AXIS_RZ), 0.9, tol, why);

	// The distance joint's X is the distance between the anchors, and its rate the rate of that.
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base = base;
	sn_joint_id rod;
	assert_sn_ok(sn_create_distance_joint(world, &dd, &rod));
	sn_vec3 dir = sn_normalize(sn_v3(1, -2, 2));
	place_b(world, rod, (sn_transform){ sn_scale(1.7, dir), sn_quat_from_axis_angle(sn_v3(0, 0, 1), 1.0) });
	assert_near(sn_joint_get_coordinate(world, rod, SN_AXIS_X), 1.7, tol, why);
	assert_sn_ok(sn_body_set_linear_velocity(world, b, sn_rotate(fa.q, sn_scale(0.4, dir))));
	assert_near(sn_joint_get_coordinate_speed(world, rod, SN_AXIS_X), 0.4, tol, why);
	sn_world_destroy(world);
}

// ---- Jacobians against finite differences -----------------------------------------------------------

static const sn_vec3 fd_local_com = { 0.1, -0.05, 0.2 }; // centre of mass in the body frame, m

// Move a body along its velocity for a time s from pose0: centre of mass by s v, orientation by exp(s w).
static void drift_body(sn_world* world, sn_body_id id, sn_transform pose0, double s)
{
	sn_vec3 v = sn_body_get_linear_velocity(world, id), w = sn_body_get_angular_velocity(world, id);
	sn_quat q = sn_quat_mul(quat_from_rotation_vector(sn_scale(s, w)), pose0.q);
	sn_vec3 com = sn_mul_add(sn_transform_point(pose0, fd_local_com), s, v);
	sn_transform pose = { sn_sub(com, sn_rotate(q, fd_local_com)), q };
	assert_sn_ok(sn_body_set_pose(world, id, pose));
}

// For random poses, frames and velocities (centres of mass off the body origin), the coordinate speed
// (the rows' Jacobian times the velocities, sn_joint_get_coordinate_speed) equals the central difference
// of sn_joint_get_coordinate after moving both bodies along their velocities by +-eps, extrapolated
// (Richardson: D = (4 D(eps/2) - D(eps)) / 3, error O(eps^4)). With eps = 1e-4 s, speeds of a few m/s and
// rad/s and anchors at least 0.3 m apart (the distance's derivatives grow as 1/|d|^k), the truncation is
// below 1e-12 and the rounding about 50 ulp |c| / eps ~ 1e-10; the bound 1e-8 keeps a margin of 100 and
// is still far below any wrong term in a Jacobian (which errs by O(|v|, |w|)).
static void test_jacobians_finite_differences(void** state)
{
	(void)state;
	sn_world* world = test_world(SN_SOLVER_TGS, dt, sn_v3(0, 0, 0));
	test_rng rng = { 0x9e3779b97f4a7c15ull };
	sn_body_def bd = sn_default_body_def();
	bd.center_of_mass = fd_local_com;
	sn_body_id a, b;
	assert_sn_ok(sn_create_body(world, &bd, &a));
	assert_sn_ok(sn_create_body(world, &bd, &b));
	const double eps = 1e-4;
	double worst = 0.0;
	int trials = 300;
	for (int t = 0; t < trials; ++t)
	{
		sn_joint_base base = sn_default_joint_base();
		base.body_a = a;
		base.body_b = b;
		base.frame_a = (sn_transform){ rng_vec3(&rng, -0.5, 0.5), rng_rotation(&rng, 3.0) };
		base.frame_b = (sn_transform){ rng_vec3(&rng, -0.5, 0.5), rng_rotation(&rng, 3.0) };
		sn_six_axis_joint_def sd = sn_default_six_axis_joint_def();
		sd.base = base;
		for (int k = 0; k < SN_AXIS_COUNT; ++k)
		{
			sd.axes[k].mode = SN_AXIS_FREE;
		}
		sn_joint_id six, rod;
		assert_sn_ok(sn_create_six_axis_joint(world, &sd, &six));
		sn_distance_joint_def dd = sn_default_distance_joint_def();
		dd.base = base;
		assert_sn_ok(sn_create_distance_joint(world, &dd, &rod));

		assert_sn_ok(sn_body_set_pose(world, a, (sn_transform){ rng_vec3(&rng, -2, 2), rng_rotation(&rng, 3.0) }));
		// Swing up to 2.5 rad in any direction and twist up to 2.5 rad: away from the swing of pi where
		// the twist is undefined. Every tenth trial has no swing, and every tenth a tiny one (the limit
		// sigma -> 0 of joint.h).
		double phi = rng_uniform(&rng, 0.0, 2.5), psi = rng_uniform(&rng, -SN_PI, SN_PI);
		if (t % 10 == 0)
		{
			phi = 0.0;
		}
		else if (t % 10 == 1)
		{
			phi = 1e-9;
		}
		sn_quat rel = swing_twist(rng_uniform(&rng, -2.5, 2.5), phi * cos(psi), phi * sin(psi));
		sn_vec3 offset = sn_scale(rng_uniform(&rng, 0.3, 1.5), sn_normalize(rng_vec3(&rng, -1, 1)));
		place_b(world, six, (sn_transform){ offset, rel });
		assert_sn_ok(sn_body_set_linear_velocity(world, a, rng_vec3(&rng, -2, 2)));
		assert_sn_ok(sn_body_set_angular_velocity(world, a, rng_vec3(&rng, -1.2, 1.2)));
		assert_sn_ok(sn_body_set_linear_velocity(world, b, rng_vec3(&rng, -2, 2)));
		assert_sn_ok(sn_body_set_angular_velocity(world, b, rng_vec3(&rng, -1.2, 1.2)));

		sn_transform pa = sn_body_get_pose(world, a), pb = sn_body_get_pose(world, b);
		double speed[SN_AXIS_COUNT + 1], diff[2][SN_AXIS_COUNT + 1];
		for (int k = 0; k < SN_AXIS_COUNT; ++k)
		{
			speed[k] = sn_joint_get_coordinate_speed(world, six, (sn_axis)k);
		}
		speed[SN_AXIS_COUNT] = sn_joint_get_coordinate_speed(world, rod, SN_AXIS_X);
		for (int level = 0; level < 2; ++level)
		{
			double e = level == 0 ? eps : 0.5 * eps;
			for (int k = 0; k <= SN_AXIS_COUNT; ++k)
			{
				diff[level][k] = 0.0;
			}
			for (int side = 0; side < 2; ++side)
			{
				double s = side == 0 ? e : -e;
				drift_body(world, a, pa, s);
				drift_body(world, b, pb, s);
				for (int k = 0; k <= SN_AXIS_COUNT; ++k)
				{
					double c = k < SN_AXIS_COUNT ? sn_joint_get_coordinate(world, six, (sn_axis)k)
												 : sn_joint_get_coordinate(world, rod, SN_AXIS_X);
					diff[level][k] += (side == 0 ? c : -c) / (2.0 * e);
				}
			}
		}
		assert_sn_ok(sn_body_set_pose(world, a, pa));
		assert_sn_ok(sn_body_set_pose(world, b, pb));
		for (int k = 0; k <= SN_AXIS_COUNT; ++k)
		{
			double fd = (4.0 * diff[1][k] - diff[0][k]) / 3.0;
			double err = fabs(fd - speed[k]);
			worst = fmax(worst, err);
			if (!(err <= 1e-8))
			{
				fail_msg("trial %d axis %d: coordinate speed %.17g, central difference %.17g (swing %g rad)", t, k,
						 speed[k], fd, phi);
			}
		}
		assert_sn_ok(sn_destroy_joint(world, six));
		assert_sn_ok(sn_destroy_joint(world, rod));
	}
	report_measure("worst |coordinate speed - central difference|", worst);
	sn_world_destroy(world);
}

// ---- spherical cone and twist limits ----------------------------------------------------------------

typedef struct cone_run
{
	double worst_norm;     // max over the run of sqrt((s_y/a)^2 + (s_z/b)^2)
	double max_sy, max_sz; // rad, largest |s_y| and |s_z| reached
	double max_twist;      // rad, largest |twist|
	double worst_gap;      // m, anchor gap
} cone_run;

// A 1 kg bob hanging 1 m below a ball joint (frame x pointing down, so RY is the swing about world y
// and RZ about world x), thrown sideways at `velocity` and spun about the vertical at `spin`.
static cone_run run_cone(sn_solver solver, sn_cone_limit cone, sn_limit twist, sn_vec3 velocity, double spin)
{
	sn_world* world = test_world(solver, dt, sn_v3(0, 0, -9.81));
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(0, 0, -1);
	bd.inertia = sn_inertia_sphere(1.0, 0.1);
	bd.linear_velocity = velocity;
	bd.angular_velocity = sn_v3(0, 0, spin);
	sn_body_id bob;
	assert_sn_ok(sn_create_body(world, &bd, &bob));
	sn_spherical_joint_def sd = sn_default_spherical_joint_def();
	sn_quat down = sn_quat_from_axis_angle(sn_v3(0, 1, 0), 0.5 * SN_PI); // x onto -z
	sd.base.body_b = bob;
	sd.base.frame_a.q = down;
	sd.base.frame_b = (sn_transform){ sn_v3(0, 0, 1), down };
	sd.swing = cone;
	sd.twist = twist;
	sn_joint_id joint;
	assert_sn_ok(sn_create_spherical_joint(world, &sd, &joint));
	cone_run out = { 0.0, 0.0, 0.0, 0.0, 0.0 };
	for (int i = 0; i < 3000; ++i)
	{
		assert_sn_ok(sn_world_step(world));
		// Swing and twist read from the poses: q = swing * twist (joint.h), swing vector of qs.
		sn_quat q = joint_relative_rotation(world, joint);
		double theta = quat_twist_x(q);
		sn_quat qt_inv = sn_quat_from_axis_angle(sn_v3(1, 0, 0), -theta);
		sn_quat qs = sn_quat_mul(q, qt_inv);
		double sigma = hypot(qs.y, qs.z), phi = 2.0 * atan2(sigma, qs.w);
		double sy = sigma > 0.0 ? phi * qs.y / sigma : 0.0, sz = sigma > 0.0 ? phi * qs.z / sigma : 0.0;
		if (cone.enabled)
		{
			out.worst_norm = fmax(out.worst_norm, hypot(sy / cone.y_angle, sz / cone.z_angle));
		}
		out.max_sy = fmax(out.max_sy, fabs(sy));
		out.max_sz = fmax(out.max_sz, fabs(sz));
		out.max_twist = fmax(out.max_twist, fabs(theta));
		out.worst_gap = fmax(out.worst_gap, sn_length(joint_separation(world, joint)));
	}
	sn_world_destroy(world);
	return out;
}

// Elliptic cone with half-angles 0.3 rad about y and 0.6 rad about z. Thrown at 3 m/s, a free 1 m
// pendulum would swing out to acos(1 - v^2 / 2 g L) = 1.0 rad, past both: the bob rides the cone.
// Penetration: the cone row is a speculative unilateral row projected out of the point locks (joint.h),
// exact for the linearised swing, so what crosses is the curvature of the ellipse and of the swing over
// one solve, of order (w h)^2 ~ (3 rad/s * 1 ms)^2 ~ 1e-5 rad. Measured: 3e-5 of the norm on the
// diagonal throw, 0 on the axes. Bound 1e-4. (Before the projection the bob passed the 0.3 rad cone by
// 12 mrad, 4% of the norm, and bounced off it.)
static void test_spherical_cone(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	sn_cone_limit cone = { true, 0.3, 0.6, sn_soft_rigid() };
	sn_limit no_twist = { false, 0.0, 0.0, sn_soft_rigid() };
	for (int s = 0; s < 2; ++s)
	{
		// Along world x: a swing about y, stopped at 0.3 rad.
		cone_run x = run_cone(solvers[s], cone, no_twist, sn_v3(3, 0, 0), 0.0);
		// Along world y: a swing about world x = frame z, stopped at 0.6 rad.
		cone_run y = run_cone(solvers[s], cone, no_twist, sn_v3(0, 3, 0), 0.0);
		// Diagonal: rides the ellipse between the two.
		cone_run d = run_cone(solvers[s], cone, no_twist, sn_v3(2.5, 2.5, 0), 0.0);
		report_measure("cone norm, throw along x", x.worst_norm);
		report_measure("cone norm, throw along y", y.worst_norm);
		report_measure("cone norm, diagonal throw", d.worst_norm);
		report_measure("cone max |s_y| along x (rad)", x.max_sy);
		report_measure("cone max |s_z| along y (rad)", y.max_sz);
		const char* why = "speculative cone row: curvature (w h)^2 of one solve";
		assert_below(x.worst_norm, 1.0 + 1e-4, why);
		assert_below(y.worst_norm, 1.0 + 1e-4, why);
		assert_below(d.worst_norm, 1.0 + 1e-4, why);
		// The two half-angles are reached: the cone is elliptic, not round.
		assert_near(x.max_sy, 0.3, 1e-4 * 0.3, "stops at the y half-angle");
		assert_near(y.max_sz, 0.6, 1e-4 * 0.6, "stops at the z half-angle");
		assert_below(x.max_sz, 1e-9, "a throw in the x-z plane stays a pure y swing");
		assert_near(d.worst_norm, 1.0, 1e-4, "the diagonal throw reaches the ellipse");
		assert_below(fmax(x.worst_gap, fmax(y.worst_gap, d.worst_gap)), 1e-4, "the ball joint's point locks hold");
	}
}

// Twist limit [-0.4, 0.4] rad: the bob spun at +-5 rad/s about the vertical stops at the limit; with a
// cone and a throw at the same time both hold. Same bound reasoning as the cone.
static void test_spherical_twist(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	sn_cone_limit no_cone = { false, 0.5 * SN_PI, 0.5 * SN_PI, sn_soft_rigid() };
	sn_cone_limit cone = { true, 0.3, 0.6, sn_soft_rigid() };
	sn_limit twist = { true, -0.4, 0.4, sn_soft_rigid() };
	for (int s = 0; s < 2; ++s)
	{
		cone_run plus = run_cone(solvers[s], no_cone, twist, sn_v3(0, 0, 0), 5.0);
		cone_run minus = run_cone(solvers[s], no_cone, twist, sn_v3(0, 0, 0), -5.0);
		cone_run both = run_cone(solvers[s], cone, twist, sn_v3(2.5, 2.5, 0), 5.0);
		report_measure("max twist, spun + (rad)", plus.max_twist);
		report_measure("max twist, spun - (rad)", minus.max_twist);
		report_measure("max twist with cone (rad)", both.max_twist);
		report_measure("cone norm with twist", both.worst_norm);
		const char* why = "speculative twist row: curvature (w h)^2 of one solve";
		assert_near(plus.max_twist, 0.4, 1e-4 * 0.4, why);
		assert_near(minus.max_twist, 0.4, 1e-4 * 0.4, why);
		assert_below(both.max_twist, 0.4 * (1.0 + 1e-4), why);
		assert_below(both.worst_norm, 1.0 + 1e-4, why);
		assert_below(plus.max_sy + plus.max_sz, 1e-9, "a pure spin about the joint axis does not swing");
	}
}

// ---- six-axis modes -------------------------------------------------------------------------------

// A 2 kg sphere (I = 0.008 kg*m^2) held at its centre by a six-axis joint to the world, no gravity, pushed
// for 0.5 s along one axis (1 N, or 0.008 N*m: 0.5 m/s^2 or 1 rad/s^2) with that axis in the given mode
// and the other five locked. Returns the pushed coordinate and the largest of the others, by the core's
// coordinates (their conventions are checked above).
static void run_six_axis(sn_solver solver, int axis, sn_axis_mode mode, double sign, double* pushed, double* others)
{
	sn_world* world = test_world(solver, dt, sn_v3(0, 0, 0));
	sn_body_id body = test_body(world, sn_v3(0, 0, 0), 2.0, sn_inertia_sphere(2.0, 0.1));
	sn_six_axis_joint_def sd = sn_default_six_axis_joint_def();
	sd.base.body_b = body;
	sd.axes[axis].mode = mode;
	sd.axes[axis].lower = -0.03;
	sd.axes[axis].upper = 0.04;
	sn_joint_id joint;
	assert_sn_ok(sn_create_six_axis_joint(world, &sd, &joint));
	sn_vec3 dir = sn_v3(axis % 3 == 0 ? sign : 0.0, axis % 3 == 1 ? sign : 0.0, axis % 3 == 2 ? sign : 0.0);
	*pushed = 0.0;
	*others = 0.0;
	for (int i = 0; i < 500; ++i)
	{
		if (axis < 3)
		{
			assert_sn_ok(sn_body_apply_force_at_center(world, body, dir));
		}
		else
		{
			assert_sn_ok(sn_body_apply_torque(world, body, sn_scale(0.008, dir)));
		}
		assert_sn_ok(sn_world_step(world));
		for (int k = 0; k < SN_AXIS_COUNT; ++k)
		{
			double c = sn_joint_get_coordinate(world, joint, (sn_axis)k);
			if (k == axis)
			{
				*pushed = c;
			}
			else
			{
				*others = fmax(*others, fabs(c));
			}
		}
	}
	sn_world_destroy(world);
}

static void test_six_axis_modes(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	for (int s = 0; s < 2; ++s)
	{
		double h = solvers[s] == SN_SOLVER_TGS ? dt / 8.0 : dt;
		double n = 0.5 / h;
		for (int axis = 0; axis < SN_AXIS_COUNT; ++axis)
		{
			double accel = axis < 3 ? 0.5 : 1.0;
			double pushed, others;
			// Free: x = a h^2 N (N + 1) / 2 (semi-implicit Euler, test_bodies.c), 0.0625 m or 0.125 rad.
			// The locks see no load (the push is along the free axis through the centre), so the only
			// error is rounding.
			run_six_axis(solvers[s], axis, SN_AXIS_FREE, 1.0, &pushed, &others);
			assert_near(pushed, accel * h * h * n * (n + 1.0) / 2.0, 1e-12, "free axis: the closed form");
			assert_below(others, 1e-12, "the other axes stay locked");
			// Limited to [-0.03, 0.04]: the push would carry it past (to 0.0625 m or 0.125 rad); it stops
			// at the bound. The limit row is speculative and the body alone on it, so it stops within
			// rounding of the bound.
			run_six_axis(solvers[s], axis, SN_AXIS_LIMITED, 1.0, &pushed, &others);
			report_measure("six-axis upper limit error", pushed - 0.04);
			assert_near(pushed, 0.04, 1e-9, "hard limit of a single body, speculative row");
			assert_below(others, 1e-12, "the other axes stay locked");
			run_six_axis(solvers[s], axis, SN_AXIS_LIMITED, -1.0, &pushed, &others);
			report_measure("six-axis lower limit error", pushed + 0.03);
			assert_near(pushed, -0.03, 1e-9, "hard limit of a single body, speculative row");
			// Locked: a rigid lock from rest cancels the push's velocity in every solve: no drift at all.
			run_six_axis(solvers[s], axis, SN_AXIS_LOCKED, 1.0, &pushed, &others);
			assert_below(fabs(pushed), 1e-12, "locked axis under a constant push");
			assert_below(others, 1e-12, "locked");
		}
	}
}

// ---- distance joint: rigid, spring, min and max -----------------------------------------------------

// A 1 kg bob below a world anchor on a distance joint with rest length 1 m.
static sn_world* distance_scene(sn_solver solver, bool spring, sn_soft soft, sn_limit limit, sn_vec3 velocity,
								sn_body_id* bob, sn_joint_id* joint)
{
	sn_world* world = test_world(solver, dt, sn_v3(0, 0, -9.81));
	sn_body_def bd = sn_default_body_def();
	bd.pose.p = sn_v3(0, 0, -1);
	bd.linear_velocity = velocity;
	assert_sn_ok(sn_create_body(world, &bd, bob));
	sn_distance_joint_def dd = sn_default_distance_joint_def();
	dd.base.body_b = *bob;
	dd.length = 1.0;
	dd.spring_enabled = spring;
	dd.spring = soft;
	dd.limit = limit;
	assert_sn_ok(sn_create_distance_joint(world, &dd, joint));
	return world;
}

static void test_distance_joint(void** state)
{
	(void)state;
	const sn_solver solvers[2] = { SN_SOLVER_PGS, SN_SOLVER_TGS };
	const double g = 9.81;
	sn_limit no_limit = { false, 0.0, INFINITY, sn_soft_rigid() };
	for (int s = 0; s < 2; ++s)
	{
		sn_body_id bob;
		sn_joint_id joint;
		// Rigid, thrown sideways at 2 m/s: a 1 m pendulum whose length holds to the drift bound of the
		// pendulum test, (v h)^2 / (2 L erp) with h the solve length: 1e-5 m for PGS, 1/64 of it for
		// TGS (measured 1.0e-5 m and 1.6e-7 m). Bound: twice that.
		sn_world* world = distance_scene(solvers[s], false, sn_soft_rigid(), no_limit, sn_v3(2, 0, 0), &bob, &joint);
		double worst = 0.0;
		for (int i = 0; i < 2000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			worst = fmax(worst, fabs(sn_length(joint_separation(world, joint)) - 1.0));
		}
		double h = solvers[s] == SN_SOLVER_TGS ? dt / 8.0 : dt;
		report_measure("rigid distance error (m)", worst);
		assert_below(worst, 2.0 * (2.0 * h) * (2.0 * h) / (2.0 * 1.0 * 0.2), "(v h)^2 / (2 L erp) drift");
		sn_world_destroy(world);

		// Spring k = 2000 N/m, c = 60 N*s/m (damping ratio 0.67): settles in 3 s (decay exp(-30 t)) to
		// the static stretch m g / k = 4.905 mm. The implicit soft row is exact at rest: the residual is
		// the decay, exp(-90) of the initial 5 mm.
		world =
			distance_scene(solvers[s], true, sn_soft_stiffness(2000.0, 60.0), no_limit, sn_v3(0, 0, 0), &bob, &joint);
		for (int i = 0; i < 3000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
		}
		double stretch = sn_joint_get_coordinate(world, joint, SN_AXIS_X) - 1.0;
		report_measure("distance spring static stretch error (m)", stretch - g / 2000.0);
		assert_near(stretch, g / 2000.0, 1e-9, "static stretch m g / k of an implicit spring");
		sn_world_destroy(world);

		// A weak spring (k = 100 N/m would stretch 98 mm) with a hard max of 1.05 m: it hangs on the max.
		sn_limit range = { true, 0.9, 1.05, sn_soft_rigid() };
		world = distance_scene(solvers[s], true, sn_soft_stiffness(100.0, 5.0), range, sn_v3(0, 0, 0), &bob, &joint);
		double longest = 0.0;
		for (int i = 0; i < 3000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			longest = fmax(longest, sn_length(joint_separation(world, joint)));
		}
		report_measure("distance max overshoot (m)", longest - 1.05);
		assert_below(longest, 1.05 + 1e-5, "hard max: speculative row, one body");
		assert_near(sn_length(joint_separation(world, joint)), 1.05, 1e-6, "rests on the max");
		sn_world_destroy(world);

		// Thrown up at 3 m/s from the rest length: the spring alone would let it reach 0.7 m
		// (1/2 m v^2 = 1/2 k x^2 with gravity helping); the hard min of 0.9 m stops it.
		world = distance_scene(solvers[s], true, sn_soft_stiffness(100.0, 0.0), range, sn_v3(0, 0, 3), &bob, &joint);
		double shortest = INFINITY;
		for (int i = 0; i < 1000; ++i)
		{
			assert_sn_ok(sn_world_step(world));
			shortest = fmin(shortest, sn_length(joint_separation(world, joint)));
		}
		report_measure("distance min undershoot (m)", 0.9 - shortest);
		assert_below(0.9 - shortest, 1e-5, "hard min: speculative row, one body");
		assert_near(shortest, 0.9, 1e-3, "it did reach the min");
		sn_world_destroy(world);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coordinate_conventions),
		cmocka_unit_test(test_jacobians_finite_differences),
		cmocka_unit_test(test_spherical_cone),
		cmocka_unit_test(test_spherical_twist),
		cmocka_unit_test(test_six_axis_modes),
		cmocka_unit_test(test_distance_joint),
		cmocka_unit_test(test_chain_fixed),
		cmocka_unit_test(test_chain_hinge),
		cmocka_unit_test(test_chain_prismatic),
		cmocka_unit_test(test_chain_cylindrical),
		cmocka_unit_test(test_chain_spherical),
		cmocka_unit_test(test_chain_distance),
		cmocka_unit_test(test_chain_six_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
